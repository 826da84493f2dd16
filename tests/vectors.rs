//! pat-go's vector files through the library's harness: every case of every
//! implemented kind must pass, and the counts are asserted so that nothing is
//! skipped silently.
#![cfg(feature = "vectors")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core
)]

use pat::vectors::{self, Kind, VectorError};

fn load(path: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(format!("{}/tests/vectors/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    vectors::parse(&text).unwrap()
}

/// Every pat-go file of a kind this build implements, with its case count.
const FILES: &[(&str, Kind, usize)] = &[
    ("pat-go/tokens/token-test-vectors.json", Kind::Token, 5),
    ("pat-go/tokens/private/type1-issuance-test-vectors.json", Kind::Type1, 5),
    ("pat-go/tokens/private/type1-issuance-test-vectors.rust.json", Kind::Type1, 5),
    ("pat-go/tokens/private/type5-issuance-test-vectors.json", Kind::Type5, 5),
    ("pat-go/tokens/private/type5-issuance-test-vectors.rust.json", Kind::Type5, 5),
    ("pat-go/tokens/type2/type2-issuance-test-vectors.json", Kind::Type2, 5),
    ("pat-go/tokens/amortized/type1-issuance-test-vectors.json", Kind::AmortizedType1, 5),
    ("pat-go/tokens/amortized/type1-issuance-test-vectors.rust.json", Kind::AmortizedType1, 5),
    ("pat-go/tokens/amortized/type5-issuance-test-vectors.json", Kind::AmortizedType5, 5),
    ("pat-go/tokens/amortized/type5-issuance-test-vectors.rust.json", Kind::AmortizedType5, 5),
    ("pat-go/tokens/type2/type2-issuance-test-vectors.rust.json", Kind::Type2, 5),
    ("pat-go/tokens/batched/batched-issuance-test-vectors.json", Kind::Batched, 5),
    ("pat-go/tokens/batched/batched-issuance-test-vectors.rust.json", Kind::Batched, 2),
];

#[test]
fn pat_go_files_pass_with_exact_counts() {
    for &(path, kind, count) in FILES {
        let file = load(path);
        assert_eq!(Kind::detect(&file), Some(kind), "{path}");
        let report = vectors::verify(kind, &file).unwrap();
        assert_eq!(report.failures, [], "{path}");
        assert_eq!(report.passed, count, "{path}");
    }
}

#[test]
fn every_pat_go_file_is_detected() {
    let expected = [
        ("pat-go/tokens/private/type1-issuance-test-vectors.json", Kind::Type1),
        ("pat-go/tokens/private/type1-issuance-test-vectors.rust.json", Kind::Type1),
        ("pat-go/tokens/private/type5-issuance-test-vectors.json", Kind::Type5),
        ("pat-go/tokens/private/type5-issuance-test-vectors.rust.json", Kind::Type5),
        ("pat-go/tokens/type2/type2-issuance-test-vectors.json", Kind::Type2),
        ("pat-go/tokens/type2/type2-issuance-test-vectors.rust.json", Kind::Type2),
        ("pat-go/tokens/amortized/type1-issuance-test-vectors.json", Kind::AmortizedType1),
        ("pat-go/tokens/amortized/type1-issuance-test-vectors.rust.json", Kind::AmortizedType1),
        ("pat-go/tokens/amortized/type5-issuance-test-vectors.json", Kind::AmortizedType5),
        ("pat-go/tokens/amortized/type5-issuance-test-vectors.rust.json", Kind::AmortizedType5),
        ("pat-go/tokens/batched/batched-issuance-test-vectors.json", Kind::Batched),
        ("pat-go/tokens/batched/batched-issuance-test-vectors.rust.json", Kind::Batched),
        ("pat-go/tokens/type3/type3-anon-origin-id-test-vectors.json", Kind::Type3AnonOriginId),
        ("pat-go/tokens/type3/type3-ecdsa-blinding-test-vectors.json", Kind::Type3EcdsaBlinding),
        ("pat-go/tokens/type3/type3-ed25519-blinding-test-vectors.json", Kind::Type3Ed25519Blinding),
        ("pat-go/tokens/type3/type3-origin-encryption-test-vectors.json", Kind::Type3OriginEncryption),
        ("pat-go/tokens/token-test-vectors.json", Kind::Token),
    ];
    for (path, kind) in expected {
        assert_eq!(Kind::detect(&load(path)), Some(kind), "{path}");
    }
}

#[test]
fn an_altered_digit_fails_the_case() {
    let mut file = load("pat-go/tokens/token-test-vectors.json");
    let input = file[2]["token_authenticator_input"].as_str().unwrap().to_owned();
    let flipped = if input.ends_with('0') { "1" } else { "0" };
    file[2]["token_authenticator_input"] = format!("{}{flipped}", &input[..input.len() - 1]).into();
    let report = vectors::verify(Kind::Token, &file).unwrap();
    assert_eq!((report.passed, report.failed()), (4, 1));
    assert_eq!(report.failures[0].case, 2);
    assert!(!report.ok());

    // An altered nonce changes the computed input: also a failure.
    let mut file = load("pat-go/tokens/token-test-vectors.json");
    file[0]["nonce"] = "00".repeat(32).into();
    assert_eq!(vectors::verify(Kind::Token, &file).unwrap().failed(), 1);
}

#[test]
fn malformed_fields_name_the_case_and_field() {
    let mut file = load("pat-go/tokens/token-test-vectors.json");
    file[3]["nonce"] = "zz".into();
    match vectors::verify(Kind::Token, &file) {
        Err(VectorError::Field { case: 3, field, .. }) => assert_eq!(field, "nonce"),
        other => panic!("{other:?}"),
    }
    let mut file = load("pat-go/tokens/token-test-vectors.json");
    file[1].as_object_mut().unwrap().remove("token_key_id");
    assert!(matches!(vectors::verify(Kind::Token, &file), Err(VectorError::Field { case: 1, .. })));
    let mut file = load("pat-go/tokens/token-test-vectors.json");
    file[0]["nonce"] = "00".into();
    assert!(matches!(vectors::verify(Kind::Token, &file), Err(VectorError::Field { case: 0, .. })));
    assert!(matches!(vectors::verify(Kind::Token, &serde_json::json!({})), Err(VectorError::Format(_))));
    assert!(matches!(vectors::verify(Kind::Token, &serde_json::json!([1])), Err(VectorError::Format(_))));
    assert!(vectors::parse("[{").is_err());
}

#[test]
fn empty_file_is_not_ok() {
    let report = vectors::verify(Kind::Token, &serde_json::json!([])).unwrap();
    assert_eq!(report.total(), 0);
    assert!(!report.ok());
}

#[test]
fn generated_vectors_verify() {
    for kind in Kind::ALL.into_iter().filter(|k| k.is_implemented()) {
        let file = vectors::generate(kind, 12).unwrap();
        assert_eq!(Kind::detect(&file), Some(kind));
        let report = vectors::verify(kind, &file).unwrap();
        assert_eq!((report.passed, report.failed()), (12, 0), "{kind}");
    }
}

#[test]
fn unimplemented_kinds_say_so() {
    for kind in Kind::ALL.into_iter().filter(|k| !k.is_implemented()) {
        assert_eq!(vectors::generate(kind, 1), Err(VectorError::Unsupported(kind)));
        assert_eq!(vectors::verify(kind, &serde_json::json!([{}])), Err(VectorError::Unsupported(kind)));
    }
}
