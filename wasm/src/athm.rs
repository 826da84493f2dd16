//! Token type 0xC07E, ATHM(P-256) (draft-yun-privacypass-athm-00): the
//! client (request, finalize, its state as bytes) and the issuer, which is
//! also the origin (responses hiding a value, tokens read back), exported
//! as `AthmClient`, `AthmRequest`, `AthmIssuer` and `AthmVerified`.
//!
//! A deployment is named by its deployment id and has [`BUCKETS`] (4)
//! buckets, the draft's, the C API's and `pat`'s choice. The library's
//! parameters borrow the deployment id, which an object handed to
//! JavaScript cannot (wasm-bindgen exports no lifetimes): the objects own
//! the id and the key's bytes and build the library's client or issuer for
//! each call, as the C API does, so the key's proof is checked again on
//! every call (about 1 ms in Node; an issuer also recomputes its public
//! key, 2 ms more).
//!
//! The client's state between request and response is secret; it exports
//! as bytes (the library's format and length, [`RequestState::LEN`]),
//! written from a wiped-on-drop buffer straight into a new JavaScript
//! `Uint8Array`, and an import's bytes are wiped after use. The draft binds
//! no challenge into the token: a client may fetch tokens before any origin
//! asks. The issuer reads a token's hidden value back and returns it with
//! the token's nonce t; refusing a t seen before is the caller's job (the
//! replay store of its deployment; the library's `redeem` does both).

use pat::crypto::athm::{Params, PrivateKey, PublicKeyProof, TokenResponse};
use pat::rand_core::TryCryptoRng;
use pat::tokens::athm::{Client, Issuer, RequestState, TOKEN_KEY_LEN, TOKEN_TYPE, Token, TokenRequest};
use pat::wire::token_type::KEY_ID_LEN;
use pat::{Decode, Error};
use wasm_bindgen::prelude::*;
use zeroize::Zeroizing;

use crate::encode;
use crate::error::js;
use crate::rng::with_web_crypto;

/// The buckets of every deployment this package serves (the draft's N).
pub const BUCKETS: usize = 4;

/// Whether `bytes` starts with ATHM's token type.
pub fn is_athm(bytes: &[u8]) -> bool {
    bytes.starts_with(&TOKEN_TYPE.to_be_bytes())
}

/// Checks that `bytes` is an ATHM token, strictly (length, type, points).
pub fn check_token(bytes: &[u8]) -> pat::Result<()> {
    Token::decode(bytes).map(|_| ())
}

/// The client of `token_key` (its proof checked) in the deployment named
/// `deployment_id`.
pub fn client<'p>(deployment_id: &'p [u8], token_key: &[u8]) -> pat::Result<Client<'p, BUCKETS>> {
    Client::from_token_key(Params::new(deployment_id)?, token_key)
}

/// A TokenRequest of `client`, encoded, and its state.
pub fn request<R: TryCryptoRng<Error: 'static> + ?Sized>(
    client: &Client<'_, BUCKETS>,
    rng: &mut R,
) -> pat::Result<(Vec<u8>, RequestState)> {
    let (state, request) = client.request(rng)?;
    Ok((encode(&request)?, state))
}

/// The encoded token from the issuer's encoded response, re-randomized with
/// `rng`.
pub fn finalize<R: TryCryptoRng<Error: 'static> + ?Sized>(
    client: &Client<'_, BUCKETS>,
    state: &RequestState,
    response: &[u8],
    rng: &mut R,
) -> pat::Result<Vec<u8>> {
    encode(&client.finalize(state, &TokenResponse::<BUCKETS>::from_bytes(response)?, rng)?)
}

/// The issuer's encoded response hiding `metadata` to an encoded request.
pub fn issue<R: TryCryptoRng<Error: 'static> + ?Sized>(
    issuer: &Issuer<'_, BUCKETS>,
    request: &[u8],
    metadata: u8,
    rng: &mut R,
) -> pat::Result<Vec<u8>> {
    let response = issuer.issue(&TokenRequest::decode(request)?, metadata, rng)?;
    let mut out = vec![0u8; TokenResponse::<BUCKETS>::LEN];
    let n = response.encode(&mut out)?;
    out.truncate(n);
    Ok(out)
}

/// An encoded token's hidden value and its nonce t (the replay key).
pub fn verify(issuer: &Issuer<'_, BUCKETS>, token: &[u8]) -> pat::Result<(u8, [u8; 32])> {
    let token = Token::decode(token)?;
    Ok((issuer.verify(&token)?, token.token.nonce()))
}

/// A client of token type 0xC07E (ATHM) for one deployment and issuer key.
#[wasm_bindgen]
#[derive(Clone, Debug)]
pub struct AthmClient {
    deployment_id: Vec<u8>,
    token_key: Vec<u8>,
    key_id: [u8; KEY_ID_LEN],
}

impl AthmClient {
    /// The library's client (the key's proof checked again).
    pub(crate) fn client(&self) -> pat::Result<Client<'_, BUCKETS>> {
        client(&self.deployment_id, &self.token_key)
    }
}

#[wasm_bindgen]
impl AthmClient {
    /// A client for the deployment named `deployment_id` (up to 255 bytes)
    /// and the issuer's token key (its public key and the key's proof, 163
    /// bytes), whose proof is checked here (`Verification` if it fails
    /// under the deployment; `InvalidLength` for another length).
    #[wasm_bindgen(constructor)]
    pub fn new(deployment_id: &[u8], token_key: &[u8]) -> Result<AthmClient, JsValue> {
        let key_id = *client(deployment_id, token_key).map_err(js)?.key_id();
        Ok(Self { deployment_id: deployment_id.to_vec(), token_key: token_key.to_vec(), key_id })
    }

    /// The key id, SHA-256 of the public key without its proof.
    #[wasm_bindgen(getter, js_name = keyId)]
    pub fn key_id(&self) -> Vec<u8> {
        self.key_id.to_vec()
    }

    /// A token request, its randomness from `crypto.getRandomValues`.
    pub fn request(&self) -> Result<AthmRequest, JsValue> {
        let client = self.client().map_err(js)?;
        let (bytes, state) = with_web_crypto(|rng| request(&client, rng))?;
        Ok(AthmRequest { client: self.clone(), state: Some(state), bytes })
    }

    /// The encoded token from a state exported by
    /// [`AthmRequest::export_state`] and the issuer's encoded response
    /// (`Verification` if its proof fails, `KeyIdMismatch` for a state of
    /// another key), re-randomized with `crypto.getRandomValues`.
    #[wasm_bindgen(js_name = finalizeExported)]
    pub fn finalize_exported(&self, state: Vec<u8>, response: &[u8]) -> Result<Vec<u8>, JsValue> {
        let state = RequestState::import(&Zeroizing::new(state)).map_err(js)?;
        let client = self.client().map_err(js)?;
        with_web_crypto(|rng| finalize(&client, &state, response, rng))
    }

    /// The length of an exported request state.
    #[wasm_bindgen(js_name = stateLength)]
    pub fn state_length() -> usize {
        RequestState::LEN
    }
}

/// A token request of type 0xC07E in flight: its bytes and the state that
/// finalizes it.
#[wasm_bindgen]
#[derive(Debug)]
pub struct AthmRequest {
    pub(crate) client: AthmClient,
    /// `None` once finalized (the state is wiped then).
    pub(crate) state: Option<RequestState>,
    pub(crate) bytes: Vec<u8>,
}

impl AthmRequest {
    /// The encoded token from the issuer's encoded response, its
    /// re-randomization from `rng`; the state is wiped on success.
    pub(crate) fn finalize_with<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &mut self,
        response: &[u8],
        rng: &mut R,
    ) -> pat::Result<Vec<u8>> {
        let state = self.state.as_ref().ok_or(Error::StateSpent)?;
        let token = finalize(&self.client.client()?, state, response, rng)?;
        self.state = None;
        Ok(token)
    }
}

#[wasm_bindgen]
impl AthmRequest {
    /// The encoded TokenRequest, to send to the issuer
    /// (`application/private-token-request`).
    #[wasm_bindgen(getter)]
    pub fn bytes(&self) -> Vec<u8> {
        self.bytes.clone()
    }

    /// The request state as bytes (secret), for
    /// [`AthmClient::finalize_exported`]; `StateSpent` after a finalize.
    #[wasm_bindgen(js_name = exportState)]
    pub fn export_state(&self) -> Result<js_sys::Uint8Array, JsValue> {
        let state = self.state.as_ref().ok_or(Error::StateSpent).map_err(js)?;
        Ok(js_sys::Uint8Array::from(&state.export()[..]))
    }

    /// The encoded token from the issuer's encoded response (its proof
    /// checked: `Verification`), re-randomized with
    /// `crypto.getRandomValues`. A failed finalize leaves the state as it
    /// was; a successful one wipes it, and finalizing again is
    /// `StateSpent`.
    pub fn finalize(&mut self, response: &[u8]) -> Result<Vec<u8>, JsValue> {
        with_web_crypto(|rng| self.finalize_with(response, rng))
    }
}

/// A token that verified: its hidden value and its nonce.
#[wasm_bindgen(getter_with_clone)]
#[derive(Clone, Debug)]
pub struct AthmVerified {
    /// The value the issuer hid in it (below 4).
    pub metadata: u8,
    /// The token's nonce t (32 bytes), its replay key: refuse a token whose
    /// t was seen before.
    pub nonce: Vec<u8>,
}

/// The issuer and origin of token type 0xC07E (one party: ATHM is
/// privately verifiable); its secret key stays in the module's memory and
/// is wiped by `free()`.
#[wasm_bindgen]
#[derive(Debug)]
pub struct AthmIssuer {
    deployment_id: Vec<u8>,
    key: PrivateKey,
    proof: PublicKeyProof,
    /// The public token key and its id, kept for the getters.
    token_key: [u8; TOKEN_KEY_LEN],
    key_id: [u8; KEY_ID_LEN],
}

impl AthmIssuer {
    /// The issuer of `key` and its `proof` in the deployment named
    /// `deployment_id`, checked (`Verification` for a proof of another key).
    pub(crate) fn new(deployment_id: &[u8], key: PrivateKey, proof: PublicKeyProof) -> pat::Result<Self> {
        let (token_key, key_id) = {
            let issuer = Issuer::<BUCKETS>::with_proof(
                Params::new(deployment_id)?,
                PrivateKey::from_bytes(&key.to_bytes()[..])?,
                proof,
            )?;
            (issuer.token_key(), *issuer.key_id())
        };
        Ok(Self { deployment_id: deployment_id.to_vec(), key, proof, token_key, key_id })
    }

    /// The library's issuer (the key's proof checked again).
    pub(crate) fn issuer(&self) -> pat::Result<Issuer<'_, BUCKETS>> {
        let key = PrivateKey::from_bytes(&self.key.to_bytes()[..])?;
        Issuer::with_proof(Params::new(&self.deployment_id)?, key, self.proof)
    }

    /// A fresh key and its proof from `rng`.
    pub(crate) fn generate_with<R: TryCryptoRng<Error: 'static> + ?Sized>(
        deployment_id: &[u8],
        rng: &mut R,
    ) -> pat::Result<Self> {
        let (key, _, proof) = PrivateKey::generate(&Params::<BUCKETS>::new(deployment_id)?, rng)?;
        Self::new(deployment_id, key, proof)
    }
}

#[wasm_bindgen]
impl AthmIssuer {
    /// An issuer with a fresh key (and its proof) from
    /// `crypto.getRandomValues`, in the deployment named `deployment_id`.
    pub fn generate(deployment_id: &[u8]) -> Result<AthmIssuer, JsValue> {
        with_web_crypto(|rng| Self::generate_with(deployment_id, rng))
    }

    /// An issuer with the 160-byte private key x ‖ y ‖ z ‖ r_x ‖ r_y, in
    /// the deployment named `deployment_id`; the key's proof is made afresh
    /// with `crypto.getRandomValues`. Fewer bytes are `Truncated`, more
    /// `TrailingBytes`; a scalar not below the order is `InvalidScalar`, a
    /// zero y or z, or x and r_x both zero, `InvalidKey`; a deployment id
    /// over 255 bytes is `InvalidLength`.
    #[wasm_bindgen(js_name = fromSecretKey)]
    pub fn from_secret_key(bytes: Vec<u8>, deployment_id: &[u8]) -> Result<AthmIssuer, JsValue> {
        let bytes = Zeroizing::new(bytes);
        with_web_crypto(|rng| {
            let params = Params::<BUCKETS>::new(deployment_id)?;
            let key = PrivateKey::from_bytes(&bytes)?;
            let proof = key.prove(&params, &key.public_key(&params)?, rng)?;
            Self::new(deployment_id, key, proof)
        })
    }

    /// The token key to publish: the public key and its proof (163 bytes).
    #[wasm_bindgen(getter, js_name = tokenKey)]
    pub fn token_key(&self) -> Vec<u8> {
        self.token_key.to_vec()
    }

    /// The key id, SHA-256 of the public key without its proof.
    #[wasm_bindgen(getter, js_name = keyId)]
    pub fn key_id(&self) -> Vec<u8> {
        self.key_id.to_vec()
    }

    /// The encoded response to an encoded TokenRequest, hiding `metadata`
    /// (below 4: `InvalidValue` otherwise), its randomness from
    /// `crypto.getRandomValues`; `KeyIdMismatch` for a request for another
    /// key.
    pub fn issue(&self, request: &[u8], metadata: u8) -> Result<Vec<u8>, JsValue> {
        let issuer = self.issuer().map_err(js)?;
        with_web_crypto(|rng| issue(&issuer, request, metadata, rng))
    }

    /// Reads an encoded token's hidden value, and returns it with the
    /// token's nonce t, its replay key: a verified token is not yet a
    /// redeemed one, refuse a t seen before. Throws `KeyIdMismatch`,
    /// `Verification` (no bucket matches) or a parse error.
    pub fn verify(&self, token: &[u8]) -> Result<AthmVerified, JsValue> {
        let issuer = self.issuer().map_err(js)?;
        let (metadata, nonce) = verify(&issuer, token).map_err(js)?;
        Ok(AthmVerified { metadata, nonce: nonce.to_vec() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TestRng;
    use pat::Field;
    use pat::rand_core::UnwrapErr;
    use pat::tokens::athm::{REQUEST_LEN, TOKEN_LEN};

    const DEPLOYMENT: &[u8] = b"pat-wasm test deployment";

    #[test]
    fn request_finalize_verify_and_state_export() {
        let mut rng = UnwrapErr(TestRng(0xC07E));
        let issuer = AthmIssuer::generate_with(DEPLOYMENT, &mut rng).unwrap();
        let lib = issuer.issuer().unwrap();
        let token_key = lib.token_key();
        let client = client(DEPLOYMENT, &token_key).unwrap();
        assert_eq!(client.key_id(), lib.key_id());
        let (bytes, state) = request(&client, &mut rng).unwrap();
        assert_eq!(bytes.len(), REQUEST_LEN);
        assert_eq!(issue(&lib, &bytes[..bytes.len() - 1], 2, &mut rng), Err(Error::Truncated));
        assert_eq!(issue(&lib, &bytes, 4, &mut rng), Err(Error::InvalidValue(Field::HiddenMetadata)));
        let response = issue(&lib, &bytes, 2, &mut rng).unwrap();

        // The state exported and imported finalizes the same way.
        let again = RequestState::import(&state.export()[..]).unwrap();
        assert_eq!(RequestState::import(&state.export()[1..]).err(), Some(Error::InvalidLength(Field::State)));
        assert_eq!(finalize(&client, &state, &response[1..], &mut rng), Err(Error::Truncated));
        let token = finalize(&client, &again, &response, &mut rng).unwrap();
        assert_eq!(token.len(), TOKEN_LEN);
        check_token(&token).unwrap();
        let (metadata, nonce) = verify(&lib, &token).unwrap();
        assert_eq!(metadata, 2);
        assert_eq!(nonce, Token::decode(&token).unwrap().token.nonce());
        assert_eq!(check_token(&token[..TOKEN_LEN - 1]), Err(Error::Truncated));

        // Another deployment: the key's proof does not verify there.
        assert_eq!(
            Client::from_token_key(Params::<BUCKETS>::new(b"other").unwrap(), &token_key).err(),
            Some(Error::Verification)
        );
        // Another issuer's key: its client's state does not finalize here.
        let other = AthmIssuer::generate_with(DEPLOYMENT, &mut rng).unwrap();
        let other_client = super::client(DEPLOYMENT, &other.issuer().unwrap().token_key()).unwrap();
        assert_eq!(finalize(&other_client, &state, &response, &mut rng), Err(Error::KeyIdMismatch));
        assert_eq!(verify(&other.issuer().unwrap(), &token), Err(Error::KeyIdMismatch));
    }
}
