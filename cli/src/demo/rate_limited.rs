//! Type 0x0003 (rate-limited, with the attester): the parties, the fixture
//! and the demo's row.

use pat::crypto::key_blinding::ecdsa_p384;
use pat::crypto::rate_limited::encap::EncapSecretKey;
use pat::tokens::rate_limited::{self as t3, Attester, OriginKey, Policy};
use pat::wire::challenge::TokenChallenge;
use pat::wire::codec::Decode;

use super::{ORIGIN, RUNS, Result, Row, Wire, encoded, median_us, rng};

/// Room for a type-3 request (520 bytes for [`ORIGIN`]) and the issuer's scratch.
pub(crate) const T3_WIRE: usize = 1024;

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

/// Type 0x0003: client → attester → issuer → attester → client → origin.
/// Returns the table row and the attester's two steps (process, finalize_index).
pub(super) fn rate_limited_row() -> Result<(Row, [f64; 2])> {
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
