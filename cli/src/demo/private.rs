//! Types 0x0001 and 0x0005 (privately verifiable, VOPRF): the fixture and
//! the demo's row.

use pat::tokens::private::{self, PrivateTokenType};
use pat::wire::challenge::TokenChallenge;
use pat::wire::codec::Decode;

use super::{RUNS, Result, Row, encoded, median_us, rng};

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

/// Origin → client → issuer → client → origin for a privately verifiable type.
pub(super) fn private_row<T: PrivateTokenType>(origin: &[u8]) -> Result<Row> {
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
