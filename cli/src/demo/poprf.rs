//! Type 0xDA7B (public metadata, POPRF(P-384, SHA-384)): the fixture and the
//! demo's row.

use pat::tokens::poprf;
use pat::wire::challenge::TokenChallenge;
use pat::wire::codec::Decode;
use pat::wire::extensions::Extensions;

use super::{METADATA_EXTENSIONS, RUNS, Result, Row, encoded, median_us, rng};

/// Type 0xDA7B, with the extensions of the type 0xDA7A fixture
/// ([`METADATA_EXTENSIONS`]). The issuer is also the origin.
pub(crate) struct PoprfFixture<'a> {
    pub(crate) issuer: poprf::Issuer,
    pub(crate) client: poprf::Client,
    pub(crate) challenge: TokenChallenge<'a>,
    pub(crate) extensions: Extensions<'static>,
    pub(crate) request_bytes: Vec<u8>,
    pub(crate) response_bytes: Vec<u8>,
    pub(crate) token_bytes: Vec<u8>,
    pub(crate) token: poprf::Token,
}

impl<'a> PoprfFixture<'a> {
    pub(crate) fn new(origin: &'a [u8]) -> Result<Self> {
        let issuer = poprf::Issuer::generate(&mut rng())?;
        let challenge = TokenChallenge::new(0xDA7B, b"issuer.example", &[], origin)?;
        let extensions = Extensions::decode(&METADATA_EXTENSIONS)?;
        // The client learns the key from its wire form, as it would from the issuer directory.
        let client = poprf::Client::from_token_key(issuer.token_key())?;
        let (request, mut state) = client.request(&challenge, extensions, &mut rng())?;
        let request_bytes = encoded(&request)?;
        let parsed = poprf::TokenRequest::decode(&request_bytes)?;
        let response = issuer.evaluate(&parsed, &mut rng())?;
        let response_bytes = encoded(&response)?;
        let token = client.finalize(&mut state, &extensions, &poprf::TokenResponse::decode(&response_bytes)?)?;
        let token_bytes = encoded(&token)?;
        let token = poprf::Token::decode(&token_bytes)?;
        issuer.verify(&token, &challenge, &extensions)?;
        Ok(Self { issuer, client, challenge, extensions, request_bytes, response_bytes, token_bytes, token })
    }

    /// The fixture's request, parsed.
    pub(crate) fn request(&self) -> Result<poprf::TokenRequest<'_>> {
        poprf::TokenRequest::decode(&self.request_bytes)
    }

    /// A fresh request answered by the issuer: what the client finalizes.
    pub(crate) fn exchange(&self) -> Result<(poprf::TokenResponse, poprf::RequestState)> {
        let (request, state) = self.client.request(&self.challenge, self.extensions, &mut rng())?;
        Ok((self.issuer.evaluate(&request, &mut rng())?, state))
    }
}

pub(super) fn poprf_row(origin: &[u8]) -> Result<Row> {
    let f = PoprfFixture::new(origin)?;
    let parsed = f.request()?;
    let times = [
        median_us(RUNS, || (), |()| f.client.request(&f.challenge, f.extensions, &mut rng())),
        median_us(RUNS, || (), |()| f.issuer.evaluate(&parsed, &mut rng())),
        median_us(
            RUNS,
            || f.exchange(),
            |pair| pair.and_then(|(resp, mut state)| f.client.finalize(&mut state, &f.extensions, &resp)),
        ),
        median_us(RUNS, || (), |()| f.issuer.verify(&f.token, &f.challenge, &f.extensions)),
    ];
    // The type's name (`PublicMetadataP384::NAME`) is too long for the
    // table's first column; this is RFC 9497's name of the suite and mode.
    Ok(Row {
        label: "0xda7b POPRF(P-384, SHA-384)".into(),
        request: f.request_bytes.len(),
        response: f.response_bytes.len(),
        token: f.token_bytes.len(),
        times,
    })
}
