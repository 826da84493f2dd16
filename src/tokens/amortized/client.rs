//! The client of an amortized batch: its batch state and the batch request and
//! finalize methods of `private::Client`.

use core::fmt;

use heapless::Vec;
use rand_core::TryCryptoRng;

use super::{AmortizedTokenResponse, Client, MAX_BATCH, Output, ScalarBytes};
use crate::crypto::voprf::{self, Blind, ByteArray, Element, Proof, Suite};
use crate::error::{Error, Field, Result};
use crate::tokens::private::PrivateTokenType;
use crate::tokens::state::{self, ExportedState, Shape};
use crate::tokens::{random_nonce, truncated_key_id};
use crate::wire::challenge::TokenChallenge;
use crate::wire::codec::{Encode, Writer, varint_len};
use crate::wire::token::TokenInput;
use crate::wire::token_type::{CHALLENGE_DIGEST_LEN, KEY_ID_LEN, NONCE_LEN};

/// The client's secrets for a batch of up to `N` tokens: the token inputs,
/// the blinds (wiped on drop) and the blinded elements. Its
/// [`BatchState::request`] is the message to send.
///
/// A successful [`Client::finalize_batch`] spends the state: it wipes the
/// blinds, and a second finalize fails with [`Error::StateSpent`].
///
/// To keep it across a reset, [`BatchState::export`] it to
/// [`BatchState::STATE_LEN`] bytes and [`BatchState::import`] them with the
/// same issuer's client ([`crate::tokens::state`] has the layout and the rules
/// for storing them).
pub struct BatchState<T: PrivateTokenType, const N: usize> {
    truncated_token_key_id: u8,
    inputs: Vec<TokenInput, N>,
    blinds: Vec<Blind<T::Suite>, N>,
    blinded: Vec<Element<T::Suite>, N>,
    spent: bool,
}

impl<T: PrivateTokenType, const N: usize> Drop for BatchState<T, N> {
    fn drop(&mut self) {
        crate::tokens::wipe_vec(&mut self.inputs);
        crate::tokens::wipe_vec(&mut self.blinds);
        crate::tokens::wipe_vec(&mut self.blinded);
    }
}

/// Every blind wipes itself on drop; then the whole storage is zeroed.
impl<T: PrivateTokenType, const N: usize> zeroize::ZeroizeOnDrop for BatchState<T, N> {}

impl<T: PrivateTokenType, const N: usize> fmt::Debug for BatchState<T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BatchState")
            .field("token_type", &T::CODE)
            .field("len", &self.inputs.len())
            .finish_non_exhaustive()
    }
}

impl<T: PrivateTokenType, const N: usize> BatchState<T, N> {
    /// The token inputs, in request order.
    pub fn inputs(&self) -> &[TokenInput] {
        &self.inputs
    }

    /// The request to send to the issuer.
    pub fn request(&self) -> BatchRequest<'_, T, N> {
        BatchRequest { state: self }
    }

    /// Whether the batch's tokens were finalized with this state (its blinds
    /// are wiped).
    pub const fn is_spent(&self) -> bool {
        self.spent
    }

    /// One token's part of the export: nonce, challenge digest, blind and
    /// blinded element.
    const ENTRY_LEN: usize = NONCE_LEN + CHALLENGE_DIGEST_LEN + T::Suite::NS + T::Suite::NE;

    /// The length of the exported state, whatever the number of tokens in
    /// it: 38 + `N`·161 bytes for type 0x0001, 38 + `N`·128 for type 0x0005
    /// (version, shape, token type, token key id, count, `N` entries).
    pub const STATE_LEN: usize = state::HEADER_LEN + 2 + KEY_ID_LEN + 2 + N * Self::ENTRY_LEN;

    /// The state as [`Self::STATE_LEN`] bytes, to finalize after a reset with
    /// [`Self::import`]. `L` must be [`Self::STATE_LEN`] (checked when the
    /// call is compiled):
    /// `state.export::<{ BatchState::<PrivateP384, 4>::STATE_LEN }>()`. The
    /// bytes hold the blinds: store them as a secret key
    /// ([`crate::tokens::state`]). A spent state is [`Error::StateSpent`].
    pub fn export<const L: usize>(&self) -> Result<ExportedState<[u8; L]>> {
        const { assert!(L == Self::STATE_LEN, "L must be BatchState::<T, N>::STATE_LEN") };
        if self.spent {
            return Err(Error::StateSpent);
        }
        let first = self.inputs.first().ok_or(Error::InvalidLength(Field::Batch))?;
        let count = u16::try_from(self.inputs.len()).map_err(|_| Error::InvalidLength(Field::Batch))?;
        state::export(Shape::Amortized, |w| {
            w.u16(T::CODE)?;
            w.put(first.token_key_id())?;
            w.u16(count)?;
            for ((input, blind), blinded) in self.inputs.iter().zip(&self.blinds).zip(&self.blinded) {
                w.put(input.nonce())?;
                w.put(input.challenge_digest())?;
                w.put(blind.to_bytes().as_ref())?;
                w.put(blinded.as_bytes().as_ref())?;
            }
            // The unused entries stay zero.
            w.reserve(N.saturating_sub(self.inputs.len()) * Self::ENTRY_LEN).map(drop)
        })
    }

    /// The state [`Self::export`] wrote, for `client`: it finalizes exactly
    /// as the original. Checks the length, the version, the token type, the
    /// token key id against `client`'s, the count (1 to `N`), every blind
    /// (canonical, non-zero) and blinded element (canonical, not the
    /// identity), and that the unused entries are zero, each with its own
    /// error (listed in [`crate::tokens::state`]).
    pub fn import(client: &Client<T>, bytes: &[u8]) -> Result<Self> {
        state::import(bytes, Self::STATE_LEN, Shape::Amortized, |r| {
            state::check_type(T::KIND, r.u16()?)?;
            if r.array::<KEY_ID_LEN>()? != client.key_id() {
                return Err(Error::KeyIdMismatch);
            }
            let count = usize::from(r.u16()?);
            if count == 0 || count > N {
                return Err(Error::InvalidValue(Field::State));
            }
            let mut batch = client.batch_state::<N>(count)?;
            for _ in 0..count {
                let input = TokenInput::new(T::KIND, r.array()?, r.array()?, client.key_id());
                let blind = zeroize::Zeroizing::new(
                    ScalarBytes::<T>::from_slice(r.take(T::Suite::NS)?).ok_or(Error::Truncated)?,
                );
                let blind = Blind::from_bytes(&*blind)?;
                let blinded = Element::from_slice(r.take(T::Suite::NE)?)?;
                Client::push(&mut batch, input, (blind, blinded))?;
            }
            state::read_zeros(r, (N - count) * Self::ENTRY_LEN)?;
            Ok(batch)
        })
    }
}

/// The wire form of a [`BatchState`]'s request (an `AmortizedBatchTokenRequest`).
#[derive(Clone, Copy)]
pub struct BatchRequest<'s, T: PrivateTokenType, const N: usize> {
    state: &'s BatchState<T, N>,
}

impl<T: PrivateTokenType, const N: usize> fmt::Debug for BatchRequest<'_, T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BatchRequest").field("token_type", &T::CODE).field("len", &self.state.blinded.len()).finish()
    }
}

impl<T: PrivateTokenType, const N: usize> Encode for BatchRequest<'_, T, N> {
    fn encoded_len(&self) -> usize {
        let body = self.state.blinded.len() * T::Suite::NE;
        3 + varint_len(body as u64).unwrap_or(8) + body
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        w.u16(T::CODE)?;
        w.u8(self.state.truncated_token_key_id)?;
        w.varint(u64::try_from(self.state.blinded.len() * T::Suite::NE).map_err(|_| Error::ValueTooLarge)?)?;
        self.state.blinded.iter().try_for_each(|e| w.put(e.as_bytes().as_ref()))
    }
}

impl<T: PrivateTokenType> Client<T> {
    pub(super) fn batch_state<const N: usize>(&self, count: usize) -> Result<BatchState<T, N>> {
        if count == 0 || count > MAX_BATCH {
            return Err(Error::InvalidLength(Field::Batch));
        }
        if count > N {
            return Err(Error::CapacityExceeded);
        }
        Ok(BatchState {
            truncated_token_key_id: truncated_key_id(self.key_id()),
            inputs: Vec::new(),
            blinds: Vec::new(),
            blinded: Vec::new(),
            spent: false,
        })
    }

    pub(super) fn push<const N: usize>(
        state: &mut BatchState<T, N>,
        input: TokenInput,
        (blind, blinded): (Blind<T::Suite>, Element<T::Suite>),
    ) -> Result<()> {
        state.inputs.push(input).map_err(|_| Error::CapacityExceeded)?;
        state.blinds.push(blind).map_err(|_| Error::CapacityExceeded)?;
        state.blinded.push(blinded).map_err(|_| Error::CapacityExceeded)
    }

    /// Builds an amortized request for `count` tokens (1..=`N`) for one
    /// challenge, each with a fresh nonce and blind. More than `N` is
    /// [`Error::CapacityExceeded`]; zero is [`Error::InvalidLength`].
    pub fn request_batch<const N: usize, R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        challenge: &TokenChallenge<'_>,
        count: usize,
        rng: &mut R,
    ) -> Result<BatchState<T, N>> {
        let mut state = self.batch_state::<N>(count)?;
        for _ in 0..count {
            let input = self.input(challenge, &random_nonce(rng)?)?;
            Self::push(&mut state, input, voprf::blind(input.as_bytes(), rng)?)?;
        }
        Ok(state)
    }

    /// Verifies the batched proof and returns the tokens in request order. The
    /// response must have exactly as many elements as the request
    /// ([`Error::InvalidLength`]); a bad proof is [`Error::Verification`].
    ///
    /// As [`Client::finalize`], the state is borrowed mutably: a response that
    /// fails leaves it as it was, and success spends it (the blinds are
    /// wiped; finalizing again, or exporting, is [`Error::StateSpent`]).
    pub fn finalize_batch<const N: usize>(
        &self,
        state: &mut BatchState<T, N>,
        response: &AmortizedTokenResponse<'_, T>,
    ) -> Result<Vec<T::Token, N>> {
        let tokens = self.finalize_batch_unspent(state, response)?;
        crate::tokens::wipe_vec(&mut state.blinds);
        state.spent = true;
        Ok(tokens)
    }

    fn finalize_batch_unspent<const N: usize>(
        &self,
        state: &BatchState<T, N>,
        response: &AmortizedTokenResponse<'_, T>,
    ) -> Result<Vec<T::Token, N>> {
        if state.spent {
            return Err(Error::StateSpent);
        }
        if response.len() != state.blinded.len() {
            return Err(Error::InvalidLength(Field::Batch));
        }
        let mut evaluated: Vec<Element<T::Suite>, N> = Vec::new();
        for bytes in response.evaluated_msgs() {
            evaluated.push(Element::from_bytes(&bytes?)?).map_err(|_| Error::CapacityExceeded)?;
        }
        let proof = Proof::from_bytes(response.proof())?;
        let mut inputs: Vec<&[u8], N> = Vec::new();
        for input in &state.inputs {
            inputs.push(input.as_bytes()).map_err(|_| Error::CapacityExceeded)?;
        }
        // The outputs are the tokens' authenticators: the storage is wiped
        // whatever happens below.
        let mut outputs = WipedOutputs::<T, N>(Vec::new());
        outputs.0.resize(state.inputs.len(), Output::<T>::ZERO).map_err(|_| Error::CapacityExceeded)?;
        voprf::finalize(self.public_key(), &inputs, &state.blinds, &state.blinded, &evaluated, &proof, &mut outputs.0)?;
        let mut tokens = Vec::new();
        for (input, output) in state.inputs.iter().zip(outputs.0.iter()) {
            tokens.push(T::token(*input, *output)?).map_err(|_| Error::CapacityExceeded)?;
        }
        Ok(tokens)
    }
}

/// PRF outputs (token authenticators) in storage that is zeroed on drop.
struct WipedOutputs<T: PrivateTokenType, const N: usize>(Vec<Output<T>, N>);

impl<T: PrivateTokenType, const N: usize> Drop for WipedOutputs<T, N> {
    fn drop(&mut self) {
        crate::tokens::wipe_vec(&mut self.0);
    }
}
