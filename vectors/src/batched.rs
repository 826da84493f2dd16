//! `tokens/batched/batched-issuance-test-vectors{,.rust}.json`: generic batches
//! of types 0x0001, 0x0002 and 0x0005 (draft-ietf-privacypass-batched-tokens §6).
//!
//! A case is `{issuance: [entry…], token_request, token_response}`; an entry is
//! `{type ("0001", a hex u16), skS, pkS, token_challenge, nonce, blind,
//! salt (type 2 only), token}`. Every entry's request is rebuilt with its
//! explicit nonce, blind (and salt) and the **whole** batched request is
//! compared byte for byte. The file's response is parsed and every entry
//! finalized to the file's token. The VOPRF proofs are random, so the response
//! as a whole is not compared; its type-2 entries are deterministic and are.
//! The file's request is then evaluated afresh by the batch issuer holding
//! every entry's key, finalized again, and the tokens verified by the issuers
//! (types 1, 5) and an origin (type 2).
//!
//! pat-go's committed files contain only present entries (`0x01 ‖ type ‖
//! TokenResponse`), so its malformed failure encoding `0x01 ‖ type ‖ 0x00` does
//! not occur in them; a file that carried it would fail its case, since such
//! an entry is not a well-formed GenericBatchTokenResponse.

use std::format;
use std::string::{String, ToString};
use std::vec::Vec;

use serde_json::{Map, Value, json};

use super::private::random_blind;
use super::type2::{encode, left_pad};
use super::{Case, VectorError, encode_hex, expect_eq};
use pat::crypto::blind_rsa::{MODULUS_LEN, PKCS8_PEM_MAX_LEN, PublicKey, SecretKey};
use pat::crypto::voprf::{ByteArray, KeyPair, Suite};
use pat::tokens::batched::{
    BatchState, GenericBatchTokenRequest, GenericBatchTokenResponse, GenericToken, GenericTokenResponse, Issuer,
};
use pat::tokens::{private, public};
use pat::wire::challenge::TokenChallenge;
use pat::wire::codec::Decode;
use pat::wire::token_type::{PrivateP384, PrivateRistretto255, PublicRsa2048, TokenType};

/// The largest batch the harness handles (the files have one or two entries).
const CAPACITY: usize = 16;

/// The batch shapes `generate` cycles through: pat-go's five, then type 5 and mixes.
const SHAPES: [&[u16]; 10] = [&[1], &[2], &[1, 1], &[2, 2], &[1, 2], &[5], &[5, 5], &[2, 1], &[1, 2, 5], &[5, 2, 1, 1]];

/// One entry of a case, as in the file.
struct Entry {
    code: u16,
    sk: Vec<u8>,
    pk: Vec<u8>,
    challenge: Vec<u8>,
    nonce: [u8; 32],
    blind: Vec<u8>,
    salt: Option<[u8; 48]>,
    token: Vec<u8>,
}

fn entry(case: &Case<'_>) -> Result<Entry, VectorError> {
    let [hi, lo] = case.hex_array::<2>(&["type", "token_type"])?;
    let code = u16::from_be_bytes([hi, lo]);
    if ![PrivateP384::CODE, PublicRsa2048::CODE, PrivateRistretto255::CODE].contains(&code) {
        return Err(case.error("type", format!("{code:04x} is not a type a generic batch carries here")));
    }
    let salt = if code == PublicRsa2048::CODE { Some(case.hex_array::<48>(&["salt"])?) } else { None };
    Ok(Entry {
        code,
        sk: case.hex(&["skS", "sk_s"])?,
        pk: case.hex(&["pkS", "pk_s"])?,
        challenge: case.hex(&["token_challenge"])?,
        nonce: case.hex_array::<32>(&["nonce"])?,
        blind: case.hex(&["blind"])?,
        salt,
        token: case.hex(&["token"])?,
    })
}

/// The issuers of a case, by type, in entry order.
#[derive(Default)]
struct Keys {
    p384: Vec<private::Issuer<PrivateP384>>,
    rsa: Vec<public::Issuer>,
    r255: Vec<private::Issuer<PrivateRistretto255>>,
}

/// The clients of a case, by type, in entry order.
#[derive(Default)]
struct Clients {
    p384: Vec<private::Client<PrivateP384>>,
    rsa: Vec<public::Client>,
    r255: Vec<private::Client<PrivateRistretto255>>,
}

fn private_issuer<T: private::PrivateTokenType>(e: &Entry) -> Result<private::Issuer<T>, String> {
    let sk = <<T::Suite as Suite>::ScalarBytes>::from_slice(&e.sk).ok_or("skS: wrong length")?;
    let sk = pat::crypto::voprf::SecretKey::<T::Suite>::from_bytes(&sk).map_err(|e| format!("skS: {e}"))?;
    let issuer = private::Issuer::<T>::new(KeyPair::from_secret_key(sk).map_err(|e| format!("skS: {e}"))?);
    expect_eq("pkS", issuer.token_key().as_ref(), &e.pk)?;
    Ok(issuer)
}

fn keys(entries: &[Entry]) -> Result<(Keys, Clients), String> {
    let (mut keys, mut clients) = (Keys::default(), Clients::default());
    for e in entries {
        match e.code {
            PrivateP384::CODE => {
                let issuer = private_issuer::<PrivateP384>(e)?;
                clients.p384.push(issuer.client());
                keys.p384.push(issuer);
            }
            PrivateRistretto255::CODE => {
                let issuer = private_issuer::<PrivateRistretto255>(e)?;
                clients.r255.push(issuer.client());
                keys.r255.push(issuer);
            }
            _ => {
                let pem = core::str::from_utf8(&e.sk).map_err(|_| String::from("skS: not a PEM text"))?;
                let sk = SecretKey::from_pkcs8_pem(pem).map_err(|e| format!("skS: {e}"))?;
                let pk = PublicKey::from_spki(&e.pk).map_err(|e| format!("pkS: {e}"))?;
                if sk.public_key() != &pk {
                    return Err("pkS is not the public key of skS".into());
                }
                clients.rsa.push(public::Client::new(pk));
                keys.rsa.push(public::Issuer::new(sk));
            }
        }
    }
    Ok((keys, clients))
}

fn private_push<'c, T: private::PrivateTokenType>(
    batch: &mut BatchState<'c, CAPACITY>,
    client: Option<&'c private::Client<T>>,
    e: &Entry,
) -> Result<(), String>
where
    private::Client<T>:
        pat::tokens::batched::BatchClient<Request = private::TokenRequest<T>, State = private::RequestState<T>>,
{
    let client = client.ok_or("missing client")?;
    let challenge = TokenChallenge::decode(&e.challenge).map_err(|e| format!("token_challenge: {e}"))?;
    let blind = <<T::Suite as Suite>::ScalarBytes>::from_slice(&e.blind).ok_or("blind: wrong length")?;
    let entry = pat::hazmat::tokens::private::request_with(client, &challenge, &e.nonce, &blind)
        .map_err(|e| format!("request: {e}"))?;
    batch.push(client, entry).map_err(|e| format!("push: {e}"))
}

/// Rebuilds every entry's request with its explicit nonce, blind and salt.
fn batch<'c>(entries: &[Entry], clients: &'c Clients) -> Result<BatchState<'c, CAPACITY>, String> {
    let mut batch = BatchState::new();
    let (mut p384, mut rsa, mut r255) = (clients.p384.iter(), clients.rsa.iter(), clients.r255.iter());
    for e in entries {
        match e.code {
            PrivateP384::CODE => private_push(&mut batch, p384.next(), e)?,
            PrivateRistretto255::CODE => private_push(&mut batch, r255.next(), e)?,
            _ => {
                let client = rsa.next().ok_or("missing client")?;
                let challenge = TokenChallenge::decode(&e.challenge).map_err(|e| format!("token_challenge: {e}"))?;
                let blind = left_pad(&e.blind).ok_or("blind: longer than the modulus")?;
                let salt = e.salt.ok_or("salt: missing")?;
                let entry = pat::hazmat::tokens::public::request_with(client, &challenge, &e.nonce, &salt, &blind)
                    .map_err(|e| format!("request: {e}"))?;
                batch.push(client, entry).map_err(|e| format!("push: {e}"))?;
            }
        }
    }
    Ok(batch)
}

/// Finalizes `response` for a fresh rebuild of the entries and returns the tokens.
fn finalize(entries: &[Entry], clients: &Clients, response: &[u8], what: &str) -> Result<Vec<GenericToken>, String> {
    let parsed = GenericBatchTokenResponse::decode(response).map_err(|e| format!("{what}: {e}"))?;
    let tokens = batch(entries, clients)?.finalize(&parsed).map_err(|e| format!("finalize {what}: {e}"))?;
    tokens.into_iter().enumerate().map(|(j, t)| t.ok_or_else(|| format!("{what}: entry {j} is absent"))).collect()
}

fn check(entries: &[Entry], request: &[u8], response: &[u8]) -> Result<(), String> {
    let (keys, clients) = keys(entries)?;
    expect_eq("token_request", &encode(&batch(entries, &clients)?.request())?, request)?;

    let tokens = finalize(entries, &clients, response, "the file's token_response")?;
    for (j, (tok, e)) in tokens.iter().zip(entries).enumerate() {
        expect_eq(&format!("issuance[{j}].token"), &encode(tok)?, &e.token)?;
    }

    // The file's request, evaluated afresh by an issuer holding every key.
    let parsed = GenericBatchTokenRequest::decode(request).map_err(|e| format!("token_request: {e}"))?;
    let issuer = Issuer::new(&keys.p384, &keys.rsa, &keys.r255).map_err(|e| format!("key set: {e}"))?;
    let mut out = std::vec![0u8; parsed.max_response_len()];
    let mut rng = rand_core::UnwrapErr(pat::OsRng);
    let outcome = issuer.evaluate::<CAPACITY, _>(&parsed, &mut out, &mut rng).map_err(|e| format!("evaluate: {e}"))?;
    let fresh = out.get(..outcome.len).ok_or("evaluate: bad length")?;
    let again = finalize(entries, &clients, fresh, "the fresh response")?;
    for (j, (tok, e)) in again.iter().zip(entries).enumerate() {
        expect_eq(&format!("issuance[{j}].token (fresh evaluation)"), &encode(tok)?, &e.token)?;
    }

    // Blind RSA is deterministic: the file's type-2 responses are reproduced.
    let ours = GenericBatchTokenResponse::decode(fresh).map_err(|e| format!("fresh response: {e}"))?;
    let theirs = GenericBatchTokenResponse::decode(response).map_err(|e| format!("token_response: {e}"))?;
    for (j, (a, b)) in ours.iter().zip(theirs.iter()).enumerate() {
        if let Ok(Some(GenericTokenResponse::PublicRsa2048(a))) = a {
            let Ok(Some(GenericTokenResponse::PublicRsa2048(b))) = b else {
                return Err(format!("token_response entry {j}: not a type-2 response"));
            };
            expect_eq(&format!("token_response entry {j} (blind signature)"), &a.blind_sig, &b.blind_sig)?;
        }
    }

    // Every token verifies with its issuer (types 1, 5) or as an origin would (type 2).
    let (mut p384, mut rsa, mut r255) = (keys.p384.iter(), keys.rsa.iter(), keys.r255.iter());
    for (j, (tok, e)) in tokens.iter().zip(entries).enumerate() {
        let challenge = TokenChallenge::decode(&e.challenge).map_err(|e| format!("token_challenge: {e}"))?;
        let verified = match tok {
            GenericToken::PrivateP384(t) => p384.next().ok_or("missing key")?.verify(t, &challenge),
            GenericToken::PrivateRistretto255(t) => r255.next().ok_or("missing key")?.verify(t, &challenge),
            GenericToken::PublicRsa2048(t) => {
                public::Origin::new(rsa.next().ok_or("missing key")?.public_key().clone()).verify(t, &challenge)
            }
        };
        verified.map_err(|e| format!("issuance[{j}]: verify: {e}"))?;
    }
    Ok(())
}

pub(crate) fn verify(case: &Case<'_>) -> Result<Result<(), String>, VectorError> {
    let items = case
        .fields
        .get("issuance")
        .and_then(Value::as_array)
        .ok_or_else(|| case.error("issuance", "missing or not an array"))?;
    let mut entries = Vec::with_capacity(items.len());
    for (j, item) in items.iter().enumerate() {
        let fields = item.as_object().ok_or_else(|| case.error("issuance", format!("item {j} is not an object")))?;
        let named = |e: VectorError| match e {
            VectorError::Field { case, field, problem } => {
                VectorError::Field { case, field: format!("issuance[{j}].{field}"), problem }
            }
            other => other,
        };
        entries.push(entry(&Case { index: case.index, fields }).map_err(named)?);
    }
    if entries.len() > CAPACITY {
        return Err(case.error("issuance", format!("more than {CAPACITY} entries")));
    }
    let request = case.hex(&["token_request"])?;
    let response = case.hex(&["token_response"])?;
    Ok(check(&entries, &request, &response))
}

fn challenge_bytes(code: u16, i: usize, ctx: &[u8]) -> Result<Vec<u8>, VectorError> {
    let ctx: &[u8] = if i.is_multiple_of(2) { ctx } else { &[] };
    let origin: &[u8] = if i % 3 == 2 { b"" } else { b"origin.example" };
    let challenge = TokenChallenge::new(code, b"issuer.example", ctx, origin)
        .map_err(|e| VectorError::Format(format!("generation failed: {e}")))?;
    encode(&challenge).map_err(VectorError::Format)
}

/// A private key derived from a random seed and the challenge (as pat-go's
/// generators do) whose truncated key id no other key of the batch has.
fn private_key<T: private::PrivateTokenType>(
    challenge: &[u8],
    taken: &mut Vec<u8>,
    rng: &mut impl rand_core::Rng,
) -> Result<(Vec<u8>, Vec<u8>), VectorError> {
    loop {
        let mut seed = [0u8; 32];
        rng.fill_bytes(&mut seed);
        let issuer = private::Issuer::<T>::derive(&seed, challenge)
            .map_err(|e| VectorError::Format(format!("generation failed: {e}")))?;
        let id = issuer.key_id().last().copied().unwrap_or_default();
        if !taken.contains(&id) {
            taken.push(id);
            let sk = issuer.key_pair().secret_key().to_bytes();
            return Ok((sk.as_ref().to_vec(), issuer.token_key().as_ref().to_vec()));
        }
    }
}

pub(crate) fn generate(count: usize) -> Result<Vec<Value>, VectorError> {
    let fail = |e: String| VectorError::Format(format!("generation failed: {e}"));
    let lib = |e: pat::Error| fail(e.to_string());
    let mut rng = rand_core::UnwrapErr(pat::OsRng);
    // One RSA key per file, as in pat-go's files.
    let sk = SecretKey::generate(&mut rng).map_err(lib)?;
    let mut pem = zeroize::Zeroizing::new([0u8; PKCS8_PEM_MAX_LEN]);
    let rsa_pem = sk.to_pkcs8_pem(pem.as_mut_slice()).map_err(lib)?.as_bytes().to_vec();
    let rsa_spki = sk.public_key().to_spki_array().to_vec();
    let rsa_client = public::Client::new(sk.public_key().clone());

    let mut cases = Vec::new();
    for i in 0..count {
        let shape = SHAPES.get(i % SHAPES.len()).copied().unwrap_or_default();
        let (mut ids1, mut ids5) = (Vec::new(), Vec::new());
        let mut entries = Vec::with_capacity(shape.len());
        for (j, &code) in shape.iter().enumerate() {
            let mut random = [0u8; 64];
            rand_core::Rng::fill_bytes(&mut rng, &mut random);
            let (ctx, nonce) = random.split_at(32);
            let challenge = challenge_bytes(code, i + j, ctx)?;
            let nonce: [u8; 32] = nonce.try_into().unwrap_or_default();
            let (sk, pk, blind, salt) = match code {
                PrivateP384::CODE => {
                    let (sk, pk) = private_key::<PrivateP384>(&challenge, &mut ids1, &mut rng)?;
                    (sk, pk, random_blind::<PrivateP384>(&mut rng).as_ref().to_vec(), None)
                }
                PrivateRistretto255::CODE => {
                    let (sk, pk) = private_key::<PrivateRistretto255>(&challenge, &mut ids5, &mut rng)?;
                    (sk, pk, random_blind::<PrivateRistretto255>(&mut rng).as_ref().to_vec(), None)
                }
                _ => {
                    let mut salt = [0u8; 48];
                    rand_core::Rng::fill_bytes(&mut rng, &mut salt);
                    let parsed = TokenChallenge::decode(&challenge).map_err(lib)?;
                    // A fresh r, uniform below n: draw until the library accepts it.
                    let blind = loop {
                        let mut r = [0u8; MODULUS_LEN];
                        rand_core::Rng::fill_bytes(&mut rng, &mut r);
                        if pat::hazmat::tokens::public::request_with(&rsa_client, &parsed, &nonce, &salt, &r).is_ok() {
                            break r;
                        }
                    };
                    (rsa_pem.clone(), rsa_spki.clone(), blind.to_vec(), Some(salt))
                }
            };
            entries.push(Entry { code, sk, pk, challenge, nonce, blind, salt, token: Vec::new() });
        }

        let (keys, clients) = keys(&entries).map_err(fail)?;
        let request = encode(&batch(&entries, &clients).map_err(fail)?.request()).map_err(fail)?;
        let parsed = GenericBatchTokenRequest::decode(&request).map_err(lib)?;
        let issuer = Issuer::new(&keys.p384, &keys.rsa, &keys.r255).map_err(lib)?;
        let mut out = std::vec![0u8; parsed.max_response_len()];
        let outcome = issuer.evaluate::<CAPACITY, _>(&parsed, &mut out, &mut rng).map_err(lib)?;
        out.truncate(outcome.len);
        let tokens = finalize(&entries, &clients, &out, "response").map_err(fail)?;
        for (e, t) in entries.iter_mut().zip(&tokens) {
            e.token = encode(t).map_err(fail)?;
        }

        let issuance: Vec<Value> = entries
            .iter()
            .map(|e| {
                let mut m = Map::new();
                m.insert("type".into(), json!(encode_hex(&e.code.to_be_bytes())));
                m.insert("skS".into(), json!(encode_hex(&e.sk)));
                m.insert("pkS".into(), json!(encode_hex(&e.pk)));
                m.insert("token_challenge".into(), json!(encode_hex(&e.challenge)));
                m.insert("nonce".into(), json!(encode_hex(&e.nonce)));
                m.insert("blind".into(), json!(encode_hex(&e.blind)));
                if let Some(salt) = &e.salt {
                    m.insert("salt".into(), json!(encode_hex(salt)));
                }
                m.insert("token".into(), json!(encode_hex(&e.token)));
                Value::Object(m)
            })
            .collect();
        cases.push(json!({
            "issuance": issuance,
            "token_request": encode_hex(&request),
            "token_response": encode_hex(&out),
        }));
    }
    Ok(cases)
}
