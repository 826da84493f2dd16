//! Type 0xDA7B issuance (kind `type-da7b`): privately verifiable tokens with
//! public metadata on POPRF(P-384, SHA-384)
//! (draft-ietf-privacypass-public-metadata-issuance §5, RFC 9497 §3.3.3).
//!
//! No other implementation publishes vectors of this type, so the schema is
//! pat's: the fields of pat-go's type-1 files, plus the request's
//! `extensions` (the Extensions encoding, length prefix included, which is
//! the POPRF `info`), the issuer's `proof_random_scalar` (RFC 9497
//! Appendix A's name for the `r` of `GenerateProof`), the `token_key_id`
//! and, optionally, the `seed` the key was derived from
//! (`DeriveKeyPair(seed, "PrivacyPass-TypeDA7B")`, draft §5.5).
//!
//! Every step is deterministic given those fields, so everything is compared
//! byte for byte: the key (from the seed when present), the request, the
//! response (proof included) and the token. The file's response must then
//! finalize to the file's token, a randomized evaluation must give the same
//! token, and the token must verify at the issuer with its extensions and
//! fail with other ones. `tools/poprf_da7b.py` checks the same files from
//! the RFC formulas, outside the library.

use std::format;
use std::string::String;
use std::vec::Vec;

use serde_json::{Value, json};

use super::type2::encode;
use super::{Case, VectorError, encode_hex, expect_eq};
use pat::crypto::voprf::{ByteArray, KeyPair, P384Sha384, SecretKey, Suite};
use pat::tokens::poprf::{Issuer, Token, TokenRequest, TokenResponse};
use pat::wire::challenge::TokenChallenge;
use pat::wire::codec::Decode;
use pat::wire::extensions::{Extensions, ExtensionsWriter};
use pat::wire::token_type::{PublicMetadataP384, TokenType};

type S = P384Sha384;
type ScalarBytes = <S as Suite>::ScalarBytes;

pub(crate) fn verify(case: &Case<'_>) -> Result<Result<(), String>, VectorError> {
    let seed = if case.has("seed") { Some(case.hex(&["seed"])?) } else { None };
    let sk = case.hex(&["skS", "sk_s"])?;
    let pk = case.hex(&["pkS", "pk_s"])?;
    let key_id = case.hex_array::<32>(&["token_key_id"])?;
    let challenge_bytes = case.hex(&["token_challenge"])?;
    let extensions_bytes = case.hex(&["extensions"])?;
    let nonce = case.hex_array::<32>(&["nonce"])?;
    let blind = case.hex(&["blind"])?;
    let proof_scalar = case.hex(&["proof_random_scalar"])?;
    let request = case.hex(&["token_request"])?;
    let response = case.hex(&["token_response"])?;
    let token = case.hex(&["token"])?;
    let scalar = |bytes: &[u8], field: &str| {
        ScalarBytes::from_slice(bytes).ok_or_else(|| case.error(field, format!("expected {} bytes", S::NS)))
    };
    let sk = scalar(&sk, "skS")?;
    let blind = scalar(&blind, "blind")?;
    let proof_scalar = scalar(&proof_scalar, "proof_random_scalar")?;

    Ok((|| {
        let key = SecretKey::<S>::from_bytes(&sk).map_err(|e| format!("skS: {e}"))?;
        let issuer = Issuer::new(KeyPair::from_secret_key(key).map_err(|e| format!("skS: {e}"))?);
        if let Some(seed) = &seed {
            let derived = Issuer::derive(seed).map_err(|e| format!("DeriveKeyPair(seed): {e}"))?;
            expect_eq("skS (DeriveKeyPair of the seed)", derived.key_pair().secret_key().to_bytes().as_ref(), &sk)?;
        }
        expect_eq("pkS", issuer.token_key().as_ref(), &pk)?;
        expect_eq("token_key_id", issuer.key_id(), &key_id)?;
        let challenge = TokenChallenge::decode(&challenge_bytes).map_err(|e| format!("token_challenge: {e}"))?;
        let extensions = Extensions::decode(&extensions_bytes).map_err(|e| format!("extensions: {e}"))?;
        let client = issuer.client();

        // The request, from the nonce and the blind.
        let (req, mut state) =
            pat::hazmat::tokens::poprf::request_with(&client, &challenge, extensions, &nonce, &blind)
                .map_err(|e| format!("request: {e}"))?;
        expect_eq("token_request", &encode(&req)?, &request)?;

        // The response to the file's request, from the proof scalar.
        let parsed = TokenRequest::decode(&request).map_err(|e| format!("token_request: {e}"))?;
        expect_eq("token_request extensions", parsed.extensions.as_bytes(), &extensions_bytes)?;
        let resp = pat::hazmat::tokens::poprf::evaluate_with_nonce(&issuer, &parsed, &proof_scalar)
            .map_err(|e| format!("evaluate: {e}"))?;
        expect_eq("token_response", &encode(&resp)?, &response)?;

        // The file's response verifies and finalizes to the file's token.
        let parsed = TokenResponse::decode(&response).map_err(|e| format!("token_response: {e}"))?;
        let tok = client
            .finalize(&mut state, &extensions, &parsed)
            .map_err(|e| format!("finalize with the file's response: {e}"))?;
        expect_eq("token", &encode(&tok)?, &token)?;

        // A randomized evaluation (another proof) gives the same token: the
        // POPRF output does not depend on the proof.
        let (_, mut state) = pat::hazmat::tokens::poprf::request_with(&client, &challenge, extensions, &nonce, &blind)
            .map_err(|e| format!("request: {e}"))?;
        let parsed = TokenRequest::decode(&request).map_err(|e| format!("token_request: {e}"))?;
        let resp =
            issuer.evaluate(&parsed, &mut rand_core::UnwrapErr(pat::OsRng)).map_err(|e| format!("evaluate: {e}"))?;
        let again = client.finalize(&mut state, &extensions, &resp).map_err(|e| format!("finalize: {e}"))?;
        expect_eq("token (randomized evaluation)", &encode(&again)?, &token)?;

        // The file's token verifies with its extensions, and only with them.
        let tok = Token::decode(&token).map_err(|e| format!("token: {e}"))?;
        issuer.verify(&tok, &challenge, &extensions).map_err(|e| format!("issuer verify: {e}"))?;
        let mut buf = [0u8; 16];
        let mut w = ExtensionsWriter::new(&mut buf);
        w.push(0xFFFF, b"other").map_err(|e| format!("extensions: {e}"))?;
        let other = w.finish().map_err(|e| format!("extensions: {e}"))?;
        for (what, wrong) in [("no extensions", Extensions::EMPTY), ("other extensions", other)] {
            if wrong.as_bytes() != extensions.as_bytes() && issuer.verify(&tok, &challenge, &wrong).is_ok() {
                return Err(format!("the token also verifies with {what}"));
            }
        }
        Ok(())
    })())
}

/// A random scalar that `accept` takes (canonical and non-zero), and what
/// `accept` made of it. A random 48-byte string is not a canonical P-384
/// scalar with probability about 2^-190, so a refusal that persists is not
/// the scalar's fault: the last error after a few draws.
fn random_scalar<T>(
    rng: &mut impl rand_core::Rng,
    mut accept: impl FnMut(&ScalarBytes) -> pat::Result<T>,
) -> Result<(ScalarBytes, T), VectorError> {
    let mut last = pat::Error::InvalidScalar;
    for _ in 0..8 {
        let mut b = ScalarBytes::ZERO;
        rand_core::Rng::fill_bytes(rng, b.as_mut());
        match accept(&b) {
            Ok(value) => return Ok((b, value)),
            Err(e) => last = e,
        }
    }
    Err(VectorError::Format(format!("generation failed: {last}")))
}

/// The number of extensions of case `i`: none, one, three (two of one type),
/// two, five.
const EXTENSION_COUNTS: [usize; 5] = [0, 1, 3, 2, 5];

/// Writes case `i`'s extensions, types non-decreasing (a type may repeat),
/// data of 0 to 40 random bytes.
fn extensions_for<'b>(
    i: usize,
    rng: &mut impl rand_core::Rng,
    buf: &'b mut [u8],
) -> Result<Extensions<'b>, VectorError> {
    let err = |e: pat::Error| VectorError::Format(format!("generation failed: {e}"));
    let n = EXTENSION_COUNTS.get(i % EXTENSION_COUNTS.len()).copied().unwrap_or_default();
    let mut types: Vec<u16> =
        (0..n).map(|_| u16::try_from(rand_core::Rng::next_u32(rng) >> 16).unwrap_or_default()).collect();
    if let [first, second, _, ..] = types.as_mut_slice() {
        // A repeated type (the list is sorted, not strictly).
        *second = *first;
    }
    types.sort_unstable();
    let mut w = ExtensionsWriter::new(buf);
    for (k, ty) in types.into_iter().enumerate() {
        let mut data = [0u8; 40];
        rand_core::Rng::fill_bytes(rng, &mut data);
        // The second entry has no data; the others 1 to 40 bytes.
        let len = if k == 1 { 0 } else { usize::from(data.first().copied().unwrap_or_default()) % data.len() + 1 };
        w.push(ty, data.get(..len).unwrap_or_default()).map_err(err)?;
    }
    w.finish().map_err(err)
}

pub(crate) fn generate(count: usize) -> Result<Vec<Value>, VectorError> {
    let err = |e: pat::Error| VectorError::Format(format!("generation failed: {e}"));
    let mut rng = rand_core::UnwrapErr(pat::OsRng);
    let mut cases = Vec::new();
    for i in 0..count {
        let mut random = [0u8; 48 + 32 + 32];
        rand_core::Rng::fill_bytes(&mut rng, &mut random);
        let (seed, rest) = random.split_at(48);
        let (ctx, nonce) = rest.split_at(32);
        // A fresh key per case, derived as the draft recommends.
        let issuer = Issuer::derive(seed).map_err(err)?;
        let client = issuer.client();
        let ctx: &[u8] = if i.is_multiple_of(2) { ctx } else { &[] };
        let origin: &[u8] = if i % 3 == 2 { b"" } else { b"origin.example" };
        let challenge = TokenChallenge::new(PublicMetadataP384::CODE, b"issuer.example", ctx, origin).map_err(err)?;
        let challenge_bytes = encode(&challenge).map_err(VectorError::Format)?;
        let mut ext_buf = [0u8; 256];
        let extensions = extensions_for(i, &mut rng, &mut ext_buf)?;
        let nonce: [u8; 32] = nonce.try_into().unwrap_or_default();
        let (blind, (req, mut state)) = random_scalar(&mut rng, |b| {
            pat::hazmat::tokens::poprf::request_with(&client, &challenge, extensions, &nonce, b)
        })?;
        let (proof_scalar, resp) =
            random_scalar(&mut rng, |r| pat::hazmat::tokens::poprf::evaluate_with_nonce(&issuer, &req, r))?;
        let token = client.finalize(&mut state, &extensions, &resp).map_err(err)?;
        issuer.verify(&token, &challenge, &extensions).map_err(err)?;
        let enc = |r: Result<Vec<u8>, String>| r.map_err(VectorError::Format);
        cases.push(json!({
            "seed": encode_hex(seed),
            "skS": encode_hex(issuer.key_pair().secret_key().to_bytes().as_ref()),
            "pkS": encode_hex(issuer.token_key().as_ref()),
            "token_key_id": encode_hex(issuer.key_id()),
            "token_challenge": encode_hex(&challenge_bytes),
            "extensions": encode_hex(extensions.as_bytes()),
            "nonce": encode_hex(&nonce),
            "blind": encode_hex(blind.as_ref()),
            "token_request": encode_hex(&enc(encode(&req))?),
            "proof_random_scalar": encode_hex(proof_scalar.as_ref()),
            "token_response": encode_hex(&enc(encode(&resp))?),
            "token": encode_hex(&enc(encode(&token))?),
        }));
    }
    Ok(cases)
}
