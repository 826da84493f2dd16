//! The issuer → client response encryption
//! (draft-ietf-privacypass-rate-limit-tokens "Issuer to Client Encapsulation";
//! the construction of Oblivious HTTP responses, RFC 9458 §4.4).
//!
//! ```text
//! response_nonce = random(max(Nn, Nk))                      (16 bytes)
//! salt  = enc ‖ response_nonce
//! prk   = Extract(salt, secret)                             (HKDF-SHA256, RFC 5869)
//! key   = Expand(prk, "key", Nk)                            (16 bytes)
//! nonce = Expand(prk, "nonce", Nn)                          (12 bytes)
//! ct    = Seal(key, nonce, aad = "", blind_sig)             (AES-128-GCM)
//! encrypted_token_response = response_nonce ‖ ct            (16 + 256 + 16 = 288 bytes)
//! ```
//!
//! `enc` and `secret` come from the origin encryption ([`EncapSecret`]). The
//! key, nonce and intermediate values are zeroized after use.

use aes_gcm::aead::inout::InOutBuf;
use aes_gcm::{AeadInOut as _, Aes128Gcm, KeyInit as _};
use hkdf::Hkdf;
use sha2::Sha256;
use zeroize::{Zeroize, Zeroizing};

use super::origin_encryption::{ENC_LEN, EncapSecret, TAG_LEN};
use crate::error::{Error, Result};

/// Length of `response_nonce`: max(Nn = 12, Nk = 16) = 16 bytes.
pub const RESPONSE_NONCE_LEN: usize = 16;
/// Length of the RSA blind signature, Nk = 256 (RSA-2048, as pat-go).
pub const BLIND_SIGNATURE_LEN: usize = 256;
/// Length of `encrypted_token_response`: 16 + 256 + 16 = 288 bytes.
pub const ENCRYPTED_RESPONSE_LEN: usize = RESPONSE_NONCE_LEN + BLIND_SIGNATURE_LEN + TAG_LEN;

const KEY_LEN: usize = 16;
const NONCE_LEN: usize = 12;

/// The AEAD instance and nonce for one response.
fn cipher(state: &EncapSecret, response_nonce: &[u8; RESPONSE_NONCE_LEN]) -> Result<(Aes128Gcm, [u8; NONCE_LEN])> {
    let mut salt = [0u8; ENC_LEN + RESPONSE_NONCE_LEN];
    let (salt_enc, salt_nonce) = salt.split_first_chunk_mut::<ENC_LEN>().ok_or(Error::BufferTooSmall)?;
    salt_enc.copy_from_slice(state.enc());
    salt_nonce.copy_from_slice(response_nonce);
    let hk = Hkdf::<Sha256>::new(Some(&salt), state.secret());
    let mut key = Zeroizing::new([0u8; KEY_LEN]);
    let mut nonce = [0u8; NONCE_LEN];
    hk.expand(b"key", key.as_mut()).map_err(|_| Error::ValueTooLarge)?;
    hk.expand(b"nonce", &mut nonce).map_err(|_| Error::ValueTooLarge)?;
    let aead = Aes128Gcm::new_from_slice(key.as_ref()).map_err(|_| Error::InvalidKey)?;
    Ok((aead, nonce))
}

/// Encrypts the blind signature for the client (draft "Issuer to Client
/// Encapsulation") with a fresh random `response_nonce`. Fails with
/// [`Error::Rng`] if the generator fails.
pub fn encrypt_response<R: rand_core::TryCryptoRng<Error: 'static> + ?Sized>(
    state: &EncapSecret,
    blind_sig: &[u8; BLIND_SIGNATURE_LEN],
    rng: &mut R,
) -> Result<[u8; ENCRYPTED_RESPONSE_LEN]> {
    let mut response_nonce = [0u8; RESPONSE_NONCE_LEN];
    crate::rng::fill(rng, &mut response_nonce)?;
    encrypt_with_nonce(state, &response_nonce, blind_sig)
}

pub(super) fn encrypt_with_nonce(
    state: &EncapSecret,
    response_nonce: &[u8; RESPONSE_NONCE_LEN],
    blind_sig: &[u8; BLIND_SIGNATURE_LEN],
) -> Result<[u8; ENCRYPTED_RESPONSE_LEN]> {
    let (aead, mut nonce) = cipher(state, response_nonce)?;
    let mut out = [0u8; ENCRYPTED_RESPONSE_LEN];
    let (nonce_out, rest) = out.split_first_chunk_mut::<RESPONSE_NONCE_LEN>().ok_or(Error::BufferTooSmall)?;
    let (body, tag_out) = rest.split_first_chunk_mut::<BLIND_SIGNATURE_LEN>().ok_or(Error::BufferTooSmall)?;
    nonce_out.copy_from_slice(response_nonce);
    body.copy_from_slice(blind_sig);
    let tag = aead.encrypt_inout_detached(&nonce.into(), b"", InOutBuf::from(&mut body[..]));
    nonce.zeroize();
    tag_out.copy_from_slice(&tag.map_err(|_| Error::ValueTooLarge)?);
    Ok(out)
}

/// Decrypts `encrypted_token_response` on the client (draft "Issuer to Client
/// Encapsulation") and returns the blind signature. A wrong state or a modified
/// response fails with the opaque [`Error::Verification`].
pub fn decrypt_response(
    state: &EncapSecret,
    encrypted: &[u8; ENCRYPTED_RESPONSE_LEN],
) -> Result<[u8; BLIND_SIGNATURE_LEN]> {
    let (response_nonce, rest) = encrypted.split_first_chunk::<RESPONSE_NONCE_LEN>().ok_or(Error::Truncated)?;
    let (ct, tag) = rest.split_last_chunk::<TAG_LEN>().ok_or(Error::Truncated)?;
    let (aead, mut nonce) = cipher(state, response_nonce)?;
    let mut out = [0u8; BLIND_SIGNATURE_LEN];
    let buf = InOutBuf::new(ct, &mut out).map_err(|_| Error::Truncated)?;
    let mut opened = aead.decrypt_inout_detached(&nonce.into(), b"", buf, &(*tag).into());
    crate::ct::declassify(&mut opened); // the AEAD verdict: the response is accepted or not
    nonce.zeroize();
    if opened.is_err() {
        out.zeroize();
        return Err(Error::Verification);
    }
    Ok(out)
}
