//! Token type 0xDA7A (publicly verifiable, with public metadata;
//! draft-ietf-privacypass-public-metadata-issuance): the client, exported
//! as `MetadataClient` and `MetadataRequest`, and the origin,
//! `MetadataOrigin`. The metadata is an encoded Extensions list, given at
//! request and again at finalize (it must be the same: `ExtensionsMismatch`
//! otherwise) and sent with the token (`Authorization: PrivateToken
//! token=…, extensions=…`, [`crate::auth`]).
//!
//! A client holds the issuer's token key (an RSASSA-PSS SPKI). `request`
//! draws the nonce, the PSS salt and the blind from
//! `crypto.getRandomValues`; `finalize` unblinds the issuer's signature and
//! verifies it under the key derived for the extensions before it returns
//! the token. A failed finalize leaves the state as it was; a successful
//! one wipes the blind inverse, and finalizing again is `StateSpent`.

use pat::crypto::blind_rsa::PublicKey;
use pat::rand_core::TryCryptoRng;
use pat::tokens::metadata::{Client, Origin, RequestState, TokenResponse};
use pat::tokens::public::PublicToken;
use pat::wire::extensions::Extensions;
use pat::{Decode, TokenChallenge};
use wasm_bindgen::prelude::*;

use crate::encode;
use crate::error::js;
use crate::rng::with_web_crypto;

/// A TokenRequest for the encoded `challenge` carrying the encoded
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

/// Verifies an encoded 0xDA7A token against the encoded challenge it
/// answers and the encoded extensions that came with it.
pub fn verify(origin: &Origin, token: &[u8], challenge: &[u8], extensions: &[u8]) -> pat::Result<()> {
    origin.verify(&PublicToken::decode(token)?, &TokenChallenge::decode(challenge)?, &Extensions::decode(extensions)?)
}

/// A client of token type 0xDA7A.
#[wasm_bindgen]
#[derive(Clone, Debug)]
pub struct MetadataClient {
    pub(crate) inner: Client,
}

#[wasm_bindgen]
impl MetadataClient {
    /// A client for the issuer's token key (SubjectPublicKeyInfo, DER).
    #[wasm_bindgen(constructor)]
    pub fn new(token_key: &[u8]) -> Result<MetadataClient, JsValue> {
        Client::from_token_key(token_key).map(|inner| Self { inner }).map_err(js)
    }

    /// The key id, SHA-256 of the token key.
    #[wasm_bindgen(getter, js_name = keyId)]
    pub fn key_id(&self) -> Vec<u8> {
        self.inner.key_id().to_vec()
    }

    /// A request for the encoded TokenChallenge carrying the encoded
    /// Extensions list, with a fresh nonce, salt and blind from
    /// `crypto.getRandomValues`.
    pub fn request(&self, challenge: &[u8], extensions: &[u8]) -> Result<MetadataRequest, JsValue> {
        let (bytes, state) = with_web_crypto(|rng| request(&self.inner, challenge, extensions, rng))?;
        Ok(MetadataRequest { client: self.inner.clone(), state, bytes })
    }

    /// Checks that `response` is a TokenResponse of type 0xDA7A (its
    /// length); the signature is checked by `finalize`.
    #[wasm_bindgen(js_name = checkResponse)]
    pub fn check_response(response: &[u8]) -> Result<(), JsValue> {
        TokenResponse::decode(response).map(|_| ()).map_err(js)
    }
}

/// A token request of type 0xDA7A in flight: its bytes and the state to finalize it.
#[wasm_bindgen]
#[derive(Debug)]
pub struct MetadataRequest {
    pub(crate) client: Client,
    pub(crate) state: RequestState,
    pub(crate) bytes: Vec<u8>,
}

#[wasm_bindgen]
impl MetadataRequest {
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

/// The origin of type 0xDA7A: verifies tokens with the issuer's public key
/// and the extensions that came with each token.
#[wasm_bindgen]
#[derive(Clone, Debug)]
pub struct MetadataOrigin {
    pub(crate) inner: Origin,
}

#[wasm_bindgen]
impl MetadataOrigin {
    /// An origin trusting the issuer with this token key (SubjectPublicKeyInfo, DER).
    #[wasm_bindgen(constructor)]
    pub fn new(token_key: &[u8]) -> Result<MetadataOrigin, JsValue> {
        PublicKey::from_spki(token_key).map(|key| Self { inner: Origin::new(key) }).map_err(js)
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
    use pat::Error;
    use pat::crypto::blind_rsa::SecretKey;
    use pat::rand_core::UnwrapErr;
    use pat::tokens::metadata::{Issuer, TokenRequest};

    /// The privacypass-ts vector's key (a safe-prime key, as 0xDA7A needs).
    fn issuer() -> Issuer {
        let path =
            concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors/privacypass-ts/pub_verif_with_metadata_v3.json");
        let text = std::fs::read_to_string(path).unwrap();
        let start = text.find("\"skS\"").unwrap();
        let rest = &text[start + 5..];
        let open = rest.find('"').unwrap();
        let close = rest[open + 1..].find('"').unwrap();
        let hex = &rest[open + 1..open + 1 + close];
        let pem: Vec<u8> = (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect();
        Issuer::try_new(SecretKey::from_pkcs8_pem(core::str::from_utf8(&pem).unwrap()).unwrap()).unwrap()
    }

    #[test]
    fn round_trip() {
        let issuer = issuer();
        let token_key = issuer.token_key();
        let client = Client::from_token_key(&token_key).unwrap();
        let challenge = build(0xDA7A, b"issuer.example", &[], b"origin.example").unwrap();
        let extensions = [0, 6, 0, 1, 0, 2, 7, 8];
        let other = [0, 6, 0, 1, 0, 2, 7, 9];
        let mut rng = UnwrapErr(TestRng(0xDA));
        let (bytes, mut state) = request(&client, &challenge, &extensions, &mut rng).unwrap();
        let req = TokenRequest::decode(&bytes).unwrap();
        assert_eq!(req.extensions.as_bytes(), extensions);
        let response = encode(&issuer.evaluate(&req).unwrap()).unwrap();

        assert_eq!(finalize(&client, &mut state, &other, &response), Err(Error::ExtensionsMismatch));
        assert_eq!(finalize(&client, &mut state, &extensions, &response[1..]), Err(Error::Truncated));
        let token = finalize(&client, &mut state, &extensions, &response).unwrap();
        assert_eq!(finalize(&client, &mut state, &extensions, &response), Err(Error::StateSpent));

        let origin = MetadataOrigin::new(&token_key).unwrap().inner;
        verify(&origin, &token, &challenge, &extensions).unwrap();
        assert_eq!(verify(&origin, &token, &challenge, &other), Err(Error::Verification));
        let mut forged = token.clone();
        if let Some(last) = forged.last_mut() {
            *last ^= 1;
        }
        assert_eq!(verify(&origin, &forged, &challenge, &extensions), Err(Error::Verification));
        let elsewhere = build(0xDA7A, b"issuer.example", &[], b"other.example").unwrap();
        assert_eq!(verify(&origin, &token, &elsewhere, &extensions), Err(Error::ChallengeMismatch));
        // Malformed extensions: a length prefix past the end.
        assert_eq!(request(&client, &challenge, &[0, 9, 0], &mut rng).err(), Some(Error::Truncated));
    }
}
