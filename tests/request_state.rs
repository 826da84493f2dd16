//! Client states across bad responses and resets.
//!
//! Every client's finalize borrows its state: a corrupted response fails and
//! leaves the state usable for the genuine one, and a success spends the
//! state, so that a second finalize fails with `Error::StateSpent`. Every
//! state exports to fixed-size bytes and imports back (`pat::tokens::state`):
//! round trips, a simulated reset per token type (export, drop the state and
//! the client, rebuild the client from its key bytes, import, finalize,
//! verify), and one negative test per check of the import.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core
)]

use std::sync::OnceLock;

use pat::crypto::blind_rsa::SecretKey;
use pat::crypto::key_blinding::ecdsa_p384 as ecdsa;
use pat::crypto::rate_limited::encap::EncapSecretKey;
use pat::crypto::voprf::{ByteArray, Suite};
use pat::tokens::amortized::{AmortizedTokenRequest, AmortizedTokenResponse};
use pat::tokens::batched::{self, BatchState, GenericBatchTokenRequest, GenericBatchTokenResponse, GenericToken};
use pat::tokens::private::{self, PrivateTokenType};
use pat::tokens::state::{ExportedState, VERSION};
use pat::tokens::{amortized, public, rate_limited as t3};
use pat::wire::codec::Decode;
use pat::wire::token_type::{PrivateP384, PrivateRistretto255};
use pat::{Error, Field, TokenChallenge};
use subtle::ConstantTimeEq;

mod common;
use common::{encode, field, load, rng};

/// The RSA key of a pat-go type-2 vector file, as PEM (key generation is
/// slow in debug builds).
fn rsa_pem_of(file: &str) -> String {
    let cases = load(&format!("pat-go/tokens/type2/{file}"));
    String::from_utf8(field(&cases[0], "skS")).unwrap()
}

/// The RSA key of the issuers here.
fn rsa_pem() -> &'static str {
    static PEM: OnceLock<String> = OnceLock::new();
    PEM.get_or_init(|| rsa_pem_of("type2-issuance-test-vectors.json"))
}

/// Another RSA key.
fn other_rsa_pem() -> &'static str {
    static PEM: OnceLock<String> = OnceLock::new();
    PEM.get_or_init(|| rsa_pem_of("type2-issuance-test-vectors.rust.json"))
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

fn rate_limited_with(token_key_pem: &str) -> RateLimited {
    let origin = t3::OriginKey::new(b"origin.example", ecdsa::SecretKey::from_bytes(&[0x31; 48]).unwrap());
    let issuer = t3::Issuer::new(
        EncapSecretKey::derive(0x01, &[7; 32]),
        t3::TokenKey::from_pkcs8_pem(token_key_pem).unwrap(),
        [origin],
    );
    RateLimited { issuer, client_secret: [0x11; 48] }
}

fn rate_limited() -> RateLimited {
    rate_limited_with(rsa_pem())
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

// ---- export and import ----------------------------------------------------------

/// Offset of the secrets in a one-token state: version, shape, token input.
const SECRETS: usize = 2 + 98;

/// The same bytes with byte `i` set to `v`.
fn with(bytes: &[u8], i: usize, v: u8) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[i] = v;
    out
}

/// The same bytes with `part` written at `at`.
fn patched(bytes: &[u8], at: usize, part: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[at..at + part.len()].copy_from_slice(part);
    out
}

/// The checks every export shares: exactly `len` bytes, the header, the
/// length, version and shape checks of `import`, which must accept `bytes`.
fn common_checks<S>(bytes: &[u8], len: usize, import: impl Fn(&[u8]) -> pat::Result<S>) {
    assert_eq!(bytes.len(), len);
    assert_eq!(bytes[0], VERSION);
    assert!(import(bytes).is_ok());
    let state = Error::InvalidLength(Field::State);
    assert_eq!(import(&bytes[..len - 1]).err(), Some(state));
    assert_eq!(import(&[bytes, &[0]].concat()).err(), Some(state));
    assert_eq!(import(&[]).err(), Some(state));
    assert_eq!(import(&with(bytes, 0, 2)).err(), Some(Error::UnknownStateVersion(2)));
    assert_eq!(import(&with(bytes, 0, 0)).err(), Some(Error::UnknownStateVersion(0)));
    assert_eq!(import(&with(bytes, 1, 9)).err(), Some(Error::InvalidValue(Field::State)));
}

fn private_state<T: PrivateTokenType>() {
    let issuer = private::Issuer::<T>::derive(b"request state test key", b"").unwrap();
    let token_key = issuer.token_key().as_ref().to_vec();
    let client = private::Client::<T>::from_token_key(&token_key).unwrap();
    let challenge = challenge(T::CODE);
    let (request, mut state) = client.request(&challenge, &mut rng()).unwrap();
    let response = issuer.evaluate(&request, &mut rng()).unwrap();

    let exported = state.export().unwrap();
    let bytes = exported.as_bytes().as_ref().to_vec();
    let len = private::RequestState::<T>::STATE_LEN;
    assert_eq!(ExportedState::<T::StateBytes>::LEN, len);
    common_checks(&bytes, len, |b| private::RequestState::import(&client, b));

    // The import finalizes exactly as the original, and exports the same bytes.
    let mut imported = private::RequestState::import(&client, &bytes).unwrap();
    assert_eq!(imported.input(), state.input());
    assert!(bool::from(imported.export().unwrap().ct_eq(&exported)));
    let token = client.finalize(&mut imported, &response).unwrap();
    assert_eq!(client.finalize(&mut state, &response).unwrap(), token);
    issuer.verify(&token, &challenge).unwrap();
    assert_eq!(state.export().err(), Some(Error::StateSpent));
    assert_eq!(imported.export().err(), Some(Error::StateSpent));
    // A restored copy is a fresh state: it finalizes again (hence: delete it).
    let mut again = private::RequestState::import(&client, &bytes).unwrap();
    assert_eq!(client.finalize(&mut again, &response).unwrap(), token);

    // Type, key id, blind and blinded element.
    let (ns, ne) = (T::Suite::NS, T::Suite::NE);
    let found = T::CODE ^ 0x0100;
    let wrong_type = patched(&bytes, 2, &found.to_be_bytes());
    let import = |b: &[u8]| private::RequestState::import(&client, b).err();
    assert_eq!(import(&wrong_type), Some(Error::WrongTokenType { expected: T::CODE, found }));
    let other = private::Issuer::<T>::derive(b"another key", b"").unwrap().client();
    assert_eq!(private::RequestState::import(&other, &bytes).err(), Some(Error::KeyIdMismatch));
    assert_eq!(import(&patched(&bytes, SECRETS, &vec![0; ns])), Some(Error::InvalidScalar));
    assert_eq!(import(&patched(&bytes, SECRETS, &vec![0xff; ns])), Some(Error::InvalidScalar));
    assert_eq!(import(&patched(&bytes, SECRETS + ns, &vec![0; ne])), Some(Error::InvalidElement));
    assert_eq!(import(&patched(&bytes, SECRETS + ns, &vec![0xff; ne])), Some(Error::InvalidElement));
}

#[test]
fn type1_state_round_trip_and_strict_import() {
    assert_eq!(private::RequestState::<PrivateP384>::STATE_LEN, 197);
    private_state::<PrivateP384>();
}

#[test]
fn type5_state_round_trip_and_strict_import() {
    assert_eq!(private::RequestState::<PrivateRistretto255>::STATE_LEN, 164);
    private_state::<PrivateRistretto255>();
}

#[test]
fn type1_and_type5_states_do_not_mix() {
    let c1 = private::Issuer::<PrivateP384>::derive(b"request state test key", b"").unwrap().client();
    let c5 = private::Issuer::<PrivateRistretto255>::derive(b"request state test key", b"").unwrap().client();
    let s1 = c1.request(&challenge(1), &mut rng()).unwrap().1.export().unwrap();
    let s5 = c5.request(&challenge(5), &mut rng()).unwrap().1.export().unwrap();
    let state = Some(Error::InvalidLength(Field::State));
    assert_eq!(private::RequestState::import(&c5, s1.as_bytes()).err(), state);
    assert_eq!(private::RequestState::import(&c1, s5.as_bytes()).err(), state);
}

#[test]
fn type2_state_round_trip_and_strict_import() {
    assert_eq!(public::RequestState::STATE_LEN, 356);
    let issuer = rsa_issuer();
    let client = public::Client::from_token_key(&issuer.token_key()).unwrap();
    let challenge = challenge(2);
    let (request, mut state) = client.request(&challenge, &mut rng()).unwrap();
    let response = issuer.evaluate(&request).unwrap();

    let exported: ExportedState<[u8; public::RequestState::STATE_LEN]> = state.export().unwrap();
    let bytes = exported.as_bytes().to_vec();
    common_checks(&bytes, 356, |b| public::RequestState::import(&client, b));
    let mut imported = public::RequestState::import(&client, &bytes).unwrap();
    assert!(bool::from(imported.export().unwrap().ct_eq(&exported)));
    let token = client.finalize(&mut imported, &response).unwrap();
    assert_eq!(client.finalize(&mut state, &response).unwrap(), token);
    public::Origin::new(issuer.public_key().clone()).verify(&token, &challenge).unwrap();
    assert_eq!(state.export().err(), Some(Error::StateSpent));

    let import = |b: &[u8]| public::RequestState::import(&client, b).err();
    let found = 3;
    assert_eq!(import(&patched(&bytes, 2, &[0, 3])), Some(Error::WrongTokenType { expected: 2, found }));
    let other = public::Client::new(SecretKey::from_pkcs8_pem(other_rsa_pem()).unwrap().public_key().clone());
    assert_eq!(public::RequestState::import(&other, &bytes).err(), Some(Error::KeyIdMismatch));
    // The blind inverse must lie in [1, n).
    let out_of_range = Some(Error::InvalidValue(Field::BlindInverse));
    let n = issuer.public_key().modulus();
    assert_eq!(import(&patched(&bytes, SECRETS, n)), out_of_range);
    assert_eq!(import(&patched(&bytes, SECRETS, &[0xff; 256])), out_of_range);
    assert_eq!(import(&patched(&bytes, SECRETS, &[0; 256])), out_of_range);
    let mut n_minus_1 = *n;
    n_minus_1[255] -= 1;
    assert!(import(&patched(&bytes, SECRETS, &n_minus_1)).is_none());
}

#[test]
fn type3_state_round_trip_and_strict_import() {
    assert_eq!(t3::ClientState::STATE_LEN, 453);
    let t3 = rate_limited();
    let client = t3.client();
    let (mut state, response) = t3.exchange(&client);
    let exported = state.export().unwrap();
    let bytes = exported.as_bytes().to_vec();
    common_checks(&bytes, 453, |b| t3::ClientState::import(&client, b));
    let mut imported = t3::ClientState::import(&client, &bytes).unwrap();
    assert!(bool::from(imported.request_blind().ct_eq(state.request_blind())));
    assert!(bool::from(imported.export().unwrap().ct_eq(&exported)));
    let token = client.finalize(&mut imported, &response).unwrap();
    assert_eq!(client.finalize(&mut state, &response).unwrap(), token);
    t3::Origin::new(t3.issuer.public_key().clone()).verify(&token, &challenge(3)).unwrap();
    assert_eq!(state.export().err(), Some(Error::StateSpent));

    let import = |b: &[u8]| t3::ClientState::import(&client, b).err();
    assert_eq!(import(&patched(&bytes, 2, &[0, 2])), Some(Error::WrongTokenType { expected: 3, found: 2 }));
    // Another token key (the secret and encapsulation key alone do not matter).
    let stranger = rate_limited_with(other_rsa_pem());
    assert_eq!(t3::ClientState::import(&stranger.client(), &bytes).err(), Some(Error::KeyIdMismatch));
    let out_of_range = Some(Error::InvalidValue(Field::BlindInverse));
    assert_eq!(import(&patched(&bytes, SECRETS, t3.issuer.public_key().modulus())), out_of_range);
    assert_eq!(import(&patched(&bytes, SECRETS, &[0; 256])), out_of_range);
    // The blind encoding byte: 0 (minimal) or 1 (fixed).
    assert!(import(&with(&bytes, 452, 1)).is_none());
    assert_eq!(import(&with(&bytes, 452, 2)), Some(Error::InvalidValue(Field::State)));
}

/// An amortized batch of 3 tokens in capacity 4, exported, checked and
/// finalized; `T` and the entry length are concrete, since the export's
/// length is a const argument.
macro_rules! amortized_state {
    ($t:ty, $entry_len:expr) => {{
        type State = amortized::BatchState<$t, 4>;
        const LEN: usize = State::STATE_LEN;
        assert_eq!(LEN, 38 + 4 * $entry_len);
        let issuer = private::Issuer::<$t>::derive(b"request state test key", b"").unwrap();
        let client = issuer.client();
        let code = <$t as pat::TokenType>::CODE;
        let challenge = challenge(code);
        let mut state: State = client.request_batch(&challenge, 3, &mut rng()).unwrap();
        let request = encode(&state.request());
        let mut out = [0u8; 1024];
        let parsed = AmortizedTokenRequest::decode(&request).unwrap();
        let n = issuer.evaluate_batch::<4, _>(&parsed, &mut out, &mut rng()).unwrap();
        let response = AmortizedTokenResponse::<$t>::decode(&out[..n]).unwrap();

        let exported = state.export::<LEN>().unwrap();
        let bytes = exported.as_bytes().to_vec();
        common_checks(&bytes, LEN, |b| State::import(&client, b));
        let mut imported = State::import(&client, &bytes).unwrap();
        assert_eq!(imported.inputs(), state.inputs());
        assert_eq!(encode(&imported.request()), request);
        assert!(bool::from(imported.export::<LEN>().unwrap().ct_eq(&exported)));
        let tokens = client.finalize_batch(&mut imported, &response).unwrap();
        assert_eq!(client.finalize_batch(&mut state, &response).unwrap(), tokens);
        tokens.iter().for_each(|t| issuer.verify(t, &challenge).unwrap());
        assert_eq!(state.export::<LEN>().err(), Some(Error::StateSpent));

        // Header: type, key id, count; entries: blind, element; the unused entry.
        let import = |b: &[u8]| State::import(&client, b).err();
        let found = code ^ 0x0100;
        assert_eq!(
            import(&patched(&bytes, 2, &found.to_be_bytes())),
            Some(Error::WrongTokenType { expected: code, found })
        );
        let other = private::Issuer::<$t>::derive(b"another key", b"").unwrap().client();
        assert_eq!(State::import(&other, &bytes).err(), Some(Error::KeyIdMismatch));
        let bad_state = Some(Error::InvalidValue(Field::State));
        assert_eq!(import(&patched(&bytes, 36, &[0, 0])), bad_state);
        assert_eq!(import(&patched(&bytes, 36, &[0, 5])), bad_state);
        // A count of 2 leaves the third entry in what must be zeros.
        assert_eq!(import(&patched(&bytes, 36, &[0, 2])), bad_state);
        assert_eq!(import(&with(&bytes, LEN - 1, 1)), bad_state);
        let (ns, ne) = (<$t as PrivateTokenType>::Suite::NS, <$t as PrivateTokenType>::Suite::NE);
        let second = 38 + $entry_len;
        assert_eq!(import(&patched(&bytes, second + 64, &vec![0; ns])), Some(Error::InvalidScalar));
        assert_eq!(import(&patched(&bytes, second + 64, &vec![0xff; ns])), Some(Error::InvalidScalar));
        assert_eq!(import(&patched(&bytes, second + 64 + ns, &vec![0xff; ne])), Some(Error::InvalidElement));
    }};
}

#[test]
fn amortized_state_round_trip_and_strict_import() {
    amortized_state!(PrivateP384, 161);
    amortized_state!(PrivateRistretto255, 128);
}

/// The keys of a generic batch: one of each type.
struct Generic {
    p384: [private::Issuer<PrivateP384>; 1],
    rsa: [public::Issuer; 1],
    r255: [private::Issuer<PrivateRistretto255>; 1],
}

impl Generic {
    fn new() -> Self {
        Self {
            p384: [private::Issuer::derive(b"request state test key", b"").unwrap()],
            rsa: [rsa_issuer()],
            r255: [private::Issuer::derive(b"request state test key", b"").unwrap()],
        }
    }

    fn issuer(&self) -> batched::Issuer<'_> {
        batched::Issuer::new(&self.p384, &self.rsa, &self.r255).unwrap()
    }
}

#[test]
fn generic_batch_state_round_trip_and_strict_import() {
    type State<'c> = BatchState<'c, 4>;
    const LEN: usize = State::STATE_LEN;
    assert_eq!(LEN, 4 + 4 * 610);
    let keys = Generic::new();
    let c1 = [keys.p384[0].client()];
    let c2 = [public::Client::new(keys.rsa[0].public_key().clone())];
    let c5 = [keys.r255[0].client()];
    let clients = batched::BatchClients { private_p384: &c1, public_rsa2048: &c2, private_ristretto255: &c5 };
    let mut batch = State::new();
    batch.push(&c2[0], c2[0].request(&challenge(2), &mut rng()).unwrap()).unwrap();
    batch.push(&c5[0], c5[0].request(&challenge(5), &mut rng()).unwrap()).unwrap();
    batch.push(&c1[0], c1[0].request(&challenge(1), &mut rng()).unwrap()).unwrap();
    let request = encode(&batch.request());
    let parsed = GenericBatchTokenRequest::decode(&request).unwrap();
    let mut out = vec![0u8; parsed.max_response_len()];
    let outcome = keys.issuer().evaluate::<4, _>(&parsed, &mut out, &mut rng()).unwrap();
    let response = GenericBatchTokenResponse::decode(&out[..outcome.len]).unwrap();

    let exported = batch.export::<LEN>().unwrap();
    let bytes = exported.as_bytes().to_vec();
    common_checks(&bytes, LEN, |b| State::import(clients, b));
    let mut imported = State::import(clients, &bytes).unwrap();
    assert_eq!(encode(&imported.request()), request, "the requests are restored too");
    assert!(bool::from(imported.export::<LEN>().unwrap().ct_eq(&exported)));
    let tokens = imported.finalize(&response).unwrap();
    assert_eq!(batch.finalize(&response).unwrap(), tokens);
    assert_eq!(tokens.iter().flatten().count(), 3);
    assert_eq!(batch.export::<LEN>().err(), Some(Error::StateSpent));
    // An empty batch round-trips too.
    let empty = State::new().export::<LEN>().unwrap();
    assert!(State::import(clients, empty.as_bytes()).unwrap().is_empty());

    // Slots: 0 is type 2, 1 is type 5, 2 is type 1, 3 is unused.
    let slot = |i: usize| 4 + 610 * i;
    let import = |b: &[u8]| State::import(clients, b).err();
    assert_eq!(import(&patched(&bytes, 2, &[0, 5])), Some(Error::InvalidValue(Field::State)));
    assert_eq!(import(&patched(&bytes, slot(1), &[0, 3])), Some(Error::UnknownTokenType(3)));
    // Without the type-5 client (or with a wrong key id), slot 1 has no client.
    let no_r255 = batched::BatchClients { private_ristretto255: &[], ..clients };
    assert_eq!(State::import(no_r255, &bytes).err(), Some(Error::KeyIdMismatch));
    assert_eq!(import(&with(&bytes, slot(1) + 97, bytes[slot(1) + 97] ^ 1)), Some(Error::KeyIdMismatch));
    // Padding after the type-5 entry, the unused slot.
    assert_eq!(import(&with(&bytes, slot(1) + 98 + 64, 1)), Some(Error::InvalidValue(Field::State)));
    assert_eq!(import(&with(&bytes, slot(3), 1)), Some(Error::InvalidValue(Field::State)));
    // Each entry's secrets are checked as its type's import checks them.
    assert_eq!(import(&patched(&bytes, slot(0) + 98, &[0; 256])), Some(Error::InvalidValue(Field::BlindInverse)));
    assert_eq!(import(&patched(&bytes, slot(1) + 98, &[0xff; 32])), Some(Error::InvalidScalar));
    assert_eq!(import(&patched(&bytes, slot(2) + 98 + 48, &[0; 49])), Some(Error::InvalidElement));
}

// ---- a simulated reset ------------------------------------------------------------

/// What survives the reset: the exported bytes, copied out of the wrapper as
/// a device would write them to (encrypted) storage.
fn stored<A: ByteArray>(exported: ExportedState<A>) -> Vec<u8> {
    exported.as_bytes().as_ref().to_vec()
}

fn private_reset<T: PrivateTokenType>() {
    let issuer = private::Issuer::<T>::derive(b"request state test key", b"").unwrap();
    let token_key = issuer.token_key().as_ref().to_vec();
    let challenge = challenge(T::CODE);
    let (request, storage) = {
        let client = private::Client::<T>::from_token_key(&token_key).unwrap();
        let (request, state) = client.request(&challenge, &mut rng()).unwrap();
        (encode(&request), stored(state.export().unwrap()))
        // The reset: the state and the client are dropped here.
    };
    let response = encode(&issuer.evaluate(&private::TokenRequest::decode(&request).unwrap(), &mut rng()).unwrap());
    let client = private::Client::<T>::from_token_key(&token_key).unwrap();
    let mut state = private::RequestState::import(&client, &storage).unwrap();
    let token = client.finalize(&mut state, &private::TokenResponse::decode(&response).unwrap()).unwrap();
    issuer.verify(&token, &challenge).unwrap();
}

#[test]
fn type1_survives_a_reset() {
    private_reset::<PrivateP384>();
}

#[test]
fn type5_survives_a_reset() {
    private_reset::<PrivateRistretto255>();
}

#[test]
fn type2_survives_a_reset() {
    let issuer = rsa_issuer();
    let token_key = issuer.token_key();
    let challenge = challenge(2);
    let (request, storage) = {
        let client = public::Client::from_token_key(&token_key).unwrap();
        let (request, state) = client.request(&challenge, &mut rng()).unwrap();
        (encode(&request), stored(state.export().unwrap()))
    };
    let response = encode(&issuer.evaluate(&public::TokenRequest::decode(&request).unwrap()).unwrap());
    let client = public::Client::from_token_key(&token_key).unwrap();
    let mut state = public::RequestState::import(&client, &storage).unwrap();
    let token = client.finalize(&mut state, &public::TokenResponse::decode(&response).unwrap()).unwrap();
    public::Origin::new(issuer.public_key().clone()).verify(&token, &challenge).unwrap();
}

/// Type 0x0003 through the attester: the client resets after the attester
/// forwarded its request, and the attester's second step uses the restored
/// `request_blind`.
#[test]
fn type3_survives_a_reset() {
    let t3 = rate_limited();
    // What the device keeps in flash: its key, the issuer's keys as bytes.
    let client_secret = t3.client_secret;
    let encap_key = encode(t3.issuer.encap_key());
    let token_key = t3.issuer.token_key();
    let rebuild = || {
        t3::Client::new(
            ecdsa::SecretKey::from_bytes(&client_secret).unwrap(),
            pat::crypto::rate_limited::encap::EncapKey::decode(&encap_key).unwrap(),
            pat::crypto::blind_rsa::PublicKey::from_spki(&token_key).unwrap(),
        )
    };
    let mut attester = t3::Attester::<4>::new(t3::Policy { max_tokens: 2, window: 60 });
    let anon = [0xa1; 32];
    let (request, storage) = {
        let client = rebuild();
        let mut out = vec![0u8; t3::request_len(14).unwrap()];
        let (n, state) = client.request(&challenge(3), b"origin.example", &mut rng(), &mut out).unwrap();
        out.truncate(n);
        let parsed = t3::TokenRequest::decode(&out).unwrap();
        attester.process(&parsed, client.client_key(), state.request_blind(), &anon, 1).unwrap();
        (out, stored(state.export().unwrap()))
    };
    let parsed = t3::TokenRequest::decode(&request).unwrap();
    let mut scratch = vec![0u8; t3::scratch_len(&parsed)];
    let response = t3.issuer.evaluate(&parsed, &mut scratch, &mut rng()).unwrap();

    let client = rebuild();
    let mut state = t3::ClientState::import(&client, &storage).unwrap();
    let key = &response.blinded_request_key;
    attester.finalize_index(client.client_key(), state.request_blind(), key, &anon, 1).unwrap();
    let token = client.finalize(&mut state, &response.encrypted_token_response).unwrap();
    t3::Origin::new(t3.issuer.public_key().clone()).verify(&token, &challenge(3)).unwrap();
}
