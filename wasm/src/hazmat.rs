//! # Hazardous: deterministic requests, for known-answer tests only
//!
//! These functions take the token nonce, the blind and (type 0x0002) the PSS
//! salt as arguments, so that the package can reproduce the requests and
//! tokens of published test vectors (`wasm/test/vectors.mjs`). They exist
//! only with the `hazmat` cargo feature; the shipped package is built
//! without it, and `scripts/wasm` checks that its module exports none of
//! them.
//!
//! **Never use them for real tokens.** The issuer sees the blinded message;
//! with a blind it can predict, it links the token it signs to the token
//! redeemed later, which is what Privacy Pass exists to prevent (see the
//! library's `hazmat::tokens::private` and `hazmat::tokens::public`).

use pat::crypto::blind_rsa::{MODULUS_LEN, SALT_LEN};
use pat::crypto::voprf::{ByteArray, Suite};
use pat::tokens::private;
use pat::wire::token_type::NONCE_LEN;
use pat::{Decode, Error, Field, TokenChallenge};
use wasm_bindgen::prelude::*;

use crate::encode;
use crate::error::js;
use crate::metadata::{MetadataClient, MetadataRequest};
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
