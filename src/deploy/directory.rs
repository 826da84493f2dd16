//! The issuer directory (RFC 9578 §4).
//!
//! An issuer publishes, at [`WELL_KNOWN_PATH`] with media type [`MEDIA_TYPE`],
//!
//! ```json
//! {
//!   "issuer-request-uri": "https://issuer.example.net/request",
//!   "token-keys": [
//!     { "token-type": 2, "token-key": "MI...AB", "not-before": 1686913811 },
//!     { "token-type": 2, "token-key": "MI...AQ" }
//!   ]
//! }
//! ```
//!
//! where `token-key` is the base64url (RFC 4648 §5, with padding) encoding of
//! the token type's Public Key field and `not-before` the UNIX time from which
//! clients may use the key.
//!
//! [`IssuerDirectory::parse`] reads such a document without allocating: the
//! strings borrow from the input, or from caller storage when they contain
//! JSON escapes (Go's encoder writes `&` as `\u0026`). Parsing is strict on
//! structure and liberal on content:
//!
//! * the document must be one well-formed JSON object (RFC 8259) and nothing
//!   else ([`Error::MalformedJson`], [`Error::Truncated`],
//!   [`Error::TrailingBytes`]);
//! * unknown members, at the top level and in keys, are skipped whatever
//!   their value (nesting up to 128 levels);
//! * `issuer-request-uri` (a non-empty string) and `token-keys` (an array of
//!   objects) are required, and each key needs `token-type` (an integer in
//!   `0..=65535`) and `token-key` (a string); `not-before` is optional (an
//!   integer in `0..2^64`; `null` counts as absent). A missing field is
//!   [`Error::MissingParameter`], a repeated one
//!   [`Error::DuplicateParameter`], a value of the wrong type or range
//!   [`Error::InvalidValue`], each naming the [`Field`];
//! * more keys than the directory's capacity `N` is
//!   [`Error::CapacityExceeded`];
//! * `token-key` is kept as text and decoded on demand, padded or not (some
//!   issuers omit the padding), so that one key in a format this client does
//!   not know (a token type it does not implement) does not make the whole
//!   directory unreadable. Keys of unknown token types are kept.
//!
//! [`write_directory`] writes the document for an issuer, with padded
//! base64url keys and the URI escaped as a JSON string.

use sha2::{Digest, Sha256};

use crate::error::{Error, Field, Result};
use crate::wire::auth::{decode_base64url_slice, put_base64url};
use crate::wire::codec::Writer;
use crate::wire::json::{self, JsonStr, Reader, Value};
use crate::wire::token_type::KEY_ID_LEN;

/// The directory's media type (RFC 9578 §4, §8.3).
pub const MEDIA_TYPE: &str = "application/private-token-issuer-directory";

/// Where an issuer serves its directory (RFC 9578 §4, §8.2).
pub const WELL_KNOWN_PATH: &str = "/.well-known/private-token-issuer-directory";

/// The longest decoded token key [`DirectoryKey::key_id`] hashes (it decodes
/// into a stack buffer of this size): the largest key of the implemented
/// types is the RSASSA-PSS SPKI of types 0x0002, 0x0003 and 0xDA7A, 342
/// bytes, or 346 with NULL hash parameters.
pub const MAX_TOKEN_KEY_LEN: usize = 512;

/// One entry of a directory's `token-keys` (RFC 9578 §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DirectoryKey<'a> {
    token_type: u16,
    token_key: &'a str,
    not_before: Option<u64>,
}

impl<'a> DirectoryKey<'a> {
    /// The key's token type code (any `u16`; unknown types are kept).
    pub const fn token_type(&self) -> u16 {
        self.token_type
    }

    /// The UNIX time from which the key may be used, if the issuer said.
    pub const fn not_before(&self) -> Option<u64> {
        self.not_before
    }

    /// The `token-key` text as listed (base64url, escapes resolved).
    pub const fn token_key_base64(&self) -> &'a str {
        self.token_key
    }

    /// Decodes the token key (padded or unpadded base64url) into `out`:
    /// [`Error::InvalidBase64`] if it is not base64url,
    /// [`Error::BufferTooSmall`] if `out` cannot hold it (the decoded length
    /// is at most `3 * len / 4` of [`DirectoryKey::token_key_base64`]).
    pub fn decode_token_key<'o>(&self, out: &'o mut [u8]) -> Result<&'o [u8]> {
        decode_base64url_slice(self.token_key.as_bytes(), out)
    }

    /// The key's token_key_id, SHA-256 of the decoded key (RFC 9578 §5, §6).
    /// Keys longer than [`MAX_TOKEN_KEY_LEN`] bytes decoded are
    /// [`Error::InvalidLength`]`(`[`Field::TokenKey`]`)`.
    pub fn key_id(&self) -> Result<[u8; KEY_ID_LEN]> {
        let mut buf = [0u8; MAX_TOKEN_KEY_LEN];
        let key = self.decode_token_key(&mut buf).map_err(|e| match e {
            Error::BufferTooSmall => Error::InvalidLength(Field::TokenKey),
            e => e,
        })?;
        Ok(Sha256::digest(key).into())
    }
}

/// A parsed issuer directory (RFC 9578 §4) holding at most `N` keys.
#[derive(Clone, Debug)]
pub struct IssuerDirectory<'a, const N: usize> {
    issuer_request_uri: &'a str,
    keys: heapless::Vec<DirectoryKey<'a>, N>,
}

impl<'a, const N: usize> IssuerDirectory<'a, N> {
    /// Parses a directory document (see the [module docs](self) for what is
    /// accepted and which error each defect gives).
    ///
    /// `scratch` receives the strings that contain JSON escapes, unescaped
    /// (strings without escapes borrow from `json` and take no room); the
    /// unescaped form is never longer than the escaped one, so
    /// `json.len()` bytes are always enough, and an empty slice is enough for
    /// a document without escapes in `issuer-request-uri` and `token-key`.
    /// Too small a `scratch` is [`Error::BufferTooSmall`].
    pub fn parse(json: &'a [u8], scratch: &'a mut [u8]) -> Result<Self> {
        if let Err(e) = core::str::from_utf8(json) {
            // A UTF-8 sequence cut off at the end is a truncated document.
            return Err(if e.error_len().is_none() { Error::Truncated } else { Error::MalformedJson });
        }
        let mut scratch = scratch;
        let mut r = Reader::new(json);
        let Value::Object = r.value()? else {
            return Err(Error::InvalidValue(Field::Directory));
        };
        let (mut uri, mut keys) = (None, None);
        let mut first = true;
        while let Some(name) = r.next_key(first)? {
            first = false;
            if name.is("issuer-request-uri") {
                let Value::Str(s) = r.value()? else {
                    return Err(Error::InvalidValue(Field::IssuerRequestUri));
                };
                let s = s.into_str(&mut scratch)?;
                if s.is_empty() {
                    return Err(Error::InvalidValue(Field::IssuerRequestUri));
                }
                set_once(&mut uri, s, Field::IssuerRequestUri)?;
            } else if name.is("token-keys") {
                let list = parse_keys(&mut r, &mut scratch)?;
                set_once(&mut keys, list, Field::TokenKeys)?;
            } else {
                skip(&mut r)?;
            }
        }
        r.finish()?;
        Ok(Self {
            issuer_request_uri: uri.ok_or(Error::MissingParameter(Field::IssuerRequestUri))?,
            keys: keys.ok_or(Error::MissingParameter(Field::TokenKeys))?,
        })
    }

    /// The issuer's `issuer-request-uri`, where clients send TokenRequests.
    pub fn issuer_request_uri(&self) -> &'a str {
        self.issuer_request_uri
    }

    /// The keys, in the order listed.
    pub fn keys(&self) -> &[DirectoryKey<'a>] {
        &self.keys
    }

    /// The key a client should use at `now` (UNIX seconds): among the keys
    /// of `token_type` whose `not-before` is absent or `<= now`,
    ///
    /// * with `key_id`, the first one listed with that token_key_id, even if
    ///   a newer key exists (a client pinned to a key, or answering an
    ///   origin's `token-key`);
    /// * without, the one with the greatest `not-before` (absent counts as
    ///   0; of equals, the first listed), which is the issuer's newest key
    ///   once a rotation has taken effect.
    ///
    /// [`Error::NoMatchingKey`] if the directory lists no key of the type
    /// (with that key id); [`Error::KeyNotYetValid`] if it does but every such
    /// key's `not-before` is after `now` (clock skew, or a directory fetched
    /// before a rotation: retry later rather than refetch). A key whose
    /// `token-key` does not decode never matches a `key_id`.
    pub fn select(&self, token_type: u16, key_id: Option<&[u8; KEY_ID_LEN]>, now: u64) -> Result<&DirectoryKey<'a>> {
        let mut listed = false;
        let mut best: Option<&DirectoryKey<'a>> = None;
        for key in self.keys.iter().filter(|k| k.token_type == token_type) {
            if let Some(id) = key_id
                && key.key_id().ok().as_ref() != Some(id)
            {
                continue;
            }
            listed = true;
            let not_before = key.not_before.unwrap_or(0);
            if not_before > now {
                continue;
            }
            if key_id.is_some() {
                return Ok(key);
            }
            if best.is_none_or(|b| not_before > b.not_before.unwrap_or(0)) {
                best = Some(key);
            }
        }
        best.ok_or(if listed { Error::KeyNotYetValid } else { Error::NoMatchingKey })
    }
}

fn set_once<T>(slot: &mut Option<T>, value: T, field: Field) -> Result<()> {
    if slot.replace(value).is_some() { Err(Error::DuplicateParameter(field)) } else { Ok(()) }
}

/// Skips the value of an unknown member.
fn skip(r: &mut Reader<'_>) -> Result<()> {
    let v = r.value()?;
    r.skip(v)
}

fn parse_keys<'a, const N: usize>(
    r: &mut Reader<'a>,
    scratch: &mut &'a mut [u8],
) -> Result<heapless::Vec<DirectoryKey<'a>, N>> {
    let Value::Array = r.value()? else {
        return Err(Error::InvalidValue(Field::TokenKeys));
    };
    let mut keys = heapless::Vec::new();
    let mut first = true;
    while r.next_element(first)? {
        first = false;
        let Value::Object = r.value()? else {
            return Err(Error::InvalidValue(Field::TokenKeys));
        };
        keys.push(parse_key(r, scratch)?).map_err(|_| Error::CapacityExceeded)?;
    }
    Ok(keys)
}

fn parse_key<'a>(r: &mut Reader<'a>, scratch: &mut &'a mut [u8]) -> Result<DirectoryKey<'a>> {
    let (mut token_type, mut token_key, mut not_before): (_, Option<JsonStr<'a>>, _) = (None, None, None);
    let mut first = true;
    while let Some(name) = r.next_key(first)? {
        first = false;
        if name.is("token-type") {
            let code = match r.value()? {
                Value::Number(n) => n.as_u64().and_then(|v| u16::try_from(v).ok()),
                _ => None,
            };
            set_once(&mut token_type, code.ok_or(Error::InvalidValue(Field::TokenType))?, Field::TokenType)?;
        } else if name.is("token-key") {
            let Value::Str(s) = r.value()? else {
                return Err(Error::InvalidValue(Field::TokenKey));
            };
            set_once(&mut token_key, s, Field::TokenKey)?;
        } else if name.is("not-before") {
            let value = match r.value()? {
                Value::Number(n) => Some(n.as_u64().ok_or(Error::InvalidValue(Field::NotBefore))?),
                Value::Null => None,
                _ => return Err(Error::InvalidValue(Field::NotBefore)),
            };
            set_once(&mut not_before, value, Field::NotBefore)?;
        } else {
            skip(r)?;
        }
    }
    Ok(DirectoryKey {
        token_type: token_type.ok_or(Error::MissingParameter(Field::TokenType))?,
        // Unescaped only once the key is complete, so a duplicate costs no scratch.
        token_key: token_key.ok_or(Error::MissingParameter(Field::TokenKey))?.into_str(scratch)?,
        not_before: not_before.flatten(),
    })
}

/// One key to write into a directory with [`write_directory`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DirectoryEntry<'k> {
    /// The token type code.
    pub token_type: u16,
    /// The token type's Public Key field (for type 0x0002 the RSASSA-PSS SPKI).
    pub token_key: &'k [u8],
    /// The UNIX time from which clients may use the key, if any.
    pub not_before: Option<u64>,
}

/// Writes the directory document (RFC 9578 §4) for `issuer_request_uri` and
/// `keys` (in the order given, `token-key` as padded base64url) into `out`
/// and returns it. The URI is written as a JSON string, with `"`, `\` and
/// control characters escaped, so any `&str` is accepted; an empty URI is
/// [`Error::InvalidValue`]`(`[`Field::IssuerRequestUri`]`)` since
/// [`IssuerDirectory::parse`] would refuse it. Too small an `out` is
/// [`Error::BufferTooSmall`].
pub fn write_directory<'o>(
    issuer_request_uri: &str,
    keys: &[DirectoryEntry<'_>],
    out: &'o mut [u8],
) -> Result<&'o str> {
    if issuer_request_uri.is_empty() {
        return Err(Error::InvalidValue(Field::IssuerRequestUri));
    }
    let mut w = Writer::new(out);
    w.put(b"{\"issuer-request-uri\":")?;
    json::put_string(&mut w, issuer_request_uri)?;
    w.put(b",\"token-keys\":[")?;
    for (i, key) in keys.iter().enumerate() {
        if i > 0 {
            w.u8(b',')?;
        }
        w.put(b"{\"token-type\":")?;
        w.decimal(u64::from(key.token_type))?;
        w.put(b",\"token-key\":\"")?;
        put_base64url(&mut w, key.token_key)?;
        w.u8(b'"')?;
        if let Some(t) = key.not_before {
            w.put(b",\"not-before\":")?;
            w.decimal(t)?;
        }
        w.u8(b'}')?;
    }
    w.put(b"]}")?;
    let n = w.finish();
    let written = out.get(..n).ok_or(Error::BufferTooSmall)?;
    core::str::from_utf8(written).map_err(|_| Error::MalformedJson)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn select_prefers_newest_valid_key() {
        let json = br#"{"issuer-request-uri":"https://i.example/r","token-keys":[
            {"token-type":2,"token-key":"AAAA","not-before":10},
            {"token-type":2,"token-key":"AQID","not-before":20},
            {"token-type":2,"token-key":"BAUG","not-before":20},
            {"token-type":1,"token-key":"BwgJ"}]}"#;
        let d = IssuerDirectory::<4>::parse(json, &mut []).unwrap();
        assert_eq!(d.select(2, None, 9), Err(Error::KeyNotYetValid));
        assert_eq!(d.select(2, None, 15).unwrap().token_key_base64(), "AAAA");
        assert_eq!(d.select(2, None, 20).unwrap().token_key_base64(), "AQID");
        assert_eq!(d.select(1, None, 0).unwrap().token_key_base64(), "BwgJ");
        assert_eq!(d.select(5, None, 100), Err(Error::NoMatchingKey));
        let old = d.keys()[0].key_id().unwrap();
        assert_eq!(d.select(2, Some(&old), 100).unwrap().token_key_base64(), "AAAA");
        assert_eq!(d.select(1, Some(&old), 100), Err(Error::NoMatchingKey));
        let newer = d.keys()[2].key_id().unwrap();
        assert_eq!(d.select(2, Some(&newer), 19), Err(Error::KeyNotYetValid));
    }
}
