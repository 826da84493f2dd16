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

// ---- extension negotiation (draft-ietf-privacypass-auth-scheme-extensions-03 §4)

use crate::wire::extension_set::{ExtensionEntry, ExtensionSet, ExtensionSetWriter};
use crate::wire::extensions::{Extensions, ExtensionsWriter};

fn first(h: &str) -> Result<PrivateTokenChallenge<'_>> {
    parse_www_authenticate(h).next().unwrap()
}

fn set_of<'a>(buf: &'a mut [u8], entries: &[ExtensionEntry]) -> ExtensionSet<'a> {
    let mut w = ExtensionSetWriter::new(buf);
    for e in entries {
        w.push(*e).unwrap();
    }
    w.finish().unwrap()
}

fn b64(bytes: &[u8]) -> std::string::String {
    let mut out = [0u8; 256];
    let mut w = crate::wire::codec::Writer::new(&mut out);
    put_base64url(&mut w, bytes).unwrap();
    let n = w.finish();
    std::string::String::from_utf8(out[..n].to_vec()).unwrap()
}

#[test]
fn challenge_with_extension_parameters_round_trips() {
    let mut sbuf = [0u8; 32];
    let set = set_of(&mut sbuf, &[ExtensionEntry::required(2), ExtensionEntry::optional(1)]);
    let mut ebuf = [0u8; 32];
    let mut w = ExtensionsWriter::new(&mut ebuf);
    w.push(2, b"\x00\x02US").unwrap();
    let suggested = w.finish().unwrap();
    let challenge = [0xda, 0x7a, 0, 1, b'i', 0, 0, 0];
    let key = [5u8, 6, 7];
    for (token_key, max_age, with_set, with_ext) in [
        (Some(&key[..]), Some(60), true, true),
        (Some(&key[..]), None, true, false),
        (None, Some(1), false, true),
        (None, None, false, false),
    ] {
        let (set_arg, ext_arg) = (with_set.then_some(&set), with_ext.then_some(&suggested));
        let len = www_authenticate_with_extensions_len(
            challenge.len(),
            token_key.map(<[u8]>::len),
            max_age,
            set_arg.map(|s| s.as_bytes().len()),
            ext_arg.map(|e| e.as_bytes().len()),
        );
        let mut out = std::vec![0u8; len];
        let h =
            write_www_authenticate_with_extensions(&challenge, token_key, max_age, set_arg, ext_arg, &mut out).unwrap();
        assert_eq!(h.len(), len, "{h}");
        // parse → write → parse: the same parameters, byte for byte.
        let c = first(h).unwrap();
        assert_eq!(decode_all(c.challenge).unwrap(), challenge);
        assert_eq!(c.token_key.map(|k| decode_all(k).unwrap()), token_key.map(<[u8]>::to_vec));
        assert_eq!(c.max_age, max_age);
        let (mut sb, mut eb) = ([0u8; 64], [0u8; 64]);
        let parsed_set = c.decode_extension_set(&mut sb).unwrap();
        let parsed_ext = c.decode_extensions(&mut eb).unwrap();
        assert_eq!(parsed_set.as_ref(), set_arg);
        assert_eq!(parsed_ext.as_ref(), ext_arg);
        let mut out2 = std::vec![0u8; len];
        let (mut cb, mut kb) = ([0u8; 64], [0u8; 64]);
        let key2 = c.token_key.map(|k| k.decode_base64url(&mut kb).unwrap());
        let again = write_www_authenticate_with_extensions(
            c.decode_challenge(&mut cb).unwrap(),
            key2,
            c.max_age,
            parsed_set.as_ref(),
            parsed_ext.as_ref(),
            &mut out2,
        )
        .unwrap();
        assert_eq!(again, h);
        assert_eq!(
            write_www_authenticate_with_extensions(
                &challenge,
                token_key,
                max_age,
                set_arg,
                ext_arg,
                &mut out[..len - 1]
            ),
            Err(Error::BufferTooSmall)
        );
    }
    // The exact text, with the parameters in their place.
    let mut out = [0u8; 128];
    let h = write_www_authenticate_with_extensions(&[1, 2], Some(&[3]), None, Some(&set), Some(&suggested), &mut out)
        .unwrap();
    assert_eq!(
        h,
        "PrivateToken challenge=\"AQI=\", token-key=\"Aw==\", extension-set=\"AAYBAAIAAAE=\", \
         extensions=\"AAgAAgAEAAJVUw==\""
    );
    // Without extension parameters, the same as the plain builders.
    let mut plain = [0u8; 128];
    let mut ours = [0u8; 128];
    assert_eq!(
        write_www_authenticate_with_extensions(&[1], Some(&[2]), Some(9), None, None, &mut ours).unwrap(),
        write_www_authenticate(&[1], &[2], Some(9), &mut plain).unwrap()
    );
}

#[test]
fn extension_set_parameter_values() {
    // The empty set, each is_required value, the type boundaries; quoted,
    // bare, padded, unpadded, any parameter-name case.
    let cases: [(&[u8], &[ExtensionEntry]); 5] = [
        (&[0, 0], &[]),
        (&[0, 3, 0, 0, 1], &[ExtensionEntry::optional(1)]),
        (&[0, 3, 1, 0, 1], &[ExtensionEntry::required(1)]),
        (&[0, 6, 1, 0, 0, 0, 0xff, 0xff], &[ExtensionEntry::required(0), ExtensionEntry::optional(0xffff)]),
        (&[0, 6, 0, 0, 5, 1, 0, 5], &[ExtensionEntry::optional(5), ExtensionEntry::required(5)]),
    ];
    for (bytes, entries) in cases {
        let padded = b64(bytes);
        let unpadded = padded.trim_end_matches('=');
        for value in [std::format!("\"{padded}\""), std::format!("\"{unpadded}\""), unpadded.into()] {
            let h = std::format!("PrivateToken challenge=\"AQ==\", Extension-Set={value}, max-age=1");
            let c = first(&h).unwrap();
            let mut buf = [0u8; 16];
            let set = c.decode_extension_set(&mut buf).unwrap().unwrap();
            assert_eq!(set.as_bytes(), bytes, "{h}");
            assert_eq!(set.iter().collect::<Vec<_>>(), entries, "{h}");
            assert_eq!(c.max_age, Some(1));
        }
    }
    // Absent: None, not the empty set (the origin does not negotiate, §5).
    let c = first("PrivateToken challenge=\"AQ==\"").unwrap();
    assert_eq!((c.extension_set, c.extensions), (None, None));
    assert_eq!(c.decode_extension_set(&mut [0u8; 4]), Ok(None));
    assert_eq!(c.decode_extensions(&mut [0u8; 4]), Ok(None));
}

#[test]
fn malformed_extension_parameters_are_typed_errors() {
    fn set_error(value: &str) -> Error {
        let h = std::format!("PrivateToken challenge=\"AQ==\", extension-set={value}");
        first(&h).unwrap().decode_extension_set(&mut [0u8; 64]).unwrap_err()
    }
    fn ext_error(value: &str) -> Error {
        let h = std::format!("PrivateToken challenge=\"AQ==\", extensions={value}");
        first(&h).unwrap().decode_extensions(&mut [0u8; 64]).unwrap_err()
    }
    // Bad base64url: alphabet, padding, a lone character, non-canonical bits.
    for bad in ["\"AA*A\"", "\"AAM=A\"", "\"A\"", "\"AAN=\"", "\"AAMBAA+B\""] {
        assert_eq!(set_error(bad), Error::InvalidBase64, "{bad}");
        assert_eq!(ext_error(bad), Error::InvalidBase64, "{bad}");
    }
    // Truncated: no prefix, a prefix longer than what follows.
    assert_eq!(set_error(&b64(&[0])), Error::Truncated);
    assert_eq!(set_error(&b64(&[0, 6, 1, 0, 1])), Error::Truncated);
    assert_eq!(ext_error(&b64(&[0, 8, 0, 1, 0, 0])), Error::Truncated);
    // Not a whole number of entries.
    assert_eq!(set_error(&b64(&[0, 2, 1, 0])), Error::InvalidLength(Field::ExtensionSet));
    assert_eq!(set_error(&b64(&[0, 4, 1, 0, 1, 0])), Error::InvalidLength(Field::ExtensionSet));
    // is_required out of range.
    assert_eq!(set_error(&b64(&[0, 3, 2, 0, 1])), Error::InvalidValue(Field::ExtensionSet));
    assert_eq!(set_error(&b64(&[0, 3, 0xff, 0, 1])), Error::InvalidValue(Field::ExtensionSet));
    // Trailing bytes after the structure.
    assert_eq!(set_error(&b64(&[0, 3, 1, 0, 1, 0])), Error::TrailingBytes);
    assert_eq!(ext_error(&b64(&[0, 0, 0])), Error::TrailingBytes);
    // An unsorted Extensions list.
    assert_eq!(ext_error(&b64(&[0, 8, 0, 2, 0, 0, 0, 1, 0, 0])), Error::UnsortedExtensions);
    // Too small a buffer.
    let h = std::format!("PrivateToken challenge=\"AQ==\", extension-set=\"{}\"", b64(&[0, 3, 1, 0, 1]));
    assert_eq!(first(&h).unwrap().decode_extension_set(&mut [0u8; 4]), Err(Error::BufferTooSmall));
    // Repeated parameters (any case) make the challenge an error; a good
    // challenge after it still parses.
    let set = b64(&[0, 3, 1, 0, 1]);
    let ext = b64(&[0, 0]);
    for dup in [
        std::format!("PrivateToken challenge=\"AQ==\", extension-set=\"{set}\", EXTENSION-SET=\"{set}\""),
        std::format!("PrivateToken extension-set=\"{set}\", challenge=\"AQ==\", extension-set=\"AAA=\""),
    ] {
        assert_eq!(first(&dup), Err(Error::DuplicateParameter(Field::ExtensionSet)), "{dup}");
        let two = std::format!("{dup}, PrivateToken challenge=\"Ag==\"");
        let all: Vec<_> = parse_www_authenticate(&two).collect();
        assert_eq!(all.len(), 2);
        assert_eq!(decode_all(all[1].as_ref().unwrap().challenge).unwrap(), [2]);
    }
    let dup = std::format!("PrivateToken challenge=\"AQ==\", extensions=\"{ext}\", Extensions=\"{ext}\"");
    assert_eq!(first(&dup), Err(Error::DuplicateParameter(Field::Extensions)));
    // An extension parameter does not stand in for `challenge`.
    assert_eq!(
        first(&std::format!("PrivateToken extension-set=\"{set}\"")),
        Err(Error::MissingParameter(Field::Challenge))
    );
}

#[test]
fn unknown_parameters_beside_the_extension_ones_are_ignored() {
    let set = b64(&[0, 3, 1, 0, 2]);
    // Unknown names, names that only start like ours, and an unknown one
    // repeated: all ignored; the known ones still read.
    let h = std::format!(
        "PrivateToken challenge=\"AQ==\", extension-sets=\"!!\", extension=x, x-extensions=\"\", \
         extension-set=\"{set}\", future=1, future=2, extensions-ext=y"
    );
    let c = first(&h).unwrap();
    let mut buf = [0u8; 8];
    let parsed = c.decode_extension_set(&mut buf).unwrap().unwrap();
    assert_eq!(parsed.required().collect::<Vec<_>>(), [2]);
    assert_eq!(c.extensions, None);
    // Another scheme's `extension-set` is not ours.
    let h = std::format!("Other extension-set=\"!!\", PrivateToken challenge=\"AQ==\", extension-set=\"{set}\"");
    let found: Vec<_> = parse_www_authenticate(&h).collect::<Result<_>>().unwrap();
    assert_eq!(found.len(), 1);
    assert!(found[0].extension_set.is_some());
}

#[test]
fn the_challenge_extensions_parameter_reads_every_list() {
    let mut ebuf = [0u8; 32];
    let mut w = ExtensionsWriter::new(&mut ebuf);
    w.push(1, b"").unwrap();
    w.push(1, b"x").unwrap();
    w.push(0xffff, b"yz").unwrap();
    let list = w.finish().unwrap();
    for bytes in [&[0u8, 0][..], list.as_bytes()] {
        let h = std::format!("PrivateToken challenge=\"AQ==\", extensions=\"{}\"", b64(bytes));
        let mut buf = [0u8; 32];
        let parsed = first(&h).unwrap().decode_extensions(&mut buf).unwrap().unwrap();
        assert_eq!(parsed.as_bytes(), bytes);
    }
    assert_eq!(
        first("PrivateToken challenge=\"AQ==\", extensions=\"AAA=\"").unwrap().decode_extensions(&mut [0u8; 4]),
        Ok(Some(Extensions::EMPTY))
    );
}
