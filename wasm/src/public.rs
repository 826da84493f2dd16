//! The client of token type 0x0002 (blind RSA 2048, RSABSSA-SHA384-PSS-
//! Deterministic; RFC 9578 §6), exported as `BlindRsaClient` and
//! `BlindRsaRequest`.
//!
//! A client holds the issuer's token key (an RSASSA-PSS SPKI). `request`
//! draws the nonce, the PSS salt and the blind from `crypto.getRandomValues`;
//! `finalize` unblinds the issuer's signature and verifies it before it
//! returns the token. A failed finalize leaves the state as it was; a
//! successful one wipes the blind inverse, and finalizing again is
//! `StateSpent`.

use pat::crypto::blind_rsa::PublicKey;
use pat::rand_core::TryCryptoRng;
use pat::tokens::public::{Client, Origin, PublicToken, RequestState, TokenResponse};
use pat::{Decode, TokenChallenge};
use wasm_bindgen::prelude::*;

use crate::encode;
use crate::error::js;
use crate::rng::with_web_crypto;

/// A TokenRequest for the encoded `challenge`, encoded, and its state.
pub fn request<R: TryCryptoRng<Error: 'static> + ?Sized>(
    client: &Client,
    challenge: &[u8],
    rng: &mut R,
) -> pat::Result<(Vec<u8>, RequestState)> {
    let (request, state) = client.request(&TokenChallenge::decode(challenge)?, rng)?;
    Ok((encode(&request)?, state))
}

/// The encoded token from an encoded TokenResponse.
pub fn finalize(client: &Client, state: &mut RequestState, response: &[u8]) -> pat::Result<Vec<u8>> {
    encode(&client.finalize(state, &TokenResponse::decode(response)?)?)
}

/// Verifies an encoded type-2 token against the encoded challenge it answers.
pub fn verify(origin: &Origin, token: &[u8], challenge: &[u8]) -> pat::Result<()> {
    origin.verify(&PublicToken::decode(token)?, &TokenChallenge::decode(challenge)?)
}

/// The origin of token type 0x0002: verifies tokens with the issuer's
/// public key.
#[wasm_bindgen]
#[derive(Clone, Debug)]
pub struct BlindRsaOrigin {
    pub(crate) inner: Origin,
}

#[wasm_bindgen]
impl BlindRsaOrigin {
    /// An origin trusting the issuer with this token key (SubjectPublicKeyInfo, DER).
    #[wasm_bindgen(constructor)]
    pub fn new(token_key: &[u8]) -> Result<BlindRsaOrigin, JsValue> {
        PublicKey::from_spki(token_key).map(|key| Self { inner: Origin::new(key) }).map_err(js)
    }

    /// The key id, SHA-256 of the token key.
    #[wasm_bindgen(getter, js_name = keyId)]
    pub fn key_id(&self) -> Vec<u8> {
        self.inner.key_id().to_vec()
    }

    /// Verifies an encoded token against the encoded challenge it answers;
    /// throws `Verification`, `KeyIdMismatch`, `ChallengeMismatch`,
    /// `WrongTokenType` or a parse error.
    pub fn verify(&self, token: &[u8], challenge: &[u8]) -> Result<(), JsValue> {
        verify(&self.inner, token, challenge).map_err(js)
    }
}

/// A client of token type 0x0002, blind RSA 2048.
#[wasm_bindgen]
#[derive(Clone, Debug)]
pub struct BlindRsaClient {
    pub(crate) inner: Client,
}

#[wasm_bindgen]
impl BlindRsaClient {
    /// A client for the issuer's token key (SubjectPublicKeyInfo, DER).
    #[wasm_bindgen(constructor)]
    pub fn new(token_key: &[u8]) -> Result<BlindRsaClient, JsValue> {
        Client::from_token_key(token_key).map(|inner| Self { inner }).map_err(js)
    }

    /// The key id, SHA-256 of the token key.
    #[wasm_bindgen(getter, js_name = keyId)]
    pub fn key_id(&self) -> Vec<u8> {
        self.inner.key_id().to_vec()
    }

    /// A request for the encoded TokenChallenge, with a fresh nonce, salt
    /// and blind from `crypto.getRandomValues`.
    pub fn request(&self, challenge: &[u8]) -> Result<BlindRsaRequest, JsValue> {
        let (bytes, state) = with_web_crypto(|rng| request(&self.inner, challenge, rng))?;
        Ok(BlindRsaRequest { client: self.inner.clone(), state, bytes })
    }

    /// Checks that `response` is a TokenResponse of type 0x0002 (its
    /// length); the signature is checked by `finalize`.
    #[wasm_bindgen(js_name = checkResponse)]
    pub fn check_response(response: &[u8]) -> Result<(), JsValue> {
        TokenResponse::decode(response).map(|_| ()).map_err(js)
    }
}

/// A token request of type 0x0002 in flight: its bytes and the state to finalize it.
#[wasm_bindgen]
#[derive(Debug)]
pub struct BlindRsaRequest {
    pub(crate) client: Client,
    pub(crate) state: RequestState,
    pub(crate) bytes: Vec<u8>,
}

#[wasm_bindgen]
impl BlindRsaRequest {
    /// The encoded TokenRequest, to send to the issuer.
    #[wasm_bindgen(getter)]
    pub fn bytes(&self) -> Vec<u8> {
        self.bytes.clone()
    }

    /// The encoded token, from the issuer's encoded TokenResponse.
    pub fn finalize(&mut self, response: &[u8]) -> Result<Vec<u8>, JsValue> {
        finalize(&self.client, &mut self.state, response).map_err(js)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::challenge::build;
    use crate::testing::{TestRng, vector_field};
    use pat::Error;
    use pat::crypto::blind_rsa::SecretKey;
    use pat::rand_core::UnwrapErr;
    use pat::tokens::public::{Issuer, TokenRequest};

    #[test]
    fn round_trip() {
        let pem = String::from_utf8(vector_field("type2/type2-issuance-test-vectors.json", "skS")).unwrap();
        let issuer = Issuer::new(SecretKey::from_pkcs8_pem(&pem).unwrap());
        let client = Client::from_token_key(&issuer.token_key()).unwrap();
        let challenge = build(2, b"issuer.example", &[], b"origin.example").unwrap();
        let mut rng = UnwrapErr(TestRng(2));
        let (bytes, mut state) = request(&client, &challenge, &mut rng).unwrap();
        let response = encode(&issuer.evaluate(&TokenRequest::decode(&bytes).unwrap()).unwrap()).unwrap();

        let mut forged = response.clone();
        forged[7] ^= 1;
        assert_eq!(finalize(&client, &mut state, &forged), Err(Error::Verification));
        let token = finalize(&client, &mut state, &response).unwrap();
        let origin = BlindRsaOrigin::new(&issuer.token_key()).unwrap().inner;
        verify(&origin, &token, &challenge).unwrap();
        let mut forged_token = token.clone();
        if let Some(last) = forged_token.last_mut() {
            *last ^= 1;
        }
        assert_eq!(verify(&origin, &forged_token, &challenge), Err(Error::Verification));
        let other = build(2, b"issuer.example", &[], b"other.example").unwrap();
        assert_eq!(verify(&origin, &token, &other), Err(Error::ChallengeMismatch));
        assert_eq!(verify(&origin, &token[..token.len() - 1], &challenge), Err(Error::Truncated));
        let mut longer = token.clone();
        longer.push(0);
        assert_eq!(verify(&origin, &longer, &challenge), Err(Error::TrailingBytes));
        assert_eq!(finalize(&client, &mut state, &response), Err(Error::StateSpent));
    }
}
