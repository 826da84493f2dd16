//! Type 0xDA7A and partially blind RSA: the published known answers through
//! the primitive, every role with real randomness, and every way a request,
//! response, token, extensions list or header can be wrong.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core
)]

use std::sync::OnceLock;

use pat::crypto::blind_rsa::partial::{DerivedPublicKey, DerivedSecretKey};
use pat::crypto::blind_rsa::{PreparedMessage, SecretKey, Variant};
use pat::tokens::metadata::{Client, Issuer, MetadataToken, Origin, RequestState, TokenRequest, TokenResponse};
use pat::wire::auth;
use pat::wire::codec::{Decode, Encode};
use pat::wire::extensions::{Extensions, ExtensionsWriter};
use pat::wire::token_type::{PublicMetadataRsa2048, TokenKind, TokenType};
use pat::{Error, Field, TokenChallenge};

mod common;
use common::{encode, field, load, rng};

/// The draft's key (safe primes), shared by all four of its vectors and by
/// privacypass-ts's type 0xDA7A vector.
fn draft_key() -> SecretKey {
    let v = &load("pbrsa/draft-irtf-cfrg-partially-blind-rsa-01.json")[0];
    let [n, e, d, p, q] = ["n", "e", "d", "p", "q"].map(|f| field(v, f));
    SecretKey::from_components(&n, &e, &d, &p, &q).unwrap()
}

fn issuer() -> &'static Issuer {
    static ISSUER: OnceLock<Issuer> = OnceLock::new();
    ISSUER.get_or_init(|| Issuer::new(draft_key()))
}

fn challenge() -> TokenChallenge<'static> {
    TokenChallenge::new(0xDA7A, b"issuer.example", &[7; 32], b"origin.example").unwrap()
}

/// Two extensions: type 1 and type 2 (the expiration and geolocation codes).
fn two_extensions(buf: &mut [u8]) -> Extensions<'_> {
    let mut w = ExtensionsWriter::new(buf);
    w.push(1, &[0, 0, 0, 0, 0, 0, 0, 60, 0, 0, 0, 0, 0x66, 0, 0, 0]).unwrap();
    w.push(2, b"\x02US").unwrap();
    w.finish().unwrap()
}

#[test]
fn draft_vectors_through_the_primitive() {
    let sk = draft_key();
    let file = load("pbrsa/draft-irtf-cfrg-partially-blind-rsa-01.json");
    let cases = file.as_array().unwrap();
    assert_eq!(cases.len(), 4);
    for v in cases {
        let info = field(v, "info");
        let msg = field(v, "msg");
        let input = PreparedMessage::identity(&msg);
        let pk: DerivedPublicKey<'_, '_> = DerivedPublicKey::new(sk.public_key(), &info).unwrap();
        let mut e = [0u8; 128];
        pk.exponent_to_be(&mut e).unwrap();
        assert_eq!(e.as_slice(), field(v, "eprime"));
        let mut r = [0u8; 256];
        let rv = field(v, "r");
        r[256 - rv.len()..].copy_from_slice(&rv);
        let (blinded, state) = pat::hazmat::crypto::blind_rsa::partial_blind_with(
            &pk,
            Variant::Sha384PssDeterministic,
            &input,
            &field(v, "salt"),
            &r,
        )
        .unwrap();
        assert_eq!(blinded.as_slice(), field(v, "blind_msg"));
        let blind_sig = sk.derive(&info).unwrap().blind_sign(&blinded).unwrap();
        assert_eq!(blind_sig.as_slice(), field(v, "blind_sig"));
        let sig = pk.finalize(Variant::Sha384PssDeterministic, &input, &state, &blind_sig).unwrap();
        assert_eq!(sig.as_slice(), field(v, "sig"));
        // Not under the plain key, not with other metadata, not for another message.
        assert!(pat::crypto::blind_rsa::verify(sk.public_key(), &msg, &sig).is_err());
        let other: DerivedPublicKey<'_, '_> = DerivedPublicKey::new(sk.public_key(), b"other").unwrap();
        assert_eq!(other.verify(Variant::Sha384PssDeterministic, &input, &sig), Err(Error::Verification));
        let other_msg = PreparedMessage::identity(b"other message");
        assert_eq!(pk.verify(Variant::Sha384PssDeterministic, &other_msg, &sig), Err(Error::Verification));
    }
}

#[test]
fn every_variant_round_trips_with_randomness() {
    let sk = draft_key();
    let mut rng = rng();
    for variant in [
        Variant::Sha384PssDeterministic,
        Variant::Sha384PssZeroDeterministic,
        Variant::Sha384PssRandomized,
        Variant::Sha384PssZeroRandomized,
    ] {
        let info = b"metadata";
        let input = variant.prepare(b"a message", &mut rng).unwrap();
        let pk: DerivedPublicKey<'_, '_> = DerivedPublicKey::new(sk.public_key(), info).unwrap();
        let (blinded, state) = pk.blind(variant, &input, &mut rng).unwrap();
        let derived = DerivedSecretKey::new(&sk, info).unwrap();
        let blind_sig = derived.blind_sign(&blinded).unwrap();
        let sig = pk.finalize(variant, &input, &state, &blind_sig).unwrap();
        pk.verify(variant, &input, &sig).unwrap();
        // The other salt length does not verify it.
        let other = match variant {
            Variant::Sha384PssDeterministic => Variant::Sha384PssZeroDeterministic,
            Variant::Sha384PssZeroDeterministic => Variant::Sha384PssDeterministic,
            Variant::Sha384PssRandomized => Variant::Sha384PssZeroRandomized,
            _ => Variant::Sha384PssRandomized,
        };
        assert_eq!(pk.verify(other, &input, &sig), Err(Error::Verification));
        // A prefix mismatch is a typed error, not a verification.
        let plain = PreparedMessage::identity(b"a message");
        if variant.is_randomized() {
            assert_eq!(pk.verify(variant, &plain, &sig), Err(Error::InvalidValue(Field::Message)));
        }
    }
}

#[test]
fn blind_sign_rejects_bad_input_and_another_keys_derivation() {
    let sk = draft_key();
    let derived = sk.derive(b"x").unwrap();
    assert_eq!(derived.blind_sign(&[1; 255]), Err(Error::InvalidLength(Field::Message)));
    assert_eq!(derived.blind_sign(&[0xff; 256]), Err(Error::InvalidValue(Field::Message)));
    assert_eq!(derived.blind_sign(&[1; 257]), Err(Error::InvalidLength(Field::Message)));
    // Finalize refuses a blind signature of the wrong length or ≥ n.
    let pk: DerivedPublicKey<'_, '_> = DerivedPublicKey::new(sk.public_key(), b"x").unwrap();
    let input = PreparedMessage::identity(b"m");
    let (blinded, state) = pk.blind(Variant::Sha384PssDeterministic, &input, &mut rng()).unwrap();
    let v = Variant::Sha384PssDeterministic;
    assert_eq!(pk.finalize(v, &input, &state, &[0; 255]), Err(Error::InvalidLength(Field::Message)));
    assert_eq!(pk.finalize(v, &input, &state, &[0xff; 256]), Err(Error::Verification));
    // Signed under metadata "y", it does not finalize for "x".
    let wrong = sk.derive(b"y").unwrap().blind_sign(&blinded).unwrap();
    assert_eq!(pk.finalize(v, &input, &state, &wrong), Err(Error::Verification));
    let right = derived.blind_sign(&blinded).unwrap();
    pk.finalize(v, &input, &state, &right).unwrap();
}

#[test]
fn a_key_without_safe_primes_fails_some_derivations_and_signs_the_others() {
    // RFC 9474's RSA-4096 key: ordinary primes (p − 1 is divisible by 3, 5
    // and 7), so some e′ share a factor with p − 1. RSA-4096 also takes the
    // other size of every generic path (e′ of 256 bytes).
    let v = &load("rfc/rfc9474-blind-rsa.json")["vectors"][0];
    let [n, e, d, p, q] = ["n", "e", "d", "p", "q"].map(|f| field(v, f));
    let sk = pat::crypto::blind_rsa::SecretKey4096::from_components(&n, &e, &d, &p, &q).unwrap();
    let (mut failed, mut signed) = (0, 0);
    for i in 0u8..24 {
        match sk.derive(&[i]) {
            Err(e) => {
                assert_eq!(e, Error::DeriveKeyPair);
                failed += 1;
            }
            Ok(derived) => {
                // blind_sign checks s^e′ = m before it returns.
                let mut m = [0u8; 512];
                m[1..9].copy_from_slice(&[i; 8]);
                derived.blind_sign(&m).unwrap();
                signed += 1;
            }
        }
    }
    assert!(failed > 0 && signed > 0, "failed {failed}, signed {signed}");
    // The safe-prime key derives for the same metadata every time.
    let safe = draft_key();
    for i in 0u8..24 {
        safe.derive(&[i]).unwrap();
    }
}

#[test]
fn privacypass_ts_vector_through_the_roles() {
    let v = &load("privacypass-ts/pub_verif_with_metadata_v3.json")[0];
    let challenge_bytes = field(v, "token_challenge");
    let challenge = TokenChallenge::decode(&challenge_bytes).unwrap();
    let ext_bytes = field(v, "extensions");
    let extensions = Extensions::decode(&ext_bytes).unwrap();
    assert_eq!(extensions.len(), 1);
    assert_eq!(extensions.get(1).unwrap().data, [1, 2, 3]);
    let client = Client::from_token_key(&field(v, "pkS")).unwrap();
    let mut blind = [0u8; 256];
    let b = field(v, "blind");
    blind[256 - b.len()..].copy_from_slice(&b);
    let (req, mut state) = pat::hazmat::tokens::metadata::request_with(
        &client,
        &challenge,
        extensions,
        &field(v, "nonce").try_into().unwrap(),
        &field(v, "salt").try_into().unwrap(),
        &blind,
    )
    .unwrap();
    assert_eq!(encode(&req), field(v, "token_request"));
    let issuer = Issuer::new(SecretKey::from_pkcs8_pem(&String::from_utf8(field(v, "skS")).unwrap()).unwrap());
    let resp = issuer.evaluate(&TokenRequest::decode(&field(v, "token_request")).unwrap()).unwrap();
    assert_eq!(encode(&resp), field(v, "token_response"));
    let token = client.finalize(&mut state, &extensions, &resp).unwrap();
    assert_eq!(encode(&token), field(v, "token"));
    Origin::new(issuer.public_key().clone()).verify(&token, &challenge, &extensions).unwrap();
}

#[test]
fn roles_with_real_randomness() {
    let issuer = issuer();
    let client = Client::from_token_key(&issuer.token_key()).unwrap();
    assert_eq!(client.key_id(), issuer.key_id());
    let challenge = challenge();
    let mut buf = [0u8; 64];
    let extensions = two_extensions(&mut buf);
    let (req, mut state) = client.request(&challenge, extensions, &mut rng()).unwrap();
    let req_bytes = encode(&req);
    assert_eq!(req_bytes.len(), 259 + extensions.as_bytes().len());
    assert!(PublicMetadataRsa2048::REQUEST_LEN.admits(req_bytes.len()));
    let parsed = TokenRequest::decode(&req_bytes).unwrap();
    assert_eq!(parsed.extensions, extensions);
    let resp = issuer.evaluate(&parsed).unwrap();
    let resp_bytes = encode(&resp);
    assert_eq!(resp_bytes.len(), 256);
    let token = client.finalize(&mut state, &extensions, &TokenResponse::decode(&resp_bytes).unwrap()).unwrap();
    let token_bytes = encode(&token);
    assert_eq!(token_bytes.len(), PublicMetadataRsa2048::TOKEN_LEN);
    assert_eq!(token.input().kind(), TokenKind::PublicMetadataRsa2048);
    let origin = Origin::new(issuer.public_key().clone());
    origin.verify(&token, &challenge, &extensions).unwrap();

    // Other extensions, another challenge, a flipped bit: refused.
    assert_eq!(origin.verify(&token, &challenge, &Extensions::EMPTY), Err(Error::Verification));
    let other = TokenChallenge::new(0xDA7A, b"issuer.example", &[], b"origin.example").unwrap();
    assert_eq!(origin.verify(&token, &other, &extensions), Err(Error::ChallengeMismatch));
    let mut forged = token_bytes.clone();
    forged[300] ^= 1;
    let forged = MetadataToken::decode(&forged).unwrap();
    assert_eq!(origin.verify(&forged, &challenge, &extensions), Err(Error::Verification));
    // A type 0x0002 token is not a type 0xDA7A one.
    let t2 = TokenChallenge::new(2, b"issuer.example", &[7; 32], b"origin.example").unwrap();
    assert_eq!(origin.verify(&token, &t2, &extensions), Err(Error::ChallengeMismatch));
    assert!(matches!(
        client.request(&t2, extensions, &mut rng()),
        Err(Error::WrongTokenType { expected: 0xDA7A, found: 2 })
    ));

    // The issuer's cached derivation gives the same signature path.
    let derived = issuer.derive(&extensions).unwrap();
    assert!(derived.is_for(extensions.as_bytes()) && !derived.is_for(&[0, 0]));
    let (req, mut state) = client.request(&challenge, extensions, &mut rng()).unwrap();
    let resp = issuer.evaluate_with(&derived, &req).unwrap();
    client.finalize(&mut state, &extensions, &resp).unwrap();
    // A key derived for other extensions, or from another issuer key, never signs.
    let for_empty = issuer.derive(&Extensions::EMPTY).unwrap();
    assert_eq!(issuer.evaluate_with(&for_empty, &req).err(), Some(Error::ExtensionsMismatch));
    let other_key = SecretKey::from_pkcs8_pem(
        &String::from_utf8(field(&load("pat-go/tokens/type2/type2-issuance-test-vectors.json")[0], "skS")).unwrap(),
    )
    .unwrap();
    // (pat-go's key has no safe primes, but this derivation succeeds.)
    let other = other_key.derive(extensions.as_bytes()).unwrap();
    assert_eq!(issuer.evaluate_with(&other, &req).err(), Some(Error::KeyIdMismatch));

    // A type 0x0002 token at the 0xDA7A origin: the wrong type.
    let t2_issuer = pat::tokens::public::Issuer::new(draft_key());
    let t2_client = pat::tokens::public::Client::new(t2_issuer.public_key().clone());
    let (t2_req, mut t2_state) = t2_client.request(&t2, &mut rng()).unwrap();
    let t2_token = t2_client.finalize(&mut t2_state, &t2_issuer.evaluate(&t2_req).unwrap()).unwrap();
    assert_eq!(
        origin.verify(&t2_token, &challenge, &extensions),
        Err(Error::WrongTokenType { expected: 0xDA7A, found: 2 })
    );
}

#[test]
fn finalize_checks_extensions_state_and_response() {
    let issuer = issuer();
    let client = Client::new(issuer.public_key().clone());
    let challenge = challenge();
    let mut buf = [0u8; 64];
    let extensions = two_extensions(&mut buf);
    let (req, mut state) = client.request(&challenge, extensions, &mut rng()).unwrap();
    let resp = issuer.evaluate(&req).unwrap();
    // Other extensions at finalize: refused before any arithmetic, state kept.
    assert_eq!(client.finalize(&mut state, &Extensions::EMPTY, &resp).err(), Some(Error::ExtensionsMismatch));
    // A response signed for other extensions fails verification, state kept.
    let (req_empty, _) = client.request(&challenge, Extensions::EMPTY, &mut rng()).unwrap();
    let mut wrong_req = req.clone();
    wrong_req.extensions = req_empty.extensions;
    let wrong = issuer.evaluate(&wrong_req).unwrap();
    assert_eq!(client.finalize(&mut state, &extensions, &wrong).err(), Some(Error::Verification));
    let mut tampered = resp.clone();
    tampered.blind_sig[9] ^= 4;
    assert_eq!(client.finalize(&mut state, &extensions, &tampered).err(), Some(Error::Verification));
    assert!(!state.is_spent());
    // The state survives export and import, then finalizes once.
    let exported = state.export().unwrap();
    assert_eq!(exported.as_bytes().len(), RequestState::STATE_LEN);
    assert_eq!(RequestState::STATE_LEN, 388);
    let mut imported = RequestState::import(&client, exported.as_bytes()).unwrap();
    client.finalize(&mut imported, &extensions, &resp).unwrap();
    assert!(imported.is_spent());
    assert_eq!(client.finalize(&mut imported, &extensions, &resp).err(), Some(Error::StateSpent));
    assert_eq!(imported.export().err(), Some(Error::StateSpent));
    // A state exported for another type or cut short is refused.
    let mut bad = exported.as_bytes().to_vec();
    bad[2] = 0x00;
    bad[3] = 0x02;
    assert!(matches!(RequestState::import(&client, &bad), Err(Error::WrongTokenType { .. })));
    assert_eq!(
        RequestState::import(&client, &exported.as_bytes()[..387]).err(),
        Some(Error::InvalidLength(Field::State))
    );
    // A state imported by a client of another key: the key id differs.
    let other_key = SecretKey::from_pkcs8_pem(
        &String::from_utf8(field(&load("pat-go/tokens/type2/type2-issuance-test-vectors.json")[0], "skS")).unwrap(),
    )
    .unwrap();
    let other_client = Client::new(other_key.public_key().clone());
    assert_eq!(RequestState::import(&other_client, exported.as_bytes()).err(), Some(Error::KeyIdMismatch));
    // The issuer checks the truncated key id.
    let mut bad = req;
    bad.truncated_token_key_id ^= 1;
    assert_eq!(issuer.evaluate(&bad).err(), Some(Error::KeyIdMismatch));
}

#[test]
fn request_and_response_parsing() {
    let issuer = issuer();
    let client = Client::new(issuer.public_key().clone());
    let mut buf = [0u8; 64];
    let extensions = two_extensions(&mut buf);
    let (req, _) = client.request(&challenge(), extensions, &mut rng()).unwrap();
    let bytes = encode(&req);
    // Every truncation fails: inside the fixed part or the extensions.
    for cut in 0..bytes.len() {
        assert!(TokenRequest::decode(&bytes[..cut]).is_err(), "cut at {cut}");
    }
    let mut trailing = bytes.clone();
    trailing.push(0);
    assert_eq!(TokenRequest::decode(&trailing).err(), Some(Error::TrailingBytes));
    let mut wrong_type = bytes.clone();
    wrong_type[1] = 0x02;
    wrong_type[0] = 0x00;
    assert_eq!(TokenRequest::decode(&wrong_type).err(), Some(Error::WrongTokenType { expected: 0xDA7A, found: 2 }));
    // Extensions out of order inside a request.
    let mut unsorted = bytes[..259].to_vec();
    unsorted.extend_from_slice(&[0, 8, 0, 2, 0, 0, 0, 1, 0, 0]);
    assert_eq!(TokenRequest::decode(&unsorted).err(), Some(Error::UnsortedExtensions));
    // The smallest request: no extensions.
    let (req, _) = client.request(&challenge(), Extensions::EMPTY, &mut rng()).unwrap();
    let small = encode(&req);
    assert_eq!(small.len(), PublicMetadataRsa2048::REQUEST_LEN.min());
    assert_eq!(TokenRequest::decode(&small).unwrap(), req);
    // Responses are exactly 256 bytes.
    assert_eq!(TokenResponse::decode(&[0; 255]).err(), Some(Error::Truncated));
    assert_eq!(TokenResponse::decode(&[0; 257]).err(), Some(Error::TrailingBytes));
}

#[test]
fn authorization_with_extensions() {
    let issuer = issuer();
    let client = Client::new(issuer.public_key().clone());
    let mut buf = [0u8; 64];
    let extensions = two_extensions(&mut buf);
    let (req, mut state) = client.request(&challenge(), extensions, &mut rng()).unwrap();
    let token = client.finalize(&mut state, &extensions, &issuer.evaluate(&req).unwrap()).unwrap();
    let token_bytes = encode(&token);
    let len = auth::authorization_with_extensions_len(token_bytes.len(), extensions.as_bytes().len());
    let mut out = vec![0u8; len];
    let header = auth::write_authorization_with_extensions(&token_bytes, &extensions, &mut out).unwrap();
    assert_eq!(header.len(), len);
    assert!(header.starts_with("PrivateToken token=\"") && header.contains("\", extensions=\""));
    let mut small = vec![0u8; len - 1];
    assert_eq!(
        auth::write_authorization_with_extensions(&token_bytes, &extensions, &mut small).err(),
        Some(Error::BufferTooSmall)
    );

    // The origin's side: parse, decode both values, verify.
    let params = auth::parse_authorization_with_extensions(header).unwrap();
    let mut tbuf = [0u8; 512];
    let mut ebuf = [0u8; 64];
    let parsed_token = MetadataToken::decode(params.token.decode_base64url(&mut tbuf).unwrap()).unwrap();
    let parsed_ext = params.decode_extensions(&mut ebuf).unwrap();
    let mut tiny = [0u8; 8];
    assert_eq!(params.decode_extensions(&mut tiny).err(), Some(Error::BufferTooSmall));
    assert_eq!(parsed_ext, extensions);
    Origin::new(issuer.public_key().clone()).verify(&parsed_token, &challenge(), &parsed_ext).unwrap();
    // The plain parser still reads the token and ignores the extensions.
    assert_eq!(auth::parse_authorization(header).unwrap(), params.token);

    // Unquoted, unpadded, other letter case and order: accepted.
    let ext_b64 = header.split("extensions=\"").nth(1).unwrap().trim_end_matches('"').trim_end_matches('=');
    let tok_b64 = header.split("token=\"").nth(1).unwrap().split('"').next().unwrap();
    let loose = format!("privatetoken Extensions={ext_b64}, TOKEN=\"{tok_b64}\"");
    let loose = auth::parse_authorization_with_extensions(&loose).unwrap();
    assert_eq!(loose.decode_extensions(&mut ebuf).unwrap(), extensions);

    // Absent extensions are the empty list; duplicates and a missing token are errors.
    let no_ext = format!("PrivateToken token=\"{tok_b64}\"");
    let p = auth::parse_authorization_with_extensions(&no_ext).unwrap();
    assert_eq!(p.extensions, None);
    assert_eq!(p.decode_extensions(&mut ebuf).unwrap(), Extensions::EMPTY);
    let dup = format!("PrivateToken token=\"{tok_b64}\", extensions=\"AAA=\", extensions=\"AAA=\"");
    assert_eq!(
        auth::parse_authorization_with_extensions(&dup).err(),
        Some(Error::DuplicateParameter(Field::Extensions))
    );
    assert_eq!(
        auth::parse_authorization_with_extensions("PrivateToken extensions=\"AAA=\"").err(),
        Some(Error::MissingParameter(Field::Token))
    );
    assert_eq!(auth::parse_authorization_with_extensions("Basic abc").err(), Some(Error::MalformedHeader));
    // Extensions that do not parse: unsorted, trailing bytes, bad base64.
    let unsorted = format!("PrivateToken token=\"{tok_b64}\", extensions=\"AAgAAgAAAAEAAA==\"");
    let p = auth::parse_authorization_with_extensions(&unsorted).unwrap();
    assert_eq!(p.decode_extensions(&mut ebuf).err(), Some(Error::UnsortedExtensions));
    let trailing = format!("PrivateToken token=\"{tok_b64}\", extensions=\"AAAA\"");
    let p = auth::parse_authorization_with_extensions(&trailing).unwrap();
    assert_eq!(p.decode_extensions(&mut ebuf).err(), Some(Error::TrailingBytes));
    let bad = format!("PrivateToken token=\"{tok_b64}\", extensions=\"A*A=\"");
    let p = auth::parse_authorization_with_extensions(&bad).unwrap();
    assert!(p.decode_extensions(&mut ebuf).is_err());
}

#[test]
fn registry_entry() {
    let kind = TokenKind::from_code(0xDA7A).unwrap();
    assert_eq!(kind, TokenKind::PublicMetadataRsa2048);
    assert_eq!(kind.nk(), 256);
    assert_eq!(kind.nid(), 32);
    assert_eq!(kind.token_len(), 354);
    assert_eq!(kind.response_len().max(), 256);
    assert_eq!(kind.request_len().min(), 261);
    assert_eq!(kind.request_len().max(), 259 + 2 + 65535);
    let mut out = [0u8; 512];
    assert_eq!(
        auth::write_authorization(&[0u8; 354], &mut out).unwrap().len(),
        PublicMetadataRsa2048::AUTHORIZATION_LEN
    );
    let e = Extensions::EMPTY;
    assert_eq!(e.encoded_len(), 2);
}
