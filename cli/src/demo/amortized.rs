//! Amortized batches of types 0x0001 and 0x0005: the fixture and the demo's row.

use pat::tokens::amortized::{self, AmortizedTokenRequest, AmortizedTokenResponse};
use pat::tokens::private::{self, PrivateTokenType};
use pat::wire::challenge::TokenChallenge;
use pat::wire::codec::{Decode, Encode};

use super::{BATCH_WIRE, RUNS, Result, Row, Wire, encoded, median_us, rng};

/// Tokens per amortized batch.
pub(crate) const BATCH: usize = 10;

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

/// The same for an amortized batch of 10 tokens.
pub(super) fn amortized_row<T: PrivateTokenType>(origin: &[u8]) -> Result<Row> {
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
