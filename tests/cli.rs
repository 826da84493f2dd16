//! The `pat` command line as other people's scripts call it.
#![cfg(feature = "cli")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core
)]

use std::process::Command;

fn pat(args: &[&str]) -> (i32, String, String) {
    let out =
        Command::new(env!("CARGO_BIN_EXE_pat")).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

const TOKEN_FILE: &str = "tests/vectors/pat-go/tokens/token-test-vectors.json";

#[test]
fn verify_token_file() {
    let (code, out, _) = pat(&["vectors", "verify", TOKEN_FILE]);
    assert_eq!(code, 0);
    assert_eq!(out, format!("{TOKEN_FILE}: 5 passed, 0 failed\n"));
    let (code, out, _) = pat(&["vectors", "verify", "--kind", "token", TOKEN_FILE]);
    assert_eq!((code, out.ends_with("5 passed, 0 failed\n")), (0, true));
}

#[test]
fn altered_digit_exits_non_zero() {
    let text = std::fs::read_to_string(format!("{}/{TOKEN_FILE}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    // Flip one hex digit inside the first token_authenticator_input.
    let at = text.find("\"token_authenticator_input\":\"").unwrap() + 40;
    let mut bytes = text.into_bytes();
    bytes[at] = if bytes[at] == b'0' { b'1' } else { b'0' };
    let dir = std::env::temp_dir().join(format!("pat-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("altered.json");
    std::fs::write(&path, bytes).unwrap();
    let (code, out, err) = pat(&["vectors", "verify", path.to_str().unwrap()]);
    assert_ne!(code, 0);
    assert!(out.ends_with("4 passed, 1 failed\n"), "{out}");
    assert!(err.contains("case 0 failed"), "{err}");

    std::fs::write(&path, "[{\"token_authenticator_input\": 5}]").unwrap();
    let (code, _, err) = pat(&["vectors", "verify", path.to_str().unwrap()]);
    assert_ne!(code, 0);
    assert!(err.contains("case 0"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn generate_then_verify() {
    let dir = std::env::temp_dir().join(format!("pat-gen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("token.json");
    let (code, _, _) =
        pat(&["vectors", "generate", "--kind", "token", "--count", "7", "--out", path.to_str().unwrap()]);
    assert_eq!(code, 0);
    let (code, out, _) = pat(&["vectors", "verify", path.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.ends_with(": 7 passed, 0 failed\n"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unimplemented_kind_exits_non_zero() {
    // Any kind this build does not implement yet (none once all have landed).
    if let Some(kind) = pat::vectors::Kind::ALL.into_iter().find(|k| !k.is_implemented()) {
        let (code, _, err) = pat(&["vectors", "generate", "--kind", kind.name()]);
        assert_ne!(code, 0);
        assert!(err.contains("not implemented"), "{err}");
    }
    let (code, _, _) = pat(&["vectors", "verify", "--kind", "nonsense", TOKEN_FILE]);
    assert_ne!(code, 0);
}

#[test]
fn demo_runs() {
    let (code, out, _) = pat(&["demo"]);
    assert_eq!(code, 0);
    assert!(out.contains("WWW-Authenticate: PrivateToken challenge="), "{out}");
}
