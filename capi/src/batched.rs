//! Generic batches (draft-ietf-privacypass-batched-tokens §6): up to
//! `PAT_BATCH_MAX` token requests of types 0x0001, 0x0002 and 0x0005, each
//! for its own challenge and issuer key, in one request; the issuer answers
//! entry by entry and may leave an entry absent.
//!
//! The entries come as an array of `pat_batch_entry` (a challenge and a
//! token key each). The library's batch borrows one client per key: they
//! live in this call's frame, one per distinct key, and the batch leaves
//! the call exported (`PAT_GENERIC_BATCH_STATE_LEN` bytes, secret: every
//! blind). Finalize takes the same entries again to rebuild the clients the
//! state is bound to.

use core::ffi::c_void;

use heapless::Vec;
use pat::tokens::batched::{BatchClients, BatchState, GenericBatchTokenResponse};
use pat::tokens::{private, public};
use pat::wire::codec::{Decode, Encode, varint_prefixed_len};
use pat::wire::token_type::{PrivateP384, PrivateRistretto255, TokenKind};
use pat::{Error, Field, TokenChallenge};

use crate::amortized::{CAPACITY, checked_count};
use crate::call::{Object, Out, apart, prefix, run};
use crate::ffi::{self, Fail, Regions};
use crate::rng::{CallbackRng, pat_rng_fn};

/// One entry of a generic batch: the encoded TokenChallenge (of type
/// 0x0001, 0x0002 or 0x0005) and the token key of the issuer to ask, as for
/// that type's single request.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(non_camel_case_types)]
pub struct pat_batch_entry {
    /// The encoded TokenChallenge; its token type is the entry's.
    pub challenge: *const u8,
    /// The challenge's length.
    pub challenge_len: usize,
    /// The issuer's token key for the challenge's type.
    pub token_key: *const u8,
    /// The token key's length.
    pub token_key_len: usize,
}

/// The length of an exported generic batch (`PAT_GENERIC_BATCH_STATE_LEN`).
pub(crate) const STATE_LEN: usize = BatchState::<CAPACITY>::STATE_LEN;

/// Buffers one call records: the entries array, two per entry, and at most
/// four of the call's own (finalize's response, state, tokens and lengths).
const REGIONS: usize = 1 + 2 * CAPACITY + 4;

/// One entry's buffers as slices: `[challenge, token_key]`.
pub(crate) type Entry<'a> = [&'a [u8]; 2];

/// The clients of a batch's keys, one per distinct key and type, and for
/// each entry which of them it uses.
struct Clients {
    p384: Vec<private::Client<PrivateP384>, CAPACITY>,
    rsa: Vec<public::Client, CAPACITY>,
    r255: Vec<private::Client<PrivateRistretto255>, CAPACITY>,
    /// Per entry: its type, and its client's index in that type's list.
    index: Vec<(TokenKind, usize), CAPACITY>,
}

/// One of the batch's clients, by type.
pub(crate) enum ClientRef<'c> {
    P384(&'c private::Client<PrivateP384>),
    Rsa(&'c public::Client),
    R255(&'c private::Client<PrivateRistretto255>),
}

impl ClientRef<'_> {
    /// The client's token key id.
    fn key_id(&self) -> &[u8; 32] {
        match self {
            ClientRef::P384(c) => c.key_id(),
            ClientRef::Rsa(c) => c.key_id(),
            ClientRef::R255(c) => c.key_id(),
        }
    }
}

/// The index of `client` in `list`, appended unless a client of the same
/// key id is there.
fn index_of<C>(list: &mut Vec<C, CAPACITY>, client: C, id: fn(&C) -> &[u8; 32]) -> Result<usize, Fail> {
    if let Some(i) = list.iter().position(|c| id(c) == id(&client)) {
        return Ok(i);
    }
    list.push(client).map_err(|_| Error::CapacityExceeded)?;
    Ok(list.len() - 1)
}

impl Clients {
    /// The clients of `entries` (1 to `CAPACITY`); each entry's type is its
    /// challenge's, and a type a generic batch does not carry is
    /// `UnknownTokenType`.
    fn new(entries: &[Entry<'_>]) -> Result<Self, Fail> {
        checked_count(entries.len())?;
        let mut clients = Self { p384: Vec::new(), rsa: Vec::new(), r255: Vec::new(), index: Vec::new() };
        for &[challenge, key] in entries {
            let kind = TokenKind::from_code(TokenChallenge::decode(challenge)?.token_type())?;
            let i = match kind {
                TokenKind::PrivateP384 => {
                    index_of(&mut clients.p384, private::Client::from_token_key(key)?, |c| c.key_id())?
                }
                TokenKind::PublicRsa2048 => {
                    index_of(&mut clients.rsa, apart(|| public::Client::from_token_key(key))?, |c| c.key_id())?
                }
                TokenKind::PrivateRistretto255 => {
                    index_of(&mut clients.r255, private::Client::from_token_key(key)?, |c| c.key_id())?
                }
                other => return Err(Error::UnknownTokenType(other.code()).into()),
            };
            clients.index.push((kind, i)).map_err(|_| Error::CapacityExceeded)?;
        }
        Ok(clients)
    }

    /// The clients as the library's batch takes them.
    fn as_batch(&self) -> BatchClients<'_> {
        BatchClients { private_p384: &self.p384, public_rsa2048: &self.rsa, private_ristretto255: &self.r255 }
    }

    /// Entry `i`'s client.
    fn get(&self, i: usize) -> Result<ClientRef<'_>, Fail> {
        let missing = || Fail::from(Error::InvalidLength(Field::Batch));
        let &(kind, at) = self.index.get(i).ok_or_else(missing)?;
        Ok(match kind {
            TokenKind::PrivateP384 => ClientRef::P384(self.p384.get(at).ok_or_else(missing)?),
            TokenKind::PublicRsa2048 => ClientRef::Rsa(self.rsa.get(at).ok_or_else(missing)?),
            _ => ClientRef::R255(self.r255.get(at).ok_or_else(missing)?),
        })
    }

    /// The exact length of the batch's request: each entry's fixed
    /// TokenRequest behind one varint length.
    fn request_len(&self) -> usize {
        let body = self.index.iter().map(|(kind, _)| kind.request_max_len()).sum();
        varint_prefixed_len(body)
    }
}

/// Makes entry `i` of the batch with its client and challenge: a fresh or
/// a deterministic per-type request, pushed.
pub(crate) type Make<'m> = dyn for<'c> FnMut(usize, ClientRef<'c>, &TokenChallenge<'_>, &mut BatchState<'c, CAPACITY>) -> Result<(), Fail>
    + 'm;

/// A batch of one request per entry: the request into `outs[0]`, the
/// exported state into `outs[1]`; returns the request's length.
pub(crate) fn make_batch(entries: &[Entry<'_>], make: &mut Make<'_>, outs: &mut [&mut [u8]; 2]) -> Result<usize, Fail> {
    let clients = apart(|| Clients::new(entries))?;
    let [request_out, state_out] = outs;
    let request_out = prefix(request_out, clients.request_len())?;
    let state_out = prefix(state_out, STATE_LEN)?;
    apart(|| -> Result<usize, Fail> {
        let mut batch = BatchState::<CAPACITY>::new();
        for (i, &[challenge, _]) in entries.iter().enumerate() {
            make(i, clients.get(i)?, &TokenChallenge::decode(challenge)?, &mut batch)?;
        }
        state_out.copy_from_slice(batch.export::<STATE_LEN>()?.as_bytes());
        Ok(batch.request().encode(request_out)?)
    })
}

/// A fresh request for entry `i`, pushed to the batch.
fn push_fresh<'c>(
    client: ClientRef<'c>,
    challenge: &TokenChallenge<'_>,
    batch: &mut BatchState<'c, CAPACITY>,
    rng: &mut CallbackRng,
) -> Result<(), Fail> {
    match client {
        ClientRef::P384(c) => batch.push(c, c.request(challenge, rng)?)?,
        ClientRef::Rsa(c) => batch.push(c, apart(|| c.request(challenge, rng))?)?,
        ClientRef::R255(c) => batch.push(c, c.request(challenge, rng)?)?,
    }
    Ok(())
}

/// Finalizes: imports the state (`outs[0]`, wiped on success) bound to the
/// clients of `entries`, finalizes each present entry, writes the tokens
/// one after the other into `outs[1]` and each entry's token length (0 if
/// absent) into `outs[2]`; returns the tokens' total length.
fn finalize(entries: &[Entry<'_>], response: &[u8], outs: &mut [&mut [u8]; 3]) -> Result<usize, Fail> {
    let clients = apart(|| Clients::new(entries))?;
    let [state_buf, tokens_out, lens_out] = outs;
    let mut batch = apart(|| BatchState::<CAPACITY>::import(clients.as_batch(), state_buf))?;
    if batch.len() != entries.len() {
        return Err(Error::InvalidLength(Field::Batch).into());
    }
    // Each position's type and key are the request's (the import bound each
    // entry to a client of the same key, wherever it stands in `entries`).
    for (i, (entry, &(kind, _))) in batch.entries().iter().zip(clients.index.iter()).enumerate() {
        if entry.kind() != kind {
            return Err(Error::WrongTokenType { expected: entry.kind().code(), found: kind.code() }.into());
        }
        if entry.key_id() != Some(clients.get(i)?.key_id()) {
            return Err(Error::KeyIdMismatch.into());
        }
    }
    let most: usize = batch.entries().iter().map(|e| e.kind().token_len()).sum();
    let tokens_out = prefix(tokens_out, most)?;
    let lens_out = prefix(lens_out, entries.len() * size_of::<usize>())?;
    let response = GenericBatchTokenResponse::decode(response)?;
    let tokens = apart(|| batch.finalize(&response))?;
    let mut at = 0;
    for (token, len_out) in tokens.iter().zip(lens_out.chunks_exact_mut(size_of::<usize>())) {
        let len = match token {
            Some(token) => token.encode(tokens_out.get_mut(at..).ok_or(Error::BufferTooSmall)?)?,
            None => 0,
        };
        len_out.copy_from_slice(&len.to_ne_bytes());
        at += len;
    }
    ffi::wipe(state_buf);
    Ok(at)
}

/// Runs `body` over a batch's entries and the call's own buffers, after
/// every buffer was checked as [`crate::call::call`] does. A `count` above
/// `CAPACITY`, or an entries array that is NULL, misaligned or out of
/// range, is refused before anything is read or written: the entries'
/// buffers are unknown then, so no output can be shown apart from them.
///
/// # Safety
/// `entries` points to `count` readable `pat_batch_entry`s, each pair in
/// them lent as an input; the other buffers as for [`crate::call::call`].
pub(crate) unsafe fn call_entries<const N: usize, const M: usize>(
    entries: *const pat_batch_entry,
    count: usize,
    inputs: [(*const u8, usize); N],
    outputs: [Out; M],
    body: impl FnOnce(&[Entry<'_>], [&[u8]; N], &mut [&mut [u8]; M]) -> Result<usize, Fail>,
) -> i32 {
    const { assert!(1 + 2 * CAPACITY + N + M <= REGIONS, "REGIONS must hold every buffer of the call") };
    if count > CAPACITY {
        return Fail::from(Error::CapacityExceeded).code();
    }
    let mut regions = Regions::<REGIONS>::new();
    regions.input_array(entries, count);
    if let Err(f) = regions.check() {
        return f.code();
    }
    // SAFETY: accepted by Regions::input_array; readable `count` entries per
    // the contract.
    let list = unsafe { ffi::read_array(entries, count) };
    for e in list {
        regions.input(e.challenge, e.challenge_len);
        regions.input(e.token_key, e.token_key_len);
    }
    let body = |ins: [&[u8]; N], outs: &mut [&mut [u8]; M]| {
        // SAFETY: each pair passed Regions::input above, and Regions::check
        // in `run` before this body runs; readable per the contract for the
        // whole call.
        let slices = unsafe { entry_slices(list) };
        body(&slices, ins, outs).map(|n| (n, ()))
    };
    // SAFETY: the caller's contract for these buffers, forwarded; the
    // entries' buffers are checked by `run` with the others.
    unsafe { run(regions, inputs, outputs, None::<Object<()>>, body) }
}

/// The entries' buffers as slices.
///
/// # Safety
/// Each pair passed [`Regions::input`] and [`Regions::check`]; the caller
/// of the exported function lends them readable for the whole call.
unsafe fn entry_slices<'a>(list: &[pat_batch_entry]) -> Vec<Entry<'a>, CAPACITY> {
    list.iter()
        .map(|e| {
            // SAFETY: as this function's contract.
            let challenge = unsafe { ffi::read(e.challenge, e.challenge_len) };
            // SAFETY: as this function's contract.
            let key = unsafe { ffi::read(e.token_key, e.token_key_len) };
            [challenge, key]
        })
        .collect()
}

/// Generic batch (draft-ietf-privacypass-batched-tokens §6.1): one request
/// for each of the `count` entries (1 to `PAT_BATCH_MAX`), each for its
/// challenge to the issuer of its token key, with a fresh nonce and blind
/// (and for type 0x0002 salt) from `rng`, in one GenericBatchTokenRequest.
/// Entries may mix the types 0x0001, 0x0002 and 0x0005 and repeat a key.
///
/// Writes the request (at most `PAT_GENERIC_BATCH_REQUEST_MAX_LEN` bytes;
/// its exact length is the sum of the entries' `PAT_TYPEn_REQUEST_LEN` and
/// a 1- or 2-byte length, and `request_cap` must hold it) to `request` and
/// the batch's state (`PAT_GENERIC_BATCH_STATE_LEN` bytes, secret: every
/// blind) to `state`; returns the request's length.
///
/// Errors: `-PAT_E_INVALID_LENGTH` (field batch) for `count` 0,
/// `-PAT_E_UNKNOWN_TOKEN_TYPE` for a challenge of another type, and each
/// entry's challenge and key refused as by its type's single request; on
/// these both outputs are zeroed, as the header's contract says. An
/// entries array that cannot be read (`-PAT_E_NULL_POINTER`,
/// `-PAT_E_MISALIGNED`, `-PAT_E_ADDRESS_RANGE`) or holds more than
/// `PAT_BATCH_MAX` entries (`-PAT_E_CAPACITY_EXCEEDED`) is refused before
/// anything is read or written: the entries' buffers are unknown then, so
/// no output is known to be apart from them, and every output is left as
/// it was.
///
/// Next: POST the request's bytes to the issuer's `issuer-request-uri` with
/// `Content-Type: PAT_MEDIA_TYPE_GENERIC_BATCH_REQUEST` and `Accept:
/// PAT_MEDIA_TYPE_GENERIC_BATCH_RESPONSE`; then `pat_generic_batch_finalize`.
///
/// # Safety
/// `entries` points to `count` readable `pat_batch_entry`s (NULL only with
/// `count` 0), and each entry's two pairs are inputs; every other pointer
/// points to its length's (or capacity's) writable bytes for the whole
/// call; NULL only with length 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_generic_batch_request(
    entries: *const pat_batch_entry,
    count: usize,
    rng: pat_rng_fn,
    rng_ctx: *mut c_void,
    request: *mut u8,
    request_cap: usize,
    state: *mut u8,
    state_cap: usize,
) -> i32 {
    // SAFETY: the caller's contract, forwarded.
    unsafe {
        call_entries(
            entries,
            count,
            [],
            [Out::wiped(request, request_cap), Out::wiped(state, state_cap)],
            |list, [], outs| {
                let mut rng = CallbackRng::new(rng, rng_ctx)?;
                make_batch(
                    list,
                    &mut |_, client, challenge, batch| push_fresh(client, challenge, batch, &mut rng),
                    outs,
                )
            },
        )
    }
}

/// Generic batch (§6.3): finalizes each present entry of the issuer's
/// `response` (a GenericBatchTokenResponse with one entry per request,
/// `-PAT_E_INVALID_LENGTH` otherwise; a present entry of another type is
/// `-PAT_E_WRONG_TOKEN_TYPE`, a proof or signature that fails
/// `-PAT_E_VERIFICATION`) against the `state` that
/// `pat_generic_batch_request` wrote, given the same `entries` in the same
/// order: another count is `-PAT_E_INVALID_LENGTH`, another type at a
/// position `-PAT_E_WRONG_TOKEN_TYPE`, another token key at a position
/// `-PAT_E_KEY_ID_MISMATCH`. The challenges are read for their types only:
/// each token is bound to the challenge its request was made for, which
/// the state holds.
///
/// Writes the tokens of the present entries, in request order, one after
/// the other to `tokens` (`tokens_cap` must hold every entry's token, the
/// sum of their `PAT_TYPEn_TOKEN_LEN`, at most
/// `PAT_GENERIC_BATCH_TOKENS_MAX_LEN`), and for each entry its token's
/// length, 0 for an entry the issuer left absent, to `token_lens` (room for
/// `count` values); returns the tokens' total length.
///
/// All or nothing: on success the state buffer is zeroed; on failure it is
/// left unchanged, ready for the genuine response, and `tokens` and
/// `token_lens` are zeroed, but for a refused entries array, which leaves
/// every buffer as it was (as for `pat_generic_batch_request`), and a
/// `token_lens` not aligned for `size_t` (`-PAT_E_MISALIGNED`), which is
/// not written. Next: one `pat_authorization` per token, each redeemed
/// once.
///
/// # Safety
/// As `pat_generic_batch_request`; `state` is read and written, and
/// `token_lens` points to `count` writable `size_t`s.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn pat_generic_batch_finalize(
    entries: *const pat_batch_entry,
    count: usize,
    state: *mut u8,
    state_len: usize,
    response: *const u8,
    response_len: usize,
    tokens: *mut u8,
    tokens_cap: usize,
    token_lens: *mut usize,
) -> i32 {
    // No overflow: `call_entries` refuses a count above CAPACITY first.
    let lens_len = count.min(CAPACITY) * size_of::<usize>();
    // SAFETY: the caller's contract, forwarded; `token_lens` is written as
    // `count` size_t's worth of bytes.
    unsafe {
        call_entries(
            entries,
            count,
            [(response, response_len)],
            [
                Out::kept(state, state_len),
                Out::wiped(tokens, tokens_cap),
                Out::wiped(token_lens.cast(), lens_len).array_of::<usize>(),
            ],
            |list, [response], outs| finalize(list, response, outs),
        )
    }
}
