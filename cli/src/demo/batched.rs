//! The generic batch (types 1, 2 and 5 in one request): the fixture and the
//! demo's row.

use pat::tokens::batched::{self, GenericBatchTokenRequest, GenericBatchTokenResponse};
use pat::tokens::private;
use pat::tokens::public;
use pat::wire::challenge::TokenChallenge;
use pat::wire::codec::{Decode, Encode};

use super::{BATCH_WIRE, ORIGIN, RUNS, Result, Row, Wire, encoded, median_us, rng};

/// A generic batch carrying one token each of types 1, 2 and 5.
pub(crate) struct BatchedFixture {
    p384: [private::Issuer<pat::wire::token_type::PrivateP384>; 1],
    rsa: [public::Issuer; 1],
    r255: [private::Issuer<pat::wire::token_type::PrivateRistretto255>; 1],
    c1: private::Client<pat::wire::token_type::PrivateP384>,
    c2: public::Client,
    c5: private::Client<pat::wire::token_type::PrivateRistretto255>,
    challenges: [TokenChallenge<'static>; 3],
    pub(crate) request_bytes: Vec<u8>,
    pub(crate) response_bytes: Vec<u8>,
    pub(crate) token_len: usize,
}

pub(crate) type GenericBatchState<'c> = batched::BatchState<'c, 3>;

impl BatchedFixture {
    pub(crate) fn new() -> Result<Self> {
        let p384 = [private::Issuer::<pat::wire::token_type::PrivateP384>::generate(&mut rng())?];
        let rsa = [public::Issuer::new(pat::crypto::blind_rsa::SecretKey::generate(&mut rng())?)];
        let r255 = [private::Issuer::<pat::wire::token_type::PrivateRistretto255>::generate(&mut rng())?];
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

/// A generic batch carrying one token each of types 1, 2 and 5.
pub(super) fn batched_row() -> Result<Row> {
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
