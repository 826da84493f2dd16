//! Every secret-holding type is `ZeroizeOnDrop` and not
//! `Copy` (checked at compile time), and its `Debug` output, plain and
//! pretty, shows none of the secret's bytes (as hex, either case, or as a
//! decimal array, in either byte order) but a redaction marker: the bare type
//! name or a `..` for the omitted fields.
//!
//! That the memory is actually wiped after drop is checked in the separate
//! `secret-checks` crate, which may use `unsafe` to look at a dropped value.
//!
//! Exempt, with the reason: `pat::hazmat::tokens::rate_limited::RequestRandomness` (hazmat,
//! only borrows caller-owned bytes, `Copy` on purpose) and `TokenRef` (borrows
//! the caller's buffer; it is checked for its `Debug` only). The vector
//! harness (`pat-vectors`) and the CLI are test and tool code.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core
)]

use std::fmt::Debug;
use std::sync::OnceLock;

use pat::crypto::blind_rsa::{self, SecretKey};
use pat::crypto::key_blinding::{ecdsa_p384 as ecdsa, ed25519};
use pat::crypto::rate_limited::{EncapSecret, EncapSecretKey};
use pat::crypto::voprf::{self, P384Sha384, Ristretto255Sha512};
use pat::hazmat::tokens::rate_limited::RequestRandomness;
use pat::tokens::rate_limited::{self as t3, OriginKey};
use pat::tokens::{amortized, batched, private, public};
use pat::wire::token_type::{PrivateP384, PrivateRistretto255};
use pat::{Token, TokenChallenge, TokenInput, TokenKind, TokenRef};
use sha2::{Digest, Sha256};
use zeroize::ZeroizeOnDrop;

mod common;
use common::rng;

// ---- compile-time checks ------------------------------------------------------

/// Compiles only for `ZeroizeOnDrop` types.
fn assert_zod<T: ZeroizeOnDrop>() {}

/// Fails to compile if a listed type is `Copy`: with a `Copy` type the method
/// call below has two candidate impls and inference fails (the trick of
/// `static_assertions::assert_not_impl_any!`).
macro_rules! assert_not_copy {
    ($($t:ty),* $(,)?) => {$(
        const _: fn() = || {
            trait AmbiguousIfCopy<A> {
                fn some_item() {}
            }
            impl<T: ?Sized> AmbiguousIfCopy<()> for T {}
            #[allow(dead_code)]
            struct IsCopy;
            impl<T: ?Sized + Copy> AmbiguousIfCopy<IsCopy> for T {}
            let _ = <$t as AmbiguousIfCopy<_>>::some_item;
        };
    )*};
}

/// Every secret-holding type, once per suite or size.
macro_rules! secret_types {
    ($mac:ident) => {
        $mac!(
            voprf::SecretKey<P384Sha384>,
            voprf::SecretKey<Ristretto255Sha512>,
            voprf::KeyPair<P384Sha384>,
            voprf::KeyPair<Ristretto255Sha512>,
            voprf::Blind<P384Sha384>,
            voprf::Blind<Ristretto255Sha512>,
            private::RequestState<PrivateP384>,
            private::RequestState<PrivateRistretto255>,
            private::Issuer<PrivateP384>,
            private::Issuer<PrivateRistretto255>,
            amortized::BatchState<PrivateP384, 4>,
            amortized::BatchState<PrivateRistretto255, 4>,
            blind_rsa::SecretKey,
            blind_rsa::SecretKey4096,
            blind_rsa::BlindingState,
            blind_rsa::RsaBlindingState<{ crypto_bigint::U4096::LIMBS }>,
            public::RequestState,
            public::Issuer,
            batched::PendingEntry<'static>,
            batched::BatchState<'static, 4>,
            batched::GenericToken,
            ecdsa::SecretKey,
            ecdsa::BlindKey,
            ecdsa::BlindScalar,
            ed25519::SecretKey,
            ed25519::BlindKey,
            ed25519::BlindScalar,
            EncapSecretKey,
            EncapSecret,
            t3::ClientState,
            t3::Client,
            t3::OriginKey<'static>,
            t3::TokenKey,
            t3::Issuer<[OriginKey<'static>; 2]>,
            t3::Issuer<&'static [OriginKey<'static>]>,
            t3::Attester<4>,
            Token<48>,
            Token<64>,
            Token<256>,
            pat::tokens::state::ExportedState<[u8; 197]>,
            pat::tokens::state::ExportedState<[u8; 356]>,
            pat::crypto::arc::ServerPrivateKey,
            pat::crypto::arc::CredentialRequestState,
            pat::crypto::arc::Credential,
            pat::crypto::arc::PresentationState,
            pat::tokens::arc::Issuer,
        );
    };
}

macro_rules! zod_list {
    ($($t:ty),* $(,)?) => {
        /// How many types the lists check.
        const SECRET_TYPES: usize = [$(stringify!($t)),*].len();
        fn all_zod() {
            $(assert_zod::<$t>();)*
        }
    };
}

secret_types!(zod_list);
secret_types!(assert_not_copy);

#[test]
fn every_secret_type_is_zeroize_on_drop_and_not_copy() {
    all_zod();
    assert_eq!(SECRET_TYPES, 46);
}

// ---- known secrets ------------------------------------------------------------

/// A P-256 scalar (below the order) of distinctive bytes.
fn p256_scalar(tag: u8) -> [u8; 32] {
    let mut s = arr::<32>(tag);
    s[0] = 0x10 + tag % 0x40;
    s
}

/// `len` distinctive bytes for secret number `tag`.
fn pattern(tag: u8, len: usize) -> Vec<u8> {
    (0..len.div_ceil(32))
        .flat_map(|i| Sha256::new().chain_update([tag, u8::try_from(i).unwrap()]).finalize())
        .take(len)
        .collect()
}

fn arr<const N: usize>(tag: u8) -> [u8; N] {
    pattern(tag, N).try_into().unwrap()
}

/// A canonical P-384 scalar (big-endian, below the group order).
fn p384_scalar(tag: u8) -> [u8; 48] {
    let mut s = arr::<48>(tag);
    s[0] &= 0x7f;
    s
}

/// A canonical ristretto255 scalar (little-endian, below ℓ).
fn r255_scalar(tag: u8) -> [u8; 32] {
    let mut s = arr::<32>(tag);
    s[31] &= 0x0f;
    s
}

/// One RSA-2048 key for the file, as PKCS#8 DER (generation is slow).
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

/// Every INTEGER of a DER structure, descending into SEQUENCEs and OCTET STRINGs.
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

/// d, p, q, dP, dQ and qInv of the RSA key.
fn rsa_secrets() -> Vec<Vec<u8>> {
    let mut ints = Vec::new();
    der_ints(rsa_der(), &mut ints);
    assert_eq!(ints.len(), 10, "version, version, n, e, d, p, q, dP, dQ, qInv");
    ints.split_off(4)
}

/// (n + 1)/2 = 2⁻¹ mod n for odd n: the r⁻¹ of the blind r = 2.
fn half_plus_one(n: &[u8; 256]) -> Vec<u8> {
    let mut out = vec![0u8; 256];
    let mut carry = 0u8;
    for (o, b) in out.iter_mut().zip(n) {
        *o = (b >> 1) | (carry << 7);
        carry = b & 1;
    }
    for o in out.iter_mut().rev() {
        let (v, overflow) = o.overflowing_add(1);
        *o = v;
        if !overflow {
            break;
        }
    }
    out
}

const TWO: [u8; 256] = {
    let mut r = [0u8; 256];
    r[255] = 2;
    r
};

fn challenge(token_type: u16) -> TokenChallenge<'static> {
    TokenChallenge::new(token_type, b"issuer.example", &[], b"origin.example").unwrap()
}

// ---- Debug --------------------------------------------------------------------

/// Formats `value` with `{:?}` and `{:#?}` and checks that neither output
/// contains any 6-byte window of a secret, in either byte order, as lowercase
/// or uppercase hex or as a decimal list, and that both start with `name` and
/// are either exactly `name` or mark omitted fields with `..`.
fn check_debug(name: &str, value: &impl Debug, secrets: &[&[u8]]) -> usize {
    let mut windows = 0;
    for text in [format!("{value:?}"), format!("{value:#?}")] {
        assert!(text.starts_with(name), "{name}: {text}");
        assert!(text == name || text.contains(".."), "{name} has no redaction marker: {text}");
        let flat: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        for secret in secrets {
            assert!(secret.len() >= 6, "{name}: secret too short to search for");
            let reversed: Vec<u8> = secret.iter().rev().copied().collect();
            for w in secret.windows(6).chain(reversed.windows(6)) {
                let lower: String = w.iter().map(|b| format!("{b:02x}")).collect();
                let upper = lower.to_uppercase();
                let decimal = w.iter().map(u8::to_string).collect::<Vec<_>>().join(",");
                for needle in [lower, upper, decimal] {
                    assert!(!flat.contains(&needle), "{name} prints secret bytes {needle}: {text}");
                }
                windows += 1;
            }
        }
    }
    windows
}

#[test]
fn debug_never_prints_a_secret() {
    let mut cases = 0;
    let mut check = |name: &str, value: &dyn Debug, secrets: &[&[u8]]| {
        assert!(check_debug(name, &value, secrets) > 0 || secrets.is_empty());
        cases += 1;
    };

    // VOPRF keys and blinds, both suites.
    let (sk384, sk255) = (p384_scalar(1), r255_scalar(2));
    let (bl384, bl255) = (p384_scalar(3), r255_scalar(4));
    let key384 = || voprf::SecretKey::<P384Sha384>::from_bytes(&sk384).unwrap();
    let key255 = || voprf::SecretKey::<Ristretto255Sha512>::from_bytes(&sk255).unwrap();
    check("SecretKey", &key384(), &[&sk384]);
    check("SecretKey", &key255(), &[&sk255]);
    check("KeyPair", &voprf::KeyPair::from_secret_key(key384()).unwrap(), &[&sk384]);
    check("KeyPair", &voprf::KeyPair::from_secret_key(key255()).unwrap(), &[&sk255]);
    check("Blind", &pat::hazmat::crypto::voprf::blind_with::<P384Sha384>(b"input", &bl384).unwrap().0, &[&bl384]);
    check(
        "Blind",
        &pat::hazmat::crypto::voprf::blind_with::<Ristretto255Sha512>(b"input", &bl255).unwrap().0,
        &[&bl255],
    );

    // Types 0x0001 and 0x0005: request states, issuers, amortized batches.
    let issuer384 = private::Issuer::<PrivateP384>::new(voprf::KeyPair::from_secret_key(key384()).unwrap());
    let issuer255 = private::Issuer::<PrivateRistretto255>::new(voprf::KeyPair::from_secret_key(key255()).unwrap());
    let (client384, client255) = (issuer384.client(), issuer255.client());
    let (ch1, ch5) = (challenge(1), challenge(5));
    let state384 = pat::hazmat::tokens::private::request_with(&client384, &ch1, &[7; 32], &bl384).unwrap().1;
    let state255 = pat::hazmat::tokens::private::request_with(&client255, &ch5, &[7; 32], &bl255).unwrap().1;
    check("RequestState", &state384, &[&bl384]);
    check("RequestState", &state255, &[&bl255]);
    check("Issuer", &issuer384, &[&sk384]);
    check("Issuer", &issuer255, &[&sk255]);
    let (bl384b, bl255b) = (p384_scalar(5), r255_scalar(6));
    let batch384: amortized::BatchState<PrivateP384, 4> =
        pat::hazmat::tokens::amortized::request_batch_with(&client384, &ch1, &[[1; 32], [2; 32]], &[bl384, bl384b])
            .unwrap();
    let batch255: amortized::BatchState<PrivateRistretto255, 4> =
        pat::hazmat::tokens::amortized::request_batch_with(&client255, &ch5, &[[1; 32], [2; 32]], &[bl255, bl255b])
            .unwrap();
    check("BatchState", &batch384, &[&bl384, &bl384b]);
    check("BatchState", &batch255, &[&bl255, &bl255b]);

    // Blind RSA and type 0x0002.
    let rsa = rsa_secrets();
    let rsa_refs: Vec<&[u8]> = rsa.iter().map(Vec::as_slice).collect();
    check("RsaSecretKey", &rsa_key(), &rsa_refs);
    let pk = rsa_key().public_key().clone();
    let r_inv = half_plus_one(pk.modulus());
    let salt = arr::<48>(8);
    check(
        "RsaBlindingState",
        &pat::hazmat::crypto::blind_rsa::blind_with(&pk, b"msg", &salt, &TWO).unwrap().1,
        &[&r_inv],
    );
    let issuer2 = public::Issuer::new(rsa_key());
    let client2 = public::Client::new(pk.clone());
    let ch2 = challenge(2);
    check("Issuer", &issuer2, &rsa_refs);
    check(
        "RequestState",
        &pat::hazmat::tokens::public::request_with(&client2, &ch2, &[7; 32], &salt, &TWO).unwrap().1,
        &[&r_inv],
    );

    // Generic batches.
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
    for entry in batch.entries() {
        check("PendingEntry", entry, &[&bl384, &bl255, &r_inv]);
    }
    check("BatchState", &batch, &[&bl384, &bl255, &r_inv]);

    // Exported states: the bytes after the version, shape and token input.
    let exported = state384.export().unwrap();
    check("ExportedState", &exported, &[&exported.as_bytes()[100..]]);
    let exported =
        pat::hazmat::tokens::public::request_with(&client2, &ch2, &[7; 32], &salt, &TWO).unwrap().1.export().unwrap();
    check("ExportedState", &exported, &[&exported.as_bytes()[100..]]);
    let exported = batch.export::<{ batched::BatchState::<4>::STATE_LEN }>().unwrap();
    check("ExportedState", &exported, &[&bl384, &bl255, &exported.as_bytes()[4 + 610 + 98..4 + 610 + 354]]);

    // Key blinding.
    let (ec_sk, ec_bk) = (p384_scalar(9), arr::<48>(10));
    let ec_key = || ecdsa::SecretKey::from_bytes(&ec_sk).unwrap();
    let ec_blind = ecdsa::BlindKey::from_bytes(&ec_bk);
    let ec_u = ecdsa::blind_scalar(&ec_blind, b"ctx").unwrap();
    let ec_blinded = ecdsa::blind_secret_key(&ec_key(), &ec_blind, b"ctx").unwrap();
    check("SecretKey", &ec_key(), &[&ec_sk]);
    check("BlindKey", &ec_blind, &[&ec_bk]);
    check("BlindScalar", &ec_u, &[ec_u.to_bytes().as_slice()]);
    check("SecretKey", &ec_blinded, &[ec_blinded.to_bytes().as_slice()]);
    let (ed_sk, ed_bk) = (arr::<32>(11), arr::<32>(12));
    let ed_blind = ed25519::BlindKey::from_bytes(&ed_bk);
    let ed_s = ed25519::blind_scalar(&ed_blind, b"ctx").unwrap();
    check("SecretKey", &ed25519::SecretKey::from_bytes(&ed_sk), &[&ed_sk]);
    check("BlindKey", &ed_blind, &[&ed_bk]);
    check("BlindScalar", &ed_s, &[ed_s.to_bytes().as_slice()]);

    // Type 0x0003: HPKE secrets, client, origin keys, issuer, client state.
    let encap_seed = arr::<32>(13);
    let encap = || EncapSecretKey::derive(1, &encap_seed);
    let encap_sk = encap().to_bytes();
    let encap_secrets: [&[u8]; 2] = [&encap_seed, &encap_sk[1..31]];
    check("EncapSecretKey", &encap(), &encap_secrets);
    let (enc, secret) = (arr::<32>(14), arr::<16>(15));
    check("EncapSecret", &EncapSecret::from_parts(&enc, &secret), &[&enc, &secret]);
    let (client_sk, origin_sk) = (p384_scalar(16), p384_scalar(17));
    let origin_key = || OriginKey::new(b"origin.example", ecdsa::SecretKey::from_bytes(&origin_sk).unwrap());
    check("OriginKey", &origin_key(), &[&origin_sk]);
    let token_key = || t3::TokenKey::from_pkcs8_der(rsa_der()).unwrap();
    check("TokenKey", &token_key(), &rsa_refs);
    let issuer3 = t3::Issuer::new(encap(), token_key(), [origin_key(), origin_key()]);
    let mut issuer3_secrets = rsa_refs.clone();
    issuer3_secrets.extend([&origin_sk[..], &encap_seed, &encap_sk[1..31]]);
    check("Issuer", &issuer3, &issuer3_secrets);
    let origins = [origin_key()];
    check("Issuer", &t3::Issuer::new(encap(), token_key(), &origins[..]), &issuer3_secrets);
    let client3 = t3::Client::new(ecdsa::SecretKey::from_bytes(&client_sk).unwrap(), *issuer3.encap_key(), pk);
    check("Client", &client3, &[&client_sk]);
    let (request_blind, ikm_e) = (arr::<48>(18), arr::<32>(19));
    let fixed =
        RequestRandomness { nonce: &[7; 32], salt: &salt, blind: &TWO, request_blind: &request_blind, ikm_e: &ikm_e };
    let mut out = vec![0u8; 1024];
    let (_, state3) = pat::hazmat::tokens::rate_limited::request_with(
        &client3,
        &challenge(3),
        b"origin.example",
        &fixed,
        &mut rng(),
        &mut out,
    )
    .unwrap();
    check("ClientState", &state3, &[&r_inv, &request_blind, &ikm_e]);
    let exported = state3.export().unwrap();
    check("ExportedState", &exported, &[&exported.as_bytes()[100..], &request_blind]);
    check("Attester", &t3::Attester::<4>::new(t3::Policy { max_tokens: 1, window: 1 }), &[]);

    // Tokens: the authenticator is a bearer credential until redeemed.
    let input = |kind| TokenInput::new(kind, &[1; 32], &[2; 32], &[3; 32]);
    let (a48, a64, a256) = (arr::<48>(20), arr::<64>(21), arr::<256>(22));
    let t48 = Token::new(input(TokenKind::PrivateP384), a48).unwrap();
    check("Token", &t48, &[&a48]);
    check("Token", &Token::new(input(TokenKind::PrivateRistretto255), a64).unwrap(), &[&a64]);
    check("Token", &Token::new(input(TokenKind::PublicRsa2048), a256).unwrap(), &[&a256]);
    check("TokenRef", &TokenRef::new(input(TokenKind::PublicRsa2048), &a256).unwrap(), &[&a256]);
    check("PrivateP384(", &batched::GenericToken::PrivateP384(t48), &[&a48]);

    // ARC: the server's scalars; the client's m1, r1, r2; the credential.
    let arc_sk: Vec<u8> = (0..4u8).flat_map(|i| p256_scalar(30 + i)).collect();
    let arc_key = || pat::crypto::arc::ServerPrivateKey::from_bytes(&arc_sk).unwrap();
    check("ServerPrivateKey", &arc_key(), &[&arc_sk[..32], &arc_sk[32..64], &arc_sk[64..96], &arc_sk[96..]]);
    check("Issuer", &pat::tokens::arc::Issuer::new(arc_key()), &[&arc_sk[..32], &arc_sk[96..]]);
    let (req_state, request) = pat::crypto::arc::CredentialRequestState::new(&[b"ctx"], &mut rng()).unwrap();
    let req_bytes = req_state.export();
    check("CredentialRequestState", &req_state, &[&req_bytes[..32], &req_bytes[32..64], &req_bytes[64..96]]);
    let response = arc_key().respond(&request, &mut rng()).unwrap();
    let credential = req_state.finalize(arc_key().public_key(), &response).unwrap();
    let cred_bytes = credential.export();
    check("Credential", &credential, &[&cred_bytes[..32]]);
    let pstate = pat::crypto::arc::PresentationState::new(&credential, &[b"p"], 4).unwrap();
    check("PresentationState", &pstate, &[&cred_bytes[..32]]);

    assert_eq!(cases, 50);
}

/// Prints its secret as a decimal array and as hex, but with a `..` marker.
struct Leaky([u8; 32]);

impl Debug for Leaky {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let hex: String = self.0.iter().map(|b| format!("{b:02X}")).collect();
        f.debug_struct("Leaky").field("key", &self.0).field("hex", &hex).finish_non_exhaustive()
    }
}

#[test]
#[should_panic(expected = "prints secret bytes")]
fn the_debug_check_catches_a_printed_secret() {
    let key = arr::<32>(50);
    check_debug("Leaky", &Leaky(key), &[&key]);
}

#[test]
#[should_panic(expected = "no redaction marker")]
fn the_debug_check_wants_a_marker() {
    check_debug("Leaky", &format_args!("Leaky {{ len: 32 }}"), &[&arr::<32>(51)]);
}
