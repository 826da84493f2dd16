//! Token type 0xE5AC (draft-ietf-privacypass-arc-protocol-01): issuance
//! through the wire messages, a presentation limit of N enforced end to end
//! with the replay store (N tokens redeem, the N+1st cannot be made, a
//! replayed token is refused), the context binding, and every way a
//! challenge, request or token can be malformed.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core,
    clippy::cast_possible_truncation
)]

use pat::crypto::arc::{CredentialResponse, PresentationState, ServerPrivateKey};
use pat::deploy::replay::MemoryReplayStore;
use pat::tokens::arc::{
    ArcChallenge, ArcToken, Client, Issuer, REQUEST_LEN, RESPONSE_LEN, TOKEN_HEADER_LEN, TOKEN_TYPE, TokenRequest,
    token_len,
};
use pat::wire::codec::{Decode, Encode};
use pat::{Error, Field};

mod common;
use common::{encode, rng};

const NOW: u64 = 1_700_000_000;
const EXPIRES: u64 = NOW + 86_400;

fn issuer() -> Issuer {
    Issuer::new(ServerPrivateKey::generate(&mut rng()).unwrap())
}

/// Issues a credential for `challenge` over the wire encodings.
fn credential(issuer: &Issuer, client: &Client, challenge: &ArcChallenge<'_>) -> pat::crypto::arc::Credential {
    let mut r = rng();
    let (state, request) = client.request(challenge, &mut r).unwrap();
    let wire = encode(&request);
    assert_eq!(wire.len(), REQUEST_LEN);
    assert_eq!(wire[..2], TOKEN_TYPE.to_be_bytes());
    let response = issuer.issue(&TokenRequest::decode(&wire).unwrap(), &mut r).unwrap();
    let wire = response.to_bytes();
    assert_eq!(wire.len(), RESPONSE_LEN);
    client.finalize(&state, &CredentialResponse::decode(&wire).unwrap()).unwrap()
}

#[test]
fn limit_of_n_end_to_end() {
    let issuer = issuer();
    let client = Client::from_token_key(&issuer.token_key()).unwrap();
    assert_eq!(client.key_id(), issuer.key_id());
    let credential_context = [9u8; 32];
    let challenge = ArcChallenge::new(b"issuer.example", &[1; 32], b"origin.example", &credential_context).unwrap();
    let wire = encode(&challenge);
    let challenge = ArcChallenge::decode(&wire).unwrap();
    let credential = credential(&issuer, &client, &challenge);

    const N: u64 = 5;
    let mut state = client.presentation_state(&credential, &challenge, N).unwrap();
    let mut store = MemoryReplayStore::<16>::new([7; 32]);
    let mut r = rng();
    let mut tokens = Vec::new();
    for i in 0..N {
        let mut out = vec![0u8; token_len(N).unwrap()];
        let len = client.token(&mut state, &challenge, &mut r, &mut out).unwrap();
        assert_eq!(len, out.len());
        let token = ArcToken::decode(&out, N).unwrap();
        assert_eq!(u64::from(token.presentation_nonce), i);
        assert_eq!(token.challenge_digest, challenge.digest());
        issuer.redeem(&token, &challenge, N, &mut store, EXPIRES, NOW).unwrap();
        // The state survives a device's storage between tokens.
        state = PresentationState::import(&state.export()[..]).unwrap();
        tokens.push(out);
    }
    // The N+1st token cannot be made.
    let mut out = vec![0u8; token_len(N).unwrap()];
    assert_eq!(client.token(&mut state, &challenge, &mut r, &mut out), Err(Error::PresentationLimitReached));
    // Every token replayed is refused; each still verifies on its own.
    for t in &tokens {
        let token = ArcToken::decode(t, N).unwrap();
        issuer.verify(&token, &challenge, N).unwrap();
        assert_eq!(issuer.redeem(&token, &challenge, N, &mut store, EXPIRES, NOW), Err(Error::Replayed));
    }
    assert_eq!(store.len(), N as usize);
}

#[test]
fn tokens_are_bound_to_their_contexts() {
    let issuer = issuer();
    let client = Client::from_token_key(&issuer.token_key()).unwrap();
    let challenge = ArcChallenge::new(b"issuer.example", &[1; 32], b"origin.example", &[]).unwrap();
    let credential = credential(&issuer, &client, &challenge);
    let mut state = client.presentation_state(&credential, &challenge, 4).unwrap();
    let mut r = rng();
    let mut out = vec![0u8; token_len(4).unwrap()];
    client.token(&mut state, &challenge, &mut r, &mut out).unwrap();
    let token = ArcToken::decode(&out, 4).unwrap();

    // Another redemption context: another presentation context.
    let other = ArcChallenge::new(b"issuer.example", &[2; 32], b"origin.example", &[]).unwrap();
    let mut spare = vec![0u8; out.len()];
    assert_eq!(client.token(&mut state, &other, &mut r, &mut spare), Err(Error::ChallengeMismatch));
    assert_eq!(issuer.verify(&token, &other, 4), Err(Error::ChallengeMismatch));
    // A token whose digest names the other challenge still fails its proof.
    let forged = ArcToken { challenge_digest: other.digest(), ..token };
    assert_eq!(issuer.verify(&forged, &other, 4), Err(Error::Verification));
    // Another credential context: the credential was not issued for it.
    let cc = [3u8; 32];
    let other_cred = ArcChallenge::new(b"issuer.example", &[1; 32], b"origin.example", &cc).unwrap();
    let forged = ArcToken { challenge_digest: other_cred.digest(), ..token };
    assert_eq!(issuer.verify(&forged, &other_cred, 4), Err(Error::Verification));
    // Another issuer key.
    let other_issuer = self::issuer();
    assert_eq!(other_issuer.verify(&token, &challenge, 4), Err(Error::KeyIdMismatch));
    let forged = ArcToken { issuer_key_id: *other_issuer.key_id(), ..token };
    assert_eq!(other_issuer.verify(&forged, &challenge, 4), Err(Error::Verification));
    // Another limit: the presentation has another length.
    assert!(ArcToken::decode(&out, 8).is_err());
    // A request for another key.
    let (_, mut request) = client.request(&challenge, &mut r).unwrap();
    request.truncated_key_id ^= 1;
    assert_eq!(issuer.issue(&request, &mut r), Err(Error::KeyIdMismatch));
}

#[test]
fn challenge_decoding() {
    let challenge = ArcChallenge::new(b"issuer.example", &[1; 32], b"a.example,b.example", &[5; 32]).unwrap();
    let wire = encode(&challenge);
    assert_eq!(wire.len(), challenge.encoded_len());
    assert_eq!(ArcChallenge::decode(&wire).unwrap(), challenge);
    // The digest is SHA-256 of the encoding.
    use sha2::Digest;
    assert_eq!(challenge.digest()[..], sha2::Sha256::digest(&wire)[..]);
    // Every truncation.
    for n in 0..wire.len() {
        assert_eq!(ArcChallenge::decode(&wire[..n]), Err(Error::Truncated), "{n}");
    }
    let mut long = wire.clone();
    long.push(0);
    assert_eq!(ArcChallenge::decode(&long), Err(Error::TrailingBytes));
    // Another type.
    let mut other = wire.clone();
    other[1] = 0x02;
    assert_eq!(ArcChallenge::decode(&other), Err(Error::WrongTokenType { expected: 0xE5AC, found: 0xE502 }));
    // A plain RFC 9577 challenge of this type lacks credential_context.
    let plain = encode(challenge.challenge());
    assert_eq!(ArcChallenge::decode(&plain), Err(Error::Truncated));
    // credential_context lengths other than 0 and 32.
    for len in [1usize, 31, 33, 255] {
        let mut bad = plain.clone();
        bad.push(len as u8);
        bad.extend(std::iter::repeat_n(0u8, len));
        assert_eq!(ArcChallenge::decode(&bad), Err(Error::InvalidLength(Field::CredentialContext)), "{len}");
    }
    assert_eq!(
        ArcChallenge::new(b"i", &[], b"", &[0; 31]).unwrap_err(),
        Error::InvalidLength(Field::CredentialContext)
    );
    // Empty credential_context, empty origin_info, opaque names.
    let mut ok = plain.clone();
    ok.push(0);
    let c = ArcChallenge::decode(&ok).unwrap();
    assert!(c.credential_context().is_empty());
    let opaque = ArcChallenge::new_opaque("ïssuer".as_bytes(), &[], b"", &[]).unwrap();
    assert_eq!(ArcChallenge::decode(&encode(&opaque)).unwrap(), opaque);
}

#[test]
fn request_and_token_decoding() {
    let issuer = issuer();
    let client = Client::from_token_key(&issuer.token_key()).unwrap();
    let challenge = ArcChallenge::new(b"issuer.example", &[], b"", &[]).unwrap();
    let mut r = rng();
    let (state, request) = client.request(&challenge, &mut r).unwrap();
    let wire = encode(&request);
    assert_eq!(TokenRequest::decode(&wire).unwrap(), request);
    assert_eq!(TokenRequest::decode(&wire[..REQUEST_LEN - 1]), Err(Error::Truncated));
    let mut long = wire.clone();
    long.push(0);
    assert_eq!(TokenRequest::decode(&long), Err(Error::TrailingBytes));
    let mut other = wire.clone();
    other[0] = 0;
    assert!(matches!(TokenRequest::decode(&other), Err(Error::WrongTokenType { .. })));
    let mut bad_point = wire.clone();
    bad_point[3] = 0x05;
    assert_eq!(TokenRequest::decode(&bad_point), Err(Error::InvalidElement));

    let response = issuer.issue(&request, &mut r).unwrap();
    let credential = client.finalize(&state, &response).unwrap();
    let mut pstate = client.presentation_state(&credential, &challenge, 2).unwrap();
    let mut out = vec![0u8; token_len(2).unwrap()];
    client.token(&mut pstate, &challenge, &mut r, &mut out).unwrap();
    let token = ArcToken::decode(&out, 2).unwrap();
    let mut again = vec![0u8; out.len()];
    assert_eq!(token.encode(&mut again).unwrap(), out.len());
    assert_eq!(again, out);
    assert_eq!(token.encode(&mut again[..10]), Err(Error::BufferTooSmall));
    for n in [0, 1, TOKEN_HEADER_LEN, out.len() - 1] {
        assert_eq!(ArcToken::decode(&out[..n], 2), Err(Error::Truncated), "{n}");
    }
    let mut long = out.clone();
    long.push(0);
    assert_eq!(ArcToken::decode(&long, 2), Err(Error::TrailingBytes));
    let mut other = out.clone();
    other[1] = 0;
    assert!(matches!(ArcToken::decode(&other, 2), Err(Error::WrongTokenType { .. })));
    assert_eq!(ArcToken::decode(&out, 1), Err(Error::InvalidValue(Field::PresentationLimit)));
    // A presentation element that is not a point: refused at verification.
    let mut bad = out.clone();
    bad[TOKEN_HEADER_LEN] = 0x07;
    let token = ArcToken::decode(&bad, 2).unwrap();
    assert_eq!(issuer.verify(&token, &challenge, 2), Err(Error::InvalidElement));
    // The buffer must hold the token.
    let mut small = vec![0u8; out.len() - 1];
    assert_eq!(client.token(&mut pstate, &challenge, &mut r, &mut small), Err(Error::BufferTooSmall));
}

#[test]
fn rate_limit_in_the_http_challenge() {
    use pat::wire::auth::{parse_www_authenticate, write_www_authenticate_with_rate_limit};
    let issuer = issuer();
    let challenge = ArcChallenge::new(b"issuer.example", &[1; 32], b"origin.example", &[2; 32]).unwrap();
    let wire = encode(&challenge);
    let mut out = [0u8; 600];
    let header =
        write_www_authenticate_with_rate_limit(&wire, Some(&issuer.token_key()), Some(60), 10, &mut out).unwrap();
    assert!(header.ends_with(", rate-limit=10"), "{header}");
    let parsed = parse_www_authenticate(header).next().unwrap().unwrap();
    assert_eq!(parsed.decode_rate_limit(), Ok(Some(10)));
    assert_eq!(parsed.max_age, Some(60));
    let mut buf = [0u8; 300];
    assert_eq!(ArcChallenge::decode(parsed.decode_challenge(&mut buf).unwrap()).unwrap(), challenge);
    let mut key = [0u8; 128];
    assert_eq!(parsed.decode_token_key(&mut key).unwrap(), issuer.token_key());
    // Quoted is accepted too; anything but digits, an overflow or a repeat is not.
    let ok = "PrivateToken challenge=\"AAAA\", rate-limit=\"4294967296\"";
    assert_eq!(parse_www_authenticate(ok).next().unwrap().unwrap().decode_rate_limit(), Ok(Some(1 << 32)));
    for bad in
        ["rate-limit=abc", "rate-limit=\"\"", "rate-limit=-1", "rate-limit=1.5", "rate-limit=18446744073709551616"]
    {
        let h = format!("PrivateToken challenge=\"AAAA\", {bad}");
        // The challenge itself parses: the value only matters to ARC.
        let c = parse_www_authenticate(&h).next().unwrap().unwrap();
        assert_eq!(c.decode_rate_limit(), Err(Error::InvalidValue(Field::RateLimit)), "{bad}");
    }
    let dup = "PrivateToken challenge=\"AAAA\", rate-limit=2, rate-limit=3";
    assert_eq!(parse_www_authenticate(dup).next().unwrap(), Err(Error::DuplicateParameter(Field::RateLimit)));
    // Other challenges have none.
    let plain = "PrivateToken challenge=\"AAAA\"";
    assert_eq!(parse_www_authenticate(plain).next().unwrap().unwrap().decode_rate_limit(), Ok(None));
}

/// Fills every buffer with zeros: a driver that fills nothing.
struct ZeroRng;

impl rand_core::TryRng for ZeroRng {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(0)
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(0)
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        dst.fill(0);
        Ok(())
    }
}

impl rand_core::TryCryptoRng for ZeroRng {}

/// A generator stuck at zero makes every ARC sampler give up with
/// `Rng(EXHAUSTED)` (it looped for ever before): key generation, the
/// client's request, the issuer's response and a presentation.
#[test]
fn a_generator_stuck_at_zero_is_refused() {
    let exhausted = Err(Error::Rng(pat::RngCode::EXHAUSTED));
    assert_eq!(ServerPrivateKey::generate(&mut ZeroRng).map(|_| ()), exhausted);
    let issuer = issuer();
    let client = Client::from_token_key(&issuer.token_key()).unwrap();
    let challenge = ArcChallenge::new(b"issuer.example", &[1; 32], b"origin.example", &[]).unwrap();
    assert_eq!(client.request(&challenge, &mut ZeroRng).map(|_| ()), exhausted);
    let (_, request) = client.request(&challenge, &mut rng()).unwrap();
    assert_eq!(issuer.issue(&request, &mut ZeroRng).map(|_| ()), exhausted);
    let credential = credential(&issuer, &client, &challenge);
    let mut state = client.presentation_state(&credential, &challenge, 2).unwrap();
    let mut out = vec![0u8; token_len(2).unwrap()];
    assert_eq!(client.token(&mut state, &challenge, &mut ZeroRng, &mut out).map(|_| ()), exhausted);
}

/// A redemption whose expiry has already come records nothing and refuses
/// the token, every time (it was accepted, and never recorded, before).
#[test]
fn an_expired_redemption_window_refuses_the_token() {
    let issuer = issuer();
    let client = Client::from_token_key(&issuer.token_key()).unwrap();
    let challenge = ArcChallenge::new(b"issuer.example", &[1; 32], b"origin.example", &[]).unwrap();
    let credential = credential(&issuer, &client, &challenge);
    let mut state = client.presentation_state(&credential, &challenge, 2).unwrap();
    let mut out = vec![0u8; token_len(2).unwrap()];
    client.token(&mut state, &challenge, &mut rng(), &mut out).unwrap();
    let token = ArcToken::decode(&out, 2).unwrap();
    let mut store = MemoryReplayStore::<4>::new([7; 32]);
    for expires_at in [0, NOW - 1, NOW] {
        for _ in 0..2 {
            assert_eq!(
                issuer.redeem(&token, &challenge, 2, &mut store, expires_at, NOW),
                Err(Error::ReplayWindowExpired)
            );
        }
    }
    assert!(store.is_empty());
    let expires = pat::deploy::replay::windowed_expiry(NOW, 60, pat::deploy::replay::CLOCK_SKEW_MARGIN);
    issuer.redeem(&token, &challenge, 2, &mut store, expires, NOW).unwrap();
    assert_eq!(issuer.redeem(&token, &challenge, 2, &mut store, expires, NOW), Err(Error::Replayed));
}

#[test]
fn token_lengths_of_any_limit() {
    // Each k = ⌈log2(limit)⌉ from 1 to 32 has one length, 33 + 32·3 bytes
    // apart from the next (a bit commitment and three responses).
    let lens: Vec<usize> = (1..=32u32).map(|k| token_len(1u64 << k).unwrap()).collect();
    for w in lens.windows(2) {
        assert_eq!(w[1] - w[0], 33 + 3 * 32);
    }
    for limit in [2u64, 3, 5, 100, 1 << 16, (1 << 16) + 1, u64::from(u32::MAX), 1 << 32] {
        let len = token_len(limit).unwrap();
        assert!(pat::tokens::arc::is_token_len(len), "limit {limit}");
        assert!(!pat::tokens::arc::is_token_len(len - 1));
        assert!(!pat::tokens::arc::is_token_len(len + 1));
    }
    assert!(!pat::tokens::arc::is_token_len(0));
    assert!(!pat::tokens::arc::is_token_len(TOKEN_HEADER_LEN));
    assert!(!pat::tokens::arc::is_token_len(lens[0] - (33 + 3 * 32)));
    assert!(!pat::tokens::arc::is_token_len(lens[31] + (33 + 3 * 32)));
}
