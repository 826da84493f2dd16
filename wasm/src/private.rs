//! The clients of token types 0x0001 (VOPRF P-384, SHA-384; RFC 9578 §5)
//! and 0x0005 (VOPRF ristretto255, SHA-512;
//! draft-ietf-privacypass-batched-tokens), one generic code path over the
//! library's `PrivateTokenType`, exported as one class pair per type
//! (wasm-bindgen exports no generics): `P384Client`/`P384Request` and
//! `Ristretto255Client`/`Ristretto255Request`.
//!
//! A client holds the issuer's token key. `request` draws the nonce and the
//! VOPRF blind from `crypto.getRandomValues` and returns a request object:
//! the TokenRequest's bytes, and the state that `finalize` needs to check
//! the issuer's DLEQ proof and unblind the token. A failed finalize leaves
//! the state as it was; a successful one wipes its secrets, and finalizing
//! again is `StateSpent`.

use pat::rand_core::TryCryptoRng;
use pat::tokens::private::{Client, Issuer, PrivateTokenType, RequestState, TokenRequest, TokenResponse};
use pat::wire::token_type::{PrivateP384, PrivateRistretto255};
use pat::{Decode, TokenChallenge};
use wasm_bindgen::prelude::*;

use crate::encode;
use crate::error::js;
use crate::rng::with_web_crypto;

/// A TokenRequest for the encoded `challenge`, encoded, and its state.
pub fn request<T: PrivateTokenType, R: TryCryptoRng<Error: 'static> + ?Sized>(
    client: &Client<T>,
    challenge: &[u8],
    rng: &mut R,
) -> pat::Result<(Vec<u8>, RequestState<T>)> {
    let (request, state) = client.request(&TokenChallenge::decode(challenge)?, rng)?;
    Ok((encode(&request)?, state))
}

/// The encoded token from an encoded TokenResponse.
pub fn finalize<T: PrivateTokenType>(
    client: &Client<T>,
    state: &mut RequestState<T>,
    response: &[u8],
) -> pat::Result<Vec<u8>> {
    encode(&client.finalize(state, &TokenResponse::<T>::decode(response)?)?)
}

/// The issuer's encoded TokenResponse to an encoded TokenRequest.
pub fn evaluate<T: PrivateTokenType, R: TryCryptoRng<Error: 'static> + ?Sized>(
    issuer: &Issuer<T>,
    request: &[u8],
    rng: &mut R,
) -> pat::Result<Vec<u8>> {
    encode(&issuer.evaluate(&TokenRequest::<T>::decode(request)?, rng)?)
}

/// Verifies an encoded token against the encoded challenge it answers.
pub fn verify<T: PrivateTokenType>(issuer: &Issuer<T>, token: &[u8], challenge: &[u8]) -> pat::Result<()> {
    issuer.verify(&<T::Token as Decode>::decode(token)?, &TokenChallenge::decode(challenge)?)
}

macro_rules! private_client {
    ($ty:ty, $client:ident, $request:ident, $issuer:ident, $name:literal) => {
        #[doc = concat!("A client of token type ", $name, ".")]
        #[wasm_bindgen]
        #[derive(Clone, Debug)]
        pub struct $client {
            pub(crate) inner: Client<$ty>,
        }

        #[wasm_bindgen]
        impl $client {
            /// A client for the issuer's token key (its serialized VOPRF public key).
            #[wasm_bindgen(constructor)]
            pub fn new(token_key: &[u8]) -> Result<$client, JsValue> {
                Client::<$ty>::from_token_key(token_key).map(|inner| Self { inner }).map_err(js)
            }

            /// The key id, SHA-256 of the token key.
            #[wasm_bindgen(getter, js_name = keyId)]
            pub fn key_id(&self) -> Vec<u8> {
                self.inner.key_id().to_vec()
            }

            /// A request for the encoded TokenChallenge, with a fresh
            /// nonce and blind from `crypto.getRandomValues`.
            pub fn request(&self, challenge: &[u8]) -> Result<$request, JsValue> {
                let (bytes, state) = with_web_crypto(|rng| request(&self.inner, challenge, rng))?;
                Ok($request { client: self.inner, state, bytes })
            }

            /// Checks that `response` is a TokenResponse of this type
            /// (its length); the proof is checked by `finalize`.
            #[wasm_bindgen(js_name = checkResponse)]
            pub fn check_response(response: &[u8]) -> Result<(), JsValue> {
                TokenResponse::<$ty>::decode(response).map(|_| ()).map_err(js)
            }
        }

        #[doc = concat!("A token request of type ", $name, " in flight: its bytes and the state to finalize it.")]
        #[wasm_bindgen]
        #[derive(Debug)]
        pub struct $request {
            pub(crate) client: Client<$ty>,
            pub(crate) state: RequestState<$ty>,
            pub(crate) bytes: Vec<u8>,
        }

        #[wasm_bindgen]
        impl $request {
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

        #[doc = concat!("The issuer (and origin) of token type ", $name, ": its secret key stays in the module's memory and is wiped by `free()`.")]
        #[wasm_bindgen]
        #[derive(Debug)]
        pub struct $issuer {
            pub(crate) inner: Issuer<$ty>,
        }

        #[wasm_bindgen]
        impl $issuer {
            /// An issuer whose key is derived from `seed` and `info`
            /// (RFC 9497 DeriveKeyPair; `pat issuer serve` uses the info
            /// "pat-http issuer key").
            pub fn derive(seed: &[u8], info: &[u8]) -> Result<$issuer, JsValue> {
                Issuer::<$ty>::derive(seed, info).map(|inner| Self { inner }).map_err(js)
            }

            /// An issuer with a fresh key from `crypto.getRandomValues`.
            pub fn generate() -> Result<$issuer, JsValue> {
                with_web_crypto(|rng| Issuer::<$ty>::generate(rng)).map(|inner| Self { inner })
            }

            /// The token key to publish (the serialized VOPRF public key).
            #[wasm_bindgen(getter, js_name = tokenKey)]
            pub fn token_key(&self) -> Vec<u8> {
                self.inner.token_key().as_ref().to_vec()
            }

            /// The key id, SHA-256 of the token key.
            #[wasm_bindgen(getter, js_name = keyId)]
            pub fn key_id(&self) -> Vec<u8> {
                self.inner.key_id().to_vec()
            }

            /// The encoded TokenResponse to an encoded TokenRequest, its
            /// proof's randomness from `crypto.getRandomValues`.
            pub fn evaluate(&self, request: &[u8]) -> Result<Vec<u8>, JsValue> {
                with_web_crypto(|rng| evaluate(&self.inner, request, rng))
            }

            /// Verifies an encoded token against the encoded challenge it
            /// answers; throws `Verification`, `KeyIdMismatch`,
            /// `ChallengeMismatch`, `WrongTokenType` or a parse error.
            pub fn verify(&self, token: &[u8], challenge: &[u8]) -> Result<(), JsValue> {
                verify(&self.inner, token, challenge).map_err(js)
            }
        }
    };
}

private_client!(PrivateP384, P384Client, P384Request, P384Issuer, "0x0001, VOPRF(P-384, SHA-384)");
private_client!(
    PrivateRistretto255,
    Ristretto255Client,
    Ristretto255Request,
    Ristretto255Issuer,
    "0x0005, VOPRF(ristretto255, SHA-512)"
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::challenge::build;
    use crate::testing::TestRng;
    use pat::Error;
    use pat::rand_core::UnwrapErr;
    use pat::tokens::private::Issuer;

    fn round_trip<T: PrivateTokenType>() {
        let mut rng = UnwrapErr(TestRng(T::CODE.into()));
        let issuer = Issuer::<T>::generate(&mut rng).unwrap();
        let client = Client::<T>::from_token_key(issuer.token_key().as_ref()).unwrap();
        let challenge = build(T::CODE, b"issuer.example", &[3; 32], b"origin.example").unwrap();
        let (bytes, mut state) = request(&client, &challenge, &mut rng).unwrap();
        let response = evaluate(&issuer, &bytes, &mut rng).unwrap();
        assert_eq!(evaluate(&issuer, &bytes[..bytes.len() - 1], &mut rng), Err(Error::Truncated));

        // A truncated response is refused and leaves the state usable.
        assert_eq!(finalize(&client, &mut state, &response[1..]), Err(Error::Truncated));
        let token = finalize(&client, &mut state, &response).unwrap();
        verify(&issuer, &token, &challenge).unwrap();
        let mut forged = token.clone();
        if let Some(last) = forged.last_mut() {
            *last ^= 1;
        }
        assert_eq!(verify(&issuer, &forged, &challenge), Err(Error::Verification));
        let other_challenge = build(T::CODE, b"issuer.example", &[4; 32], b"origin.example").unwrap();
        assert_eq!(verify(&issuer, &token, &other_challenge), Err(Error::ChallengeMismatch));
        assert_eq!(verify(&issuer, &token[..token.len() - 1], &challenge), Err(Error::Truncated));
        assert_eq!(finalize(&client, &mut state, &response), Err(Error::StateSpent));

        // A challenge of another type.
        let other = build(2, b"issuer.example", &[], &[]).unwrap();
        assert_eq!(
            request(&client, &other, &mut rng).err(),
            Some(Error::WrongTokenType { expected: T::CODE, found: 2 })
        );
    }

    #[test]
    fn type1_round_trip() {
        round_trip::<PrivateP384>();
    }

    #[test]
    fn type5_round_trip() {
        round_trip::<PrivateRistretto255>();
    }
}
