//! ATHM(P-256), draft-yun-cfrg-athm-00 (kind `athm`): google/anonymous-tokens'
//! `athm/test_vectors.json`, the same JSON as the draft's appendix. The file
//! is an array of six procedures, each `{procedure, args, output}` with
//! string values (integers in decimal, `deployment_id` as text, the rest
//! lowercase hex); each procedure is one case.
//!
//! Every randomized procedure draws from a ChaCha20 generator seeded with
//! its `rng_seed` (the reference code's `rand_chacha::ChaCha20Rng`: the
//! ChaCha20 keystream with a zero nonce), so each is recomputed from its
//! arguments and every output compared byte for byte:
//!
//! - `params`: generatorG and generatorH for `n_buckets` and `deployment_id`;
//! - `key_gen`: the private key, public key, key proof and key id;
//! - `token_request`: the key's proof is checked, then the context and T;
//! - `token_response`: the whole response for `hidden_metadata`;
//! - `finalize_token`: the token (the key's proof comes from the
//!   `token_request` procedure, whose arguments carry it);
//! - `verify_token`: the hidden metadata the issuer reads back.
//!
//! The deployment's `n_buckets` is a type parameter of the library; this
//! harness runs the values in [`BUCKETS`].

use std::format;
use std::string::{String, ToString};
use std::vec::Vec;

use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use serde_json::{Map, Value, json};

use super::{Report, VectorError, decode_hex, encode_hex, expect_eq};
use pat::crypto::athm::{
    Params, PrivateKey, PublicKey, PublicKeyProof, Token, TokenContext, TokenRequest, TokenResponse, finalize_token,
    token_request, token_response, verify_token,
};

/// The procedures of a file, in the protocol's order: one case each.
pub(crate) const PROCEDURES: [&str; 6] =
    ["params", "key_gen", "token_request", "token_response", "finalize_token", "verify_token"];

/// The numbers of buckets this harness can run (the published file has 4).
pub const BUCKETS: [usize; 8] = [1, 2, 3, 4, 8, 16, 32, 255];

/// One procedure of the file.
struct Proc<'a> {
    index: usize,
    name: &'a str,
    args: &'a Map<String, Value>,
    output: &'a Map<String, Value>,
}

impl<'a> Proc<'a> {
    fn error(&self, field: &str, problem: impl Into<String>) -> VectorError {
        VectorError::Field { case: self.index, field: field.into(), problem: problem.into() }
    }

    fn string(&self, map: &'a Map<String, Value>, field: &str) -> Result<&'a str, VectorError> {
        let value = map.get(field).ok_or_else(|| self.error(field, "missing"))?;
        value.as_str().ok_or_else(|| self.error(field, "not a string"))
    }

    fn arg(&self, field: &str) -> Result<Vec<u8>, VectorError> {
        decode_hex(self.string(self.args, field)?).map_err(|why| self.error(field, why))
    }

    fn out(&self, field: &str) -> Result<Vec<u8>, VectorError> {
        decode_hex(self.string(self.output, field)?).map_err(|why| self.error(field, why))
    }

    fn seed(&self) -> Result<ChaCha20Rng, VectorError> {
        let seed: [u8; 32] = self.arg("rng_seed")?.try_into().map_err(|_| self.error("rng_seed", "not 32 bytes"))?;
        Ok(ChaCha20Rng::from_seed(seed))
    }

    fn number(&self, map: &'a Map<String, Value>, field: &str) -> Result<usize, VectorError> {
        self.string(map, field)?.parse::<usize>().map_err(|e| self.error(field, e.to_string()))
    }
}

fn procedures(file: &Value) -> Result<Vec<Proc<'_>>, VectorError> {
    let items = file.as_array().ok_or_else(|| VectorError::Format("top level is not an array".into()))?;
    items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            let obj = item.as_object().ok_or_else(|| VectorError::Format(format!("case {index} is not an object")))?;
            let field = |f: &str| VectorError::Field {
                case: index,
                field: f.into(),
                problem: "missing or not an object".into(),
            };
            let name = obj.get("procedure").and_then(Value::as_str).ok_or_else(|| field("procedure"))?;
            if !PROCEDURES.contains(&name) {
                return Err(VectorError::Field {
                    case: index,
                    field: "procedure".into(),
                    problem: format!("`{name}` is not an ATHM procedure"),
                });
            }
            let args = obj.get("args").and_then(Value::as_object).ok_or_else(|| field("args"))?;
            let output = obj.get("output").and_then(Value::as_object).ok_or_else(|| field("output"))?;
            Ok(Proc { index, name, args, output })
        })
        .collect()
}

/// Whether a file looks like ATHM's: an array whose first object has a
/// `procedure` field.
pub(crate) fn detect(first: &Map<String, Value>) -> bool {
    first.contains_key("procedure") && first.contains_key("args") && first.contains_key("output")
}

pub(crate) fn verify(file: &Value) -> Result<Report, VectorError> {
    let procs = procedures(file)?;
    let params =
        procs.iter().find(|p| p.name == "params").ok_or_else(|| VectorError::Format("no `params` procedure".into()))?;
    let n = params.number(params.output, "n_buckets")?;
    let id = params.string(params.output, "deployment_id")?.as_bytes();
    macro_rules! dispatch {
        ($($n:literal),*) => {
            match n {
                $($n => run::<$n>(&procs, id),)*
                _ => Err(params.error("n_buckets", format!("{n} buckets: this harness runs {BUCKETS:?}"))),
            }
        };
    }
    dispatch!(1, 2, 3, 4, 8, 16, 32, 255)
}

fn run<const N: usize>(procs: &[Proc<'_>], id: &[u8]) -> Result<Report, VectorError> {
    let mut report = Report::default();
    let params = match Params::<N>::new(id) {
        Ok(p) => p,
        Err(e) => {
            for p in procs {
                report.record(p.index, Err(format!("parameters: {e}")));
            }
            return Ok(report);
        }
    };
    // The key's proof, for finalize_token (whose arguments lack it).
    let proof = procs.iter().find(|p| p.name == "token_request").map(|p| p.arg("public_key_proof")).transpose()?;
    for p in procs {
        let outcome = match p.name {
            "params" => check_params(p, &params)?,
            "key_gen" => check_key_gen(p, &params)?,
            "token_request" => check_request(p, &params)?,
            "token_response" => check_response(p, &params)?,
            "finalize_token" => check_finalize(p, &params, proof.as_deref())?,
            _ => check_verify(p, &params)?,
        };
        report.record(p.index, outcome);
    }
    Ok(report)
}

type Outcome = Result<Result<(), String>, VectorError>;

fn check_params<const N: usize>(p: &Proc<'_>, params: &Params<'_, N>) -> Outcome {
    let g = pat::crypto::athm::generator_g_bytes();
    let (want_g, want_h) = (p.out("generator_g")?, p.out("generator_h")?);
    Ok(expect_eq("generator_g", &g, &want_g).and(expect_eq("generator_h", &params.generator_h(), &want_h)))
}

fn check_key_gen<const N: usize>(p: &Proc<'_>, params: &Params<'_, N>) -> Outcome {
    let mut rng = p.seed()?;
    let (sk, pk, proof) = match PrivateKey::generate(params, &mut rng) {
        Ok(k) => k,
        Err(e) => return Ok(Err(format!("key_gen: {e}"))),
    };
    Ok(expect_eq("private_key", &*sk.to_bytes(), &p.out("private_key")?)
        .and(expect_eq("public_key", &pk.to_bytes(), &p.out("public_key")?))
        .and(expect_eq("public_key_proof", &proof.to_bytes(), &p.out("public_key_proof")?))
        .and(expect_eq("key_id", &pk.key_id(), &p.out("key_id")?)))
}

fn verified<const N: usize>(
    params: &Params<'_, N>,
    key: &[u8],
    proof: &[u8],
) -> Result<pat::crypto::athm::VerifiedPublicKey, String> {
    let pk = PublicKey::from_bytes(key).map_err(|e| format!("public_key: {e}"))?;
    let proof = PublicKeyProof::from_bytes(proof).map_err(|e| format!("public_key_proof: {e}"))?;
    pk.verify(params, &proof).map_err(|e| format!("public_key_proof: {e}"))
}

fn check_request<const N: usize>(p: &Proc<'_>, params: &Params<'_, N>) -> Outcome {
    let key = match verified(params, &p.arg("public_key")?, &p.arg("public_key_proof")?) {
        Ok(k) => k,
        Err(e) => return Ok(Err(e)),
    };
    let mut rng = p.seed()?;
    let (context, request) = match token_request(&key, &mut rng) {
        Ok(r) => r,
        Err(e) => return Ok(Err(format!("token_request: {e}"))),
    };
    Ok(expect_eq("token_context", &*context.to_bytes(), &p.out("token_context")?).and(expect_eq(
        "token_request",
        &request.to_bytes(),
        &p.out("token_request")?,
    )))
}

fn check_response<const N: usize>(p: &Proc<'_>, params: &Params<'_, N>) -> Outcome {
    let run = || -> Result<Vec<u8>, String> {
        let sk = PrivateKey::from_bytes(&p.arg("private_key").map_err(|e| e.to_string())?)
            .map_err(|e| format!("private_key: {e}"))?;
        let pk = PublicKey::from_bytes(&p.arg("public_key").map_err(|e| e.to_string())?)
            .map_err(|e| format!("public_key: {e}"))?;
        let request = TokenRequest::from_bytes(&p.arg("token_request").map_err(|e| e.to_string())?)
            .map_err(|e| format!("token_request: {e}"))?;
        let m: u8 = p
            .string(p.args, "hidden_metadata")
            .map_err(|e| e.to_string())?
            .parse()
            .map_err(|e| format!("hidden_metadata: {e}"))?;
        let mut rng = p.seed().map_err(|e| e.to_string())?;
        let response =
            token_response(params, &sk, &pk, &request, m, &mut rng).map_err(|e| format!("token_response: {e}"))?;
        let mut out = std::vec![0u8; TokenResponse::<N>::LEN];
        response.encode(&mut out).map_err(|e| e.to_string())?;
        Ok(out)
    };
    let expected = p.out("token_response")?;
    Ok(run().and_then(|got| expect_eq("token_response", &got, &expected)))
}

fn check_finalize<const N: usize>(p: &Proc<'_>, params: &Params<'_, N>, proof: Option<&[u8]>) -> Outcome {
    let proof =
        proof.ok_or_else(|| p.error("public_key_proof", "no `token_request` procedure carries the key's proof"))?;
    let expected = p.out("token")?;
    let (key, context, request, response) =
        (p.arg("public_key")?, p.arg("token_context")?, p.arg("token_request")?, p.arg("token_response")?);
    let mut rng = p.seed()?;
    let mut run = || -> Result<Vec<u8>, String> {
        let key = verified(params, &key, proof)?;
        let context = TokenContext::from_bytes(&context).map_err(|e| format!("token_context: {e}"))?;
        let request = TokenRequest::from_bytes(&request).map_err(|e| format!("token_request: {e}"))?;
        let response = TokenResponse::<N>::from_bytes(&response).map_err(|e| format!("token_response: {e}"))?;
        let token = finalize_token(params, &key, &context, &request, &response, &mut rng)
            .map_err(|e| format!("finalize_token: {e}"))?;
        Ok(token.to_bytes().to_vec())
    };
    Ok(run().and_then(|got| expect_eq("token", &got, &expected)))
}

fn check_verify<const N: usize>(p: &Proc<'_>, params: &Params<'_, N>) -> Outcome {
    let expected = p.number(p.output, "hidden_metadata")?;
    let (sk, token) = (p.arg("private_key")?, p.arg("token")?);
    let run = || -> Result<u8, String> {
        let sk = PrivateKey::from_bytes(&sk).map_err(|e| format!("private_key: {e}"))?;
        let token = Token::from_bytes(&token).map_err(|e| format!("token: {e}"))?;
        verify_token(params, &sk, &token).map_err(|e| format!("verify_token: {e}"))
    };
    Ok(run().and_then(|m| {
        if usize::from(m) == expected {
            Ok(())
        } else {
            Err(format!("hidden_metadata: computed {m} but the file has {expected}"))
        }
    }))
}

/// A fresh file of the published schema: 4 buckets, the published
/// deployment id, random seeds and a random hidden value.
pub(crate) fn generate() -> Result<Value, VectorError> {
    const N: usize = 4;
    let fail = |e: pat::Error| VectorError::Format(e.to_string());
    let id = "test_vector_deployment_id";
    let params = Params::<N>::new(id.as_bytes()).map_err(fail)?;
    let mut seeds = [[0u8; 32]; 4];
    for s in seeds.iter_mut() {
        getrandom::fill(s).map_err(|e| VectorError::Format(e.to_string()))?;
    }
    let mut pick = [0u8; 1];
    getrandom::fill(&mut pick).map_err(|e| VectorError::Format(e.to_string()))?;
    let m = pick[0] % 4; // below N
    let [s1, s2, s3, s4] = seeds;
    let (sk, pk, proof) = PrivateKey::generate(&params, &mut ChaCha20Rng::from_seed(s1)).map_err(fail)?;
    let key = pk.verify(&params, &proof).map_err(fail)?;
    let (context, request) = token_request(&key, &mut ChaCha20Rng::from_seed(s2)).map_err(fail)?;
    let response = token_response(&params, &sk, &pk, &request, m, &mut ChaCha20Rng::from_seed(s3)).map_err(fail)?;
    let mut response_bytes = std::vec![0u8; TokenResponse::<N>::LEN];
    response.encode(&mut response_bytes).map_err(fail)?;
    let token =
        finalize_token(&params, &key, &context, &request, &response, &mut ChaCha20Rng::from_seed(s4)).map_err(fail)?;
    let (sk_hex, pk_hex, req_hex) =
        (encode_hex(&*sk.to_bytes()), encode_hex(&pk.to_bytes()), encode_hex(&request.to_bytes()));
    let ctx_hex = encode_hex(&*context.to_bytes());
    let token_hex = encode_hex(&token.to_bytes());
    Ok(json!([
        {"procedure": "params", "args": {}, "output": {
            "deployment_id": id, "generator_g": encode_hex(&pat::crypto::athm::generator_g_bytes()),
            "generator_h": encode_hex(&params.generator_h()), "n_buckets": N.to_string()}},
        {"procedure": "key_gen", "args": {"rng_seed": encode_hex(&s1)}, "output": {
            "key_id": encode_hex(&pk.key_id()), "private_key": sk_hex, "public_key": pk_hex,
            "public_key_proof": encode_hex(&proof.to_bytes())}},
        {"procedure": "token_request", "args": {"public_key": pk_hex, "public_key_proof": encode_hex(&proof.to_bytes()),
            "rng_seed": encode_hex(&s2)}, "output": {"token_context": ctx_hex, "token_request": req_hex}},
        {"procedure": "token_response", "args": {"hidden_metadata": m.to_string(), "private_key": sk_hex,
            "public_key": pk_hex, "rng_seed": encode_hex(&s3), "token_request": req_hex},
            "output": {"token_response": encode_hex(&response_bytes)}},
        {"procedure": "finalize_token", "args": {"public_key": pk_hex, "rng_seed": encode_hex(&s4),
            "token_context": ctx_hex, "token_request": req_hex, "token_response": encode_hex(&response_bytes)},
            "output": {"token": token_hex}},
        {"procedure": "verify_token", "args": {"private_key": sk_hex, "token": token_hex},
            "output": {"hidden_metadata": m.to_string()}},
    ]))
}
