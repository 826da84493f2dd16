//! Type 0x0001 and 0x0005 issuance vectors for challenges with opaque names
//! (`tests/vectors/opaque-names/`), computed with voprf-ng, the VOPRF under
//! the `privacypass` crate, not with pat.
//!
//! The challenges, nonces and names are those of the token-schema file that
//! `scripts/opaque-name-vectors.py` writes; keys and blinds are pat-go's case
//! 0 of each type. The request is voprf-ng's deterministic blind of the
//! token input, the response its evaluation with a proof nonce drawn from a
//! seeded generator, the token its finalization. `cargo test --lib` checks
//! that the committed files are exactly this; `PAT_WRITE_VECTORS=1 cargo test
//! --lib opaque` rewrites them.

use std::path::PathBuf;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use voprf::{CipherSuite, Group, VoprfClient, VoprfServer};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors")
}

fn load(path: &str) -> Value {
    let full = dir().join(path);
    serde_json::from_str(&std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display())))
        .unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

fn hex(s: &Value) -> Vec<u8> {
    let s = s.as_str().expect("a hex string");
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex")).collect()
}

fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn challenge(token_type: u16, issuer: &[u8], ctx: &[u8], origin: &[u8]) -> Vec<u8> {
    let mut out = token_type.to_be_bytes().to_vec();
    out.extend((issuer.len() as u16).to_be_bytes());
    out.extend(issuer);
    out.push(ctx.len() as u8);
    out.extend(ctx);
    out.extend((origin.len() as u16).to_be_bytes());
    out.extend(origin);
    out
}

/// The cases of one VOPRF token type.
pub fn generate<CS: CipherSuite>(token_type: u16, patgo_file: &str) -> Value {
    let base = &load(patgo_file)[0];
    let sk = hex(&base["skS"]);
    let pk_bytes = hex(&base["pkS"]);
    let pk = CS::Group::deserialize_elem(&pk_bytes).expect("pkS");
    let blind = CS::Group::deserialize_scalar(&hex(&base["blind"])).expect("blind");
    let key_id: [u8; 32] = Sha256::digest(&pk_bytes).into();
    let server = VoprfServer::<CS>::new_with_key(&sk).expect("skS");
    let mut rng = pat_testkit::TestRng::new(u64::from(token_type));
    let names = load("opaque-names/token-test-vectors.json");
    let mut cases = Vec::new();
    for case in names.as_array().expect("an array") {
        if case["token_type"] != format!("{token_type:04x}") {
            continue;
        }
        let ch = challenge(
            token_type,
            &hex(&case["issuer_name"]),
            &hex(&case["redemption_context"]),
            &hex(&case["origin_info"]),
        );
        let nonce = hex(&case["nonce"]);
        let mut input = token_type.to_be_bytes().to_vec();
        input.extend(&nonce);
        input.extend(Sha256::digest(&ch));
        input.extend(key_id);
        let blinded = VoprfClient::<CS>::deterministic_blind_unchecked(&input, blind).expect("blind");
        let evaluated = server.blind_evaluate(&mut rng, &blinded.message).expect("evaluate");
        let output = blinded.state.finalize(&input, &evaluated.message, &evaluated.proof, pk).expect("finalize");
        let mut request = token_type.to_be_bytes().to_vec();
        request.push(key_id[31]);
        request.extend(blinded.message.serialize());
        let mut response = evaluated.message.serialize().to_vec();
        response.extend(evaluated.proof.serialize());
        let mut token = input.clone();
        token.extend(output.as_slice());
        cases.push(json!({
            "skS": base["skS"],
            "pkS": base["pkS"],
            "token_challenge": to_hex(&ch),
            "nonce": to_hex(&nonce),
            "blind": base["blind"],
            "token_request": to_hex(&request),
            "token_response": to_hex(&response),
            "token": to_hex(&token),
        }));
    }
    Value::Array(cases)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// voprf-ng reproduces pat-go's own case 0 of each type from its fields
    /// (so the generator is right), and the committed opaque-name files are
    /// exactly what it computes.
    #[test]
    fn opaque_name_vectors_are_voprf_ngs() {
        for (token_type, patgo, ours) in [
            (
                0x0001,
                "pat-go/tokens/private/type1-issuance-test-vectors.json",
                "opaque-names/type1-issuance-test-vectors.json",
            ),
            (
                0x0005,
                "pat-go/tokens/private/type5-issuance-test-vectors.json",
                "opaque-names/type5-issuance-test-vectors.json",
            ),
        ] {
            let generated = match token_type {
                0x0001 => generate::<p384::NistP384>(token_type, patgo),
                _ => generate::<voprf::Ristretto255>(token_type, patgo),
            };
            assert_eq!(generated.as_array().map(Vec::len), Some(5), "{ours}");
            if std::env::var_os("PAT_WRITE_VECTORS").is_some() {
                std::fs::write(dir().join(ours), serde_json::to_string_pretty(&generated).unwrap() + "\n").unwrap();
            }
            assert_eq!(load(ours), generated, "{ours} is not what voprf-ng computes");
        }
    }

    /// The generator's steps reproduce pat-go's case 0 of each type from its
    /// fields: the request from the key, nonce and blind, and the token from
    /// pat-go's response.
    #[test]
    fn the_generator_reproduces_pat_go() {
        reproduce::<p384::NistP384>(0x0001, "pat-go/tokens/private/type1-issuance-test-vectors.json");
        reproduce::<voprf::Ristretto255>(0x0005, "pat-go/tokens/private/type5-issuance-test-vectors.json");
    }

    fn reproduce<CS: CipherSuite>(token_type: u16, patgo: &str) {
        let base = &load(patgo)[0];
        let token = hex(&base["token"]);
        let (input, authenticator) = token.split_at(98);
        assert_eq!(&input[..2], token_type.to_be_bytes());
        assert_eq!(input[2..34], hex(&base["nonce"])[..]);
        assert_eq!(input[34..66], Sha256::digest(hex(&base["token_challenge"]))[..]);
        let pk_bytes = hex(&base["pkS"]);
        let key_id: [u8; 32] = Sha256::digest(&pk_bytes).into();
        assert_eq!(input[66..], key_id);
        let blind = CS::Group::deserialize_scalar(&hex(&base["blind"])).unwrap();
        let blinded = VoprfClient::<CS>::deterministic_blind_unchecked(input, blind).unwrap();
        let mut request = token_type.to_be_bytes().to_vec();
        request.push(key_id[31]);
        request.extend(blinded.message.serialize());
        assert_eq!(request, hex(&base["token_request"]), "{patgo}");
        let response = hex(&base["token_response"]);
        let ne = blinded.message.serialize().len();
        let evaluated = voprf::EvaluationElement::<CS>::deserialize(&response[..ne]).unwrap();
        let proof = voprf::Proof::<CS>::deserialize(&response[ne..]).unwrap();
        let pk = CS::Group::deserialize_elem(&pk_bytes).unwrap();
        let output = blinded.state.finalize(input, &evaluated, &proof, pk).unwrap();
        assert_eq!(output.as_slice(), authenticator, "{patgo}");
    }
}
