//! The `PrivateToken` HTTP authentication scheme (RFC 9577 §2.1–§2.2):
//! `WWW-Authenticate` challenges in, `Authorization` credentials out, and a
//! token's fields (RFC 9577 §2.2). A challenge's extension negotiation
//! (draft-ietf-privacypass-auth-scheme-extensions-03 §4: `extension-set` and
//! `extensions`) is read and written too, and so is an ARC challenge
//! (type 0xE5AC, draft-ietf-privacypass-arc-protocol-01 §6): its
//! TokenChallenge with the `credential_context`, its `rate-limit`
//! parameter, and its tokens in `Authorization`.

use pat::tokens::arc::{TOKEN_TYPE as ARC, token_len as arc_token_len};
use pat::wire::auth;
use pat::wire::extension_set::ExtensionSet;
use pat::wire::extensions::Extensions;
use pat::{Decode, TokenRef};
use wasm_bindgen::prelude::*;

use crate::challenge::check as check_challenge;
use crate::error::js;

/// One `PrivateToken` challenge of a `WWW-Authenticate` value.
#[wasm_bindgen(getter_with_clone)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChallengeHeader {
    /// The encoded TokenChallenge (checked to be one).
    pub challenge: Vec<u8>,
    /// The issuer's token key, absent when the origin left it out (RFC 9577
    /// §2.1: the client then takes it from the issuer directory).
    #[wasm_bindgen(js_name = tokenKey)]
    pub token_key: Option<Vec<u8>>,
    /// `max-age`, in seconds.
    #[wasm_bindgen(js_name = maxAge)]
    pub max_age: Option<u32>,
    /// The `extension-set` parameter: the encoded ExtensionSet (checked to
    /// be one) of the extension types the origin asks for; absent when the
    /// origin does not negotiate. Read its types with `decodeExtensionSet`.
    #[wasm_bindgen(js_name = extensionSet)]
    pub extension_set: Option<Vec<u8>>,
    /// The challenge's `extensions` parameter: an encoded Extensions list
    /// (checked to be one) the origin suggests; absent when it has none.
    pub extensions: Option<Vec<u8>>,
    /// The `rate-limit` parameter of an ARC challenge (type 0xE5AC): the
    /// presentation limit; absent on every other type's challenge (where
    /// the parameter is ignored, as the library does).
    #[wasm_bindgen(js_name = rateLimit)]
    pub rate_limit: Option<u64>,
}

/// The fields of an encoded token (RFC 9577 §2.2).
#[wasm_bindgen(getter_with_clone)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenParts {
    /// `token_type`.
    #[wasm_bindgen(js_name = tokenType)]
    pub token_type: u16,
    /// `nonce`, 32 bytes.
    pub nonce: Vec<u8>,
    /// `challenge_digest`, SHA-256 of the TokenChallenge.
    #[wasm_bindgen(js_name = challengeDigest)]
    pub challenge_digest: Vec<u8>,
    /// `token_key_id`, SHA-256 of the issuer's token key.
    #[wasm_bindgen(js_name = tokenKeyId)]
    pub token_key_id: Vec<u8>,
    /// `authenticator`, `Nk` bytes for the token type.
    pub authenticator: Vec<u8>,
}

/// Decodes a base64url parameter value into a fresh vector.
fn decode_param(value: &auth::ParamValue<'_>) -> pat::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(value.decoded_len_bound());
    decode_public(value, &mut out)?;
    Ok(out)
}

/// Appends the decoding of a base64url parameter value to `out`, with the
/// rules of the library's `ParamValue::decode_base64url` (padding only to
/// complete the last group, no lone trailing character, canonical trailing
/// bits; the same results and errors, tested below), through the `base64`
/// crate's table decoder. The values are what every party that handles the
/// header sees (token keys, challenges, and tokens, which are sent in clear
/// to the origin), not secrets of the caller, so the library's
/// constant-time decoder, several times slower in WebAssembly, buys nothing
/// here.
fn decode_public(value: &auth::ParamValue<'_>, out: &mut Vec<u8>) -> pat::Result<()> {
    use base64::Engine as _;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;

    let chars: Vec<u8> = value.chars().collect();
    let body_len = chars.iter().rposition(|&c| c != b'=').map_or(0, |i| i + 1);
    let (body, padding) = chars.split_at(body_len);
    let rem = body.len() % 4;
    if rem == 1 || !matches!((rem, padding.len()), (_, 0) | (2, 2) | (3, 1)) {
        return Err(pat::Error::InvalidBase64);
    }
    let at = out.len();
    out.resize(at + body.len() / 4 * 3 + rem.saturating_sub(1), 0);
    // Refuses '=' inside the body, other characters and non-canonical
    // trailing bits (the engine's defaults).
    let n = URL_SAFE_NO_PAD
        .decode_slice(body, out.get_mut(at..).ok_or(pat::Error::BufferTooSmall)?)
        .map_err(|_| pat::Error::InvalidBase64)?;
    out.truncate(at + n);
    Ok(())
}

/// Every well-formed `PrivateToken` challenge of a `WWW-Authenticate`
/// value, in order (other schemes are skipped). A malformed one (a missing
/// or repeated parameter, bad base64url, a `challenge` that is not a
/// TokenChallenge, a syntax error that ends the list) is skipped, as the
/// library's iterator goes on past it, so that one bad challenge does not
/// hide a good one; when no challenge is usable, the first error is the
/// result.
pub fn challenges(value: &str) -> pat::Result<Vec<ChallengeHeader>> {
    let mut out = Vec::new();
    let mut first_error = None;
    for c in auth::parse_www_authenticate(value) {
        match one_challenge(c) {
            Ok(c) => out.push(c),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    match first_error {
        Some(e) if out.is_empty() => Err(e),
        _ => Ok(out),
    }
}

fn one_challenge(c: pat::Result<auth::PrivateTokenChallenge<'_>>) -> pat::Result<ChallengeHeader> {
    let c = c?;
    let challenge = decode_param(&c.challenge)?;
    check_challenge(&challenge)?;
    // Read where it is used (ARC), ignored elsewhere: a malformed value on
    // an ARC challenge makes the challenge unusable.
    let rate_limit = if challenge.starts_with(&ARC.to_be_bytes()) { c.decode_rate_limit()? } else { None };
    let token_key = c.token_key.as_ref().map(decode_param).transpose()?;
    let extension_set = c.extension_set.as_ref().map(decode_param).transpose()?;
    if let Some(bytes) = &extension_set {
        ExtensionSet::decode(bytes)?;
    }
    let extensions = c.extensions.as_ref().map(decode_param).transpose()?;
    if let Some(bytes) = &extensions {
        Extensions::decode(bytes)?;
    }
    Ok(ChallengeHeader { challenge, token_key, max_age: c.max_age, extension_set, extensions, rate_limit })
}

/// One `PrivateToken` challenge for `WWW-Authenticate`, with or without the
/// token key, and with the extension parameters given: `extension_set` an
/// encoded ExtensionSet, `extensions` an encoded Extensions list, each
/// checked to be one.
pub fn challenge_value(
    challenge: &[u8],
    token_key: Option<&[u8]>,
    max_age: Option<u32>,
    extension_set: Option<&[u8]>,
    extensions: Option<&[u8]>,
) -> pat::Result<String> {
    challenge_value_with(challenge, token_key, max_age, extension_set, extensions, None)
}

/// [`challenge_value`] with an ARC challenge's `rate-limit`: given exactly
/// when the challenge is of type 0xE5AC (`MissingParameter(RateLimit)`
/// without it, `InvalidValue(RateLimit)` with it on another type), a limit
/// a client can use (2 to 2^32: `InvalidValue(PresentationLimit)`
/// otherwise), and never with the extension parameters (ARC tokens carry
/// none: `InvalidValue(RateLimit)`). The challenge is checked to be one.
pub fn challenge_value_with(
    challenge: &[u8],
    token_key: Option<&[u8]>,
    max_age: Option<u32>,
    extension_set: Option<&[u8]>,
    extensions: Option<&[u8]>,
    rate_limit: Option<u64>,
) -> pat::Result<String> {
    check_challenge(challenge)?;
    let is_arc = challenge.starts_with(&ARC.to_be_bytes());
    match rate_limit {
        None if is_arc => return Err(pat::Error::MissingParameter(pat::Field::RateLimit)),
        None => {}
        Some(_) if !is_arc || extension_set.is_some() || extensions.is_some() => {
            return Err(pat::Error::InvalidValue(pat::Field::RateLimit));
        }
        Some(limit) => {
            arc_token_len(limit)?;
            // `, rate-limit=` and at most 20 digits.
            let len = auth::www_authenticate_len(challenge.len(), token_key.map(<[u8]>::len), max_age) + 13 + 20;
            let mut out = vec![0u8; len];
            let value = auth::write_www_authenticate_with_rate_limit(challenge, token_key, max_age, limit, &mut out)?;
            return Ok(value.to_owned());
        }
    }
    let extension_set = extension_set.map(ExtensionSet::decode).transpose()?;
    let extensions = extensions.map(Extensions::decode).transpose()?;
    let mut out = vec![
        0u8;
        auth::www_authenticate_with_extensions_len(
            challenge.len(),
            token_key.map(<[u8]>::len),
            max_age,
            extension_set.map(|s| s.as_bytes().len()),
            extensions.map(|e| e.as_bytes().len()),
        )
    ];
    let value = auth::write_www_authenticate_with_extensions(
        challenge,
        token_key,
        max_age,
        extension_set.as_ref(),
        extensions.as_ref(),
        &mut out,
    )?;
    Ok(value.to_owned())
}

/// `PrivateToken token="<base64url>"` for an encoded token, checked first
/// to be a token of a known type (as [`authorization_token`] checks what it
/// reads), so that no malformed token leaves as a header.
pub fn authorization_value(token: &[u8]) -> pat::Result<String> {
    check_token(token)?;
    let mut out = vec![0u8; auth::authorization_len(token.len())];
    Ok(auth::write_authorization(token, &mut out)?.to_owned())
}

/// The encoded token of an `Authorization: PrivateToken token="..."` value,
/// checked to be a token of a known type.
pub fn authorization_token(value: &str) -> pat::Result<Vec<u8>> {
    let token = decode_param(&auth::parse_authorization(value)?)?;
    check_token(&token)?;
    Ok(token)
}

/// `PrivateToken token="…", extensions="…"` for an encoded token and the
/// encoded Extensions list sent with it (draft-ietf-privacypass-auth-scheme-extensions
/// §3; type 0xDA7A's metadata), each checked first.
pub fn authorization_with_extensions_value(token: &[u8], extensions: &[u8]) -> pat::Result<String> {
    // ARC, ACT and ATHM tokens carry no extensions (arc-protocol-01,
    // act-01 and athm-00 have none).
    if token.starts_with(&ARC.to_be_bytes()) || crate::act::is_act(token) || crate::athm::is_athm(token) {
        return Err(pat::Error::InvalidValue(pat::Field::Extensions));
    }
    check_token(token)?;
    let extensions = Extensions::decode(extensions)?;
    let mut out = vec![0u8; auth::authorization_with_extensions_len(token.len(), extensions.as_bytes().len())];
    Ok(auth::write_authorization_with_extensions(token, &extensions, &mut out)?.to_owned())
}

/// The encoded token of an `Authorization: PrivateToken` value and its
/// encoded `extensions` parameter, if it has one: [`ExtensionsParts`].
pub fn authorization_parts(value: &str) -> pat::Result<AuthorizationParts> {
    let params = auth::parse_authorization_with_extensions(value)?;
    let token = decode_param(&params.token)?;
    check_token(&token)?;
    let extensions = params.extensions.as_ref().map(decode_param).transpose()?;
    if let Some(bytes) = &extensions {
        Extensions::decode(bytes)?;
    }
    Ok(AuthorizationParts { token, extensions })
}

/// What an `Authorization: PrivateToken` value carries.
#[wasm_bindgen(getter_with_clone)]
#[derive(Clone, Debug)]
pub struct AuthorizationParts {
    /// The encoded token.
    pub token: Vec<u8>,
    /// The encoded Extensions list of its `extensions` parameter, if any.
    pub extensions: Option<Vec<u8>>,
}

/// Checks that `bytes` is a token of a known type: for an ARC token (type
/// 0xE5AC, whose length depends on the presentation limit, which the token
/// does not carry) that its length is the length of a token under some
/// limit from 2 to 2^32; for an ACT token (type 0xE5AD) that it decodes
/// under the bit length its length gives ([`crate::act::check_token`]);
/// for an ATHM token (type 0xC07E) that it decodes; for the others,
/// [`TokenRef::decode`].
pub fn check_token(bytes: &[u8]) -> pat::Result<()> {
    if crate::act::is_act(bytes) {
        return crate::act::check_token(bytes);
    }
    if crate::athm::is_athm(bytes) {
        return crate::athm::check_token(bytes);
    }
    if bytes.starts_with(&ARC.to_be_bytes()) {
        return if pat::tokens::arc::is_token_len(bytes.len()) {
            Ok(())
        } else {
            Err(pat::Error::InvalidLength(pat::Field::Token))
        };
    }
    TokenRef::decode(bytes).map(|_| ())
}

/// The fields of an encoded token of a known type.
pub fn token_parts(bytes: &[u8]) -> pat::Result<TokenParts> {
    let t = TokenRef::decode(bytes)?;
    let input = t.input();
    Ok(TokenParts {
        token_type: t.kind().code(),
        nonce: input.nonce().to_vec(),
        challenge_digest: input.challenge_digest().to_vec(),
        token_key_id: input.token_key_id().to_vec(),
        authenticator: t.authenticator().to_vec(),
    })
}

/// [`challenges`], for JavaScript.
#[wasm_bindgen(js_name = parseWwwAuthenticate)]
pub fn parse_www_authenticate(value: &str) -> Result<Vec<ChallengeHeader>, JsValue> {
    challenges(value).map_err(js)
}

/// [`challenges`] in one byte string, so that the JavaScript wrapper makes
/// one call across the boundary instead of one per field (the wrapper's
/// `WWWAuthenticateHeader.parse`). Integers are big-endian; a field is its
/// length (u32) and its bytes; an optional one is 0 (absent) or 1 and the
/// value. The layout: the number of challenges (u32), then for each: the
/// TokenChallenge's encoding, its `token_type` (u16), `issuer_name`,
/// `redemption_context` and `origin_info` (fields), its optional
/// `credential_context` (type 0xE5AC), then the optional token key,
/// `max-age` (u32), `extension-set`, `extensions` and `rate-limit` (u64).
pub fn challenges_packed(value: &str) -> pat::Result<Vec<u8>> {
    // Written straight into one buffer (each base64url value decoded in
    // place, the challenge's fields copied from within it), with no vector
    // per challenge field: this is the hot path of a client.
    let mut out = Vec::with_capacity(value.len() + 64);
    out.extend_from_slice(&[0; 4]);
    let mut count = 0u32;
    let mut first_error = None;
    for c in auth::parse_www_authenticate(value) {
        let mark = out.len();
        match pack_one(c, &mut out) {
            Ok(()) => count = count.checked_add(1).ok_or(pat::Error::InvalidLength(pat::Field::Challenge))?,
            Err(e) => {
                // As `challenges`: a malformed challenge is skipped.
                out.truncate(mark);
                first_error.get_or_insert(e);
            }
        }
    }
    if let (0, Some(e)) = (count, first_error) {
        return Err(e);
    }
    if let Some(head) = out.get_mut(..4) {
        head.copy_from_slice(&count.to_be_bytes());
    }
    Ok(out)
}

/// Appends a base64url parameter's decoding as a field (its length, u32,
/// then its bytes) and returns where the bytes start and end.
fn put_decoded(out: &mut Vec<u8>, value: &auth::ParamValue<'_>) -> pat::Result<core::ops::Range<usize>> {
    let at = out.len();
    let start = at + 4;
    out.extend_from_slice(&[0; 4]);
    decode_public(value, out)?;
    let n = out.len() - start;
    let len = u32::try_from(n).map_err(|_| pat::Error::InvalidLength(pat::Field::Challenge))?;
    if let Some(head) = out.get_mut(at..start) {
        head.copy_from_slice(&len.to_be_bytes());
    }
    Ok(start..start + n)
}

/// An optional base64url parameter as an optional field (0, or 1 and the
/// field); returns the range of its bytes.
fn put_optional_decoded(
    out: &mut Vec<u8>,
    value: Option<&auth::ParamValue<'_>>,
) -> pat::Result<Option<core::ops::Range<usize>>> {
    match value {
        None => {
            out.push(0);
            Ok(None)
        }
        Some(v) => {
            out.push(1);
            put_decoded(out, v).map(Some)
        }
    }
}

/// The range of `part` inside `whole`, counted from `base`: `part` is a
/// sub-slice of `whole`, or empty (an empty field may be a slice of no
/// buffer at all, `&[]`: its range is then empty, at `base`).
fn range_in(base: usize, whole: &[u8], part: &[u8]) -> pat::Result<core::ops::Range<usize>> {
    if part.is_empty() {
        return Ok(base..base);
    }
    let from = (part.as_ptr() as usize).checked_sub(whole.as_ptr() as usize).ok_or(pat::Error::Truncated)?;
    let to = from.checked_add(part.len()).filter(|&to| to <= whole.len()).ok_or(pat::Error::Truncated)?;
    Ok(base + from..base + to)
}

/// Appends `out[field]` as a field: its length (u32), then the bytes.
fn put_within(out: &mut Vec<u8>, field: core::ops::Range<usize>) -> pat::Result<()> {
    if field.end > out.len() {
        return Err(pat::Error::Truncated);
    }
    let len = u32::try_from(field.len()).map_err(|_| pat::Error::InvalidLength(pat::Field::Challenge))?;
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_within(field);
    Ok(())
}

/// One challenge of [`challenges_packed`], appended to `out`, checked as
/// [`one_challenge`] checks it.
fn pack_one(c: pat::Result<auth::PrivateTokenChallenge<'_>>, out: &mut Vec<u8>) -> pat::Result<()> {
    let c = c?;
    let challenge = put_decoded(out, &c.challenge)?;
    let bytes = out.get(challenge.clone()).ok_or(pat::Error::Truncated)?;
    let is_arc = bytes.starts_with(&ARC.to_be_bytes());
    // The fields as ranges of `out` (the challenge was decoded there), so
    // that they can be copied from within it.
    let (token_type, fields, credential_context) = {
        let (parsed, credential_context) = crate::challenge::decode_any(bytes)?;
        let range = |part: &[u8]| range_in(challenge.start, bytes, part);
        (
            parsed.token_type(),
            [range(parsed.issuer_name())?, range(parsed.redemption_context())?, range(parsed.origin_info())?],
            credential_context.map(range).transpose()?,
        )
    };
    // In `one_challenge`'s order, so that both report the same first error.
    let rate_limit = if is_arc { c.decode_rate_limit()? } else { None };
    out.extend_from_slice(&token_type.to_be_bytes());
    for field in fields {
        put_within(out, field)?;
    }
    match credential_context {
        None => out.push(0),
        Some(field) => {
            out.push(1);
            put_within(out, field)?;
        }
    }
    put_optional_decoded(out, c.token_key.as_ref())?;
    match c.max_age {
        None => out.push(0),
        Some(m) => {
            out.push(1);
            out.extend_from_slice(&m.to_be_bytes());
        }
    }
    if let Some(range) = put_optional_decoded(out, c.extension_set.as_ref())? {
        ExtensionSet::decode(out.get(range).ok_or(pat::Error::Truncated)?)?;
    }
    if let Some(range) = put_optional_decoded(out, c.extensions.as_ref())? {
        Extensions::decode(out.get(range).ok_or(pat::Error::Truncated)?)?;
    }
    match rate_limit {
        None => out.push(0),
        Some(limit) => {
            out.push(1);
            out.extend_from_slice(&limit.to_be_bytes());
        }
    }
    Ok(())
}

/// [`challenges_packed`], for JavaScript.
#[wasm_bindgen(js_name = parseWwwAuthenticatePacked)]
pub fn parse_www_authenticate_packed(value: &str) -> Result<Vec<u8>, JsValue> {
    challenges_packed(value).map_err(js)
}

/// [`challenge_value_with`], for JavaScript (the last three arguments may be left out).
#[wasm_bindgen(js_name = writeWwwAuthenticate)]
pub fn write_www_authenticate(
    challenge: &[u8],
    token_key: Option<Vec<u8>>,
    max_age: Option<u32>,
    extension_set: Option<Vec<u8>>,
    extensions: Option<Vec<u8>>,
    rate_limit: Option<u64>,
) -> Result<String, JsValue> {
    challenge_value_with(
        challenge,
        token_key.as_deref(),
        max_age,
        extension_set.as_deref(),
        extensions.as_deref(),
        rate_limit,
    )
    .map_err(js)
}

/// [`check_token`], for JavaScript.
#[wasm_bindgen(js_name = checkToken)]
pub fn check_token_js(bytes: &[u8]) -> Result<(), JsValue> {
    check_token(bytes).map_err(js)
}

/// [`authorization_value`], for JavaScript.
#[wasm_bindgen(js_name = writeAuthorization)]
pub fn write_authorization(token: &[u8]) -> Result<String, JsValue> {
    authorization_value(token).map_err(js)
}

/// [`authorization_token`], for JavaScript.
#[wasm_bindgen(js_name = parseAuthorization)]
pub fn parse_authorization(value: &str) -> Result<Vec<u8>, JsValue> {
    authorization_token(value).map_err(js)
}

/// [`authorization_with_extensions_value`], for JavaScript.
#[wasm_bindgen(js_name = writeAuthorizationWithExtensions)]
pub fn write_authorization_with_extensions(token: &[u8], extensions: &[u8]) -> Result<String, JsValue> {
    authorization_with_extensions_value(token, extensions).map_err(js)
}

/// [`authorization_parts`], for JavaScript.
#[wasm_bindgen(js_name = parseAuthorizationParts)]
pub fn parse_authorization_parts(value: &str) -> Result<AuthorizationParts, JsValue> {
    authorization_parts(value).map_err(js)
}

/// [`token_parts`], for JavaScript.
#[wasm_bindgen(js_name = decodeToken)]
pub fn decode_token(bytes: &[u8]) -> Result<TokenParts, JsValue> {
    token_parts(bytes).map_err(js)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::challenge::build;
    use pat::{Error, Field};

    #[test]
    fn challenge_round_trip_with_and_without_key() {
        let challenge = build(2, b"issuer.example", &[], b"origin.example").unwrap();
        let one = challenge_value(&challenge, Some(&[1, 2, 3, 4]), Some(60), None, None).unwrap();
        let two = challenge_value(&challenge, None, None, None, None).unwrap();
        let both = format!("Basic realm=\"x\", {one}, {two}");
        let parsed = challenges(&both).unwrap();
        assert_eq!(parsed.len(), 2);
        assert_eq!(
            parsed[0],
            ChallengeHeader {
                challenge: challenge.clone(),
                token_key: Some(vec![1, 2, 3, 4]),
                max_age: Some(60),
                extension_set: None,
                extensions: None,
                rate_limit: None
            }
        );
        assert_eq!(
            parsed[1],
            ChallengeHeader {
                challenge,
                token_key: None,
                max_age: None,
                extension_set: None,
                extensions: None,
                rate_limit: None
            }
        );
        assert_eq!(challenges("Basic realm=\"x\"").unwrap(), []);
    }

    #[test]
    fn the_packed_challenges_hold_every_field() {
        let ctx = [9u8; 32];
        let challenge = build(0xDA7A, b"issuer.example", &ctx, b"a.example,b.example").unwrap();
        let set = crate::extension_set::build(&[2], &[1]).unwrap();
        let suggested = [0, 6, 0, 2, 0, 2, b'U', b'S'];
        let one = challenge_value(&challenge, Some(&[1, 2, 3]), Some(70_000), Some(&set), Some(&suggested)).unwrap();
        let two = challenge_value(&challenge, None, None, None, None).unwrap();
        let packed = challenges_packed(&format!("Basic realm=\"x\", {one}, {two}")).unwrap();
        let field = |want: &mut Vec<u8>, f: &[u8]| {
            want.extend_from_slice(&u32::try_from(f.len()).unwrap().to_be_bytes());
            want.extend_from_slice(f);
        };
        let mut want = vec![0, 0, 0, 2];
        for first in [true, false] {
            field(&mut want, &challenge);
            want.extend_from_slice(&[0xDA, 0x7A]);
            for f in [&b"issuer.example"[..], &ctx, b"a.example,b.example"] {
                field(&mut want, f);
            }
            // No credential_context (not an ARC challenge).
            want.push(0);
            if first {
                want.push(1);
                field(&mut want, &[1, 2, 3]);
                want.push(1);
                want.extend_from_slice(&70_000u32.to_be_bytes());
                want.push(1);
                field(&mut want, &set);
                want.push(1);
                field(&mut want, &suggested);
            } else {
                want.extend_from_slice(&[0, 0, 0, 0]);
            }
            // No rate-limit.
            want.push(0);
        }
        assert_eq!(packed, want);
        assert_eq!(challenges_packed("Basic realm=\"x\"").unwrap(), [0, 0, 0, 0]);
        assert_eq!(challenges_packed("PrivateToken challenge=\"!\"").err(), Some(Error::InvalidBase64));
    }

    #[test]
    fn a_malformed_challenge_is_skipped_unless_none_is_usable() {
        // Alone, each malformed challenge is the error of the value.
        assert_eq!(challenges("PrivateToken token-key=\"AAAA\""), Err(Error::MissingParameter(Field::Challenge)));
        // base64url of 3 bytes that are no TokenChallenge.
        assert_eq!(challenges("PrivateToken challenge=\"AAAA\""), Err(Error::Truncated));
        assert_eq!(challenges("PrivateToken challenge=\"A\""), Err(Error::InvalidBase64));
        // Beside a good one, skipped: before it, after it, and a broken tail.
        let good = challenge_value(&build(2, b"issuer.example", &[], b"").unwrap(), None, Some(5), None, None).unwrap();
        for value in [
            format!("PrivateToken challenge=\"AAAA\", {good}"),
            format!("{good}, PrivateToken challenge=\"AA\", max-age=\"4294967296\""),
            format!("{good}, PrivateToken challenge=\"unterminated"),
        ] {
            let parsed = challenges(&value).unwrap();
            assert_eq!(parsed.len(), 1, "{value}");
            assert_eq!(parsed[0].max_age, Some(5));
        }
    }

    #[test]
    fn challenge_extension_parameters_round_trip() {
        let challenge = build(0xDA7A, b"issuer.example", &[], b"").unwrap();
        let set = crate::extension_set::build(&[2], &[1]).unwrap();
        let suggested = [0, 6, 0, 2, 0, 2, b'U', b'S'];
        for (s, e) in [(Some(&set[..]), Some(&suggested[..])), (Some(&set[..]), None), (None, Some(&suggested[..]))] {
            let value = challenge_value(&challenge, Some(&[9; 8]), Some(30), s, e).unwrap();
            let parsed = challenges(&value).unwrap();
            assert_eq!(parsed.len(), 1);
            assert_eq!(parsed[0].extension_set.as_deref(), s, "{value}");
            assert_eq!(parsed[0].extensions.as_deref(), e, "{value}");
            let p = &parsed[0];
            let again = challenge_value(
                &p.challenge,
                p.token_key.as_deref(),
                p.max_age,
                p.extension_set.as_deref(),
                p.extensions.as_deref(),
            )
            .unwrap();
            assert_eq!(again, value);
        }
        let parsed = challenges(&challenge_value(&challenge, None, None, Some(&set), None).unwrap()).unwrap();
        let types = crate::extension_set::parts(parsed[0].extension_set.as_ref().unwrap()).unwrap();
        assert_eq!((types.required, types.optional), (vec![2], vec![1]));
        // What is written must be well formed.
        assert_eq!(
            challenge_value(&challenge, None, None, Some(&[0, 3, 2, 0, 1]), None),
            Err(Error::InvalidValue(Field::ExtensionSet))
        );
        assert_eq!(challenge_value(&challenge, None, None, None, Some(&[0, 1])), Err(Error::Truncated));
    }

    #[test]
    fn a_malformed_extension_parameter_is_the_challenge_error() {
        let challenge = build(0xDA7A, b"issuer.example", &[], b"").unwrap();
        let good = challenge_value(&challenge, None, None, None, None).unwrap();
        // is_required = 2, base64url of [0, 3, 2, 0, 1]; a repeated parameter;
        // a suggested list that is not sorted.
        for (extra, error) in [
            (", extension-set=\"AAMCAAE=\"", Error::InvalidValue(Field::ExtensionSet)),
            (", extension-set=\"AAA=\", extension-set=\"AAA=\"", Error::DuplicateParameter(Field::ExtensionSet)),
            (", extensions=\"AAgAAgAAAAEAAA==\"", Error::UnsortedExtensions),
            (", extension-set=\"A\"", Error::InvalidBase64),
        ] {
            let value = format!("{good}{extra}");
            assert_eq!(challenges(&value), Err(error), "{value}");
            // Beside a good challenge, skipped.
            assert_eq!(challenges(&format!("{value}, {good}")).unwrap().len(), 1);
        }
    }

    #[test]
    fn authorization_round_trip() {
        let mut token = vec![0u8, 2];
        token.extend([9u8; 96]);
        token.extend([8u8; 256]);
        let value = authorization_value(&token).unwrap();
        assert!(value.starts_with("PrivateToken token=\""));
        assert_eq!(authorization_token(&value).unwrap(), token);
        let p = token_parts(&token).unwrap();
        assert_eq!((p.token_type, p.nonce.len(), p.authenticator), (2, 32, vec![8u8; 256]));
        // A token one byte short of its type's authenticator: not written,
        // and not read either.
        assert_eq!(authorization_value(&token[..token.len() - 1]), Err(Error::Truncated));
        let mut unknown = token.clone();
        unknown[1] = 9;
        assert_eq!(authorization_value(&unknown), Err(Error::UnknownTokenType(9)));
        let short = auth::write_authorization(&token[..token.len() - 1], &mut [0u8; 600]).unwrap().to_owned();
        assert_eq!(authorization_token(&short), Err(Error::Truncated));
        assert_eq!(token_parts(&[0, 9, 0]), Err(Error::Truncated));
    }

    #[test]
    fn authorization_with_extensions_round_trips() {
        let token = {
            let mut t = vec![0xDA, 0x7A];
            t.extend_from_slice(&[5; 96]);
            t.extend_from_slice(&[6; 256]);
            t
        };
        let extensions = [0, 6, 0, 1, 0, 2, 7, 8];
        let value = authorization_with_extensions_value(&token, &extensions).unwrap();
        assert!(value.starts_with("PrivateToken token=\"") && value.contains(", extensions=\""), "{value}");
        let parts = authorization_parts(&value).unwrap();
        assert_eq!(parts.token, token);
        assert_eq!(parts.extensions.as_deref(), Some(&extensions[..]));
        // Without the parameter, and with malformed extensions.
        let plain = authorization_parts(&authorization_value(&token).unwrap()).unwrap();
        assert_eq!(plain.extensions, None);
        assert_eq!(authorization_with_extensions_value(&token, &[0, 9, 0]), Err(Error::Truncated));
        assert_eq!(authorization_with_extensions_value(&token[1..], &extensions), Err(Error::UnknownTokenType(0x7a05)));
    }

    #[test]
    fn arc_challenges_and_tokens() {
        use crate::challenge::build_with;
        let cc = [5u8; 32];
        let challenge = build_with(ARC, b"issuer.example", &[2; 32], b"origin.example", Some(&cc)).unwrap();
        let value = challenge_value_with(&challenge, Some(&[7; 99]), Some(60), None, None, Some(100)).unwrap();
        assert!(value.ends_with(", rate-limit=100"), "{value}");
        let parsed = challenges(&value).unwrap();
        assert_eq!(parsed.len(), 1);
        assert_eq!(parsed[0].rate_limit, Some(100));
        assert_eq!(parsed[0].challenge, challenge);
        // The packed form carries the credential context and the limit.
        let packed = challenges_packed(&value).unwrap();
        let mut tail = vec![1];
        tail.extend_from_slice(&100u64.to_be_bytes());
        assert!(packed.ends_with(&tail));
        let mut cc_field = vec![1, 0, 0, 0, 32];
        cc_field.extend_from_slice(&cc);
        assert!(packed.windows(cc_field.len()).any(|w| w == cc_field.as_slice()));

        // The rate limit exactly on ARC challenges, never with extensions.
        assert_eq!(
            challenge_value_with(&challenge, None, None, None, None, None),
            Err(Error::MissingParameter(Field::RateLimit))
        );
        let plain = build(2, b"issuer.example", &[], b"").unwrap();
        assert_eq!(
            challenge_value_with(&plain, None, None, None, None, Some(3)),
            Err(Error::InvalidValue(Field::RateLimit))
        );
        assert_eq!(
            challenge_value_with(&challenge, None, None, None, Some(&[0, 0]), Some(3)),
            Err(Error::InvalidValue(Field::RateLimit))
        );
        // Only limits a client can use.
        for limit in [0, 1, (1 << 32) + 1] {
            assert_eq!(
                challenge_value_with(&challenge, None, None, None, None, Some(limit)),
                Err(Error::InvalidValue(Field::PresentationLimit))
            );
        }
        assert!(challenge_value_with(&challenge, None, None, None, None, Some(1 << 32)).is_ok());
        // A rate-limit on another type's challenge is ignored; a malformed
        // one on an ARC challenge makes it unusable.
        let other = format!("{}, rate-limit=x", challenge_value(&plain, None, None, None, None).unwrap());
        assert_eq!(challenges(&other).unwrap()[0].rate_limit, None);
        let bad = value.replace("rate-limit=100", "rate-limit=1x");
        assert_eq!(challenges(&bad), Err(Error::InvalidValue(Field::RateLimit)));

        // ARC tokens in Authorization: any length a limit gives, no other.
        for limit in [2u64, 3, 100, 1 << 16, 1 << 32] {
            let len = arc_token_len(limit).unwrap();
            let mut token = vec![0u8; len];
            token[..2].copy_from_slice(&ARC.to_be_bytes());
            let header = authorization_value(&token).unwrap();
            assert_eq!(authorization_token(&header).unwrap(), token);
            assert_eq!(
                authorization_with_extensions_value(&token, &[0, 0]),
                Err(Error::InvalidValue(Field::Extensions))
            );
            assert_eq!(authorization_value(&token[..len - 1]), Err(Error::InvalidLength(Field::Token)));
            token.push(0);
            assert_eq!(authorization_value(&token), Err(Error::InvalidLength(Field::Token)));
        }
        assert_eq!(authorization_value(&ARC.to_be_bytes()), Err(Error::InvalidLength(Field::Token)));
    }

    /// The packed layout written from `challenges`' results field by field,
    /// as the first version of `challenges_packed` did.
    fn reference_packing(list: &[ChallengeHeader]) -> Vec<u8> {
        fn field(out: &mut Vec<u8>, b: &[u8]) {
            out.extend_from_slice(&u32::try_from(b.len()).unwrap().to_be_bytes());
            out.extend_from_slice(b);
        }
        fn optional(out: &mut Vec<u8>, b: Option<&[u8]>) {
            match b {
                None => out.push(0),
                Some(b) => {
                    out.push(1);
                    field(out, b);
                }
            }
        }
        let mut out = u32::try_from(list.len()).unwrap().to_be_bytes().to_vec();
        for c in list {
            let p = crate::challenge::parts(&c.challenge).unwrap();
            field(&mut out, &c.challenge);
            out.extend_from_slice(&p.token_type.to_be_bytes());
            for f in [&p.issuer_name, &p.redemption_context, &p.origin_info] {
                field(&mut out, f);
            }
            optional(&mut out, p.credential_context.as_deref());
            optional(&mut out, c.token_key.as_deref());
            match c.max_age {
                None => out.push(0),
                Some(m) => {
                    out.push(1);
                    out.extend_from_slice(&m.to_be_bytes());
                }
            }
            optional(&mut out, c.extension_set.as_deref());
            optional(&mut out, c.extensions.as_deref());
            match c.rate_limit {
                None => out.push(0),
                Some(l) => {
                    out.push(1);
                    out.extend_from_slice(&l.to_be_bytes());
                }
            }
        }
        out
    }

    #[test]
    fn the_packed_parse_agrees_with_the_plain_one() {
        let plain = challenge_value(
            &build(2, b"issuer.example", &[1; 32], b"o.example").unwrap(),
            Some(&[5; 9]),
            Some(9),
            None,
            None,
        )
        .unwrap();
        let arc = challenge_value_with(
            &crate::challenge::build_with(ARC, b"issuer.example", &[], b"", Some(&[3; 32])).unwrap(),
            None,
            None,
            None,
            None,
            Some(7),
        )
        .unwrap();
        for value in [
            plain.clone(),
            format!("{plain}, {arc}"),
            format!("PrivateToken challenge=\"AAAA\", {arc}"),
            format!("{arc}, PrivateToken challenge=\"unterminated"),
            "PrivateToken challenge=\"AAAA\"".to_owned(),
            "PrivateToken challenge=\"A\"".to_owned(),
            "Basic realm=\"x\"".to_owned(),
            arc.replace("rate-limit=7", "rate-limit=x"),
            // A malformed rate-limit and a malformed token-key: the same first error.
            format!("{}, token-key=\"!\"", arc.replace("rate-limit=7", "rate-limit=x")),
            challenge_value(
                &build(0xDA7A, b"i", &[], b"").unwrap(),
                None,
                Some(1),
                Some(&crate::extension_set::build(&[2], &[]).unwrap()),
                Some(&[0, 0]),
            )
            .unwrap(),
        ] {
            match (challenges(&value), challenges_packed(&value)) {
                (Ok(list), Ok(packed)) => assert_eq!(packed, reference_packing(&list), "{value}"),
                (Err(a), Err(b)) => assert_eq!(a, b, "{value}"),
                (a, b) => panic!("{value}: {a:?} against {b:?}"),
            }
        }
    }

    #[test]
    fn the_public_decoder_agrees_with_the_library() {
        // Random values over the alphabet, padding, other characters and
        // quoted-pair escapes: the same bytes or the same error.
        let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/\\ !";
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let mut agreed_ok = 0;
        for round in 0..20_000 {
            // Short values for the edge cases, and some as long as a token
            // key's (the decoder's unrolled loop takes 32 characters at a time).
            let len = usize::try_from(if round % 10 == 0 { next() % 640 } else { next() % 24 }).unwrap();
            let value: String = (0..len)
                .map(|_| {
                    // Mostly the base64url alphabet, so that valid values come up.
                    let pick = usize::try_from(next() % 1024).unwrap();
                    let n = if round % 2 == 0 { 64 } else { alphabet.len() };
                    char::from(alphabet[pick % n])
                })
                .collect();
            let header = format!("PrivateToken token=\"{}\"", value.replace('\\', "\\\\").replace('"', ""));
            let Ok(param) = auth::parse_authorization(&header) else { continue };
            let mut lib = vec![0u8; param.decoded_len_bound()];
            let library = param.decode_base64url(&mut lib).map(<[u8]>::to_vec);
            let mut ours = Vec::new();
            let public = decode_public(&param, &mut ours).map(|()| ours);
            assert_eq!(public, library, "{header}");
            agreed_ok += usize::from(library.is_ok());
        }
        assert!(agreed_ok > 1000, "only {agreed_ok} valid values drawn");
        // The edge cases by name: padding, a lone character, trailing bits.
        for (value, ok) in [("AA==", true), ("AAA=", true), ("AA=", false), ("A", false), ("AB", false), ("", true)] {
            let header = format!("PrivateToken token=\"{value}\"");
            let param = auth::parse_authorization(&header).unwrap();
            let mut out = Vec::new();
            assert_eq!(decode_public(&param, &mut out).is_ok(), ok, "{value}");
        }
    }
}
