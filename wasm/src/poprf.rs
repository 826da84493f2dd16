//! Token type 0xDA7B (privately verifiable, with public metadata, on
//! POPRF(P-384, SHA-384); draft-ietf-privacypass-public-metadata-issuance
//! §5): the client, exported as `PoprfClient` and `PoprfRequest`, and the
//! issuer, which is also the origin, `PoprfIssuer`. The metadata is an
//! encoded Extensions list (the POPRF `info`), given at request and again
//! at finalize (it must be the same: `ExtensionsMismatch` otherwise) and
//! sent with the token (`Authorization: PrivateToken token=…,
//! extensions=…`, [`crate::auth`]), as for type 0xDA7A
//! ([`crate::metadata`]).
//!
//! A client holds the issuer's token key (the serialized P-384 public key,
//! 49 bytes). `request` draws the nonce and the POPRF blind from
//! `crypto.getRandomValues`; `finalize` checks the issuer's DLEQ proof
//! against the key tweaked by the extensions and unblinds the token. A
//! failed finalize leaves the state as it was; a successful one wipes the
//! blind, and finalizing again is `StateSpent`.
//!
//! The issuer's key is derived from a seed (the draft's
//! `DeriveKeyPair(seed, "PrivacyPass-TypeDA7B")`), drawn from
//! `crypto.getRandomValues` or given as the 48-byte secret scalar; it stays
//! in the module's memory and is wiped by `free()`. Whether a request's or a
//! token's extensions are acceptable is the caller's policy.

use pat::crypto::voprf::{ByteArray, KeyPair, P384Sha384, SecretKey, Suite};
use pat::rand_core::TryCryptoRng;
use pat::tokens::poprf::{Client, Issuer, RequestState, Token, TokenRequest, TokenResponse};
use pat::wire::extensions::Extensions;
use pat::{Decode, Error, Field, TokenChallenge};
use wasm_bindgen::prelude::*;
use zeroize::Zeroizing;

use crate::encode;
use crate::error::js;
use crate::rng::with_web_crypto;

/// An ExtendedTokenRequest for the encoded `challenge` carrying the encoded
/// `extensions`, encoded, and its state.
pub fn request<R: TryCryptoRng<Error: 'static> + ?Sized>(
    client: &Client,
    challenge: &[u8],
    extensions: &[u8],
    rng: &mut R,
) -> pat::Result<(Vec<u8>, RequestState)> {
    let (request, state) = client.request(&TokenChallenge::decode(challenge)?, Extensions::decode(extensions)?, rng)?;
    Ok((encode(&request)?, state))
}

/// The encoded token from an encoded TokenResponse, for the request's
/// encoded `extensions`.
pub fn finalize(client: &Client, state: &mut RequestState, extensions: &[u8], response: &[u8]) -> pat::Result<Vec<u8>> {
    let extensions = Extensions::decode(extensions)?;
    encode(&client.finalize(state, &extensions, &TokenResponse::decode(response)?)?)
}

/// The issuer's encoded TokenResponse to an encoded ExtendedTokenRequest.
pub fn evaluate<R: TryCryptoRng<Error: 'static> + ?Sized>(
    issuer: &Issuer,
    request: &[u8],
    rng: &mut R,
) -> pat::Result<Vec<u8>> {
    encode(&issuer.evaluate(&TokenRequest::decode(request)?, rng)?)
}

/// Verifies an encoded 0xDA7B token against the encoded challenge it
/// answers and the encoded extensions that came with it.
pub fn verify(issuer: &Issuer, token: &[u8], challenge: &[u8], extensions: &[u8]) -> pat::Result<()> {
    issuer.verify(&Token::decode(token)?, &TokenChallenge::decode(challenge)?, &Extensions::decode(extensions)?)
}

/// An issuer with the secret scalar `skS` (48 bytes, canonical, non-zero).
pub fn issuer_from_secret_key(bytes: &[u8]) -> pat::Result<Issuer> {
    let bytes =
        Zeroizing::new(<P384Sha384 as Suite>::ScalarBytes::from_slice(bytes).ok_or(Error::InvalidLength(Field::Key))?);
    Ok(Issuer::new(KeyPair::from_secret_key(SecretKey::from_bytes(&*bytes)?)?))
}

/// A client of token type 0xDA7B.
#[wasm_bindgen]
#[derive(Clone, Debug)]
pub struct PoprfClient {
    pub(crate) inner: Client,
}

#[wasm_bindgen]
impl PoprfClient {
    /// A client for the issuer's token key (the serialized P-384 public
    /// key, 49 bytes).
    #[wasm_bindgen(constructor)]
    pub fn new(token_key: &[u8]) -> Result<PoprfClient, JsValue> {
        Client::from_token_key(token_key).map(|inner| Self { inner }).map_err(js)
    }

    /// The key id, SHA-256 of the token key.
    #[wasm_bindgen(getter, js_name = keyId)]
    pub fn key_id(&self) -> Vec<u8> {
        self.inner.key_id().to_vec()
    }

    /// A request for the encoded TokenChallenge carrying the encoded
    /// Extensions list, with a fresh nonce and blind from
    /// `crypto.getRandomValues`.
    pub fn request(&self, challenge: &[u8], extensions: &[u8]) -> Result<PoprfRequest, JsValue> {
        let (bytes, state) = with_web_crypto(|rng| request(&self.inner, challenge, extensions, rng))?;
        Ok(PoprfRequest { client: self.inner, state, bytes })
    }

    /// Checks that `response` is a TokenResponse of type 0xDA7B (its
    /// length); the proof is checked by `finalize`.
    #[wasm_bindgen(js_name = checkResponse)]
    pub fn check_response(response: &[u8]) -> Result<(), JsValue> {
        TokenResponse::decode(response).map(|_| ()).map_err(js)
    }
}

/// A token request of type 0xDA7B in flight: its bytes and the state to finalize it.
#[wasm_bindgen]
#[derive(Debug)]
pub struct PoprfRequest {
    pub(crate) client: Client,
    pub(crate) state: RequestState,
    pub(crate) bytes: Vec<u8>,
}

#[wasm_bindgen]
impl PoprfRequest {
    /// The encoded ExtendedTokenRequest (its extensions included), to send to the issuer.
    #[wasm_bindgen(getter)]
    pub fn bytes(&self) -> Vec<u8> {
        self.bytes.clone()
    }

    /// The encoded token, from the issuer's encoded TokenResponse and the
    /// request's encoded extensions (others: `ExtensionsMismatch`).
    pub fn finalize(&mut self, extensions: &[u8], response: &[u8]) -> Result<Vec<u8>, JsValue> {
        finalize(&self.client, &mut self.state, extensions, response).map_err(js)
    }
}

/// The issuer (and origin) of token type 0xDA7B: its secret key stays in
/// the module's memory and is wiped by `free()`.
#[wasm_bindgen]
#[derive(Debug)]
pub struct PoprfIssuer {
    pub(crate) inner: Issuer,
}

#[wasm_bindgen]
impl PoprfIssuer {
    /// An issuer whose key is `DeriveKeyPair(seed, "PrivacyPass-TypeDA7B")`
    /// in the POPRF mode (the draft's §5.5; `seed` should be 48 uniformly
    /// random bytes).
    pub fn derive(seed: &[u8]) -> Result<PoprfIssuer, JsValue> {
        Issuer::derive(seed).map(|inner| Self { inner }).map_err(js)
    }

    /// An issuer with a fresh key from `crypto.getRandomValues`.
    pub fn generate() -> Result<PoprfIssuer, JsValue> {
        with_web_crypto(Issuer::generate).map(|inner| Self { inner })
    }

    /// An issuer with the 48-byte secret scalar skS (`InvalidLength`;
    /// `InvalidScalar` for zero or a value not below the group order).
    #[wasm_bindgen(js_name = fromSecretKey)]
    pub fn from_secret_key(bytes: Vec<u8>) -> Result<PoprfIssuer, JsValue> {
        let bytes = Zeroizing::new(bytes);
        issuer_from_secret_key(&bytes).map(|inner| Self { inner }).map_err(js)
    }

    /// The token key to publish (the serialized P-384 public key, 49 bytes).
    #[wasm_bindgen(getter, js_name = tokenKey)]
    pub fn token_key(&self) -> Vec<u8> {
        self.inner.token_key().as_ref().to_vec()
    }

    /// The key id, SHA-256 of the token key.
    #[wasm_bindgen(getter, js_name = keyId)]
    pub fn key_id(&self) -> Vec<u8> {
        self.inner.key_id().to_vec()
    }

    /// The encoded TokenResponse to an encoded ExtendedTokenRequest,
    /// evaluated under the key tweaked by the request's extensions, its
    /// proof's randomness from `crypto.getRandomValues`; `KeyIdMismatch`
    /// for a request for another key.
    pub fn evaluate(&self, request: &[u8]) -> Result<Vec<u8>, JsValue> {
        with_web_crypto(|rng| evaluate(&self.inner, request, rng))
    }

    /// Verifies an encoded token against the encoded challenge it answers
    /// and the encoded extensions sent with it; throws `Verification` (also
    /// for extensions other than the issued ones), `KeyIdMismatch`,
    /// `ChallengeMismatch`, `WrongTokenType` or a parse error.
    pub fn verify(&self, token: &[u8], challenge: &[u8], extensions: &[u8]) -> Result<(), JsValue> {
        verify(&self.inner, token, challenge, extensions).map_err(js)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::challenge::build;
    use crate::testing::TestRng;
    use pat::rand_core::UnwrapErr;

    #[test]
    fn round_trip() {
        let mut rng = UnwrapErr(TestRng(0xDA7B));
        let issuer = Issuer::generate(&mut rng).unwrap();
        let client = Client::from_token_key(issuer.token_key().as_ref()).unwrap();
        let challenge = build(0xDA7B, b"issuer.example", &[5; 32], b"origin.example").unwrap();
        let extensions = [0, 6, 0, 1, 0, 2, 7, 8];
        let other = [0, 6, 0, 1, 0, 2, 7, 9];
        let (bytes, mut state) = request(&client, &challenge, &extensions, &mut rng).unwrap();
        let req = TokenRequest::decode(&bytes).unwrap();
        assert_eq!(req.extensions.as_bytes(), extensions);
        let response = evaluate(&issuer, &bytes, &mut rng).unwrap();
        assert_eq!(evaluate(&issuer, &bytes[..bytes.len() - 1], &mut rng), Err(Error::Truncated));

        assert_eq!(finalize(&client, &mut state, &other, &response), Err(Error::ExtensionsMismatch));
        assert_eq!(finalize(&client, &mut state, &extensions, &response[1..]), Err(Error::Truncated));
        let mut longer = response.clone();
        longer.push(0);
        assert_eq!(finalize(&client, &mut state, &extensions, &longer), Err(Error::TrailingBytes));
        let token = finalize(&client, &mut state, &extensions, &response).unwrap();
        assert_eq!(finalize(&client, &mut state, &extensions, &response), Err(Error::StateSpent));

        verify(&issuer, &token, &challenge, &extensions).unwrap();
        assert_eq!(verify(&issuer, &token, &challenge, &other), Err(Error::Verification));
        let mut forged = token.clone();
        if let Some(last) = forged.last_mut() {
            *last ^= 1;
        }
        assert_eq!(verify(&issuer, &forged, &challenge, &extensions), Err(Error::Verification));
        let elsewhere = build(0xDA7B, b"issuer.example", &[6; 32], b"origin.example").unwrap();
        assert_eq!(verify(&issuer, &token, &elsewhere, &extensions), Err(Error::ChallengeMismatch));

        // A challenge of another type; malformed extensions.
        let type1 = build(1, b"issuer.example", &[], b"").unwrap();
        assert_eq!(
            request(&client, &type1, &extensions, &mut rng).err(),
            Some(Error::WrongTokenType { expected: 0xDA7B, found: 1 })
        );
        assert_eq!(request(&client, &challenge, &[0, 9, 0], &mut rng).err(), Some(Error::Truncated));
    }

    #[test]
    fn secret_keys() {
        let derived = Issuer::derive(&[7; 48]).unwrap();
        let sk = derived.key_pair().secret_key().to_bytes();
        let again = issuer_from_secret_key(sk.as_ref()).unwrap();
        assert_eq!(again.token_key(), derived.token_key());
        assert_eq!(issuer_from_secret_key(&sk[1..]).err(), Some(Error::InvalidLength(Field::Key)));
        assert_eq!(issuer_from_secret_key(&[0; 48]).err(), Some(Error::InvalidScalar));
        assert_eq!(issuer_from_secret_key(&[0xff; 48]).err(), Some(Error::InvalidScalar));
    }
}
