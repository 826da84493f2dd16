//! The client of type 0xDA7B: its request state (with the digest of the
//! extensions it asked for) and the request and finalize steps (draft §5.1,
//! §5.3).

use rand_core::TryCryptoRng;
use subtle::ConstantTimeEq;

use super::{EXTENSIONS_DIGEST_LEN, Token, TokenRequest, TokenResponse, extensions_digest, key_id_of};
use crate::crypto::voprf::poprf::{self, TweakedKey};
use crate::crypto::voprf::{Blind, ByteArray, Element, P384Sha384, Proof, PublicKey, Suite};
use crate::error::{Error, Field, Result};
use crate::tokens::state::{self, ExportedState, Shape};
use crate::tokens::{random_nonce, truncated_key_id};
use crate::wire::challenge::TokenChallenge;
use crate::wire::codec::{Reader, Writer};
use crate::wire::extensions::Extensions;
use crate::wire::token::TokenInput;
use crate::wire::token_type::{KEY_ID_LEN, NONCE_LEN, PublicMetadataP384, TOKEN_INPUT_LEN, TokenKind, TokenType};

type S = P384Sha384;

/// What the client keeps between [`Client::request`] and
/// [`Client::finalize`]: the token input, the secret blind (wiped on drop),
/// the blinded element and the SHA-256 of the extensions (the extensions
/// themselves, public and up to 64 KiB, stay with the caller). Not `Copy`;
/// `Debug` shows only the token input.
///
/// A successful finalize spends it ([`Error::StateSpent`] afterwards).
/// [`RequestState::export`] and [`RequestState::import`] keep it across a
/// reset ([`crate::tokens::state`]).
pub struct RequestState {
    input: TokenInput,
    blind: Blind<S>,
    blinded: Element<S>,
    extensions_digest: [u8; EXTENSIONS_DIGEST_LEN],
    spent: bool,
}

impl core::fmt::Debug for RequestState {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RequestState").field("input", &self.input).finish_non_exhaustive()
    }
}

/// The blind wipes itself on drop.
impl zeroize::ZeroizeOnDrop for RequestState {}

impl RequestState {
    /// The length of the exported state: 229 bytes (version, shape, token
    /// input, blind, blinded element, extensions digest).
    pub const STATE_LEN: usize = state::HEADER_LEN + TOKEN_INPUT_LEN + S::NS + S::NE + EXTENSIONS_DIGEST_LEN;

    /// The token input the request covers.
    pub const fn input(&self) -> &TokenInput {
        &self.input
    }

    /// Whether a token was finalized with this state (its blind is wiped).
    pub const fn is_spent(&self) -> bool {
        self.spent
    }

    /// The state as [`Self::STATE_LEN`] bytes, to finalize after a reset with
    /// [`Self::import`]. The bytes hold the blind: store them as a secret key
    /// ([`crate::tokens::state`]). A spent state is [`Error::StateSpent`].
    pub fn export(&self) -> Result<ExportedState<[u8; Self::STATE_LEN]>> {
        if self.spent {
            return Err(Error::StateSpent);
        }
        state::export(Shape::One, |w| self.write(w))
    }

    /// The state [`Self::export`] wrote, for `client`: it finalizes exactly
    /// as the original. Checks the length, the version, the token type, the
    /// token key id against `client`'s, the blind (canonical, non-zero) and
    /// the blinded element (canonical, not the identity), each with its own
    /// error (listed in [`crate::tokens::state`]).
    pub fn import(client: &Client, bytes: &[u8]) -> Result<Self> {
        state::import(bytes, Self::STATE_LEN, Shape::One, |r| Self::read(client, r))
    }

    /// `token_input ‖ blind ‖ blinded_element ‖ extensions_digest`.
    fn write(&self, w: &mut Writer<'_>) -> Result<()> {
        w.put(self.input.as_bytes())?;
        w.put(self.blind.to_bytes().as_ref())?;
        w.put(self.blinded.as_bytes().as_ref())?;
        w.put(&self.extensions_digest)
    }

    fn read(client: &Client, r: &mut Reader<'_>) -> Result<Self> {
        let input = state::read_input(r, TokenKind::PublicMetadataP384, client.key_id())?;
        let blind =
            zeroize::Zeroizing::new(<S as Suite>::ScalarBytes::from_slice(r.take(S::NS)?).ok_or(Error::Truncated)?);
        let blind = Blind::from_bytes(&*blind)?;
        let blinded = Element::from_slice(r.take(S::NE)?)?;
        let extensions_digest = *r.array::<EXTENSIONS_DIGEST_LEN>()?;
        Ok(Self { input, blind, blinded, extensions_digest, spent: false })
    }
}

/// The client side of type 0xDA7B (draft §5.1, §5.3).
#[derive(Clone, Copy)]
pub struct Client {
    key: PublicKey<S>,
    key_id: [u8; KEY_ID_LEN],
}

impl core::fmt::Debug for Client {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Client").field("token_type", &PublicMetadataP384::CODE).field("key", &self.key).finish()
    }
}

impl Client {
    /// A client for the issuer whose token key (the serialized P-384 public
    /// key, 49 bytes) is given.
    pub fn from_token_key(token_key: &[u8]) -> Result<Self> {
        let bytes = <S as Suite>::ElementBytes::from_slice(token_key).ok_or(Error::InvalidLength(Field::Key))?;
        Ok(Self::new(PublicKey::from_bytes(&bytes)?))
    }

    /// A client for an issuer public key.
    pub fn new(key: PublicKey<S>) -> Self {
        let key_id = key_id_of(key.as_bytes());
        Self { key, key_id }
    }

    /// The issuer public key.
    pub const fn public_key(&self) -> &PublicKey<S> {
        &self.key
    }

    /// The issuer key's token_key_id.
    pub const fn key_id(&self) -> &[u8; KEY_ID_LEN] {
        &self.key_id
    }

    pub(super) fn input(&self, challenge: &TokenChallenge<'_>, nonce: &[u8; NONCE_LEN]) -> Result<TokenInput> {
        if challenge.token_type() != PublicMetadataP384::CODE {
            return Err(Error::WrongTokenType { expected: PublicMetadataP384::CODE, found: challenge.token_type() });
        }
        Ok(TokenInput::new(TokenKind::PublicMetadataP384, nonce, &challenge.digest(), &self.key_id))
    }

    pub(super) fn request_for<'e>(
        &self,
        input: TokenInput,
        extensions: Extensions<'e>,
        (blind, blinded): (Blind<S>, Element<S>),
    ) -> (TokenRequest<'e>, RequestState) {
        let request = TokenRequest {
            truncated_token_key_id: truncated_key_id(&self.key_id),
            blinded_msg: *blinded.as_bytes(),
            extensions,
        };
        let extensions_digest = extensions_digest(&extensions);
        (request, RequestState { input, blind, blinded, extensions_digest, spent: false })
    }

    /// Builds a request for `challenge` carrying `extensions`, with a fresh
    /// nonce and blind (RFC 9497 §3.3.3 `Blind`, which also computes the
    /// tweaked key and fails if it is the identity; [`Client::finalize`]
    /// computes it again from the extensions it finalizes with, so the
    /// exported state does not carry it).
    ///
    /// Errors: [`Error::WrongTokenType`] for a challenge of another type;
    /// [`Error::InvalidLength`]`(Field::Info)` for an extensions encoding
    /// over 65535 bytes (the POPRF's `info` limit: the largest usable list is
    /// 65535 bytes with its length prefix, one extension of at most 65529
    /// bytes of data, although the Extensions format allows 65537);
    /// [`Error::InvalidElement`] for an identity tweaked key; [`Error::Rng`].
    pub fn request<'e, R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        challenge: &TokenChallenge<'_>,
        extensions: Extensions<'e>,
        rng: &mut R,
    ) -> Result<(TokenRequest<'e>, RequestState)> {
        let input = self.input(challenge, &random_nonce(rng)?)?;
        TweakedKey::new(&self.key, extensions.as_bytes())?;
        let blinded = poprf::blind_input_random(input.as_bytes(), rng)?;
        Ok(self.request_for(input, extensions, blinded))
    }

    /// Verifies the issuer's proof against the key tweaked by `extensions`,
    /// unblinds and returns the token (draft §5.3). `extensions` must be
    /// those of the request ([`Error::ExtensionsMismatch`] otherwise, checked
    /// first, after [`Error::StateSpent`] and [`Error::KeyIdMismatch`] for a
    /// state made for another key). A proof that does not verify is
    /// [`Error::Verification`] and leaves the state usable; success spends
    /// it. Other errors: [`Error::InvalidElement`] or
    /// [`Error::InvalidScalar`] for a response that does not decode,
    /// [`Error::InvalidLength`]`(Field::Info)` for extensions over 65535
    /// bytes.
    pub fn finalize(
        &self,
        state: &mut RequestState,
        extensions: &Extensions<'_>,
        response: &TokenResponse,
    ) -> Result<Token> {
        if state.spent {
            return Err(Error::StateSpent);
        }
        if state.input.token_key_id() != &self.key_id {
            return Err(Error::KeyIdMismatch);
        }
        if !bool::from(state.extensions_digest.ct_eq(&extensions_digest(extensions))) {
            return Err(Error::ExtensionsMismatch);
        }
        let tweaked = TweakedKey::new(&self.key, extensions.as_bytes())?;
        let evaluated = Element::from_bytes(&response.evaluate_msg)?;
        let proof = Proof::from_bytes(&response.evaluate_proof)?;
        let mut output = [<S as Suite>::Output::ZERO];
        poprf::finalize(
            &tweaked,
            &[state.input.as_bytes()],
            core::slice::from_ref(&state.blind),
            core::slice::from_ref(&state.blinded),
            &[evaluated],
            &proof,
            extensions.as_bytes(),
            &mut output,
        )?;
        let [output] = output;
        let token = Token::new(state.input, output)?;
        state.blind.wipe();
        state.spent = true;
        Ok(token)
    }
}
