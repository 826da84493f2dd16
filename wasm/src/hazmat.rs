//! # Hazardous: deterministic requests, for known-answer tests only
//!
//! These functions take the token nonce, the blind and (types 0x0002 and
//! 0xDA7A) the PSS salt as arguments (for a batch, one of each per token), and (type 0xDA7B) the issuer's proof
//! nonce, or (ARC, ACT, ATHM) draw from a seeded test generator,
//! so that the package can reproduce the requests, responses and
//! tokens of published test vectors (`wasm/test/vectors.mjs`). They exist
//! only with the `hazmat` cargo feature; the shipped package is built
//! without it, and `scripts/wasm` checks that its module exports none of
//! them.
//!
//! **Never use them for real tokens.** The issuer sees the blinded message;
//! with a blind it can predict, it links the token it signs to the token
//! redeemed later, which is what Privacy Pass exists to prevent (see the
//! library's `hazmat::tokens::private`, `hazmat::tokens::public` and
//! `hazmat::tokens::poprf`). An issuer whose proof nonce can be predicted
//! gives its key away.

use pat::crypto::blind_rsa::{MODULUS_LEN, SALT_LEN};
use pat::crypto::voprf::{ByteArray, P384Sha384, Suite};
use pat::tokens::private;
use pat::wire::token_type::NONCE_LEN;
use pat::{Decode, Error, Field, TokenChallenge};
use wasm_bindgen::prelude::*;

use crate::amortized::{P384BatchRequest, Ristretto255BatchRequest};
use crate::athm::{AthmClient, AthmIssuer, AthmRequest};
use crate::batched::GenericBatchRequest;
use crate::encode;
use crate::error::js;
use crate::metadata::{MetadataClient, MetadataRequest};
use crate::poprf::{PoprfClient, PoprfIssuer, PoprfRequest};
use crate::private::{P384Client, P384Request, Ristretto255Client, Ristretto255Request};
use crate::public::{BlindRsaClient, BlindRsaRequest};

/// `bytes` as an array of `N`, else `InvalidLength(field)`.
fn array<const N: usize>(bytes: &[u8], field: Field) -> pat::Result<[u8; N]> {
    <[u8; N]>::try_from(bytes).map_err(|_| Error::InvalidLength(field))
}

/// The library's deterministic type-0x0001/0x0005 request.
fn private_request<T: private::PrivateTokenType>(
    client: &private::Client<T>,
    challenge: &[u8],
    nonce: &[u8],
    blind: &[u8],
) -> pat::Result<(Vec<u8>, private::RequestState<T>)> {
    let blind = <<T::Suite as Suite>::ScalarBytes>::from_slice(blind).ok_or(Error::InvalidLength(Field::Message))?;
    let (request, state) = pat::hazmat::tokens::private::request_with(
        client,
        &TokenChallenge::decode(challenge)?,
        &array::<NONCE_LEN>(nonce, Field::Message)?,
        &blind,
    )?;
    Ok((encode(&request)?, state))
}

/// A type-0x0001 request with the given nonce (32 bytes) and blind (48 bytes).
#[wasm_bindgen(js_name = hazmatRequestP384)]
pub fn hazmat_request_p384(
    client: &P384Client,
    challenge: &[u8],
    nonce: &[u8],
    blind: &[u8],
) -> Result<P384Request, JsValue> {
    let (bytes, state) = private_request(&client.inner, challenge, nonce, blind).map_err(js)?;
    Ok(P384Request { client: client.inner, state, bytes })
}

/// A type-0x0005 request with the given nonce (32 bytes) and blind (32 bytes).
#[wasm_bindgen(js_name = hazmatRequestRistretto255)]
pub fn hazmat_request_ristretto255(
    client: &Ristretto255Client,
    challenge: &[u8],
    nonce: &[u8],
    blind: &[u8],
) -> Result<Ristretto255Request, JsValue> {
    let (bytes, state) = private_request(&client.inner, challenge, nonce, blind).map_err(js)?;
    Ok(Ristretto255Request { client: client.inner, state, bytes })
}

/// A type-0x0002 request with the given nonce (32 bytes), salt (48 bytes)
/// and blind r (256 bytes, big-endian).
#[wasm_bindgen(js_name = hazmatRequestBlindRsa)]
pub fn hazmat_request_blind_rsa(
    client: &BlindRsaClient,
    challenge: &[u8],
    nonce: &[u8],
    salt: &[u8],
    blind: &[u8],
) -> Result<BlindRsaRequest, JsValue> {
    let made = (|| {
        let (request, state) = pat::hazmat::tokens::public::request_with(
            &client.inner,
            &TokenChallenge::decode(challenge)?,
            &array::<NONCE_LEN>(nonce, Field::Message)?,
            &array::<SALT_LEN>(salt, Field::Message)?,
            &array::<MODULUS_LEN>(blind, Field::Message)?,
        )?;
        Ok((encode(&request)?, state))
    })();
    let (bytes, state) = made.map_err(js)?;
    Ok(BlindRsaRequest { client: client.inner.clone(), state, bytes })
}

/// A type-0xDA7A request carrying the encoded `extensions`, with the given
/// nonce (32 bytes), salt (48 bytes) and blind r (256 bytes, big-endian).
#[wasm_bindgen(js_name = hazmatRequestMetadata)]
pub fn hazmat_request_metadata(
    client: &MetadataClient,
    challenge: &[u8],
    extensions: &[u8],
    nonce: &[u8],
    salt: &[u8],
    blind: &[u8],
) -> Result<MetadataRequest, JsValue> {
    let made = (|| {
        let (request, state) = pat::hazmat::tokens::metadata::request_with(
            &client.inner,
            &TokenChallenge::decode(challenge)?,
            pat::wire::extensions::Extensions::decode(extensions)?,
            &array::<NONCE_LEN>(nonce, Field::Message)?,
            &array::<SALT_LEN>(salt, Field::Message)?,
            &array::<MODULUS_LEN>(blind, Field::Message)?,
        )?;
        Ok((encode(&request)?, state))
    })();
    let (bytes, state) = made.map_err(js)?;
    Ok(MetadataRequest { client: client.inner.clone(), state, bytes })
}

/// A type-0xDA7B request carrying the encoded `extensions`, with the given
/// nonce (32 bytes) and blind (48 bytes, a canonical non-zero scalar).
#[wasm_bindgen(js_name = hazmatRequestPoprf)]
pub fn hazmat_request_poprf(
    client: &PoprfClient,
    challenge: &[u8],
    extensions: &[u8],
    nonce: &[u8],
    blind: &[u8],
) -> Result<PoprfRequest, JsValue> {
    let made = (|| {
        let blind =
            <P384Sha384 as Suite>::ScalarBytes::from_slice(blind).ok_or(Error::InvalidLength(Field::Message))?;
        let (request, state) = pat::hazmat::tokens::poprf::request_with(
            &client.inner,
            &TokenChallenge::decode(challenge)?,
            pat::wire::extensions::Extensions::decode(extensions)?,
            &array::<NONCE_LEN>(nonce, Field::Message)?,
            &blind,
        )?;
        Ok((encode(&request)?, state))
    })();
    let (bytes, state) = made.map_err(js)?;
    Ok(PoprfRequest { client: client.inner, state, bytes })
}

/// The type-0xDA7B issuer's encoded TokenResponse to an encoded
/// ExtendedTokenRequest, with the given proof nonce (48 bytes, a canonical
/// non-zero scalar: the vectors' `proof_random_scalar`).
#[wasm_bindgen(js_name = hazmatEvaluatePoprf)]
pub fn hazmat_evaluate_poprf(issuer: &PoprfIssuer, request: &[u8], nonce: &[u8]) -> Result<Vec<u8>, JsValue> {
    let made = (|| {
        let nonce =
            <P384Sha384 as Suite>::ScalarBytes::from_slice(nonce).ok_or(Error::InvalidLength(Field::Message))?;
        let request = pat::tokens::poprf::TokenRequest::decode(request)?;
        encode(&pat::hazmat::tokens::poprf::evaluate_with_nonce(&issuer.inner, &request, &nonce)?)
    })();
    made.map_err(js)
}

/// `N` equal pieces of `bytes`, each `each` long (`InvalidLength(Message)`
/// otherwise).
fn pieces(bytes: &[u8], each: usize) -> pat::Result<core::slice::ChunksExact<'_, u8>> {
    if each == 0 || !bytes.len().is_multiple_of(each) {
        return Err(Error::InvalidLength(Field::Message));
    }
    Ok(bytes.chunks_exact(each))
}

/// The library's deterministic amortized batch of type 0x0001/0x0005: one
/// token per nonce of `nonces` (32 bytes each), each with its blind from
/// `blinds` (`Ns` bytes each).
fn batch_request<T: private::PrivateTokenType>(
    client: &private::Client<T>,
    challenge: &[u8],
    nonces: &[u8],
    blinds: &[u8],
) -> pat::Result<(Vec<u8>, pat::tokens::amortized::BatchState<T, { crate::amortized::BATCH_MAX }>)> {
    let nonces =
        pieces(nonces, NONCE_LEN)?.map(|n| array::<NONCE_LEN>(n, Field::Message)).collect::<pat::Result<Vec<_>>>()?;
    let blinds = zeroize::Zeroizing::new(
        pieces(blinds, <<T::Suite as Suite>::ScalarBytes as ByteArray>::LEN)?
            .map(|b| <<T::Suite as Suite>::ScalarBytes>::from_slice(b).ok_or(Error::InvalidLength(Field::Message)))
            .collect::<pat::Result<Vec<_>>>()?,
    );
    let state = pat::hazmat::tokens::amortized::request_batch_with::<T, { crate::amortized::BATCH_MAX }>(
        client,
        &TokenChallenge::decode(challenge)?,
        &nonces,
        &blinds,
    )?;
    Ok((encode(&state.request())?, state))
}

/// An amortized type-0x0001 batch with the given nonces (32 bytes each) and
/// blinds (48 bytes each), one of each per token, concatenated.
#[wasm_bindgen(js_name = hazmatRequestBatchP384)]
pub fn hazmat_request_batch_p384(
    client: &P384Client,
    challenge: &[u8],
    nonces: &[u8],
    blinds: &[u8],
) -> Result<P384BatchRequest, JsValue> {
    let (bytes, state) = batch_request(&client.inner, challenge, nonces, blinds).map_err(js)?;
    Ok(P384BatchRequest { client: client.inner, state, bytes })
}

/// An amortized type-0x0005 batch with the given nonces (32 bytes each) and
/// blinds (32 bytes each), one of each per token, concatenated.
#[wasm_bindgen(js_name = hazmatRequestBatchRistretto255)]
pub fn hazmat_request_batch_ristretto255(
    client: &Ristretto255Client,
    challenge: &[u8],
    nonces: &[u8],
    blinds: &[u8],
) -> Result<Ristretto255BatchRequest, JsValue> {
    let (bytes, state) = batch_request(&client.inner, challenge, nonces, blinds).map_err(js)?;
    Ok(Ristretto255BatchRequest { client: client.inner, state, bytes })
}

/// Item `i` of a list of byte strings.
fn at(list: &[Vec<u8>], i: usize) -> pat::Result<&[u8]> {
    list.get(i).map(Vec::as_slice).ok_or(Error::InvalidLength(Field::Batch))
}

/// A generic batch of one entry per challenge (types 0x0001, 0x0002,
/// 0x0005) with the token key, nonce (32 bytes), blind (the type's scalar;
/// for type 0x0002 r, 256 bytes big-endian) and salt (48 bytes, type
/// 0x0002 only; empty otherwise) at the same index of each list.
#[wasm_bindgen(js_name = hazmatGenericBatch)]
pub fn hazmat_generic_batch(
    challenges: Vec<js_sys::Uint8Array>,
    token_keys: Vec<js_sys::Uint8Array>,
    nonces: Vec<js_sys::Uint8Array>,
    blinds: Vec<js_sys::Uint8Array>,
    salts: Vec<js_sys::Uint8Array>,
) -> Result<GenericBatchRequest, JsValue> {
    use crate::batched::ClientRef;
    use pat::crypto::voprf::Ristretto255Sha512;

    let lists =
        [challenges, token_keys, nonces, blinds, salts].map(|l| l.iter().map(|a| a.to_vec()).collect::<Vec<_>>());
    let [challenges, keys, nonces, blinds, salts] = &lists;
    let made = (|| {
        let n = challenges.len();
        if [keys, nonces, blinds, salts].iter().any(|l| l.len() != n) {
            return Err(Error::InvalidLength(Field::Batch));
        }
        let entries: Vec<(&[u8], &[u8])> =
            challenges.iter().map(Vec::as_slice).zip(keys.iter().map(Vec::as_slice)).collect();
        crate::batched::build(&entries, |clients, batch, i, challenge| {
            let nonce = array::<NONCE_LEN>(at(nonces, i)?, Field::Message)?;
            let blind = at(blinds, i)?;
            match clients.get(challenge.token_type(), at(keys, i)?)? {
                ClientRef::P384(c) => {
                    let blind = <P384Sha384 as Suite>::ScalarBytes::from_slice(blind)
                        .ok_or(Error::InvalidLength(Field::Message))?;
                    batch.push(c, pat::hazmat::tokens::private::request_with(c, challenge, &nonce, &blind)?)
                }
                ClientRef::R255(c) => {
                    let blind = <Ristretto255Sha512 as Suite>::ScalarBytes::from_slice(blind)
                        .ok_or(Error::InvalidLength(Field::Message))?;
                    batch.push(c, pat::hazmat::tokens::private::request_with(c, challenge, &nonce, &blind)?)
                }
                ClientRef::Rsa(c) => {
                    let salt = array::<SALT_LEN>(at(salts, i)?, Field::Message)?;
                    let blind = array::<MODULUS_LEN>(blind, Field::Message)?;
                    batch.push(c, pat::hazmat::tokens::public::request_with(c, challenge, &nonce, &salt, &blind)?)
                }
            }
        })
    })();
    let (clients, made) = made.map_err(js)?;
    let count = challenges.len();
    Ok(GenericBatchRequest::from_made(clients, made, count))
}

/// ChaCha20 seeded with `seed` (32 bytes): the generator of the ATHM
/// reference's vectors (`rng_seed`) and of ACT's appendix.
fn chacha(seed: &[u8]) -> pat::Result<rand_chacha::ChaCha20Rng> {
    use pat::rand_core::SeedableRng;
    Ok(rand_chacha::ChaCha20Rng::from_seed(array::<32>(seed, Field::Message)?))
}

/// A type-0xC07E issuer whose key and proof are drawn from ChaCha20 seeded
/// with `seed` (32 bytes), as the ATHM reference's `key_gen` vector.
#[wasm_bindgen(js_name = hazmatAthmIssuer)]
pub fn hazmat_athm_issuer(deployment_id: &[u8], seed: &[u8]) -> Result<AthmIssuer, JsValue> {
    chacha(seed).and_then(|mut rng| AthmIssuer::generate_with(deployment_id, &mut rng)).map_err(js)
}

/// A type-0xC07E request drawing from ChaCha20 seeded with `seed` (32
/// bytes), as the reference's `token_request` vector.
#[wasm_bindgen(js_name = hazmatAthmRequest)]
pub fn hazmat_athm_request(client: &AthmClient, seed: &[u8]) -> Result<AthmRequest, JsValue> {
    let made = (|| {
        let mut rng = chacha(seed)?;
        crate::athm::request(&client.client()?, &mut rng)
    })();
    let (bytes, state) = made.map_err(js)?;
    Ok(AthmRequest { client: client.clone(), state: Some(state), bytes })
}

/// The type-0xC07E issuer's response hiding `metadata`, drawing from
/// ChaCha20 seeded with `seed` (32 bytes), as the reference's
/// `token_response` vector.
#[wasm_bindgen(js_name = hazmatAthmIssue)]
pub fn hazmat_athm_issue(issuer: &AthmIssuer, request: &[u8], metadata: u8, seed: &[u8]) -> Result<Vec<u8>, JsValue> {
    let made = (|| {
        let mut rng = chacha(seed)?;
        crate::athm::issue(&issuer.issuer()?, request, metadata, &mut rng)
    })();
    made.map_err(js)
}

/// The token of a type-0xC07E request from the issuer's response,
/// re-randomized from ChaCha20 seeded with `seed` (32 bytes), as the
/// reference's `finalize_token` vector.
#[wasm_bindgen(js_name = hazmatAthmFinalize)]
pub fn hazmat_athm_finalize(request: &mut AthmRequest, response: &[u8], seed: &[u8]) -> Result<Vec<u8>, JsValue> {
    chacha(seed).and_then(|mut rng| request.finalize_with(response, &mut rng)).map_err(js)
}

/// One run of the ARC protocol (token type 0xE5AC's crypto,
/// draft-ietf-privacypass-arc-crypto-01) drawing from the draft's test
/// generator, for its vectors: every message and state, as bytes.
#[wasm_bindgen(getter_with_clone)]
#[derive(Clone, Debug)]
pub struct ArcRun {
    /// The server's secret key x0 ‖ x1 ‖ x2 ‖ x0Blinding.
    #[wasm_bindgen(js_name = secretKey)]
    pub secret_key: Vec<u8>,
    /// The server's public key X0 ‖ X1 ‖ X2.
    #[wasm_bindgen(js_name = publicKey)]
    pub public_key: Vec<u8>,
    /// The client's request state m1 ‖ r1 ‖ r2 ‖ m1Enc ‖ m2Enc.
    #[wasm_bindgen(js_name = requestState)]
    pub request_state: Vec<u8>,
    /// The CredentialRequest.
    pub request: Vec<u8>,
    /// The CredentialResponse.
    pub response: Vec<u8>,
    /// The credential m1 ‖ U ‖ U' ‖ X1.
    pub credential: Vec<u8>,
    /// The presentations, one after the other, each as long as the limit makes it.
    pub presentations: Vec<u8>,
    /// Their nonces.
    pub nonces: Vec<u32>,
}

/// Key generation, a credential request for `request_context`, its
/// response and finalization, then `count` presentations for
/// `presentation_context` under `limit`, all drawing from one
/// `TestDrng` seeded with `seed` (32 bytes) in that order.
#[wasm_bindgen(js_name = hazmatArcRun)]
pub fn hazmat_arc_run(
    seed: &[u8],
    request_context: &[u8],
    presentation_context: &[u8],
    limit: u64,
    count: u32,
) -> Result<ArcRun, JsValue> {
    use pat::crypto::arc::PresentationState;
    use pat::crypto::arc::messages::presentation_len;
    use pat::hazmat::crypto::arc::{self as arc, TestDrng};

    let run = (|| {
        let mut drng = TestDrng::new(&array::<32>(seed, Field::Message)?);
        let key = arc::server_keygen(&mut drng)?;
        let (state, request) = arc::credential_request(&[request_context], &mut drng)?;
        let response = arc::credential_response(&key, &request, &mut drng)?;
        let credential = state.finalize(key.public_key(), &response)?;
        let mut pstate = PresentationState::new(&credential, &[presentation_context], limit)?;
        let len = presentation_len(limit)?;
        let mut presentations = Vec::new();
        let mut nonces = Vec::new();
        for _ in 0..count {
            let mut out = vec![0u8; len];
            let p = arc::present(&mut pstate, &mut drng, &mut out)?;
            presentations.extend_from_slice(out.get(..p.len).ok_or(Error::BufferTooSmall)?);
            nonces.push(p.nonce);
        }
        Ok(ArcRun {
            secret_key: key.to_bytes().to_vec(),
            public_key: key.public_key().to_bytes().to_vec(),
            request_state: state.export().to_vec(),
            request: request.to_bytes().to_vec(),
            response: response.to_bytes().to_vec(),
            credential: credential.export().to_vec(),
            presentations,
            nonces,
        })
    })();
    run.map_err(js)
}

/// One run of ACT's crypto protocol (token type 0xE5AD's,
/// draft-schlesinger-cfrg-act-01) from the reference's generator, for its
/// appendix vectors: every message and state, in its CBOR encoding, and
/// the values the spend proof and the next credential reveal.
#[wasm_bindgen(getter_with_clone)]
#[derive(Clone, Debug)]
pub struct ActRun {
    /// The issuer's private key `{1: x, 2: W}`.
    #[wasm_bindgen(js_name = secretKey)]
    pub secret_key: Vec<u8>,
    /// The issuer's public key (a CBOR byte string).
    #[wasm_bindgen(js_name = publicKey)]
    pub public_key: Vec<u8>,
    /// The client's pre-issuance (its request state's secrets).
    #[wasm_bindgen(js_name = preIssuance)]
    pub pre_issuance: Vec<u8>,
    /// The issuance request.
    pub request: Vec<u8>,
    /// The issuance response.
    pub response: Vec<u8>,
    /// The credential (credit token).
    pub credential: Vec<u8>,
    /// The spend proof.
    #[wasm_bindgen(js_name = spendProof)]
    pub spend_proof: Vec<u8>,
    /// The spend proof's nullifier.
    pub nullifier: Vec<u8>,
    /// The spend proof's request context.
    pub context: Vec<u8>,
    /// The spend proof's charge, as a 32-byte little-endian scalar.
    pub charge: Vec<u8>,
    /// The client's pre-refund (its refund state).
    #[wasm_bindgen(js_name = preRefund)]
    pub pre_refund: Vec<u8>,
    /// The issuer's refund.
    pub refund: Vec<u8>,
    /// The next credential, made from the refund.
    #[wasm_bindgen(js_name = refundCredential)]
    pub refund_credential: Vec<u8>,
    /// The next credential's nullifier.
    #[wasm_bindgen(js_name = refundNullifier)]
    pub refund_nullifier: Vec<u8>,
}

/// [`hazmat_act_run`] for balances of `L` bits.
fn act_run<const L: usize>(
    seed: &[u8],
    domain_separator: &[u8],
    ctx: &[u8],
    [c, s, t]: [u128; 3],
) -> pat::Result<ActRun> {
    use pat::crypto::act::{Params, PreIssuance, PrivateKey, SPEND_PROOF_MAX_LEN};

    let mut rng = chacha(seed)?;
    let ctx = array::<32>(ctx, Field::Message)?;
    let params = Params::from_domain_separator(domain_separator);
    let key = PrivateKey::generate(&mut rng)?;
    let pre = PreIssuance::random(&mut rng)?;
    let request = pre.request(&params, &mut rng)?;
    let response = key.issue::<L, _>(&params, &request, c, &ctx, &mut rng)?;
    let credential = pre.to_credit_token::<L>(&params, key.public_key(), &request, &response)?;
    let (proof, pre_refund) = credential.prove_spend::<L, _>(&params, s, &mut rng)?;
    let mut spend_proof = vec![0u8; SPEND_PROOF_MAX_LEN];
    let n = proof.encode(&mut spend_proof)?;
    spend_proof.truncate(n);
    let refund = key.refund::<L, _>(&params, &proof, t, &mut rng)?;
    let next = pre_refund.to_credit_token::<L>(&params, &proof, &refund, key.public_key())?;
    let mut charge = [0u8; 32];
    let (low, _) = charge.split_at_mut(16);
    low.copy_from_slice(&proof.charge()?.to_le_bytes());
    Ok(ActRun {
        secret_key: key.to_cbor().to_vec(),
        public_key: key.public_key().to_cbor().to_vec(),
        pre_issuance: pre.to_cbor().to_vec(),
        request: request.to_cbor().to_vec(),
        response: response.to_cbor().to_vec(),
        credential: credential.to_cbor().to_vec(),
        spend_proof,
        nullifier: proof.nullifier().to_vec(),
        context: proof.context().to_vec(),
        charge: charge.to_vec(),
        pre_refund: pre_refund.to_cbor().to_vec(),
        refund: refund.to_cbor().to_vec(),
        refund_credential: next.to_cbor().to_vec(),
        refund_nullifier: next.nullifier().to_vec(),
    })
}

/// One run of ACT's protocol drawing from ChaCha20 seeded with `seed` (32
/// bytes), in the reference code's order, as the draft's appendix vectors
/// are made: key generation, pre-issuance and request, the issuance of `c`
/// credits under the request context `ctx` (32 bytes, a canonical scalar),
/// the credential, a spend of `s`, the refund of `t` and the next
/// credential, for balances of `bits` bits (8, 16, 32, 64 or 128) in the
/// deployment of `domain_separator`. Every secret of the run is in its
/// result: never for real credentials.
#[wasm_bindgen(js_name = hazmatActRun)]
pub fn hazmat_act_run(
    seed: &[u8],
    domain_separator: &[u8],
    bits: u32,
    ctx: &[u8],
    c: u128,
    s: u128,
    t: u128,
) -> Result<ActRun, JsValue> {
    let amounts = [c, s, t];
    let run = match bits {
        8 => act_run::<8>(seed, domain_separator, ctx, amounts),
        16 => act_run::<16>(seed, domain_separator, ctx, amounts),
        32 => act_run::<32>(seed, domain_separator, ctx, amounts),
        64 => act_run::<64>(seed, domain_separator, ctx, amounts),
        128 => act_run::<128>(seed, domain_separator, ctx, amounts),
        _ => Err(Error::InvalidLength(Field::Message)),
    };
    run.map_err(js)
}
