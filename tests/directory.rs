//! The issuer directory (RFC 9578 §4): documents in the shapes pat-go and
//! Cloudflare's issuer publish, write → parse round trips, key selection
//! across a rotation, and a typed error for every defect.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use base64ct::{Base64Url, Base64UrlUnpadded, Encoding};
use pat::deploy::directory::{DirectoryEntry, IssuerDirectory, MEDIA_TYPE, WELL_KNOWN_PATH, write_directory};
use pat::{Error, Field};
use sha2::{Digest, Sha256};

mod common;
use common::{field, load};

/// The type-2 token key (RSASSA-PSS SPKI) of the first pat-go vector.
fn type2_key() -> Vec<u8> {
    field(&load("pat-go/tokens/type2/type2-issuance-test-vectors.json")[0], "pkS")
}

/// The type-1 token key (compressed P-384 point) of the first pat-go vector.
fn type1_key() -> Vec<u8> {
    field(&load("pat-go/tokens/private/type1-issuance-test-vectors.json")[0], "pkS")
}

fn parse<const N: usize>(json: &str) -> Result<IssuerDirectory<'static, N>, Error> {
    // Leaked so the directory may borrow them for the test's lifetime.
    let json: &'static [u8] = json.as_bytes().to_vec().leak();
    let scratch: &'static mut [u8] = vec![0u8; json.len()].leak();
    IssuerDirectory::parse(json, scratch)
}

#[test]
fn constants() {
    assert_eq!(MEDIA_TYPE, "application/private-token-issuer-directory");
    assert_eq!(WELL_KNOWN_PATH, "/.well-known/private-token-issuer-directory");
}

#[test]
fn pat_go_style_directory() {
    // Go's encoding/json: compact, `&` as \u0026, padded base64url (URLEncoding).
    let k2 = type2_key();
    let json = format!(
        r#"{{"issuer-request-uri":"https://issuer.example/token-request?a=1\u0026b=2","token-keys":[{{"token-type":2,"token-key":"{}","not-before":1686913811}},{{"token-type":1,"token-key":"{}"}}]}}"#,
        Base64Url::encode_string(&k2),
        Base64Url::encode_string(&type1_key()),
    );
    let d = parse::<4>(&json).unwrap();
    assert_eq!(d.issuer_request_uri(), "https://issuer.example/token-request?a=1&b=2");
    assert_eq!(d.keys().len(), 2);
    let key = d.select(2, None, 1686913811).unwrap();
    assert_eq!(key.token_type(), 2);
    assert_eq!(key.not_before(), Some(1686913811));
    let mut buf = [0u8; 512];
    assert_eq!(key.decode_token_key(&mut buf).unwrap(), &k2[..]);
    let expected_id: [u8; 32] = Sha256::digest(&k2).into();
    assert_eq!(key.key_id().unwrap(), expected_id);
    // The key id is the one the type-2 client computes from the same key.
    let client = pat::tokens::public::Client::from_token_key(key.decode_token_key(&mut buf).unwrap()).unwrap();
    assert_eq!(client.key_id(), &expected_id);
    assert_eq!(d.select(2, None, 1686913810), Err(Error::KeyNotYetValid));
    assert_eq!(d.select(1, None, 0).unwrap().not_before(), None);
    assert_eq!(d.keys()[1].decode_token_key(&mut buf).unwrap(), &type1_key()[..]);
}

#[test]
fn cloudflare_style_directory() {
    // Pretty-printed, a relative request URI, two type-2 keys across a
    // rotation, unpadded base64url, an extra member.
    let old = type2_key();
    let mut new = type2_key();
    *new.last_mut().unwrap() ^= 1; // a different key text (not a valid SPKI; only hashed here)
    let json = format!(
        "{{\n  \"issuer-request-uri\": \"/token-request\",\n  \"token-keys\": [\n    {{\n      \"token-type\": 2,\n      \"token-key\": \"{}\",\n      \"not-before\": 1700000000\n    }},\n    {{\n      \"token-type\": 2,\n      \"token-key\": \"{}\",\n      \"not-before\": 1710000000\n    }}\n  ],\n  \"version\": \"v1\"\n}}\n",
        Base64UrlUnpadded::encode_string(&old),
        Base64UrlUnpadded::encode_string(&new),
    );
    let d = parse::<2>(&json).unwrap();
    assert_eq!(d.issuer_request_uri(), "/token-request");
    let old_id: [u8; 32] = Sha256::digest(&old).into();
    let new_id: [u8; 32] = Sha256::digest(&new).into();
    // Before the rotation the old key, after it the new one.
    assert_eq!(d.select(2, None, 1709999999).unwrap().key_id().unwrap(), old_id);
    assert_eq!(d.select(2, None, 1710000000).unwrap().key_id().unwrap(), new_id);
    // A client pinned to the old key keeps it after the rotation.
    assert_eq!(d.select(2, Some(&old_id), 1720000000).unwrap().key_id().unwrap(), old_id);
    assert_eq!(d.select(2, Some(&new_id), 1709999999), Err(Error::KeyNotYetValid));
    assert_eq!(d.select(2, Some(&[0; 32]), 1720000000), Err(Error::NoMatchingKey));
    assert_eq!(d.select(1, None, 1720000000), Err(Error::NoMatchingKey));
    assert_eq!(d.select(2, None, 1), Err(Error::KeyNotYetValid));
}

#[test]
fn round_trip() {
    let (k2, k1) = (type2_key(), type1_key());
    let keys = [
        DirectoryEntry { token_type: 2, token_key: &k2, not_before: Some(1686913811) },
        DirectoryEntry { token_type: 1, token_key: &k1, not_before: None },
        DirectoryEntry { token_type: 0xffff, token_key: &[], not_before: Some(u64::MAX) },
        DirectoryEntry { token_type: 0, token_key: &[1], not_before: Some(0) },
    ];
    for uri in ["https://issuer.example/request", "q\"uo\\te\n\u{1}\u{7f}&é/", "/r"] {
        let mut out = [0u8; 2048];
        let text = write_directory(uri, &keys, &mut out).unwrap().to_owned();
        let d = parse::<4>(&text).unwrap();
        assert_eq!(d.issuer_request_uri(), uri);
        assert_eq!(d.keys().len(), keys.len());
        for (got, want) in d.keys().iter().zip(&keys) {
            assert_eq!(got.token_type(), want.token_type);
            assert_eq!(got.not_before(), want.not_before);
            let mut buf = [0u8; 512];
            assert_eq!(got.decode_token_key(&mut buf).unwrap(), want.token_key);
            // Padded on the wire, as RFC 9578 §4 asks.
            assert_eq!(got.token_key_base64(), Base64Url::encode_string(want.token_key));
        }
        // Too small a buffer, at every length.
        for n in 0..text.len() {
            assert_eq!(write_directory(uri, &keys, &mut out[..n]), Err(Error::BufferTooSmall), "{n}");
        }
    }
    let mut out = [0u8; 64];
    assert_eq!(
        write_directory("https://i.example/", &[], &mut out).unwrap(),
        r#"{"issuer-request-uri":"https://i.example/","token-keys":[]}"#
    );
    assert_eq!(write_directory("", &[], &mut out), Err(Error::InvalidValue(Field::IssuerRequestUri)));
}

const KEY: &str = r#"{"token-type":2,"token-key":"AQID"}"#;

fn doc(keys: &str) -> String {
    format!(r#"{{"issuer-request-uri":"https://i.example/r","token-keys":[{keys}]}}"#)
}

#[test]
fn unknown_members_are_skipped() {
    for value in ["\"s\"", "-1.5e3", "{\"a\":[1,{\"b\":null}]}", "[[],[{}],\"x\"]", "null", "true", "false", "{}"] {
        let json = format!(
            r#"{{"x":{value},"issuer-request-uri":"https://i.example/r","y":{value},"token-keys":[{{"z":{value},"token-type":2,"w":{value},"token-key":"AQID","v":{value}}}],"u":{value}}}"#
        );
        let d = parse::<1>(&json).unwrap_or_else(|e| panic!("{json}: {e:?}"));
        assert_eq!(d.issuer_request_uri(), "https://i.example/r");
        assert_eq!(d.keys()[0].token_type(), 2);
        assert_eq!(d.keys()[0].token_key_base64(), "AQID");
        assert_eq!(d.keys()[0].not_before(), None);
    }
    // Members that look like known ones but are not (case matters).
    let d = parse::<1>(&doc(r#"{"Token-Type":"x","token-type":2,"token-key":"AQID","not-before ":-1}"#)).unwrap();
    assert_eq!(d.keys()[0].token_type(), 2);
}

#[test]
fn every_defect_is_a_typed_error() {
    use Error::*;
    let cases: &[(String, Error)] = &[
        // Not a directory.
        ("[]".into(), InvalidValue(Field::Directory)),
        ("\"x\"".into(), InvalidValue(Field::Directory)),
        ("".into(), Truncated),
        ("{".into(), Truncated),
        ("{]".into(), MalformedJson),
        ("{\"a\" 1}".into(), MalformedJson),
        ("{'a':1}".into(), MalformedJson),
        (doc(KEY) + "x", TrailingBytes),
        (doc(KEY) + "{}", TrailingBytes),
        (doc(&format!("{KEY},")), MalformedJson),
        // issuer-request-uri.
        (format!(r#"{{"token-keys":[{KEY}]}}"#), MissingParameter(Field::IssuerRequestUri)),
        (format!(r#"{{"issuer-request-uri":"","token-keys":[{KEY}]}}"#), InvalidValue(Field::IssuerRequestUri)),
        (format!(r#"{{"issuer-request-uri":1,"token-keys":[{KEY}]}}"#), InvalidValue(Field::IssuerRequestUri)),
        (format!(r#"{{"issuer-request-uri":null,"token-keys":[{KEY}]}}"#), InvalidValue(Field::IssuerRequestUri)),
        (
            format!(r#"{{"issuer-request-uri":"a","issuer-request-uri":"b","token-keys":[{KEY}]}}"#),
            DuplicateParameter(Field::IssuerRequestUri),
        ),
        // token-keys.
        (r#"{"issuer-request-uri":"a"}"#.into(), MissingParameter(Field::TokenKeys)),
        (r#"{"issuer-request-uri":"a","token-keys":{}}"#.into(), InvalidValue(Field::TokenKeys)),
        (r#"{"issuer-request-uri":"a","token-keys":null}"#.into(), InvalidValue(Field::TokenKeys)),
        (doc("1"), InvalidValue(Field::TokenKeys)),
        (doc("[]"), InvalidValue(Field::TokenKeys)),
        (
            format!(r#"{{"issuer-request-uri":"a","token-keys":[],"token-keys":[{KEY}]}}"#),
            DuplicateParameter(Field::TokenKeys),
        ),
        // token-type.
        (doc(r#"{"token-key":"AQID"}"#), MissingParameter(Field::TokenType)),
        (doc(r#"{"token-type":"2","token-key":"AQID"}"#), InvalidValue(Field::TokenType)),
        (doc(r#"{"token-type":2.0,"token-key":"AQID"}"#), InvalidValue(Field::TokenType)),
        (doc(r#"{"token-type":2e0,"token-key":"AQID"}"#), InvalidValue(Field::TokenType)),
        (doc(r#"{"token-type":-2,"token-key":"AQID"}"#), InvalidValue(Field::TokenType)),
        (doc(r#"{"token-type":-0,"token-key":"AQID"}"#), InvalidValue(Field::TokenType)),
        (doc(r#"{"token-type":65536,"token-key":"AQID"}"#), InvalidValue(Field::TokenType)),
        (doc(r#"{"token-type":null,"token-key":"AQID"}"#), InvalidValue(Field::TokenType)),
        (doc(r#"{"token-type":02,"token-key":"AQID"}"#), MalformedJson),
        (doc(r#"{"token-type":2,"token-type":2,"token-key":"AQID"}"#), DuplicateParameter(Field::TokenType)),
        // token-key.
        (doc(r#"{"token-type":2}"#), MissingParameter(Field::TokenKey)),
        (doc(r#"{"token-type":2,"token-key":1}"#), InvalidValue(Field::TokenKey)),
        (doc(r#"{"token-type":2,"token-key":null}"#), InvalidValue(Field::TokenKey)),
        (doc(r#"{"token-type":2,"token-key":["AQID"]}"#), InvalidValue(Field::TokenKey)),
        (doc(r#"{"token-type":2,"token-key":"AQID","token-key":"AQID"}"#), DuplicateParameter(Field::TokenKey)),
        // not-before.
        (doc(r#"{"token-type":2,"token-key":"AQID","not-before":-1}"#), InvalidValue(Field::NotBefore)),
        (doc(r#"{"token-type":2,"token-key":"AQID","not-before":1.5}"#), InvalidValue(Field::NotBefore)),
        (doc(r#"{"token-type":2,"token-key":"AQID","not-before":"1"}"#), InvalidValue(Field::NotBefore)),
        (doc(r#"{"token-type":2,"token-key":"AQID","not-before":true}"#), InvalidValue(Field::NotBefore)),
        (
            doc(r#"{"token-type":2,"token-key":"AQID","not-before":18446744073709551616}"#),
            InvalidValue(Field::NotBefore),
        ),
        (
            doc(r#"{"token-type":2,"token-key":"AQID","not-before":1,"not-before":1}"#),
            DuplicateParameter(Field::NotBefore),
        ),
        // Strings.
        (doc(r#"{"token-type":2,"token-key":"AQ\x"}"#), MalformedJson),
        (doc(r#"{"token-type":2,"token-key":"\ud800"}"#), MalformedJson),
        (doc("{\"token-type\":2,\"token-key\":\"AQ\tID\"}"), MalformedJson),
    ];
    for (json, want) in cases {
        assert_eq!(parse::<4>(json).err(), Some(*want), "{json}");
    }
    // Invalid UTF-8.
    let mut bytes = doc(KEY).into_bytes();
    bytes[30] = 0xff;
    assert_eq!(IssuerDirectory::<4>::parse(&bytes, &mut []).err(), Some(MalformedJson));
}

#[test]
fn not_before_null_is_absent_and_max_is_accepted() {
    let d = parse::<2>(&doc(
        r#"{"token-type":2,"token-key":"AQID","not-before":null},{"token-type":2,"token-key":"AQID","not-before":18446744073709551615}"#,
    ))
    .unwrap();
    assert_eq!(d.keys()[0].not_before(), None);
    assert_eq!(d.keys()[1].not_before(), Some(u64::MAX));
    assert_eq!(d.select(2, None, u64::MAX).unwrap().not_before(), Some(u64::MAX));
}

#[test]
fn bad_base64_is_found_on_use() {
    let d = parse::<3>(&doc(
        r#"{"token-type":2,"token-key":"A"},{"token-type":2,"token-key":"AQI"},{"token-type":2,"token-key":"AQI="}"#,
    ))
    .unwrap();
    let mut buf = [0u8; 8];
    assert_eq!(d.keys()[0].decode_token_key(&mut buf), Err(Error::InvalidBase64));
    assert_eq!(d.keys()[0].key_id(), Err(Error::InvalidBase64));
    // Unpadded and padded decode to the same bytes.
    assert_eq!(d.keys()[1].decode_token_key(&mut buf).unwrap(), &[1, 2]);
    assert_eq!(d.keys()[2].decode_token_key(&mut buf).unwrap(), &[1, 2]);
    assert_eq!(d.keys()[1].key_id(), d.keys()[2].key_id());
    assert_eq!(d.keys()[1].decode_token_key(&mut [0u8; 1]), Err(Error::BufferTooSmall));
    // A key that never decodes matches no key id.
    let id = d.keys()[1].key_id().unwrap();
    assert_eq!(d.select(2, Some(&id), 0).unwrap().token_key_base64(), "AQI");
    // Too long for key_id's buffer.
    let long = doc(&format!(r#"{{"token-type":2,"token-key":"{}"}}"#, Base64Url::encode_string(&[0u8; 513])));
    let d = parse::<1>(&long).unwrap();
    assert_eq!(d.keys()[0].key_id(), Err(Error::InvalidLength(Field::TokenKey)));
}

#[test]
fn escapes() {
    // `\/`, `\u0026`, an escaped key text and escaped member names.
    let json = r#"{"issuer\u002drequest-uri":"https:\/\/i.example\/r?a\u0026b","token-keys":[{"token-type":2,"token\u002Dkey":"AQ\u0049D"}]}"#;
    let mut scratch = [0u8; 64];
    let d = IssuerDirectory::<1>::parse(json.as_bytes(), &mut scratch).unwrap();
    assert_eq!(d.issuer_request_uri(), "https://i.example/r?a&b");
    assert_eq!(d.keys()[0].token_key_base64(), "AQID");
    // The unescaped strings need 27 bytes of scratch in all.
    let mut scratch = [0u8; 27];
    assert!(IssuerDirectory::<1>::parse(json.as_bytes(), &mut scratch).is_ok());
    let mut scratch = [0u8; 26];
    assert_eq!(IssuerDirectory::<1>::parse(json.as_bytes(), &mut scratch).err(), Some(Error::BufferTooSmall));
    // Without escapes no scratch is needed.
    assert!(IssuerDirectory::<1>::parse(doc(KEY).as_bytes(), &mut []).is_ok());
}

#[test]
fn capacity() {
    let keys = [KEY; 3].join(",");
    assert_eq!(parse::<3>(&doc(&keys)).unwrap().keys().len(), 3);
    assert_eq!(parse::<2>(&doc(&keys)).err(), Some(Error::CapacityExceeded));
    assert_eq!(parse::<0>(&doc(KEY)).err(), Some(Error::CapacityExceeded));
    assert_eq!(parse::<0>(&doc("")).unwrap().keys().len(), 0);
}

#[test]
fn every_prefix_is_truncated_and_whitespace_may_trail() {
    let json = r#" { "issuer-request-uri" : "https://i.example/r\u0026", "x": [true, {"y": -1.5e-3}], "token-keys" : [ {"token-type":2, "token-key":"AQID", "not-before":12} ] }"#;
    assert!(parse::<1>(json).is_ok());
    for n in 0..json.len() {
        assert_eq!(parse::<1>(&json[..n]).err(), Some(Error::Truncated), "{}", &json[..n]);
    }
    assert!(parse::<1>(&(json.to_owned() + " \n\t\r")).is_ok());
    // A multi-byte character cut off at the end is truncation too.
    let utf8 = doc(r#"{"token-type":2,"token-key":"AQID","n":"é"}"#);
    let cut = utf8.find('é').unwrap() + 1;
    assert_eq!(IssuerDirectory::<1>::parse(&utf8.as_bytes()[..cut], &mut []).err(), Some(Error::Truncated));
}
