//! The client of type 0x0002: its request state and the request and finalize
//! steps (RFC 9578 §6.1, §6.3).

use rand_core::TryCryptoRng;

use super::{PublicToken, TokenRequest, TokenResponse};
use crate::crypto::blind_rsa::{self, BlindingState, MODULUS_LEN, PublicKey};
use crate::error::Result;
use crate::tokens::blind_rsa_client::{RsaRequestState, token_input};
use crate::tokens::state::{self, ExportedState, Shape};
use crate::tokens::{random_nonce, truncated_key_id};
use crate::wire::challenge::TokenChallenge;
use crate::wire::codec::{Reader, Writer};
use crate::wire::token::TokenInput;
use crate::wire::token_type::{KEY_ID_LEN, TOKEN_INPUT_LEN, TokenKind};

/// What the client keeps between [`Client::request`] and [`Client::finalize`]:
/// the token input and the blind inverse (secret, wiped on drop). Not `Copy`;
/// `Debug` shows only the token input.
///
/// A successful [`Client::finalize`] spends the state: it wipes the blind
/// inverse, and a second finalize fails with [`Error::StateSpent`](crate::Error::StateSpent).
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
    /// [`Error::StateSpent`](crate::Error::StateSpent).
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
    pub(super) key: PublicKey,
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

    pub(super) fn input(&self, challenge: &TokenChallenge<'_>, nonce: &[u8; 32]) -> Result<TokenInput> {
        token_input(TokenKind::PublicRsa2048, challenge, nonce, self.key.key_id())
    }

    pub(super) fn request_for(
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
    /// [`Error::Verification`](crate::Error::Verification).
    ///
    /// The state is borrowed mutably, not consumed. A response that fails
    /// (corrupted on the way, or from another key) returns the error and
    /// leaves the state as it was, ready for the genuine response. Success
    /// spends it: the blind inverse is wiped, and a second finalize (or an
    /// export) fails with [`Error::StateSpent`](crate::Error::StateSpent), so one request gives one
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
