//! After drop, no secret is left in the memory of any of
//! pat's secret types (the list of `tests/secrets.rs`), and the check catches a
//! type that does not wipe itself (the control).
//!
//! The rule ([`pat_secret_checks::check`]): each type is built from known
//! secrets, moved into a heap slot and dropped in place; every needle (a secret
//! in its in-memory form) must be in the slot before the drop and none of its
//! non-zero 8-byte windows after it. In-memory forms: raw bytes for byte-array
//! secrets (seeds, blind keys, authenticators, the HPKE secret), little-endian
//! limbs for RSA integers (p, q, dP, dQ, qInv, r⁻¹), and for Montgomery-form
//! scalars (P-384) the bytes of a freshly built pure secret newtype holding the
//! same value (`snapshot`). Public parts (public keys, token inputs, key ids)
//! stay and are not needles.
//!
//! A client state that finalized a token is spent: its secrets are wiped at
//! once, and `a_spent_state_holds_no_secret` reads a spent state's bytes
//! before its drop to check it.
//!
//! Not covered, with the reason: `SecretKey4096` and `RsaBlindingState` for
//! RSA-4096 (the same generic code as RSA-2048, checked here); copies that moves
//! leave behind on the stack or in registers before the value reaches its
//! final place (no destructor can reach them). A move also carries stale stack
//! bytes along in a value's unused bytes (spare `heapless::Vec` capacity, the
//! tail of a smaller enum variant): this test found a P-384 blind surviving
//! that way in a generic `BatchState`, which now zeroes all of its storage on
//! drop, as do the amortized `BatchState` and the `Attester`. A lone
//! `PendingEntry` overwrites its whole slot with an all-zero variant on drop:
//! with the library at opt-level 0 this test found a stale P-384 blind in the
//! tail of its P-384 variant.
#![cfg(target_endian = "little")]
#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
// Uniform `&[needle.clone(), …]` lists read better than `slice::from_ref` for one needle.
#![allow(clippy::cloned_ref_to_slice_refs)]

use std::sync::OnceLock;

use pat::crypto::blind_rsa::{self, SecretKey};
use pat::crypto::key_blinding::{ecdsa_p384 as ecdsa, ed25519};
use pat::crypto::rate_limited::{EncapSecret, EncapSecretKey};
use pat::crypto::voprf::{self, P384Sha384, Ristretto255Sha512};
use pat::hazmat::tokens::rate_limited::RequestRandomness;
use pat::rand_core::UnwrapErr;
use pat::tokens::rate_limited::{self as t3, OriginKey};
use pat::tokens::{amortized, batched, private, public};
use pat::wire::token_type::{PrivateP384, PrivateRistretto255};
use pat::{OsRng, Token, TokenChallenge, TokenInput, TokenKind};
use pat_secret_checks::{check, limbs_le, snapshot};

fn rng() -> UnwrapErr<OsRng> {
    UnwrapErr(OsRng)
}

/// `N` distinctive bytes for secret number `tag` (splitmix64).
fn arr<const N: usize>(tag: u64) -> [u8; N] {
    let mut x = tag.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    core::array::from_fn(|_| {
        x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) as u8
    })
}

fn p384_scalar(tag: u64) -> [u8; 48] {
    let mut s = arr::<48>(tag);
    s[0] &= 0x7f;
    s
}

fn r255_scalar(tag: u64) -> [u8; 32] {
    let mut s = arr::<32>(tag);
    s[31] &= 0x0f;
    s
}

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

fn rsa_key() -> SecretKey {
    SecretKey::from_pkcs8_der(rsa_der()).unwrap()
}

fn der_ints(mut der: &[u8], out: &mut Vec<Vec<u8>>) {
    while !der.is_empty() {
        let (len, header) = match der[1] {
            l if l < 0x80 => (usize::from(l), 2),
            0x81 => (usize::from(der[2]), 3),
            0x82 => (usize::from(u16::from_be_bytes([der[2], der[3]])), 4),
            _ => panic!("DER length"),
        };
        let body = &der[header..header + len];
        match der[0] {
            0x30 | 0x04 => der_ints(body, out),
            0x02 => out.push(body.iter().copied().skip_while(|&b| b == 0).collect()),
            _ => {}
        }
        der = &der[header + len..];
    }
}

/// p, q, dP, dQ, qInv as stored (little-endian 1024-bit integers). d is not stored.
fn rsa_needles() -> Vec<Vec<u8>> {
    let mut ints = Vec::new();
    der_ints(rsa_der(), &mut ints);
    assert_eq!(ints.len(), 10);
    ints[5..10].iter().map(|x| limbs_le(x, 128)).collect()
}

/// r⁻¹ = (n + 1)/2 for the blind r = 2, as stored (little-endian 2048-bit).
/// The client state for r = 2: r⁻¹ = (n + 1)/2, held in Montgomery form,
/// r⁻¹·2^2048 mod n (the same value for 32- and 64-bit limbs).
fn r_inv_needle(n: &[u8; 256]) -> Vec<u8> {
    use crypto_bigint::{NonZero, U2048};
    let n = U2048::from_be_slice(n);
    // (n + 1)/2 = ⌊n/2⌋ + 1 for odd n.
    let mut x = n.shr_vartime(1).wrapping_add(&U2048::ONE);
    let n = NonZero::new(n).unwrap();
    for _ in 0..2048 {
        x = x.add_mod(&x, &n);
    }
    limbs_le(x.to_be_bytes().as_ref(), 256)
}

const TWO: [u8; 256] = {
    let mut r = [0u8; 256];
    r[255] = 2;
    r
};

fn challenge(token_type: u16) -> TokenChallenge<'static> {
    TokenChallenge::new(token_type, b"issuer.example", &[], b"origin.example").unwrap()
}

struct Cases {
    passed: Vec<(&'static str, usize)>,
}

impl Cases {
    fn run<T>(&mut self, name: &'static str, value: T, needles: &[Vec<u8>]) {
        match check(value, needles) {
            Ok(windows) => self.passed.push((name, windows)),
            Err(e) => panic!("{name}: {e}"),
        }
    }
}

/// A secret holder without zeroization: its bytes must survive, or the check
/// could not see anything.
struct Control([u8; 48]);

impl Drop for Control {
    fn drop(&mut self) {
        std::hint::black_box(&self.0);
    }
}

#[test]
fn the_check_catches_a_type_that_does_not_wipe() {
    let secret = arr::<48>(99);
    let err = check(Control(secret), &[secret.to_vec()]).unwrap_err();
    assert!(err.contains("survives the drop"), "{err}");
    // And a needle that is not in the value is reported, not passed.
    let err = check(Control(secret), &[arr::<48>(98).to_vec()]).unwrap_err();
    assert!(err.contains("not in the value"), "{err}");
}

#[test]
fn every_secret_is_wiped_after_drop() {
    let mut c = Cases { passed: Vec::new() };

    // VOPRF keys and blinds.
    let (sk384, sk255) = (p384_scalar(1), r255_scalar(2));
    let (bl384, bl255, bl384b, bl255b) = (p384_scalar(3), r255_scalar(4), p384_scalar(5), r255_scalar(6));
    let key384 = || voprf::SecretKey::<P384Sha384>::from_bytes(&sk384).unwrap();
    let key255 = || voprf::SecretKey::<Ristretto255Sha512>::from_bytes(&sk255).unwrap();
    let blind384 = |b: &[u8; 48]| pat::hazmat::crypto::voprf::blind_with::<P384Sha384>(b"input", b).unwrap().0;
    let blind255 = |b: &[u8; 32]| pat::hazmat::crypto::voprf::blind_with::<Ristretto255Sha512>(b"input", b).unwrap().0;
    let (m_sk384, m_sk255) = (snapshot(key384()), snapshot(key255()));
    assert_eq!(m_sk255, sk255, "ristretto255 scalars are stored as their canonical bytes");
    let (m_bl384, m_bl255) = (snapshot(blind384(&bl384)), snapshot(blind255(&bl255)));
    let (m_bl384b, m_bl255b) = (snapshot(blind384(&bl384b)), snapshot(blind255(&bl255b)));
    c.run("voprf::SecretKey<P384Sha384>", key384(), &[m_sk384.clone()]);
    c.run("voprf::SecretKey<Ristretto255Sha512>", key255(), &[m_sk255.clone()]);
    c.run("voprf::KeyPair<P384Sha384>", voprf::KeyPair::from_secret_key(key384()).unwrap(), &[m_sk384.clone()]);
    c.run("voprf::KeyPair<Ristretto255Sha512>", voprf::KeyPair::from_secret_key(key255()).unwrap(), &[m_sk255.clone()]);
    c.run("voprf::Blind<P384Sha384>", blind384(&bl384), &[m_bl384.clone()]);
    c.run("voprf::Blind<Ristretto255Sha512>", blind255(&bl255), &[m_bl255.clone()]);

    // Types 0x0001 and 0x0005.
    let issuer384 = || private::Issuer::<PrivateP384>::new(voprf::KeyPair::from_secret_key(key384()).unwrap());
    let issuer255 = || private::Issuer::<PrivateRistretto255>::new(voprf::KeyPair::from_secret_key(key255()).unwrap());
    let (client384, client255) = (issuer384().client(), issuer255().client());
    let (ch1, ch5) = (challenge(1), challenge(5));
    c.run("private::Issuer<PrivateP384>", issuer384(), &[m_sk384.clone()]);
    c.run("private::Issuer<PrivateRistretto255>", issuer255(), &[m_sk255.clone()]);
    c.run(
        "private::RequestState<PrivateP384>",
        pat::hazmat::tokens::private::request_with(&client384, &ch1, &[7; 32], &bl384).unwrap().1,
        &[m_bl384.clone()],
    );
    c.run(
        "private::RequestState<PrivateRistretto255>",
        pat::hazmat::tokens::private::request_with(&client255, &ch5, &[7; 32], &bl255).unwrap().1,
        &[m_bl255.clone()],
    );
    let batch384: amortized::BatchState<PrivateP384, 4> =
        pat::hazmat::tokens::amortized::request_batch_with(&client384, &ch1, &[[1; 32], [2; 32]], &[bl384, bl384b])
            .unwrap();
    c.run("amortized::BatchState<PrivateP384, 4>", batch384, &[m_bl384.clone(), m_bl384b]);
    let batch255: amortized::BatchState<PrivateRistretto255, 4> =
        pat::hazmat::tokens::amortized::request_batch_with(&client255, &ch5, &[[1; 32], [2; 32]], &[bl255, bl255b])
            .unwrap();
    c.run("amortized::BatchState<PrivateRistretto255, 4>", batch255, &[m_bl255.clone(), m_bl255b]);

    // Blind RSA and type 0x0002.
    let rsa = rsa_needles();
    let pk = rsa_key().public_key().clone();
    let r_inv = r_inv_needle(pk.modulus());
    let salt = arr::<48>(8);
    c.run("blind_rsa::SecretKey", rsa_key(), &rsa);
    c.run(
        "blind_rsa::BlindingState",
        pat::hazmat::crypto::blind_rsa::blind_with(&pk, b"msg", &salt, &TWO).unwrap().1,
        &[r_inv.clone()],
    );
    c.run("public::Issuer", public::Issuer::new(rsa_key()), &rsa);
    let client2 = public::Client::new(pk.clone());
    let ch2 = challenge(2);
    c.run(
        "public::RequestState",
        pat::hazmat::tokens::public::request_with(&client2, &ch2, &[7; 32], &salt, &TWO).unwrap().1,
        &[r_inv.clone()],
    );

    // Exported states: the bytes after the version, shape and token input.
    let state = pat::hazmat::tokens::private::request_with(&client384, &ch1, &[7; 32], &bl384).unwrap().1;
    c.run("state::ExportedState<[u8; 197]>", state.export().unwrap(), &[bl384.to_vec()]);
    let state = pat::hazmat::tokens::public::request_with(&client2, &ch2, &[7; 32], &salt, &TWO).unwrap().1;
    let exported = state.export().unwrap();
    let stored = exported.as_bytes()[100..].to_vec();
    c.run("state::ExportedState<[u8; 356]>", exported, &[stored]);

    // Generic batches.
    let (request, state) = pat::hazmat::tokens::public::request_with(&client2, &ch2, &[3; 32], &salt, &TWO).unwrap();
    let entry = batched::BatchClient::entry(&client2, request, state).unwrap();
    c.run("batched::PendingEntry", entry, &[r_inv.clone()]);
    let (request, state) = pat::hazmat::tokens::private::request_with(&client384, &ch1, &[3; 32], &bl384).unwrap();
    let entry = batched::BatchClient::entry(&client384, request, state).unwrap();
    c.run("batched::PendingEntry (P-384)", entry, &[m_bl384.clone()]);
    let mut batch = batched::BatchState::<'_, 4>::new();
    batch
        .push(&client384, pat::hazmat::tokens::private::request_with(&client384, &ch1, &[3; 32], &bl384).unwrap())
        .unwrap();
    batch
        .push(&client2, pat::hazmat::tokens::public::request_with(&client2, &ch2, &[3; 32], &salt, &TWO).unwrap())
        .unwrap();
    batch
        .push(&client255, pat::hazmat::tokens::private::request_with(&client255, &ch5, &[3; 32], &bl255).unwrap())
        .unwrap();
    c.run("batched::BatchState<'_, 4>", batch, &[m_bl384.clone(), r_inv.clone(), m_bl255.clone()]);

    // Key blinding.
    let (ec_sk, ec_bk) = (p384_scalar(9), arr::<48>(10));
    let ec_key = || ecdsa::SecretKey::from_bytes(&ec_sk).unwrap();
    let ec_blind = || ecdsa::BlindKey::from_bytes(&ec_bk);
    let m_ec_sk = snapshot(ec_key());
    c.run("ecdsa_p384::SecretKey", ec_key(), &[m_ec_sk.clone()]);
    c.run("ecdsa_p384::BlindKey", ec_blind(), &[ec_bk.to_vec()]);
    let u = || ecdsa::blind_scalar(&ec_blind(), b"ctx").unwrap();
    c.run("ecdsa_p384::BlindScalar", u(), &[snapshot(u())]);
    let blinded = || ecdsa::blind_secret_key(&ec_key(), &ec_blind(), b"ctx").unwrap();
    c.run("ecdsa_p384::SecretKey (blinded skS·u)", blinded(), &[snapshot(blinded())]);
    let (ed_sk, ed_bk) = (arr::<32>(11), arr::<32>(12));
    c.run("ed25519::SecretKey", ed25519::SecretKey::from_bytes(&ed_sk), &[ed_sk.to_vec()]);
    c.run("ed25519::BlindKey", ed25519::BlindKey::from_bytes(&ed_bk), &[ed_bk.to_vec()]);
    let s = ed25519::blind_scalar(&ed25519::BlindKey::from_bytes(&ed_bk), b"ctx").unwrap();
    let s_bytes = s.to_bytes().to_vec();
    c.run("ed25519::BlindScalar", s, &[s_bytes]);

    // Type 0x0003.
    let encap_seed = arr::<32>(13);
    let encap = || EncapSecretKey::derive(1, &encap_seed);
    // x25519-dalek keeps the unclamped bytes; clamping changes bytes 0 and 31 only.
    let encap_needle = encap().to_bytes()[1..31].to_vec();
    c.run("EncapSecretKey", encap(), &[encap_needle.clone()]);
    let (enc, secret) = (arr::<32>(14), arr::<16>(15));
    c.run("EncapSecret", EncapSecret::from_parts(&enc, &secret), &[enc.to_vec(), secret.to_vec()]);
    let (client_sk, origin_sk) = (p384_scalar(16), p384_scalar(17));
    let origin_key = || OriginKey::new(b"origin.example", ecdsa::SecretKey::from_bytes(&origin_sk).unwrap());
    let m_origin = snapshot(ecdsa::SecretKey::from_bytes(&origin_sk).unwrap());
    c.run("t3::OriginKey", origin_key(), &[m_origin.clone()]);
    let token_key = || t3::TokenKey::from_pkcs8_der(rsa_der()).unwrap();
    c.run("t3::TokenKey", token_key(), &rsa);
    let mut needles = rsa.clone();
    needles.extend([encap_needle.clone(), m_origin]);
    c.run("t3::Issuer<[OriginKey; 2]>", t3::Issuer::new(encap(), token_key(), [origin_key(), origin_key()]), &needles);
    let origins = [origin_key()];
    let mut needles = rsa.clone();
    needles.push(encap_needle);
    c.run("t3::Issuer<&[OriginKey]>", t3::Issuer::new(encap(), token_key(), &origins[..]), &needles);
    let encap_key = *encap().encap_key();
    let client3 = || t3::Client::new(ecdsa::SecretKey::from_bytes(&client_sk).unwrap(), encap_key, pk.clone());
    c.run("t3::Client", client3(), &[snapshot(ecdsa::SecretKey::from_bytes(&client_sk).unwrap())]);
    let (request_blind, ikm_e) = (arr::<48>(18), arr::<32>(19));
    let fixed =
        RequestRandomness { nonce: &[7; 32], salt: &salt, blind: &TWO, request_blind: &request_blind, ikm_e: &ikm_e };
    let mut out = vec![0u8; 1024];
    let (_, state) = pat::hazmat::tokens::rate_limited::request_with(
        &client3(),
        &challenge(3),
        b"origin.example",
        &fixed,
        &mut rng(),
        &mut out,
    )
    .unwrap();
    c.run("t3::ClientState", state, &[r_inv.clone(), request_blind.to_vec()]);
    let mut attester = t3::Attester::<4>::new(t3::Policy { max_tokens: 5, window: 100 });
    let anon = arr::<32>(20);
    let blinded_request_key = ecdsa::SecretKey::from_bytes(&p384_scalar(21)).unwrap().public_key().to_bytes();
    let client_key = ecdsa::SecretKey::from_bytes(&client_sk).unwrap().public_key();
    let bk = ecdsa::BlindKey::from_bytes(&request_blind);
    let alias = attester.finalize_index(&client_key, &bk, &blinded_request_key, &anon, 1).unwrap();
    c.run("t3::Attester<4>", attester, &[anon.to_vec(), alias.to_vec()]);

    // Tokens.
    let input = |kind| TokenInput::new(kind, &[1; 32], &[2; 32], &[3; 32]);
    let (a48, a64, a256) = (arr::<48>(22), arr::<64>(23), arr::<256>(24));
    c.run("Token<48>", Token::new(input(TokenKind::PrivateP384), a48).unwrap(), &[a48.to_vec()]);
    c.run("Token<64>", Token::new(input(TokenKind::PrivateRistretto255), a64).unwrap(), &[a64.to_vec()]);
    c.run("Token<256>", Token::new(input(TokenKind::PublicRsa2048), a256).unwrap(), &[a256.to_vec()]);
    let generic = batched::GenericToken::PublicRsa2048(Token::new(input(TokenKind::PublicRsa2048), a256).unwrap());
    c.run("batched::GenericToken", generic, &[a256.to_vec()]);

    for (name, windows) in &c.passed {
        println!("wiped: {name} ({windows} windows checked)");
    }
    assert_eq!(c.passed.len(), 41);
}

/// No non-zero 8-byte window of `needle` in `haystack`.
fn absent(haystack: &[u8], needle: &[u8]) -> bool {
    needle.windows(8).filter(|w| w.iter().any(|&b| b != 0)).all(|w| !haystack.windows(8).any(|h| h == w))
}

/// A successful finalize wipes the state's secrets at once, not only when the
/// state is dropped: the bytes of a spent state (read before its drop) hold
/// none of them, while those of the same state before the finalize do.
#[test]
fn a_spent_state_holds_no_secret() {
    // Type 0x0001.
    let bl384 = p384_scalar(3);
    let issuer = private::Issuer::<PrivateP384>::new(
        voprf::KeyPair::from_secret_key(voprf::SecretKey::from_bytes(&p384_scalar(1)).unwrap()).unwrap(),
    );
    let client = issuer.client();
    let m_bl384 = snapshot(pat::hazmat::crypto::voprf::blind_with::<P384Sha384>(b"input", &bl384).unwrap().0);
    let request_with = || pat::hazmat::tokens::private::request_with(&client, &challenge(1), &[7; 32], &bl384).unwrap();
    assert!(!absent(&snapshot(request_with().1), &m_bl384), "the needle is in a fresh state");
    let (request, mut state) = request_with();
    client.finalize(&mut state, &issuer.evaluate(&request, &mut rng()).unwrap()).unwrap();
    assert!(absent(&snapshot(state), &m_bl384), "the blind survives the finalize");

    // Type 0x0002.
    let issuer = public::Issuer::new(rsa_key());
    let client = public::Client::new(issuer.public_key().clone());
    let r_inv = r_inv_needle(issuer.public_key().modulus());
    let salt = arr::<48>(8);
    let request_with =
        || pat::hazmat::tokens::public::request_with(&client, &challenge(2), &[7; 32], &salt, &TWO).unwrap();
    assert!(!absent(&snapshot(request_with().1), &r_inv), "the needle is in a fresh state");
    let (request, mut state) = request_with();
    client.finalize(&mut state, &issuer.evaluate(&request).unwrap()).unwrap();
    assert!(absent(&snapshot(state), &r_inv), "r⁻¹ survives the finalize");
}
