//! The builders of `PrivateToken` header values (RFC 9577 §2.1–§2.2 and
//! draft-ietf-privacypass-auth-scheme-extensions-03 §3–§4), writing into
//! caller buffers, and the sizes of what they write.

use super::SCHEME;
use super::base64url::{base64url_len, put_base64url};
use crate::error::{Error, Result};
use crate::wire::challenge::PRACTICAL_CHALLENGE_LEN;
use crate::wire::codec::Writer;
use crate::wire::extension_set::ExtensionSet;
use crate::wire::extensions::Extensions;
use crate::wire::token_type::authorization_len;

// ---- sizes of the values the builders write --------------------------------

/// The number of decimal digits of `v`.
const fn decimal_len(mut v: u32) -> usize {
    let mut n = 1;
    while v >= 10 {
        v /= 10;
        n += 1;
    }
    n
}

/// The length of the challenge that [`write_www_authenticate`] (or, with
/// `token_key_len = None`, [`write_www_authenticate_without_key`]) writes
/// for an encoded TokenChallenge of `challenge_len` bytes, a token key of
/// `token_key_len` bytes and `max_age` (RFC 9577 §2.1).
pub const fn www_authenticate_len(challenge_len: usize, token_key_len: Option<usize>, max_age: Option<u32>) -> usize {
    // `PrivateToken challenge="…"`
    let mut len = (SCHEME.len() + b" challenge=\"".len() + 1).saturating_add(base64url_len(challenge_len));
    if let Some(key_len) = token_key_len {
        // `, token-key="…"`
        len = len.saturating_add(b", token-key=\"".len() + 1).saturating_add(base64url_len(key_len));
    }
    if let Some(age) = max_age {
        // `, max-age="…"`
        len = len.saturating_add(b", max-age=\"".len() + 1 + decimal_len(age));
    }
    len
}

/// `, extension-set="` and the closing `"`.
const EXTENSION_SET_PARAM_OVERHEAD: usize = 18;

/// The length of the challenge that [`write_www_authenticate_with_extensions`]
/// writes: [`www_authenticate_len`] for the same challenge, key and
/// `max-age`, plus `, extension-set="…"` for an encoded ExtensionSet of
/// `extension_set_len` bytes and `, extensions="…"` for an encoded
/// Extensions list of `extensions_len` bytes, each when present
/// (draft-ietf-privacypass-auth-scheme-extensions-03 §4).
pub const fn www_authenticate_with_extensions_len(
    challenge_len: usize,
    token_key_len: Option<usize>,
    max_age: Option<u32>,
    extension_set_len: Option<usize>,
    extensions_len: Option<usize>,
) -> usize {
    let mut len = www_authenticate_len(challenge_len, token_key_len, max_age);
    if let Some(n) = extension_set_len {
        len = len.saturating_add(EXTENSION_SET_PARAM_OVERHEAD).saturating_add(base64url_len(n));
    }
    if let Some(n) = extensions_len {
        len = len.saturating_add(EXTENSIONS_PARAM_OVERHEAD).saturating_add(base64url_len(n));
    }
    len
}

/// The longest token key of the token types this crate implements: the
/// RSA-2048 SPKI of types 0x0002, 0x0003 and 0xDA7A as OpenSSL writes it,
/// with NULL hash parameters, 346 bytes (RFC 9578's own form is 342; a type
/// 0x0001 or 0xDA7B key is 49 bytes, a type 0x0005 key 32).
/// (`crypto::blind_rsa` checks at build time that it is its
/// `PublicKey::SPKI_LEN` plus the two NULLs.)
pub const MAX_TOKEN_KEY_LEN: usize = 346;

/// A practical bound on one `PrivateToken` challenge in a
/// `WWW-Authenticate` value, to size the buffer of
/// [`write_www_authenticate`] or of a received header: 1,269 bytes.
///
/// It covers a TokenChallenge of up to [`PRACTICAL_CHALLENGE_LEN`] bytes (an
/// issuer name and one origin name of up to
/// [`PRACTICAL_NAME_LEN`](crate::wire::challenge::PRACTICAL_NAME_LEN) bytes each,
/// and a redemption context), a token key of up to [`MAX_TOKEN_KEY_LEN`]
/// bytes and any `max-age`. It is not a limit of the protocol, which allows
/// names of 65,535 bytes: for longer names or several origins, size the
/// buffer with [`www_authenticate_len`] and
/// [`challenge_len`](crate::wire::challenge::challenge_len). Challenges joined into
/// one header take 2 more bytes (`", "`) for each challenge after the first;
/// the extension parameters are not included
/// ([`www_authenticate_with_extensions_len`] counts them).
pub const PRACTICAL_WWW_AUTHENTICATE_LEN: usize =
    www_authenticate_len(PRACTICAL_CHALLENGE_LEN, Some(MAX_TOKEN_KEY_LEN), Some(u32::MAX));

/// `, extensions="` and the closing `"`.
const EXTENSIONS_PARAM_OVERHEAD: usize = 15;

/// The length of the value [`write_authorization_with_extensions`] writes
/// for a token of `token_len` bytes and extensions of `extensions_len`
/// bytes: [`authorization_len`] plus `, extensions="` ‖ base64url ‖ `"`.
pub const fn authorization_with_extensions_len(token_len: usize, extensions_len: usize) -> usize {
    authorization_len(token_len).saturating_add(EXTENSIONS_PARAM_OVERHEAD).saturating_add(base64url_len(extensions_len))
}

/// Writes `PrivateToken token="...", extensions="..."` for an encoded token
/// and its extensions (draft-ietf-privacypass-auth-scheme-extensions §3)
/// into `out` and returns it. Both values are padded base64url, as the token
/// is in [`write_authorization`]. The extensions are a validated
/// [`Extensions`](crate::wire::extensions::Extensions), so the header never
/// carries a list that does not parse.
pub fn write_authorization_with_extensions<'o>(
    token: &[u8],
    extensions: &Extensions<'_>,
    out: &'o mut [u8],
) -> Result<&'o str> {
    let extensions = extensions.as_bytes();
    let mut w = Writer::new(out);
    w.put(SCHEME.as_bytes())?;
    w.put(b" token=\"")?;
    put_base64url(&mut w, token)?;
    w.put(b"\", extensions=\"")?;
    put_base64url(&mut w, extensions)?;
    w.put(b"\"")?;
    let n = w.finish();
    ascii_str(out, n)
}

/// Writes one `PrivateToken` challenge (the `WWW-Authenticate` value of RFC 9577
/// §2.1) into `out` and returns it. `challenge` is an encoded TokenChallenge and
/// `token_key` the issuer's encoded public key. To offer several challenges, join
/// the results with `", "`.
pub fn write_www_authenticate<'o>(
    challenge: &[u8],
    token_key: &[u8],
    max_age: Option<u32>,
    out: &'o mut [u8],
) -> Result<&'o str> {
    write_challenge(challenge, Some(token_key), max_age, None, Negotiation::default(), out)
}

/// Writes an ARC challenge (type 0xE5AC): as [`write_www_authenticate`] (or
/// without the key when `token_key` is `None`), with the `rate-limit`
/// parameter carrying the presentation limit
/// (draft-ietf-privacypass-arc-protocol-01 §6).
pub fn write_www_authenticate_with_rate_limit<'o>(
    challenge: &[u8],
    token_key: Option<&[u8]>,
    max_age: Option<u32>,
    rate_limit: u64,
    out: &'o mut [u8],
) -> Result<&'o str> {
    write_challenge(challenge, token_key, max_age, Some(rate_limit), Negotiation::default(), out)
}

/// Writes one `PrivateToken` challenge without the `token-key` parameter,
/// which RFC 9577 §2.1 lets an origin leave out where clients take the key
/// from the issuer directory (RFC 9578 §4). Otherwise as
/// [`write_www_authenticate`].
pub fn write_www_authenticate_without_key<'o>(
    challenge: &[u8],
    max_age: Option<u32>,
    out: &'o mut [u8],
) -> Result<&'o str> {
    write_challenge(challenge, None, max_age, None, Negotiation::default(), out)
}

/// Writes one `PrivateToken` challenge that negotiates extensions
/// (draft-ietf-privacypass-auth-scheme-extensions-03 §4): as
/// [`write_www_authenticate`] (or without the key when `token_key` is
/// `None`), followed by `extension-set="…"`, the extension types the
/// origin asks for, and `extensions="…"`, a list it fills in for the
/// client, each when given. Both are validated structures written as
/// padded base64url in quotes, as the draft asks (§3, §4); the
/// TokenChallenge is unchanged. [`www_authenticate_with_extensions_len`]
/// gives the length.
pub fn write_www_authenticate_with_extensions<'o>(
    challenge: &[u8],
    token_key: Option<&[u8]>,
    max_age: Option<u32>,
    extension_set: Option<&ExtensionSet<'_>>,
    extensions: Option<&Extensions<'_>>,
    out: &'o mut [u8],
) -> Result<&'o str> {
    let negotiation = Negotiation { extension_set, extensions };
    write_challenge(challenge, token_key, max_age, None, negotiation, out)
}

/// The parameters of a challenge that negotiates extensions (none by default).
#[derive(Clone, Copy, Default)]
struct Negotiation<'a> {
    extension_set: Option<&'a ExtensionSet<'a>>,
    extensions: Option<&'a Extensions<'a>>,
}

fn write_challenge<'o>(
    challenge: &[u8],
    token_key: Option<&[u8]>,
    max_age: Option<u32>,
    rate_limit: Option<u64>,
    negotiation: Negotiation<'_>,
    out: &'o mut [u8],
) -> Result<&'o str> {
    let mut w = Writer::new(out);
    w.put(SCHEME.as_bytes())?;
    w.put(b" challenge=\"")?;
    put_base64url(&mut w, challenge)?;
    w.put(b"\"")?;
    if let Some(key) = token_key {
        w.put(b", token-key=\"")?;
        put_base64url(&mut w, key)?;
        w.put(b"\"")?;
    }
    if let Some(age) = max_age {
        w.put(b", max-age=\"")?;
        w.decimal(u64::from(age))?;
        w.put(b"\"")?;
    }
    if let Some(limit) = rate_limit {
        // A bare number, as the draft's JSON number reads.
        w.put(b", rate-limit=")?;
        w.decimal(limit)?;
    }
    if let Some(set) = negotiation.extension_set {
        w.put(b", extension-set=\"")?;
        put_base64url(&mut w, set.as_bytes())?;
        w.put(b"\"")?;
    }
    if let Some(list) = negotiation.extensions {
        w.put(b", extensions=\"")?;
        put_base64url(&mut w, list.as_bytes())?;
        w.put(b"\"")?;
    }
    let n = w.finish();
    ascii_str(out, n)
}

/// Writes the `Authorization` value `PrivateToken token="..."` for an encoded
/// token (RFC 9577 §2.2) into `out` and returns it.
pub fn write_authorization<'o>(token: &[u8], out: &'o mut [u8]) -> Result<&'o str> {
    let mut w = Writer::new(out);
    w.put(SCHEME.as_bytes())?;
    w.put(b" token=\"")?;
    put_base64url(&mut w, token)?;
    w.put(b"\"")?;
    let n = w.finish();
    ascii_str(out, n)
}

fn ascii_str(out: &[u8], n: usize) -> Result<&str> {
    core::str::from_utf8(out.get(..n).ok_or(Error::BufferTooSmall)?).map_err(|_| Error::MalformedHeader)
}
