//! Runs vector cases of every implemented token type on a Cortex-M4 with no
//! allocator: the binary links without a `#[global_allocator]`, which proves
//! the `pat` core never reaches for the heap. Under qemu (`cargo run --release`)
//! it prints one line per kind and `N passed, M failed` over semihosting, and
//! exits non-zero on any failure.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use cortex_m_semihosting::{debug, hprintln};
use pat::Error;
use pat::auth;
use pat::blind_rsa::{PublicKey, SecretKey};
use pat::challenge::TokenChallenge;
use pat::codec::{Decode, Encode};
use pat::token::{TokenInput, TokenRef};
use pat::token_type::{PrivateP384, PrivateRistretto255, TokenKind};
use pat::types::amortized::AmortizedTokenResponse;
use pat::types::private::{self, PrivateTokenType};
use pat::types::public;
use pat::voprf::{ByteArray, KeyPair, Suite};

/// One case of a private-token file.
pub struct PrivateCase {
    sk: &'static [u8],
    pk: &'static [u8],
    challenge: &'static [u8],
    nonce: [u8; 32],
    blind: &'static [u8],
    request: &'static [u8],
    response: &'static [u8],
    token: &'static [u8],
}

/// One case of an amortized file.
pub struct AmortizedCase {
    sk: &'static [u8],
    pk: &'static [u8],
    challenge: &'static [u8],
    nonces: &'static [[u8; 32]],
    blinds: &'static [&'static [u8]],
    request: &'static [u8],
    response: &'static [u8],
    tokens: &'static [&'static [u8]],
}

/// One case of a type-2 file.
pub struct PublicCase {
    sk_pem: &'static str,
    pk: &'static [u8],
    challenge: &'static [u8],
    nonce: [u8; 32],
    blind: [u8; 256],
    salt: [u8; 48],
    request: &'static [u8],
    response: &'static [u8],
    token: &'static [u8],
}

mod vectors {
    use super::{AmortizedCase, PrivateCase, PublicCase};
    include!(concat!(env!("OUT_DIR"), "/vectors.rs"));
}

/// A deterministic generator for the issuer's proof nonces in this harness.
/// NOT a cryptographic RNG: it only drives test evaluations on the device.
struct TestRng(u64);

impl rand_core::TryRng for TestRng {
    type Error = core::convert::Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok((self.try_next_u64()? >> 32) as u32)
    }

    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        Ok(self.0.wrapping_mul(0x2545_f491_4f6c_dd1d))
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        for chunk in dst.chunks_mut(8) {
            let v = self.try_next_u64()?.to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
        Ok(())
    }
}

impl rand_core::TryCryptoRng for TestRng {}

fn check(ok: bool) -> Result<(), Error> {
    if ok { Ok(()) } else { Err(Error::Verification) }
}

/// `m` encoded equals `expected`.
fn same(m: &impl Encode, expected: &[u8]) -> Result<(), Error> {
    let mut buf = [0u8; 1024];
    let n = m.encode(&mut buf)?;
    check(buf.get(..n) == Some(expected))
}

fn token_case(case: &(u16, &[u8], &[u8], &[u8], [u8; 32], [u8; 32], [u8; 98])) -> Result<(), Error> {
    let (ty, issuer, ctx, origin, nonce, key_id, expected) = case;
    let challenge = TokenChallenge::new(*ty, issuer, ctx, origin)?;
    let mut buf = [0u8; 256];
    let n = challenge.encode(&mut buf)?;
    let parsed = TokenChallenge::decode(buf.get(..n).ok_or(Error::BufferTooSmall)?)?;
    let input = TokenInput::new(TokenKind::from_code(*ty)?, nonce, &parsed.digest(), key_id);
    check(input.as_bytes() == expected)?;
    // A whole token through the Authorization header and back.
    let auth_bytes = [0x5au8; 256];
    let token = TokenRef::new(input, auth_bytes.get(..input.kind().nk()).ok_or(Error::BufferTooSmall)?)?;
    let mut tbuf = [0u8; 354];
    let tn = token.encode(&mut tbuf)?;
    let mut hbuf = [0u8; 512];
    let header = auth::write_authorization(tbuf.get(..tn).ok_or(Error::BufferTooSmall)?, &mut hbuf)?;
    let mut dbuf = [0u8; 354];
    let decoded = auth::parse_authorization(header)?.decode_base64url(&mut dbuf)?;
    check(TokenRef::decode(decoded)? == token)
}

fn issuer_of<T: PrivateTokenType>(sk: &[u8], pk: &[u8]) -> Result<private::Issuer<T>, Error> {
    let sk = <<T::Suite as Suite>::ScalarBytes>::from_slice(sk).ok_or(Error::InvalidScalar)?;
    let issuer = private::Issuer::<T>::new(KeyPair::from_secret_key(pat::voprf::SecretKey::from_bytes(&sk)?)?);
    check(issuer.token_key().as_ref() == pk)?;
    Ok(issuer)
}

fn private_case<T: PrivateTokenType>(case: &PrivateCase) -> Result<(), Error> {
    let issuer = issuer_of::<T>(case.sk, case.pk)?;
    let challenge = TokenChallenge::decode(case.challenge)?;
    let client = private::Client::<T>::from_token_key(case.pk)?;
    let blind = <<T::Suite as Suite>::ScalarBytes>::from_slice(case.blind).ok_or(Error::InvalidScalar)?;
    let (request, state) = client.request_with(&challenge, &case.nonce, &blind)?;
    same(&request, case.request)?;
    let token = client.finalize(state, &private::TokenResponse::decode(case.response)?)?;
    same(&token, case.token)?;
    issuer.verify(&token, &challenge)?;
    // The random path too: a fresh request, evaluation, token and verification.
    let mut rng = TestRng(0x9e37_79b9_7f4a_7c15);
    let (request, state) = client.request(&challenge, &mut rng)?;
    let response = issuer.evaluate(&request, &mut rng)?;
    let token = client.finalize(state, &response)?;
    issuer.verify(&token, &challenge)
}

fn amortized_case<T: PrivateTokenType>(case: &AmortizedCase) -> Result<(), Error> {
    const N: usize = 8;
    let issuer = issuer_of::<T>(case.sk, case.pk)?;
    let challenge = TokenChallenge::decode(case.challenge)?;
    let client = issuer.client();
    let mut blinds = [<<T::Suite as Suite>::ScalarBytes>::ZERO; N];
    for (slot, b) in blinds.iter_mut().zip(case.blinds) {
        *slot = <<T::Suite as Suite>::ScalarBytes>::from_slice(b).ok_or(Error::InvalidScalar)?;
    }
    let blinds = blinds.get(..case.blinds.len()).ok_or(Error::CapacityExceeded)?;
    let state = client.request_batch_with::<N>(&challenge, case.nonces, blinds)?;
    same(&state.request(), case.request)?;
    let tokens = client.finalize_batch(state, &AmortizedTokenResponse::decode(case.response)?)?;
    check(tokens.len() == case.tokens.len())?;
    for (token, expected) in tokens.iter().zip(case.tokens) {
        same(token, expected)?;
        issuer.verify(token, &challenge)?;
    }
    Ok(())
}

fn public_case(case: &PublicCase) -> Result<(), Error> {
    let sk = SecretKey::from_pkcs8_pem(case.sk_pem)?;
    let pk = PublicKey::from_spki(case.pk)?;
    check(sk.public_key() == &pk)?;
    let challenge = TokenChallenge::decode(case.challenge)?;
    let client = public::Client::from_token_key(case.pk)?;
    let (request, state) = client.request_with(&challenge, &case.nonce, &case.salt, &case.blind)?;
    same(&request, case.request)?;
    let response = public::Issuer::new(sk).evaluate(&request)?;
    same(&response, case.response)?;
    let token = client.finalize(state, &response)?;
    same(&token, case.token)?;
    public::Origin::new(pk).verify(&token, &challenge)
}

/// Runs `f` over `cases`, prints the kind's tally and adds it to the totals.
fn run<C>(name: &str, cases: &[C], f: impl Fn(&C) -> Result<(), Error>, totals: &mut (u32, u32)) {
    let (mut passed, mut failed) = (0u32, 0u32);
    for (i, case) in cases.iter().enumerate() {
        match f(core::hint::black_box(case)) {
            Ok(()) => passed += 1,
            Err(e) => {
                failed += 1;
                hprintln!("{} case {} failed: {}", name, i, e);
            }
        }
    }
    hprintln!("{}: {} passed, {} failed", name, passed, failed);
    totals.0 += passed;
    totals.1 += failed;
}

#[entry]
fn main() -> ! {
    let mut totals = (0u32, 0u32);
    run("token", vectors::TOKEN_CASES, token_case, &mut totals);
    run("type1", vectors::TYPE1, private_case::<PrivateP384>, &mut totals);
    run("type1 (rust)", vectors::TYPE1_RS, private_case::<PrivateP384>, &mut totals);
    run("type5", vectors::TYPE5, private_case::<PrivateRistretto255>, &mut totals);
    run("type5 (rust)", vectors::TYPE5_RS, private_case::<PrivateRistretto255>, &mut totals);
    run("amortized-type1", vectors::AMORTIZED1, amortized_case::<PrivateP384>, &mut totals);
    run("amortized-type5", vectors::AMORTIZED5, amortized_case::<PrivateRistretto255>, &mut totals);
    run("type2", vectors::TYPE2, public_case, &mut totals);
    // Hostile bytes: a truncated challenge must be a typed error.
    let truncated = [0u8, 1, 0, 5, b'a'];
    run("hostile", &[truncated], |b| check(TokenChallenge::decode(b) == Err(Error::Truncated)), &mut totals);
    let (passed, failed) = totals;
    hprintln!("{} passed, {} failed", passed, failed);
    debug::exit(if failed == 0 && passed > 0 { debug::EXIT_SUCCESS } else { debug::EXIT_FAILURE });
    loop {
        cortex_m::asm::wfi();
    }
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    hprintln!("panic: {}", info);
    debug::exit(debug::EXIT_FAILURE);
    loop {
        cortex_m::asm::wfi();
    }
}
