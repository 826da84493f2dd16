//! The `PrivateToken` header parsers, base64url decoders and builders
//! against hand-written headers, and each builder against its parser.
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
    assert_eq!(first("PrivateToken challenge=AQ, token-key=AQ, max-age=1x"), Err(Error::InvalidValue(Field::MaxAge)));
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
    assert_eq!(parse_authorization("PrivateToken token=AQ, token=AQ"), Err(Error::DuplicateParameter(Field::Token)));
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
