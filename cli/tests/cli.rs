//! The `pat` command line as other people's scripts call it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core
)]

use std::process::Command;

fn pat(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pat")).args(args).current_dir(root()).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

/// The workspace root, where the vector paths of the README start.
fn root() -> String {
    format!("{}/..", env!("CARGO_MANIFEST_DIR"))
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
    let text = std::fs::read_to_string(format!("{}/{TOKEN_FILE}", root())).unwrap();
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
fn unknown_kind_exits_non_zero() {
    let (code, _, err) = pat(&["vectors", "verify", "--kind", "nonsense", TOKEN_FILE]);
    assert_ne!(code, 0);
    assert!(err.contains("unknown kind"), "{err}");
    // A file of one kind checked as another fails with a field error.
    let (code, _, err) = pat(&["vectors", "verify", "--kind", "type1", TOKEN_FILE]);
    assert_ne!(code, 0);
    assert!(err.contains("error"), "{err}");
}

/// Every pat-go file, with the schema detected, through the command line.
#[test]
fn verify_every_pat_go_file() {
    let files = [
        ("tokens/token-test-vectors.json", 5),
        ("tokens/private/type1-issuance-test-vectors.json", 5),
        ("tokens/private/type1-issuance-test-vectors.rust.json", 5),
        ("tokens/private/type5-issuance-test-vectors.json", 5),
        ("tokens/private/type5-issuance-test-vectors.rust.json", 5),
        ("tokens/type2/type2-issuance-test-vectors.json", 5),
        ("tokens/type2/type2-issuance-test-vectors.rust.json", 5),
        ("tokens/amortized/type1-issuance-test-vectors.json", 5),
        ("tokens/amortized/type1-issuance-test-vectors.rust.json", 5),
        ("tokens/amortized/type5-issuance-test-vectors.json", 5),
        ("tokens/amortized/type5-issuance-test-vectors.rust.json", 5),
        ("tokens/batched/batched-issuance-test-vectors.json", 5),
        ("tokens/batched/batched-issuance-test-vectors.rust.json", 2),
        ("tokens/type3/type3-ecdsa-blinding-test-vectors.json", 2),
        ("tokens/type3/type3-ed25519-blinding-test-vectors.json", 4),
        ("tokens/type3/type3-origin-encryption-test-vectors.json", 1),
        ("tokens/type3/type3-anon-origin-id-test-vectors.json", 1),
    ];
    verify_files("tests/vectors/pat-go", &files);
}

/// `pat vectors verify` over every file of `dir` in one call: exit 0 and one
/// line `FILE: N passed, 0 failed` per file, in order.
fn verify_files(dir: &str, files: &[(&str, usize)]) {
    let paths: Vec<String> = files.iter().map(|(f, _)| format!("{dir}/{f}")).collect();
    let mut args = vec!["vectors", "verify"];
    args.extend(paths.iter().map(String::as_str));
    let (code, out, err) = pat(&args);
    assert_eq!(code, 0, "{out}{err}");
    let expected: String = paths.iter().zip(files).map(|(p, (_, n))| format!("{p}: {n} passed, 0 failed\n")).collect();
    assert_eq!(out, expected);
}

#[test]
fn generate_every_kind_then_verify() {
    let dir = std::env::temp_dir().join(format!("pat-kinds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Not the partially blind RSA kinds: each draws a safe-prime key, which
    // takes a random and often long time (tens of seconds, the longest test
    // of the workspace); the harness's own test generates them
    // (vectors/tests/vectors.rs), and the command dispatches every kind the
    // same way, which the other kinds show.
    let kinds = pat_vectors::Kind::ALL
        .into_iter()
        .filter(|k| !matches!(k, pat_vectors::Kind::Pbrsa | pat_vectors::Kind::TypeDa7a));
    for kind in kinds {
        let path = dir.join(format!("{}.json", kind.name()));
        // An arc file is one suite: its six groups; an athm file one run
        // of its six procedures.
        let count = match kind {
            pat_vectors::Kind::Arc | pat_vectors::Kind::Athm => 6,
            _ => 2,
        };
        let (code, _, err) = pat(&[
            "vectors",
            "generate",
            "--kind",
            kind.name(),
            "--count",
            &count.to_string(),
            "--out",
            path.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{kind}: {err}");
        let (code, out, err) = pat(&["vectors", "verify", path.to_str().unwrap()]);
        assert_eq!(code, 0, "{kind}: {out}{err}");
        assert!(out.ends_with(&format!(": {count} passed, 0 failed\n")), "{kind}: {out}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The ARC draft's vectors through the command line, and an arc file made
/// with the default count (the suite's six groups).
#[test]
fn verify_arc_files() {
    verify_files("tests/vectors/arc", &[("draft-ietf-privacypass-arc-crypto-01.json", 6)]);
    let dir = std::env::temp_dir().join(format!("pat-arc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("arc.json");
    let (code, _, err) = pat(&["vectors", "generate", "--kind", "arc", "--out", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = pat(&["vectors", "verify", "--kind", "arc", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.ends_with(": 6 passed, 0 failed\n"), "{out}");
    let (code, _, err) = pat(&["vectors", "generate", "--kind", "arc", "--count", "5"]);
    assert_ne!(code, 0);
    assert!(err.contains("one suite of 6 cases"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The opaque-name files through the command line, as other people's
/// scripts would run them.
#[test]
fn verify_opaque_name_files() {
    let files = [
        ("token-test-vectors.json", 20),
        ("type1-issuance-test-vectors.json", 5),
        ("type2-issuance-test-vectors.json", 5),
        ("type5-issuance-test-vectors.json", 5),
    ];
    verify_files("tests/vectors/opaque-names", &files);
}

/// pat's own type 0xDA7B file through the command line, detected by its
/// fields.
#[test]
fn verify_pat_files() {
    verify_files("tests/vectors/pat", &[("type-da7b-issuance-test-vectors.json", 5)]);
}

/// An absurd `--count` is refused with a message, before any allocation
/// (it used to reserve the capacity: a panic for 2^64 − 1, an abort for 10^11).
#[test]
fn generate_refuses_huge_counts() {
    for count in ["18446744073709551615", "100000000000", "100001"] {
        let (code, out, err) = pat(&["vectors", "generate", "--kind", "type1", "--count", count]);
        assert_eq!(code, 1, "{count}: {out}{err}");
        assert!(out.is_empty(), "{count}: {out}");
        assert!(err.contains("above the limit of 100000 cases"), "{count}: {err}");
        assert!(!err.contains("panicked"), "{count}: {err}");
    }
    let (code, out, err) = pat(&["vectors", "generate", "--kind", "token", "--count", "0"]);
    assert_eq!((code, out.trim()), (0, "[]"), "{err}");
}

#[test]
fn demo_runs() {
    let (code, out, _) = pat(&["demo"]);
    assert_eq!(code, 0);
    assert!(out.contains("WWW-Authenticate: PrivateToken challenge="), "{out}");
    // Type 0xE5AC: one credential, three tokens redeemed, the fourth cannot
    // be made, a replay is refused. Sizes from the ARC drafts: a request is
    // the type, the truncated key id and 2 elements + 5 scalars (229 bytes);
    // a response 6 elements + 8 scalars (454); a token of limit 3 (a range
    // proof over 2 bases) the 70-byte header, 5 + 2 elements and
    // 1 + 5 + 3·2 scalars (70 + 231 + 384 = 685).
    let row = out.lines().find(|l| l.starts_with("0xe5ac arc (limit 3)")).unwrap_or_else(|| panic!("{out}"));
    let fields: Vec<&str> = row["0xe5ac arc (limit 3)".len()..].split_whitespace().collect();
    assert_eq!(fields.len(), 7, "{row}");
    assert_eq!(fields[..3], ["229", "454", "685"], "{row}");
    for t in &fields[3..] {
        assert!(t.parse::<f64>().unwrap() > 0.0, "{row}");
    }
    assert!(
        out.contains(
            "0xe5ac arc: one credential, 3 tokens redeemed; token 4 refused (presentation limit reached); \
             a replayed token refused (replayed)"
        ),
        "{out}"
    );
    // Type 0xDA7B: the type 0x0001 request with the fixture's 32-byte
    // extensions list (2 + 1 + 49 + 32), the type 0x0001 response and token.
    let row = out.lines().find(|l| l.starts_with("0xda7b POPRF(P-384, SHA-384)")).unwrap_or_else(|| panic!("{out}"));
    let fields: Vec<&str> = row["0xda7b POPRF(P-384, SHA-384)".len()..].split_whitespace().collect();
    assert_eq!(fields.len(), 7, "{row}");
    assert_eq!(fields[..3], ["84", "145", "146"], "{row}");
    for t in &fields[3..] {
        assert!(t.parse::<f64>().unwrap() > 0.0, "{row}");
    }
    // Type 0xC07E with 4 buckets: request 2 + 1 + 33, response 3 elements
    // and 2·4 + 4 scalars (99 + 384 = 483), token 2 + 32 + 98; the issuer
    // reads back each hidden value, and a replay is refused.
    let row = out.lines().find(|l| l.starts_with("0xc07e athm (4 buckets)")).unwrap_or_else(|| panic!("{out}"));
    let fields: Vec<&str> = row["0xc07e athm (4 buckets)".len()..].split_whitespace().collect();
    assert_eq!(fields.len(), 7, "{row}");
    assert_eq!(fields[..3], ["36", "483", "132"], "{row}");
    assert!(
        out.contains("0xc07e athm: the issuer hid [0, 1, 2, 3] in 4 tokens and read them back at redemption;"),
        "{out}"
    );
    assert!(out.contains("one of 4; a replayed token refused (replayed)"), "{out}");
    // ACT: a credential of 100 spent three times with refunds, an overspend
    // and a replayed spend refused; the sizes are the draft's CBOR messages
    // (a request 141 bytes, a response 211, a spend proof 529 + 3 + 137·16).
    assert!(
        out.contains(
            "act (L 16): credits [100, 75, 55, 25] after spending 30, 20, 40 with refunds 5, 0, 10; \
             spending 26 of 25 refused; a replayed spend refused (replayed);"
        ),
        "{out}"
    );
    let row = out.lines().find(|l| l.starts_with("act ristretto255 (L 16)")).unwrap_or_else(|| panic!("{out}"));
    let fields: Vec<&str> = row["act ristretto255 (L 16)".len()..].split_whitespace().collect();
    assert_eq!(fields[..3], ["141", "211", "2724"], "{row}");
}

#[test]
fn bench_act_rows() {
    let (code, out, err) = pat(&["bench", "--warmup", "0", "--iters", "1", "--filter", "act16/", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let rows: serde_json::Value = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = rows.as_array().unwrap().iter().map(|r| r["operation"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["act16/ClientRequest", "act16/IssuerIssue", "act16/ClientFinalize", "act16/ClientSpend", "act16/IssuerRefund"]
    );
    for r in rows.as_array().unwrap() {
        assert_eq!(r["allocations_per_op"].as_f64(), Some(0.0), "{r}");
    }
}

#[test]
fn bench_athm_rows() {
    let (code, out, err) = pat(&["bench", "--warmup", "0", "--iters", "1", "--filter", "athm4/", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let rows: serde_json::Value = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = rows.as_array().unwrap().iter().map(|r| r["operation"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "athm4/IssuerKeygen",
            "athm4/ClientRequest",
            "athm4/IssuerResponse",
            "athm4/ClientFinalize",
            "athm4/IssuerVerify"
        ]
    );
    for r in rows.as_array().unwrap() {
        assert!(r["mean"].as_f64().unwrap() > 0.0, "{r}");
        assert_eq!(r["allocations_per_op"].as_f64(), Some(0.0), "{r}");
    }
}

#[test]
fn bench_da7b_rows() {
    let (code, out, err) =
        pat(&["bench", "--warmup", "0", "--iters", "1", "--filter", "typeda7b/", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let rows: serde_json::Value = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = rows.as_array().unwrap().iter().map(|r| r["operation"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["typeda7b/ClientRequest", "typeda7b/IssuerEvaluate", "typeda7b/ClientFinalize", "typeda7b/OriginVerify"]
    );
    for r in rows.as_array().unwrap() {
        assert!(r["mean"].as_f64().unwrap() > 0.0, "{r}");
        assert_eq!(r["allocations_per_op"].as_f64(), Some(0.0), "{r}");
    }
}

#[test]
fn bench_arc_rows() {
    let (code, out, err) = pat(&["bench", "--warmup", "0", "--iters", "1", "--filter", "arc/", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let rows: serde_json::Value = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = rows.as_array().unwrap().iter().map(|r| r["operation"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "arc/ServerKeygen",
            "arc/ClientRequest",
            "arc/IssuerRespond",
            "arc/ClientFinalize",
            "arc/ClientPresentLimit2",
            "arc/ClientPresentLimit65536",
            "arc/IssuerVerifyLimit2",
            "arc/IssuerVerifyLimit65536",
        ]
    );
    for r in rows.as_array().unwrap() {
        assert_eq!(r["iterations"], 1, "{r}");
        assert!(r["mean"].as_f64().unwrap() > 0.0, "{r}");
        assert_eq!(r["allocations_per_op"].as_f64(), Some(0.0), "{r}");
    }
}

#[test]
fn bench_json_names_the_operations() {
    let (code, out, err) = pat(&["bench", "--warmup", "2", "--iters", "3", "--filter", "type5", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let rows: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rows = rows.as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["operation"].as_str().unwrap()).collect();
    assert_eq!(names, ["type5/ClientRequest", "type5/IssuerEvaluate", "type5/ClientFinalize", "type5/OriginVerify"]);
    for r in rows {
        assert_eq!(r["iterations"], 3);
        assert!(r["mean"].as_f64().unwrap() > 0.0, "{r}");
        assert!(r["ns_per_op"].as_f64().unwrap() > 0.0, "{r}");
        assert!(["cycles", "ns"].contains(&r["unit"].as_str().unwrap()), "{r}");
        // The core operations never allocate.
        assert_eq!(r["allocations_per_op"].as_f64(), Some(0.0), "{r}");
    }
    assert!(err.contains("4/4"), "progress on stderr: {err}");
}

#[test]
fn bench_latex_and_markdown() {
    let (code, out, _) = pat(&["bench", "--warmup", "1", "--iters", "2", "--filter", "parse/", "--format", "latex"]);
    assert_eq!(code, 0);
    assert!(out.contains("\\begin{tabular}") && out.contains("\\end{tabular}"), "{out}");
    assert!(out.contains("parse/TokenChallenge"), "{out}");
    let (code, out, _) = pat(&["bench", "--warmup", "1", "--iters", "2", "--filter", "parse/Token"]);
    assert_eq!(code, 0);
    assert!(out.contains("| parse/Token |") && out.contains("| parse/TokenChallenge |"), "{out}");
    let (code, _, err) = pat(&["bench", "--filter", "no-such-operation"]);
    assert_ne!(code, 0);
    assert!(err.contains("no operation matches"), "{err}");
}

/// `--redis-wait-replicas` waits for Redis replicas: without `--redis` it
/// would silently do nothing, so it is refused before anything starts.
#[test]
fn origin_serve_refuses_wait_replicas_without_redis() {
    let (code, _, stderr) = pat(&[
        "origin",
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--issuer",
        "i.example",
        "--token-type",
        "2",
        "--redis-wait-replicas",
        "1",
    ]);
    assert_ne!(code, 0);
    assert!(stderr.contains("--redis-wait-replicas needs --redis"), "{stderr}");
}
