//! Writes the linker memory map and turns the JSON vector files into `const`
//! data, so the bare-metal runner checks the same cases as the host tests.
use std::fmt::Write as _;
use std::path::PathBuf;

fn hex(v: &serde_json::Value, field: &str) -> Vec<u8> {
    let s = v[field].as_str().unwrap_or_else(|| panic!("field {field} is not a string"));
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap_or_else(|e| panic!("{field}: {e}")))
        .collect()
}

fn main() {
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    // mps2-an386: 4 MiB of code memory at 0, 4 MiB of SRAM at 0x2000_0000.
    std::fs::write(
        out.join("memory.x"),
        "MEMORY\n{\n  FLASH : ORIGIN = 0x00000000, LENGTH = 4096K\n  RAM : ORIGIN = 0x20000000, LENGTH = 4096K\n}\n",
    )
    .unwrap();
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rustc-link-arg=-Tlink.x");

    let vectors = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("../tests/vectors/pat-go/tokens");
    let token_file = vectors.join("token-test-vectors.json");
    println!("cargo:rerun-if-changed={}", token_file.display());
    let cases: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&token_file).unwrap()).unwrap();
    let mut code = String::from(
        "/// token-test-vectors.json: (type, issuer_name, redemption_context, origin_info, nonce, token_key_id, token_input)\n",
    );
    code += "pub const TOKEN_CASES: &[(u16, &[u8], &[u8], &[u8], [u8; 32], [u8; 32], [u8; 98])] = &[\n";
    for case in cases.as_array().unwrap() {
        let t = u16::from_str_radix(case["token_type"].as_str().unwrap(), 16).unwrap();
        let f = |name: &str| format!("&{:?}", hex(case, name));
        writeln!(
            code,
            "    ({t}, {}, {}, {}, {:?}, {:?}, {:?}),",
            f("issuer_name"),
            f("redemption_context"),
            f("origin_info"),
            hex(case, "nonce"),
            hex(case, "token_key_id"),
            hex(case, "token_authenticator_input")
        )
        .unwrap();
    }
    code += "];\n";
    std::fs::write(out.join("vectors.rs"), code).unwrap();
}
