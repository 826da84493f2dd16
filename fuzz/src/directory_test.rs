//! Runs [`directory_differential`] over the directory target's committed
//! corpus (`corpus/directory/`) and over hand-written inputs at the edges of
//! RFC 8259 and RFC 9578 §4, each with the outcome it must have; checks that
//! every [`Divergence`] rule is needed by some input.

use std::collections::BTreeSet;

use crate::directory::{Divergence, Outcome, RULES, directory_differential};

const URI: &str = r#""issuer-request-uri":"https://issuer.example/r""#;
const KEY: &str = r#"{"token-type":2,"token-key":"AQID"}"#;

/// A directory with the default URI and the given members of one key.
fn with_key(members: &str) -> String {
    format!(r#"{{{URI},"token-keys":[{{{members}}}]}}"#)
}

/// A directory with an extra top-level member `"x": value`.
fn with_member(value: &str) -> String {
    format!(r#"{{{URI},"x":{value},"token-keys":[{KEY}]}}"#)
}

/// `n` nested arrays.
fn nested(n: usize) -> String {
    "[".repeat(n) + &"]".repeat(n)
}

fn keys(n: usize) -> String {
    format!(r#"{{{URI},"token-keys":[{}]}}"#, vec![KEY; n].join(","))
}

#[test]
fn replay_directory_corpus() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/directory");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        let outcome = directory_differential(&std::fs::read(&path).unwrap());
        println!("{}: {outcome:?}", path.display());
        count += 1;
    }
    assert!(count >= 5, "only {count} seeds in {}", dir.display());
}

#[test]
fn tricky_inputs() {
    use Outcome::{BothAccept as Both, BothRefuseJson as Json, NotADirectory as Shape, PatOnly};
    let cases: Vec<(String, Outcome)> = vec![
        // Escapes: Go's `&` as \u0026, a surrogate pair, escaped names and keys.
        (r#"{"issuer-request-uri":"https://i.example/r?a=1\u0026b=2","token-keys":[]}"#.into(), Both),
        (r#"{"issuer-request-uri":"\ud83d\ude00 \u00E9 \u0000 \/","token-keys":[]}"#.into(), Both),
        (r#"{"issuer\u002drequest-uri":"a","token\u002dkeys":[]}"#.into(), Both),
        (with_key(r#""token-type":5,"token-key":"AQ\u0049D""#), Both),
        // Lone and unpaired surrogates, in a field and in a skipped member.
        (r#"{"issuer-request-uri":"\ud800","token-keys":[]}"#.into(), Json),
        (r#"{"issuer-request-uri":"\udc00","token-keys":[]}"#.into(), Json),
        (r#"{"issuer-request-uri":"\ud800\u0041","token-keys":[]}"#.into(), Json),
        (with_member(r#"["\ud83d"]"#), Json),
        (with_key(r#""token-type":2,"token-key":"AQID","\udfff":1"#), Json),
        // Unknown members, nested, at both levels; repeated unknown names.
        (with_member(r#"{"a":[1,{"b":null}],"c":true,"c":false}"#), Both),
        (with_key(r#""x":{"token-type":"no"},"token-type":2,"token-key":"AQID","y":[[],{}]"#), Both),
        // Numbers for token-type and not-before: only plain integers count.
        (with_key(r#""token-type":1e3,"token-key":"AQID""#), Shape("token-type not an integer")),
        (with_key(r#""token-type":-0,"token-key":"AQID""#), Shape("token-type not an integer")),
        (with_key(r#""token-type":1.0,"token-key":"AQID""#), Shape("token-type not an integer")),
        (with_key(r#""token-type":"2","token-key":"AQID""#), Shape("token-type not an integer")),
        (with_key(r#""token-type":65536,"token-key":"AQID""#), Shape("token-type above 65535")),
        (with_key(r#""token-type":18446744073709551616,"token-key":"AQID""#), Shape("token-type not an integer")),
        (with_key(r#""token-type":65535,"token-key":"","not-before":18446744073709551615"#), Both),
        (
            with_key(r#""token-type":2,"token-key":"AQID","not-before":18446744073709551616"#),
            Shape("not-before not a u64 or null"),
        ),
        (with_key(r#""token-type":2,"token-key":"AQID","not-before":-1"#), Shape("not-before not a u64 or null")),
        (with_key(r#""token-type":2,"token-key":"AQID","not-before":1e3"#), Shape("not-before not a u64 or null")),
        (with_key(r#""token-type":2,"token-key":"AQID","not-before":null"#), Both),
        (with_member("[0, -0, 1e3, 1E+3, -1.5e-7, 123456789012345678901234567890]"), Both),
        (with_member("1e-400"), Both),
        (with_member("1e400"), PatOnly(Divergence::NumberOutOfRange)),
        (with_member(&format!("-{}", "9".repeat(400))), PatOnly(Divergence::NumberOutOfRange)),
        (with_member("01"), Json),
        (with_member("-"), Json),
        // Whitespace: the four RFC 8259 characters only; no BOM.
        (format!(" \t\r\n{{ \"issuer-request-uri\" :\t\"a\"\r\n, \"token-keys\" : [ {KEY} ] }}\n\t "), Both),
        (format!("{{{URI},\x0c\"token-keys\":[]}}"), Json),
        (format!("\u{feff}{}", keys(1)), Json),
        (format!("{{{URI},\u{a0}\"token-keys\":[]}}"), Json),
        // Extensions some parsers allow.
        (format!(r#"{{{URI},"token-keys":[{KEY},]}}"#), Json),
        (format!(r#"{{{URI},"token-keys":[{KEY}],}}"#), Json),
        (format!(r#"{{{URI},/* c */"token-keys":[]}}"#), Json),
        (format!("{{{URI},\"token-keys\":[] // c\n}}"), Json),
        (with_member("NaN"), Json),
        (with_member("Infinity"), Json),
        (with_member("'a'"), Json),
        (format!("{} {{}}", keys(1)), Json),
        (format!("{}\0", keys(1)), Json),
        // Strings: raw control characters and invalid UTF-8.
        (format!("{{{URI},\"x\":\"a\tb\",\"token-keys\":[]}}"), Json),
        // Shape: duplicates (escaped or not), capacity, missing and empty fields.
        (format!(r#"{{{URI},{URI},"token-keys":[]}}"#), Shape("repeated issuer-request-uri")),
        (with_key(r#""token-type":2,"token\u002dtype":2,"token-key":"AQID""#), Shape("repeated token-type")),
        (
            with_key(r#""token-type":2,"token-key":"AQID","not-before":null,"not-before":null"#),
            Shape("repeated not-before"),
        ),
        (format!(r#"{{{URI},"token-keys":[],"token-keys":[]}}"#), Shape("repeated token-keys")),
        (keys(16), Both),
        (keys(17), Shape("more keys than the capacity")),
        (with_key(r#""token-type":2"#), Shape("no token-key")),
        (r#"{"issuer-request-uri":"","token-keys":[]}"#.into(), Shape("issuer-request-uri not a non-empty string")),
        (format!("{{{URI}}}"), Shape("no token-keys")),
        (format!("[{}]", keys(1)), Shape("not an object")),
        (format!(r#"{{{URI},"token-keys":[[]]}}"#), Shape("a token-keys entry is not an object")),
        // Depth: serde_json stops at 127 levels, pat skips 128 below a member.
        (with_member(&nested(126)), Both),
        (with_member(&nested(127)), PatOnly(Divergence::DeepNesting)),
        (with_member(&nested(128)), PatOnly(Divergence::DeepNesting)),
        (with_member(&nested(129)), Json),
        (
            with_key(&format!(r#""token-type":2,"token-key":"AQID","x":{}"#, nested(128))),
            PatOnly(Divergence::DeepNesting),
        ),
    ];
    let mut rules = BTreeSet::new();
    for (input, want) in &cases {
        let got = directory_differential(input.as_bytes());
        assert_eq!(&got, want, "{input}");
        if let Outcome::PatOnly(rule) = got {
            rules.insert(rule);
        }
    }
    // Invalid UTF-8 inside a string, which a `String` cannot hold.
    let mut bad = keys(1).into_bytes();
    bad.splice(2..2, *b"\xff\xfe");
    assert_eq!(directory_differential(&bad), Outcome::BothRefuseJson);
    println!("{} hand-written inputs", cases.len() + 1);
    for rule in RULES {
        assert!(rules.contains(&rule), "no input exercises the divergence rule {rule:?}");
    }
}
