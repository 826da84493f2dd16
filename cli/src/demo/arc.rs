//! Type 0xE5AC (ARC, P-256): the fixture and the demo's row, with its
//! redemption walk-through.

use pat::crypto::arc::{Credential, CredentialResponse, PresentationState, ServerPrivateKey};
use pat::tokens::arc::{self as arc_type, ArcChallenge, ArcToken};
use pat::wire::codec::Decode;

use super::{RUNS, Result, Row, Wire, encoded, median_us, rng};

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
    pub(crate) fn exchange(&self) -> Result<(CredentialResponse, pat::crypto::arc::CredentialRequestState)> {
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

/// Tokens per credential in the demo's type 0xE5AC row.
const ARC_DEMO_LIMIT: u64 = 3;

/// Type 0xE5AC: one credential (request, issue, finalize), then tokens
/// redeemed up to the limit through a replay store; the next token cannot
/// be made and a replayed one is refused. Returns the row and the outcome
/// line.
pub(super) fn arc_row(origin: &[u8]) -> Result<(Row, String)> {
    use pat::deploy::replay::MemoryReplayStore;
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
