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
//! [`parse_www_authenticate`] walks a `WWW-Authenticate` field value (RFC 9110
//! §11.6.1: a comma-separated list of challenges, each an auth-scheme and then
//! either a token68 or a list of auth-params) and yields every `PrivateToken`
//! challenge, skipping other schemes. Scheme and parameter names are matched
//! case-insensitively; values may be tokens or quoted strings. Nothing is
//! copied: the values borrow from the header, and base64url decoding writes into
//! a caller buffer, accepting padded and unpadded input. The builders write
//! into caller buffers too; they emit padded base64url, as RFC 9577 §2.1 asks.

use base64ct::{Base64Url, Base64UrlUnpadded, Encoding};

use crate::blind_rsa;
use crate::challenge::PRACTICAL_CHALLENGE_LEN;
use crate::codec::Writer;
use crate::error::{Error, Field, Result};

/// The authentication scheme name.
pub const SCHEME: &str = "PrivateToken";

// ---- sizes of the values the builders write --------------------------------

/// `PrivateToken token="` and the closing `"` around the token.
const AUTHORIZATION_OVERHEAD: usize = SCHEME.len() + b" token=\"".len() + 1;

/// The length of padded base64url (RFC 4648 §5) of `len` bytes, which the
/// builders emit. Saturates at `usize::MAX` instead of overflowing.
pub const fn base64url_len(len: usize) -> usize {
    len.div_ceil(3).saturating_mul(4)
}

/// The length of the `Authorization` value that [`write_authorization`]
/// writes for an encoded token of `token_len` bytes:
/// `PrivateToken token="` ‖ base64url(token) ‖ `"` (RFC 9577 §2.2). For the
/// token types of this crate it is also
/// [`TokenType::AUTHORIZATION_LEN`](crate::TokenType::AUTHORIZATION_LEN).
pub const fn authorization_len(token_len: usize) -> usize {
    base64url_len(token_len).saturating_add(AUTHORIZATION_OVERHEAD)
}

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

/// The longest token key of the token types this crate implements: the
/// 342-byte RSA-2048 SPKI of types 0x0002 and 0x0003 (a type 0x0001 key is 49
/// bytes, a type 0x0005 key 32).
pub const MAX_TOKEN_KEY_LEN: usize = blind_rsa::PublicKey::SPKI_LEN;

/// A practical bound on one `PrivateToken` challenge in a
/// `WWW-Authenticate` value, to size the buffer of
/// [`write_www_authenticate`] or of a received header: 1,261 bytes.
///
/// It covers a TokenChallenge of up to [`PRACTICAL_CHALLENGE_LEN`] bytes (an
/// issuer name and one origin name of up to
/// [`PRACTICAL_NAME_LEN`](crate::challenge::PRACTICAL_NAME_LEN) bytes each,
/// and a redemption context), a token key of up to [`MAX_TOKEN_KEY_LEN`]
/// bytes and any `max-age`. It is not a limit of the protocol, which allows
/// names of 65,535 bytes: for longer names or several origins, size the
/// buffer with [`www_authenticate_len`] and
/// [`challenge_len`](crate::challenge::challenge_len). Challenges joined into
/// one header take 2 more bytes (`", "`) for each challenge after the first.
pub const PRACTICAL_WWW_AUTHENTICATE_LEN: usize =
    www_authenticate_len(PRACTICAL_CHALLENGE_LEN, Some(MAX_TOKEN_KEY_LEN), Some(u32::MAX));

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
}

impl PrivateTokenChallenge<'_> {
    /// Decodes the `challenge` parameter into `out` (then parse it with
    /// [`crate::challenge::TokenChallenge`]'s `Decode::decode`).
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
    /// ([`crate::types::arc`]). `None` if the challenge has none.
    pub fn decode_rate_limit(&self) -> Result<Option<u64>> {
        self.rate_limit.map(parse_rate_limit).transpose()
    }
}

/// Iterates over the `PrivateToken` challenges of a `WWW-Authenticate` value.
///
/// A syntax error yields one `Err` and ends the iteration; a `PrivateToken`
/// challenge missing `challenge`, or repeating a parameter, yields an `Err`
/// for that challenge and parsing goes on with the next one. `token-key` is
/// optional (RFC 9577 §2.1).
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

/// `, extensions="` and the closing `"`.
const EXTENSIONS_PARAM_OVERHEAD: usize = 15;

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
    /// ([`crate::extensions::Extensions`]); the empty list when the
    /// parameter is absent. A list that does not fill the decoded bytes
    /// exactly is [`Error::TrailingBytes`].
    pub fn decode_extensions<'o>(&self, out: &'o mut [u8]) -> Result<crate::extensions::Extensions<'o>> {
        use crate::codec::Decode as _;
        match &self.extensions {
            None => Ok(crate::extensions::Extensions::EMPTY),
            Some(v) => crate::extensions::Extensions::decode(v.decode_base64url(out)?),
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
/// [`Extensions`](crate::extensions::Extensions), so the header never
/// carries a list that does not parse.
pub fn write_authorization_with_extensions<'o>(
    token: &[u8],
    extensions: &crate::extensions::Extensions<'_>,
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
    write_challenge(challenge, Some(token_key), max_age, None, out)
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
    write_challenge(challenge, token_key, max_age, Some(rate_limit), out)
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
    write_challenge(challenge, None, max_age, None, out)
}

fn write_challenge<'o>(
    challenge: &[u8],
    token_key: Option<&[u8]>,
    max_age: Option<u32>,
    rate_limit: Option<u64>,
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

pub(crate) fn put_base64url(w: &mut Writer<'_>, bytes: &[u8]) -> Result<()> {
    let dst = w.reserve(Base64Url::encoded_len(bytes))?;
    Base64Url::encode(bytes, dst).map_err(|_| Error::BufferTooSmall)?;
    Ok(())
}

/// Decodes base64url (RFC 4648 §5) from a character stream, with or without
/// `=` padding, rejecting non-canonical trailing bits.
pub(crate) fn decode_base64url(chars: impl Iterator<Item = u8>, out: &mut [u8]) -> Result<&[u8]> {
    let mut group = [0u8; 4];
    let mut filled = 0usize;
    let mut written = 0usize;
    let mut padding = 0usize;
    for c in chars {
        if c == b'=' {
            padding += 1;
            continue;
        }
        if padding > 0 {
            return Err(Error::InvalidBase64);
        }
        *group.get_mut(filled).ok_or(Error::InvalidBase64)? = c;
        filled += 1;
        if filled == 4 {
            written += decode_group(&group, out.get_mut(written..).ok_or(Error::BufferTooSmall)?)?;
            filled = 0;
        }
    }
    // Padding, if present, must complete the last group to four characters.
    let pad_ok = matches!((filled, padding), (_, 0) | (2, 2) | (3, 1));
    if filled == 1 || !pad_ok {
        return Err(Error::InvalidBase64);
    }
    if filled > 0 {
        let tail = group.get(..filled).ok_or(Error::InvalidBase64)?;
        written += decode_group(tail, out.get_mut(written..).ok_or(Error::BufferTooSmall)?)?;
    }
    out.get(..written).ok_or(Error::BufferTooSmall)
}

/// [`decode_base64url`] over a slice of characters, in one call of the
/// constant-time decoder instead of one per group of four (3–4× faster on
/// a 342-byte token key), with the same rules: padding only to complete the
/// last group, no lone trailing character, canonical trailing bits.
pub(crate) fn decode_base64url_slice<'o>(chars: &[u8], out: &'o mut [u8]) -> Result<&'o [u8]> {
    let body_len = chars.iter().rposition(|&c| c != b'=').map_or(0, |i| i + 1);
    let (body, padding) = chars.split_at(body_len);
    let rem = body.len() % 4;
    let pad_ok = matches!((rem, padding.len()), (_, 0) | (2, 2) | (3, 1));
    if rem == 1 || !pad_ok {
        return Err(Error::InvalidBase64);
    }
    let len = body.len() / 4 * 3 + rem.saturating_sub(1);
    let dst = out.get_mut(..len).ok_or(Error::BufferTooSmall)?;
    // base64ct refuses '=' inside the body, other characters and
    // non-canonical trailing bits.
    Base64UrlUnpadded::decode(body, dst).map_err(|_| Error::InvalidBase64)
}

/// Decodes 2, 3 or 4 base64url characters into `out`; returns the byte count.
fn decode_group(chars: &[u8], out: &mut [u8]) -> Result<usize> {
    let mut buf = [0u8; 3];
    let n = Base64UrlUnpadded::decode(chars, &mut buf).map_err(|_| Error::InvalidBase64)?.len();
    out.get_mut(..n).ok_or(Error::BufferTooSmall)?.copy_from_slice(buf.get(..n).ok_or(Error::InvalidBase64)?);
    Ok(n)
}

// ---- RFC 9110 §11 challenge grammar ------------------------------------------

/// tchar (RFC 9110 §5.6.2).
fn is_tchar(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&c)
}

/// token68 characters before its trailing `=` (RFC 9110 §11.2).
fn is_token68_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"-._~+/".contains(&c)
}

/// What follows an auth-scheme.
#[derive(Clone, Debug)]
enum Body<'a> {
    /// Nothing, or a token68 (whose content we never need).
    Token68,
    /// A list of auth-params, parsed lazily.
    Params(Params<'a>),
}

#[derive(Clone, Debug)]
struct Lexer<'a> {
    s: &'a [u8],
    pos: usize,
}

impl<'a> Lexer<'a> {
    fn new(s: &'a [u8]) -> Self {
        Self { s, pos: 0 }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn skip_ows(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.pos += 1;
        }
    }

    fn skip_while(&mut self, f: impl Fn(u8) -> bool) -> &'a [u8] {
        let start = self.pos;
        while self.peek().is_some_and(&f) {
            self.pos += 1;
        }
        self.s.get(start..self.pos).unwrap_or_default()
    }

    /// Skips OWS and empty list elements (RFC 9110 §5.6.1 allows `, ,`).
    fn skip_separators(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b',')) {
            self.pos += 1;
        }
    }

    /// Whether a new challenge starts here: a token not followed by `=`.
    fn at_new_challenge(&self) -> bool {
        let mut probe = self.clone();
        if probe.skip_while(is_tchar).is_empty() {
            return false;
        }
        probe.skip_ows();
        probe.peek() != Some(b'=')
    }

    /// Reads the next challenge: its scheme and a lazily parsed body. The lexer
    /// is left after the body.
    fn next_challenge(&mut self) -> Result<Option<(&'a [u8], Body<'a>)>> {
        self.skip_separators();
        if self.peek().is_none() {
            return Ok(None);
        }
        let scheme = self.skip_while(is_tchar);
        if scheme.is_empty() {
            return Err(Error::MalformedHeader);
        }
        let after_scheme = self.pos;
        self.skip_ows();
        if self.pos == after_scheme || matches!(self.peek(), None | Some(b',')) {
            // No body (an optional comma-separated successor follows).
            return match self.peek() {
                None | Some(b',') => Ok(Some((scheme, Body::Token68))),
                Some(_) => Err(Error::MalformedHeader),
            };
        }
        // token68: its characters, then `=`s, then the end of this item.
        let mut probe = self.clone();
        if !probe.skip_while(is_token68_char).is_empty() {
            probe.skip_while(|c| c == b'=');
            probe.skip_ows();
            if matches!(probe.peek(), None | Some(b',')) {
                *self = probe;
                return Ok(Some((scheme, Body::Token68)));
            }
        }
        let start = self.pos;
        // Walk the auth-params once to find where this challenge ends; the
        // caller re-walks them lazily from `start`.
        let mut params = Params { lex: Lexer { s: self.s, pos: start }, first: true, done: false };
        for p in params.by_ref() {
            p?;
        }
        self.pos = params.lex.pos;
        Ok(Some((scheme, Body::Params(Params { lex: Lexer { s: self.s, pos: start }, first: true, done: false }))))
    }

    fn param_value(&mut self) -> Result<ParamValue<'a>> {
        if self.peek() == Some(b'"') {
            self.pos += 1;
            let start = self.pos;
            loop {
                match self.peek() {
                    None => return Err(Error::MalformedHeader),
                    Some(b'"') => break,
                    Some(b'\\') => {
                        self.pos += 1;
                        // quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text )
                        match self.peek() {
                            Some(c) if c == b'\t' || c >= 0x20 && c != 0x7f => self.pos += 1,
                            _ => return Err(Error::MalformedHeader),
                        }
                    }
                    // qdtext = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text
                    Some(c) if c == b'\t' || c >= 0x20 && c != 0x7f => self.pos += 1,
                    Some(_) => return Err(Error::MalformedHeader),
                }
            }
            let raw = self.s.get(start..self.pos).unwrap_or_default();
            self.pos += 1; // closing quote
            Ok(ParamValue { raw, quoted: true })
        } else {
            // A bare value is a token; as a leniency for base64 values sent
            // unquoted, trailing `=` padding is accepted too (token68 style).
            let start = self.pos;
            if self.skip_while(is_tchar).is_empty() {
                return Err(Error::MalformedHeader);
            }
            self.skip_while(|c| c == b'=');
            let raw = self.s.get(start..self.pos).unwrap_or_default();
            Ok(ParamValue { raw, quoted: false })
        }
    }
}

/// Lazy iterator over one challenge's auth-params.
#[derive(Clone, Debug)]
struct Params<'a> {
    lex: Lexer<'a>,
    first: bool,
    done: bool,
}

impl<'a> Iterator for Params<'a> {
    type Item = Result<(&'a [u8], ParamValue<'a>)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        if !self.first {
            // Between params: OWS, then a comma or the end of the header.
            self.lex.skip_ows();
            match self.lex.peek() {
                None => {
                    self.done = true;
                    return None;
                }
                Some(b',') => {
                    let mark = self.lex.pos;
                    self.lex.skip_separators();
                    if self.lex.peek().is_none() || self.lex.at_new_challenge() {
                        // The list continues with another challenge: stop before it.
                        self.lex.pos = mark;
                        self.done = true;
                        return None;
                    }
                }
                Some(_) => {
                    self.done = true;
                    return Some(Err(Error::MalformedHeader));
                }
            }
        }
        self.first = false;
        let item = (|| {
            let name = self.lex.skip_while(is_tchar);
            if name.is_empty() {
                return Err(Error::MalformedHeader);
            }
            self.lex.skip_ows();
            if self.lex.peek() != Some(b'=') {
                return Err(Error::MalformedHeader);
            }
            self.lex.pos += 1;
            self.lex.skip_ows();
            Ok((name, self.lex.param_value()?))
        })();
        if item.is_err() {
            self.done = true;
        }
        Some(item)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    extern crate std;
    use std::vec::Vec;

    use super::*;

    fn decode_all(v: ParamValue<'_>) -> Result<Vec<u8>> {
        let mut buf = [0u8; 64];
        v.decode_base64url(&mut buf).map(<[u8]>::to_vec)
    }

    #[test]
    fn parses_quoted_and_bare_mixed_with_other_schemes() {
        let h = "Basic realm=\"a, b\", PRIVATETOKEN Challenge=\"AAEC\", Token-Key=AwQF, max-age=\"10\", \
                 Negotiate, Bearer abc==, privatetoken challenge=BgcI, token-key=\"CQoL\", ext=x";
        let found: Vec<_> = parse_www_authenticate(h).collect::<Result<_>>().unwrap();
        assert_eq!(found.len(), 2);
        assert_eq!(decode_all(found[0].challenge).unwrap(), [0, 1, 2]);
        assert_eq!(decode_all(found[0].token_key.unwrap()).unwrap(), [3, 4, 5]);
        assert_eq!(found[0].max_age, Some(10));
        assert_eq!(decode_all(found[1].challenge).unwrap(), [6, 7, 8]);
        assert_eq!(decode_all(found[1].token_key.unwrap()).unwrap(), [9, 10, 11]);
        assert_eq!(found[1].max_age, None);
    }

    #[test]
    fn slice_decoder_agrees_with_the_group_decoder() {
        // Every string of up to 6 characters over an alphabet with valid
        // characters, '=' and invalid ones, and longer random ones: the one-call
        // decoder gives what the group-by-group decoder gives, value or error.
        const ALPHABET: &[u8] = b"AQgw_-=$9";
        let mut checked = 0usize;
        let mut check = |s: &[u8]| {
            let (mut a, mut b) = ([0u8; 64], [0u8; 64]);
            let slow = decode_base64url(s.iter().copied(), &mut a).map(<[u8]>::to_vec);
            let fast = decode_base64url_slice(s, &mut b).map(<[u8]>::to_vec);
            assert_eq!(slow, fast, "{:?}", core::str::from_utf8(s));
            checked += 1;
        };
        for len in 0..=6usize {
            let mut idx = [0usize; 6];
            loop {
                let s: Vec<u8> = idx[..len].iter().map(|&i| ALPHABET[i]).collect();
                check(&s);
                let mut k = 0;
                while k < len && idx[k] == ALPHABET.len() - 1 {
                    idx[k] = 0;
                    k += 1;
                }
                if k == len {
                    break;
                }
                idx[k] += 1;
            }
        }
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = (x % 60) as usize;
            let s: Vec<u8> = (0..len).map(|i| b"ABCxyz019-_=$"[((x >> (i % 50)) % 13) as usize]).collect();
            check(&s);
        }
        assert!(checked > 500_000, "{checked}");
        // Too small a buffer, for a valid value.
        assert_eq!(decode_base64url_slice(b"AAECAw", &mut [0u8; 3]), Err(Error::BufferTooSmall));
    }

    #[test]
    fn bytes_with_obs_text_in_another_scheme() {
        // A Latin-1 realm (0xE9) is obs-text in a quoted string (RFC 9110
        // §5.6.4): not UTF-8, so only the byte entry point can take it.
        let h = b"Basic realm=\"caf\xe9\", PrivateToken challenge=\"AAEC\"";
        let found: Vec<_> = parse_www_authenticate_bytes(h).collect::<Result<_>>().unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(decode_all(found[0].challenge).unwrap(), [0, 1, 2]);
        // Control bytes stay refused.
        let bad = b"Basic realm=\"a\x01\", PrivateToken challenge=\"AAEC\"";
        assert_eq!(parse_www_authenticate_bytes(bad).next(), Some(Err(Error::MalformedHeader)));
    }

    #[test]
    fn base64_padded_unpadded_and_escaped() {
        for v in ["AQ==", "AQ", "\"AQ==\"", "\"A\\Q\""] {
            let h = std::format!("PrivateToken challenge={v}, token-key=AQ");
            let c = parse_www_authenticate(&h).next().unwrap().unwrap();
            assert_eq!(decode_all(c.challenge).unwrap(), [1], "{v}");
        }
        for bad in ["A", "AQ=", "AQ===", "A=Q", "AR==", "AQ+/", "a*b"] {
            let v = ParamValue { raw: bad.as_bytes(), quoted: false };
            assert!(decode_all(v).is_err(), "{bad}");
        }
        let mut small = [0u8; 2];
        let v = ParamValue { raw: b"AAECAw", quoted: false };
        assert_eq!(v.decode_base64url(&mut small), Err(Error::BufferTooSmall));
    }

    #[test]
    fn rejects_missing_duplicate_and_malformed() {
        fn first(h: &str) -> Result<PrivateTokenChallenge<'_>> {
            parse_www_authenticate(h).next().unwrap()
        }
        assert_eq!(first("PrivateToken token-key=AQ"), Err(Error::MissingParameter(Field::Challenge)));
        // token-key is optional (RFC 9577 §2.1): the challenge parses without
        // it, and only asking for the key reports it missing.
        let keyless = first("PrivateToken challenge=AQ, max-age=5").unwrap();
        assert_eq!((keyless.token_key, keyless.max_age), (None, Some(5)));
        assert_eq!(decode_all(keyless.challenge).unwrap(), [1]);
        assert_eq!(keyless.decode_token_key(&mut [0u8; 8]), Err(Error::MissingParameter(Field::TokenKey)));
        assert_eq!(
            first("PrivateToken challenge=AQ, token-key=AQ, Challenge=AQ"),
            Err(Error::DuplicateParameter(Field::Challenge))
        );
        assert_eq!(
            first("PrivateToken challenge=AQ, token-key=AQ, max-age=1x"),
            Err(Error::InvalidValue(Field::MaxAge))
        );
        assert_eq!(
            first("PrivateToken challenge=AQ, token-key=AQ, max-age=99999999999"),
            Err(Error::InvalidValue(Field::MaxAge))
        );
        assert_eq!(first("PrivateToken abc=="), Err(Error::MalformedHeader));
        assert_eq!(first("PrivateToken challenge=\"AQ, token-key=AQ"), Err(Error::MalformedHeader));
        assert_eq!(first("PrivateToken challenge=AQ token-key=AQ"), Err(Error::MalformedHeader));
        assert_eq!(first("PrivateToken challenge=, token-key=AQ"), Err(Error::MalformedHeader));
        assert_eq!(first("=x"), Err(Error::MalformedHeader));
        assert!(parse_www_authenticate("").next().is_none());
        assert!(parse_www_authenticate("Basic realm=x").next().is_none());
    }

    #[test]
    fn authorization_roundtrip() {
        let token = [0xfbu8; 40];
        let mut out = [0u8; 128];
        let h = write_authorization(&token, &mut out).unwrap();
        assert!(h.starts_with("PrivateToken token=\""));
        let v = parse_authorization(h).unwrap();
        let mut buf = [0u8; 64];
        assert_eq!(v.decode_base64url(&mut buf).unwrap(), token);
        assert_eq!(parse_authorization("privatetoken TOKEN=AQ").map(|v| v.raw), Ok(&b"AQ"[..]));
        assert_eq!(parse_authorization("Basic token=AQ"), Err(Error::MalformedHeader));
        assert_eq!(parse_authorization("PrivateToken other=AQ"), Err(Error::MissingParameter(Field::Token)));
        assert_eq!(
            parse_authorization("PrivateToken token=AQ, token=AQ"),
            Err(Error::DuplicateParameter(Field::Token))
        );
        assert_eq!(parse_authorization("PrivateToken token=AQ, Basic x=y"), Err(Error::MalformedHeader));
        assert_eq!(parse_authorization(""), Err(Error::MalformedHeader));
        assert_eq!(write_authorization(&token, &mut out[..20]), Err(Error::BufferTooSmall));
    }

    #[test]
    fn www_authenticate_roundtrip() {
        let mut out = [0u8; 128];
        let h = write_www_authenticate(&[1, 2, 3, 4], &[5, 6], Some(3600), &mut out).unwrap();
        assert_eq!(h, "PrivateToken challenge=\"AQIDBA==\", token-key=\"BQY=\", max-age=\"3600\"");
        let c = parse_www_authenticate(h).next().unwrap().unwrap();
        assert_eq!(decode_all(c.challenge).unwrap(), [1, 2, 3, 4]);
        assert_eq!(decode_all(c.token_key.unwrap()).unwrap(), [5, 6]);
        assert_eq!(c.max_age, Some(3600));
        let h = write_www_authenticate(&[1], &[2], None, &mut out).unwrap();
        assert_eq!(h, "PrivateToken challenge=\"AQ==\", token-key=\"Ag==\"");
        let h = write_www_authenticate_without_key(&[1, 2], Some(60), &mut out).unwrap();
        assert_eq!(h, "PrivateToken challenge=\"AQI=\", max-age=\"60\"");
        let c = parse_www_authenticate(h).next().unwrap().unwrap();
        assert_eq!(decode_all(c.challenge).unwrap(), [1, 2]);
        assert!(c.token_key.is_none());
        assert_eq!(write_www_authenticate_without_key(&[1], None, &mut out[..20]), Err(Error::BufferTooSmall));
        assert_eq!(write_www_authenticate(&[1], &[2], Some(0), &mut out[..30]), Err(Error::BufferTooSmall));
    }
}
