//! Type 0xC07E (ATHM(P-256), hidden metadata): the fixture and the demo's
//! row.

use pat::crypto::athm::{Params, PrivateKey, TokenResponse};
use pat::deploy::replay::MemoryReplayStore;
use pat::tokens::athm;
use pat::wire::codec::Decode;

use super::{RUNS, Result, Row, encoded, median_us, rng};

/// The number of hidden values of the demo's deployment.
pub(crate) const ATHM_BUCKETS: usize = 4;
/// The demo deployment's id.
const DEPLOYMENT: &[u8] = b"pat demo";

/// Type 0xC07E with 4 buckets: an issuer (also the origin), a client that
/// loaded its published key, and one completed issuance hiding the value 2.
pub(crate) struct AthmFixture {
    pub(crate) issuer: athm::Issuer<'static, ATHM_BUCKETS>,
    pub(crate) client: athm::Client<'static, ATHM_BUCKETS>,
    pub(crate) request_bytes: Vec<u8>,
    pub(crate) response_bytes: Vec<u8>,
    pub(crate) token: athm::Token,
}

impl AthmFixture {
    pub(crate) fn new() -> Result<Self> {
        let params = Params::<ATHM_BUCKETS>::new(DEPLOYMENT)?;
        let issuer = athm::Issuer::new(params, PrivateKey::generate(&params, &mut rng())?.0)?;
        let client = athm::Client::from_token_key(params, &issuer.token_key())?;
        let (state, request) = client.request(&mut rng())?;
        let request_bytes = encoded(&request)?;
        let response = issuer.issue(&athm::TokenRequest::decode(&request_bytes)?, 2, &mut rng())?;
        let mut response_bytes = vec![0u8; TokenResponse::<ATHM_BUCKETS>::LEN];
        response.encode(&mut response_bytes)?;
        let token = client.finalize(&state, &TokenResponse::from_bytes(&response_bytes)?, &mut rng())?;
        let token = athm::Token::decode(&encoded(&token)?)?;
        Ok(Self { issuer, client, request_bytes, response_bytes, token })
    }

    /// The fixture's request, parsed.
    pub(crate) fn request(&self) -> Result<athm::TokenRequest> {
        athm::TokenRequest::decode(&self.request_bytes)
    }

    /// A fresh request answered by the issuer (hiding 1): what the client
    /// finalizes.
    pub(crate) fn exchange(&self) -> Result<(TokenResponse<ATHM_BUCKETS>, athm::RequestState)> {
        let (state, request) = self.client.request(&mut rng())?;
        Ok((self.issuer.issue(&request, 1, &mut rng())?, state))
    }

    /// A token hiding `value`.
    pub(crate) fn token_hiding(&self, value: u8) -> Result<athm::Token> {
        let (state, request) = self.client.request(&mut rng())?;
        let response = self.issuer.issue(&request, value, &mut rng())?;
        self.client.finalize(&state, &response, &mut rng())
    }
}

/// The row and a line: one token per hidden value, each read back by the
/// issuer at redemption; the client's tokens look alike; a replay refused.
pub(super) fn athm_row() -> Result<(Row, String)> {
    let f = AthmFixture::new()?;
    let parsed = f.request()?;
    let mut store = MemoryReplayStore::<16>::new([0xa7; 32]);
    let (now, expires_at) = (1_700_000_000, 1_700_003_600);
    let mut read_back = Vec::new();
    let mut first = None;
    for value in (0u8..).take(ATHM_BUCKETS) {
        let token = f.token_hiding(value)?;
        let wire = encoded(&token)?;
        // What the client holds: 132 bytes whose t, P, Q are uniformly random
        // whatever the value (it saw only a proof that it is one of four).
        read_back.push(f.issuer.redeem(&athm::Token::decode(&wire)?, &mut store, expires_at, now)?);
        first.get_or_insert(token);
    }
    if read_back.iter().copied().ne((0u8..).take(ATHM_BUCKETS)) {
        return Err(pat::Error::Verification);
    }
    let first = first.ok_or(pat::Error::Verification)?;
    if f.issuer.redeem(&first, &mut store, expires_at, now) != Err(pat::Error::Replayed) {
        return Err(pat::Error::Verification);
    }
    let times = [
        median_us(RUNS, || (), |()| f.client.request(&mut rng())),
        median_us(RUNS, || (), |()| f.issuer.issue(&parsed, 3, &mut rng())),
        median_us(
            RUNS,
            || f.exchange(),
            |pair| pair.and_then(|(resp, state)| f.client.finalize(&state, &resp, &mut rng())),
        ),
        median_us(RUNS, || (), |()| f.issuer.verify(&f.token)),
    ];
    let line = format!(
        "0xc07e athm: the issuer hid {read_back:?} in {ATHM_BUCKETS} tokens and read them back at redemption; the client saw only a proof that each is one of {ATHM_BUCKETS}; a replayed token refused (replayed)"
    );
    Ok((
        Row {
            label: format!("0xc07e athm ({ATHM_BUCKETS} buckets)"),
            request: f.request_bytes.len(),
            response: f.response_bytes.len(),
            token: athm::TOKEN_LEN,
            times,
        },
        line,
    ))
}
