//! The client of types 0x0001 and 0x0005: its request state and the request and
//! finalize steps (RFC 9578 §5.1, §5.3).

use core::fmt;
use core::marker::PhantomData;

use rand_core::TryCryptoRng;

use super::{ElementBytes, PrivateTokenType, ScalarBytes, TokenRequest, TokenResponse, key_id_of};
use crate::crypto::voprf::{self, Blind, ByteArray, Element, Proof, PublicKey, Suite};
use crate::error::{Error, Field, Result};
use crate::tokens::state::{self, ExportedState, Shape};
use crate::tokens::{random_nonce, truncated_key_id};
use crate::wire::challenge::TokenChallenge;
use crate::wire::codec::{Reader, Writer};
use crate::wire::token::TokenInput;
use crate::wire::token_type::{KEY_ID_LEN, NONCE_LEN};

/// What the client keeps between [`Client::request`] and [`Client::finalize`]:
/// the token input, the secret blind (wiped on drop) and the blinded element.
/// Not `Copy`; `Debug` shows only the token input.
///
/// A successful [`Client::finalize`] spends the state: it wipes the blind,
/// and a second finalize fails with [`Error::StateSpent`].
///
/// To keep it across a reset, [`RequestState::export`] it to
/// [`RequestState::STATE_LEN`] bytes and [`RequestState::import`] them with
/// the same issuer's client ([`crate::tokens::state`] has the layout and the
/// rules for storing them).
pub struct RequestState<T: PrivateTokenType> {
    input: TokenInput,
    blind: Blind<T::Suite>,
    blinded: Element<T::Suite>,
    spent: bool,
}

impl<T: PrivateTokenType> RequestState<T> {
    /// The length of the exported state: 197 bytes for type 0x0001, 164 for
    /// type 0x0005 (version, shape, token input, blind, blinded element).
    pub const STATE_LEN: usize = <T::StateBytes as ByteArray>::LEN;

    /// The token input the request covers.
    pub const fn input(&self) -> &TokenInput {
        &self.input
    }

    /// The state as [`Self::STATE_LEN`] bytes, to finalize after a reset with
    /// [`Self::import`]. The bytes hold the blind: store them as a secret key
    /// ([`crate::tokens::state`]). A spent state is [`Error::StateSpent`].
    pub fn export(&self) -> Result<ExportedState<T::StateBytes>> {
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
    pub fn import(client: &Client<T>, bytes: &[u8]) -> Result<Self> {
        state::import(bytes, Self::STATE_LEN, Shape::One, |r| Self::read(client, r))
    }

    /// `token_input ‖ blind ‖ blinded_element`.
    pub(crate) fn write(&self, w: &mut Writer<'_>) -> Result<()> {
        w.put(self.input.as_bytes())?;
        w.put(self.blind.to_bytes().as_ref())?;
        w.put(self.blinded.as_bytes().as_ref())
    }

    /// Reads what [`Self::write`] wrote, for `client`.
    pub(crate) fn read(client: &Client<T>, r: &mut Reader<'_>) -> Result<Self> {
        let input = state::read_input(r, T::KIND, client.key_id())?;
        let blind =
            zeroize::Zeroizing::new(ScalarBytes::<T>::from_slice(r.take(T::Suite::NS)?).ok_or(Error::Truncated)?);
        let blind = Blind::from_bytes(&*blind)?;
        let blinded = Element::from_slice(r.take(T::Suite::NE)?)?;
        Ok(Self { input, blind, blinded, spent: false })
    }

    /// Whether a token was finalized with this state (its blind is wiped).
    pub const fn is_spent(&self) -> bool {
        self.spent
    }

    /// Wipes the blind and marks the state spent.
    pub(crate) fn spend(&mut self) {
        self.blind.wipe();
        self.spent = true;
    }
}

/// The blind wipes itself on drop.
impl<T: PrivateTokenType> zeroize::ZeroizeOnDrop for RequestState<T> {}

impl<T: PrivateTokenType> fmt::Debug for RequestState<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RequestState").field("input", &self.input).finish_non_exhaustive()
    }
}

/// The client side of a privately verifiable type (RFC 9578 §5.1, §5.3).
///
/// Flash of the client role on the device cores: docs/embedded.md.
#[derive(Clone, Copy)]
pub struct Client<T: PrivateTokenType> {
    pub(super) key: PublicKey<T::Suite>,
    pub(super) key_id: [u8; KEY_ID_LEN],
    pub(super) _type: PhantomData<T>,
}

impl<T: PrivateTokenType> fmt::Debug for Client<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client").field("token_type", &T::CODE).field("key", &self.key).finish()
    }
}

impl<T: PrivateTokenType> Client<T> {
    /// A client for the issuer whose token key (the serialized VOPRF public key) is given.
    ///
    /// Instructions and peak stack of this call on the device cores: docs/embedded.md.
    pub fn from_token_key(token_key: &[u8]) -> Result<Self> {
        let bytes = ElementBytes::<T>::from_slice(token_key).ok_or(Error::InvalidLength(Field::Key))?;
        Ok(Self::new(PublicKey::from_bytes(&bytes)?))
    }

    /// A client for an issuer public key.
    pub fn new(key: PublicKey<T::Suite>) -> Self {
        let key_id = key_id_of(key.as_bytes().as_ref());
        Self { key, key_id, _type: PhantomData }
    }

    /// The issuer public key.
    pub const fn public_key(&self) -> &PublicKey<T::Suite> {
        &self.key
    }

    /// The issuer key's token_key_id.
    pub const fn key_id(&self) -> &[u8; KEY_ID_LEN] {
        &self.key_id
    }

    pub(crate) fn input(&self, challenge: &TokenChallenge<'_>, nonce: &[u8; NONCE_LEN]) -> Result<TokenInput> {
        if challenge.token_type() != T::CODE {
            return Err(Error::WrongTokenType { expected: T::CODE, found: challenge.token_type() });
        }
        Ok(TokenInput::new(T::KIND, nonce, &challenge.digest(), &self.key_id))
    }

    pub(super) fn request_for(
        &self,
        input: TokenInput,
        (blind, blinded): (Blind<T::Suite>, Element<T::Suite>),
    ) -> (TokenRequest<T>, RequestState<T>) {
        let request =
            TokenRequest { truncated_token_key_id: truncated_key_id(&self.key_id), blinded_msg: *blinded.as_bytes() };
        (request, RequestState { input, blind, blinded, spent: false })
    }

    /// Builds a request for `challenge` with a fresh nonce and blind.
    ///
    /// Instructions and peak stack of this call on the device cores: docs/embedded.md.
    pub fn request<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        challenge: &TokenChallenge<'_>,
        rng: &mut R,
    ) -> Result<(TokenRequest<T>, RequestState<T>)> {
        let input = self.input(challenge, &random_nonce(rng)?)?;
        Ok(self.request_for(input, voprf::blind(input.as_bytes(), rng)?))
    }

    /// Verifies the issuer's proof, unblinds and returns the token
    /// (RFC 9578 §5.3). A bad proof is [`Error::Verification`].
    ///
    /// The state is borrowed mutably, not consumed. A response that fails
    /// (corrupted on the way, or from another key) returns the error and
    /// leaves the state as it was, ready for the genuine response. Success
    /// spends it: the blind is wiped, and a second finalize (or an export)
    /// fails with [`Error::StateSpent`], so one request gives one token. It is
    /// `&mut` rather than `&` because the call changes the state; a shared
    /// reference would hide that change behind interior mutability.
    ///
    /// Instructions and peak stack of this call on the device cores: docs/embedded.md.
    pub fn finalize(&self, state: &mut RequestState<T>, response: &TokenResponse<T>) -> Result<T::Token> {
        let token = self.finalize_unspent(state, response)?;
        state.spend();
        Ok(token)
    }

    /// The request `state` was made for (a generic batch restored from its
    /// export).
    pub(crate) fn request_of(&self, state: &RequestState<T>) -> TokenRequest<T> {
        TokenRequest { truncated_token_key_id: truncated_key_id(&self.key_id), blinded_msg: *state.blinded.as_bytes() }
    }

    /// [`Client::finalize`] without spending the state (a generic batch
    /// spends its entries only once all of them finalized).
    pub(crate) fn finalize_unspent(&self, state: &RequestState<T>, response: &TokenResponse<T>) -> Result<T::Token> {
        if state.spent {
            return Err(Error::StateSpent);
        }
        let evaluated = Element::from_bytes(&response.evaluate_msg)?;
        let proof = Proof::from_bytes(&response.evaluate_proof)?;
        let mut output = [<T::Suite as Suite>::Output::ZERO];
        voprf::finalize(
            &self.key,
            &[state.input.as_bytes()],
            core::slice::from_ref(&state.blind),
            core::slice::from_ref(&state.blinded),
            &[evaluated],
            &proof,
            &mut output,
        )?;
        let [output] = output;
        T::token(state.input, output)
    }
}
