//! Type 0xDA7A (public metadata, partially blind RSA): the fixture and the
//! demo's row.

use pat::tokens::metadata;
use pat::wire::challenge::TokenChallenge;
use pat::wire::codec::Decode;
use pat::wire::extensions::Extensions;
use pat::wire::token_type::TokenType;

use super::{RUNS, Result, Row, encoded, median_us, rng};

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
        let issuer = metadata::Issuer::new(pat::crypto::blind_rsa::SecretKey::generate_safe(&mut rng())?);
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

pub(super) fn metadata_row(origin: &[u8]) -> Result<Row> {
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
        label: format!("0xda7a {}", pat::wire::token_type::PublicMetadataRsa2048::NAME),
        request: f.request_bytes.len(),
        response: f.response_bytes.len(),
        token: f.token_bytes.len(),
        times,
    })
}
