//! Writes the linker memory map and turns the JSON vector files into `const`
//! data, so the bare-metal runner checks the same cases as the host tests
//! (generated, never hand-copied).
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// Cases per file taken onto the device (the host suite runs all of them).
const PER_FILE: usize = 2;

fn hex(v: &Value, field: &str) -> Vec<u8> {
    let s = v[field].as_str().unwrap_or_else(|| panic!("field {field} is not a string"));
    decode(s, field)
}

fn decode(s: &str, field: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap_or_else(|e| panic!("{field}: {e}")))
        .collect()
}

fn hex_list(v: &Value, field: &str) -> Vec<Vec<u8>> {
    v[field]
        .as_array()
        .unwrap_or_else(|| panic!("{field} is not an array"))
        .iter()
        .map(|x| decode(x.as_str().unwrap(), field))
        .collect()
}

fn load(dir: &Path, name: &str) -> Vec<Value> {
    let path = dir.join(name);
    println!("cargo:rerun-if-changed={}", path.display());
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    v.as_array().unwrap().clone()
}

/// Padded base64url (RFC 4648 §5), as an issuer directory lists token keys.
fn base64url(b: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut s = String::new();
    for chunk in b.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &x)| n | u32::from(x) << (16 - 8 * i));
        for i in 0..4 {
            s.push(if i <= chunk.len() { char::from(A[(n >> (18 - 6 * i) & 63) as usize]) } else { '=' });
        }
    }
    s
}

fn bytes(b: &[u8]) -> String {
    format!("&{b:?}")
}

fn main() {
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let target = std::env::var("TARGET").unwrap();
    let memory = if target.starts_with("thumbv8m") {
        // mps2-an505 (Cortex-M33, secure state): SSRAM1's secure alias at
        // 0x1000_0000 holds the code, SSRAM2's at 0x3800_0000 the data.
        "MEMORY\n{\n  FLASH : ORIGIN = 0x10000000, LENGTH = 4096K\n  RAM : ORIGIN = 0x38000000, LENGTH = 2048K\n}\n"
    } else if target.starts_with("riscv32") {
        // qemu `virt`: everything in DRAM at 0x8000_0000 (qemu jumps there
        // with `-bios none`).
        "MEMORY\n{\n  RAM : ORIGIN = 0x80000000, LENGTH = 16M\n}\n\
         REGION_ALIAS(\"REGION_TEXT\", RAM);\nREGION_ALIAS(\"REGION_RODATA\", RAM);\n\
         REGION_ALIAS(\"REGION_DATA\", RAM);\nREGION_ALIAS(\"REGION_BSS\", RAM);\n\
         REGION_ALIAS(\"REGION_HEAP\", RAM);\nREGION_ALIAS(\"REGION_STACK\", RAM);\n"
    } else {
        // mps2-an385/an386: 4 MiB of code memory at 0, 4 MiB of SRAM at 0x2000_0000.
        "MEMORY\n{\n  FLASH : ORIGIN = 0x00000000, LENGTH = 4096K\n  RAM : ORIGIN = 0x20000000, LENGTH = 4096K\n}\n"
    };
    std::fs::write(out.join("memory.x"), memory).unwrap();
    println!("cargo:rerun-if-env-changed=TARGET");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rustc-link-arg=-Tlink.x");

    let vectors = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("../tests/vectors");
    let dir = vectors.join("pat-go/tokens");
    let mut code = String::new();

    code += "/// token-test-vectors.json: (type, issuer_name, redemption_context, origin_info, nonce, token_key_id, token_input)\n";
    code += "pub type TokenCase = (u16, &'static [u8], &'static [u8], &'static [u8], [u8; 32], [u8; 32], [u8; 98]);\n";
    code += "pub const TOKEN_CASES: &[TokenCase] = &[\n";
    for case in load(&dir, "token-test-vectors.json") {
        let t = u16::from_str_radix(case["token_type"].as_str().unwrap(), 16).unwrap();
        writeln!(
            code,
            "    ({t}, {}, {}, {}, {:?}, {:?}, {:?}),",
            bytes(&hex(&case, "issuer_name")),
            bytes(&hex(&case, "redemption_context")),
            bytes(&hex(&case, "origin_info")),
            hex(&case, "nonce"),
            hex(&case, "token_key_id"),
            hex(&case, "token_authenticator_input")
        )
        .unwrap();
    }
    code += "];\n";

    for (name, file) in [
        ("TYPE1", "private/type1-issuance-test-vectors.json"),
        ("TYPE1_RS", "private/type1-issuance-test-vectors.rust.json"),
        ("TYPE5", "private/type5-issuance-test-vectors.json"),
        ("TYPE5_RS", "private/type5-issuance-test-vectors.rust.json"),
    ] {
        writeln!(code, "/// {file}: (skS, pkS, token_challenge, nonce, blind, token_request, token_response, token)")
            .unwrap();
        writeln!(code, "pub const {name}: &[PrivateCase] = &[").unwrap();
        for case in load(&dir, file).iter().take(PER_FILE) {
            let f = |n: &str| bytes(&hex(case, n));
            writeln!(
                code,
                "    PrivateCase {{ sk: {}, pk: {}, challenge: {}, nonce: {:?}, blind: {}, request: {}, response: {}, token: {} }},",
                f("skS"), f("pkS"), f("token_challenge"), hex(case, "nonce"), f("blind"), f("token_request"), f("token_response"), f("token")
            )
            .unwrap();
        }
        code += "];\n";
    }

    for (name, file) in [
        ("AMORTIZED1", "amortized/type1-issuance-test-vectors.json"),
        ("AMORTIZED5", "amortized/type5-issuance-test-vectors.json"),
    ] {
        writeln!(code, "/// {file}").unwrap();
        writeln!(code, "pub const {name}: &[AmortizedCase] = &[").unwrap();
        for case in load(&dir, file).iter().take(PER_FILE) {
            let f = |n: &str| bytes(&hex(case, n));
            let list =
                |n: &str| format!("&[{}]", hex_list(case, n).iter().map(|b| bytes(b)).collect::<Vec<_>>().join(", "));
            let nonces = hex_list(case, "nonces").iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", ");
            writeln!(
                code,
                "    AmortizedCase {{ sk: {}, pk: {}, challenge: {}, nonces: &[{nonces}], blinds: {}, request: {}, response: {}, tokens: {} }},",
                f("skS"), f("pkS"), f("token_challenge"), list("blinds"), f("token_request"), f("token_response"), list("tokens")
            )
            .unwrap();
        }
        code += "];\n";
    }

    writeln!(code, "/// type2/type2-issuance-test-vectors.json").unwrap();
    code += "pub const TYPE2: &[PublicCase] = &[\n";
    for case in load(&dir, "type2/type2-issuance-test-vectors.json").iter().take(PER_FILE) {
        let f = |n: &str| bytes(&hex(case, n));
        let mut blind = vec![0u8; 256 - hex(case, "blind").len()];
        blind.extend(hex(case, "blind"));
        let pem = String::from_utf8(hex(case, "skS")).unwrap();
        writeln!(
            code,
            "    PublicCase {{ sk_pem: {pem:?}, pk: {}, challenge: {}, nonce: {:?}, blind: {blind:?}, salt: {:?}, request: {}, response: {}, token: {} }},",
            f("pkS"), f("token_challenge"), hex(case, "nonce"), hex(case, "salt"), f("token_request"), f("token_response"), f("token")
        )
        .unwrap();
    }
    code += "];\n";
    // Partially blind RSA (draft-irtf-cfrg-partially-blind-rsa) and type
    // 0xDA7A (privacypass-ts), beside pat-go's files. Every published case
    // runs on the device: the draft's four and privacypass-ts's one.
    writeln!(code, "/// pbrsa/draft-irtf-cfrg-partially-blind-rsa-01.json").unwrap();
    code += "pub const PBRSA: &[PbrsaCase] = &[\n";
    for case in load(&vectors, "pbrsa/draft-irtf-cfrg-partially-blind-rsa-01.json").iter() {
        let f = |n: &str| bytes(&hex(case, n));
        let mut r = vec![0u8; 256 - hex(case, "r").len()];
        r.extend(hex(case, "r"));
        writeln!(
            code,
            "    PbrsaCase {{ n: {}, e: {}, d: {}, p: {}, q: {}, info: {}, msg: {}, eprime: {}, r: {r:?}, salt: {}, blind_msg: {}, blind_sig: {}, sig: {} }},",
            f("n"), f("e"), f("d"), f("p"), f("q"), f("info"), f("msg"), f("eprime"), f("salt"), f("blind_msg"), f("blind_sig"), f("sig")
        )
        .unwrap();
    }
    code += "];\n";
    writeln!(code, "/// privacypass-ts/pub_verif_with_metadata_v3.json").unwrap();
    code += "pub const TYPE_DA7A: &[MetadataCase] = &[\n";
    for case in load(&vectors, "privacypass-ts/pub_verif_with_metadata_v3.json").iter().take(PER_FILE) {
        let f = |n: &str| bytes(&hex(case, n));
        let mut blind = vec![0u8; 256 - hex(case, "blind").len()];
        blind.extend(hex(case, "blind"));
        let pem = String::from_utf8(hex(case, "skS")).unwrap();
        writeln!(
            code,
            "    MetadataCase {{ sk_pem: {pem:?}, pk: {}, challenge: {}, extensions: {}, nonce: {:?}, blind: {blind:?}, salt: {:?}, request: {}, response: {}, token: {} }},",
            f("pkS"), f("token_challenge"), f("extensions"), hex(case, "nonce"), hex(case, "salt"), f("token_request"), f("token_response"), f("token")
        )
        .unwrap();
    }
    code += "];\n";
    // Type 0xDA7B: pat's own vectors (no published ones exist; a separate
    // program, tools/poprf_da7b.py, recomputes them), and its primitive's,
    // RFC 9497's POPRF vectors for P384-SHA384 (Appendix A.4.3), the batches
    // of one.
    writeln!(code, "/// pat/type-da7b-issuance-test-vectors.json").unwrap();
    code += "pub const TYPE_DA7B: &[PoprfTokenCase] = &[\n";
    for case in load(&vectors, "pat/type-da7b-issuance-test-vectors.json").iter().take(PER_FILE) {
        let f = |n: &str| bytes(&hex(case, n));
        writeln!(
            code,
            "    PoprfTokenCase {{ sk: {:?}, pk: {:?}, challenge: {}, extensions: {}, nonce: {:?}, blind: {:?}, proof_nonce: {:?}, request: {}, response: {}, token: {} }},",
            hex(case, "skS"), hex(case, "pkS"), f("token_challenge"), f("extensions"), hex(case, "nonce"), hex(case, "blind"),
            hex(case, "proof_random_scalar"), f("token_request"), f("token_response"), f("token")
        )
        .unwrap();
    }
    code += "];\n";
    writeln!(code, "/// rfc/rfc9497-voprf.json: A.4.3 (POPRF, P384-SHA384), batches of one").unwrap();
    let rfc_file = vectors.join("rfc/rfc9497-voprf.json");
    println!("cargo:rerun-if-changed={}", rfc_file.display());
    let rfc: Value = serde_json::from_str(&std::fs::read_to_string(&rfc_file).unwrap()).unwrap();
    let suite = rfc["suites"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["suite"] == "P384-SHA384" && s["mode"] == 2)
        .expect("the P384-SHA384 POPRF suite");
    code += "pub const POPRF_P384: &[PoprfCase] = &[\n";
    for v in suite["vectors"].as_array().unwrap().iter().filter(|v| v["batch_size"] == 1) {
        let one = |n: &str| format!("{:?}", hex_list(v, n)[0]);
        writeln!(
            code,
            "    PoprfCase {{ seed: {}, key_info: {}, sk: {:?}, pk: {:?}, input: {}, info: {}, blind: {}, blinded: {}, evaluated: {}, proof: {:?}, proof_nonce: {:?}, output: {} }},",
            bytes(&hex(suite, "seed")), bytes(&hex(suite, "key_info")), hex(suite, "skSm"), hex(suite, "pkSm"),
            bytes(&hex_list(v, "input")[0]), bytes(&hex(v, "info")), one("blind"), one("blinded_element"),
            one("evaluation_element"), hex(v, "proof"), hex(v, "proof_random_scalar"), one("output")
        )
        .unwrap();
    }
    code += "];\n";
    // ATHM(P-256) (draft-yun-cfrg-athm-00): google/anonymous-tokens' six
    // procedures, each one case, every value as the file writes it (the
    // hidden values and n_buckets are decimal, the deployment id text).
    // finalize_token's arguments lack the key's proof: it comes from the
    // token_request procedure, as the host harness takes it.
    let athm = load(&vectors, "athm/test_vectors.json");
    let athm_proc = |name: &str| -> &Value {
        athm.iter().find(|p| p["procedure"] == name).unwrap_or_else(|| panic!("no ATHM procedure {name}"))
    };
    let text = |v: &Value, field: &str| -> String {
        v[field].as_str().unwrap_or_else(|| panic!("field {field} is not a string")).to_string()
    };
    let params = &athm_proc("params")["output"];
    writeln!(code, "/// athm/test_vectors.json: the deployment's number of buckets and its id").unwrap();
    writeln!(code, "pub const ATHM_BUCKETS: usize = {};", text(params, "n_buckets").parse::<usize>().unwrap()).unwrap();
    writeln!(code, "pub const ATHM_DEPLOYMENT_ID: &[u8] = {};", bytes(text(params, "deployment_id").as_bytes()))
        .unwrap();
    let key_proof = hex(&athm_proc("token_request")["args"], "public_key_proof");
    writeln!(code, "/// athm/test_vectors.json: the six procedures, in the file's order").unwrap();
    code += "pub const ATHM: &[AthmCase] = &[\n";
    for p in &athm {
        let (a, o) = (&p["args"], &p["output"]);
        let seed = || format!("{:?}", hex(a, "rng_seed"));
        let case = match p["procedure"].as_str().unwrap() {
            "params" => format!(
                "AthmCase::Params {{ generator_g: {:?}, generator_h: {:?} }}",
                hex(o, "generator_g"),
                hex(o, "generator_h")
            ),
            "key_gen" => format!(
                "AthmCase::KeyGen {{ seed: {}, private_key: {:?}, public_key: {:?}, proof: {:?}, key_id: {:?} }}",
                seed(),
                hex(o, "private_key"),
                hex(o, "public_key"),
                hex(o, "public_key_proof"),
                hex(o, "key_id")
            ),
            "token_request" => format!(
                "AthmCase::TokenRequest {{ public_key: {:?}, proof: {:?}, seed: {}, context: {:?}, request: {:?} }}",
                hex(a, "public_key"),
                hex(a, "public_key_proof"),
                seed(),
                hex(o, "token_context"),
                hex(o, "token_request")
            ),
            "token_response" => format!(
                "AthmCase::TokenResponse {{ private_key: {:?}, public_key: {:?}, request: {:?}, metadata: {}, seed: {}, response: {} }}",
                hex(a, "private_key"),
                hex(a, "public_key"),
                hex(a, "token_request"),
                text(a, "hidden_metadata").parse::<u8>().unwrap(),
                seed(),
                bytes(&hex(o, "token_response"))
            ),
            "finalize_token" => format!(
                "AthmCase::FinalizeToken {{ public_key: {:?}, proof: {key_proof:?}, seed: {}, context: {:?}, request: {:?}, response: {}, token: {:?} }}",
                hex(a, "public_key"),
                seed(),
                hex(a, "token_context"),
                hex(a, "token_request"),
                bytes(&hex(a, "token_response")),
                hex(o, "token")
            ),
            "verify_token" => format!(
                "AthmCase::VerifyToken {{ private_key: {:?}, token: {:?}, metadata: {} }}",
                hex(a, "private_key"),
                hex(a, "token"),
                text(o, "hidden_metadata").parse::<u8>().unwrap()
            ),
            other => panic!("unknown ATHM procedure {other}"),
        };
        writeln!(code, "    {case},").unwrap();
    }
    code += "];\n";
    // ACT (draft-schlesinger-cfrg-act-01): the appendix's runs, every input
    // and output as the file writes it. The bit length L is a type parameter
    // on the device: every run must use the one [`ACT_L`] names.
    let act = load(&vectors, "act/draft-schlesinger-cfrg-act-01.json");
    let act_l = act[0]["L"].as_u64().expect("L is a number");
    writeln!(code, "/// act/draft-schlesinger-cfrg-act-01.json: the runs' bit length").unwrap();
    writeln!(code, "pub const ACT_L: usize = {act_l};").unwrap();
    writeln!(code, "/// act/draft-schlesinger-cfrg-act-01.json: every run").unwrap();
    code += "pub const ACT: &[ActCase] = &[\n";
    for run in &act {
        assert_eq!(run["L"].as_u64(), Some(act_l), "every ACT run must share one L");
        let num = |f: &str| run[f].as_u64().unwrap_or_else(|| panic!("{f} is not a number"));
        writeln!(
            code,
            "    ActCase {{ domain_separator: {}, seed: {:?}, c: {}, s: {}, t: {}, ctx: {:?}, remaining: {}, sk: {}, pk: {}, pre_issuance: {}, request: {}, response: {}, credit_token: {}, nullifier: {:?}, spend_proof: {}, pre_refund: {}, refund: {}, refund_token: {} }},",
            bytes(run["domain_separator"].as_str().expect("domain_separator").as_bytes()),
            hex(run, "rng_seed"),
            num("c"),
            num("s"),
            num("t"),
            hex(run, "ctx"),
            num("remaining_balance"),
            bytes(&hex(run, "sk_cbor")),
            bytes(&hex(run, "pk_cbor")),
            bytes(&hex(run, "preissuance_cbor")),
            bytes(&hex(run, "issuance_request_cbor")),
            bytes(&hex(run, "issuance_response_cbor")),
            bytes(&hex(run, "credit_token_cbor")),
            hex(run, "nullifier"),
            bytes(&hex(run, "spend_proof_cbor")),
            bytes(&hex(run, "prerefund_cbor")),
            bytes(&hex(run, "refund_cbor")),
            bytes(&hex(run, "refund_token_cbor")),
        )
        .unwrap();
    }
    code += "];\n";
    // ARC (draft-ietf-privacypass-arc-crypto-01): the draft's one suite, its
    // six groups drawn in order from the TestDRNG, each field concatenated in
    // the order the API encodes it (tests/arc.rs maps every field).
    writeln!(code, "/// arc/draft-ietf-privacypass-arc-crypto-01.json: suite ARCV1-P256").unwrap();
    let arc_file = vectors.join("arc/draft-ietf-privacypass-arc-crypto-01.json");
    println!("cargo:rerun-if-changed={}", arc_file.display());
    let arc: Value = serde_json::from_str(&std::fs::read_to_string(&arc_file).unwrap()).unwrap();
    let arc = &arc["ARCV1-P256"];
    let cat = |group: &str, names: &[&str]| -> String {
        bytes(&names.iter().flat_map(|n| hex(&arc[group], n)).collect::<Vec<u8>>())
    };
    let presentations = ["Presentation1", "Presentation2"]
        .iter()
        .map(|g| {
            let nonce = u32::from_str_radix(arc[g]["nonce"].as_str().unwrap().trim_start_matches("0x"), 16).unwrap();
            format!(
                "ArcPresentation {{ context: {}, nonce: {nonce}, bytes: {} }}",
                bytes(&hex(&arc[g], "presentation_context")),
                cat(g, &["U", "U_prime_commit", "m1_commit", "tag", "nonce_commit", "proof"])
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    writeln!(
        code,
        "pub const ARC: &[ArcCase] = &[ArcCase {{ sk: {}, pk: {}, request_context: {}, state: {}, request: {}, response: {}, credential: {}, presentations: &[{presentations}] }}];",
        cat("ServerKey", &["x0", "x1", "x2", "xb"]),
        cat("ServerKey", &["X0", "X1", "X2"]),
        bytes(&hex(&arc["CredentialRequest"], "request_context")),
        cat("CredentialRequest", &["m1", "r1", "r2", "m1_enc", "m2_enc"]),
        cat("CredentialRequest", &["m1_enc", "m2_enc", "proof"]),
        cat("CredentialResponse", &["U", "enc_U_prime", "X0_aux", "X1_aux", "X2_aux", "H_aux", "proof"]),
        cat("Credential", &["m1", "U", "U_prime", "X1"]),
    )
    .unwrap();
    // Generic batches: the mixed [1, 2] case of the Go file and both Rust cases.
    code += "/// batched-issuance-test-vectors{,.rust}.json: mixed batches\n";
    code += "pub const BATCHED: &[BatchedCase] = &[\n";
    let go = load(&dir, "batched/batched-issuance-test-vectors.json");
    let rs = load(&dir, "batched/batched-issuance-test-vectors.rust.json");
    for case in go.iter().skip(4).chain(rs.iter()) {
        code += "    BatchedCase { entries: &[\n";
        for e in case["issuance"].as_array().unwrap() {
            let ty = u16::from_str_radix(e["type"].as_str().unwrap(), 16).unwrap();
            let salt = if ty == 2 { hex(e, "salt") } else { Vec::new() };
            let mut blind = hex(e, "blind");
            if ty == 2 {
                let mut padded = vec![0u8; 256 - blind.len()];
                padded.extend(blind);
                blind = padded;
            }
            writeln!(
                code,
                "        BatchEntry {{ ty: {ty}, pk: {}, challenge: {}, nonce: {:?}, blind: {}, salt: {}, token: {} }},",
                bytes(&hex(e, "pkS")), bytes(&hex(e, "token_challenge")), hex(e, "nonce"), bytes(&blind), bytes(&salt), bytes(&hex(e, "token"))
            )
            .unwrap();
        }
        writeln!(
            code,
            "    ], request: {}, response: {} }},",
            bytes(&hex(case, "token_request")),
            bytes(&hex(case, "token_response"))
        )
        .unwrap();
    }
    code += "];\n";
    let enc = load(&dir, "type3/type3-origin-encryption-test-vectors.json");
    writeln!(
        code,
        "/// type3-origin-encryption-test-vectors.json: issuer_encap_key\npub const ENCAP_KEY: &[u8] = {};",
        bytes(&hex(&enc[0], "issuer_encap_key"))
    )
    .unwrap();
    // An issuer directory (RFC 9578 §4) listing the first type-1 and type-2 vector keys.
    let t1 = hex(&load(&dir, "private/type1-issuance-test-vectors.json")[0], "pkS");
    let t2 = hex(&load(&dir, "type2/type2-issuance-test-vectors.json")[0], "pkS");
    let directory = format!(
        r#"{{"issuer-request-uri":"https://issuer.example/token-request","token-keys":[{{"token-type":1,"token-key":"{}"}},{{"token-type":2,"token-key":"{}","not-before":1686913811}}]}}"#,
        base64url(&t1),
        base64url(&t2)
    );
    writeln!(
        code,
        "/// An issuer directory with the first type-1 and type-2 vector keys.\npub const DIRECTORY: &str = {directory:?};"
    )
    .unwrap();
    writeln!(code, "/// The type-2 key of [`DIRECTORY`].\npub const DIRECTORY_TYPE2_KEY: &[u8] = {};", bytes(&t2))
        .unwrap();
    std::fs::write(out.join("vectors.rs"), code).unwrap();
}
