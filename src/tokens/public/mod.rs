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
use crate::crypto::blind_rsa::{self, BlindingState, MODULUS_LEN, PublicKey, SecretKey};
use crate::error::{Error, Result};
use crate::tokens::blind_rsa_client::{RsaRequestState, token_input};
use crate::tokens::state::{self, ExportedState, Shape};
use crate::wire::challenge::TokenChallenge;
use crate::wire::codec::{Decode, Encode, Reader, Writer};
use crate::wire::token::{Token as WireToken, TokenInput};
use crate::wire::token_type::{KEY_ID_LEN, PublicRsa2048, TOKEN_INPUT_LEN, TokenKind, TokenType};

// Deterministic variants (explicit blinds, nonces, salts): public only as
// `crate::hazmat`, used inside the crate by the power-on self-test and tests.
#[cfg_attr(not(feature = "hazmat"), allow(dead_code))]
pub(crate) mod deterministic;

/// A type 0x0002 token.
pub type PublicToken = WireToken<MODULUS_LEN>;

/// A type 0x0002 token, under the name every family uses (the same type as
/// [`PublicToken`]).
pub type Token = PublicToken;

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
///
/// A successful [`Client::finalize`] spends the state: it wipes the blind
/// inverse, and a second finalize fails with [`Error::StateSpent`].
///
/// To keep it across a reset, [`RequestState::export`] it to
/// [`RequestState::STATE_LEN`] bytes and [`RequestState::import`] them with
/// the same issuer's client ([`crate::tokens::state`] has the layout and the
/// rules for storing them).
pub struct RequestState {
    core: RsaRequestState,
}

impl core::fmt::Debug for RequestState {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RequestState").field("input", self.core.input()).finish_non_exhaustive()
    }
}

/// The blinding state wipes itself on drop.
impl zeroize::ZeroizeOnDrop for RequestState {}

impl RequestState {
    /// The length of the exported state: 356 bytes (version, shape, token
    /// input, blind inverse).
    pub const STATE_LEN: usize = state::HEADER_LEN + TOKEN_INPUT_LEN + MODULUS_LEN;

    /// The token input the request covers.
    pub const fn input(&self) -> &TokenInput {
        self.core.input()
    }

    /// The state as [`Self::STATE_LEN`] bytes, to finalize after a reset with
    /// [`Self::import`]. The bytes hold the blind inverse: store them as a
    /// secret key ([`crate::tokens::state`]). A spent state is
    /// [`Error::StateSpent`].
    pub fn export(&self) -> Result<ExportedState<[u8; Self::STATE_LEN]>> {
        self.core.check_unspent()?;
        state::export(Shape::One, |w| self.write(w))
    }

    /// The state [`Self::export`] wrote, for `client`: it finalizes exactly
    /// as the original. Checks the length, the version, the token type, the
    /// token key id against `client`'s and the blind inverse (in [1, n)),
    /// each with its own error (listed in [`crate::tokens::state`]).
    pub fn import(client: &Client, bytes: &[u8]) -> Result<Self> {
        state::import(bytes, Self::STATE_LEN, Shape::One, |r| Self::read(client, r))
    }

    /// `token_input ‖ inv_mont`.
    pub(crate) fn write(&self, w: &mut Writer<'_>) -> Result<()> {
        self.core.write(w)
    }

    /// Reads what [`Self::write`] wrote, for `client`.
    pub(crate) fn read(client: &Client, r: &mut Reader<'_>) -> Result<Self> {
        Ok(Self { core: RsaRequestState::read(TokenKind::PublicRsa2048, &client.key, r)? })
    }

    /// Whether a token was finalized with this state (its blind inverse is wiped).
    pub const fn is_spent(&self) -> bool {
        self.core.is_spent()
    }

    /// Wipes the blind inverse and marks the state spent.
    pub(crate) fn spend(&mut self) {
        self.core.spend();
    }
}

/// The client side of type 0x0002 (RFC 9578 §6.1, §6.3).
///
/// Flash of the client role on the device cores: docs/embedded.md.
#[derive(Clone, Debug)]
pub struct Client {
    key: PublicKey,
}

impl Client {
    /// A client for the issuer whose token key (RSASSA-PSS SPKI, 342 bytes) is given.
    ///
    /// Instructions and peak stack of this call on the device cores: docs/embedded.md.
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
        token_input(TokenKind::PublicRsa2048, challenge, nonce, self.key.key_id())
    }

    fn request_for(
        &self,
        input: TokenInput,
        blinded_msg: [u8; MODULUS_LEN],
        blinding: BlindingState,
    ) -> (TokenRequest, RequestState) {
        let request = TokenRequest { truncated_token_key_id: truncated_key_id(self.key.key_id()), blinded_msg };
        (request, RequestState { core: RsaRequestState::new(input, blinding) })
    }

    /// Builds a request for `challenge` with a fresh nonce, salt and blind.
    ///
    /// Instructions and peak stack of this call on the device cores: docs/embedded.md.
    pub fn request<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        challenge: &TokenChallenge<'_>,
        rng: &mut R,
    ) -> Result<(TokenRequest, RequestState)> {
        let input = self.input(challenge, &random_nonce(rng)?)?;
        let (blinded, blinding) = blind_rsa::blind(&self.key, input.as_bytes(), rng)?;
        Ok(self.request_for(input, blinded, blinding))
    }

    /// Unblinds the response and verifies the signature before returning the
    /// token (RFC 9578 §6.3). A signature that does not verify is
    /// [`Error::Verification`].
    ///
    /// The state is borrowed mutably, not consumed. A response that fails
    /// (corrupted on the way, or from another key) returns the error and
    /// leaves the state as it was, ready for the genuine response. Success
    /// spends it: the blind inverse is wiped, and a second finalize (or an
    /// export) fails with [`Error::StateSpent`], so one request gives one
    /// token. It is `&mut` rather than `&` because the call changes the
    /// state; a shared reference would hide that change behind interior
    /// mutability.
    ///
    /// Instructions and peak stack of this call on the device cores: docs/embedded.md.
    pub fn finalize(&self, state: &mut RequestState, response: &TokenResponse) -> Result<PublicToken> {
        state.core.finalize(|input, blinding| blind_rsa::finalize(&self.key, input, blinding, &response.blind_sig))
    }

    /// [`Client::finalize`] without spending the state (a generic batch
    /// spends its entries only once all of them finalized).
    pub(crate) fn finalize_unspent(&self, state: &RequestState, response: &TokenResponse) -> Result<PublicToken> {
        state.core.token_unspent(|input, blinding| blind_rsa::finalize(&self.key, input, blinding, &response.blind_sig))
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
    check_token_input(key, kind, token, challenge)?;
    blind_rsa::verify(key, token.input().as_bytes(), token.authenticator())
}

/// The checks of an RSA token before its signature (types 0x0002, 0x0003 and
/// 0xDA7A): its type ([`Error::WrongTokenType`]), the challenge's type and
/// digest ([`Error::ChallengeMismatch`]) and its key id
/// ([`Error::KeyIdMismatch`]).
pub(crate) fn check_token_input(
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
    Ok(())
}
