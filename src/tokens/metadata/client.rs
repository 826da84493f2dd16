//! The client of type 0xDA7A: its request state (with the digest of the
//! extensions it asked for) and the request and finalize steps.

use rand_core::TryCryptoRng;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::{EXTENSIONS_DIGEST_LEN, MetadataToken, TokenRequest, TokenResponse, VARIANT};
use crate::crypto::blind_rsa::partial::DerivedPublicKey;
use crate::crypto::blind_rsa::{BlindingState, MODULUS_LEN, PreparedMessage, PublicKey};
use crate::error::{Error, Result};
use crate::tokens::blind_rsa_client::{RsaRequestState, token_input};
use crate::tokens::state::{self, ExportedState, Shape};
use crate::tokens::{random_nonce, truncated_key_id};
use crate::wire::challenge::TokenChallenge;
use crate::wire::extensions::Extensions;
use crate::wire::token::TokenInput;
use crate::wire::token_type::{KEY_ID_LEN, TOKEN_INPUT_LEN, TokenKind};

/// SHA-256 of an extensions encoding: what a [`RequestState`] keeps of the
/// extensions, so that finalize can check that it gets the same ones.
fn extensions_digest(extensions: &Extensions<'_>) -> [u8; EXTENSIONS_DIGEST_LEN] {
    Sha256::digest(extensions.as_bytes()).into()
}

/// What the client keeps between [`Client::request`] and
/// [`Client::finalize`]: the token input, the blind inverse (secret, wiped
/// on drop) and the SHA-256 of the extensions (the extensions themselves,
/// public and up to 64 KiB, stay with the caller). Not `Copy`; `Debug`
/// shows only the token input.
///
/// A successful finalize spends it ([`Error::StateSpent`] afterwards).
/// [`RequestState::export`] and [`RequestState::import`] keep it across a
/// reset ([`crate::tokens::state`]).
pub struct RequestState {
    core: RsaRequestState,
    extensions_digest: [u8; EXTENSIONS_DIGEST_LEN],
}

impl core::fmt::Debug for RequestState {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RequestState").field("input", self.core.input()).finish_non_exhaustive()
    }
}

/// The blinding state wipes itself on drop.
impl zeroize::ZeroizeOnDrop for RequestState {}

impl RequestState {
    /// The length of the exported state: 388 bytes (version, shape, token
    /// input, blind inverse, extensions digest).
    pub const STATE_LEN: usize = state::HEADER_LEN + TOKEN_INPUT_LEN + MODULUS_LEN + EXTENSIONS_DIGEST_LEN;

    /// The token input the request covers.
    pub const fn input(&self) -> &TokenInput {
        self.core.input()
    }

    /// The state as [`Self::STATE_LEN`] bytes (a secret: see
    /// [`crate::tokens::state`]). A spent state is [`Error::StateSpent`].
    pub fn export(&self) -> Result<ExportedState<[u8; Self::STATE_LEN]>> {
        self.core.check_unspent()?;
        state::export(Shape::One, |w| {
            self.core.write(w)?;
            w.put(&self.extensions_digest)
        })
    }

    /// The state [`Self::export`] wrote, for `client`, with the checks of
    /// the type 0x0002 state.
    pub fn import(client: &Client, bytes: &[u8]) -> Result<Self> {
        state::import(bytes, Self::STATE_LEN, Shape::One, |r| {
            let core = RsaRequestState::read(TokenKind::PublicMetadataRsa2048, &client.key, r)?;
            let extensions_digest = *r.array::<EXTENSIONS_DIGEST_LEN>()?;
            Ok(Self { core, extensions_digest })
        })
    }

    /// Whether a token was finalized with this state.
    pub const fn is_spent(&self) -> bool {
        self.core.is_spent()
    }
}

/// The client side of type 0xDA7A.
#[derive(Clone, Debug)]
pub struct Client {
    pub(super) key: PublicKey,
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

    pub(super) fn input(&self, challenge: &TokenChallenge<'_>, nonce: &[u8; 32]) -> Result<TokenInput> {
        token_input(TokenKind::PublicMetadataRsa2048, challenge, nonce, self.key.key_id())
    }

    pub(super) fn request_for<'e>(
        &self,
        input: TokenInput,
        extensions: Extensions<'e>,
        blinded_msg: [u8; MODULUS_LEN],
        blinding: BlindingState,
    ) -> (TokenRequest<'e>, RequestState) {
        let request =
            TokenRequest { truncated_token_key_id: truncated_key_id(self.key.key_id()), blinded_msg, extensions };
        let extensions_digest = extensions_digest(&extensions);
        (request, RequestState { core: RsaRequestState::new(input, blinding), extensions_digest })
    }

    /// Builds a request for `challenge` carrying `extensions`, with a fresh
    /// nonce, salt and blind.
    pub fn request<'e, R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        challenge: &TokenChallenge<'_>,
        extensions: Extensions<'e>,
        rng: &mut R,
    ) -> Result<(TokenRequest<'e>, RequestState)> {
        let input = self.input(challenge, &random_nonce(rng)?)?;
        let derived: DerivedPublicKey<'_, '_> = DerivedPublicKey::new(&self.key, extensions.as_bytes())?;
        let (blinded, blinding) = derived.blind(VARIANT, &PreparedMessage::identity(input.as_bytes()), rng)?;
        Ok(self.request_for(input, extensions, blinded, blinding))
    }

    /// Unblinds the response and verifies it under the key derived for
    /// `extensions`, which must be the extensions of the request
    /// ([`Error::ExtensionsMismatch`] otherwise, checked before anything
    /// else). A signature that does not verify is [`Error::Verification`]
    /// and leaves the state usable; success spends it.
    pub fn finalize(
        &self,
        state: &mut RequestState,
        extensions: &Extensions<'_>,
        response: &TokenResponse,
    ) -> Result<MetadataToken> {
        state.core.check_unspent()?;
        if !bool::from(state.extensions_digest.ct_eq(&extensions_digest(extensions))) {
            return Err(Error::ExtensionsMismatch);
        }
        let derived: DerivedPublicKey<'_, '_> = DerivedPublicKey::new(&self.key, extensions.as_bytes())?;
        state.core.finalize(|input, blinding| {
            derived.finalize(VARIANT, &PreparedMessage::identity(input), blinding, &response.blind_sig)
        })
    }
}
