//! A Privacy Pass client firmware for a Cortex-M4 with no allocator, as a
//! device would run it: a type 0x0005 (VOPRF ristretto255) client that
//!
//! 1. runs its power-on known-answer self-test,
//! 2. parses the origin's `WWW-Authenticate` challenge,
//! 3. builds a token request and sends it to the issuer,
//! 4. saves the request state and the token key to non-volatile storage,
//! 5. goes through a reset (everything in RAM is dropped),
//! 6. restores the state, rejects a corrupted response without losing the
//!    state, finalizes the genuine one,
//! 7. builds the `Authorization` header the origin accepts.
//!
//! The network, the issuer and the origin are simulated in [`server`], and
//! non-volatile storage in [`storage`]; the device's own code is [`device`].
//! Every buffer is sized by a `usize` constant of the library.
//!
//! Run it under qemu with `cargo run --release` in this directory. It prints
//! each step over semihosting and exits non-zero if any step fails.
#![no_std]
#![no_main]

use cortex_m_semihosting::{debug, hprintln};
use pat::Error;
use pat::wire::token_type::PrivateRistretto255;

/// The token type of this firmware.
type Kind = PrivateRistretto255;

/// The random number generator of the device.
mod trng {
    use pat::RngCode;
    use pat::rand_core::{TryCryptoRng, TryRng, utils};

    /// A stand-in for the hardware TRNG driver: qemu's mps2-an386 board has
    /// no random number generator, so this one is a fixed xorshift sequence.
    /// **It is not random. A real firmware wraps its HAL's TRNG driver here**
    /// (`examples/rng_adapter.rs` in the repository shows the adapter for a
    /// driver with rand_core 0.6 traits). A driver failure is returned as an
    /// [`RngCode`], which the library passes on in `Error::Rng`.
    pub struct Trng {
        state: u64,
    }

    impl Trng {
        /// The stand-in, seeded.
        pub const fn new(seed: u64) -> Self {
            Self { state: seed | 1 }
        }

        /// What a driver's "read one word" call would do.
        fn read_word(&mut self) -> Result<u32, RngCode> {
            self.state ^= self.state << 13;
            self.state ^= self.state >> 7;
            self.state ^= self.state << 17;
            Ok((self.state >> 32) as u32)
        }
    }

    impl TryRng for Trng {
        type Error = RngCode;

        fn try_next_u32(&mut self) -> Result<u32, RngCode> {
            self.read_word()
        }

        fn try_next_u64(&mut self) -> Result<u64, RngCode> {
            utils::next_word_via_fill(self)
        }

        fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), RngCode> {
            for chunk in dst.chunks_mut(4) {
                let word = self.read_word()?.to_le_bytes();
                chunk.copy_from_slice(word.get(..chunk.len()).ok_or(RngCode::UNKNOWN)?);
            }
            Ok(())
        }
    }

    /// The promise a real TRNG driver makes; the stand-in above only
    /// pretends (see its documentation).
    impl TryCryptoRng for Trng {}
}

/// Non-volatile storage: what survives a reset. A real firmware writes these
/// bytes to flash or EEPROM, encrypted and authenticated with a device key
/// (the request state holds the secret blind: docs/embedded.md, "Keeping the
/// request state across a reset").
mod storage {
    use core::cell::RefCell;

    use critical_section::Mutex;
    use pat::tokens::private::RequestState;
    use pat::wire::auth::MAX_TOKEN_KEY_LEN;

    use super::Kind;

    /// One record: the token key the request was made for and the exported
    /// request state. Wiped when dropped: the state holds the secret blind.
    #[derive(zeroize::Zeroize, zeroize::ZeroizeOnDrop)]
    pub struct Record {
        pub token_key: [u8; MAX_TOKEN_KEY_LEN],
        pub token_key_len: usize,
        pub state: [u8; RequestState::<Kind>::STATE_LEN],
    }

    impl Record {
        const EMPTY: Self =
            Self { token_key: [0; MAX_TOKEN_KEY_LEN], token_key_len: 0, state: [0; RequestState::<Kind>::STATE_LEN] };
    }

    /// The storage cell and whether it holds a record.
    static NVM: Mutex<RefCell<(bool, Record)>> = Mutex::new(RefCell::new((false, Record::EMPTY)));

    /// Writes the record (a real firmware encrypts it first).
    pub fn save(record: &Record) {
        critical_section::with(|cs| {
            let mut cell = NVM.borrow(cs).borrow_mut();
            cell.1.token_key = record.token_key;
            cell.1.token_key_len = record.token_key_len;
            cell.1.state = record.state;
            cell.0 = true;
        });
    }

    /// Reads the record and wipes the stored copy: a state must not be
    /// finalized twice from stored copies.
    pub fn take() -> Option<Record> {
        critical_section::with(|cs| {
            let mut cell = NVM.borrow(cs).borrow_mut();
            if !core::mem::take(&mut cell.0) {
                return None;
            }
            let record =
                Record { token_key: cell.1.token_key, token_key_len: cell.1.token_key_len, state: cell.1.state };
            zeroize::Zeroize::zeroize(&mut cell.1);
            Some(record)
        })
    }
}

/// The other side of the network: the origin's challenge, the issuer's
/// evaluation and the origin's check of the token. In real life these run on
/// servers; here they are simulated in the firmware so that it runs alone.
mod server {
    use pat::Error;
    use pat::tokens::private::{Issuer, TokenRequest};
    use pat::wire::auth;
    use pat::wire::challenge::TokenChallenge;
    use pat::wire::codec::{Decode, Encode};
    use pat::wire::token_type::TokenType;

    use super::Kind;
    use super::trng::Trng;

    /// The issuer and origin of the simulation.
    pub struct Server {
        issuer: Issuer<Kind>,
        challenge: [u8; 64],
        challenge_len: usize,
    }

    impl Server {
        /// An issuer with a key derived from a fixed seed and an origin that
        /// challenges for its tokens.
        pub fn new() -> Result<Self, Error> {
            let issuer = Issuer::<Kind>::derive(b"pat firmware example issuer seed", b"")?;
            let challenge = TokenChallenge::new(Kind::CODE, b"issuer.example", &[], b"origin.example")?;
            let mut buf = [0u8; 64];
            let challenge_len = challenge.encode(&mut buf)?;
            Ok(Self { issuer, challenge: buf, challenge_len })
        }

        fn challenge_bytes(&self) -> Result<&[u8], Error> {
            self.challenge.get(..self.challenge_len).ok_or(Error::BufferTooSmall)
        }

        /// The origin's `WWW-Authenticate` value, written into `out`.
        pub fn www_authenticate<'o>(&self, out: &'o mut [u8]) -> Result<&'o str, Error> {
            auth::write_www_authenticate(self.challenge_bytes()?, self.issuer.token_key().as_ref(), None, out)
        }

        /// The issuer's answer to a token request.
        pub fn issue(&self, request: &[u8], out: &mut [u8]) -> Result<usize, Error> {
            let request = TokenRequest::<Kind>::decode(request)?;
            let response = self.issuer.evaluate(&request, &mut Trng::new(0x1550_e4))?;
            response.encode(out)
        }

        /// The origin's check of an `Authorization` value.
        pub fn redeem(&self, authorization: &str) -> Result<(), Error> {
            let mut buf = [0u8; <Kind as TokenType>::TOKEN_LEN];
            let token = auth::parse_authorization(authorization)?.decode_base64url(&mut buf)?;
            let token = <Kind as pat::tokens::private::PrivateTokenType>::Token::decode(token)?;
            let challenge = TokenChallenge::decode(self.challenge_bytes()?)?;
            self.issuer.verify(&token, &challenge)
        }
    }
}

/// The device's client code.
mod device {
    use cortex_m_semihosting::hprintln;
    use pat::tokens::private::{Client, RequestState, TokenResponse};
    use pat::wire::auth::{self, MAX_TOKEN_KEY_LEN};
    use pat::wire::challenge::{PRACTICAL_CHALLENGE_LEN, TokenChallenge};
    use pat::wire::codec::{Decode, Encode};
    use pat::wire::token_type::TokenType;
    use pat::{Error, Field};

    use super::Kind;
    use super::storage::{self, Record};
    use super::trng::Trng;

    /// What the device sends to the issuer: a token request.
    pub struct Outgoing {
        pub request: [u8; <Kind as TokenType>::REQUEST_MAX_LEN],
        pub len: usize,
    }

    /// Before the reset: parse the challenge, make the request, persist the
    /// state and the token key. Everything else is dropped on return.
    pub fn request(www_authenticate: &str, rng: &mut Trng) -> Result<Outgoing, Error> {
        let offer = auth::parse_www_authenticate(www_authenticate)
            .next()
            .ok_or(Error::MissingParameter(Field::Challenge))??;
        let mut challenge_buf = [0u8; PRACTICAL_CHALLENGE_LEN];
        let challenge = TokenChallenge::decode(offer.decode_challenge(&mut challenge_buf)?)?;
        let mut token_key = [0u8; MAX_TOKEN_KEY_LEN];
        let token_key_len = offer.decode_token_key(&mut token_key)?.len();
        let client = Client::<Kind>::from_token_key(token_key.get(..token_key_len).ok_or(Error::BufferTooSmall)?)?;
        let (request, state) = client.request(&challenge, rng)?;
        let mut out = Outgoing { request: [0; <Kind as TokenType>::REQUEST_MAX_LEN], len: 0 };
        out.len = request.encode(&mut out.request)?;
        let exported = state.export()?;
        storage::save(&Record { token_key, token_key_len, state: *exported.as_bytes() });
        hprintln!("device: request of {} bytes sent; state ({} bytes) and token key saved", out.len, {
            RequestState::<Kind>::STATE_LEN
        });
        Ok(out)
    }

    /// After the reset: restore the client and its state, finalize the
    /// issuer's response (the first delivery arrives corrupted), and write
    /// the `Authorization` value into `out`.
    pub fn finalize<'o>(
        corrupted: &[u8],
        response: &[u8],
        out: &'o mut [u8; <Kind as TokenType>::AUTHORIZATION_LEN],
    ) -> Result<&'o str, Error> {
        let record = storage::take().ok_or(Error::MissingParameter(Field::State))?;
        let client =
            Client::<Kind>::from_token_key(record.token_key.get(..record.token_key_len).ok_or(Error::BufferTooSmall)?)?;
        let mut state = RequestState::<Kind>::import(&client, &record.state)?;
        drop(record); // wiped
        hprintln!("device: state restored after the reset");

        // A response damaged on the way fails to verify, and the state stays
        // usable for the retransmission.
        match TokenResponse::<Kind>::decode(corrupted).and_then(|r| client.finalize(&mut state, &r)) {
            Err(e) => hprintln!("device: corrupted response rejected ({}); state kept", e),
            Ok(_) => return Err(Error::Verification),
        }
        let token = client.finalize(&mut state, &TokenResponse::<Kind>::decode(response)?)?;
        // A finalized state is spent: it cannot make a second token.
        if client.finalize(&mut state, &TokenResponse::<Kind>::decode(response)?) != Err(Error::StateSpent) {
            return Err(Error::Verification);
        }
        let mut token_bytes = [0u8; <Kind as TokenType>::TOKEN_LEN];
        let n = token.encode(&mut token_bytes)?;
        auth::write_authorization(token_bytes.get(..n).ok_or(Error::BufferTooSmall)?, out)
    }
}

fn run() -> Result<(), Error> {
    // 1. Power-on self-test: known answers of the client's primitives.
    pat::self_test::type5()?;
    hprintln!("device: self-test passed");

    let server = server::Server::new()?;
    let mut header = [0u8; pat::wire::auth::PRACTICAL_WWW_AUTHENTICATE_LEN];
    let www_authenticate = server.www_authenticate(&mut header)?;
    hprintln!("origin: WWW-Authenticate: {}", www_authenticate);

    // 2–4. The device asks for a token and saves its state.
    let mut rng = trng::Trng::new(0x5eed_f00d);
    let outgoing = device::request(www_authenticate, &mut rng)?;
    drop(rng);

    // The issuer answers; the first delivery arrives with a flipped bit.
    let mut response = [0u8; <Kind as pat::wire::token_type::TokenType>::RESPONSE_MAX_LEN];
    let n = server.issue(outgoing.request.get(..outgoing.len).ok_or(Error::BufferTooSmall)?, &mut response)?;
    let response = response.get(..n).ok_or(Error::BufferTooSmall)?;
    let mut corrupted = [0u8; <Kind as pat::wire::token_type::TokenType>::RESPONSE_MAX_LEN];
    let corrupted = corrupted.get_mut(..n).ok_or(Error::BufferTooSmall)?;
    corrupted.copy_from_slice(response);
    if let Some(b) = corrupted.last_mut() {
        *b ^= 0x01;
    }
    hprintln!("issuer: response of {} bytes", n);

    // 5. Reset: only the storage record survives (`device::request` kept
    // nothing else).
    // 6–7. Restore, finalize, redeem.
    let mut authorization = [0u8; <Kind as pat::wire::token_type::TokenType>::AUTHORIZATION_LEN];
    let authorization = device::finalize(corrupted, response, &mut authorization)?;
    hprintln!("device: Authorization: {}", authorization);
    server.redeem(authorization)?;
    hprintln!("origin: token accepted");
    Ok(())
}

#[cortex_m_rt::entry]
fn main() -> ! {
    let ok = match run() {
        Ok(()) => true,
        Err(e) => {
            hprintln!("firmware example failed: {}", e);
            false
        }
    };
    debug::exit(if ok { debug::EXIT_SUCCESS } else { debug::EXIT_FAILURE });
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
