//! # Hazardous: deterministic requests, for known-answer tests only
//!
//! These functions take the token nonce, the blind and (types 0x0002 and
//! 0xDA7A) the PSS salt as arguments, and (type 0xDA7B) the issuer's proof
//! nonce, so that the package can reproduce the requests, responses and
//! tokens of published test vectors (`wasm/test/vectors.mjs`). They exist
//! only with the `hazmat` cargo feature; the shipped package is built
//! without it, and `scripts/wasm` checks that its module exports none of
//! them.
//!
//! **Never use them for real tokens.** The issuer sees the blinded message;
//! with a blind it can predict, it links the token it signs to the token
//! redeemed later, which is what Privacy Pass exists to prevent (see the
//! library's `hazmat::tokens::private`, `hazmat::tokens::public` and
//! `hazmat::tokens::poprf`). An issuer whose proof nonce can be predicted
//! gives its key away.

use pat::crypto::blind_rsa::{MODULUS_LEN, SALT_LEN};
use pat::crypto::voprf::{ByteArray, P384Sha384, Suite};
use pat::tokens::private;
use pat::wire::token_type::NONCE_LEN;
use pat::{Decode, Error, Field, TokenChallenge};
use wasm_bindgen::prelude::*;

use crate::encode;
use crate::error::js;
use crate::metadata::{MetadataClient, MetadataRequest};
use crate::poprf::{PoprfClient, PoprfIssuer, PoprfRequest};
use crate::private::{P384Client, P384Request, Ristretto255Client, Ristretto255Request};
use crate::public::{BlindRsaClient, BlindRsaRequest};

/// `bytes` as an array of `N`, else `InvalidLength(field)`.
fn array<const N: usize>(bytes: &[u8], field: Field) -> pat::Result<[u8; N]> {
    <[u8; N]>::try_from(bytes).map_err(|_| Error::InvalidLength(field))
}

/// The library's deterministic type-0x0001/0x0005 request.
fn private_request<T: private::PrivateTokenType>(
    client: &private::Client<T>,
    challenge: &[u8],
    nonce: &[u8],
    blind: &[u8],
) -> pat::Result<(Vec<u8>, private::RequestState<T>)> {
    let blind = <<T::Suite as Suite>::ScalarBytes>::from_slice(blind).ok_or(Error::InvalidLength(Field::Message))?;
    let (request, state) = pat::hazmat::tokens::private::request_with(
        client,
        &TokenChallenge::decode(challenge)?,
        &array::<NONCE_LEN>(nonce, Field::Message)?,
        &blind,
    )?;
    Ok((encode(&request)?, state))
}

/// A type-0x0001 request with the given nonce (32 bytes) and blind (48 bytes).
#[wasm_bindgen(js_name = hazmatRequestP384)]
pub fn hazmat_request_p384(
    client: &P384Client,
    challenge: &[u8],
    nonce: &[u8],
    blind: &[u8],
) -> Result<P384Request, JsValue> {
    let (bytes, state) = private_request(&client.inner, challenge, nonce, blind).map_err(js)?;
    Ok(P384Request { client: client.inner, state, bytes })
}

/// A type-0x0005 request with the given nonce (32 bytes) and blind (32 bytes).
#[wasm_bindgen(js_name = hazmatRequestRistretto255)]
pub fn hazmat_request_ristretto255(
    client: &Ristretto255Client,
    challenge: &[u8],
    nonce: &[u8],
    blind: &[u8],
) -> Result<Ristretto255Request, JsValue> {
    let (bytes, state) = private_request(&client.inner, challenge, nonce, blind).map_err(js)?;
    Ok(Ristretto255Request { client: client.inner, state, bytes })
}

/// A type-0x0002 request with the given nonce (32 bytes), salt (48 bytes)
/// and blind r (256 bytes, big-endian).
#[wasm_bindgen(js_name = hazmatRequestBlindRsa)]
pub fn hazmat_request_blind_rsa(
    client: &BlindRsaClient,
    challenge: &[u8],
    nonce: &[u8],
    salt: &[u8],
    blind: &[u8],
) -> Result<BlindRsaRequest, JsValue> {
    let made = (|| {
        let (request, state) = pat::hazmat::tokens::public::request_with(
            &client.inner,
            &TokenChallenge::decode(challenge)?,
            &array::<NONCE_LEN>(nonce, Field::Message)?,
            &array::<SALT_LEN>(salt, Field::Message)?,
            &array::<MODULUS_LEN>(blind, Field::Message)?,
        )?;
        Ok((encode(&request)?, state))
    })();
    let (bytes, state) = made.map_err(js)?;
    Ok(BlindRsaRequest { client: client.inner.clone(), state, bytes })
}

/// A type-0xDA7A request carrying the encoded `extensions`, with the given
/// nonce (32 bytes), salt (48 bytes) and blind r (256 bytes, big-endian).
#[wasm_bindgen(js_name = hazmatRequestMetadata)]
pub fn hazmat_request_metadata(
    client: &MetadataClient,
    challenge: &[u8],
    extensions: &[u8],
    nonce: &[u8],
    salt: &[u8],
    blind: &[u8],
) -> Result<MetadataRequest, JsValue> {
    let made = (|| {
        let (request, state) = pat::hazmat::tokens::metadata::request_with(
            &client.inner,
            &TokenChallenge::decode(challenge)?,
            pat::wire::extensions::Extensions::decode(extensions)?,
            &array::<NONCE_LEN>(nonce, Field::Message)?,
            &array::<SALT_LEN>(salt, Field::Message)?,
            &array::<MODULUS_LEN>(blind, Field::Message)?,
        )?;
        Ok((encode(&request)?, state))
    })();
    let (bytes, state) = made.map_err(js)?;
    Ok(MetadataRequest { client: client.inner.clone(), state, bytes })
}

/// A type-0xDA7B request carrying the encoded `extensions`, with the given
/// nonce (32 bytes) and blind (48 bytes, a canonical non-zero scalar).
#[wasm_bindgen(js_name = hazmatRequestPoprf)]
pub fn hazmat_request_poprf(
    client: &PoprfClient,
    challenge: &[u8],
    extensions: &[u8],
    nonce: &[u8],
    blind: &[u8],
) -> Result<PoprfRequest, JsValue> {
    let made = (|| {
        let blind =
            <P384Sha384 as Suite>::ScalarBytes::from_slice(blind).ok_or(Error::InvalidLength(Field::Message))?;
        let (request, state) = pat::hazmat::tokens::poprf::request_with(
            &client.inner,
            &TokenChallenge::decode(challenge)?,
            pat::wire::extensions::Extensions::decode(extensions)?,
            &array::<NONCE_LEN>(nonce, Field::Message)?,
            &blind,
        )?;
        Ok((encode(&request)?, state))
    })();
    let (bytes, state) = made.map_err(js)?;
    Ok(PoprfRequest { client: client.inner, state, bytes })
}

/// The type-0xDA7B issuer's encoded TokenResponse to an encoded
/// ExtendedTokenRequest, with the given proof nonce (48 bytes, a canonical
/// non-zero scalar: the vectors' `proof_random_scalar`).
#[wasm_bindgen(js_name = hazmatEvaluatePoprf)]
pub fn hazmat_evaluate_poprf(issuer: &PoprfIssuer, request: &[u8], nonce: &[u8]) -> Result<Vec<u8>, JsValue> {
    let made = (|| {
        let nonce =
            <P384Sha384 as Suite>::ScalarBytes::from_slice(nonce).ok_or(Error::InvalidLength(Field::Message))?;
        let request = pat::tokens::poprf::TokenRequest::decode(request)?;
        encode(&pat::hazmat::tokens::poprf::evaluate_with_nonce(&issuer.inner, &request, &nonce)?)
    })();
    made.map_err(js)
}

/// One run of the ARC protocol (token type 0xE5AC's crypto,
/// draft-ietf-privacypass-arc-crypto-01) drawing from the draft's test
/// generator, for its vectors: every message and state, as bytes.
#[wasm_bindgen(getter_with_clone)]
#[derive(Clone, Debug)]
pub struct ArcRun {
    /// The server's secret key x0 ‖ x1 ‖ x2 ‖ x0Blinding.
    #[wasm_bindgen(js_name = secretKey)]
    pub secret_key: Vec<u8>,
    /// The server's public key X0 ‖ X1 ‖ X2.
    #[wasm_bindgen(js_name = publicKey)]
    pub public_key: Vec<u8>,
    /// The client's request state m1 ‖ r1 ‖ r2 ‖ m1Enc ‖ m2Enc.
    #[wasm_bindgen(js_name = requestState)]
    pub request_state: Vec<u8>,
    /// The CredentialRequest.
    pub request: Vec<u8>,
    /// The CredentialResponse.
    pub response: Vec<u8>,
    /// The credential m1 ‖ U ‖ U' ‖ X1.
    pub credential: Vec<u8>,
    /// The presentations, one after the other, each as long as the limit makes it.
    pub presentations: Vec<u8>,
    /// Their nonces.
    pub nonces: Vec<u32>,
}

/// Key generation, a credential request for `request_context`, its
/// response and finalization, then `count` presentations for
/// `presentation_context` under `limit`, all drawing from one
/// `TestDrng` seeded with `seed` (32 bytes) in that order.
#[wasm_bindgen(js_name = hazmatArcRun)]
pub fn hazmat_arc_run(
    seed: &[u8],
    request_context: &[u8],
    presentation_context: &[u8],
    limit: u64,
    count: u32,
) -> Result<ArcRun, JsValue> {
    use pat::crypto::arc::PresentationState;
    use pat::crypto::arc::messages::presentation_len;
    use pat::hazmat::crypto::arc::{self as arc, TestDrng};

    let run = (|| {
        let mut drng = TestDrng::new(&array::<32>(seed, Field::Message)?);
        let key = arc::server_keygen(&mut drng)?;
        let (state, request) = arc::credential_request(&[request_context], &mut drng)?;
        let response = arc::credential_response(&key, &request, &mut drng)?;
        let credential = state.finalize(key.public_key(), &response)?;
        let mut pstate = PresentationState::new(&credential, &[presentation_context], limit)?;
        let len = presentation_len(limit)?;
        let mut presentations = Vec::new();
        let mut nonces = Vec::new();
        for _ in 0..count {
            let mut out = vec![0u8; len];
            let p = arc::present(&mut pstate, &mut drng, &mut out)?;
            presentations.extend_from_slice(out.get(..p.len).ok_or(Error::BufferTooSmall)?);
            nonces.push(p.nonce);
        }
        Ok(ArcRun {
            secret_key: key.to_bytes().to_vec(),
            public_key: key.public_key().to_bytes().to_vec(),
            request_state: state.export().to_vec(),
            request: request.to_bytes().to_vec(),
            response: response.to_bytes().to_vec(),
            credential: credential.export().to_vec(),
            presentations,
            nonces,
        })
    })();
    run.map_err(js)
}
