//! Amortized batches of token types 0x0001 and 0x0005
//! (draft-ietf-privacypass-batched-tokens §5): up to [`BATCH_MAX`] tokens
//! for one challenge and one key in one request, answered with one
//! response and one batched DLEQ proof. One generic code path over the
//! library's `PrivateTokenType`, exported per type (wasm-bindgen exports no
//! generics): `P384BatchRequest` and `Ristretto255BatchRequest`, and
//! `requestBatch`/`finalizeBatchExported` on the clients and
//! `evaluateBatch` on the issuers of [`crate::private`].
//!
//! The batch's secrets (every token's blind) stay in the request object in
//! the module's memory, wiped when it is finalized or freed (the library's
//! `BatchState` zeroizes on drop). To keep them between page loads, the
//! state exports as bytes (the library's versioned layout, a fixed length
//! per type whatever the count: [`state_len`]); the export is written from
//! a wiped-on-drop buffer straight into a new JavaScript `Uint8Array`, and
//! an import's bytes are wiped after use.

use pat::rand_core::TryCryptoRng;
use pat::tokens::amortized::{AmortizedTokenRequest, AmortizedTokenResponse, BatchState, response_len};
use pat::tokens::private::{Client, Issuer, PrivateTokenType};
use pat::wire::token_type::{PrivateP384, PrivateRistretto255};
use pat::{Decode, TokenChallenge};
use wasm_bindgen::prelude::*;
use zeroize::Zeroizing;

use crate::encode;
use crate::error::js;
use crate::private::{P384Client, P384Issuer, Ristretto255Client, Ristretto255Issuer};
use crate::rng::with_web_crypto;

/// The most tokens in one batch of this package, client and issuer (the
/// exported state holds this many slots, used or not).
pub const BATCH_MAX: usize = 16;

/// The length of an exported batch state of type `T`.
pub const fn state_len<T: PrivateTokenType>() -> usize {
    BatchState::<T, BATCH_MAX>::STATE_LEN
}

/// A batch request of `count` tokens for the encoded `challenge`, encoded,
/// and its state.
pub fn request<T: PrivateTokenType, R: TryCryptoRng<Error: 'static> + ?Sized>(
    client: &Client<T>,
    challenge: &[u8],
    count: usize,
    rng: &mut R,
) -> pat::Result<(Vec<u8>, BatchState<T, BATCH_MAX>)> {
    let state = client.request_batch::<BATCH_MAX, _>(&TokenChallenge::decode(challenge)?, count, rng)?;
    Ok((encode(&state.request())?, state))
}

/// The batch's tokens, each encoded, in request order, from the issuer's
/// encoded response.
pub fn finalize<T: PrivateTokenType>(
    client: &Client<T>,
    state: &mut BatchState<T, BATCH_MAX>,
    response: &[u8],
) -> pat::Result<Vec<Vec<u8>>> {
    let tokens = client.finalize_batch(state, &AmortizedTokenResponse::<T>::decode(response)?)?;
    tokens.iter().map(encode).collect()
}

/// The tokens as a JavaScript array of `Uint8Array`s, in order.
fn to_array(tokens: &[Vec<u8>]) -> js_sys::Array {
    crate::tokens_array(tokens.iter().map(|t| Some(t.as_slice())))
}

/// The issuer's encoded response to an encoded amortized request.
pub fn evaluate<T: PrivateTokenType, R: TryCryptoRng<Error: 'static> + ?Sized>(
    issuer: &Issuer<T>,
    request: &[u8],
    rng: &mut R,
) -> pat::Result<Vec<u8>> {
    let request = AmortizedTokenRequest::<T>::decode(request)?;
    let mut out = vec![0u8; response_len::<T>(request.len())];
    let n = issuer.evaluate_batch::<BATCH_MAX, _>(&request, &mut out, rng)?;
    out.truncate(n);
    Ok(out)
}

macro_rules! amortized {
    ($ty:ty, $client:ident, $issuer:ident, $batch:ident, $name:literal) => {
        #[wasm_bindgen]
        impl $client {
            /// An amortized batch request of `count` tokens (1 to 16:
            /// `InvalidLength` for 0, `CapacityExceeded` above) for the
            /// encoded TokenChallenge, every nonce and blind fresh from
            /// `crypto.getRandomValues`.
            #[wasm_bindgen(js_name = requestBatch)]
            pub fn request_batch(&self, challenge: &[u8], count: usize) -> Result<$batch, JsValue> {
                let (bytes, state) = with_web_crypto(|rng| request(&self.inner, challenge, count, rng))?;
                Ok($batch { client: self.inner, state, bytes })
            }

            /// The batch's tokens (an array of `Uint8Array`s, in request
            /// order) from a state exported by `exportState` and the
            /// issuer's encoded response. The state must be for this
            /// client's key (`KeyIdMismatch`).
            #[wasm_bindgen(js_name = finalizeBatchExported)]
            pub fn finalize_batch_exported(&self, state: Vec<u8>, response: &[u8]) -> Result<js_sys::Array, JsValue> {
                let state = Zeroizing::new(state);
                let mut state = BatchState::<$ty, BATCH_MAX>::import(&self.inner, &state).map_err(js)?;
                finalize(&self.inner, &mut state, response).map(|t| to_array(&t)).map_err(js)
            }

            /// The length of an exported batch state of this type.
            #[wasm_bindgen(js_name = batchStateLength)]
            pub fn batch_state_length() -> usize {
                state_len::<$ty>()
            }
        }

        #[wasm_bindgen]
        impl $issuer {
            /// The encoded response to an encoded amortized batch request
            /// (up to 16 tokens: `CapacityExceeded` above), one batched
            /// proof whose randomness comes from `crypto.getRandomValues`;
            /// `KeyIdMismatch` for a request for another key,
            /// `InvalidElement` for an element that does not decode.
            #[wasm_bindgen(js_name = evaluateBatch)]
            pub fn evaluate_batch(&self, request: &[u8]) -> Result<Vec<u8>, JsValue> {
                with_web_crypto(|rng| evaluate(&self.inner, request, rng))
            }
        }

        #[doc = concat!("An amortized batch request of type ", $name, " in flight: its bytes and the state (every token's blind) that finalizes it.")]
        #[wasm_bindgen]
        #[derive(Debug)]
        pub struct $batch {
            pub(crate) client: Client<$ty>,
            pub(crate) state: BatchState<$ty, BATCH_MAX>,
            pub(crate) bytes: Vec<u8>,
        }

        #[wasm_bindgen]
        impl $batch {
            /// The encoded AmortizedBatchTokenRequest, to send to the issuer
            /// (`application/private-token-amortized-batch-request`).
            #[wasm_bindgen(getter)]
            pub fn bytes(&self) -> Vec<u8> {
                self.bytes.clone()
            }

            /// The number of tokens.
            #[wasm_bindgen(getter)]
            pub fn count(&self) -> usize {
                self.state.inputs().len()
            }

            /// The state as bytes (secret: every token's blind), for the
            /// client's `finalizeBatchExported`; `StateSpent` after a
            /// finalize.
            #[wasm_bindgen(js_name = exportState)]
            pub fn export_state(&self) -> Result<js_sys::Uint8Array, JsValue> {
                let state = self.state.export::<{ state_len::<$ty>() }>().map_err(js)?;
                Ok(js_sys::Uint8Array::from(&state.as_bytes()[..]))
            }

            /// The batch's tokens (an array of `Uint8Array`s, in request
            /// order) from the issuer's encoded response (the batched proof
            /// checked: `Verification`). A failed finalize leaves the state
            /// as it was; a successful one wipes it, and finalizing again is
            /// `StateSpent`.
            pub fn finalize(&mut self, response: &[u8]) -> Result<js_sys::Array, JsValue> {
                finalize(&self.client, &mut self.state, response).map(|t| to_array(&t)).map_err(js)
            }
        }
    };
}

amortized!(PrivateP384, P384Client, P384Issuer, P384BatchRequest, "0x0001");
amortized!(PrivateRistretto255, Ristretto255Client, Ristretto255Issuer, Ristretto255BatchRequest, "0x0005");

#[cfg(test)]
mod tests {
    use super::*;
    use crate::challenge::build;
    use crate::testing::TestRng;
    use pat::rand_core::UnwrapErr;
    use pat::{Error, Field};

    /// A state's export, as bytes (the length is a per-type constant).
    type Export<T> = fn(&BatchState<T, BATCH_MAX>) -> pat::Result<Vec<u8>>;

    fn round_trip<T: PrivateTokenType>(export: Export<T>) {
        let mut rng = UnwrapErr(TestRng(u64::from(T::CODE) << 8));
        let issuer = Issuer::<T>::generate(&mut rng).unwrap();
        let client = Client::<T>::from_token_key(issuer.token_key().as_ref()).unwrap();
        let challenge = build(T::CODE, b"issuer.example", &[3; 32], b"origin.example").unwrap();
        assert_eq!(request(&client, &challenge, 0, &mut rng).err(), Some(Error::InvalidLength(Field::Batch)));
        assert_eq!(request(&client, &challenge, BATCH_MAX + 1, &mut rng).err(), Some(Error::CapacityExceeded));
        let (bytes, mut state) = request(&client, &challenge, 3, &mut rng).unwrap();
        assert_eq!(evaluate(&issuer, &bytes[..bytes.len() - 1], &mut rng), Err(Error::Truncated));
        let response = evaluate(&issuer, &bytes, &mut rng).unwrap();
        assert_eq!(response.len(), response_len::<T>(3));

        // The state exported and imported finalizes the same.
        let exported = export(&state).unwrap();
        assert_eq!(exported.len(), state_len::<T>());
        let mut again = BatchState::<T, BATCH_MAX>::import(&client, &exported).unwrap();
        assert_eq!(finalize(&client, &mut state, &response[..response.len() - 1]).err(), Some(Error::Truncated));
        let tokens = finalize(&client, &mut state, &response).unwrap();
        assert_eq!(finalize(&client, &mut again, &response).unwrap(), tokens);
        assert_eq!(tokens.len(), 3);
        for token in &tokens {
            assert_eq!(token.len(), T::TOKEN_LEN);
            crate::private::verify(&issuer, token, &challenge).unwrap();
        }
        assert_eq!(finalize(&client, &mut state, &response), Err(Error::StateSpent));
        // Another key's client cannot import the state.
        let other = Client::<T>::from_token_key(Issuer::<T>::generate(&mut rng).unwrap().token_key().as_ref()).unwrap();
        assert_eq!(BatchState::<T, BATCH_MAX>::import(&other, &exported).err(), Some(Error::KeyIdMismatch));
        assert_eq!(export(&state).err(), Some(Error::StateSpent));
    }

    #[test]
    fn type1_round_trip() {
        round_trip::<PrivateP384>(|s| s.export::<{ state_len::<PrivateP384>() }>().map(|e| e.as_bytes().to_vec()));
    }

    #[test]
    fn type5_round_trip() {
        round_trip::<PrivateRistretto255>(|s| {
            s.export::<{ state_len::<PrivateRistretto255>() }>().map(|e| e.as_bytes().to_vec())
        });
    }
}
