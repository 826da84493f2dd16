//! The issuer directory (RFC 9578 §4): which key a client uses, and where
//! it sends its request.

use core::ffi::c_char;

use pat::deploy::directory::IssuerDirectory;
use sha2::{Digest, Sha256};

use crate::call::{Out, call, exact, prefix};
use crate::ffi::Fail;
use crate::sizes::{PAT_DIRECTORY_MAX_KEYS, PAT_KEY_ID_LEN};

fn select(
    [json, key_id]: [&[u8]; 2],
    token_type: u16,
    now: u64,
    want_uri: bool,
    [scratch, key_out, uri_out]: &mut [&mut [u8]; 3],
) -> Result<usize, Fail> {
    let key_id = if key_id.is_empty() { None } else { Some(exact::<PAT_KEY_ID_LEN>(key_id, pat::Field::TokenKey)?) };
    let directory = IssuerDirectory::<PAT_DIRECTORY_MAX_KEYS>::parse(json, scratch)?;
    let key = directory.select(token_type, key_id, now)?;
    let n = key.decode_token_key(key_out)?.len();
    if want_uri {
        let uri = directory.issuer_request_uri().as_bytes();
        // A JSON string may hold U+0000, which a C string cannot.
        if uri.contains(&0) {
            return Err(Fail::Lib(pat::Error::InvalidValue(pat::Field::IssuerRequestUri)));
        }
        let room = prefix(uri_out, uri.len() + 1)?;
        let (text, nul) = room.split_at_mut(uri.len());
        text.copy_from_slice(uri);
        nul.fill(0);
    }
    Ok(n)
}

/// Chooses the token key a client uses from an issuer directory document
/// (`json`, `json_len` bytes; RFC 9578 §4) at time `now` (UNIX seconds):
/// among the keys of `token_type` whose `not-before` has passed, the one
/// with the given `key_id` (`PAT_KEY_ID_LEN` bytes, e.g.
/// `pat_token_key_id` of a challenge's `token-key`), or with `key_id` NULL
/// the newest. Writes the decoded key into `key_out`
/// (`PAT_TOKEN_KEY_MAX_LEN` bytes hold a key of every implemented type) and
/// returns its length; with `uri_out` non-NULL, also writes the directory's
/// `issuer-request-uri` there, NUL-terminated (too small a `uri_cap`, 0
/// included, is `-PAT_E_BUFFER_TOO_SMALL`; a URI holding U+0000 is
/// `-PAT_E_INVALID_VALUE` with `PAT_FIELD_ISSUER_REQUEST_URI`).
///
/// The document comes from `GET https://<issuer name>` followed by
/// `PAT_ISSUER_DIRECTORY_PATH`, with `Accept:
/// PAT_MEDIA_TYPE_ISSUER_DIRECTORY`. Keep it no longer than its
/// `Cache-Control: max-age` (RFC 9578 §4) allows, and fetch it again then or
/// when a challenge names a key it does not list (`-PAT_E_NO_MATCHING_KEY`).
/// A relative `issuer-request-uri` is resolved against the directory's URL.
/// Next: the key goes to `pat_typeN_request`, and the request to the URI.
///
/// `scratch` (`scratch_cap` bytes, may be NULL/0) holds strings that carry
/// JSON escapes; `json_len` bytes are always enough. Errors:
/// `-PAT_E_NO_MATCHING_KEY`, `-PAT_E_KEY_NOT_YET_VALID` (retry later),
/// `-PAT_E_CAPACITY_EXCEEDED` (more than `PAT_DIRECTORY_MAX_KEYS` keys),
/// JSON and field errors, `-PAT_E_BUFFER_TOO_SMALL`.
///
/// # Safety
/// Every pointer points to its length's readable (inputs) or writable
/// (outputs) bytes; NULL only with length 0 (`key_id`: NULL or 32 bytes).
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn pat_directory_select(
    json: *const u8,
    json_len: usize,
    token_type: u16,
    key_id: *const u8,
    now: u64,
    scratch: *mut u8,
    scratch_cap: usize,
    key_out: *mut u8,
    key_cap: usize,
    uri_out: *mut c_char,
    uri_cap: usize,
) -> i32 {
    let key_id_len = if key_id.is_null() { 0 } else { PAT_KEY_ID_LEN };
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call(
            [(json, json_len), (key_id, key_id_len)],
            [Out::wiped(scratch, scratch_cap), Out::wiped(key_out, key_cap), Out::wiped(uri_out.cast::<u8>(), uri_cap)],
            |ins, outs| select(ins, token_type, now, !uri_out.is_null(), outs),
        )
    }
}

/// Writes the token key id of `token_key` (SHA-256 of the key as
/// published, RFC 9578 §5 and §6) into `out` (`PAT_KEY_ID_LEN` bytes) and
/// returns `PAT_KEY_ID_LEN`.
///
/// # Safety
/// `token_key` points to `token_key_len` readable bytes, `out` to
/// `out_cap` writable bytes; they do not overlap.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_token_key_id(
    token_key: *const u8,
    token_key_len: usize,
    out: *mut u8,
    out_cap: usize,
) -> i32 {
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call([(token_key, token_key_len)], [Out::wiped(out, out_cap)], |[key], [out]| {
            prefix(out, PAT_KEY_ID_LEN)?.copy_from_slice(&Sha256::digest(key));
            Ok(PAT_KEY_ID_LEN)
        })
    }
}
