//! ACT, draft-schlesinger-cfrg-act-01 (kind `act`): the draft's appendix
//! vectors (ristretto255, BLAKE3, CBOR), transcribed from its Markdown to
//! JSON (`tests/vectors/act/README.md`). The file is an array of runs; each
//! run is one case:
//!
//! - `domain_separator` (text), `L`, `c`, `s`, `t` and `remaining_balance`
//!   (numbers), `rng_seed` and `ctx` (hex);
//! - the outputs, lowercase hex: `sk_cbor`, `pk_cbor`, `preissuance_cbor`,
//!   `issuance_request_cbor`, `issuance_response_cbor`,
//!   `credit_token_cbor`, `nullifier`, `context`, `charge`,
//!   `spend_proof_cbor`, `prerefund_cbor`, `refund_cbor`,
//!   `refund_token_cbor`, `refund_token_credits`, `refund_token_nullifier`.
//!
//! A run draws from ONE ChaCha20 generator (`rand_chacha::ChaCha20Rng`
//! seeded with `rng_seed`; the draft's is 00 01 … 1f) through every step,
//! in the reference code's order: key generation, the pre-issuance, the
//! request, the issuance, the spend proof, the refund. Every output is
//! recomputed and compared byte for byte, and every message decodes and
//! re-encodes to the file's bytes. The bit length L is a type parameter of
//! the library; this harness runs the values in [`BIT_LENGTHS`].

use std::format;
use std::string::{String, ToString};
use std::vec::Vec;

use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use serde_json::{Map, Value, json};

use super::{Report, VectorError, decode_hex, encode_hex, expect_eq};
use pat::crypto::act::{
    CreditToken, IssuanceRequest, IssuanceResponse, Params, PreIssuance, PreRefund, PrivateKey, PublicKey, Refund,
    SpendProof,
};

/// The bit lengths this harness can run (the draft's vectors use 8).
pub const BIT_LENGTHS: [usize; 6] = [1, 8, 16, 32, 64, 128];

/// The hex outputs of a run, in the draft's order.
const OUTPUTS: [&str; 15] = [
    "sk_cbor",
    "pk_cbor",
    "preissuance_cbor",
    "issuance_request_cbor",
    "issuance_response_cbor",
    "credit_token_cbor",
    "nullifier",
    "context",
    "charge",
    "spend_proof_cbor",
    "prerefund_cbor",
    "refund_cbor",
    "refund_token_cbor",
    "refund_token_credits",
    "refund_token_nullifier",
];

/// Whether a case looks like an ACT run.
pub(crate) fn detect(first: &Map<String, Value>) -> bool {
    first.contains_key("spend_proof_cbor") && first.contains_key("domain_separator")
}

struct Run<'a> {
    index: usize,
    fields: &'a Map<String, Value>,
}

impl<'a> Run<'a> {
    fn error(&self, field: &str, problem: impl Into<String>) -> VectorError {
        VectorError::Field { case: self.index, field: field.into(), problem: problem.into() }
    }

    fn str(&self, field: &str) -> Result<&'a str, VectorError> {
        let v = self.fields.get(field).ok_or_else(|| self.error(field, "missing"))?;
        v.as_str().ok_or_else(|| self.error(field, "not a string"))
    }

    fn hex(&self, field: &str) -> Result<Vec<u8>, VectorError> {
        decode_hex(self.str(field)?).map_err(|why| self.error(field, why))
    }

    fn hex32(&self, field: &str) -> Result<[u8; 32], VectorError> {
        self.hex(field)?.try_into().map_err(|_| self.error(field, "not 32 bytes"))
    }

    fn num(&self, field: &str) -> Result<u128, VectorError> {
        let v = self.fields.get(field).ok_or_else(|| self.error(field, "missing"))?;
        match v {
            Value::Number(n) => n.as_u64().map(u128::from).ok_or_else(|| self.error(field, "not an unsigned integer")),
            Value::String(s) => s.parse::<u128>().map_err(|e| self.error(field, e.to_string())),
            _ => Err(self.error(field, "not a number")),
        }
    }
}

pub(crate) fn verify(file: &Value) -> Result<Report, VectorError> {
    let items = file.as_array().ok_or_else(|| VectorError::Format("top level is not an array".into()))?;
    let mut report = Report::default();
    for (index, item) in items.iter().enumerate() {
        let fields = item.as_object().ok_or_else(|| VectorError::Format(format!("case {index} is not an object")))?;
        let run = Run { index, fields };
        let l = run.num("L")?;
        macro_rules! dispatch {
            ($($n:literal),*) => {
                match l {
                    $($n => check::<$n>(&run)?,)*
                    _ => return Err(run.error("L", format!("L = {l}: this harness runs {BIT_LENGTHS:?}"))),
                }
            };
        }
        let outcome = dispatch!(1, 8, 16, 32, 64, 128);
        report.record(index, outcome);
    }
    Ok(report)
}

/// The inputs of a run.
struct Inputs {
    ds: Vec<u8>,
    seed: [u8; 32],
    c: u128,
    s: u128,
    t: u128,
    ctx: [u8; 32],
}

/// The outputs of a run, hex-decoded, by name.
type Outputs = Vec<(&'static str, Vec<u8>)>;

fn check<const L: usize>(run: &Run<'_>) -> Result<Result<(), String>, VectorError> {
    let inputs = Inputs {
        ds: run.str("domain_separator")?.as_bytes().to_vec(),
        seed: run.hex32("rng_seed")?,
        c: run.num("c")?,
        s: run.num("s")?,
        t: run.num("t")?,
        ctx: run.hex32("ctx")?,
    };
    let remaining = run.num("remaining_balance")?;
    let mut expected = Vec::new();
    for name in OUTPUTS {
        expected.push((name, run.hex(name)?));
    }
    let computed = match compute::<L>(&inputs) {
        Ok(c) => c,
        Err(e) => return Ok(Err(e)),
    };
    for ((name, got), (_, want)) in computed.0.iter().zip(&expected) {
        if let Err(e) = expect_eq(name, got, want) {
            return Ok(Err(e));
        }
    }
    if computed.1 != remaining {
        return Ok(Err(format!("remaining_balance: computed {} but the file has {remaining}", computed.1)));
    }
    Ok(round_trips::<L>(&expected))
}

/// One run through the library; the outputs in [`OUTPUTS`] order and the
/// remaining balance.
fn compute<const L: usize>(i: &Inputs) -> Result<(Outputs, u128), String> {
    let e = |step: &'static str| move |e: pat::Error| format!("{step}: {e}");
    let params = Params::from_domain_separator(&i.ds);
    let mut rng = ChaCha20Rng::from_seed(i.seed);
    let sk = PrivateKey::generate(&mut rng).map_err(e("key generation"))?;
    let pre = PreIssuance::random(&mut rng).map_err(e("pre-issuance"))?;
    let request = pre.request(&params, &mut rng).map_err(e("request"))?;
    let response = sk.issue::<L, _>(&params, &request, i.c, &i.ctx, &mut rng).map_err(e("issue"))?;
    let token = pre.to_credit_token::<L>(&params, sk.public_key(), &request, &response).map_err(e("token"))?;
    let (proof, pre_refund) = token.prove_spend::<L, _>(&params, i.s, &mut rng).map_err(e("spend"))?;
    let mut proof_bytes = std::vec![0u8; SpendProof::<L>::LEN];
    proof.encode(&mut proof_bytes).map_err(e("spend proof"))?;
    let refund = sk.refund::<L, _>(&params, &proof, i.t, &mut rng).map_err(e("refund"))?;
    let new_token =
        pre_refund.to_credit_token::<L>(&params, &proof, &refund, sk.public_key()).map_err(e("refund token"))?;
    let charge = scalar_bytes(proof.charge().map_err(e("charge"))?);
    let credits = new_token.credits::<L>().map_err(e("credits"))?;
    let credits_bytes = scalar_bytes(credits);
    let outputs = std::vec![
        ("sk_cbor", sk.to_cbor().to_vec()),
        ("pk_cbor", sk.public_key().to_cbor().to_vec()),
        ("preissuance_cbor", pre.to_cbor().to_vec()),
        ("issuance_request_cbor", request.to_cbor().to_vec()),
        ("issuance_response_cbor", response.to_cbor().to_vec()),
        ("credit_token_cbor", token.to_cbor().to_vec()),
        ("nullifier", proof.nullifier().to_vec()),
        ("context", proof.context().to_vec()),
        ("charge", charge.to_vec()),
        ("spend_proof_cbor", proof_bytes),
        ("prerefund_cbor", pre_refund.to_cbor().to_vec()),
        ("refund_cbor", refund.to_cbor().to_vec()),
        ("refund_token_cbor", new_token.to_cbor().to_vec()),
        ("refund_token_credits", credits_bytes.to_vec()),
        ("refund_token_nullifier", new_token.nullifier().to_vec()),
    ];
    Ok((outputs, credits))
}

/// An amount as a scalar's encoding: 32 bytes little endian.
fn scalar_bytes(amount: u128) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (o, b) in out.iter_mut().zip(amount.to_le_bytes()) {
        *o = b;
    }
    out
}

/// Every message of the file decodes and re-encodes to its bytes.
fn round_trips<const L: usize>(expected: &Outputs) -> Result<(), String> {
    let get = |name: &str| expected.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_slice()).unwrap_or_default();
    let check = |name: &str, again: Result<Vec<u8>, pat::Error>| -> Result<(), String> {
        let again = again.map_err(|e| format!("{name}: does not decode: {e}"))?;
        expect_eq(name, &again, get(name))
    };
    check("sk_cbor", PrivateKey::from_cbor(get("sk_cbor")).map(|k| k.to_cbor().to_vec()))?;
    check("pk_cbor", PublicKey::from_cbor(get("pk_cbor")).map(|k| k.to_cbor().to_vec()))?;
    check("preissuance_cbor", PreIssuance::from_cbor(get("preissuance_cbor")).map(|k| k.to_cbor().to_vec()))?;
    check(
        "issuance_request_cbor",
        IssuanceRequest::from_cbor(get("issuance_request_cbor")).map(|m| m.to_cbor().to_vec()),
    )?;
    check(
        "issuance_response_cbor",
        IssuanceResponse::from_cbor(get("issuance_response_cbor")).map(|m| m.to_cbor().to_vec()),
    )?;
    for name in ["credit_token_cbor", "refund_token_cbor"] {
        check(name, CreditToken::from_cbor(get(name)).map(|m| m.to_cbor().to_vec()))?;
    }
    check(
        "spend_proof_cbor",
        SpendProof::<L>::from_cbor(get("spend_proof_cbor")).and_then(|m| {
            let mut out = std::vec![0u8; SpendProof::<L>::LEN];
            m.encode(&mut out).map(|_| out)
        }),
    )?;
    check("prerefund_cbor", PreRefund::from_cbor(get("prerefund_cbor")).map(|m| m.to_cbor().to_vec()))?;
    check("refund_cbor", Refund::from_cbor(get("refund_cbor")).map(|m| m.to_cbor().to_vec()))
}

/// `count` fresh runs: the draft's domain separator, random seeds, L
/// alternating 8 and 64, random amounts (0 < c < 2^L, s ≤ c, t ≤ s) and a
/// random context below 2^248.
pub(crate) fn generate(count: usize) -> Result<Value, VectorError> {
    let fail = |e: String| VectorError::Format(e);
    let mut cases = Vec::new();
    for n in 0..count {
        let (mut seed, mut ctx, mut words) = ([0u8; 32], [0u8; 32], [0u64; 3]);
        let os = |e: getrandom::Error| VectorError::Format(e.to_string());
        getrandom::fill(&mut seed).map_err(os)?;
        getrandom::fill(ctx.get_mut(..31).unwrap_or_default()).map_err(os)?;
        for w in words.iter_mut() {
            *w = getrandom::u64().map_err(os)?;
        }
        let [w0, w1, w2] = words.map(u128::from);
        let l: usize = if n % 2 == 0 { 8 } else { 64 };
        let max = (1u128 << l) - 1;
        let c = w0 % max + 1;
        let s = w1 % (c + 1);
        let t = w2 % (s + 1);
        let inputs = Inputs { ds: b"ACT-v1:test:vectors:v0:2025-01-01".to_vec(), seed, c, s, t, ctx };
        let (outputs, remaining) = if l == 8 { compute::<8>(&inputs) } else { compute::<64>(&inputs) }.map_err(fail)?;
        let mut case = json!({
            "domain_separator": "ACT-v1:test:vectors:v0:2025-01-01",
            "L": l,
            "rng_seed": encode_hex(&inputs.seed),
            "c": c.to_string(),
            "s": s.to_string(),
            "t": t.to_string(),
            "ctx": encode_hex(&ctx),
            "remaining_balance": remaining.to_string(),
        });
        if let Some(obj) = case.as_object_mut() {
            for (name, bytes) in outputs {
                obj.insert(name.into(), encode_hex(&bytes).into());
            }
        }
        cases.push(case);
    }
    Ok(Value::Array(cases))
}
