//! The `PrivateToken` HTTP authentication scheme (RFC 9577 §2.1–§2.2).
//!
//! An origin challenges with
//!
//! ```text
//! WWW-Authenticate: PrivateToken challenge="<base64url TokenChallenge>",
//!                   token-key="<base64url public key>", max-age="10"
//! ```
//!
//! and a client redeems with `Authorization: PrivateToken token="<base64url Token>"`.
//!
//! draft-ietf-privacypass-auth-scheme-extensions-03 adds two optional
//! challenge parameters (§4): `extension-set`, the base64url
//! [`ExtensionSet`] of the extension types the origin asks for (each
//! required or optional), and `extensions`, a base64url
//! [`Extensions`] list the origin suggests the client may send as it is;
//! and the `extensions` parameter of `Authorization` (§3), the list the
//! client sends beside its token. The TokenChallenge itself does not change.
//!
//! [`parse_www_authenticate`] walks a `WWW-Authenticate` field value (RFC 9110
//! §11.6.1: a comma-separated list of challenges, each an auth-scheme and then
//! either a token68 or a list of auth-params) and yields every `PrivateToken`
//! challenge, skipping other schemes. Scheme and parameter names are matched
//! case-insensitively; values may be tokens or quoted strings. Nothing is
//! copied: the values borrow from the header, and base64url decoding writes into
//! a caller buffer, accepting padded and unpadded input. The builders write
//! into caller buffers too; they emit padded base64url, as RFC 9577 §2.1 asks.

mod base64url;
mod grammar;
#[cfg(test)]
mod tests;
mod write;

use self::base64url::decode_base64url;
pub(crate) use self::base64url::{decode_base64url_slice, put_base64url};
use self::grammar::{Body, Lexer};
use crate::error::{Error, Field, Result};
use crate::wire::codec::Decode as _;
use crate::wire::extension_set::ExtensionSet;
use crate::wire::extensions::Extensions;

/// The authentication scheme name.
pub const SCHEME: &str = "PrivateToken";

pub use self::base64url::base64url_len;
pub use self::write::{
    MAX_TOKEN_KEY_LEN, PRACTICAL_WWW_AUTHENTICATE_LEN, authorization_with_extensions_len, write_authorization,
    write_authorization_with_extensions, write_www_authenticate, write_www_authenticate_with_extensions,
    write_www_authenticate_with_rate_limit, write_www_authenticate_without_key, www_authenticate_len,
    www_authenticate_with_extensions_len,
};
pub use crate::wire::token_type::authorization_len;

/// A parameter value as it appears in the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamValue<'a> {
    /// The value without surrounding quotes; quoted-pair escapes are still in place.
    raw: &'a [u8],
    quoted: bool,
}

impl<'a> ParamValue<'a> {
    /// The value's characters with quoted-pair escapes resolved.
    pub fn chars(&self) -> impl Iterator<Item = u8> + 'a {
        let quoted = self.quoted;
        let mut it = self.raw.iter().copied();
        core::iter::from_fn(move || {
            let c = it.next()?;
            if quoted && c == b'\\' { it.next() } else { Some(c) }
        })
    }

    /// Decodes the value as base64url (padded or not) into `out`.
    pub fn decode_base64url<'o>(&self, out: &'o mut [u8]) -> Result<&'o [u8]> {
        if self.quoted && self.raw.contains(&b'\\') {
            decode_base64url(self.chars(), out)
        } else {
            // No quoted-pair: the characters are the raw bytes.
            decode_base64url_slice(self.raw, out)
        }
    }

    /// An upper bound on the decoded length, to size a buffer.
    pub fn decoded_len_bound(&self) -> usize {
        self.raw.len() / 4 * 3 + 3
    }
}

/// One `PrivateToken` challenge from a `WWW-Authenticate` header (RFC 9577 §2.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PrivateTokenChallenge<'a> {
    /// The `challenge` parameter: a base64url TokenChallenge.
    pub challenge: ParamValue<'a>,
    /// The `token-key` parameter: the base64url issuer public key, or `None`
    /// when the origin left it out. RFC 9577 §2.1 lets it be omitted "in
    /// deployments where clients are able to retrieve the issuer key using an
    /// out-of-band mechanism": the client then takes the key from the issuer
    /// directory (RFC 9578 §4) or its configuration.
    pub token_key: Option<ParamValue<'a>>,
    /// The optional `max-age` parameter, in seconds.
    pub max_age: Option<u32>,
    /// The `rate-limit` parameter of an ARC challenge (type 0xE5AC,
    /// draft-ietf-privacypass-arc-protocol-01 §6), as it appears; read it
    /// with [`PrivateTokenChallenge::decode_rate_limit`]. Kept raw so that
    /// an odd value on another type's challenge is ignored, as RFC 9110
    /// §11.2 asks of parameters a recipient does not use.
    pub rate_limit: Option<ParamValue<'a>>,
    /// The `extension-set` parameter
    /// (draft-ietf-privacypass-auth-scheme-extensions-03 §4): the base64url
    /// [`ExtensionSet`] of the extension types the origin asks for; read it
    /// with [`PrivateTokenChallenge::decode_extension_set`]. `None` when the
    /// origin does not negotiate extensions (§5).
    pub extension_set: Option<ParamValue<'a>>,
    /// The `extensions` parameter of the challenge (same draft, §4): a
    /// base64url [`Extensions`] list the origin fills in for the client,
    /// which may send it as it is or send its own; read it with
    /// [`PrivateTokenChallenge::decode_extensions`].
    pub extensions: Option<ParamValue<'a>>,
}

impl PrivateTokenChallenge<'_> {
    /// Decodes the `challenge` parameter into `out` (then parse it with
    /// [`crate::wire::challenge::TokenChallenge`]'s `Decode::decode`).
    pub fn decode_challenge<'o>(&self, out: &'o mut [u8]) -> Result<&'o [u8]> {
        self.challenge.decode_base64url(out)
    }

    /// Decodes the `token-key` parameter into `out`;
    /// [`Error::MissingParameter`]`(`[`Field::TokenKey`]`)` if the challenge
    /// has none (see [`PrivateTokenChallenge::token_key`]).
    pub fn decode_token_key<'o>(&self, out: &'o mut [u8]) -> Result<&'o [u8]> {
        self.token_key.ok_or(Error::MissingParameter(Field::TokenKey))?.decode_base64url(out)
    }

    /// The `rate-limit` parameter as a number: the presentation limit of an
    /// ARC challenge. The draft calls it a JSON number; only decimal digits
    /// are accepted (quoted or not), up to `u64::MAX`, else
    /// [`Error::InvalidValue`]`(`[`Field::RateLimit`]`)`. Whether it is a
    /// usable limit (2 to 2^32) is checked where it is used
    /// ([`crate::tokens::arc`]). `None` if the challenge has none.
    pub fn decode_rate_limit(&self) -> Result<Option<u64>> {
        self.rate_limit.map(parse_rate_limit).transpose()
    }

    /// Decodes the `extension-set` parameter into `out` and parses it
    /// ([`ExtensionSet`]); `None` if the challenge has none. Bad base64url
    /// is [`Error::InvalidBase64`]; a set that is truncated, not a whole
    /// number of entries, has an `is_required` byte other than 0 or 1, or
    /// is followed by more bytes is the error [`ExtensionSet`]'s decoder
    /// gives ([`Error::Truncated`],
    /// [`Error::InvalidLength`]`(`[`Field::ExtensionSet`]`)`,
    /// [`Error::InvalidValue`]`(`[`Field::ExtensionSet`]`)`,
    /// [`Error::TrailingBytes`]). `out` needs
    /// [`ParamValue::decoded_len_bound`] bytes at most, and never more than
    /// [`EXTENSION_SET_MAX_LEN`](crate::wire::extension_set::EXTENSION_SET_MAX_LEN).
    pub fn decode_extension_set<'o>(&self, out: &'o mut [u8]) -> Result<Option<ExtensionSet<'o>>> {
        match &self.extension_set {
            None => Ok(None),
            Some(v) => ExtensionSet::decode(v.decode_base64url(out)?).map(Some),
        }
    }

    /// Decodes the challenge's `extensions` parameter into `out` and parses
    /// it ([`Extensions`]: sorted by type, nothing after the list); `None`
    /// if the challenge has none.
    pub fn decode_extensions<'o>(&self, out: &'o mut [u8]) -> Result<Option<Extensions<'o>>> {
        match &self.extensions {
            None => Ok(None),
            Some(v) => Extensions::decode(v.decode_base64url(out)?).map(Some),
        }
    }
}

/// Iterates over the `PrivateToken` challenges of a `WWW-Authenticate` value.
///
/// A syntax error yields one `Err` and ends the iteration; a `PrivateToken`
/// challenge missing `challenge`, or repeating a parameter it reads
/// (`challenge`, `token-key`, `max-age`, `rate-limit`, `extension-set`,
/// `extensions`), yields an `Err` for that challenge and parsing goes on
/// with the next one. `token-key` is optional (RFC 9577 §2.1), and so are
/// `extension-set` and `extensions`
/// (draft-ietf-privacypass-auth-scheme-extensions-03 §4). Other parameters
/// are ignored (RFC 9110 §11.2).
pub fn parse_www_authenticate(value: &str) -> WwwAuthenticate<'_> {
    parse_www_authenticate_bytes(value.as_bytes())
}

/// [`parse_www_authenticate`] over the field value's bytes, for a caller
/// that has them undecoded (a C caller, an HTTP stack that keeps field
/// values as bytes): RFC 9110 lets quoted strings carry obs-text (bytes
/// 0x80 to 0xFF, not necessarily UTF-8), and another scheme's `realm` in
/// Latin-1 must not hide a `PrivateToken` challenge after it.
pub fn parse_www_authenticate_bytes(value: &[u8]) -> WwwAuthenticate<'_> {
    WwwAuthenticate { lex: Lexer::new(value), done: false }
}

/// Iterator returned by [`parse_www_authenticate`].
#[derive(Clone, Debug)]
pub struct WwwAuthenticate<'a> {
    lex: Lexer<'a>,
    done: bool,
}

impl<'a> Iterator for WwwAuthenticate<'a> {
    type Item = Result<PrivateTokenChallenge<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            match self.lex.next_challenge() {
                Ok(None) => self.done = true,
                Ok(Some((scheme, body))) => {
                    if !scheme.eq_ignore_ascii_case(SCHEME.as_bytes()) {
                        continue;
                    }
                    return Some(private_token_challenge(body));
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
        None
    }
}

fn private_token_challenge(body: Body<'_>) -> Result<PrivateTokenChallenge<'_>> {
    let Body::Params(params) = body else {
        return Err(Error::MalformedHeader);
    };
    let (mut challenge, mut token_key, mut max_age, mut rate_limit) = (None, None, None, None);
    let (mut extension_set, mut extensions) = (None, None);
    for param in params {
        let (name, value) = param?;
        let (slot, field) = if name.eq_ignore_ascii_case(b"challenge") {
            (&mut challenge, Field::Challenge)
        } else if name.eq_ignore_ascii_case(b"token-key") {
            (&mut token_key, Field::TokenKey)
        } else if name.eq_ignore_ascii_case(b"max-age") {
            (&mut max_age, Field::MaxAge)
        } else if name.eq_ignore_ascii_case(b"rate-limit") {
            (&mut rate_limit, Field::RateLimit)
        } else if name.eq_ignore_ascii_case(b"extension-set") {
            (&mut extension_set, Field::ExtensionSet)
        } else if name.eq_ignore_ascii_case(b"extensions") {
            (&mut extensions, Field::Extensions)
        } else {
            continue; // unknown parameters are ignored (RFC 9110 §11.2)
        };
        if slot.replace(value).is_some() {
            return Err(Error::DuplicateParameter(field));
        }
    }
    Ok(PrivateTokenChallenge {
        challenge: challenge.ok_or(Error::MissingParameter(Field::Challenge))?,
        token_key,
        max_age: max_age.map(parse_delta_seconds).transpose()?,
        rate_limit,
        extension_set,
        extensions,
    })
}

fn parse_rate_limit(v: ParamValue<'_>) -> Result<u64> {
    let mut n: u64 = 0;
    let mut digits = 0usize;
    for c in v.chars() {
        if !c.is_ascii_digit() {
            return Err(Error::InvalidValue(Field::RateLimit));
        }
        n = n
            .checked_mul(10)
            .and_then(|n| n.checked_add(u64::from(c - b'0')))
            .ok_or(Error::InvalidValue(Field::RateLimit))?;
        digits += 1;
    }
    if digits == 0 {
        return Err(Error::InvalidValue(Field::RateLimit));
    }
    Ok(n)
}

fn parse_delta_seconds(v: ParamValue<'_>) -> Result<u32> {
    let mut n: u32 = 0;
    let mut digits = 0usize;
    for c in v.chars() {
        let d = match c {
            b'0'..=b'9' => u32::from(c - b'0'),
            _ => return Err(Error::InvalidValue(Field::MaxAge)),
        };
        n = n.checked_mul(10).and_then(|n| n.checked_add(d)).ok_or(Error::InvalidValue(Field::MaxAge))?;
        digits += 1;
    }
    if digits == 0 {
        return Err(Error::InvalidValue(Field::MaxAge));
    }
    Ok(n)
}

/// Parses an `Authorization` value `PrivateToken token="..."` (RFC 9577 §2.2)
/// and returns the `token` parameter. Any other scheme, a token68 form, or a
/// missing or repeated `token` parameter is an error, and so is a repeated
/// `extensions` parameter ([`parse_authorization_with_extensions`], whose
/// `token` this is).
pub fn parse_authorization(value: &str) -> Result<ParamValue<'_>> {
    parse_authorization_with_extensions(value).map(|params| params.token)
}
/// The parameters of an `Authorization: PrivateToken` value with token
/// extensions (draft-ietf-privacypass-auth-scheme-extensions §3):
/// `token="…"` and, optionally, `extensions="…"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AuthorizationParams<'a> {
    /// The `token` parameter (base64url of an encoded token).
    pub token: ParamValue<'a>,
    /// The `extensions` parameter (base64url of an encoded `Extensions`
    /// list), if present.
    pub extensions: Option<ParamValue<'a>>,
}

impl AuthorizationParams<'_> {
    /// Decodes the `extensions` parameter into `out` and parses it
    /// ([`crate::wire::extensions::Extensions`]); the empty list when the
    /// parameter is absent. A list that does not fill the decoded bytes
    /// exactly is [`Error::TrailingBytes`].
    pub fn decode_extensions<'o>(&self, out: &'o mut [u8]) -> Result<Extensions<'o>> {
        match &self.extensions {
            None => Ok(Extensions::EMPTY),
            Some(v) => Extensions::decode(v.decode_base64url(out)?),
        }
    }
}

/// Parses an `Authorization` value `PrivateToken token="...",
/// extensions="..."` (RFC 9577 §2.2 with
/// draft-ietf-privacypass-auth-scheme-extensions §3). The rules of
/// [`parse_authorization`] apply, and a repeated `extensions` parameter is
/// [`Error::DuplicateParameter`]`(`[`Field::Extensions`]`)`; other
/// parameters are ignored.
pub fn parse_authorization_with_extensions(value: &str) -> Result<AuthorizationParams<'_>> {
    let mut lex = Lexer::new(value.as_bytes());
    let Some((scheme, body)) = lex.next_challenge()? else {
        return Err(Error::MalformedHeader);
    };
    // Credentials are a single item: nothing may follow.
    if !scheme.eq_ignore_ascii_case(SCHEME.as_bytes()) || lex.next_challenge()?.is_some() {
        return Err(Error::MalformedHeader);
    }
    let Body::Params(params) = body else {
        return Err(Error::MalformedHeader);
    };
    let mut token = None;
    let mut extensions = None;
    for param in params {
        let (name, value) = param?;
        if name.eq_ignore_ascii_case(b"token") && token.replace(value).is_some() {
            return Err(Error::DuplicateParameter(Field::Token));
        }
        if name.eq_ignore_ascii_case(b"extensions") && extensions.replace(value).is_some() {
            return Err(Error::DuplicateParameter(Field::Extensions));
        }
    }
    Ok(AuthorizationParams { token: token.ok_or(Error::MissingParameter(Field::Token))?, extensions })
}
