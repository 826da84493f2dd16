//! Type 0x0002 (publicly verifiable, blind RSA): the fixture and the demo's row.

use pat::tokens::public;
use pat::wire::challenge::TokenChallenge;
use pat::wire::codec::Decode;
use pat::wire::token_type::TokenType;

use super::{RUNS, Result, Row, encoded, median_us, rng};

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
        let issuer = public::Issuer::new(pat::crypto::blind_rsa::SecretKey::generate(&mut rng())?);
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

pub(super) fn public_row(origin: &[u8]) -> Result<Row> {
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
        label: format!("0x0002 {}", pat::wire::token_type::PublicRsa2048::NAME),
        request: f.request_bytes.len(),
        response: f.response_bytes.len(),
        token: f.token_bytes.len(),
        times,
    })
}
