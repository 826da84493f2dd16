//! Generic batches (draft-ietf-privacypass-batched-tokens §6): a mixed batch of
//! types 0x0001, 0x0002 and 0x0005 through every role, absent entries, and
//! every way a batch message can be wrong.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core
)]

use std::sync::OnceLock;

use pat::crypto::blind_rsa::SecretKey;
use pat::tokens::batched::{
    BatchState, GenericBatchTokenRequest, GenericBatchTokenResponse, GenericToken, GenericTokenRequest,
    GenericTokenRequests, Issuer,
};
use pat::tokens::{private, public};
use pat::wire::codec::Decode;
use pat::wire::token_type::{PrivateP384, PrivateRistretto255};
use pat::{Error, Field, TokenChallenge, TokenKind};

mod common;
use common::{encode, field, load, rng};

/// The minimal QUIC varint encoding of `v`.
fn varint(v: usize) -> Vec<u8> {
    let mut buf = [0u8; 8];
    let mut w = pat::wire::codec::Writer::new(&mut buf);
    w.varint(v as u64).unwrap();
    let n = w.finish();
    buf[..n].to_vec()
}

/// `varint(body.len()) ‖ body`.
fn framed(body: &[u8]) -> Vec<u8> {
    let mut out = varint(body.len());
    out.extend_from_slice(body);
    out
}

/// Splits a framed message into its varint length and its body.
fn unframe(msg: &[u8]) -> (usize, &[u8]) {
    let n = 1 << (msg[0] >> 6);
    (n, &msg[n..])
}

/// RSA keys from pat-go's type-2 vector files (key generation is slow in debug builds).
fn rsa_key(file: &str) -> SecretKey {
    let cases = load(&format!("pat-go/tokens/type2/{file}"));
    let pem = field(&cases[0], "skS");
    SecretKey::from_pkcs8_pem(std::str::from_utf8(&pem).unwrap()).unwrap()
}

struct Keys {
    p384: [private::Issuer<PrivateP384>; 2],
    rsa: [public::Issuer; 1],
    r255: [private::Issuer<PrivateRistretto255>; 1],
    /// An RSA key the issuer does not hold.
    stranger: public::Issuer,
}

fn last(id: &[u8; 32]) -> u8 {
    id[31]
}

/// Fixed keys, so that the truncated key ids are known to differ.
fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| {
        let keys = Keys {
            p384: [
                private::Issuer::derive(b"batched test key a", b"").unwrap(),
                private::Issuer::derive(b"batched test key b", b"").unwrap(),
            ],
            rsa: [public::Issuer::new(rsa_key("type2-issuance-test-vectors.json"))],
            r255: [private::Issuer::derive(b"batched test key c", b"").unwrap()],
            stranger: public::Issuer::new(rsa_key("type2-issuance-test-vectors.rust.json")),
        };
        assert_ne!(last(keys.p384[0].key_id()), last(keys.p384[1].key_id()));
        assert_ne!(last(keys.rsa[0].key_id()), last(keys.stranger.key_id()));
        keys
    })
}

fn issuer() -> Issuer<'static> {
    let k = keys();
    Issuer::new(&k.p384, &k.rsa, &k.r255).expect("distinct truncated key ids")
}

fn challenge(code: u16) -> TokenChallenge<'static> {
    TokenChallenge::new(code, b"issuer.example", &[7; 32], b"origin.example").unwrap()
}

struct Clients {
    p384: private::Client<PrivateP384>,
    p384b: private::Client<PrivateP384>,
    rsa: public::Client,
    r255: private::Client<PrivateRistretto255>,
}

fn clients() -> Clients {
    let k = keys();
    Clients {
        p384: k.p384[0].client(),
        p384b: k.p384[1].client(),
        rsa: public::Client::from_token_key(&k.rsa[0].token_key()).unwrap(),
        r255: k.r255[0].client(),
    }
}

/// A batch of types 1, 2, 5, 1 (second P-384 key), encoded.
fn mixed<'c>(c: &'c Clients) -> (BatchState<'c, 8>, Vec<u8>) {
    let (c1, c2, c5) = (challenge(1), challenge(2), challenge(5));
    let mut batch = BatchState::<8>::new();
    batch.push(&c.p384, c.p384.request(&c1, &mut rng()).unwrap()).unwrap();
    batch.push(&c.rsa, c.rsa.request(&c2, &mut rng()).unwrap()).unwrap();
    batch.push(&c.r255, c.r255.request(&c5, &mut rng()).unwrap()).unwrap();
    batch.push(&c.p384b, c.p384b.request(&c1, &mut rng()).unwrap()).unwrap();
    let bytes = encode(&batch.request());
    (batch, bytes)
}

fn evaluate(issuer: &Issuer<'_>, request: &[u8]) -> (Vec<u8>, pat::tokens::batched::BatchEvaluation) {
    let parsed = GenericBatchTokenRequest::decode(request).unwrap();
    let mut out = vec![0u8; parsed.max_response_len()];
    let outcome = issuer.evaluate::<8, _>(&parsed, &mut out, &mut rng()).unwrap();
    out.truncate(outcome.len);
    (out, outcome)
}

#[test]
fn mixed_batch_round_trip() {
    let c = clients();
    let (mut batch, request) = mixed(&c);
    // varint(52 + 259 + 35 + 52 = 398) is two bytes.
    assert_eq!(request.len(), 2 + 398);
    assert_eq!(&request[..2], &[0x41, 0x8e]);
    let parsed = GenericBatchTokenRequest::decode(&request).unwrap();
    assert_eq!(parsed.len(), 4);
    assert_eq!(encode(&parsed), request);
    let kinds: Vec<_> = parsed.iter().map(|e| e.unwrap().kind()).collect();
    assert_eq!(
        kinds,
        [TokenKind::PrivateP384, TokenKind::PublicRsa2048, TokenKind::PrivateRistretto255, TokenKind::PrivateP384]
    );
    // Every entry re-encodes to its own slice of the body.
    let mut rebuilt = Vec::new();
    for e in parsed.iter() {
        rebuilt.extend(encode(&e.unwrap()));
    }
    assert_eq!(rebuilt, &request[2..]);

    let (response, outcome) = evaluate(&issuer(), &request);
    assert_eq!((outcome.issued, outcome.absent), (4, 0));
    // 3 + 145, 3 + 256, 3 + 96, 3 + 145 = 654: a two-byte varint.
    assert_eq!(response.len(), 2 + 654);
    assert_eq!(parsed.max_response_len(), response.len());
    let parsed_resp = GenericBatchTokenResponse::decode(&response).unwrap();
    assert_eq!(encode(&parsed_resp), response);
    let tokens = batch.finalize(&parsed_resp).unwrap();
    assert_eq!(tokens.len(), 4);

    let k = keys();
    match &tokens[..] {
        [
            Some(GenericToken::PrivateP384(t1)),
            Some(GenericToken::PublicRsa2048(t2)),
            Some(GenericToken::PrivateRistretto255(t5)),
            Some(GenericToken::PrivateP384(t1b)),
        ] => {
            k.p384[0].verify(t1, &challenge(1)).unwrap();
            public::Origin::new(k.rsa[0].public_key().clone()).verify(t2, &challenge(2)).unwrap();
            k.r255[0].verify(t5, &challenge(5)).unwrap();
            k.p384[1].verify(t1b, &challenge(1)).unwrap();
            assert_eq!(k.p384[0].verify(t1b, &challenge(1)), Err(Error::KeyIdMismatch));
        }
        other => panic!("{other:?}"),
    }
    for t in tokens.iter().flatten() {
        assert_eq!(encode(t).len(), t.kind().token_len());
    }
}

#[test]
fn absent_entries_are_one_zero_byte() {
    let c = clients();
    let k = keys();
    let stranger = public::Client::from_token_key(&k.stranger.token_key()).unwrap();
    let mut batch = BatchState::<8>::new();
    batch.push(&c.r255, c.r255.request(&challenge(5), &mut rng()).unwrap()).unwrap();
    // Unknown key: the issuer holds no key with this id.
    batch.push(&stranger, stranger.request(&challenge(2), &mut rng()).unwrap()).unwrap();
    // Wrong key id: the truncated id is altered on the wire below.
    batch.push(&c.p384, c.p384.request(&challenge(1), &mut rng()).unwrap()).unwrap();
    batch.push(&c.rsa, c.rsa.request(&challenge(2), &mut rng()).unwrap()).unwrap();
    let mut request = encode(&batch.request());
    let wrong_id = 2 + 35 + 259 + 2;
    assert_eq!(request[wrong_id], last(k.p384[0].key_id()));
    let taken = [last(k.p384[0].key_id()), last(k.p384[1].key_id())];
    request[wrong_id] = (0..=255).find(|b| !taken.contains(b)).unwrap();

    let (response, outcome) = evaluate(&issuer(), &request);
    assert_eq!((outcome.issued, outcome.absent), (2, 2));
    // varint(99 + 1 + 1 + 259 = 360) ‖ 0x01 0005 … ‖ 0x00 ‖ 0x00 ‖ 0x01 0002 …
    let (n, body) = unframe(&response);
    assert_eq!(body.len(), 360);
    assert_eq!(&body[..3], &[1, 0, 5]);
    assert_eq!(body[99..101], [0, 0]);
    assert_eq!(&body[101..104], &[1, 0, 2]);
    assert_eq!(n + 360, response.len());

    let parsed = GenericBatchTokenResponse::decode(&response).unwrap();
    let tokens = batch.finalize(&parsed).unwrap();
    assert!(matches!(tokens[..], [Some(GenericToken::PrivateRistretto255(_)), None, None, Some(_)]));
}

#[test]
fn entries_no_key_can_answer_are_absent() {
    let c = clients();
    let (_, request) = mixed(&c);
    // No keys at all: every entry absent, nothing issued.
    let (response, outcome) = evaluate(&Issuer::default(), &request);
    assert_eq!((outcome.issued, outcome.absent), (0, 4));
    assert_eq!(response, [4, 0, 0, 0, 0]);

    // An invalid P-384 element and an RSA blinded message not below the modulus.
    let mut bad = request.clone();
    bad[2 + 3..2 + 52].fill(0xff);
    bad[2 + 52 + 3..2 + 52 + 259].fill(0xff);
    let (response, outcome) = evaluate(&issuer(), &bad);
    assert_eq!((outcome.issued, outcome.absent), (2, 2));
    let parsed = GenericBatchTokenResponse::decode(&response).unwrap();
    let present: Vec<_> = parsed.iter().map(|e| e.unwrap().map(|r| r.kind())).collect();
    assert_eq!(present, [None, None, Some(TokenKind::PrivateRistretto255), Some(TokenKind::PrivateP384)]);
}

/// A generator that fails is the issuer's fault: the whole batch is
/// `Error::Rng`, not an absent entry that a refusal could not be told from.
/// A batch whose only entries need no randomness (type 2) is still issued.
#[test]
fn a_failing_generator_fails_the_batch() {
    use pat::RngCode;
    use pat_testkit::FailingRng;
    let c = clients();
    let (_, request) = mixed(&c);
    let parsed = GenericBatchTokenRequest::decode(&request).unwrap();
    let mut out = vec![0u8; parsed.max_response_len()];
    assert_eq!(issuer().evaluate::<8, _>(&parsed, &mut out, &mut FailingRng).err(), Some(Error::Rng(RngCode::UNKNOWN)));
    let entries: Vec<_> = parsed.iter().map(Result::unwrap).collect();
    assert_eq!(issuer().evaluate_entry(&entries[0], &mut FailingRng).err(), Some(Error::Rng(RngCode::UNKNOWN)));
    assert!(matches!(issuer().evaluate_entry(&entries[1], &mut FailingRng), Ok(Some(_))));
    // No key for the entry: absent, the generator never asked.
    assert_eq!(Issuer::default().evaluate_entry(&entries[0], &mut FailingRng).ok(), Some(None));

    let mut rsa_only = BatchState::<8>::new();
    rsa_only.push(&c.rsa, c.rsa.request(&challenge(2), &mut rng()).unwrap()).unwrap();
    let bytes = encode(&rsa_only.request());
    let parsed = GenericBatchTokenRequest::decode(&bytes).unwrap();
    let mut out = vec![0u8; parsed.max_response_len()];
    let done = issuer().evaluate::<8, _>(&parsed, &mut out, &mut FailingRng).unwrap();
    assert_eq!((done.issued, done.absent), (1, 0));
}

#[test]
fn unknown_token_types_are_rejected() {
    let c = clients();
    let (_, request) = mixed(&c);
    let (_, body) = unframe(&request);
    for code in [0x0000u16, 0x0003, 0x0004, 0xf91a] {
        let mut entry = body[..52].to_vec();
        entry[..2].copy_from_slice(&code.to_be_bytes());
        let mut with = body.to_vec();
        with.extend(&entry);
        assert_eq!(GenericBatchTokenRequest::decode(&framed(&with)).err(), Some(Error::UnknownTokenType(code)));
        let mut it = GenericTokenRequests::new(&with);
        assert_eq!(it.by_ref().filter(Result::is_ok).count(), 4);
        assert_eq!(GenericTokenRequests::new(&entry).next(), Some(Err(Error::UnknownTokenType(code))));
    }
    // A response entry of an unknown type.
    assert_eq!(GenericBatchTokenResponse::decode(&[3, 1, 0, 3]).err(), Some(Error::UnknownTokenType(3)));
}

#[test]
fn lengths_that_do_not_add_up() {
    let c = clients();
    let (_, request) = mixed(&c);
    let (_, body) = unframe(&request);
    // A truncated last entry, with a varint that matches what is there.
    for cut in [1, 2, 51, 52 - 2] {
        let short = &body[..body.len() - cut];
        assert_eq!(
            GenericBatchTokenRequest::decode(&framed(short)).err(),
            Some(Error::InvalidLength(Field::Batch)),
            "cut {cut}"
        );
    }
    // A lone byte where an entry should start.
    assert_eq!(GenericBatchTokenRequest::decode(&[1, 0]).err(), Some(Error::InvalidLength(Field::Batch)));
    // A varint claiming more bytes than remain.
    let mut long = varint(body.len() + 1);
    long.extend_from_slice(body);
    assert_eq!(GenericBatchTokenRequest::decode(&long).err(), Some(Error::Truncated));
    assert_eq!(GenericBatchTokenRequest::decode(&[]).err(), Some(Error::Truncated));
    assert_eq!(GenericBatchTokenRequest::decode(&[0x40]).err(), Some(Error::Truncated));
    // Every proper prefix of a valid request fails.
    for n in 0..request.len() {
        assert!(GenericBatchTokenRequest::decode(&request[..n]).is_err(), "prefix {n}");
    }
    // A varint one short: the last entry spills out of the batch.
    let mut spill = varint(body.len() - 1);
    spill.extend_from_slice(body);
    assert_eq!(GenericBatchTokenRequest::decode(&spill).err(), Some(Error::InvalidLength(Field::Batch)));

    // The same for responses.
    let (response, _) = evaluate(&issuer(), &request);
    let (_, rbody) = unframe(&response);
    assert_eq!(
        GenericBatchTokenResponse::decode(&framed(&rbody[..rbody.len() - 1])).err(),
        Some(Error::InvalidLength(Field::Batch))
    );
    let mut long = varint(rbody.len() + 1);
    long.extend_from_slice(rbody);
    assert_eq!(GenericBatchTokenResponse::decode(&long).err(), Some(Error::Truncated));
    // pat-go's failure encoding `0x01 ‖ type ‖ 0x00` is a truncated present entry.
    assert_eq!(GenericBatchTokenResponse::decode(&[4, 1, 0, 1, 0]).err(), Some(Error::InvalidLength(Field::Batch)));
}

#[test]
fn non_minimal_varints_are_rejected() {
    let c = clients();
    let mut batch = BatchState::<1>::new();
    batch.push(&c.r255, c.r255.request(&challenge(5), &mut rng()).unwrap()).unwrap();
    let request = encode(&batch.request());
    assert_eq!(request[0], 35);
    let mut padded = vec![0x40, 35];
    padded.extend_from_slice(&request[1..]);
    assert_eq!(GenericBatchTokenRequest::decode(&padded).err(), Some(Error::NonMinimalVarint));
    let mut padded = vec![0x80, 0, 0, 35];
    padded.extend_from_slice(&request[1..]);
    assert_eq!(GenericBatchTokenRequest::decode(&padded).err(), Some(Error::NonMinimalVarint));
    assert_eq!(GenericBatchTokenResponse::decode(&[0x40, 0x01, 0x00]).err(), Some(Error::NonMinimalVarint));
    assert_eq!(GenericBatchTokenResponse::decode(&[0x40, 0x00]).err(), Some(Error::NonMinimalVarint));
}

#[test]
fn capacity_is_the_callers() {
    let c = clients();
    let mut batch = BatchState::<2>::new();
    batch.push(&c.r255, c.r255.request(&challenge(5), &mut rng()).unwrap()).unwrap();
    batch.push(&c.r255, c.r255.request(&challenge(5), &mut rng()).unwrap()).unwrap();
    let third = c.r255.request(&challenge(5), &mut rng()).unwrap();
    assert_eq!(batch.push(&c.r255, third), Err(Error::CapacityExceeded));
    assert_eq!(batch.len(), 2);

    // The issuer's limit: four entries against a capacity of three.
    let (_, request) = mixed(&c);
    let parsed = GenericBatchTokenRequest::decode(&request).unwrap();
    let mut out = vec![0u8; parsed.max_response_len()];
    assert_eq!(issuer().evaluate::<3, _>(&parsed, &mut out, &mut rng()), Err(Error::CapacityExceeded));
    // And the buffer: checked before any evaluation.
    let short = parsed.max_response_len() - 1;
    assert_eq!(issuer().evaluate::<4, _>(&parsed, &mut out[..short], &mut rng()), Err(Error::BufferTooSmall));
}

#[test]
fn responses_must_match_the_request() {
    let c = clients();
    let (mut batch, request) = mixed(&c);
    let (response, _) = evaluate(&issuer(), &request);
    let (_, body) = unframe(&response);

    // One entry fewer, one more.
    let fewer = framed(&body[..body.len() - 148]);
    let parsed = GenericBatchTokenResponse::decode(&fewer).unwrap();
    assert_eq!(parsed.len(), 3);
    assert_eq!(batch.finalize(&parsed).err(), Some(Error::InvalidLength(Field::Batch)));
    let (mut batch, request) = mixed(&c);
    let (response, _) = evaluate(&issuer(), &request);
    let (_, body) = unframe(&response);
    let mut more = body.to_vec();
    more.push(0);
    let more = framed(&more);
    let parsed = GenericBatchTokenResponse::decode(&more).unwrap();
    assert_eq!(batch.finalize(&parsed).err(), Some(Error::InvalidLength(Field::Batch)));

    // Entries swapped: a type-2 response where a type-1 one was requested.
    let (mut batch, request) = mixed(&c);
    let (response, _) = evaluate(&issuer(), &request);
    let (_, body) = unframe(&response);
    let (first, rest) = body.split_at(148);
    let (second, rest) = rest.split_at(259);
    let swapped = framed(&[second, first, rest].concat());
    let parsed = GenericBatchTokenResponse::decode(&swapped).unwrap();
    assert_eq!(batch.finalize(&parsed).err(), Some(Error::WrongTokenType { expected: 1, found: 2 }));

    // A tampered evaluation fails verification.
    let (mut batch, request) = mixed(&c);
    let (response, _) = evaluate(&issuer(), &request);
    let mut tampered = response.clone();
    let last = tampered.len() - 1;
    tampered[last] ^= 1;
    let parsed = GenericBatchTokenResponse::decode(&tampered).unwrap();
    assert_eq!(batch.finalize(&parsed).err(), Some(Error::Verification));
}

#[test]
fn presence_byte_must_be_zero_or_one() {
    for p in [2u8, 0x80, 0xff] {
        assert_eq!(GenericBatchTokenResponse::decode(&[1, p]).err(), Some(Error::InvalidValue(Field::Batch)));
        assert_eq!(GenericBatchTokenResponse::decode(&[2, 0, p]).err(), Some(Error::InvalidValue(Field::Batch)));
    }
    let c = clients();
    let (_, request) = mixed(&c);
    let (response, _) = evaluate(&issuer(), &request);
    let mut two = response.clone();
    two[2] = 2;
    assert_eq!(GenericBatchTokenResponse::decode(&two).err(), Some(Error::InvalidValue(Field::Batch)));
}

#[test]
fn trailing_bytes_are_rejected() {
    let c = clients();
    let (_, request) = mixed(&c);
    let mut long = request.clone();
    long.push(0);
    assert_eq!(GenericBatchTokenRequest::decode(&long).err(), Some(Error::TrailingBytes));
    let (response, _) = evaluate(&issuer(), &request);
    let mut long = response.clone();
    long.push(0);
    assert_eq!(GenericBatchTokenResponse::decode(&long).err(), Some(Error::TrailingBytes));
    assert_eq!(GenericBatchTokenResponse::decode(&[0, 0]).err(), Some(Error::TrailingBytes));
}

#[test]
fn entries_must_belong_to_their_client() {
    let c = clients();
    let mut batch = BatchState::<4>::new();
    let entry = c.p384.request(&challenge(1), &mut rng()).unwrap();
    assert_eq!(batch.push(&c.p384b, entry), Err(Error::KeyIdMismatch));
    assert!(batch.is_empty());
    // A type-1 entry decodes to the same request it was built from.
    let (req, state) = c.p384.request(&challenge(1), &mut rng()).unwrap();
    let bytes = framed(&encode(&req));
    let parsed = GenericBatchTokenRequest::decode(&bytes).unwrap();
    assert_eq!(parsed.iter().next(), Some(Ok(GenericTokenRequest::from(req))));
    batch.push(&c.p384, (req, state)).unwrap();
    assert_eq!(encode(&batch.request()), bytes);
}

/// Two keys of one type whose truncated key ids are equal cannot both be
/// served: the first would answer requests made for the second, whose client
/// then loses the whole batch to a failed proof. The key set is refused when
/// it is built (before `Issuer::new` existed, the set was a struct literal and
/// the second client's batch failed with `Verification`).
#[test]
fn colliding_truncated_key_ids_are_refused() {
    let first = private::Issuer::<PrivateRistretto255>::derive(b"collision 0", b"").unwrap();
    let second = (1u32..)
        .map(|i| private::Issuer::<PrivateRistretto255>::derive(format!("collision {i}").as_bytes(), b"").unwrap())
        .find(|k| last(k.key_id()) == last(first.key_id()))
        .unwrap();
    let r255 = [first, second];
    assert_eq!(Issuer::new(&[], &[], &r255).err(), Some(Error::KeyIdCollision));
    // Keys of different types never collide: a P-384 key with the same last
    // key-id byte as a ristretto255 key is fine.
    let [first, _] = &r255;
    let p384 = (0u32..)
        .map(|i| private::Issuer::<PrivateP384>::derive(format!("other type {i}").as_bytes(), b"").unwrap())
        .find(|k| last(k.key_id()) == last(first.key_id()))
        .unwrap();
    assert!(Issuer::new(core::slice::from_ref(&p384), &[], core::slice::from_ref(first)).is_ok());
    // The same key twice is one key.
    let k = keys();
    let same = || private::Issuer::<PrivateRistretto255>::derive(b"batched test key c", b"").unwrap();
    let twice = [same(), same()];
    assert!(Issuer::new(&k.p384, &k.rsa, &twice).is_ok());
    // Each key alone serves its own clients.
    let [first, second] = &r255;
    for key in [first, second] {
        let client = key.client();
        let mut batch = BatchState::<'_, 1>::new();
        batch.push(&client, client.request(&challenge(5), &mut rng()).unwrap()).unwrap();
        let issuer = Issuer::new(&[], &[], core::slice::from_ref(key)).unwrap();
        let bytes = encode(&batch.request());
        let request = GenericBatchTokenRequest::decode(&bytes).unwrap();
        let mut out = vec![0u8; request.max_response_len()];
        let outcome = issuer.evaluate::<1, _>(&request, &mut out, &mut rng()).unwrap();
        let response = GenericBatchTokenResponse::decode(&out[..outcome.len]).unwrap();
        assert!(batch.finalize(&response).unwrap()[0].is_some());
    }
}
