//! Client states across bad responses: every client's finalize borrows its
//! state, a corrupted response fails and leaves the state usable for the
//! genuine one, and a success spends the state, so that a second finalize
//! fails with `Error::StateSpent`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core
)]

use std::sync::OnceLock;

use pat::blind_rsa::SecretKey;
use pat::codec::Decode;
use pat::key_blinding::ecdsa_p384 as ecdsa;
use pat::rate_limited::encap::EncapSecretKey;
use pat::token_type::{PrivateP384, PrivateRistretto255};
use pat::types::amortized::{AmortizedTokenRequest, AmortizedTokenResponse};
use pat::types::batched::{self, BatchState, GenericBatchTokenRequest, GenericBatchTokenResponse, GenericToken};
use pat::types::private::{self, PrivateTokenType};
use pat::types::{public, rate_limited as t3};
use pat::{Error, TokenChallenge};

mod common;
use common::{encode, field, load, rng};

/// The RSA key of pat-go's type-2 vectors (key generation is slow in debug builds), as PEM.
fn rsa_pem() -> &'static str {
    static PEM: OnceLock<String> = OnceLock::new();
    PEM.get_or_init(|| {
        let cases = load("pat-go/tokens/type2/type2-issuance-test-vectors.json");
        String::from_utf8(field(&cases[0], "skS")).unwrap()
    })
}

fn rsa_issuer() -> public::Issuer {
    public::Issuer::new(SecretKey::from_pkcs8_pem(rsa_pem()).unwrap())
}

fn challenge(code: u16) -> TokenChallenge<'static> {
    TokenChallenge::new(code, b"issuer.example", &[5; 32], b"origin.example").unwrap()
}

/// Flips one bit of byte `i`.
fn flipped(bytes: &[u8], i: usize) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[i] ^= 0x10;
    out
}

// ---- finalize borrows the state -------------------------------------------------

fn private_retry<T: PrivateTokenType>() {
    let issuer = private::Issuer::<T>::derive(b"request state test key", b"").unwrap();
    let client = private::Client::<T>::from_token_key(issuer.token_key().as_ref()).unwrap();
    let challenge = challenge(T::CODE);
    let (request, mut state) = client.request(&challenge, &mut rng()).unwrap();
    let response = encode(&issuer.evaluate(&request, &mut rng()).unwrap());
    // Every byte of the response, corrupted: an error, and the state unchanged.
    for i in 0..response.len() {
        let bad = private::TokenResponse::<T>::decode(&flipped(&response, i)).unwrap();
        assert!(client.finalize(&mut state, &bad).is_err(), "byte {i}");
        assert!(!state.is_spent());
    }
    let genuine = private::TokenResponse::<T>::decode(&response).unwrap();
    let token = client.finalize(&mut state, &genuine).unwrap();
    issuer.verify(&token, &challenge).unwrap();
    assert!(state.is_spent());
    assert_eq!(client.finalize(&mut state, &genuine).err(), Some(Error::StateSpent));
}

#[test]
fn type1_retry_after_a_corrupted_response_then_spent() {
    private_retry::<PrivateP384>();
}

#[test]
fn type5_retry_after_a_corrupted_response_then_spent() {
    private_retry::<PrivateRistretto255>();
}

#[test]
fn type2_retry_after_a_corrupted_response_then_spent() {
    let issuer = rsa_issuer();
    let client = public::Client::from_token_key(&issuer.token_key()).unwrap();
    let challenge = challenge(2);
    let (request, mut state) = client.request(&challenge, &mut rng()).unwrap();
    let response = encode(&issuer.evaluate(&request).unwrap());
    for i in [0, 1, 100, 255] {
        let bad = public::TokenResponse::decode(&flipped(&response, i)).unwrap();
        assert_eq!(client.finalize(&mut state, &bad).err(), Some(Error::Verification), "byte {i}");
        assert!(!state.is_spent());
    }
    let genuine = public::TokenResponse::decode(&response).unwrap();
    let token = client.finalize(&mut state, &genuine).unwrap();
    public::Origin::new(issuer.public_key().clone()).verify(&token, &challenge).unwrap();
    assert!(state.is_spent());
    assert_eq!(client.finalize(&mut state, &genuine).err(), Some(Error::StateSpent));
}

/// The type-3 issuer and the secrets its client is rebuilt from.
struct RateLimited {
    issuer: t3::Issuer<[t3::OriginKey<'static>; 1]>,
    client_secret: [u8; 48],
}

fn rate_limited() -> RateLimited {
    let origin = t3::OriginKey::new(b"origin.example", ecdsa::SecretKey::from_bytes(&[0x31; 48]).unwrap());
    let issuer = t3::Issuer::new(
        EncapSecretKey::derive(0x01, &[7; 32]),
        t3::TokenKey::from_pkcs8_pem(rsa_pem()).unwrap(),
        [origin],
    );
    RateLimited { issuer, client_secret: [0x11; 48] }
}

impl RateLimited {
    fn client(&self) -> t3::Client {
        t3::Client::new(
            ecdsa::SecretKey::from_bytes(&self.client_secret).unwrap(),
            *self.issuer.encap_key(),
            self.issuer.public_key().clone(),
        )
    }

    /// A request and the issuer's `encrypted_token_response` for it (the
    /// attester's checks are the subject of `tests/type3.rs`).
    fn exchange(&self, client: &t3::Client) -> (t3::ClientState, Vec<u8>) {
        let mut out = vec![0u8; t3::request_len(14).unwrap()];
        let (n, state) = client.request(&challenge(3), b"origin.example", &mut rng(), &mut out).unwrap();
        let request = t3::TokenRequest::decode(&out[..n]).unwrap();
        let mut scratch = vec![0u8; t3::scratch_len(&request)];
        let response = self.issuer.evaluate(&request, &mut scratch, &mut rng()).unwrap();
        (state, response.encrypted_token_response.to_vec())
    }
}

#[test]
fn type3_retry_after_a_corrupted_response_then_spent() {
    let t3 = rate_limited();
    let client = t3.client();
    let (mut state, response) = t3.exchange(&client);
    for i in [0, 15, 16, 200, 287] {
        assert_eq!(client.finalize(&mut state, &flipped(&response, i)).err(), Some(Error::Verification), "byte {i}");
        assert!(!state.is_spent());
    }
    let token = client.finalize(&mut state, &response).unwrap();
    t3::Origin::new(t3.issuer.public_key().clone()).verify(&token, &challenge(3)).unwrap();
    assert!(state.is_spent());
    assert_eq!(client.finalize(&mut state, &response).err(), Some(Error::StateSpent));
}

fn amortized_retry<T: PrivateTokenType>() {
    let issuer = private::Issuer::<T>::derive(b"request state test key", b"").unwrap();
    let client = issuer.client();
    let challenge = challenge(T::CODE);
    let mut state = client.request_batch::<3, _>(&challenge, 3, &mut rng()).unwrap();
    let request = encode(&state.request());
    let mut out = [0u8; 512];
    let n =
        issuer.evaluate_batch::<3, _>(&AmortizedTokenRequest::decode(&request).unwrap(), &mut out, &mut rng()).unwrap();
    let response = &out[..n];
    for i in [2, 40, n - 1] {
        let bad = flipped(response, i);
        let bad = AmortizedTokenResponse::<T>::decode(&bad).unwrap();
        assert!(client.finalize_batch(&mut state, &bad).is_err(), "byte {i}");
        assert!(!state.is_spent());
    }
    let genuine = AmortizedTokenResponse::<T>::decode(response).unwrap();
    let tokens = client.finalize_batch(&mut state, &genuine).unwrap();
    assert_eq!(tokens.len(), 3);
    tokens.iter().for_each(|t| issuer.verify(t, &challenge).unwrap());
    assert!(state.is_spent());
    assert_eq!(client.finalize_batch(&mut state, &genuine).err(), Some(Error::StateSpent));
}

#[test]
fn amortized_retry_after_a_corrupted_response_then_spent() {
    amortized_retry::<PrivateP384>();
    amortized_retry::<PrivateRistretto255>();
}

#[test]
fn generic_batch_retry_after_a_corrupted_response_then_spent() {
    let p384 = [private::Issuer::<PrivateP384>::derive(b"request state test key", b"").unwrap()];
    let rsa = [rsa_issuer()];
    let r255 = [private::Issuer::<PrivateRistretto255>::derive(b"request state test key", b"").unwrap()];
    let issuer = batched::Issuer::new(&p384, &rsa, &r255).unwrap();
    let (c1, c2, c5) = (p384[0].client(), public::Client::new(rsa[0].public_key().clone()), r255[0].client());
    let mut batch = BatchState::<3>::new();
    batch.push(&c1, c1.request(&challenge(1), &mut rng()).unwrap()).unwrap();
    batch.push(&c2, c2.request(&challenge(2), &mut rng()).unwrap()).unwrap();
    batch.push(&c5, c5.request(&challenge(5), &mut rng()).unwrap()).unwrap();
    let request = encode(&batch.request());
    let parsed = GenericBatchTokenRequest::decode(&request).unwrap();
    let mut out = vec![0u8; parsed.max_response_len()];
    let outcome = issuer.evaluate::<3, _>(&parsed, &mut out, &mut rng()).unwrap();
    out.truncate(outcome.len);
    // A byte of the type-2 blind signature (after the type-1 entry and the
    // second entry's presence and type), then a middle byte of the type-5
    // proof's s.
    for i in [2 + 3 + 145 + 3 + 10, out.len() - 20] {
        let bad = flipped(&out, i);
        let bad = GenericBatchTokenResponse::decode(&bad).unwrap();
        assert_eq!(batch.finalize(&bad).err(), Some(Error::Verification), "byte {i}");
        assert!(!batch.is_spent());
    }
    let genuine = GenericBatchTokenResponse::decode(&out).unwrap();
    let tokens = batch.finalize(&genuine).unwrap();
    match &tokens[..] {
        [
            Some(GenericToken::PrivateP384(t1)),
            Some(GenericToken::PublicRsa2048(t2)),
            Some(GenericToken::PrivateRistretto255(t5)),
        ] => {
            p384[0].verify(t1, &challenge(1)).unwrap();
            public::Origin::new(rsa[0].public_key().clone()).verify(t2, &challenge(2)).unwrap();
            r255[0].verify(t5, &challenge(5)).unwrap();
        }
        other => panic!("{other:?}"),
    }
    assert!(batch.is_spent());
    assert_eq!(batch.finalize(&genuine).err(), Some(Error::StateSpent));
    assert_eq!(batch.push(&c1, c1.request(&challenge(1), &mut rng()).unwrap()).err(), Some(Error::StateSpent));

    // A spent per-type state cannot join a batch.
    let (request, mut state) = c5.request(&challenge(5), &mut rng()).unwrap();
    let response = r255[0].evaluate(&request, &mut rng()).unwrap();
    c5.finalize(&mut state, &response).unwrap();
    let mut fresh = BatchState::<1>::new();
    assert_eq!(fresh.push(&c5, (request, state)).err(), Some(Error::StateSpent));
}
