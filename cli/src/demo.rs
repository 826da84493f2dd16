//! `pat demo`, and the set-ups it shares with `pat bench`: for each token type
//! a fixture holding the keys, the challenge and one completed issuance, with
//! allocation-free helpers that make fresh inputs for every role.

use std::process::ExitCode;
use std::time::Instant;

use pat::arc::{Credential, CredentialResponse, PresentationState, ServerPrivateKey};
use pat::auth;
use pat::challenge::TokenChallenge;
use pat::codec::{Decode, Encode};
use pat::extensions::Extensions;
use pat::key_blinding::ecdsa_p384;
use pat::rate_limited::encap::EncapSecretKey;
use pat::token_type::{TokenKind, TokenType};
use pat::types::amortized::{self, AmortizedTokenRequest, AmortizedTokenResponse};
use pat::types::arc::{self as arc_type, ArcChallenge, ArcToken};
use pat::types::batched::{self, GenericBatchTokenRequest, GenericBatchTokenResponse};
use pat::types::metadata;
use pat::types::private::{self, PrivateTokenType};
use pat::types::public;
use pat::types::rate_limited::{self as t3, Attester, OriginKey, Policy};

pub(crate) type Result<T> = core::result::Result<T, pat::Error>;

pub(crate) fn rng() -> rand_core::UnwrapErr<pat::OsRng> {
    rand_core::UnwrapErr(pat::OsRng)
}

fn encoded(m: &impl Encode) -> Result<Vec<u8>> {
    let mut out = vec![0u8; m.encoded_len()];
    m.encode(&mut out)?;
    Ok(out)
}

/// Encoded bytes in a fixed buffer (no allocation).
pub(crate) struct Wire<const N: usize> {
    bytes: [u8; N],
    len: usize,
}

impl<const N: usize> Wire<N> {
    pub(crate) fn encode(m: &impl Encode) -> Result<Self> {
        let mut bytes = [0u8; N];
        let len = m.encode(&mut bytes)?;
        Ok(Self { bytes, len })
    }

    pub(crate) fn as_slice(&self) -> &[u8] {
        self.bytes.get(..self.len).unwrap_or_default()
    }
}

pub(crate) const ORIGIN: &[u8] = b"origin.example";
/// Tokens per amortized batch.
pub(crate) const BATCH: usize = 10;
/// Room for an amortized or generic batch response.
pub(crate) const BATCH_WIRE: usize = 1024;
/// Room for a type-3 request (520 bytes for [`ORIGIN`]) and the issuer's scratch.
pub(crate) const T3_WIRE: usize = 1024;

/// Types 0x0001 and 0x0005: issuer, client, challenge and one issuance.
pub(crate) struct PrivateFixture<'a, T: PrivateTokenType> {
    pub(crate) issuer: private::Issuer<T>,
    pub(crate) client: private::Client<T>,
    pub(crate) challenge: TokenChallenge<'a>,
    pub(crate) request_bytes: Vec<u8>,
    pub(crate) response_bytes: Vec<u8>,
    pub(crate) token_bytes: Vec<u8>,
    pub(crate) token: T::Token,
}

impl<'a, T: PrivateTokenType> PrivateFixture<'a, T> {
    pub(crate) fn new(origin: &'a [u8]) -> Result<Self> {
        let issuer = private::Issuer::<T>::generate(&mut rng())?;
        let challenge = TokenChallenge::new(T::CODE, b"issuer.example", &[], origin)?;
        // The client learns the key from its wire form, as it would from the issuer directory.
        let client = private::Client::<T>::from_token_key(issuer.token_key().as_ref())?;
        let (request, mut state) = client.request(&challenge, &mut rng())?;
        let request_bytes = encoded(&request)?;
        let parsed = private::TokenRequest::<T>::decode(&request_bytes)?;
        let response = issuer.evaluate(&parsed, &mut rng())?;
        let response_bytes = encoded(&response)?;
        let token = client.finalize(&mut state, &private::TokenResponse::decode(&response_bytes)?)?;
        let token_bytes = encoded(&token)?;
        let token = <T::Token as Decode>::decode(&token_bytes)?;
        issuer.verify(&token, &challenge)?;
        Ok(Self { issuer, client, challenge, request_bytes, response_bytes, token_bytes, token })
    }

    /// The fixture's request, parsed.
    pub(crate) fn request(&self) -> Result<private::TokenRequest<T>> {
        private::TokenRequest::decode(&self.request_bytes)
    }

    /// A fresh request answered by the issuer: what the client finalizes.
    pub(crate) fn exchange(&self) -> Result<(private::TokenResponse<T>, private::RequestState<T>)> {
        let (request, state) = self.client.request(&self.challenge, &mut rng())?;
        Ok((self.issuer.evaluate(&request, &mut rng())?, state))
    }
}

/// Type 0x0002.
pub(crate) struct PublicFixture<'a> {
    pub(crate) issuer: public::Issuer,
    pub(crate) client: public::Client,
    pub(crate) origin: public::Origin,
    pub(crate) challenge: TokenChallenge<'a>,
    pub(crate) request_bytes: Vec<u8>,
    pub(crate) response_bytes: Vec<u8>,
    pub(crate) token_bytes: Vec<u8>,
    pub(crate) token: public::PublicToken,
}

impl<'a> PublicFixture<'a> {
    pub(crate) fn new(origin: &'a [u8]) -> Result<Self> {
        let issuer = public::Issuer::new(pat::blind_rsa::SecretKey::generate(&mut rng())?);
        let challenge = TokenChallenge::new(2, b"issuer.example", &[], origin)?;
        let client = public::Client::from_token_key(&issuer.token_key())?;
        let (request, mut state) = client.request(&challenge, &mut rng())?;
        let request_bytes = encoded(&request)?;
        let parsed = public::TokenRequest::decode(&request_bytes)?;
        let response = issuer.evaluate(&parsed)?;
        let response_bytes = encoded(&response)?;
        let token = client.finalize(&mut state, &public::TokenResponse::decode(&response_bytes)?)?;
        let token_bytes = encoded(&token)?;
        let token = public::PublicToken::decode(&token_bytes)?;
        let origin = public::Origin::new(issuer.public_key().clone());
        origin.verify(&token, &challenge)?;
        Ok(Self { issuer, client, origin, challenge, request_bytes, response_bytes, token_bytes, token })
    }

    pub(crate) fn request(&self) -> Result<public::TokenRequest> {
        public::TokenRequest::decode(&self.request_bytes)
    }

    pub(crate) fn exchange(&self) -> Result<(public::TokenResponse, public::RequestState)> {
        let (request, state) = self.client.request(&self.challenge, &mut rng())?;
        Ok((self.issuer.evaluate(&request)?, state))
    }
}

/// The extensions of the type 0xDA7A fixture: an expiration-style entry
/// (type 0x0001, two 8-byte integers) and a geolocation hint (type 0x0002).
pub(crate) const METADATA_EXTENSIONS: [u8; 32] = [
    0, 30, 0, 1, 0, 16, 0, 0, 0, 0, 0, 0, 0, 60, 0, 0, 0, 0, 0x66, 0x00, 0, 0, 0, 2, 0, 6, 5, b'U', b'S', b'-', b'C',
    b'A',
];

/// Type 0xDA7A, with [`METADATA_EXTENSIONS`]. The issuer key has safe primes
/// (generated fresh, a few seconds).
pub(crate) struct MetadataFixture<'a> {
    pub(crate) issuer: metadata::Issuer,
    pub(crate) client: metadata::Client,
    pub(crate) origin: metadata::Origin,
    pub(crate) challenge: TokenChallenge<'a>,
    pub(crate) extensions: Extensions<'static>,
    pub(crate) request_bytes: Vec<u8>,
    pub(crate) response_bytes: Vec<u8>,
    pub(crate) token_bytes: Vec<u8>,
    pub(crate) token: metadata::MetadataToken,
}

impl<'a> MetadataFixture<'a> {
    pub(crate) fn new(origin: &'a [u8]) -> Result<Self> {
        let issuer = metadata::Issuer::new(pat::blind_rsa::SecretKey::generate_safe(&mut rng())?);
        let challenge = TokenChallenge::new(0xDA7A, b"issuer.example", &[], origin)?;
        let extensions = Extensions::decode(&METADATA_EXTENSIONS)?;
        let client = metadata::Client::from_token_key(&issuer.token_key())?;
        let (request, mut state) = client.request(&challenge, extensions, &mut rng())?;
        let request_bytes = encoded(&request)?;
        let parsed = metadata::TokenRequest::decode(&request_bytes)?;
        let response = issuer.evaluate(&parsed)?;
        let response_bytes = encoded(&response)?;
        let token = client.finalize(&mut state, &extensions, &metadata::TokenResponse::decode(&response_bytes)?)?;
        let token_bytes = encoded(&token)?;
        let token = metadata::MetadataToken::decode(&token_bytes)?;
        let origin = metadata::Origin::new(issuer.public_key().clone());
        origin.verify(&token, &challenge, &extensions)?;
        Ok(Self { issuer, client, origin, challenge, extensions, request_bytes, response_bytes, token_bytes, token })
    }

    pub(crate) fn request(&self) -> Result<metadata::TokenRequest<'_>> {
        metadata::TokenRequest::decode(&self.request_bytes)
    }

    pub(crate) fn exchange(&self) -> Result<(metadata::TokenResponse, metadata::RequestState)> {
        let (request, state) = self.client.request(&self.challenge, self.extensions, &mut rng())?;
        Ok((self.issuer.evaluate(&request)?, state))
    }
}

/// Room for a type 0xE5AC token of any limit.
pub(crate) const ARC_WIRE: usize = arc_type::TOKEN_MAX_LEN;

/// Type 0xE5AC (ARC, P-256): issuer, client, challenge and one credential
/// issued over the wire encodings; presentation states and tokens are made
/// from it for any limit.
pub(crate) struct ArcFixture<'a> {
    pub(crate) issuer: arc_type::Issuer,
    pub(crate) client: arc_type::Client,
    pub(crate) challenge: ArcChallenge<'a>,
    pub(crate) request_bytes: Vec<u8>,
    pub(crate) response_bytes: Vec<u8>,
    credential: Vec<u8>,
}

impl<'a> ArcFixture<'a> {
    pub(crate) fn new(origin: &'a [u8]) -> Result<Self> {
        let issuer = arc_type::Issuer::new(ServerPrivateKey::generate(&mut rng())?);
        let challenge = ArcChallenge::new(b"issuer.example", &[], origin, &[])?;
        let client = arc_type::Client::from_token_key(&issuer.token_key())?;
        let (state, request) = client.request(&challenge, &mut rng())?;
        let request_bytes = encoded(&request)?;
        let response = issuer.issue(&arc_type::TokenRequest::decode(&request_bytes)?, &mut rng())?;
        let response_bytes = response.to_bytes().to_vec();
        let credential = client.finalize(&state, &CredentialResponse::decode(&response_bytes)?)?.export().to_vec();
        Ok(Self { issuer, client, challenge, request_bytes, response_bytes, credential })
    }

    pub(crate) fn request(&self) -> Result<arc_type::TokenRequest> {
        arc_type::TokenRequest::decode(&self.request_bytes)
    }

    /// A fresh request answered by the issuer: what the client finalizes.
    pub(crate) fn exchange(&self) -> Result<(CredentialResponse, pat::arc::CredentialRequestState)> {
        let (state, request) = self.client.request(&self.challenge, &mut rng())?;
        Ok((self.issuer.issue(&request, &mut rng())?, state))
    }

    /// A new presentation state of `limit` for the fixture's credential.
    pub(crate) fn presentation_state(&self, limit: u64) -> Result<PresentationState> {
        self.client.presentation_state(&Credential::import(&self.credential)?, &self.challenge, limit)
    }

    /// The next token of `state`, in a fixed buffer.
    pub(crate) fn token(&self, state: &mut PresentationState) -> Result<Wire<ARC_WIRE>> {
        let mut bytes = [0u8; ARC_WIRE];
        let len = self.client.token(state, &self.challenge, &mut rng(), &mut bytes)?;
        Ok(Wire { bytes, len })
    }

    /// The issuer's check of an encoded token (the tag it returns is the
    /// double-spend key).
    pub(crate) fn verify(&self, token: &[u8], limit: u64) -> Result<[u8; 33]> {
        self.issuer.verify(&ArcToken::decode(token, limit)?, &self.challenge, limit)
    }
}

/// An amortized batch of [`BATCH`] tokens of type 0x0001 or 0x0005.
pub(crate) struct AmortizedFixture<'a, T: PrivateTokenType> {
    pub(crate) issuer: private::Issuer<T>,
    pub(crate) client: private::Client<T>,
    pub(crate) challenge: TokenChallenge<'a>,
    pub(crate) request_bytes: Vec<u8>,
    pub(crate) response_bytes: Vec<u8>,
    pub(crate) tokens: heapless::Vec<T::Token, BATCH>,
}

impl<'a, T: PrivateTokenType> AmortizedFixture<'a, T> {
    pub(crate) fn new(origin: &'a [u8]) -> Result<Self> {
        let issuer = private::Issuer::<T>::generate(&mut rng())?;
        let challenge = TokenChallenge::new(T::CODE, b"issuer.example", &[], origin)?;
        let client = issuer.client();
        let mut state = client.request_batch::<BATCH, _>(&challenge, BATCH, &mut rng())?;
        let request_bytes = encoded(&state.request())?;
        let parsed = AmortizedTokenRequest::<T>::decode(&request_bytes)?;
        let mut out = [0u8; BATCH_WIRE];
        let n = issuer.evaluate_batch::<BATCH, _>(&parsed, &mut out, &mut rng())?;
        let response_bytes = out.get(..n).ok_or(pat::Error::BufferTooSmall)?.to_vec();
        let tokens = client.finalize_batch(&mut state, &AmortizedTokenResponse::decode(&response_bytes)?)?;
        for t in &tokens {
            issuer.verify(t, &challenge)?;
        }
        Ok(Self { issuer, client, challenge, request_bytes, response_bytes, tokens })
    }

    pub(crate) fn request_batch(&self) -> Result<amortized::BatchState<T, BATCH>> {
        self.client.request_batch::<BATCH, _>(&self.challenge, BATCH, &mut rng())
    }

    pub(crate) fn request(&self) -> Result<AmortizedTokenRequest<'_, T>> {
        AmortizedTokenRequest::decode(&self.request_bytes)
    }

    /// Evaluates the encoded request `bytes` into a fixed buffer.
    pub(crate) fn evaluate(&self, bytes: &[u8]) -> Result<Wire<BATCH_WIRE>> {
        let mut bytes_out = [0u8; BATCH_WIRE];
        let len = self.issuer.evaluate_batch::<BATCH, _>(
            &AmortizedTokenRequest::decode(bytes)?,
            &mut bytes_out,
            &mut rng(),
        )?;
        Ok(Wire { bytes: bytes_out, len })
    }

    /// A fresh batch answered by the issuer: the encoded response and the state.
    pub(crate) fn exchange(&self) -> Result<(Wire<BATCH_WIRE>, amortized::BatchState<T, BATCH>)> {
        let state = self.request_batch()?;
        let request = Wire::<BATCH_WIRE>::encode(&state.request())?;
        Ok((self.evaluate(request.as_slice())?, state))
    }

    /// The client's last step, from the response bytes.
    pub(crate) fn finalize(
        &self,
        (response, mut state): (Wire<BATCH_WIRE>, amortized::BatchState<T, BATCH>),
    ) -> Result<heapless::Vec<T::Token, BATCH>> {
        self.client.finalize_batch(&mut state, &AmortizedTokenResponse::decode(response.as_slice())?)
    }
}

/// A generic batch carrying one token each of types 1, 2 and 5.
pub(crate) struct BatchedFixture {
    p384: [private::Issuer<pat::token_type::PrivateP384>; 1],
    rsa: [public::Issuer; 1],
    r255: [private::Issuer<pat::token_type::PrivateRistretto255>; 1],
    c1: private::Client<pat::token_type::PrivateP384>,
    c2: public::Client,
    c5: private::Client<pat::token_type::PrivateRistretto255>,
    challenges: [TokenChallenge<'static>; 3],
    pub(crate) request_bytes: Vec<u8>,
    pub(crate) response_bytes: Vec<u8>,
    pub(crate) token_len: usize,
}

pub(crate) type GenericBatchState<'c> = batched::BatchState<'c, 3>;

impl BatchedFixture {
    pub(crate) fn new() -> Result<Self> {
        let p384 = [private::Issuer::<pat::token_type::PrivateP384>::generate(&mut rng())?];
        let rsa = [public::Issuer::new(pat::blind_rsa::SecretKey::generate(&mut rng())?)];
        let r255 = [private::Issuer::<pat::token_type::PrivateRistretto255>::generate(&mut rng())?];
        let (c1, c2, c5) = (p384[0].client(), public::Client::new(rsa[0].public_key().clone()), r255[0].client());
        let ch = |code| TokenChallenge::new(code, b"issuer.example", &[], ORIGIN);
        let challenges = [ch(1)?, ch(2)?, ch(5)?];
        let mut f = Self {
            p384,
            rsa,
            r255,
            c1,
            c2,
            c5,
            challenges,
            request_bytes: Vec::new(),
            response_bytes: Vec::new(),
            token_len: 0,
        };
        let mut batch = f.make_batch()?;
        let request_bytes = encoded(&batch.request())?;
        let response_bytes = f.evaluate(&request_bytes)?.as_slice().to_vec();
        let tokens = batch.finalize(&GenericBatchTokenResponse::decode(&response_bytes)?)?;
        if tokens.iter().any(Option::is_none) {
            return Err(pat::Error::Verification);
        }
        let token_len = tokens.iter().flatten().map(|t| t.encoded_len()).sum();
        drop(batch);
        f.request_bytes = request_bytes;
        f.response_bytes = response_bytes;
        f.token_len = token_len;
        Ok(f)
    }

    pub(crate) fn issuer(&self) -> Result<batched::Issuer<'_>> {
        batched::Issuer::new(&self.p384, &self.rsa, &self.r255)
    }

    /// The client's three requests, one per type.
    pub(crate) fn make_batch(&self) -> Result<GenericBatchState<'_>> {
        let [ch1, ch2, ch5] = &self.challenges;
        let mut batch = GenericBatchState::new();
        batch.push(&self.c1, self.c1.request(ch1, &mut rng())?)?;
        batch.push(&self.c2, self.c2.request(ch2, &mut rng())?)?;
        batch.push(&self.c5, self.c5.request(ch5, &mut rng())?)?;
        Ok(batch)
    }

    /// The client's request step: the batch, encoded.
    pub(crate) fn request(&self) -> Result<(Wire<BATCH_WIRE>, GenericBatchState<'_>)> {
        let batch = self.make_batch()?;
        Ok((Wire::encode(&batch.request())?, batch))
    }

    /// The issuer's step, from the request bytes into a fixed buffer.
    pub(crate) fn evaluate(&self, bytes: &[u8]) -> Result<Wire<BATCH_WIRE>> {
        let parsed = GenericBatchTokenRequest::decode(bytes)?;
        let mut out = [0u8; BATCH_WIRE];
        let outcome = self.issuer()?.evaluate::<3, _>(&parsed, &mut out, &mut rng())?;
        Ok(Wire { bytes: out, len: outcome.len })
    }

    pub(crate) fn exchange(&self) -> Result<(Wire<BATCH_WIRE>, GenericBatchState<'_>)> {
        let (request, batch) = self.request()?;
        Ok((self.evaluate(request.as_slice())?, batch))
    }

    pub(crate) fn finalize(
        &self,
        (response, mut batch): (Wire<BATCH_WIRE>, GenericBatchState<'_>),
    ) -> Result<heapless::Vec<Option<batched::GenericToken>, 3>> {
        batch.finalize(&GenericBatchTokenResponse::decode(response.as_slice())?)
    }
}

/// Type 0x0003: the parties, and allocation-free steps of the flow.
pub(crate) struct RateLimitedParties {
    pub(crate) issuer: t3::Issuer<[OriginKey<'static>; 1]>,
    pub(crate) client: t3::Client,
    pub(crate) origin: t3::Origin,
    pub(crate) challenge: TokenChallenge<'static>,
    pub(crate) policy: Policy,
    pub(crate) anonymous_origin_id: [u8; 32],
    pub(crate) now: u64,
}

impl RateLimitedParties {
    fn new() -> Result<Self> {
        let challenge = TokenChallenge::new(3, b"issuer.example", &[], ORIGIN)?;
        let origin_keys = [OriginKey::new(ORIGIN, ecdsa_p384::SecretKey::random(&mut rng())?)];
        let encap = EncapSecretKey::random(0x01, &mut rng())?;
        let issuer = t3::Issuer::new(encap, t3::TokenKey::generate(&mut rng())?, origin_keys);
        let client = t3::Client::new(
            ecdsa_p384::SecretKey::random(&mut rng())?,
            *issuer.encap_key(),
            issuer.public_key().clone(),
        );
        let origin = t3::Origin::new(issuer.public_key().clone());
        let policy = Policy { max_tokens: 1000, window: 3600 };
        Ok(Self { issuer, client, origin, challenge, policy, anonymous_origin_id: [0xa5u8; 32], now: 1 })
    }

    pub(crate) fn attester(&self) -> Attester<64> {
        Attester::new(self.policy)
    }

    /// The client's request, in a fixed buffer.
    pub(crate) fn request(&self) -> Result<(Wire<T3_WIRE>, t3::ClientState)> {
        let mut bytes = [0u8; T3_WIRE];
        let (len, state) = self.client.request(&self.challenge, ORIGIN, &mut rng(), &mut bytes)?;
        Ok((Wire { bytes, len }, state))
    }

    /// The issuer's step, from the request bytes, with scratch on the stack.
    pub(crate) fn evaluate(&self, bytes: &[u8]) -> Result<t3::IssuerResponse> {
        let request = t3::TokenRequest::decode(bytes)?;
        let mut scratch = [0u8; T3_WIRE];
        let scratch = scratch.get_mut(..t3::scratch_len(&request)).ok_or(pat::Error::BufferTooSmall)?;
        self.issuer.evaluate(&request, scratch, &mut rng())
    }

    /// A fresh request answered by the issuer: what the client finalizes.
    pub(crate) fn exchange(&self) -> Result<(t3::IssuerResponse, t3::ClientState)> {
        let (request, state) = self.request()?;
        Ok((self.evaluate(request.as_slice())?, state))
    }
}

fn metadata_row(origin: &[u8]) -> Result<Row> {
    let f = MetadataFixture::new(origin)?;
    let parsed = f.request()?;
    let times = [
        median_us(RUNS, || (), |()| f.client.request(&f.challenge, f.extensions, &mut rng())),
        median_us(RUNS, || (), |()| f.issuer.evaluate(&parsed)),
        median_us(
            RUNS,
            || f.exchange(),
            |pair| pair.and_then(|(resp, mut state)| f.client.finalize(&mut state, &f.extensions, &resp)),
        ),
        median_us(RUNS, || (), |()| f.origin.verify(&f.token, &f.challenge, &f.extensions)),
    ];
    Ok(Row {
        label: format!("0xda7a {}", pat::token_type::PublicMetadataRsa2048::NAME),
        request: f.request_bytes.len(),
        response: f.response_bytes.len(),
        token: f.token_bytes.len(),
        times,
    })
}

/// Type 0x0003: client → attester → issuer → attester → client → origin.
pub(crate) struct RateLimitedFixture {
    pub(crate) parties: RateLimitedParties,
    /// A request the attester accepted, with the state (and request blind) it was made with.
    pub(crate) request_bytes: Vec<u8>,
    pub(crate) pending: t3::ClientState,
    /// The issuer's answer to `request_bytes`.
    pub(crate) response: t3::IssuerResponse,
    pub(crate) token_bytes: Vec<u8>,
    pub(crate) token: t3::RateLimitedToken,
}

impl RateLimitedFixture {
    pub(crate) fn new() -> Result<Self> {
        let p = RateLimitedParties::new()?;
        let (request, pending) = p.request()?;
        let mut attester = p.attester();
        let parsed = t3::TokenRequest::decode(request.as_slice())?;
        let client_key = p.client.client_key();
        attester.process(&parsed, client_key, pending.request_blind(), &p.anonymous_origin_id, p.now)?;
        let response = p.evaluate(request.as_slice())?;
        attester.finalize_index(
            client_key,
            pending.request_blind(),
            &response.blinded_request_key,
            &p.anonymous_origin_id,
            p.now,
        )?;
        let (fresh, mut state) = p.exchange()?;
        let token = p.client.finalize(&mut state, &fresh.encrypted_token_response)?;
        let token_bytes = encoded(&token)?;
        let token = t3::RateLimitedToken::decode(&token_bytes)?;
        p.origin.verify(&token, &p.challenge)?;
        let request_bytes = request.as_slice().to_vec();
        Ok(Self { parties: p, request_bytes, pending, response, token_bytes, token })
    }
}

// ---- the demo ----------------------------------------------------------------

/// Median wall time of `f` in microseconds over `runs` calls; each call gets
/// a fresh input from `setup`, made outside the timed region.
fn median_us<I, T>(runs: usize, mut setup: impl FnMut() -> I, mut f: impl FnMut(I) -> T) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let input = setup();
            let start = Instant::now();
            std::hint::black_box(f(input));
            start.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times.get(times.len() / 2).copied().unwrap_or_default()
}

pub(crate) fn demo() -> ExitCode {
    match run_demo() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("demo failed: {e}");
            ExitCode::FAILURE
        }
    }
}

/// One line of the demo table.
struct Row {
    label: String,
    request: usize,
    response: usize,
    token: usize,
    /// Client request, issuer evaluate, client finalize, verify (µs, medians).
    times: [f64; 4],
}

const RUNS: usize = 15;

/// Origin → client → issuer → client → origin for a privately verifiable type.
fn private_row<T: PrivateTokenType>(origin: &[u8]) -> Result<Row> {
    let f = PrivateFixture::<T>::new(origin)?;
    let parsed = f.request()?;
    let times = [
        median_us(RUNS, || (), |()| f.client.request(&f.challenge, &mut rng())),
        median_us(RUNS, || (), |()| f.issuer.evaluate(&parsed, &mut rng())),
        median_us(
            RUNS,
            || f.exchange(),
            |pair| pair.and_then(|(resp, mut state)| f.client.finalize(&mut state, &resp)),
        ),
        median_us(RUNS, || (), |()| f.issuer.verify(&f.token, &f.challenge)),
    ];
    Ok(Row {
        label: format!("0x{:04x} {}", T::CODE, T::NAME),
        request: f.request_bytes.len(),
        response: f.response_bytes.len(),
        token: f.token_bytes.len(),
        times,
    })
}

/// The same for an amortized batch of 10 tokens.
fn amortized_row<T: PrivateTokenType>(origin: &[u8]) -> Result<Row> {
    let f = AmortizedFixture::<T>::new(origin)?;
    let parsed = f.request()?;
    let token_len = f.tokens.iter().map(|t| t.encoded_len()).sum();
    let times = [
        median_us(RUNS, || (), |()| f.request_batch()),
        median_us(RUNS, || [0u8; BATCH_WIRE], |mut o| f.issuer.evaluate_batch::<BATCH, _>(&parsed, &mut o, &mut rng())),
        median_us(RUNS, || f.exchange(), |pair| pair.and_then(|p| f.finalize(p))),
        median_us(RUNS, || (), |()| f.tokens.iter().try_for_each(|t| f.issuer.verify(t, &f.challenge))),
    ];
    Ok(Row {
        label: format!("0x{:04x} amortized x{BATCH}", T::CODE),
        request: f.request_bytes.len(),
        response: f.response_bytes.len(),
        token: token_len,
        times,
    })
}

fn public_row(origin: &[u8]) -> Result<Row> {
    let f = PublicFixture::new(origin)?;
    let parsed = f.request()?;
    let times = [
        median_us(RUNS, || (), |()| f.client.request(&f.challenge, &mut rng())),
        median_us(RUNS, || (), |()| f.issuer.evaluate(&parsed)),
        median_us(
            RUNS,
            || f.exchange(),
            |pair| pair.and_then(|(resp, mut state)| f.client.finalize(&mut state, &resp)),
        ),
        median_us(RUNS, || (), |()| f.origin.verify(&f.token, &f.challenge)),
    ];
    Ok(Row {
        label: format!("0x0002 {}", pat::token_type::PublicRsa2048::NAME),
        request: f.request_bytes.len(),
        response: f.response_bytes.len(),
        token: f.token_bytes.len(),
        times,
    })
}

/// Tokens per credential in the demo's type 0xE5AC row.
const ARC_DEMO_LIMIT: u64 = 3;

/// Type 0xE5AC: one credential (request, issue, finalize), then tokens
/// redeemed up to the limit through a replay store; the next token cannot
/// be made and a replayed one is refused. Returns the row and the outcome
/// line.
fn arc_row(origin: &[u8]) -> Result<(Row, String)> {
    use pat::replay::MemoryReplayStore;
    let f = ArcFixture::new(origin)?;
    let parsed = f.request()?;
    let limit = ARC_DEMO_LIMIT;
    let mut state = f.presentation_state(limit)?;
    let mut store = MemoryReplayStore::<16>::new([0x5a; 32]);
    let (now, expires_at) = (1_700_000_000, 1_700_086_400);
    let mut first = None;
    for _ in 0..limit {
        let token = f.token(&mut state)?;
        f.issuer.redeem(
            &ArcToken::decode(token.as_slice(), limit)?,
            &f.challenge,
            limit,
            &mut store,
            expires_at,
            now,
        )?;
        first.get_or_insert(token);
    }
    let refused = match f.token(&mut state) {
        Err(pat::Error::PresentationLimitReached) => "refused (presentation limit reached)",
        _ => return Err(pat::Error::Verification),
    };
    let first = first.ok_or(pat::Error::Verification)?;
    let replay =
        f.issuer.redeem(&ArcToken::decode(first.as_slice(), limit)?, &f.challenge, limit, &mut store, expires_at, now);
    if replay != Err(pat::Error::Replayed) {
        return Err(pat::Error::Verification);
    }
    let verify_token = f.token(&mut f.presentation_state(limit)?)?;
    let times = [
        median_us(RUNS, || (), |()| f.client.request(&f.challenge, &mut rng())),
        median_us(RUNS, || (), |()| f.issuer.issue(&parsed, &mut rng())),
        median_us(RUNS, || f.exchange(), |pair| pair.and_then(|(resp, state)| f.client.finalize(&state, &resp))),
        median_us(RUNS, || (), |()| f.verify(verify_token.as_slice(), limit)),
    ];
    let line = format!(
        "0xe5ac arc: one credential, {limit} tokens redeemed; token {} {refused}; a replayed token refused (replayed)",
        limit + 1
    );
    Ok((
        Row {
            label: format!("0xe5ac arc (limit {limit})"),
            request: f.request_bytes.len(),
            response: f.response_bytes.len(),
            token: arc_type::token_len(limit)?,
            times,
        },
        line,
    ))
}

/// Type 0x0003: client → attester → issuer → attester → client → origin.
/// Returns the table row and the attester's two steps (process, finalize_index).
fn rate_limited_row() -> Result<(Row, [f64; 2])> {
    let f = RateLimitedFixture::new()?;
    let p = &f.parties;
    let request = t3::TokenRequest::decode(&f.request_bytes)?;
    let times = [
        median_us(RUNS, || (), |()| p.request()),
        median_us(RUNS, || (), |()| p.evaluate(&f.request_bytes)),
        median_us(
            RUNS,
            || p.exchange(),
            |pair| pair.and_then(|(resp, mut state)| p.client.finalize(&mut state, &resp.encrypted_token_response)),
        ),
        median_us(RUNS, || (), |()| p.origin.verify(&f.token, &p.challenge)),
    ];
    let attester = p.attester();
    let (client_key, blind) = (p.client.client_key(), f.pending.request_blind());
    let attester_times = [
        median_us(RUNS, || (), |()| attester.process(&request, client_key, blind, &p.anonymous_origin_id, p.now)),
        median_us(
            RUNS,
            || p.attester(),
            |mut a| a.finalize_index(client_key, blind, &f.response.blinded_request_key, &p.anonymous_origin_id, p.now),
        ),
    ];
    // The attester checked the request against the client key and blind it
    // was made with; `process` on another request's blind must refuse.
    let (_, other) = p.request()?;
    if attester.process(&request, client_key, other.request_blind(), &p.anonymous_origin_id, p.now).is_ok() {
        return Err(pat::Error::Verification);
    }
    Ok((
        Row {
            label: "0x0003 rate-limited (+ attester)".into(),
            request: f.request_bytes.len(),
            response: f.response.encrypted_token_response.len(),
            token: f.token_bytes.len(),
            times,
        },
        attester_times,
    ))
}

/// A generic batch carrying one token each of types 1, 2 and 5.
fn batched_row() -> Result<Row> {
    let f = BatchedFixture::new()?;
    let times = [
        median_us(RUNS, || (), |()| f.request()),
        median_us(RUNS, || (), |()| f.evaluate(&f.request_bytes)),
        median_us(RUNS, || f.exchange(), |pair| pair.and_then(|p| f.finalize(p))),
        0.0,
    ];
    Ok(Row {
        label: "generic batch (types 1, 2, 5)".into(),
        request: f.request_bytes.len(),
        response: f.response_bytes.len(),
        token: f.token_len,
        times,
    })
}

fn run_demo() -> Result<()> {
    println!("pat {} demo: origin -> client -> issuer -> client -> origin, in process\n", env!("CARGO_PKG_VERSION"));

    // The HTTP layer once: the origin's challenge header, parsed back by the client.
    let ctx = [0x42u8; 32];
    let challenge = TokenChallenge::new(TokenKind::PrivateP384.code(), b"issuer.example", &ctx, b"origin.example")?;
    let challenge_bytes = encoded(&challenge)?;
    let issuer = private::Issuer::<pat::token_type::PrivateP384>::generate(&mut rng())?;
    let mut header = [0u8; 512];
    let header = auth::write_www_authenticate(&challenge_bytes, issuer.token_key().as_ref(), Some(3600), &mut header)?;
    println!("WWW-Authenticate: {header}");
    let parsed = auth::parse_www_authenticate(header).next().ok_or(pat::Error::MalformedHeader)??;
    let mut cbuf = [0u8; 128];
    let mut kbuf = [0u8; 64];
    let decoded = TokenChallenge::decode(parsed.decode_challenge(&mut cbuf)?)?;
    let client = private::Client::<pat::token_type::PrivateP384>::from_token_key(parsed.decode_token_key(&mut kbuf)?)?;
    let (req, mut state) = client.request(&decoded, &mut rng())?;
    let token = client.finalize(&mut state, &issuer.evaluate(&req, &mut rng())?)?;
    let mut out = [0u8; 512];
    let authorization = auth::write_authorization(&encoded(&token)?, &mut out)?;
    println!("Authorization: {authorization}");
    let mut tbuf = [0u8; 256];
    let redeemed = pat::Token::<48>::decode(auth::parse_authorization(authorization)?.decode_base64url(&mut tbuf)?)?;
    issuer.verify(&redeemed, &challenge)?;
    println!("origin: token accepted\n");

    let rows = [
        private_row::<pat::token_type::PrivateP384>(ORIGIN)?,
        public_row(ORIGIN)?,
        private_row::<pat::token_type::PrivateRistretto255>(ORIGIN)?,
        amortized_row::<pat::token_type::PrivateP384>(ORIGIN)?,
        amortized_row::<pat::token_type::PrivateRistretto255>(ORIGIN)?,
        batched_row()?,
        metadata_row(ORIGIN)?,
    ];
    let (arc, arc_line) = arc_row(ORIGIN)?;
    let (t3_row, attester_times) = rate_limited_row()?;
    println!(
        "{:<36} {:>7} {:>8} {:>6}  {:>10} {:>10} {:>10} {:>10}",
        "token type", "request", "response", "token", "request", "evaluate", "finalize", "verify"
    );
    println!(
        "{:<36} {:>7} {:>8} {:>6}  {:>43}",
        "", "bytes", "bytes", "bytes", "median us, client / issuer / client / origin"
    );
    for r in rows.iter().chain([&arc, &t3_row]) {
        let t = r.times.map(|t| if t > 0.0 { format!("{t:.1}") } else { "-".into() });
        println!(
            "{:<36} {:>7} {:>8} {:>6}  {:>10} {:>10} {:>10} {:>10}",
            r.label, r.request, r.response, r.token, t[0], t[1], t[2], t[3]
        );
    }
    println!(
        "0x0003 attester: process (signature + request key check) {:.1} us, finalize_index (alias + rate limit) {:.1} us",
        attester_times[0], attester_times[1]
    );
    println!("{arc_line}");
    println!("(generic batch: verify is per type, see the rows above)");
    println!("({RUNS} runs per figure; wall time on this machine; `pat bench` and criterion for real measurements)");
    Ok(())
}
