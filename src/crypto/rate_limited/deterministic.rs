//! The deterministic rate_limited entry points behind `pat::hazmat::crypto::rate_limited`
//! (see its warning), and used by the power-on self-test and the tests.

use super::Labels;
use super::encap::{EncapKey, EncapSecretKey};
use super::inner_request::InnerTokenRequest;
use super::origin_encryption::{ENC_LEN, EncapSecret, REQUEST_KEY_LEN, TAG_LEN, encrypt_with_ikm};
use super::response::{BLIND_SIGNATURE_LEN, ENCRYPTED_RESPONSE_LEN, RESPONSE_NONCE_LEN};
use crate::error::Result;

/// [`encrypt_origin_request`](super::encrypt_origin_request) with the
/// ephemeral key `DeriveKeyPair(ikm_e)` instead of a random one.
pub fn encrypt_origin_request_with_ikm(
    encap_key: &EncapKey,
    request_key: &[u8; REQUEST_KEY_LEN],
    inner: &InnerTokenRequest<'_>,
    labels: &Labels,
    ikm_e: &[u8; ENC_LEN],
    out: &mut [u8],
) -> Result<(usize, EncapSecret)> {
    encrypt_with_ikm(encap_key, request_key, inner, labels, ikm_e, out)
}

/// [`encrypt_response`](super::encrypt_response) with an explicit
/// `response_nonce`.
pub fn encrypt_response_with_nonce(
    state: &EncapSecret,
    response_nonce: &[u8; RESPONSE_NONCE_LEN],
    blind_sig: &[u8; BLIND_SIGNATURE_LEN],
) -> Result<[u8; ENCRYPTED_RESPONSE_LEN]> {
    super::response::encrypt_with_nonce(state, response_nonce, blind_sig)
}

/// `SetupBaseS(pkR, info)` with the ephemeral key `DeriveKeyPair(ikm_e)`,
/// then `Seal(aad, buf)` in place and `Export(exporter_context,
/// export.len())` (RFC 9180 §5.1.1, §5.2, §5.3). Returns `(enc, tag)`.
pub fn seal_base(
    pk: &EncapKey,
    info: &[u8],
    aad: &[u8],
    ikm_e: &[u8; ENC_LEN],
    buf: &mut [u8],
    exporter_context: &[u8],
    export: &mut [u8],
) -> Result<([u8; ENC_LEN], [u8; TAG_LEN])> {
    super::origin_encryption::seal_base(pk, info, aad, ikm_e, buf, exporter_context, export)
}

/// `SetupBaseR(enc, skR, info)`, then `Open(aad, ct ‖ tag)` into `out` and
/// `Export(exporter_context, export.len())` (RFC 9180 §5.1.1, §5.2, §5.3).
#[allow(clippy::too_many_arguments)]
pub fn open_base(
    sk: &EncapSecretKey,
    enc: &[u8; ENC_LEN],
    info: &[u8],
    aad: &[u8],
    ct: &[u8],
    tag: &[u8; TAG_LEN],
    out: &mut [u8],
    exporter_context: &[u8],
    export: &mut [u8],
) -> Result<()> {
    super::origin_encryption::open_base(sk, enc, info, aad, ct, out, tag, exporter_context, export)
}
