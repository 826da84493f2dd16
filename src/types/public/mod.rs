//! Token type 0x0002, publicly verifiable tokens with blind RSA (RFC 9578 §6).
//!
//! ```text
//! TokenRequest  = token_type (0x0002) ‖ truncated_token_key_id ‖ blinded_msg[256]
//! TokenResponse = blind_sig[256]
//! Token         = token_input[98] ‖ authenticator[256]
//! ```
//!
//! The token key is the issuer's RSA-2048 public key in the RSASSA-PSS SPKI
//! encoding; token_key_id is its SHA-256. The issuer signs with CRT in constant
//! time and checks the signature before releasing it; the client unblinds and
//! verifies before it returns a token; any origin verifies with the public key.

use rand_core::TryCryptoRng;

use super::{expect_type, random_nonce, truncated_key_id};
use crate::blind_rsa::{self, BlindingState, MODULUS_LEN, PublicKey, SecretKey};
use crate::challenge::TokenChallenge;
use crate::codec::{Decode, Encode, Reader, Writer};
use crate::error::{Error, Result};
use crate::token::{Token, TokenInput};
use crate::token_type::{KEY_ID_LEN, PublicRsa2048, TokenKind, TokenType};

#[cfg(feature = "hazmat")]
pub mod hazmat;
// Without the feature the deterministic entry points stay inside the crate,
// for the power-on self-test (`crate::self_test`).
#[cfg(not(feature = "hazmat"))]
#[allow(dead_code)]
pub(crate) mod hazmat;

/// A type 0x0002 token.
pub type PublicToken = Token<MODULUS_LEN>;

/// TokenRequest for type 0x0002 (RFC 9578 §6.1).
#[derive(Clone, PartialEq, Eq)]
pub struct TokenRequest {
    /// Last byte of the issuer's token key id.
    pub truncated_token_key_id: u8,
    /// The blinded PSS-encoded token input.
    pub blinded_msg: [u8; MODULUS_LEN],
}

impl core::fmt::Debug for TokenRequest {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TokenRequest")
            .field("truncated_token_key_id", &self.truncated_token_key_id)
            .finish_non_exhaustive()
    }
}

impl<'a> Decode<'a> for TokenRequest {
    fn decode_from(r: &mut Reader<'a>) -> Result<Self> {
        expect_type(r, PublicRsa2048::CODE)?;
        Ok(Self { truncated_token_key_id: r.u8()?, blinded_msg: *r.array()? })
    }
}

impl Encode for TokenRequest {
    fn encoded_len(&self) -> usize {
        2 + 1 + MODULUS_LEN
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        w.u16(PublicRsa2048::CODE)?;
        w.u8(self.truncated_token_key_id)?;
        w.put(&self.blinded_msg)
    }
}

/// TokenResponse for type 0x0002 (RFC 9578 §6.2): the blind signature.
#[derive(Clone, PartialEq, Eq)]
pub struct TokenResponse {
    /// The blind signature.
    pub blind_sig: [u8; MODULUS_LEN],
}

impl core::fmt::Debug for TokenResponse {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TokenResponse").finish_non_exhaustive()
    }
}

impl<'a> Decode<'a> for TokenResponse {
    fn decode_from(r: &mut Reader<'a>) -> Result<Self> {
        Ok(Self { blind_sig: *r.array()? })
    }
}

impl Encode for TokenResponse {
    fn encoded_len(&self) -> usize {
        MODULUS_LEN
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        w.put(&self.blind_sig)
    }
}

/// What the client keeps between [`Client::request`] and [`Client::finalize`]:
/// the token input and the blind inverse (secret, wiped on drop). Not `Copy`;
/// `Debug` shows only the token input.
pub struct RequestState {
    input: TokenInput,
    blinding: BlindingState,
}

impl core::fmt::Debug for RequestState {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RequestState").field("input", &self.input).finish_non_exhaustive()
    }
}

/// The blinding state wipes itself on drop.
impl zeroize::ZeroizeOnDrop for RequestState {}

impl RequestState {
    /// The token input the request covers.
    pub const fn input(&self) -> &TokenInput {
        &self.input
    }
}

/// The client side of type 0x0002 (RFC 9578 §6.1, §6.3).
#[derive(Clone, Debug)]
pub struct Client {
    key: PublicKey,
}

impl Client {
    /// A client for the issuer whose token key (RSASSA-PSS SPKI, 342 bytes) is given.
    pub fn from_token_key(spki: &[u8]) -> Result<Self> {
        Ok(Self { key: PublicKey::from_spki(spki)? })
    }

    /// A client for an issuer public key.
    pub const fn new(key: PublicKey) -> Self {
        Self { key }
    }

    /// The issuer key's token_key_id.
    pub const fn key_id(&self) -> &[u8; KEY_ID_LEN] {
        self.key.key_id()
    }

    fn input(&self, challenge: &TokenChallenge<'_>, nonce: &[u8; 32]) -> Result<TokenInput> {
        if challenge.token_type() != PublicRsa2048::CODE {
            return Err(Error::WrongTokenType { expected: PublicRsa2048::CODE, found: challenge.token_type() });
        }
        Ok(TokenInput::new(TokenKind::PublicRsa2048, nonce, &challenge.digest(), self.key.key_id()))
    }

    fn request_for(
        &self,
        input: TokenInput,
        blinded_msg: [u8; MODULUS_LEN],
        blinding: BlindingState,
    ) -> (TokenRequest, RequestState) {
        let request = TokenRequest { truncated_token_key_id: truncated_key_id(self.key.key_id()), blinded_msg };
        (request, RequestState { input, blinding })
    }

    /// Builds a request for `challenge` with a fresh nonce, salt and blind.
    pub fn request<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        challenge: &TokenChallenge<'_>,
        rng: &mut R,
    ) -> Result<(TokenRequest, RequestState)> {
        let input = self.input(challenge, &random_nonce(rng)?)?;
        let (blinded, blinding) = blind_rsa::blind(&self.key, input.as_bytes(), rng)?;
        Ok(self.request_for(input, blinded, blinding))
    }

    /// Unblinds the response and verifies the signature before returning the token.
    pub fn finalize(&self, state: RequestState, response: &TokenResponse) -> Result<PublicToken> {
        let RequestState { input, blinding } = state;
        let sig = blind_rsa::finalize(&self.key, input.as_bytes(), blinding, &response.blind_sig)?;
        Token::new(input, sig)
    }
}

/// The issuer side of type 0x0002 (RFC 9578 §6.2). Not `Copy`; `Debug`
/// shows only the public key.
pub struct Issuer {
    key: SecretKey,
}

impl core::fmt::Debug for Issuer {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Issuer").field("public_key", self.key.public_key()).finish_non_exhaustive()
    }
}

/// The RSA key wipes itself on drop.
impl zeroize::ZeroizeOnDrop for Issuer {}

impl Issuer {
    /// An issuer with the given private key.
    pub const fn new(key: SecretKey) -> Self {
        Self { key }
    }

    /// The public key.
    pub const fn public_key(&self) -> &PublicKey {
        self.key.public_key()
    }

    /// The token key to publish: the 342-byte RSASSA-PSS SPKI.
    pub fn token_key(&self) -> [u8; 342] {
        self.key.public_key().to_spki_array()
    }

    /// The token_key_id.
    pub const fn key_id(&self) -> &[u8; KEY_ID_LEN] {
        self.key.public_key().key_id()
    }

    /// Signs a request: checks its truncated key id against this key
    /// ([`Error::KeyIdMismatch`]) and that the blinded message is below the
    /// modulus, then signs in constant time and checks the signature.
    pub fn evaluate(&self, request: &TokenRequest) -> Result<TokenResponse> {
        if request.truncated_token_key_id != truncated_key_id(self.key_id()) {
            return Err(Error::KeyIdMismatch);
        }
        Ok(TokenResponse { blind_sig: blind_rsa::blind_sign(&self.key, &request.blinded_msg)? })
    }
}

/// Origin verification for type 0x0002 (RFC 9578 §6.4).
#[derive(Clone, Debug)]
pub struct Origin {
    key: PublicKey,
}

impl Origin {
    /// An origin trusting the issuer with this public key.
    pub const fn new(key: PublicKey) -> Self {
        Self { key }
    }

    /// The issuer public key.
    pub const fn public_key(&self) -> &PublicKey {
        &self.key
    }

    /// The issuer key's token_key_id.
    pub const fn key_id(&self) -> &[u8; KEY_ID_LEN] {
        self.key.key_id()
    }

    /// Verifies a token: its type, its key id against the issuer key, the
    /// challenge digest against the challenge the origin sent, then the
    /// RSASSA-PSS signature. Mismatches are typed errors; a bad signature is
    /// [`Error::Verification`].
    pub fn verify(&self, token: &PublicToken, challenge: &TokenChallenge<'_>) -> Result<()> {
        verify_token(&self.key, TokenKind::PublicRsa2048, token, challenge)
    }
}

/// Shared by types 0x0002 and 0x0003, whose tokens are both RSA-PSS signatures.
pub(crate) fn verify_token(
    key: &PublicKey,
    kind: TokenKind,
    token: &PublicToken,
    challenge: &TokenChallenge<'_>,
) -> Result<()> {
    let input = token.input();
    if input.kind() != kind {
        return Err(Error::WrongTokenType { expected: kind.code(), found: input.kind().code() });
    }
    if challenge.token_type() != kind.code() || input.challenge_digest() != &challenge.digest() {
        return Err(Error::ChallengeMismatch);
    }
    if input.token_key_id() != key.key_id() {
        return Err(Error::KeyIdMismatch);
    }
    blind_rsa::verify(key, input.as_bytes(), token.authenticator())
}
