//! The client side of generic batches (draft §6.1, §6.3): the entries made
//! by the per-type clients, kept with their secret states in caller-chosen
//! capacity, the batch request they encode to, and the finalization of each
//! present response entry with its own type's procedure.

use core::fmt;

use heapless::Vec;

use super::wire::{prefixed_len, write_prefix};
use super::{GenericBatchTokenResponse, GenericTokenResponse};
use crate::crypto::blind_rsa::MODULUS_LEN;
use crate::error::{Error, Field, Result};
use crate::tokens::state::{self, ExportedState, Shape};
use crate::tokens::{private, public, truncated_key_id};
use crate::wire::codec::{Encode, Reader, Writer};
use crate::wire::token::TokenRef;
use crate::wire::token_type::{
    KEY_ID_LEN, PrivateP384, PrivateRistretto255, PublicRsa2048, TOKEN_INPUT_LEN, TokenKind, TokenType,
};

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::private::Client<super::PrivateP384> {}
    impl Sealed for super::private::Client<super::PrivateRistretto255> {}
    impl Sealed for super::public::Client {}
}

/// A per-type client whose requests can join a generic batch: the clients of
/// types 0x0001, 0x0002 and 0x0005.
pub trait BatchClient: sealed::Sealed {
    /// The type's TokenRequest.
    type Request;
    /// The type's secret request state.
    type State;

    /// Pairs a request made by this client with its state, as one batch entry.
    /// A request or state for another key is [`Error::KeyIdMismatch`], a
    /// spent state [`Error::StateSpent`].
    fn entry(&self, request: Self::Request, state: Self::State) -> Result<PendingEntry<'_>>;
}

/// One entry of a [`BatchState`]: the client it was made with, the request and
/// its secret state.
pub struct PendingEntry<'c> {
    kind: TokenKind,
    pending: Pending<'c>,
}

type P384Entry<'c> =
    (&'c private::Client<PrivateP384>, private::TokenRequest<PrivateP384>, private::RequestState<PrivateP384>);
type RsaEntry<'c> = (&'c public::Client, public::TokenRequest, public::RequestState);
type R255Entry<'c> = (
    &'c private::Client<PrivateRistretto255>,
    private::TokenRequest<PrivateRistretto255>,
    private::RequestState<PrivateRistretto255>,
);

const fn max(a: usize, b: usize) -> usize {
    if a > b { a } else { b }
}

/// Words of the [`Pending::Wiped`] variant: as many as the largest entry's
/// fields fill, so that it covers the tail every smaller variant leaves.
const WIPE_WORDS: usize =
    max(max(size_of::<P384Entry<'static>>(), size_of::<RsaEntry<'static>>()), size_of::<R255Entry<'static>>())
        .div_ceil(8);

// Inline on purpose: the caller's `N` bounds the storage, nothing is boxed.
#[allow(clippy::large_enum_variant)]
enum Pending<'c> {
    PrivateP384(
        &'c private::Client<PrivateP384>,
        private::TokenRequest<PrivateP384>,
        private::RequestState<PrivateP384>,
    ),
    PublicRsa2048(&'c public::Client, public::TokenRequest, public::RequestState),
    PrivateRistretto255(
        &'c private::Client<PrivateRistretto255>,
        private::TokenRequest<PrivateRistretto255>,
        private::RequestState<PrivateRistretto255>,
    ),
    /// What a [`PendingEntry`] holds once it is dropped or finalized; never
    /// observable through the public API.
    Wiped([u64; WIPE_WORDS]),
}

impl<'c> PendingEntry<'c> {
    fn new(pending: Pending<'c>) -> Self {
        let kind = match pending {
            Pending::PrivateP384(..) | Pending::Wiped(_) => TokenKind::PrivateP384,
            Pending::PublicRsa2048(..) => TokenKind::PublicRsa2048,
            Pending::PrivateRistretto255(..) => TokenKind::PrivateRistretto255,
        };
        Self { kind, pending }
    }

    /// The token type.
    pub const fn kind(&self) -> TokenKind {
        self.kind
    }

    /// The token key id of the client the entry was made with (or, once
    /// imported, bound to); `None` once the entry is spent.
    pub fn key_id(&self) -> Option<&[u8; KEY_ID_LEN]> {
        match &self.pending {
            Pending::PrivateP384(c, ..) => Some(c.key_id()),
            Pending::PublicRsa2048(c, ..) => Some(c.key_id()),
            Pending::PrivateRistretto255(c, ..) => Some(c.key_id()),
            Pending::Wiped(_) => None,
        }
    }

    /// Finalizes the entry with its own type's procedure, without spending
    /// it; `None` for an absent response.
    fn finalize_unspent(&self, response: Option<GenericTokenResponse>) -> Result<Option<GenericToken>> {
        let expected = self.kind.code();
        Ok(match (&self.pending, response) {
            (_, None) => None,
            (Pending::PrivateP384(c, _, s), Some(GenericTokenResponse::PrivateP384(r))) => {
                Some(GenericToken::PrivateP384(c.finalize_unspent(s, &r)?))
            }
            (Pending::PublicRsa2048(c, _, s), Some(GenericTokenResponse::PublicRsa2048(r))) => {
                Some(GenericToken::PublicRsa2048(c.finalize_unspent(s, &r)?))
            }
            (Pending::PrivateRistretto255(c, _, s), Some(GenericTokenResponse::PrivateRistretto255(r))) => {
                Some(GenericToken::PrivateRistretto255(c.finalize_unspent(s, &r)?))
            }
            (Pending::Wiped(_), Some(_)) => return Err(Error::StateSpent),
            (_, Some(resp)) => return Err(Error::WrongTokenType { expected, found: resp.kind().code() }),
        })
    }

    /// Writes the entry's slot of an exported batch: the per-type state
    /// without its header, for type 0x0002 the blinded message (the request
    /// cannot be rebuilt from the state), then zeros up to [`SLOT_LEN`].
    fn write_slot(&self, w: &mut Writer<'_>) -> Result<()> {
        let start = w.len();
        match &self.pending {
            Pending::PrivateP384(_, _, s) => s.write(w)?,
            Pending::PublicRsa2048(_, r, s) => {
                s.write(w)?;
                w.put(&r.blinded_msg)?;
            }
            Pending::PrivateRistretto255(_, _, s) => s.write(w)?,
            Pending::Wiped(_) => return Err(Error::StateSpent),
        }
        let used = w.len().saturating_sub(start);
        w.reserve(SLOT_LEN.saturating_sub(used)).map(drop)
    }

    /// Reads a slot [`Self::write_slot`] wrote and binds it to the client in
    /// `clients` of its type and token key id ([`Error::KeyIdMismatch`] if
    /// there is none, [`Error::UnknownTokenType`] for another type).
    fn read_slot(clients: BatchClients<'c>, slot: &[u8]) -> Result<Self> {
        let input = slot.first_chunk::<TOKEN_INPUT_LEN>().ok_or(Error::Truncated)?;
        let code = u16::from_be_bytes(*input.first_chunk::<2>().ok_or(Error::Truncated)?);
        let key_id = input.last_chunk::<KEY_ID_LEN>().ok_or(Error::Truncated)?;
        let mut r = Reader::new(slot);
        let pending = match code {
            PrivateP384::CODE => {
                let c = find(clients.private_p384, key_id, private::Client::key_id)?;
                let s = private::RequestState::read(c, &mut r)?;
                Pending::PrivateP384(c, c.request_of(&s), s)
            }
            PublicRsa2048::CODE => {
                let c = find(clients.public_rsa2048, key_id, public::Client::key_id)?;
                let s = public::RequestState::read(c, &mut r)?;
                let truncated_token_key_id = truncated_key_id(c.key_id());
                Pending::PublicRsa2048(c, public::TokenRequest { truncated_token_key_id, blinded_msg: *r.array()? }, s)
            }
            PrivateRistretto255::CODE => {
                let c = find(clients.private_ristretto255, key_id, private::Client::key_id)?;
                let s = private::RequestState::read(c, &mut r)?;
                Pending::PrivateRistretto255(c, c.request_of(&s), s)
            }
            other => return Err(Error::UnknownTokenType(other)),
        };
        state::zeros(r.rest())?;
        Ok(Self::new(pending))
    }

    /// Wipes the entry's secrets (its request stays).
    fn spend(&mut self) {
        match &mut self.pending {
            Pending::PrivateP384(_, _, s) => s.spend(),
            Pending::PublicRsa2048(_, _, s) => s.spend(),
            Pending::PrivateRistretto255(_, _, s) => s.spend(),
            Pending::Wiped(_) => {}
        }
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        match &self.pending {
            Pending::PrivateP384(_, r, _) => r.encode_into(w),
            Pending::PublicRsa2048(_, r, _) => r.encode_into(w),
            Pending::PrivateRistretto255(_, r, _) => r.encode_into(w),
            Pending::Wiped(_) => Err(Error::InvalidLength(Field::Batch)),
        }
    }

    fn encoded_len(&self) -> usize {
        match &self.pending {
            Pending::PrivateP384(_, r, _) => r.encoded_len(),
            Pending::PublicRsa2048(_, r, _) => r.encoded_len(),
            Pending::PrivateRistretto255(_, r, _) => r.encoded_len(),
            Pending::Wiped(_) => 0,
        }
    }
}

/// Dropping the entry's fields wipes the request state; writing the wiped
/// variant over the whole slot then clears what the fields' destructors
/// cannot reach: the tail a smaller variant leaves, which holds whatever stale
/// bytes (secrets included) the moves of the entry carried along.
impl Drop for PendingEntry<'_> {
    fn drop(&mut self) {
        use zeroize::Zeroize as _;
        // The assignment drops the old value in place (no move to a
        // temporary), then writes the wiped variant over the slot.
        self.pending = Pending::Wiped([0; WIPE_WORDS]);
        if let Pending::Wiped(words) = &mut self.pending {
            words.zeroize();
        }
    }
}

/// The request state wipes its secrets on drop, and the entry its whole slot.
impl zeroize::ZeroizeOnDrop for PendingEntry<'_> {}

impl fmt::Debug for PendingEntry<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PendingEntry").field("kind", &self.kind()).finish_non_exhaustive()
    }
}

/// The client in `clients` whose token key id is `key_id`.
fn find<'c, C>(clients: &'c [C], key_id: &[u8; KEY_ID_LEN], id: fn(&C) -> &[u8; KEY_ID_LEN]) -> Result<&'c C> {
    clients.iter().find(|c| id(c) == key_id).ok_or(Error::KeyIdMismatch)
}

/// An entry's request and state must be for the client's key, and the state
/// must not be spent.
fn check_entry(key_id: &[u8; 32], truncated: u8, input_key_id: &[u8; 32], spent: bool) -> Result<()> {
    if truncated != truncated_key_id(key_id) || input_key_id != key_id {
        return Err(Error::KeyIdMismatch);
    }
    if spent {
        return Err(Error::StateSpent);
    }
    Ok(())
}

impl BatchClient for private::Client<PrivateP384> {
    type Request = private::TokenRequest<PrivateP384>;
    type State = private::RequestState<PrivateP384>;

    fn entry(&self, request: Self::Request, state: Self::State) -> Result<PendingEntry<'_>> {
        check_entry(self.key_id(), request.truncated_token_key_id, state.input().token_key_id(), state.is_spent())?;
        Ok(PendingEntry::new(Pending::PrivateP384(self, request, state)))
    }
}

impl BatchClient for public::Client {
    type Request = public::TokenRequest;
    type State = public::RequestState;

    fn entry(&self, request: Self::Request, state: Self::State) -> Result<PendingEntry<'_>> {
        check_entry(self.key_id(), request.truncated_token_key_id, state.input().token_key_id(), state.is_spent())?;
        Ok(PendingEntry::new(Pending::PublicRsa2048(self, request, state)))
    }
}

impl BatchClient for private::Client<PrivateRistretto255> {
    type Request = private::TokenRequest<PrivateRistretto255>;
    type State = private::RequestState<PrivateRistretto255>;

    fn entry(&self, request: Self::Request, state: Self::State) -> Result<PendingEntry<'_>> {
        check_entry(self.key_id(), request.truncated_token_key_id, state.input().token_key_id(), state.is_spent())?;
        Ok(PendingEntry::new(Pending::PrivateRistretto255(self, request, state)))
    }
}

per_type_enum! {
    /// A token of any type a generic batch issues.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub enum GenericToken {
        /// Type 0x0001.
        PrivateP384(<PrivateP384 as private::PrivateTokenType>::Token),
        /// Type 0x0002.
        PublicRsa2048(public::PublicToken),
        /// Type 0x0005.
        PrivateRistretto255(<PrivateRistretto255 as private::PrivateTokenType>::Token),
    }
}

/// The token wipes its authenticator on drop.
impl zeroize::ZeroizeOnDrop for GenericToken {}

impl GenericToken {
    /// A borrowed view (RFC 9577 §2.2).
    pub fn as_ref(&self) -> TokenRef<'_> {
        per_type!(self, t => t.as_ref())
    }
}

impl Encode for GenericToken {
    fn encoded_len(&self) -> usize {
        self.as_ref().encoded_len()
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        self.as_ref().encode_into(w)
    }
}

/// One entry of an exported generic batch ([`crate::tokens::state`]): the
/// largest per-type state without its header, type 0x0002's, and its
/// blinded message, 610 bytes.
const SLOT_LEN: usize = max(
    max(private::RequestState::<PrivateP384>::STATE_LEN, public::RequestState::STATE_LEN + MODULUS_LEN),
    private::RequestState::<PrivateRistretto255>::STATE_LEN,
) - state::HEADER_LEN;

/// The clients an exported generic batch is imported with, by type: each
/// entry is bound to the client of its type whose token key id it carries
/// ([`BatchState::import`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct BatchClients<'c> {
    /// The clients for type 0x0001 entries.
    pub private_p384: &'c [private::Client<PrivateP384>],
    /// The clients for type 0x0002 entries.
    pub public_rsa2048: &'c [public::Client],
    /// The clients for type 0x0005 entries.
    pub private_ristretto255: &'c [private::Client<PrivateRistretto255>],
}

/// The client's side of a generic batch (draft §6.1, §6.3): up to `N`
/// entries of any mix of types 0x0001, 0x0002 and 0x0005, each with the
/// client it was made with and its secret state (wiped on drop).
///
/// A successful [`BatchState::finalize`] spends the batch: it wipes every
/// entry's secrets, and a second finalize fails with [`Error::StateSpent`].
///
/// To keep it across a reset, [`BatchState::export`] it to
/// [`BatchState::STATE_LEN`] bytes and [`BatchState::import`] them with the
/// same clients ([`crate::tokens::state`] has the layout and the rules for
/// storing them).
pub struct BatchState<'c, const N: usize> {
    entries: Vec<PendingEntry<'c>, N>,
    spent: bool,
}

impl<const N: usize> Default for BatchState<'_, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> Drop for BatchState<'_, N> {
    fn drop(&mut self) {
        crate::tokens::wipe_vec(&mut self.entries);
    }
}

/// Every entry's secret state wipes itself on drop; then the whole storage is
/// zeroed.
impl<const N: usize> zeroize::ZeroizeOnDrop for BatchState<'_, N> {}

impl<const N: usize> fmt::Debug for BatchState<'_, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BatchState").field("entries", &self.entries).finish()
    }
}

impl<'c, const N: usize> BatchState<'c, N> {
    /// An empty batch.
    pub const fn new() -> Self {
        Self { entries: Vec::new(), spent: false }
    }

    /// Whether the batch's tokens were finalized with this state (its
    /// secrets are wiped).
    pub const fn is_spent(&self) -> bool {
        self.spent
    }

    /// The length of the exported state, whatever the number of entries in
    /// it: 4 + `N`·610 bytes (version, shape, count, `N` slots of the
    /// largest entry, a type 0x0002 state with its blinded message).
    pub const STATE_LEN: usize = state::HEADER_LEN + 2 + N * SLOT_LEN;

    /// The batch as [`Self::STATE_LEN`] bytes, to finalize after a reset with
    /// [`Self::import`]. `L` must be [`Self::STATE_LEN`] (checked when the
    /// call is compiled): `batch.export::<{ BatchState::<4>::STATE_LEN }>()`.
    /// The bytes hold every entry's blind: store them as a secret key
    /// ([`crate::tokens::state`]). A spent batch is [`Error::StateSpent`].
    pub fn export<const L: usize>(&self) -> Result<ExportedState<[u8; L]>> {
        const { assert!(L == Self::STATE_LEN, "L must be BatchState::<N>::STATE_LEN") };
        if self.spent {
            return Err(Error::StateSpent);
        }
        let count = u16::try_from(self.entries.len()).map_err(|_| Error::InvalidLength(Field::Batch))?;
        state::export(Shape::Generic, |w| {
            w.u16(count)?;
            self.entries.iter().try_for_each(|e| e.write_slot(w))?;
            // The unused slots stay zero.
            w.reserve(N.saturating_sub(self.entries.len()) * SLOT_LEN).map(drop)
        })
    }

    /// The batch [`Self::export`] wrote, with each entry bound to the client
    /// of its type and token key id in `clients`: it finalizes exactly as
    /// the original. Checks the length, the version, the count (0 to `N`),
    /// each entry's type ([`Error::UnknownTokenType`]), key id (no such
    /// client: [`Error::KeyIdMismatch`]) and secrets as the per-type
    /// `import` does, and that padding and unused slots are zero, each with
    /// its own error (listed in [`crate::tokens::state`]).
    pub fn import(clients: BatchClients<'c>, bytes: &[u8]) -> Result<Self> {
        state::import(bytes, Self::STATE_LEN, Shape::Generic, |r| {
            let count = usize::from(r.u16()?);
            if count > N {
                return Err(Error::InvalidValue(Field::State));
            }
            let mut batch = Self::new();
            for _ in 0..count {
                let entry = PendingEntry::read_slot(clients, r.take(SLOT_LEN)?)?;
                batch.entries.push(entry).map_err(|_| Error::CapacityExceeded)?;
            }
            state::read_zeros(r, (N - count) * SLOT_LEN)?;
            Ok(batch)
        })
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the batch has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries, in request order.
    pub fn entries(&self) -> &[PendingEntry<'c>] {
        &self.entries
    }

    /// Appends an entry made by a per-type `Client::request` (or
    /// `hazmat::request_with`): `batch.push(&client, client.request(&challenge, rng)?)`.
    /// A full batch is [`Error::CapacityExceeded`]; a request for another key
    /// than `client`'s is [`Error::KeyIdMismatch`]; a spent state, or a spent
    /// batch, is [`Error::StateSpent`].
    pub fn push<C: BatchClient>(&mut self, client: &'c C, (request, state): (C::Request, C::State)) -> Result<()> {
        if self.spent {
            return Err(Error::StateSpent);
        }
        if self.entries.is_full() {
            return Err(Error::CapacityExceeded);
        }
        let entry = client.entry(request, state)?;
        self.entries.push(entry).map_err(|_| Error::CapacityExceeded)
    }

    /// The GenericBatchTokenRequest to send.
    pub const fn request(&self) -> BatchRequest<'_, 'c, N> {
        BatchRequest { state: self }
    }

    /// Finalizes every present entry with its own type's procedure (draft
    /// §6.3) and returns, in request order, `Some(token)` or `None` for an
    /// entry the issuer left absent.
    ///
    /// The response must have one entry per request ([`Error::InvalidLength`]
    /// `(`[`Field::Batch`]`)`) and each present entry the requested type
    /// ([`Error::WrongTokenType`]); both are checked before any
    /// cryptography. A proof or signature that does not verify fails the
    /// whole batch with [`Error::Verification`].
    ///
    /// As the per-type `finalize`, the batch is borrowed mutably, and all or
    /// nothing: if any entry fails, no entry is spent and the whole batch
    /// stays ready for the genuine response; once every entry succeeded, all
    /// of them are spent (absent ones too), and finalizing again (or
    /// exporting) is [`Error::StateSpent`].
    pub fn finalize(&mut self, response: &GenericBatchTokenResponse<'_>) -> Result<Vec<Option<GenericToken>, N>> {
        if self.spent {
            return Err(Error::StateSpent);
        }
        if response.len() != self.entries.len() {
            return Err(Error::InvalidLength(Field::Batch));
        }
        for (entry, resp) in self.entries.iter().zip(response.iter()) {
            if let Some(resp) = resp?
                && resp.kind() != entry.kind()
            {
                return Err(Error::WrongTokenType { expected: entry.kind().code(), found: resp.kind().code() });
            }
        }
        // The entries stay in place (borrowed), so no copies of their secrets
        // are made; the tokens of a batch that fails part way are dropped,
        // which wipes them.
        let mut tokens = Vec::new();
        for (entry, resp) in self.entries.iter().zip(response.iter()) {
            tokens.push(entry.finalize_unspent(resp?)?).map_err(|_| Error::CapacityExceeded)?;
        }
        self.entries.iter_mut().for_each(PendingEntry::spend);
        self.spent = true;
        Ok(tokens)
    }
}

/// The wire form of a [`BatchState`]'s request (a GenericBatchTokenRequest,
/// draft §6.1).
#[derive(Clone, Copy)]
pub struct BatchRequest<'s, 'c, const N: usize> {
    state: &'s BatchState<'c, N>,
}

impl<const N: usize> fmt::Debug for BatchRequest<'_, '_, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BatchRequest").field("len", &self.state.len()).finish()
    }
}

impl<const N: usize> BatchRequest<'_, '_, N> {
    fn body_len(&self) -> usize {
        self.state.entries.iter().map(PendingEntry::encoded_len).sum()
    }
}

impl<const N: usize> Encode for BatchRequest<'_, '_, N> {
    fn encoded_len(&self) -> usize {
        prefixed_len(self.body_len())
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        write_prefix(w, self.body_len())?;
        self.state.entries.iter().try_for_each(|e| e.encode_into(w))
    }
}
