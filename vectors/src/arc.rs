//! ARC(P-256), draft-ietf-privacypass-arc-crypto-01 (kind `arc`): the
//! draft's `poc/vectors/allVectors.json`, an object keyed by suite name
//! (`"ARCV1-P256"`), each suite with the groups `ServerKey`,
//! `CredentialRequest`, `CredentialResponse`, `Credential`, `Presentation1`
//! and `Presentation2`. Each group is one case (six per suite).
//!
//! Every case is checked three ways, and fails if any check does:
//!
//! 1. **The protocol again.** The whole protocol is re-run through the
//!    draft's test generator (`pat::hazmat::crypto::arc::TestDrng`), seeded with
//!    `"test vector seed"` and 16 zero bytes (or the suite's `"seed"`, which
//!    only generated files carry), drawing in the draft's order: keygen,
//!    request, response, finalize, present, present, with the presentation
//!    limit 2 of the draft's `test_vectors.sage` (the file does not store the
//!    limit; every presentation must be as long as limit 2 makes it). Every
//!    field of the group is compared byte for byte with what the run gives.
//!    `m2` is `HashToScalar(request_context, "requestContext")`, computed
//!    here with the `p256` crate's RFC 9380 `hash_to_field`; the blinds the
//!    library keeps to itself (`b`; `a`, `r`, `z`, `nonce_blinding`) are the
//!    generator's next protocol scalars at the step that draws them, read
//!    with a second generator of the same seed run up to that step
//!    (`TestDrng::next_protocol_scalar`: the first protocol scalars of the
//!    step, in that order).
//! 2. **The algebra of the scalars.** Independent of the generator: `m1_enc =
//!    m1·G + r1·H`, `m2_enc = m2·G + r2·H`, `U = b·G`, `H_aux = b·H`, and for
//!    a presentation `U = a·Credential.U`, `U_prime_commit = a·U_prime + r·G`,
//!    `m1_commit = m1·U + z·H`, `nonce_commit = nonce·G + nonce_blinding·H`,
//!    with H = `HashToGroup(SerializeElement(G), "generatorH")`; `D_0` is the
//!    first element of `proof`, and with limit 2 equals `nonce_commit`.
//! 3. **The published messages from their bytes alone.** The server key from
//!    x0 ‖ x1 ‖ x2 ‖ xb has the public key X0 ‖ X1 ‖ X2; a server accepts the
//!    decoded request (its proof verifies); the client state m1 ‖ r1 ‖ r2 ‖
//!    m1_enc ‖ m2_enc finalizes the decoded response under X0 ‖ X1 ‖ X2 into
//!    the `Credential` group's values; the server of the file's key verifies
//!    each decoded presentation for the file's contexts, and reads its tag.
//!
//! A field missing, of the wrong form, or not of the schema is a
//! [`VectorError`]; so is a suite other than `ARCV1-P256`.

use std::collections::BTreeMap;
use std::format;
use std::string::{String, ToString};
use std::vec::Vec;

use p256::elliptic_curve::PrimeField;
use p256::elliptic_curve::array::Array;
use p256::elliptic_curve::consts::U48;
use p256::elliptic_curve::group::GroupEncoding;
use p256::hash2curve::{ExpandMsgXmd, hash_from_bytes, hash_to_scalar};
use p256::{AffinePoint, NistP256, ProjectivePoint, Scalar};
use serde_json::{Map, Value};
use sha2::Sha256;

use super::{Report, VectorError, decode_hex, encode_hex, expect_eq};
use pat::crypto::arc::messages::presentation_len;
use pat::crypto::arc::{
    CONTEXT_STRING, Credential, CredentialRequest, CredentialRequestState, CredentialResponse, PresentationRef,
    PresentationState, ServerPrivateKey, ServerPublicKey,
};
use pat::hazmat::crypto::arc::{self as hazmat, TestDrng};

/// The one suite this build implements.
pub(crate) const SUITE: &str = "ARCV1-P256";
/// The groups of a suite, in the protocol's order: one case each.
pub(crate) const GROUPS: [&str; 6] =
    ["ServerKey", "CredentialRequest", "CredentialResponse", "Credential", "Presentation1", "Presentation2"];
/// The presentation limit of the draft's vectors (`presentation_limit = 2`
/// in `test_vectors.sage`).
const LIMIT: u64 = 2;
/// The contexts of the draft's vectors, which generated files use too.
const REQUEST_CONTEXT: &[u8] = b"test request context";
const PRESENTATION_CONTEXT: &[u8] = b"test presentation context";
/// The suite's optional field naming the generator's seed (hex, 32 bytes).
const SEED: &str = "seed";

const PRESENTATION_FIELDS: &[&str] = &[
    "D_0",
    "U",
    "U_prime_commit",
    "a",
    "m1_commit",
    "nonce",
    "nonce_blinding",
    "nonce_commit",
    "presentation_context",
    "proof",
    "r",
    "tag",
    "z",
];

/// The fields of each group, as the draft writes them.
const FIELDS: [&[&str]; 6] = [
    &["X0", "X1", "X2", "x0", "x1", "x2", "xb"],
    &["m1", "m1_enc", "m2", "m2_enc", "proof", "r1", "r2", "request_context"],
    &["H_aux", "U", "X0_aux", "X1_aux", "X2_aux", "b", "enc_U_prime", "proof"],
    &["U", "U_prime", "X1", "m1"],
    PRESENTATION_FIELDS,
    PRESENTATION_FIELDS,
];

/// The seed of the draft's vectors: `"test vector seed"` and 16 zero bytes.
pub(crate) fn default_seed() -> [u8; 32] {
    let mut seed = [0u8; 32];
    for (slot, b) in seed.iter_mut().zip(b"test vector seed") {
        *slot = *b;
    }
    seed
}

/// One group's values: hex fields as bytes; `nonce` (written `0x…`) as its
/// big-endian value in 8 bytes.
type Group = BTreeMap<&'static str, Vec<u8>>;

/// A suite: its seed and its six groups, in the order of [`GROUPS`].
struct Suite {
    seed: [u8; 32],
    groups: [Group; 6],
}

fn get<'a>(group: &'a Group, name: &str) -> &'a [u8] {
    group.get(name).map(Vec::as_slice).unwrap_or_default()
}

fn field_error(case: usize, field: String, problem: impl Into<String>) -> VectorError {
    VectorError::Field { case, field, problem: problem.into() }
}

/// Reads one suite (`index` counts suites from 0; its cases are numbered
/// from `6 · index`).
fn parse_suite(index: usize, name: &str, value: &Value) -> Result<Suite, VectorError> {
    let first = index * GROUPS.len();
    if name != SUITE {
        return Err(field_error(first, name.into(), format!("unknown suite; this build implements {SUITE} only")));
    }
    let obj = value.as_object().ok_or_else(|| field_error(first, name.into(), "not an object"))?;
    for key in obj.keys() {
        if key != SEED && !GROUPS.contains(&key.as_str()) {
            return Err(field_error(first, key.clone(), "not a group of the arc schema"));
        }
    }
    let seed = match obj.get(SEED) {
        None => default_seed(),
        Some(v) => {
            let bytes = v
                .as_str()
                .ok_or_else(|| field_error(first, SEED.into(), "not a string"))
                .and_then(|s| decode_hex(s).map_err(|why| field_error(first, SEED.into(), why)))?;
            <[u8; 32]>::try_from(bytes.as_slice())
                .map_err(|_| field_error(first, SEED.into(), format!("expected 32 bytes, found {}", bytes.len())))?
        }
    };
    let mut groups: [Group; 6] = Default::default();
    for (g, (slot, (group, fields))) in groups.iter_mut().zip(GROUPS.iter().zip(FIELDS)).enumerate() {
        let case = first + g;
        let at = |f: &str| format!("{group}.{f}");
        let map: &Map<String, Value> = obj
            .get(*group)
            .ok_or_else(|| field_error(case, (*group).into(), "missing"))?
            .as_object()
            .ok_or_else(|| field_error(case, (*group).into(), "not an object"))?;
        for key in map.keys() {
            if !fields.contains(&key.as_str()) {
                return Err(field_error(case, at(key), "not a field of the arc schema"));
            }
        }
        for &f in fields {
            let s = map
                .get(f)
                .ok_or_else(|| field_error(case, at(f), "missing"))?
                .as_str()
                .ok_or_else(|| field_error(case, at(f), "not a string"))?;
            let bytes = if f == "nonce" {
                let digits = s.strip_prefix("0x").ok_or_else(|| field_error(case, at(f), "not 0x-prefixed hex"))?;
                let n = u64::from_str_radix(digits, 16).map_err(|e| field_error(case, at(f), e.to_string()))?;
                n.to_be_bytes().to_vec()
            } else {
                decode_hex(s).map_err(|why| field_error(case, at(f), why))?
            };
            slot.insert(f, bytes);
        }
    }
    Ok(Suite { seed, groups })
}

/// Checks every suite of an `arc` file: six cases each.
pub(crate) fn verify(file: &Value) -> Result<Report, VectorError> {
    let suites = file.as_object().ok_or_else(|| VectorError::Format("top level is not an object of suites".into()))?;
    let mut report = Report::default();
    for (index, (name, value)) in suites.iter().enumerate() {
        let suite = parse_suite(index, name, value)?;
        let outcomes = check(&suite);
        for (g, outcome) in outcomes.into_iter().enumerate() {
            let group = GROUPS.get(g).copied().unwrap_or_default();
            report.record(index * GROUPS.len() + g, outcome.map_err(|what| format!("{group}: {what}")));
        }
    }
    Ok(report)
}

/// The six groups' outcomes for one suite.
fn check(suite: &Suite) -> [Result<(), String>; 6] {
    let [sk, req, resp, cred, p1, p2] = &suite.groups;
    let rctx = get(req, "request_context");
    let pctx = get(p1, "presentation_context");
    let run = run(&suite.seed, rctx, pctx);
    let computed = |g: usize| -> Result<&Group, String> {
        match &run {
            Ok(groups) => groups.get(g).ok_or_else(|| "no such group".to_string()),
            Err(e) => Err(format!("the protocol run failed: {e}")),
        }
    };
    let same = |g: usize, file: &Group| -> Result<(), String> {
        let computed = computed(g)?;
        for (name, value) in file {
            expect_eq(name, get(computed, name), value)?;
        }
        Ok(())
    };
    let h = generator_h();
    [
        same(0, sk).and_then(|()| published_server_key(sk)),
        same(1, req).and_then(|()| request_algebra(req, h)).and_then(|()| published_request(req)),
        same(2, resp).and_then(|()| response_algebra(resp, h)).and_then(|()| published_response(resp)),
        same(3, cred).and_then(|()| published_credential(sk, req, resp, cred)),
        same(4, p1)
            .and_then(|()| presentation_algebra(cred, p1, h))
            .and_then(|()| published_presentation(sk, rctx, p1)),
        same(5, p2)
            .and_then(|()| presentation_algebra(cred, p2, h))
            .and_then(|()| published_presentation(sk, rctx, p2)),
    ]
}

fn e(step: &str) -> impl Fn(pat::Error) -> String + '_ {
    move |err| format!("{step}: {err}")
}

/// The protocol through the test generator, as six groups in the file's
/// shape (the contexts echoed).
fn run(seed: &[u8; 32], rctx: &[u8], pctx: &[u8]) -> Result<[Group; 6], String> {
    let mut drng = TestDrng::new(seed);
    let key = hazmat::server_keygen(&mut drng).map_err(e("keygen"))?;
    let (state, request) = hazmat::credential_request(&[rctx], &mut drng).map_err(e("request"))?;
    let response = hazmat::credential_response(&key, &request, &mut drng).map_err(e("response"))?;
    let credential = state.finalize(key.public_key(), &response).map_err(e("finalize"))?;
    let c = credential.export();
    let mut pstate = PresentationState::new(&credential, &[pctx], LIMIT).map_err(e("presentation state"))?;
    let mut presentations = [Vec::new(), Vec::new()];
    let mut nonces = [0u32; 2];
    for (slot, nonce) in presentations.iter_mut().zip(nonces.iter_mut()) {
        let mut out = [0u8; 1024];
        let p = hazmat::present(&mut pstate, &mut drng, &mut out).map_err(e("present"))?;
        *nonce = p.nonce;
        *slot = out.get(..p.len).unwrap_or_default().to_vec();
    }

    let sk = key.to_bytes();
    let pk = key.public_key().to_bytes();
    let st = state.export();
    let req = request.to_bytes();
    let resp = response.to_bytes();
    let m2 = hash_to_scalar_arc(rctx, b"requestContext").ok_or("HashToScalar failed")?;
    let b = next_scalars(seed, rctx, pctx, 2)?;
    let blinds = [next_scalars(seed, rctx, pctx, 3)?, next_scalars(seed, rctx, pctx, 4)?];

    let cut = |bytes: &[u8], from: usize, to: usize| bytes.get(from..to).unwrap_or_default().to_vec();
    let mut groups: [Group; 6] = Default::default();
    let [g_sk, g_req, g_resp, g_cred, g_p1, g_p2] = &mut groups;
    for (i, name) in ["x0", "x1", "x2", "xb"].into_iter().enumerate() {
        g_sk.insert(name, cut(&sk[..], 32 * i, 32 * (i + 1)));
    }
    for (i, name) in ["X0", "X1", "X2"].into_iter().enumerate() {
        g_sk.insert(name, cut(&pk, 33 * i, 33 * (i + 1)));
    }
    g_req.insert("m1", cut(&st[..], 0, 32));
    g_req.insert("r1", cut(&st[..], 32, 64));
    g_req.insert("r2", cut(&st[..], 64, 96));
    g_req.insert("m2", m2.to_repr().to_vec());
    g_req.insert("m1_enc", cut(&req, 0, 33));
    g_req.insert("m2_enc", cut(&req, 33, 66));
    g_req.insert("proof", cut(&req, 66, req.len()));
    g_req.insert("request_context", rctx.to_vec());
    for (i, name) in ["U", "enc_U_prime", "X0_aux", "X1_aux", "X2_aux", "H_aux"].into_iter().enumerate() {
        g_resp.insert(name, cut(&resp, 33 * i, 33 * (i + 1)));
    }
    g_resp.insert("proof", cut(&resp, 198, resp.len()));
    g_resp.insert("b", cut(&b, 0, 32));
    g_cred.insert("m1", cut(&c[..], 0, 32));
    g_cred.insert("U", cut(&c[..], 32, 65));
    g_cred.insert("U_prime", cut(&c[..], 65, 98));
    g_cred.insert("X1", cut(&c[..], 98, 131));
    for ((group, bytes), (nonce, blinds)) in
        [g_p1, g_p2].into_iter().zip(&presentations).zip(nonces.iter().zip(&blinds))
    {
        for (i, name) in ["U", "U_prime_commit", "m1_commit", "tag", "nonce_commit"].into_iter().enumerate() {
            group.insert(name, cut(bytes, 33 * i, 33 * (i + 1)));
        }
        group.insert("D_0", cut(bytes, 165, 198));
        group.insert("proof", cut(bytes, 165, bytes.len()));
        group.insert("nonce", u64::from(*nonce).to_be_bytes().to_vec());
        for (i, name) in ["a", "r", "z", "nonce_blinding"].into_iter().enumerate() {
            group.insert(name, cut(blinds, 32 * i, 32 * (i + 1)));
        }
        group.insert("presentation_context", pctx.to_vec());
    }
    Ok(groups)
}

/// The next four protocol scalars of the generator after `steps` steps
/// (1 keygen, 2 request, 3 response, 4 the first presentation): a second
/// generator of the same seed is run that far, and
/// [`TestDrng::next_protocol_scalar`] reads them. The response draws `b`
/// first; a presentation draws `a`, `r`, `z`, `nonce_blinding` first.
fn next_scalars(seed: &[u8; 32], rctx: &[u8], pctx: &[u8], steps: usize) -> Result<[u8; 128], String> {
    let mut drng = TestDrng::new(seed);
    let draw = |drng: &mut TestDrng| -> Result<[u8; 128], String> {
        let mut out = [0u8; 128];
        for chunk in out.chunks_exact_mut(32) {
            chunk.copy_from_slice(&drng.next_protocol_scalar());
        }
        Ok(out)
    };
    let key = hazmat::server_keygen(&mut drng).map_err(e("keygen"))?;
    if steps == 1 {
        return draw(&mut drng);
    }
    let (state, request) = hazmat::credential_request(&[rctx], &mut drng).map_err(e("request"))?;
    if steps == 2 {
        return draw(&mut drng);
    }
    let response = hazmat::credential_response(&key, &request, &mut drng).map_err(e("response"))?;
    if steps == 3 {
        return draw(&mut drng);
    }
    let credential = state.finalize(key.public_key(), &response).map_err(e("finalize"))?;
    let mut pstate = PresentationState::new(&credential, &[pctx], LIMIT).map_err(e("presentation state"))?;
    let mut out = [0u8; 1024];
    hazmat::present(&mut pstate, &mut drng, &mut out).map_err(e("present"))?;
    if steps == 4 {
        return draw(&mut drng);
    }
    Err(format!("no step {steps}"))
}

// ---- The algebra, with the p256 crate alone ----

/// `HashToScalar(msg, info)` (§6.1): `hash_to_field` with L = 48 under
/// `"HashToScalar-" ‖ contextString ‖ info`.
fn hash_to_scalar_arc(msg: &[u8], info: &[u8]) -> Option<Scalar> {
    hash_to_scalar::<NistP256, ExpandMsgXmd<Sha256>, U48>(&[msg], &[b"HashToScalar-", CONTEXT_STRING, info]).ok()
}

/// generatorH = `HashToGroup(SerializeElement(generatorG), "generatorH")`.
fn generator_h() -> Option<ProjectivePoint> {
    let g = ProjectivePoint::GENERATOR.to_affine().to_bytes();
    hash_from_bytes::<NistP256, ExpandMsgXmd<Sha256>>(
        &[g.as_slice()],
        &[b"HashToGroup-", CONTEXT_STRING, b"generatorH"],
    )
    .ok()
}

fn scalar(group: &Group, name: &str) -> Result<Scalar, String> {
    let bytes: [u8; 32] = get(group, name).try_into().map_err(|_| format!("{name}: not 32 bytes"))?;
    Option::from(Scalar::from_repr(Array::from(bytes))).ok_or_else(|| format!("{name}: not a scalar below the order"))
}

fn point(group: &Group, name: &str) -> Result<ProjectivePoint, String> {
    let bytes: [u8; 33] = get(group, name).try_into().map_err(|_| format!("{name}: not 33 bytes"))?;
    Option::<AffinePoint>::from(AffinePoint::from_bytes(&Array::from(bytes)))
        .map(ProjectivePoint::from)
        .ok_or_else(|| format!("{name}: not a point"))
}

/// The group's element `field` is the point `sum` (`what` names the sum).
fn relation(group: &Group, field: &str, what: &str, sum: ProjectivePoint) -> Result<(), String> {
    let expected = point(group, field)?;
    if sum == expected { Ok(()) } else { Err(format!("{field} is not {what}")) }
}

fn request_algebra(req: &Group, h: Option<ProjectivePoint>) -> Result<(), String> {
    let h = h.ok_or("generatorH")?;
    let g = ProjectivePoint::GENERATOR;
    let m2 = hash_to_scalar_arc(get(req, "request_context"), b"requestContext").ok_or("HashToScalar failed")?;
    if scalar(req, "m2")? != m2 {
        return Err("m2 is not HashToScalar(request_context, \"requestContext\")".into());
    }
    let (m1, r1, r2) = (scalar(req, "m1")?, scalar(req, "r1")?, scalar(req, "r2")?);
    relation(req, "m1_enc", "m1·G + r1·H", g * m1 + h * r1)?;
    relation(req, "m2_enc", "m2·G + r2·H", g * m2 + h * r2)
}

fn response_algebra(resp: &Group, h: Option<ProjectivePoint>) -> Result<(), String> {
    let h = h.ok_or("generatorH")?;
    let b = scalar(resp, "b")?;
    relation(resp, "U", "b·G", ProjectivePoint::GENERATOR * b)?;
    relation(resp, "H_aux", "b·H", h * b)
}

fn presentation_algebra(cred: &Group, p: &Group, h: Option<ProjectivePoint>) -> Result<(), String> {
    let h = h.ok_or("generatorH")?;
    let g = ProjectivePoint::GENERATOR;
    let (a, r, z, nb) = (scalar(p, "a")?, scalar(p, "r")?, scalar(p, "z")?, scalar(p, "nonce_blinding")?);
    let m1 = scalar(cred, "m1")?;
    let nonce: [u8; 8] = get(p, "nonce").try_into().map_err(|_| "nonce")?;
    let nonce = Scalar::from(u64::from_be_bytes(nonce));
    let u = point(p, "U")?;
    relation(p, "U", "a·Credential.U", point(cred, "U")? * a)?;
    relation(p, "U_prime_commit", "a·Credential.U_prime + r·G", point(cred, "U_prime")? * a + g * r)?;
    relation(p, "m1_commit", "m1·U + z·H", u * m1 + h * z)?;
    relation(p, "nonce_commit", "nonce·G + nonce_blinding·H", g * nonce + h * nb)?;
    let proof = get(p, "proof");
    expect_eq("D_0 (the proof's first element)", proof.get(..33).unwrap_or_default(), get(p, "D_0"))?;
    // Limit 2: one range-proof base, so D_0 carries the whole commitment.
    expect_eq("D_0 (nonce_commit, limit 2)", get(p, "nonce_commit"), get(p, "D_0"))
}

// ---- The published messages, from their bytes ----

fn concat(group: &Group, names: &[&str]) -> Vec<u8> {
    names.iter().flat_map(|n| get(group, n).iter().copied()).collect()
}

fn file_key(sk: &Group) -> Result<ServerPrivateKey, String> {
    ServerPrivateKey::from_bytes(&concat(sk, &["x0", "x1", "x2", "xb"])).map_err(e("ServerKey x0 ‖ x1 ‖ x2 ‖ xb"))
}

fn file_public_key(sk: &Group) -> Result<ServerPublicKey, String> {
    ServerPublicKey::decode(&concat(sk, &["X0", "X1", "X2"])).map_err(e("ServerKey X0 ‖ X1 ‖ X2"))
}

fn published_server_key(sk: &Group) -> Result<(), String> {
    let key = file_key(sk)?;
    let pk = file_public_key(sk)?;
    expect_eq("X0 ‖ X1 ‖ X2 from x0 ‖ x1 ‖ x2 ‖ xb", &key.public_key().to_bytes(), &pk.to_bytes())
}

fn published_request(req: &Group) -> Result<(), String> {
    let request = CredentialRequest::decode(&concat(req, &["m1_enc", "m2_enc", "proof"])).map_err(e("request"))?;
    // Any server checks the request proof; a fresh key is one.
    let mut rng = rand_core::UnwrapErr(pat::OsRng);
    let key = ServerPrivateKey::generate(&mut rng).map_err(e("keygen"))?;
    key.respond(&request, &mut rng).map(drop).map_err(e("the server refuses the request"))
}

fn published_response(resp: &Group) -> Result<(), String> {
    let fields = ["U", "enc_U_prime", "X0_aux", "X1_aux", "X2_aux", "H_aux", "proof"];
    CredentialResponse::decode(&concat(resp, &fields)).map(drop).map_err(e("response"))
}

fn published_credential(sk: &Group, req: &Group, resp: &Group, cred: &Group) -> Result<(), String> {
    let fields = ["U", "enc_U_prime", "X0_aux", "X1_aux", "X2_aux", "H_aux", "proof"];
    let response = CredentialResponse::decode(&concat(resp, &fields)).map_err(e("response"))?;
    let state = CredentialRequestState::import(&concat(req, &["m1", "r1", "r2", "m1_enc", "m2_enc"]))
        .map_err(e("request state"))?;
    let credential = state.finalize(&file_public_key(sk)?, &response).map_err(e("the client refuses the response"))?;
    expect_eq(
        "m1 ‖ U ‖ U_prime ‖ X1 (finalized)",
        &credential.export()[..],
        &concat(cred, &["m1", "U", "U_prime", "X1"]),
    )?;
    Credential::import(&credential.export()[..]).map(drop).map_err(e("credential"))
}

fn published_presentation(sk: &Group, rctx: &[u8], p: &Group) -> Result<(), String> {
    let bytes = concat(p, &["U", "U_prime_commit", "m1_commit", "tag", "nonce_commit", "proof"]);
    let expected = presentation_len(LIMIT).map_err(e("limit"))?;
    if bytes.len() != expected {
        return Err(format!("the presentation is {} bytes, not the {expected} of limit {LIMIT}", bytes.len()));
    }
    let parsed = PresentationRef::decode(&bytes, LIMIT).map_err(e("presentation"))?;
    let pctx = get(p, "presentation_context");
    file_key(sk)?
        .verify_presentation(&[rctx], &[pctx], &parsed, LIMIT)
        .map_err(e("the server refuses the presentation"))?;
    expect_eq("tag (decoded)", parsed.tag(), get(p, "tag"))
}

// ---- Generation ----

/// One fresh suite of six cases: a random 32-byte seed (written as
/// `"seed"`), the draft's contexts and limit 2.
pub(crate) fn generate() -> Result<Value, VectorError> {
    let mut seed = [0u8; 32];
    rand_core::Rng::fill_bytes(&mut rand_core::UnwrapErr(pat::OsRng), &mut seed);
    let groups = run(&seed, REQUEST_CONTEXT, PRESENTATION_CONTEXT)
        .map_err(|why| VectorError::Format(format!("generation failed: {why}")))?;
    let mut suite = Map::new();
    for (name, group) in GROUPS.iter().zip(&groups) {
        let mut obj = Map::new();
        for (field, bytes) in group {
            let text = if *field == "nonce" {
                let n: [u8; 8] = bytes.as_slice().try_into().unwrap_or_default();
                format!("{:#x}", u64::from_be_bytes(n))
            } else {
                encode_hex(bytes)
            };
            obj.insert((*field).into(), Value::String(text));
        }
        suite.insert((*name).into(), Value::Object(obj));
    }
    suite.insert(SEED.into(), Value::String(encode_hex(&seed)));
    let mut file = Map::new();
    file.insert(SUITE.into(), Value::Object(suite));
    Ok(Value::Object(file))
}
