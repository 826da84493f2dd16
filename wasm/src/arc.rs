//! Token type 0xE5AC, ARC(P-256) (draft-ietf-privacypass-arc-protocol-01):
//! the client (credential request, finalize, presentation states, tokens)
//! and the issuer, which is also the origin (credential responses, token
//! checks), exported as `ArcClient`, `ArcCredentialRequest`,
//! `ArcCredential`, `ArcPresentationState` and `ArcIssuer`.
//!
//! The client's secrets are three objects a caller keeps between page loads
//! or Worker invocations, so each exports as bytes and imports again:
//! - the request state (between the credential request and its response),
//!   [`ArcCredentialRequest::export_state`] and [`ArcClient::finalize_exported`];
//! - the credential (one per issuer key and request context, the issuance's
//!   result), [`ArcCredential::export`] and [`ArcCredential::import`];
//! - the presentation state (one per presentation context: its nonce
//!   counter), [`ArcPresentationState::export`] and
//!   [`ArcPresentationState::import`]. Keep it after every token: a state
//!   restored from an older copy repeats nonces, which links the tokens and
//!   makes the origin refuse them as replays.
//!
//! The exported bytes are secret (they hold the credential). The objects
//! wipe their copies when freed (the library's types zeroize on drop); an
//! export is written from a wiped-on-drop buffer straight into a new
//! JavaScript `Uint8Array` (no copy left in the module's heap), and an
//! import's bytes, which wasm-bindgen copies into the module, are wiped
//! after use. The `Uint8Array`s on the JavaScript side are the caller's to
//! keep or overwrite.
//!
//! The issuer checks a token and returns its presentation tag; refusing a
//! tag seen before is the caller's job (the replay store of its deployment),
//! as with `pat origin serve`.

use pat::crypto::arc::{Credential, CredentialRequestState, CredentialResponse, PresentationState, ServerPrivateKey};
use pat::rand_core::TryCryptoRng;
use pat::tokens::arc::{ArcChallenge, ArcToken, Client, Issuer, TokenRequest, tag_id, token_len};
use pat::{Decode, Error};
use wasm_bindgen::prelude::*;
use zeroize::Zeroizing;

use crate::encode;
use crate::error::js;
use crate::rng::with_web_crypto;

/// A CredentialRequest for the encoded ARC `challenge`, encoded, and its state.
pub fn request<R: TryCryptoRng<Error: 'static> + ?Sized>(
    client: &Client,
    challenge: &[u8],
    rng: &mut R,
) -> pat::Result<(Vec<u8>, CredentialRequestState)> {
    let (state, request) = client.request(&ArcChallenge::decode(challenge)?, rng)?;
    Ok((encode(&request)?, state))
}

/// The credential from the issuer's encoded CredentialResponse.
pub fn finalize(client: &Client, state: &CredentialRequestState, response: &[u8]) -> pat::Result<Credential> {
    client.finalize(state, &CredentialResponse::decode(response)?)
}

/// The next token of `state` for the encoded `challenge`.
pub fn token<R: TryCryptoRng<Error: 'static> + ?Sized>(
    client: &Client,
    state: &mut PresentationState,
    challenge: &[u8],
    rng: &mut R,
) -> pat::Result<Vec<u8>> {
    let challenge = ArcChallenge::decode(challenge)?;
    let mut out = vec![0u8; token_len(state.limit())?];
    let n = client.token(state, &challenge, rng, &mut out)?;
    out.truncate(n);
    Ok(out)
}

/// The issuer's encoded CredentialResponse to an encoded CredentialRequest.
pub fn issue<R: TryCryptoRng<Error: 'static> + ?Sized>(
    issuer: &Issuer,
    request: &[u8],
    rng: &mut R,
) -> pat::Result<Vec<u8>> {
    Ok(issuer.issue(&TokenRequest::decode(request)?, rng)?.to_bytes().to_vec())
}

/// Checks an encoded token for the encoded `challenge` under `limit`;
/// returns its presentation tag.
pub fn verify(issuer: &Issuer, token: &[u8], challenge: &[u8], limit: u64) -> pat::Result<[u8; 33]> {
    issuer.verify(&ArcToken::decode(token, limit)?, &ArcChallenge::decode(challenge)?, limit)
}

/// A client of token type 0xE5AC (ARC) for one issuer key.
#[wasm_bindgen]
#[derive(Clone, Debug)]
pub struct ArcClient {
    inner: Client,
}

#[wasm_bindgen]
impl ArcClient {
    /// A client for the issuer's token key (its 99-byte ServerPublicKey).
    #[wasm_bindgen(constructor)]
    pub fn new(token_key: &[u8]) -> Result<ArcClient, JsValue> {
        Client::from_token_key(token_key).map(|inner| Self { inner }).map_err(js)
    }

    /// The key id, SHA-256 of the token key.
    #[wasm_bindgen(getter, js_name = keyId)]
    pub fn key_id(&self) -> Vec<u8> {
        self.inner.key_id().to_vec()
    }

    /// A credential request for the encoded ARC challenge (its issuer name,
    /// origin_info and credential_context bind the credential), its
    /// randomness from `crypto.getRandomValues`.
    pub fn request(&self, challenge: &[u8]) -> Result<ArcCredentialRequest, JsValue> {
        let (bytes, state) = with_web_crypto(|rng| request(&self.inner, challenge, rng))?;
        Ok(ArcCredentialRequest { client: self.inner.clone(), state: Some(state), bytes })
    }

    /// The credential from a request state exported by
    /// [`ArcCredentialRequest::export_state`] and the issuer's encoded
    /// CredentialResponse.
    #[wasm_bindgen(js_name = finalizeExported)]
    pub fn finalize_exported(&self, state: Vec<u8>, response: &[u8]) -> Result<ArcCredential, JsValue> {
        let state = CredentialRequestState::import(&Zeroizing::new(state)).map_err(js)?;
        finalize(&self.inner, &state, response).map(|inner| ArcCredential { inner }).map_err(js)
    }

    /// The presentation state of `credential` for the encoded `challenge`'s
    /// presentation context (its issuer name, origin_info and
    /// redemption_context) under `limit` (2 to 2^32, the challenge's
    /// `rate-limit`). Make one per context and keep it.
    #[wasm_bindgen(js_name = presentationState)]
    pub fn presentation_state(
        &self,
        credential: &ArcCredential,
        challenge: &[u8],
        limit: u64,
    ) -> Result<ArcPresentationState, JsValue> {
        let challenge = ArcChallenge::decode(challenge).map_err(js)?;
        self.inner
            .presentation_state(&credential.inner, &challenge, limit)
            .map(|inner| ArcPresentationState { inner })
            .map_err(js)
    }

    /// The next token of `state` for the encoded `challenge` (the one the
    /// state was made for: `ChallengeMismatch` otherwise), its randomness
    /// from `crypto.getRandomValues`; the state advances.
    /// `PresentationLimitReached` once the limit is used up. The nonce is
    /// spent before the randomness is drawn: a failure of
    /// `crypto.getRandomValues` (`Rng`) uses up one presentation without a
    /// token (never the same nonce twice).
    pub fn token(&self, state: &mut ArcPresentationState, challenge: &[u8]) -> Result<Vec<u8>, JsValue> {
        with_web_crypto(|rng| token(&self.inner, &mut state.inner, challenge, rng))
    }
}

/// A credential request of type 0xE5AC in flight: its bytes and the state
/// that finalizes it.
#[wasm_bindgen]
#[derive(Debug)]
pub struct ArcCredentialRequest {
    client: Client,
    /// `None` once finalized (the state is wiped then).
    state: Option<CredentialRequestState>,
    bytes: Vec<u8>,
}

#[wasm_bindgen]
impl ArcCredentialRequest {
    /// The encoded CredentialRequest, to send to the issuer
    /// (`application/private-credential-request`).
    #[wasm_bindgen(getter)]
    pub fn bytes(&self) -> Vec<u8> {
        self.bytes.clone()
    }

    /// The request state as bytes (secret), for
    /// [`ArcClient::finalize_exported`]; `StateSpent` after a finalize.
    #[wasm_bindgen(js_name = exportState)]
    pub fn export_state(&self) -> Result<js_sys::Uint8Array, JsValue> {
        let state = self.state.as_ref().ok_or(Error::StateSpent).map_err(js)?;
        Ok(js_sys::Uint8Array::from(&state.export()[..]))
    }

    /// The credential, from the issuer's encoded CredentialResponse (its
    /// proof checked). A failed finalize leaves the state as it was; a
    /// successful one wipes it, and finalizing again is `StateSpent`.
    pub fn finalize(&mut self, response: &[u8]) -> Result<ArcCredential, JsValue> {
        let state = self.state.as_ref().ok_or(Error::StateSpent).map_err(js)?;
        let inner = finalize(&self.client, state, response).map_err(js)?;
        self.state = None;
        Ok(ArcCredential { inner })
    }
}

/// An ARC credential (secret): the result of one issuance, for every
/// presentation context of its issuer key and request context.
#[wasm_bindgen]
#[derive(Debug)]
pub struct ArcCredential {
    inner: Credential,
}

#[wasm_bindgen]
impl ArcCredential {
    /// The credential as bytes (secret), for [`ArcCredential::import`].
    pub fn export(&self) -> js_sys::Uint8Array {
        js_sys::Uint8Array::from(&self.inner.export()[..])
    }

    /// A credential from [`ArcCredential::export`]'s bytes.
    pub fn import(bytes: Vec<u8>) -> Result<ArcCredential, JsValue> {
        Credential::import(&Zeroizing::new(bytes)).map(|inner| Self { inner }).map_err(js)
    }
}

/// The presentation state of one credential and one presentation context
/// (secret): the credential, the context's tag generator, the next nonce
/// and the limit.
#[wasm_bindgen]
#[derive(Debug)]
pub struct ArcPresentationState {
    inner: PresentationState,
}

#[wasm_bindgen]
impl ArcPresentationState {
    /// The state as bytes (secret), for [`ArcPresentationState::import`].
    /// Export again after every token.
    pub fn export(&self) -> js_sys::Uint8Array {
        js_sys::Uint8Array::from(&self.inner.export()[..])
    }

    /// A state from [`ArcPresentationState::export`]'s bytes.
    pub fn import(bytes: Vec<u8>) -> Result<ArcPresentationState, JsValue> {
        PresentationState::import(&Zeroizing::new(bytes)).map(|inner| Self { inner }).map_err(js)
    }

    /// How many tokens are left.
    #[wasm_bindgen(getter)]
    pub fn remaining(&self) -> u64 {
        self.inner.remaining()
    }

    /// The presentation limit.
    #[wasm_bindgen(getter)]
    pub fn limit(&self) -> u64 {
        self.inner.limit()
    }
}

/// The issuer and origin of token type 0xE5AC (one party: ARC is privately
/// verifiable); its secret key stays in the module's memory and is wiped by
/// `free()`.
#[wasm_bindgen]
#[derive(Debug)]
pub struct ArcIssuer {
    inner: Issuer,
}

#[wasm_bindgen]
impl ArcIssuer {
    /// An issuer with a fresh key from `crypto.getRandomValues`.
    pub fn generate() -> Result<ArcIssuer, JsValue> {
        with_web_crypto(ServerPrivateKey::generate).map(|key| Self { inner: Issuer::new(key) })
    }

    /// An issuer with the 128-byte secret key x0 ‖ x1 ‖ x2 ‖ x0Blinding
    /// (each scalar nonzero and below the group order: `InvalidKey`).
    #[wasm_bindgen(js_name = fromSecretKey)]
    pub fn from_secret_key(bytes: Vec<u8>) -> Result<ArcIssuer, JsValue> {
        let bytes = Zeroizing::new(bytes);
        ServerPrivateKey::from_bytes(&bytes).map(|key| Self { inner: Issuer::new(key) }).map_err(js)
    }

    /// The token key to publish: the 99-byte ServerPublicKey.
    #[wasm_bindgen(getter, js_name = tokenKey)]
    pub fn token_key(&self) -> Vec<u8> {
        self.inner.token_key().to_vec()
    }

    /// The key id, SHA-256 of the token key.
    #[wasm_bindgen(getter, js_name = keyId)]
    pub fn key_id(&self) -> Vec<u8> {
        self.inner.key_id().to_vec()
    }

    /// The encoded CredentialResponse to an encoded CredentialRequest, its
    /// proof's randomness from `crypto.getRandomValues`; `KeyIdMismatch`
    /// for a request for another key, `Verification` if its proof fails.
    pub fn issue(&self, request: &[u8]) -> Result<Vec<u8>, JsValue> {
        with_web_crypto(|rng| issue(&self.inner, request, rng))
    }

    /// Checks an encoded token for the encoded challenge it answers under
    /// `limit`, and returns its replay key: SHA-256 of the presentation tag
    /// (32 bytes). A verified token is not yet a redeemed one: the caller
    /// must keep the key and refuse a token whose key it has seen, or the
    /// limit means nothing (every presentation verifies again). Throws
    /// `Verification`, `KeyIdMismatch`, `ChallengeMismatch`,
    /// `WrongTokenType` or a parse error.
    pub fn verify(&self, token: &[u8], challenge: &[u8], limit: u64) -> Result<Vec<u8>, JsValue> {
        verify(&self.inner, token, challenge, limit).map(|tag| tag_id(&tag).to_vec()).map_err(js)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::challenge::build_with;
    use crate::testing::TestRng;
    use pat::rand_core::UnwrapErr;
    use pat::tokens::arc::TOKEN_TYPE;

    #[test]
    fn issuance_presentation_and_state_export() {
        let mut rng = UnwrapErr(TestRng(0xE5AC));
        let issuer = Issuer::new(ServerPrivateKey::generate(&mut rng).unwrap());
        let client = Client::from_token_key(&issuer.token_key()).unwrap();
        let challenge = build_with(TOKEN_TYPE, b"issuer.example", &[4; 32], b"origin.example", None).unwrap();

        let (bytes, state) = request(&client, &challenge, &mut rng).unwrap();
        assert_eq!(issue(&issuer, &bytes[..bytes.len() - 1], &mut rng), Err(Error::Truncated));
        let response = issue(&issuer, &bytes, &mut rng).unwrap();
        // The state exported and imported finalizes the same.
        let again = CredentialRequestState::import(&state.export()[..]).unwrap();
        assert_eq!(finalize(&client, &state, &response[1..]).err(), Some(Error::Truncated));
        let credential = finalize(&client, &again, &response).unwrap();
        let mut forged = response.clone();
        forged[200] ^= 1;
        assert_eq!(finalize(&client, &state, &forged).err(), Some(Error::Verification));

        let credential = Credential::import(&credential.export()[..]).unwrap();
        let arc_challenge = ArcChallenge::decode(&challenge).unwrap();
        let mut pstate = client.presentation_state(&credential, &arc_challenge, 3).unwrap();
        let mut tags = Vec::new();
        for i in 0..3 {
            // Each token from a state exported and imported again.
            let mut restored = PresentationState::import(&pstate.export()[..]).unwrap();
            let t = token(&client, &mut restored, &challenge, &mut rng).unwrap();
            pstate = restored;
            assert_eq!(pstate.remaining(), 2 - i);
            let tag = verify(&issuer, &t, &challenge, 3).unwrap();
            assert!(!tags.contains(&tag));
            tags.push(tag);
            // Another limit's length, another challenge.
            assert_eq!(verify(&issuer, &t, &challenge, 1 << 20).err(), Some(Error::Truncated));
            let other = build_with(TOKEN_TYPE, b"issuer.example", &[5; 32], b"origin.example", None).unwrap();
            assert_eq!(verify(&issuer, &t, &other, 3), Err(Error::ChallengeMismatch));
            let mut forged = t.clone();
            let last = forged.len() - 1;
            forged[last] ^= 1;
            assert_eq!(verify(&issuer, &forged, &challenge, 3).err(), Some(Error::Verification));
        }
        assert_eq!(token(&client, &mut pstate, &challenge, &mut rng), Err(Error::PresentationLimitReached));
        // A token for another presentation context from this state.
        let other = build_with(TOKEN_TYPE, b"issuer.example", &[6; 32], b"origin.example", None).unwrap();
        let mut fresh = client.presentation_state(&credential, &arc_challenge, 3).unwrap();
        assert_eq!(token(&client, &mut fresh, &other, &mut rng), Err(Error::ChallengeMismatch));
        // A challenge of another type.
        let plain = crate::challenge::build(2, b"issuer.example", &[], &[]).unwrap();
        assert_eq!(
            request(&client, &plain, &mut rng).err(),
            Some(Error::WrongTokenType { expected: TOKEN_TYPE, found: 2 })
        );
    }
}
