//! Type 0x0003 (rate-limited tokens) through every role — client, attester,
//! issuer, attester, client, origin — and every way the flow can fail.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core
)]

use std::sync::OnceLock;

use pat::crypto::blind_rsa::{self, SecretKey};
use pat::crypto::key_blinding::ecdsa_p384::{self as ecdsa, BlindKeyEncoding};
use pat::crypto::rate_limited::alias::{self, CTX_CLIENT, CTX_ISSUER};
use pat::crypto::rate_limited::encap::EncapSecretKey;
use pat::crypto::rate_limited::origin_encryption;
use pat::crypto::rate_limited::{KeyIdByte, Labels, inner_request};
use pat::hazmat::crypto::rate_limited as hazmat;
use pat::hazmat::tokens::rate_limited::RequestRandomness;
use pat::tokens::rate_limited::{
    self as t3, Attester, Client, ClientState, Config, Issuer, Origin, OriginKey, Policy, RateLimitedToken, TokenKey,
    TokenRequest,
};
use pat::wire::codec::{Decode, Encode};
use pat::{Error, Field, TokenChallenge};

mod common;
use common::{encode, rng};

const ORIGINS: [&[u8]; 3] = [b"origin.example", b"other.example", b"third.example"];
const CLIENT_SECRET: [u8; 48] = [0x11; 48];
const OTHER_CLIENT_SECRET: [u8; 48] = [0x22; 48];
const ANON_A: [u8; 32] = [0xa1; 32];
const ANON_B: [u8; 32] = [0xb2; 32];

/// One RSA key for the whole file (generation is slow), as PKCS#8 DER.
fn rsa_der() -> &'static [u8] {
    static DER: OnceLock<Vec<u8>> = OnceLock::new();
    DER.get_or_init(|| {
        let sk = SecretKey::generate(&mut rng()).unwrap();
        let mut der = vec![0u8; blind_rsa::PKCS8_MAX_LEN];
        let n = sk.to_pkcs8_der(&mut der).unwrap();
        der.truncate(n);
        der
    })
}

fn origin_secret(i: usize) -> ecdsa::SecretKey {
    let mut bytes = [0x30u8; 48];
    bytes[47] = u8::try_from(i).unwrap() + 1;
    ecdsa::SecretKey::from_bytes(&bytes).unwrap()
}

fn origin_keys() -> [OriginKey<'static>; 3] {
    core::array::from_fn(|i| OriginKey::new(ORIGINS[i], origin_secret(i)))
}

fn issuer_with(encap_seed: u8, config: Config) -> Issuer<[OriginKey<'static>; 3]> {
    let encap = EncapSecretKey::derive(0x01, &[encap_seed; 32]);
    Issuer::new(encap, TokenKey::from_pkcs8_der(rsa_der()).unwrap(), origin_keys()).with_config(config)
}

fn issuer() -> Issuer<[OriginKey<'static>; 3]> {
    issuer_with(7, Config::default())
}

fn client_for(issuer: &Issuer<impl t3::OriginKeys>, secret: &[u8; 48]) -> Client {
    Client::new(ecdsa::SecretKey::from_bytes(secret).unwrap(), *issuer.encap_key(), issuer.public_key().clone())
}

fn challenge() -> TokenChallenge<'static> {
    TokenChallenge::new(3, b"issuer.example", &[9; 32], b"origin.example").unwrap()
}

fn policy() -> Policy {
    Policy { max_tokens: 3, window: 3600 }
}

/// A request from `client` for `origin`, as bytes.
fn request(client: &Client, origin: &[u8]) -> (Vec<u8>, ClientState) {
    let mut out = vec![0u8; t3::request_len(origin.len()).unwrap() + 3];
    let (n, state) = client.request(&challenge(), origin, &mut rng(), &mut out).unwrap();
    assert_eq!(n, t3::request_len(origin.len()).unwrap());
    assert!(out[n..].iter().all(|&b| b == 0));
    out.truncate(n);
    (out, state)
}

fn evaluate(issuer: &Issuer<impl t3::OriginKeys>, bytes: &[u8]) -> pat::Result<t3::IssuerResponse> {
    let req = TokenRequest::decode(bytes)?;
    let mut scratch = vec![0u8; t3::scratch_len(&req)];
    let out = issuer.evaluate(&req, &mut scratch, &mut rng());
    assert!(scratch.iter().all(|&b| b == 0), "scratch not wiped");
    out
}

/// Client → attester → issuer → attester → client; returns the token and alias.
fn issue<const N: usize>(
    client: &Client,
    issuer: &Issuer<impl t3::OriginKeys>,
    attester: &mut Attester<N>,
    origin: &[u8],
    anon: &[u8; 32],
    now: u64,
) -> pat::Result<(RateLimitedToken, [u8; 48])> {
    let (bytes, mut state) = request(client, origin);
    let req = TokenRequest::decode(&bytes)?;
    attester.process(&req, client.client_key(), state.request_blind(), anon, now)?;
    let resp = evaluate(issuer, &bytes)?;
    let alias =
        attester.finalize_index(client.client_key(), state.request_blind(), &resp.blinded_request_key, anon, now)?;
    let token = client.finalize(&mut state, &resp.encrypted_token_response)?;
    Ok((token, alias))
}

#[test]
fn full_flow() {
    let issuer = issuer();
    let client = client_for(&issuer, &CLIENT_SECRET);
    let mut attester = Attester::<8>::new(policy());
    let challenge = challenge();

    let (bytes, mut state) = request(&client, b"origin.example");
    assert_eq!(bytes.len(), 520);
    assert_eq!(bytes[..2], [0, 3]);
    let req = TokenRequest::decode(&bytes).unwrap();
    assert_eq!(encode(&req), bytes);
    assert_eq!(req.issuer_encap_key_id, issuer.encap_key_id());
    assert_eq!(req.encrypted_token_request.len(), origin_encryption::MIN_ENCRYPTED_REQUEST_LEN);
    req.verify_signature().unwrap();
    assert_eq!(state.input().kind(), pat::TokenKind::RateLimitedRsa2048);
    // request_key is the client key blinded with the request blind.
    let request_key = alias::request_key(client.client_key(), state.request_blind(), CTX_CLIENT).unwrap();
    assert_eq!(req.request_key, &request_key.to_bytes());

    attester.process(&req, client.client_key(), state.request_blind(), &ANON_A, 10).unwrap();
    let resp = evaluate(&issuer, &bytes).unwrap();
    assert_eq!(resp.encrypted_token_response.len(), 288);
    let alias = attester
        .finalize_index(client.client_key(), state.request_blind(), &resp.blinded_request_key, &ANON_A, 10)
        .unwrap();
    // alias = HKDF(client_key, BlindPublicKey(client_key, sk_origin, ctx_issuer)).
    let index_key =
        alias::blinded_request_key(client.client_key(), &origin_secret(0), CTX_ISSUER, BlindKeyEncoding::Minimal)
            .unwrap();
    assert_eq!(alias, alias::issuer_origin_alias(client.client_key(), &index_key));
    assert_eq!(attester.remaining(client.client_key(), &alias, 10), 2);

    let token = client.finalize(&mut state, &resp.encrypted_token_response).unwrap();
    assert_eq!(encode(&token).len(), 354);
    assert_eq!(RateLimitedToken::decode(&encode(&token)).unwrap(), token);
    let origin = Origin::new(issuer.public_key().clone());
    origin.verify(&token, &challenge).unwrap();
    let other = TokenChallenge::new(3, b"issuer.example", &[], b"origin.example").unwrap();
    assert_eq!(origin.verify(&token, &other), Err(Error::ChallengeMismatch));
    let mut forged = encode(&token);
    forged[300] ^= 1;
    assert_eq!(origin.verify(&RateLimitedToken::decode(&forged).unwrap(), &challenge), Err(Error::Verification));
    // A type-2 origin with the same key refuses it: the type differs.
    let t2 = pat::tokens::public::Origin::new(issuer.public_key().clone());
    assert_eq!(t2.verify(&token, &challenge), Err(Error::WrongTokenType { expected: 2, found: 3 }));

    // The same origin again: a fresh request key, the same alias.
    let (_, again) = issue(&client, &issuer, &mut attester, b"origin.example", &ANON_A, 11).unwrap();
    assert_eq!(again, alias);
    assert_eq!(attester.len(), 1);
    // Another origin: another alias, another entry.
    let (_, other_alias) = issue(&client, &issuer, &mut attester, b"other.example", &ANON_B, 11).unwrap();
    assert_ne!(other_alias, alias);
    assert_eq!(attester.len(), 2);
    // Another client, same origin: another alias.
    let client2 = client_for(&issuer, &OTHER_CLIENT_SECRET);
    let (_, alias2) = issue(&client2, &issuer, &mut attester, b"origin.example", &ANON_A, 11).unwrap();
    assert_ne!(alias2, alias);
}

#[test]
fn draft_choices_and_mismatched_choices() {
    // Config::DRAFT is the draft's set, with the constant-time blind encoding.
    let draft = Config::DRAFT;
    assert_eq!(
        draft,
        Config { labels: Labels::DRAFT, key_id_byte: KeyIdByte::Last, blind_encoding: BlindKeyEncoding::Fixed }
    );
    let issuer = issuer_with(8, draft);
    let client = client_for(&issuer, &CLIENT_SECRET).with_config(draft);
    let mut attester = Attester::<4>::new(policy());
    let (token, _) = issue(&client, &issuer, &mut attester, b"origin.example", &ANON_A, 0).unwrap();
    Origin::new(issuer.public_key().clone()).verify(&token, &challenge()).unwrap();

    // Other HPKE labels: the issuer cannot decrypt.
    let pat_go_client = client_for(&issuer, &CLIENT_SECRET);
    let (bytes, _) = request(&pat_go_client, b"origin.example");
    assert_eq!(evaluate(&issuer, &bytes).unwrap_err(), Error::Verification);
    // The same labels but the other key id byte (when the bytes differ).
    let key_id = issuer.key_id();
    if key_id[0] != key_id[31] {
        let mixed = Config { key_id_byte: KeyIdByte::First, ..draft };
        let (bytes, _) = request(&client_for(&issuer, &CLIENT_SECRET).with_config(mixed), b"origin.example");
        assert_eq!(evaluate(&issuer, &bytes).unwrap_err(), Error::KeyIdMismatch);
    }
}

#[test]
fn bad_request_signature() {
    let issuer = issuer();
    let client = client_for(&issuer, &CLIENT_SECRET);
    let attester = Attester::<4>::new(policy());
    let (mut bytes, state) = request(&client, b"origin.example");
    let last = bytes.len() - 1;
    bytes[last] ^= 0x01;
    let req = TokenRequest::decode(&bytes).unwrap();
    assert_eq!(req.verify_signature(), Err(Error::Verification));
    assert_eq!(
        attester.process(&req, client.client_key(), state.request_blind(), &ANON_A, 0),
        Err(Error::Verification)
    );
    assert_eq!(evaluate(&issuer, &bytes).unwrap_err(), Error::Verification);
    // A signature over another part of the message: the ciphertext covered too.
    let (mut bytes, state) = request(&client, b"origin.example");
    bytes[200] ^= 0x80;
    let req = TokenRequest::decode(&bytes).unwrap();
    assert_eq!(
        attester.process(&req, client.client_key(), state.request_blind(), &ANON_A, 0),
        Err(Error::Verification)
    );
    // A zero signature.
    let (mut bytes, _) = request(&client, b"origin.example");
    let n = bytes.len();
    bytes[n - 96..].fill(0);
    assert_eq!(evaluate(&issuer, &bytes).unwrap_err(), Error::Verification);
}

#[test]
fn request_key_not_the_client_key() {
    let issuer = issuer();
    let client = client_for(&issuer, &CLIENT_SECRET);
    let other = client_for(&issuer, &OTHER_CLIENT_SECRET);
    let attester = Attester::<4>::new(policy());
    let (bytes, state) = request(&client, b"origin.example");
    let req = TokenRequest::decode(&bytes).unwrap();
    // The attester is told another client's key.
    assert_eq!(
        attester.process(&req, other.client_key(), state.request_blind(), &ANON_A, 0),
        Err(Error::RequestKeyMismatch)
    );
    // Or another blind.
    let (_, other_state) = request(&client, b"origin.example");
    assert_eq!(
        attester.process(&req, client.client_key(), other_state.request_blind(), &ANON_A, 0),
        Err(Error::RequestKeyMismatch)
    );
    // A request signed by another client under its own blinded key verifies on
    // its own, but not as this client's.
    let (bytes, other_state) = request(&other, b"origin.example");
    let req = TokenRequest::decode(&bytes).unwrap();
    req.verify_signature().unwrap();
    assert_eq!(
        attester.process(&req, client.client_key(), other_state.request_blind(), &ANON_A, 0),
        Err(Error::RequestKeyMismatch)
    );
    attester.process(&req, other.client_key(), other_state.request_blind(), &ANON_A, 0).unwrap();
}

#[test]
fn unknown_origin() {
    let issuer = issuer();
    let client = client_for(&issuer, &CLIENT_SECRET);
    let (bytes, _) = request(&client, b"unknown.example");
    assert_eq!(evaluate(&issuer, &bytes).unwrap_err(), Error::UnknownOrigin);
    // A prefix of a known name is not that name.
    let (bytes, _) = request(&client, b"origin.exampl");
    assert_eq!(evaluate(&issuer, &bytes).unwrap_err(), Error::UnknownOrigin);
    // An empty table, through a slice reference.
    let empty: &[OriginKey<'_>] = &[];
    let encap = EncapSecretKey::derive(0x01, &[7; 32]);
    let bare = Issuer::new(encap, TokenKey::from_pkcs8_der(rsa_der()).unwrap(), empty);
    let (bytes, _) = request(&client, b"origin.example");
    assert_eq!(evaluate(&bare, &bytes).unwrap_err(), Error::UnknownOrigin);
}

#[test]
fn encap_key_id_not_the_issuers() {
    let issuer = issuer();
    let stranger = issuer_with(9, Config::default());
    // A client configured with another issuer's encapsulation key.
    let client = client_for(&stranger, &CLIENT_SECRET);
    let (bytes, _) = request(&client, b"origin.example");
    assert_eq!(evaluate(&issuer, &bytes).unwrap_err(), Error::KeyIdMismatch);
    // The right key but the id field altered.
    let client = client_for(&issuer, &CLIENT_SECRET);
    let (mut bytes, _) = request(&client, b"origin.example");
    bytes[51] ^= 0x01;
    assert_eq!(evaluate(&issuer, &bytes).unwrap_err(), Error::KeyIdMismatch);
}

/// Re-signs a modified request as the client would, so that the issuer gets
/// past the signature check.
fn resign(bytes: &mut [u8], state: &ClientState) {
    let sk = ecdsa::SecretKey::from_bytes(&CLIENT_SECRET).unwrap();
    let digest = TokenRequest::decode(bytes).unwrap().message_digest().unwrap();
    let sig = ecdsa::blind_key_sign(&sk, state.request_blind(), CTX_CLIENT, &digest, &mut rng()).unwrap();
    let n = bytes.len();
    bytes[n - 96..].copy_from_slice(&sig.to_bytes());
}

#[test]
fn ciphertext_with_a_flipped_bit() {
    let issuer = issuer();
    let client = client_for(&issuer, &CLIENT_SECRET);
    for (i, byte) in [(85usize, 0x01u8), (85 + 31, 0x80), (85 + 32, 0x01), (85 + 200, 0x10), (85 + 338, 0x01)] {
        let (mut bytes, state) = request(&client, b"origin.example");
        bytes[i] ^= byte;
        resign(&mut bytes, &state);
        TokenRequest::decode(&bytes).unwrap().verify_signature().unwrap();
        assert_eq!(evaluate(&issuer, &bytes).unwrap_err(), Error::Verification, "byte {i}");
    }
    // The unmodified but re-signed request still works (the check is the AEAD).
    let (mut bytes, mut state) = request(&client, b"origin.example");
    resign(&mut bytes, &state);
    let resp = evaluate(&issuer, &bytes).unwrap();
    client.finalize(&mut state, &resp.encrypted_token_response).unwrap();
}

/// A request whose ciphertext is `plaintext` sealed for `issuer` with the
/// right AAD and labels, signed by the client.
fn request_with_plaintext(issuer: &Issuer<impl t3::OriginKeys>, plaintext: &[u8]) -> Vec<u8> {
    let client_sk = ecdsa::SecretKey::from_bytes(&CLIENT_SECRET).unwrap();
    let blind = ecdsa::BlindKey::from_bytes(&[0x42; 48]);
    let request_key = alias::request_key(&client_sk.public_key(), &blind, CTX_CLIENT).unwrap().to_bytes();
    let mut ct = plaintext.to_vec();
    let mut export = [0u8; 16];
    let (enc, tag) = hazmat::seal_base(
        issuer.encap_key(),
        Labels::PAT_GO.info,
        &origin_encryption::aad(issuer.encap_key(), &request_key),
        &[5; 32],
        &mut ct,
        Labels::PAT_GO.exporter_context,
        &mut export,
    )
    .unwrap();
    let encrypted = [&enc[..], &ct, &tag].concat();
    let sig = [0u8; 96];
    let req = TokenRequest {
        request_key: &request_key,
        issuer_encap_key_id: issuer.encap_key_id(),
        encrypted_token_request: &encrypted,
        request_signature: &sig,
    };
    let digest = req.message_digest().unwrap();
    let sig = ecdsa::blind_key_sign(&client_sk, &blind, CTX_CLIENT, &digest, &mut rng()).unwrap().to_bytes();
    encode(&TokenRequest { request_signature: &sig, ..req })
}

#[test]
fn truncated_or_badly_padded_inner_request() {
    let issuer = issuer();
    let key_id_byte = KeyIdByte::First.truncate(issuer.key_id());
    let msg = [0x01u8; 256];
    let inner = |padded: &[u8], prefix: u16| {
        let mut v = vec![key_id_byte];
        v.extend_from_slice(&msg);
        v.extend_from_slice(&prefix.to_be_bytes());
        v.extend_from_slice(padded);
        v
    };
    let mut name = b"origin.example".to_vec();
    name.resize(32, 0);
    // The well-formed plaintext is accepted.
    evaluate(&issuer, &request_with_plaintext(&issuer, &inner(&name, 32))).unwrap();
    // Truncated: the prefix says 32, 31 bytes follow; cut inside blinded_msg.
    let truncated = inner(&name, 32);
    assert_eq!(
        evaluate(&issuer, &request_with_plaintext(&issuer, &truncated[..truncated.len() - 1])).unwrap_err(),
        Error::Truncated
    );
    assert_eq!(evaluate(&issuer, &request_with_plaintext(&issuer, &truncated[..100])).unwrap_err(), Error::Truncated);
    // A trailing byte after the padded name.
    let mut trailing = inner(&name, 32);
    trailing.push(0);
    assert_eq!(evaluate(&issuer, &request_with_plaintext(&issuer, &trailing)).unwrap_err(), Error::TrailingBytes);
    // Excess padding (64 bytes for a 14-byte name), a length not a multiple of
    // 32, an empty padded name.
    let mut long = b"origin.example".to_vec();
    long.resize(64, 0);
    assert_eq!(
        evaluate(&issuer, &request_with_plaintext(&issuer, &inner(&long, 64))).unwrap_err(),
        Error::InvalidValue(Field::OriginName)
    );
    assert_eq!(
        evaluate(&issuer, &request_with_plaintext(&issuer, &inner(&name[..31], 31))).unwrap_err(),
        Error::InvalidLength(Field::OriginName)
    );
    assert_eq!(
        evaluate(&issuer, &request_with_plaintext(&issuer, &inner(&[], 0))).unwrap_err(),
        Error::InvalidLength(Field::OriginName)
    );
    // The wrong inner key id byte.
    let mut wrong_id = inner(&name, 32);
    wrong_id[0] ^= 0xff;
    assert_eq!(evaluate(&issuer, &request_with_plaintext(&issuer, &wrong_id)).unwrap_err(), Error::KeyIdMismatch);
    // A blinded message ≥ n.
    let mut big = inner(&name, 32);
    big[1..257].fill(0xff);
    assert!(matches!(
        evaluate(&issuer, &request_with_plaintext(&issuer, &big)).unwrap_err(),
        Error::InvalidValue(Field::Message)
    ));
}

#[test]
fn origin_name_limits() {
    let issuer = issuer();
    let client = client_for(&issuer, &CLIENT_SECRET);
    assert_eq!(t3::MAX_ORIGIN_NAME_LEN, 65216);
    let too_long = vec![b'a'; t3::MAX_ORIGIN_NAME_LEN + 1];
    let mut out = vec![0x5a; 70_000];
    assert_eq!(
        client.request(&challenge(), &too_long, &mut rng(), &mut out).unwrap_err(),
        Error::InvalidLength(Field::OriginName)
    );
    assert_eq!(t3::request_len(too_long.len()).unwrap_err(), Error::InvalidLength(Field::OriginName));
    // Longer than even the inner request can pad.
    let way_too_long = vec![b'a'; inner_request::MAX_ORIGIN_NAME_LEN + 1];
    assert_eq!(
        client.request(&challenge(), &way_too_long, &mut rng(), &mut out).unwrap_err(),
        Error::InvalidLength(Field::OriginName)
    );
    assert_eq!(
        client.request(&challenge(), b"bad\0", &mut rng(), &mut out).unwrap_err(),
        Error::InvalidValue(Field::OriginName)
    );
    assert!(out.iter().all(|&b| b == 0x5a), "nothing written on failure");

    // The longest name: a 65523-byte ciphertext, through the issuer.
    let longest = vec![b'a'; t3::MAX_ORIGIN_NAME_LEN];
    let (bytes, _) = request(&client, &longest);
    let req = TokenRequest::decode(&bytes).unwrap();
    assert_eq!(req.encrypted_token_request.len(), 65523);
    assert_eq!(bytes.len(), 85 + 65523 + 96);
    assert_eq!(evaluate(&issuer, &bytes).unwrap_err(), Error::UnknownOrigin);
    let mut small = vec![0u8; t3::scratch_len(&req) - 1];
    assert_eq!(issuer.evaluate(&req, &mut small, &mut rng()).unwrap_err(), Error::BufferTooSmall);
    // The empty name pads to 32 bytes.
    let (bytes, _) = request(&client, b"");
    assert_eq!(bytes.len(), 520);
}

#[test]
fn full_attester_store() {
    let issuer = issuer();
    let client = client_for(&issuer, &CLIENT_SECRET);
    let mut attester = Attester::<2>::new(Policy { max_tokens: 5, window: 100 });
    assert_eq!(attester.capacity(), 2);
    assert!(attester.is_empty());
    issue(&client, &issuer, &mut attester, ORIGINS[0], &[1; 32], 10).unwrap();
    issue(&client, &issuer, &mut attester, ORIGINS[1], &[2; 32], 10).unwrap();
    assert_eq!(issue(&client, &issuer, &mut attester, ORIGINS[2], &[3; 32], 10).unwrap_err(), Error::CapacityExceeded);
    // Known entries still work when full.
    issue(&client, &issuer, &mut attester, ORIGINS[0], &[1; 32], 20).unwrap();
    assert_eq!(attester.len(), 2);
    // Nothing to prune in the same window; everything in the next one.
    assert_eq!(attester.prune(99), 0);
    assert_eq!(attester.prune(100), 2);
    issue(&client, &issuer, &mut attester, ORIGINS[2], &[3; 32], 100).unwrap();
    assert_eq!(
        format!("{attester:?}"),
        "Attester { policy: Policy { max_tokens: 5, window: 100 }, entries: 1, capacity: 2, .. }"
    );
}

#[test]
fn over_the_rate_limit() {
    let issuer = issuer();
    let client = client_for(&issuer, &CLIENT_SECRET);
    let mut attester = Attester::<4>::new(Policy { max_tokens: 2, window: 60 });
    let (_, alias) = issue(&client, &issuer, &mut attester, ORIGINS[0], &ANON_A, 0).unwrap();
    issue(&client, &issuer, &mut attester, ORIGINS[0], &ANON_A, 59).unwrap();
    assert_eq!(attester.remaining(client.client_key(), &alias, 59), 0);
    // The attester refuses before asking the issuer ...
    let (bytes, state) = request(&client, ORIGINS[0]);
    let req = TokenRequest::decode(&bytes).unwrap();
    assert_eq!(
        attester.process(&req, client.client_key(), state.request_blind(), &ANON_A, 30),
        Err(Error::RateLimited)
    );
    // ... and, if asked anyway, after the issuer answered.
    let resp = evaluate(&issuer, &bytes).unwrap();
    assert_eq!(
        attester.finalize_index(client.client_key(), state.request_blind(), &resp.blinded_request_key, &ANON_A, 30),
        Err(Error::RateLimited)
    );
    // Other origins and other clients are not affected.
    issue(&client, &issuer, &mut attester, ORIGINS[1], &ANON_B, 30).unwrap();
    issue(&client_for(&issuer, &OTHER_CLIENT_SECRET), &issuer, &mut attester, ORIGINS[0], &ANON_A, 30).unwrap();
    // A clock going backwards does not reset the window.
    assert_eq!(issue(&client, &issuer, &mut attester, ORIGINS[0], &ANON_A, 0).unwrap_err(), Error::RateLimited);
    // The next window starts a new count.
    assert_eq!(attester.remaining(client.client_key(), &alias, 60), 2);
    issue(&client, &issuer, &mut attester, ORIGINS[0], &ANON_A, 60).unwrap();
    issue(&client, &issuer, &mut attester, ORIGINS[0], &ANON_A, 119).unwrap();
    assert_eq!(issue(&client, &issuer, &mut attester, ORIGINS[0], &ANON_A, 119).unwrap_err(), Error::RateLimited);

    // A zero limit refuses everything; window 0 is a lifetime limit.
    let mut closed = Attester::<4>::new(Policy { max_tokens: 0, window: 60 });
    assert_eq!(issue(&client, &issuer, &mut closed, ORIGINS[0], &ANON_A, 0).unwrap_err(), Error::RateLimited);
    let mut lifetime = Attester::<4>::new(Policy { max_tokens: 1, window: 0 });
    issue(&client, &issuer, &mut lifetime, ORIGINS[0], &ANON_A, 0).unwrap();
    assert_eq!(issue(&client, &issuer, &mut lifetime, ORIGINS[0], &ANON_A, u64::MAX).unwrap_err(), Error::RateLimited);
    assert_eq!(lifetime.prune(u64::MAX), 0);
}

#[test]
fn alias_reused_with_another_anonymous_origin_id() {
    let issuer = issuer();
    let client = client_for(&issuer, &CLIENT_SECRET);
    let mut attester = Attester::<4>::new(policy());
    issue(&client, &issuer, &mut attester, ORIGINS[0], &ANON_A, 0).unwrap();
    assert_eq!(issue(&client, &issuer, &mut attester, ORIGINS[0], &ANON_B, 0).unwrap_err(), Error::OriginIdConflict);
    assert_eq!(attester.len(), 1);
    // The original id still works; the same anonymous id for another origin
    // (another alias) is allowed, as in pat-go.
    issue(&client, &issuer, &mut attester, ORIGINS[0], &ANON_A, 0).unwrap();
    issue(&client, &issuer, &mut attester, ORIGINS[1], &ANON_A, 0).unwrap();
    // A blinded request key that is not a point.
    let (_, state) = request(&client, ORIGINS[0]);
    assert_eq!(
        attester.finalize_index(client.client_key(), state.request_blind(), &[0u8; 49], &ANON_A, 0),
        Err(Error::InvalidElement)
    );
}

#[test]
fn client_side_failures() {
    let issuer = issuer();
    let client = client_for(&issuer, &CLIENT_SECRET);
    // Wrong challenge type, short buffer: nothing written.
    let t2 = TokenChallenge::new(2, b"issuer.example", &[], &[]).unwrap();
    let mut out = vec![0x5a; 600];
    assert_eq!(
        client.request(&t2, b"origin.example", &mut rng(), &mut out).unwrap_err(),
        Error::WrongTokenType { expected: 3, found: 2 }
    );
    assert_eq!(
        client.request(&challenge(), b"origin.example", &mut rng(), &mut out[..519]).unwrap_err(),
        Error::BufferTooSmall
    );
    assert!(out.iter().all(|&b| b == 0x5a));

    // A response of the wrong length, or altered.
    let (bytes, mut state) = request(&client, b"origin.example");
    let resp = evaluate(&issuer, &bytes).unwrap();
    assert_eq!(
        client.finalize(&mut state, &resp.encrypted_token_response[..287]).unwrap_err(),
        Error::InvalidLength(Field::Message)
    );
    for i in [0, 16, 200, 287] {
        let (bytes, mut state) = request(&client, b"origin.example");
        let mut resp = evaluate(&issuer, &bytes).unwrap().encrypted_token_response;
        resp[i] ^= 1;
        assert_eq!(client.finalize(&mut state, &resp).unwrap_err(), Error::Verification, "byte {i}");
    }
    // A response for another request.
    let (bytes, _) = request(&client, b"origin.example");
    let resp = evaluate(&issuer, &bytes).unwrap();
    let (_, mut state) = request(&client, b"origin.example");
    assert_eq!(client.finalize(&mut state, &resp.encrypted_token_response).unwrap_err(), Error::Verification);
}

#[test]
fn finalize_with_the_token_key_alone() {
    let issuer = issuer();
    let client = client_for(&issuer, &CLIENT_SECRET);
    let (bytes, state) = request(&client, b"origin.example");
    let resp = evaluate(&issuer, &bytes).unwrap();
    let exported = state.export().unwrap();
    drop((state, client));
    // The device reloads the state with the token key, not its long-term secret.
    let token_key = issuer.public_key().clone();
    let mut state = ClientState::import_for_token_key(&token_key, exported.as_bytes()).unwrap();
    // Another issuer's key is refused, and the state stays usable.
    let other = blind_rsa::PublicKey::from_spki(&common::field(
        &common::load("pat-go/tokens/type2/type2-issuance-test-vectors.json")[0],
        "pkS",
    ))
    .unwrap();
    assert_eq!(state.finalize(&other, &resp.encrypted_token_response).unwrap_err(), Error::KeyIdMismatch);
    assert_eq!(ClientState::import_for_token_key(&other, exported.as_bytes()).unwrap_err(), Error::KeyIdMismatch);
    let token = state.finalize(&token_key, &resp.encrypted_token_response).unwrap();
    Origin::new(token_key.clone()).verify(&token, &challenge()).unwrap();
    assert!(state.is_spent());
    assert_eq!(state.finalize(&token_key, &resp.encrypted_token_response).unwrap_err(), Error::StateSpent);
}

#[test]
fn parser_negatives() {
    let issuer = issuer();
    let client = client_for(&issuer, &CLIENT_SECRET);
    let (bytes, _) = request(&client, b"origin.example");
    for n in 0..bytes.len() {
        assert_eq!(TokenRequest::decode(&bytes[..n]).unwrap_err(), Error::Truncated, "prefix {n}");
    }
    let mut long = bytes.clone();
    long.push(0);
    assert_eq!(TokenRequest::decode(&long).unwrap_err(), Error::TrailingBytes);
    for ty in [0u8, 1, 2, 4, 5] {
        let mut other = bytes.clone();
        other[1] = ty;
        assert_eq!(
            TokenRequest::decode(&other).unwrap_err(),
            Error::WrongTokenType { expected: 3, found: u16::from(ty) }
        );
    }
    // An empty ciphertext: header with length 0, then a signature.
    let mut empty = bytes[..83].to_vec();
    empty.extend_from_slice(&[0, 0]);
    empty.extend_from_slice(&[7; 96]);
    assert_eq!(TokenRequest::decode(&empty).unwrap_err(), Error::InvalidLength(Field::EncryptedTokenRequest));
    // A length prefix pointing past the end.
    let mut over = bytes.clone();
    over[83..85].copy_from_slice(&0xffffu16.to_be_bytes());
    assert_eq!(TokenRequest::decode(&over).unwrap_err(), Error::Truncated);
    // A one-byte ciphertext parses (the issuer rejects it).
    let mut tiny = bytes[..83].to_vec();
    tiny.extend_from_slice(&[0, 1, 0xee]);
    tiny.extend_from_slice(&bytes[bytes.len() - 96..]);
    let req = TokenRequest::decode(&tiny).unwrap();
    assert_eq!(encode(&req), tiny);
    assert_eq!(evaluate(&issuer, &tiny).unwrap_err(), Error::Verification);

    // Encoding checks the ciphertext length.
    let req = TokenRequest::decode(&bytes).unwrap();
    let big = vec![0u8; 65536];
    let empty_req = TokenRequest { encrypted_token_request: &[], ..req };
    assert_eq!(empty_req.encode(&mut [0u8; 300]).unwrap_err(), Error::InvalidLength(Field::EncryptedTokenRequest));
    assert_eq!(empty_req.message_digest().unwrap_err(), Error::InvalidLength(Field::EncryptedTokenRequest));
    let big_req = TokenRequest { encrypted_token_request: &big, ..req };
    assert_eq!(big_req.encode(&mut vec![0u8; 70_000]).unwrap_err(), Error::InvalidLength(Field::EncryptedTokenRequest));
    assert_eq!(req.encode(&mut [0u8; 519]).unwrap_err(), Error::BufferTooSmall);
    // A request_key that is not a point.
    let mut not_point = bytes.clone();
    not_point[2..51].fill(0);
    let req = TokenRequest::decode(&not_point).unwrap();
    assert_eq!(req.verify_signature(), Err(Error::InvalidElement));
    assert_eq!(evaluate(&issuer, &not_point).unwrap_err(), Error::InvalidElement);
}

#[test]
fn deterministic_request_and_redacted_debug() {
    let issuer = issuer();
    let client = client_for(&issuer, &CLIENT_SECRET);
    // A blind r < n: the top byte below the modulus's.
    let mut r = [0x33u8; 256];
    r[0] = 0x01;
    let fixed =
        RequestRandomness { nonce: &[1; 32], salt: &[2; 48], blind: &r, request_blind: &[3; 48], ikm_e: &[4; 32] };
    let mut a = vec![0u8; 520];
    let mut b = vec![0u8; 520];
    let (_, mut sa) = pat::hazmat::tokens::rate_limited::request_with(
        &client,
        &challenge(),
        b"origin.example",
        &fixed,
        &mut rng(),
        &mut a,
    )
    .unwrap();
    let (_, sb) = pat::hazmat::tokens::rate_limited::request_with(
        &client,
        &challenge(),
        b"origin.example",
        &fixed,
        &mut rng(),
        &mut b,
    )
    .unwrap();
    // Everything but the hedged signature is reproducible.
    assert_eq!(a[..424], b[..424]);
    assert_ne!(a[424..], b[424..]);
    let resp = evaluate(&issuer, &a).unwrap();
    let token = client.finalize(&mut sa, &resp.encrypted_token_response).unwrap();
    assert_eq!(token.input().nonce(), &[1; 32]);
    drop(sb);

    let (_, state) = request(&client, b"origin.example");
    let debug = format!("{state:?}");
    assert!(debug.starts_with("ClientState { input: TokenInput"), "{debug}");
    assert!(debug.ends_with(".. }"), "{debug}");
    assert_eq!(format!("{:?}", state.request_blind()), "BlindKey");
    assert_eq!(format!("{:?}", origin_keys()[0]), "OriginKey { name: \"origin.example\", .. }");
    assert!(!format!("{client:?}").contains("SecretKey("));
    assert!(format!("{issuer:?}").starts_with("Issuer { encap_key: EncapKey"));
    assert_eq!(format!("{fixed:?}"), "RequestRandomness");
}

#[test]
fn fuzz_seeds_parse() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    let read = |target: &str| -> Vec<Vec<u8>> {
        // Only the committed seeds: a local fuzzing run adds other (possibly invalid) inputs.
        std::fs::read_dir(root.join(target))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.file_name().unwrap().to_str().unwrap().starts_with("seed-"))
            .map(|p| std::fs::read(p).unwrap())
            .collect()
    };
    for seed in read("type3_request") {
        let req = TokenRequest::decode(&seed).unwrap();
        assert_eq!(encode(&req), seed);
    }
    for seed in read("encap_key") {
        pat::crypto::rate_limited::EncapKey::decode(&seed).unwrap();
    }
    for seed in read("inner_request") {
        pat::crypto::rate_limited::InnerTokenRequest::decode(&seed).unwrap();
    }
}
