//! The parser targets: arbitrary bytes go through one decoder, which must
//! not panic, and whatever decodes must re-encode to exactly the input.

use super::reencodes_to;
use crate::crypto::blind_rsa::{PublicKey, SecretKey};
use crate::crypto::rate_limited::{EncapKey, InnerTokenRequest};
use crate::tokens::amortized::{AmortizedTokenRequest, AmortizedTokenResponse};
use crate::tokens::batched::{GenericBatchTokenRequest, GenericBatchTokenResponse, Issuer};
use crate::tokens::private::{PrivateTokenType, TokenRequest as PrivateTokenRequest, TokenResponse as PrivateResponse};
use crate::tokens::public::{TokenRequest as PublicTokenRequest, TokenResponse as PublicResponse};
use crate::tokens::rate_limited::TokenRequest as RateLimitedTokenRequest;
use crate::wire::auth;
use crate::wire::challenge::{MAX_CHALLENGE_LEN, TokenChallenge};
use crate::wire::codec::{Decode, Encode, Reader, Writer};
use crate::wire::token::TokenRef;
use crate::wire::token_type::{PrivateP384, PrivateRistretto255};

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
/// a header that parses back to the same bytes, its extension parameters
/// (draft-ietf-privacypass-auth-scheme-extensions-03 §4) included, at exactly
/// the length [`auth::www_authenticate_with_extensions_len`] gives.
pub fn www_authenticate(data: &[u8]) {
    let Ok(header) = core::str::from_utf8(data) else { return };
    for c in auth::parse_www_authenticate(header).take(8) {
        let Ok(c) = c else { continue };
        let mut cbuf = [0u8; 256];
        let mut kbuf = [0u8; 256];
        let mut sbuf = [0u8; 256];
        let mut ebuf = [0u8; 256];
        let Ok(cb) = c.decode_challenge(&mut cbuf) else { continue };
        let kb = match c.token_key {
            Some(_) => match c.decode_token_key(&mut kbuf) {
                Ok(k) => Some(k),
                Err(_) => continue,
            },
            None => None,
        };
        let (Ok(set), Ok(ext)) = (c.decode_extension_set(&mut sbuf), c.decode_extensions(&mut ebuf)) else { continue };
        let len = auth::www_authenticate_with_extensions_len(
            cb.len(),
            kb.map(<[u8]>::len),
            c.max_age,
            set.map(|s| s.as_bytes().len()),
            ext.map(|e| e.as_bytes().len()),
        );
        let mut out = [0u8; 2048];
        let Some(out) = out.get_mut(..len) else { panic!("a rebuilt challenge is longer than 2048 bytes") };
        let rebuilt =
            match auth::write_www_authenticate_with_extensions(cb, kb, c.max_age, set.as_ref(), ext.as_ref(), out) {
                Ok(r) => r,
                Err(e) => panic!("writing into www_authenticate_with_extensions_len bytes failed: {e:?}"),
            };
        assert_eq!(rebuilt.len(), len);
        if let (Some(k), None, None) = (kb, set, ext) {
            // Without extension parameters it is what the plain builder writes.
            let mut plain = [0u8; 1024];
            assert_eq!(auth::write_www_authenticate(cb, k, c.max_age, &mut plain).ok(), Some(rebuilt));
        }
        let again = auth::parse_www_authenticate(rebuilt).next();
        let Some(Ok(again)) = again else { panic!("rebuilt header does not parse: {rebuilt}") };
        let mut cbuf2 = [0u8; 256];
        let mut kbuf2 = [0u8; 256];
        let mut sbuf2 = [0u8; 256];
        let mut ebuf2 = [0u8; 256];
        assert_eq!(again.decode_challenge(&mut cbuf2).ok(), Some(cb));
        assert_eq!(again.token_key.map(|_| again.decode_token_key(&mut kbuf2).ok()), kb.map(Some));
        assert_eq!(again.max_age, c.max_age);
        assert_eq!(again.decode_extension_set(&mut sbuf2).ok(), Some(set));
        assert_eq!(again.decode_extensions(&mut ebuf2).ok(), Some(ext));
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
/// Checks that `data` is `varint(body) ‖ body`, with `body` the concatenation of
/// what `entries` re-encode to (one entry at a time, into a small buffer).
fn check_framing(data: &[u8], count: usize, entries: impl Iterator<Item = ([u8; 300], usize)>) {
    let mut body = 0;
    let mut seen = 0;
    let mut chunks = [0u8; 8];
    let mut w = Writer::new(&mut chunks);
    let mut r = Reader::new(data);
    let Ok(total) = r.varint() else { panic!("a decoded batch has no varint") };
    let prefix = data.len() - r.remaining();
    assert_eq!(w.varint(total), Ok(()));
    let n = w.finish();
    assert_eq!(chunks.get(..n), data.get(..prefix), "non-minimal varint accepted");
    for (buf, n) in entries {
        let at = prefix + body;
        assert_eq!(buf.get(..n), data.get(at..at + n), "entry {seen} does not re-encode to its bytes");
        body += n;
        seen += 1;
    }
    assert_eq!(seen, count);
    assert_eq!(prefix + body, data.len());
    assert_eq!(u64::try_from(body).ok(), Some(total));
}

/// GenericBatchTokenRequest: decode → re-encode is the identity, entry by
/// entry; an issuer without keys answers with as many absent entries.
pub fn batch_request(data: &[u8]) {
    let Ok(batch) = GenericBatchTokenRequest::decode(data) else { return };
    assert_eq!(batch.encoded_len(), data.len());
    let entries = batch.iter().map(|e| {
        let Ok(e) = e else { panic!("a decoded batch yields an error") };
        let mut buf = [0u8; 300];
        let n = e.encode(&mut buf);
        assert_eq!(n.map(|n| n == e.encoded_len() && e.kind().request_len().admits(n)), Ok(true));
        (buf, n.unwrap_or_default())
    });
    check_framing(data, batch.len(), entries);
    let mut out = [0u8; 4200];
    if batch.max_response_len() <= out.len() {
        let outcome = Issuer::default().evaluate::<64, _>(&batch, &mut out, &mut NoRng);
        let Ok(outcome) = outcome else { panic!("a keyless issuer failed: {outcome:?}") };
        assert_eq!((outcome.issued, outcome.absent), (0, batch.len()));
        let response = out.get(..outcome.len).unwrap_or_default();
        let Ok(parsed) = GenericBatchTokenResponse::decode(response) else {
            panic!("all-absent response does not parse")
        };
        assert!(parsed.iter().all(|e| e == Ok(None)));
    }
}

/// GenericBatchTokenResponse: decode → re-encode is the identity, entry by entry.
pub fn batch_response(data: &[u8]) {
    let Ok(batch) = GenericBatchTokenResponse::decode(data) else { return };
    assert_eq!(batch.encoded_len(), data.len());
    let entries = batch.iter().map(|e| {
        let Ok(e) = e else { panic!("a decoded batch yields an error") };
        let mut buf = [0u8; 300];
        let n = match &e {
            None => 1,
            Some(r) => {
                let (presence, rest) = buf.split_at_mut(1);
                presence.fill(1);
                let n = r.encode(rest);
                assert_eq!(n, Ok(r.encoded_len()));
                1 + n.unwrap_or_default()
            }
        };
        (buf, n)
    });
    check_framing(data, batch.len(), entries);
}

/// A random number generator for code paths that must not draw (a keyless issuer).
struct NoRng;

impl rand_core::TryRng for NoRng {
    type Error = core::convert::Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        panic!("drew randomness")
    }

    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        panic!("drew randomness")
    }

    fn try_fill_bytes(&mut self, _: &mut [u8]) -> Result<(), Self::Error> {
        panic!("drew randomness")
    }
}

impl rand_core::TryCryptoRng for NoRng {}

/// Decodes `data` as `M` and, when it parses, checks that it re-encodes to
/// exactly the same bytes.
fn roundtrip<'a, M: Decode<'a> + Encode>(data: &'a [u8]) -> bool {
    let Ok(m) = M::decode(data) else { return false };
    let mut out = [0u8; 1024];
    let Some(out) = out.get_mut(..m.encoded_len()) else { return true };
    assert_eq!(m.encode(out), Ok(data.len()));
    assert_eq!(&*out, data);
    true
}

/// RSASSA-PSS SPKI: what parses is RFC 9578's 342 bytes, which re-encode to
/// themselves, or a spelling with NULL SHA-384 parameters (RFC 5754 §2; 344
/// or 346 bytes), which re-encodes to RFC 9578's form around the same
/// `RSAPublicKey` and parses back to the same modulus (another key: its key
/// id differs); either way the key id is SHA-256 of the input.
pub fn rsa_spki(data: &[u8]) {
    use sha2::{Digest, Sha256};

    /// The subjectPublicKey BIT STRING of an RSA-2048 SPKI, in bytes.
    const BITS_LEN: usize = 275;
    if let Ok(pk) = PublicKey::from_spki(data) {
        let spki = pk.to_spki_array();
        assert_eq!(pk.key_id(), &<[u8; 32]>::from(Sha256::digest(data)));
        match data.len() {
            342 => assert_eq!(spki.as_slice(), data),
            344 | 346 => {
                assert!(data.ends_with(spki.get(spki.len() - BITS_LEN..).unwrap_or_default()));
                // The same modulus under RFC 9578's spelling, whose key id
                // differs (so the keys are not equal).
                let back = PublicKey::from_spki(&spki).ok();
                assert_eq!(back.as_ref().map(PublicKey::modulus), Some(pk.modulus()));
                assert_ne!(back.as_ref(), Some(&pk));
            }
            len => panic!("a {len}-byte SPKI parsed"),
        }
    }
}

/// PKCS#8 RSA private keys: never panic; an accepted key's public half
/// round-trips through its SPKI.
pub fn rsa_pkcs8(data: &[u8]) {
    if let Ok(sk) = SecretKey::from_pkcs8_der(data) {
        let spki = sk.public_key().to_spki_array();
        assert_eq!(PublicKey::from_spki(&spki).ok().as_ref(), Some(sk.public_key()));
    }
}

/// Type 0x0001 / 0x0005 requests (the input's first byte picks request or
/// response): decode → encode is the identity.
pub fn private_request<T: PrivateTokenType>(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else { return };
    if which & 1 == 0 {
        roundtrip::<PrivateTokenRequest<T>>(rest);
    } else {
        roundtrip::<PrivateResponse<T>>(rest);
    }
}

/// Type 0x0002 requests and responses.
pub fn type2_request(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else { return };
    if which & 1 == 0 {
        roundtrip::<PublicTokenRequest>(rest);
    } else {
        roundtrip::<PublicResponse>(rest);
    }
}

/// Amortized requests and responses of both types (first byte: which).
pub fn amortized_request(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else { return };
    match which & 3 {
        0 => roundtrip::<AmortizedTokenRequest<'_, PrivateP384>>(rest),
        1 => roundtrip::<AmortizedTokenResponse<'_, PrivateP384>>(rest),
        2 => roundtrip::<AmortizedTokenRequest<'_, PrivateRistretto255>>(rest),
        _ => roundtrip::<AmortizedTokenResponse<'_, PrivateRistretto255>>(rest),
    };
}

/// Type 0x0001 requests and responses.
pub fn type1_request(data: &[u8]) {
    private_request::<PrivateP384>(data);
}

/// Type 0x0005 requests and responses.
pub fn type5_request(data: &[u8]) {
    private_request::<PrivateRistretto255>(data);
}

/// Issuer directory: a document that parses, re-written from its decoded
/// keys (those that decode), parses back to the same URI, types, keys and
/// not-befores; key selection never panics.
pub fn directory(data: &[u8]) {
    use crate::deploy::directory::{DirectoryEntry, IssuerDirectory, write_directory};
    let mut scratch = [0u8; 8192];
    let Ok(dir) = IssuerDirectory::<8>::parse(data, &mut scratch) else { return };
    for key in dir.keys() {
        let id = key.key_id().ok();
        let _ = dir.select(key.token_type(), id.as_ref(), key.not_before().unwrap_or(0));
        let _ = dir.select(key.token_type(), None, u64::MAX);
    }
    let mut bufs = [[0u8; 512]; 8];
    let mut entries = heapless::Vec::<DirectoryEntry<'_>, 8>::new();
    for (key, buf) in dir.keys().iter().zip(bufs.iter_mut()) {
        if let Ok(token_key) = key.decode_token_key(buf) {
            let entry = DirectoryEntry { token_type: key.token_type(), token_key, not_before: key.not_before() };
            assert!(entries.push(entry).is_ok());
        }
    }
    let mut out = [0u8; 16384];
    let Ok(text) = write_directory(dir.issuer_request_uri(), &entries, &mut out) else { return };
    let mut scratch2 = [0u8; 16384];
    let again = match IssuerDirectory::<8>::parse(text.as_bytes(), &mut scratch2) {
        Ok(d) => d,
        Err(e) => panic!("re-written directory does not parse ({e:?}): {text}"),
    };
    assert_eq!(again.issuer_request_uri(), dir.issuer_request_uri());
    assert_eq!(again.keys().len(), entries.len());
    for (got, want) in again.keys().iter().zip(&entries) {
        assert_eq!(got.token_type(), want.token_type);
        assert_eq!(got.not_before(), want.not_before);
        let mut buf = [0u8; 512];
        assert_eq!(got.decode_token_key(&mut buf).ok(), Some(want.token_key));
    }
}
