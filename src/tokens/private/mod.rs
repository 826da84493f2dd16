//! Token types 0x0001 and 0x0005, privately verifiable tokens with a VOPRF
//! (RFC 9578 §5; 0x0005 from draft-ietf-privacypass-batched-tokens).
//!
//! ```text
//! TokenRequest  = token_type ‖ truncated_token_key_id ‖ blinded_msg[Ne]
//! TokenResponse = evaluate_msg[Ne] ‖ evaluate_proof[Ns + Ns]
//! Token         = token_input[98] ‖ authenticator[Nh]
//! ```
//!
//! One generic implementation serves both types through [`PrivateTokenType`]:
//! [`PrivateP384`] runs VOPRF(P-384, SHA-384), [`PrivateRistretto255`] runs
//! VOPRF(ristretto255, SHA-512). The token key is the serialized VOPRF public
//! key; token_key_id is its SHA-256. Only the issuer (or an origin sharing its
//! key) can verify a token: it recomputes the PRF and compares in constant time.

use core::fmt;
use core::marker::PhantomData;

use rand_core::TryCryptoRng;
use sha2::{Digest, Sha256};

use super::{expect_type, random_nonce, truncated_key_id};
use crate::crypto::voprf::{
    self, Blind, ByteArray, Element, KeyPair, P384Sha384, Proof, PublicKey, Ristretto255Sha512, Suite,
};
use crate::error::{Error, Field, Result};
use crate::tokens::state::{self, ExportedState, Shape};
use crate::wire::challenge::TokenChallenge;
use crate::wire::codec::{Decode, Encode, Reader, Writer};
use crate::wire::token::{Token as WireToken, TokenInput};
use crate::wire::token_type::{
    KEY_ID_LEN, NONCE_LEN, PrivateP384, PrivateRistretto255, TOKEN_INPUT_LEN, TokenKind, TokenType,
};

// Deterministic variants (explicit blinds, nonces, salts): public only as
// `crate::hazmat`, used inside the crate by the power-on self-test and tests.
#[cfg_attr(not(feature = "hazmat"), allow(dead_code))]
pub(crate) mod deterministic;

mod sealed {
    pub trait Sealed {}
}

/// A privately verifiable token type: a [`TokenType`] with its VOPRF suite.
pub trait PrivateTokenType: TokenType + sealed::Sealed + Copy + fmt::Debug + Default + 'static {
    /// The VOPRF ciphersuite (RFC 9497 §4).
    type Suite: Suite;
    /// The registry entry.
    const KIND: TokenKind;
    /// The owned token, whose authenticator is the suite's PRF output.
    type Token: Clone + fmt::Debug + Eq + Encode + for<'a> Decode<'a>;
    /// The exported [`RequestState`], `[u8; RequestState::<Self>::STATE_LEN]`
    /// (see [`crate::tokens::state`]).
    type StateBytes: ByteArray;

    /// Pairs a token input with its PRF output.
    fn token(input: TokenInput, output: <Self::Suite as Suite>::Output) -> Result<Self::Token>;
    /// The token input of a token.
    fn token_input(token: &Self::Token) -> &TokenInput;
    /// The authenticator of a token.
    fn authenticator(token: &Self::Token) -> &<Self::Suite as Suite>::Output;
}

macro_rules! private_type {
    ($ty:ty, $suite:ty, $kind:expr, $nk:literal) => {
        impl sealed::Sealed for $ty {}
        impl PrivateTokenType for $ty {
            type Suite = $suite;
            const KIND: TokenKind = $kind;
            type Token = WireToken<$nk>;
            // header ‖ token_input ‖ blind ‖ blinded element.
            type StateBytes = [u8; state::HEADER_LEN + TOKEN_INPUT_LEN + <$suite as Suite>::NS + <$suite as Suite>::NE];

            fn token(input: TokenInput, output: [u8; $nk]) -> Result<WireToken<$nk>> {
                WireToken::new(input, output)
            }

            fn token_input(token: &WireToken<$nk>) -> &TokenInput {
                token.input()
            }

            fn authenticator(token: &WireToken<$nk>) -> &[u8; $nk] {
                token.authenticator()
            }
        }
    };
}

private_type!(PrivateP384, P384Sha384, TokenKind::PrivateP384, 48);
private_type!(PrivateRistretto255, Ristretto255Sha512, TokenKind::PrivateRistretto255, 64);

type ElementBytes<T> = <<T as PrivateTokenType>::Suite as Suite>::ElementBytes;
type ScalarBytes<T> = <<T as PrivateTokenType>::Suite as Suite>::ScalarBytes;
type ProofBytes<T> = <<T as PrivateTokenType>::Suite as Suite>::ProofBytes;

/// token_key_id = SHA-256(SerializeElement(pkI)) (RFC 9578 §5).
fn key_id_of(pk: &[u8]) -> [u8; KEY_ID_LEN] {
    Sha256::digest(pk).into()
}

/// TokenRequest for a privately verifiable type (RFC 9578 §5.1).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct TokenRequest<T: PrivateTokenType> {
    /// Last byte of the issuer's token key id.
    pub truncated_token_key_id: u8,
    /// The blinded element, serialized.
    pub blinded_msg: ElementBytes<T>,
}

impl<T: PrivateTokenType> fmt::Debug for TokenRequest<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenRequest")
            .field("token_type", &T::CODE)
            .field("truncated_token_key_id", &self.truncated_token_key_id)
            .finish_non_exhaustive()
    }
}

impl<'a, T: PrivateTokenType> Decode<'a> for TokenRequest<T> {
    fn decode_from(r: &mut Reader<'a>) -> Result<Self> {
        expect_type(r, T::CODE)?;
        let truncated_token_key_id = r.u8()?;
        let blinded_msg = ElementBytes::<T>::from_slice(r.take(T::Suite::NE)?).ok_or(Error::Truncated)?;
        Ok(Self { truncated_token_key_id, blinded_msg })
    }
}

impl<T: PrivateTokenType> Encode for TokenRequest<T> {
    fn encoded_len(&self) -> usize {
        2 + 1 + T::Suite::NE
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        w.u16(T::CODE)?;
        w.u8(self.truncated_token_key_id)?;
        w.put(self.blinded_msg.as_ref())
    }
}

/// TokenResponse for a privately verifiable type (RFC 9578 §5.2).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct TokenResponse<T: PrivateTokenType> {
    /// The evaluated element, serialized.
    pub evaluate_msg: ElementBytes<T>,
    /// The DLEQ proof `c ‖ s`.
    pub evaluate_proof: ProofBytes<T>,
}

impl<T: PrivateTokenType> fmt::Debug for TokenResponse<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenResponse").field("token_type", &T::CODE).finish_non_exhaustive()
    }
}

impl<'a, T: PrivateTokenType> Decode<'a> for TokenResponse<T> {
    fn decode_from(r: &mut Reader<'a>) -> Result<Self> {
        let evaluate_msg = ElementBytes::<T>::from_slice(r.take(T::Suite::NE)?).ok_or(Error::Truncated)?;
        let evaluate_proof = ProofBytes::<T>::from_slice(r.take(2 * T::Suite::NS)?).ok_or(Error::Truncated)?;
        Ok(Self { evaluate_msg, evaluate_proof })
    }
}

impl<T: PrivateTokenType> Encode for TokenResponse<T> {
    fn encoded_len(&self) -> usize {
        T::Suite::NE + 2 * T::Suite::NS
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        w.put(self.evaluate_msg.as_ref())?;
        w.put(self.evaluate_proof.as_ref())
    }
}

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
    key: PublicKey<T::Suite>,
    key_id: [u8; KEY_ID_LEN],
    _type: PhantomData<T>,
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

    fn request_for(
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

/// A type 0x0001 or 0x0005 token ([`PrivateTokenType::Token`]).
pub type Token<T> = <T as PrivateTokenType>::Token;

/// The origin of a privately verifiable token is its issuer: only the holder
/// of the VOPRF key can check a token ([`Issuer::verify`]).
pub type Origin<T> = Issuer<T>;

/// The issuer of a privately verifiable type (RFC 9578 §5.2, §5.4): evaluates
/// requests and verifies redeemed tokens.
pub struct Issuer<T: PrivateTokenType> {
    key: KeyPair<T::Suite>,
    key_id: [u8; KEY_ID_LEN],
    _type: PhantomData<T>,
}

/// The key pair's secret wipes itself on drop.
impl<T: PrivateTokenType> zeroize::ZeroizeOnDrop for Issuer<T> {}

impl<T: PrivateTokenType> fmt::Debug for Issuer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Issuer").field("token_type", &T::CODE).field("key", &self.key).finish()
    }
}

impl<T: PrivateTokenType> Issuer<T> {
    /// An issuer with the given key pair.
    pub fn new(key: KeyPair<T::Suite>) -> Self {
        let key_id = key_id_of(key.public_key().as_bytes().as_ref());
        Self { key, key_id, _type: PhantomData }
    }

    /// An issuer with a fresh random key.
    pub fn generate<R: TryCryptoRng<Error: 'static> + ?Sized>(rng: &mut R) -> Result<Self> {
        Ok(Self::new(voprf::generate_key_pair(rng)?))
    }

    /// An issuer whose key is derived from a seed and info (RFC 9497 §3.2.1).
    pub fn derive(seed: &[u8], info: &[u8]) -> Result<Self> {
        Ok(Self::new(voprf::derive_key_pair(seed, info)?))
    }

    /// The key pair.
    pub const fn key_pair(&self) -> &KeyPair<T::Suite> {
        &self.key
    }

    /// The token key to publish: the serialized public key.
    pub fn token_key(&self) -> &ElementBytes<T> {
        self.key.public_key().as_bytes()
    }

    /// The token_key_id.
    pub const fn key_id(&self) -> &[u8; KEY_ID_LEN] {
        &self.key_id
    }

    /// A client configured for this issuer.
    pub fn client(&self) -> Client<T> {
        Client { key: *self.key.public_key(), key_id: self.key_id, _type: PhantomData }
    }

    /// Evaluates a request (RFC 9578 §5.2): checks the truncated key id
    /// ([`Error::KeyIdMismatch`]) and the blinded element
    /// ([`Error::InvalidElement`]), then returns skI·B with a fresh DLEQ proof.
    pub fn evaluate<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        request: &TokenRequest<T>,
        rng: &mut R,
    ) -> Result<TokenResponse<T>> {
        if request.truncated_token_key_id != truncated_key_id(&self.key_id) {
            return Err(Error::KeyIdMismatch);
        }
        let blinded = Element::from_bytes(&request.blinded_msg)?;
        let mut evaluated = [ElementBytes::<T>::ZERO];
        let proof = voprf::blind_evaluate(&self.key, &[blinded], &mut evaluated, rng)?;
        let [evaluate_msg] = evaluated;
        Ok(TokenResponse { evaluate_msg, evaluate_proof: proof.to_bytes() })
    }

    /// Verifies a redeemed token (RFC 9578 §5.4): its type, key id and
    /// challenge digest, then recomputes the PRF output and compares it in
    /// constant time. A wrong authenticator is [`Error::Verification`].
    pub fn verify(&self, token: &T::Token, challenge: &TokenChallenge<'_>) -> Result<()> {
        let input = T::token_input(token);
        if input.kind() != T::KIND {
            return Err(Error::WrongTokenType { expected: T::CODE, found: input.kind().code() });
        }
        if challenge.token_type() != T::CODE || input.challenge_digest() != &challenge.digest() {
            return Err(Error::ChallengeMismatch);
        }
        if input.token_key_id() != &self.key_id {
            return Err(Error::KeyIdMismatch);
        }
        voprf::verify_output(self.key.secret_key(), input.as_bytes(), T::authenticator(token))
    }
}
