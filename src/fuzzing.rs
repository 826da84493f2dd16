//! Properties checked by the cargo-fuzz targets in `fuzz/` (not a stable API).
//!
//! Each function takes arbitrary bytes and panics only if a property of the
//! library is violated: parsing never panics; whatever parses re-encodes to
//! the same bytes; what fails, fails with an error. The fuzz targets are
//! one-line shims into these functions, and `tests/fuzz_corpus.rs` replays the
//! committed seed corpus through them on every `cargo test`.
#![allow(clippy::panic, clippy::missing_panics_doc)]

use crate::auth;
use crate::challenge::{MAX_CHALLENGE_LEN, TokenChallenge};
use crate::codec::{Decode, Encode, Reader, Writer};
use crate::rate_limited::{EncapKey, InnerTokenRequest};
use crate::token::TokenRef;
use crate::types::rate_limited::TokenRequest as RateLimitedTokenRequest;

/// A property check over arbitrary input.
pub type Check = fn(&[u8]);

/// The fuzz targets, by name, for corpus replay.
pub const TARGETS: [(&str, Check); 8] = [
    ("challenge", challenge),
    ("token", token),
    ("www_authenticate", www_authenticate),
    ("authorization", authorization),
    ("varint", varint),
    ("type3_request", type3_request),
    ("encap_key", encap_key),
    ("inner_request", inner_request),
];

/// TokenChallenge: decode → encode is the identity; the digest is stable.
pub fn challenge(data: &[u8]) {
    if let Ok(c) = TokenChallenge::decode(data) {
        let mut out = [0u8; 2048];
        if let Some(out) = out.get_mut(..c.encoded_len()) {
            assert_eq!(c.encode(out), Ok(data.len()));
            assert_eq!(out, data);
        } else {
            assert!(c.encoded_len() <= MAX_CHALLENGE_LEN);
        }
        assert_eq!(
            c.origins().count(),
            if c.origin_info().is_empty() { 0 } else { c.origin_info().split(|&b| b == b',').count() }
        );
    }
}

/// Token: decode → encode is the identity.
pub fn token(data: &[u8]) {
    if let Ok(t) = TokenRef::decode(data) {
        let mut out = [0u8; 354];
        let n = t.encode(&mut out);
        assert_eq!(n, Ok(data.len()));
        assert_eq!(out.get(..data.len()), Some(data));
        assert_eq!(t.kind().token_len(), data.len());
    }
}

/// `WWW-Authenticate`: every PrivateToken challenge that decodes rebuilds into
/// a header that parses back to the same bytes.
pub fn www_authenticate(data: &[u8]) {
    let Ok(header) = core::str::from_utf8(data) else { return };
    for c in auth::parse_www_authenticate(header).take(8) {
        let Ok(c) = c else { continue };
        let mut cbuf = [0u8; 256];
        let mut kbuf = [0u8; 256];
        let (Ok(cb), Ok(kb)) = (c.decode_challenge(&mut cbuf), c.decode_token_key(&mut kbuf)) else { continue };
        let mut out = [0u8; 1024];
        let Ok(rebuilt) = auth::write_www_authenticate(cb, kb, c.max_age, &mut out) else { continue };
        let again = auth::parse_www_authenticate(rebuilt).next();
        let Some(Ok(again)) = again else { panic!("rebuilt header does not parse: {rebuilt}") };
        let mut cbuf2 = [0u8; 256];
        let mut kbuf2 = [0u8; 256];
        assert_eq!(again.decode_challenge(&mut cbuf2).ok(), Some(cb));
        assert_eq!(again.decode_token_key(&mut kbuf2).ok(), Some(kb));
        assert_eq!(again.max_age, c.max_age);
    }
}

/// `Authorization`: a token that decodes rebuilds into a header that parses back.
pub fn authorization(data: &[u8]) {
    let Ok(header) = core::str::from_utf8(data) else { return };
    let Ok(value) = auth::parse_authorization(header) else { return };
    let mut buf = [0u8; 512];
    let Ok(token) = value.decode_base64url(&mut buf) else { return };
    let mut out = [0u8; 1024];
    let Ok(rebuilt) = auth::write_authorization(token, &mut out) else { return };
    let mut buf2 = [0u8; 512];
    let again = auth::parse_authorization(rebuilt).and_then(|v| v.decode_base64url(&mut buf2).map(|t| t == token));
    assert_eq!(again, Ok(true), "{rebuilt}");
}

/// QUIC varints: a decoded value re-encodes to exactly the bytes consumed.
pub fn varint(data: &[u8]) {
    let mut r = Reader::new(data);
    while let Ok(v) = r.varint() {
        let consumed = data.len() - r.remaining();
        let mut out = [0u8; 8];
        let mut w = Writer::new(&mut out);
        assert_eq!(w.varint(v), Ok(()));
        let n = w.finish();
        let start = consumed.checked_sub(n).unwrap_or_else(|| panic!("re-encoding is longer"));
        assert_eq!(out.get(..n), data.get(start..consumed));
    }
}

/// Re-encodes `msg` and compares with `data` when it fits a 4 KiB buffer;
/// longer messages must at least report the input's length.
fn reencodes_to(msg: &impl Encode, data: &[u8]) {
    assert_eq!(msg.encoded_len(), data.len());
    let mut out = [0u8; 4096];
    if let Some(out) = out.get_mut(..data.len()) {
        assert_eq!(msg.encode(out), Ok(data.len()));
        assert_eq!(out, data);
    }
}

/// Type 0x0003 TokenRequest: decode → encode is the identity, and the signed
/// message digest is defined for whatever parses.
pub fn type3_request(data: &[u8]) {
    if let Ok(req) = RateLimitedTokenRequest::decode(data) {
        reencodes_to(&req, data);
        assert!(!req.encrypted_token_request.is_empty());
        assert!(req.message_digest().is_ok());
        // Verification may fail, but never panics.
        let _ = req.verify_signature();
    }
}

/// EncapKey: decode → encode is the identity (39 bytes, one suite).
pub fn encap_key(data: &[u8]) {
    if let Ok(key) = EncapKey::decode(data) {
        reencodes_to(&key, data);
        assert_eq!(key.to_bytes().as_slice(), data);
    }
}

/// InnerTokenRequest: decode → encode (re-padding the origin name) is the
/// identity, so the padding accepted is exactly the minimal padding.
pub fn inner_request(data: &[u8]) {
    if let Ok(inner) = InnerTokenRequest::decode(data) {
        reencodes_to(&inner, data);
        assert_ne!(inner.origin_name.last(), Some(&0));
    }
}
