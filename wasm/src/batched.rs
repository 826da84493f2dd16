//! Generic batches (draft-ietf-privacypass-batched-tokens §6): one request
//! carrying token requests of types 0x0001, 0x0002 and 0x0005, each for its
//! own challenge and key, answered entry by entry (an entry the issuer does
//! not answer is absent). Exported as `GenericBatchRequest`.
//!
//! The library's batch state borrows the per-type clients it was made with,
//! which an object handed to JavaScript cannot (wasm-bindgen exports no
//! lifetimes). So the request object owns the clients of its keys and keeps
//! the batch as the library exports it: [`BatchState::export`]'s bytes, in
//! a buffer wiped on drop (they hold every entry's blind), imported again
//! with the owned clients to finalize. The same bytes leave for JavaScript
//! through `exportState` (written straight into a new `Uint8Array`) and come
//! back through `finalizeExported`, whose copy is wiped after use.

use pat::rand_core::TryCryptoRng;
use pat::tokens::batched::{BatchClients, BatchState, GenericBatchTokenResponse};
use pat::tokens::{private, public};
use pat::wire::token_type::{KEY_ID_LEN, PrivateP384, PrivateRistretto255, PublicRsa2048, TokenType};
use pat::{Decode, Error, Field, TokenChallenge};
use wasm_bindgen::prelude::*;
use zeroize::Zeroizing;

use crate::encode;
use crate::error::js;
use crate::rng::with_web_crypto;

/// The most entries in one generic batch of this package.
pub const BATCH_MAX: usize = crate::amortized::BATCH_MAX;

/// The length of an exported generic batch.
pub const STATE_LEN: usize = BatchState::<BATCH_MAX>::STATE_LEN;

/// The clients of a batch's keys, owned, by type (each key once).
#[derive(Clone, Debug, Default)]
pub struct Clients {
    p384: Vec<private::Client<PrivateP384>>,
    rsa: Vec<public::Client>,
    r255: Vec<private::Client<PrivateRistretto255>>,
}

impl Clients {
    /// The clients of `keys`, each `(token type, token key)`; a type a
    /// generic batch does not carry is `UnknownTokenType`.
    pub fn new<'k>(keys: impl IntoIterator<Item = (u16, &'k [u8])>) -> pat::Result<Self> {
        let mut clients = Self::default();
        for (token_type, key) in keys {
            clients.add(token_type, key)?;
        }
        Ok(clients)
    }

    /// Adds the client of `key` for `token_type`, unless it is there.
    fn add(&mut self, token_type: u16, key: &[u8]) -> pat::Result<()> {
        fn add_to<C>(list: &mut Vec<C>, client: C, id: fn(&C) -> &[u8; KEY_ID_LEN]) {
            if !list.iter().any(|c| id(c) == id(&client)) {
                list.push(client);
            }
        }
        match token_type {
            PrivateP384::CODE => add_to(&mut self.p384, private::Client::from_token_key(key)?, |c| c.key_id()),
            PublicRsa2048::CODE => add_to(&mut self.rsa, public::Client::from_token_key(key)?, |c| c.key_id()),
            PrivateRistretto255::CODE => {
                add_to(&mut self.r255, private::Client::from_token_key(key)?, |c| c.key_id());
            }
            other => return Err(Error::UnknownTokenType(other)),
        }
        Ok(())
    }

    /// The clients as the library's batch takes them.
    pub fn as_batch(&self) -> BatchClients<'_> {
        BatchClients { private_p384: &self.p384, public_rsa2048: &self.rsa, private_ristretto255: &self.r255 }
    }

    /// The client of `token_type` for `key` (one of these clients:
    /// `KeyIdMismatch` otherwise).
    pub(crate) fn get(&self, token_type: u16, key: &[u8]) -> pat::Result<ClientRef<'_>> {
        fn find<'l, C>(
            list: &'l [C],
            key_id: &[u8; KEY_ID_LEN],
            id: fn(&C) -> &[u8; KEY_ID_LEN],
        ) -> pat::Result<&'l C> {
            list.iter().find(|c| id(c) == key_id).ok_or(Error::KeyIdMismatch)
        }
        Ok(match token_type {
            PrivateP384::CODE => {
                let id = *private::Client::<PrivateP384>::from_token_key(key)?.key_id();
                ClientRef::P384(find(&self.p384, &id, |c| c.key_id())?)
            }
            PublicRsa2048::CODE => {
                let id = *public::Client::from_token_key(key)?.key_id();
                ClientRef::Rsa(find(&self.rsa, &id, |c| c.key_id())?)
            }
            PrivateRistretto255::CODE => {
                let id = *private::Client::<PrivateRistretto255>::from_token_key(key)?.key_id();
                ClientRef::R255(find(&self.r255, &id, |c| c.key_id())?)
            }
            other => return Err(Error::UnknownTokenType(other)),
        })
    }
}

/// One of a batch's clients, by type.
pub(crate) enum ClientRef<'c> {
    /// Type 0x0001.
    P384(&'c private::Client<PrivateP384>),
    /// Type 0x0002.
    Rsa(&'c public::Client),
    /// Type 0x0005.
    R255(&'c private::Client<PrivateRistretto255>),
}

/// One entry of a new batch: a request for `challenge` to the client of
/// `key` (its type is the challenge's), appended to `batch`.
fn push_entry<'c, R: TryCryptoRng<Error: 'static> + ?Sized>(
    clients: &'c Clients,
    batch: &mut BatchState<'c, BATCH_MAX>,
    challenge: &TokenChallenge<'_>,
    key: &[u8],
    rng: &mut R,
) -> pat::Result<()> {
    match clients.get(challenge.token_type(), key)? {
        ClientRef::P384(c) => batch.push(c, c.request(challenge, rng)?),
        ClientRef::Rsa(c) => batch.push(c, c.request(challenge, rng)?),
        ClientRef::R255(c) => batch.push(c, c.request(challenge, rng)?),
    }
}

/// The token type of an encoded challenge, read from the challenge (which
/// must be one, strictly).
fn challenge_type(challenge: &[u8]) -> pat::Result<u16> {
    Ok(TokenChallenge::decode(challenge)?.token_type())
}

/// A made batch: the encoded request and the exported state.
pub struct Made {
    /// The encoded GenericBatchTokenRequest.
    pub request: Vec<u8>,
    /// [`BatchState::export`]'s bytes, wiped on drop.
    pub state: Zeroizing<Vec<u8>>,
}

/// A batch of one entry per `(challenge, key)` of `entries` (1 to
/// [`BATCH_MAX`]), its clients, and the batch made: each entry by `make`
/// (the per-type `request`, or a deterministic one).
pub fn build<'e>(
    entries: &[(&'e [u8], &'e [u8])],
    mut make: impl for<'c> FnMut(&'c Clients, &mut BatchState<'c, BATCH_MAX>, usize, &TokenChallenge<'_>) -> pat::Result<()>,
) -> pat::Result<(Clients, Made)> {
    if entries.is_empty() {
        return Err(Error::InvalidLength(Field::Batch));
    }
    if entries.len() > BATCH_MAX {
        return Err(Error::CapacityExceeded);
    }
    let clients = Clients::new(
        entries.iter().map(|&(c, k)| challenge_type(c).map(|t| (t, k))).collect::<pat::Result<Vec<_>>>()?,
    )?;
    let made = {
        let mut batch = BatchState::<BATCH_MAX>::new();
        for (i, &(challenge, _)) in entries.iter().enumerate() {
            make(&clients, &mut batch, i, &TokenChallenge::decode(challenge)?)?;
        }
        let exported = batch.export::<STATE_LEN>()?;
        Made { request: encode(&batch.request())?, state: Zeroizing::new(exported.as_bytes().to_vec()) }
    };
    Ok((clients, made))
}

/// A batch of `entries` with fresh nonces and blinds from `rng`.
pub fn request<R: TryCryptoRng<Error: 'static> + ?Sized>(
    entries: &[(&[u8], &[u8])],
    rng: &mut R,
) -> pat::Result<(Clients, Made)> {
    build(entries, |clients, batch, i, challenge| {
        let (_, key) = entries.get(i).ok_or(Error::InvalidLength(Field::Batch))?;
        push_entry(clients, batch, challenge, key, rng)
    })
}

/// The tokens of an exported batch from the issuer's encoded response, in
/// request order, `None` for an entry the issuer left absent.
pub fn finalize(clients: &Clients, state: &[u8], response: &[u8]) -> pat::Result<Vec<Option<Vec<u8>>>> {
    let mut batch = BatchState::<BATCH_MAX>::import(clients.as_batch(), state)?;
    let tokens = batch.finalize(&GenericBatchTokenResponse::decode(response)?)?;
    tokens.iter().map(|t| t.as_ref().map(encode).transpose()).collect()
}

/// The tokens as a JavaScript array: a `Uint8Array` per issued entry,
/// `undefined` per absent one.
fn to_array(tokens: &[Option<Vec<u8>>]) -> js_sys::Array {
    crate::tokens_array(tokens.iter().map(Option::as_deref))
}

/// The bytes of each `Uint8Array`.
fn bytes_of(arrays: &[js_sys::Uint8Array]) -> Vec<Vec<u8>> {
    arrays.iter().map(js_sys::Uint8Array::to_vec).collect()
}

/// `(challenge, key)` pairs of equally long lists (`InvalidLength(Batch)`
/// otherwise).
fn pairs<'a>(challenges: &'a [Vec<u8>], keys: &'a [Vec<u8>]) -> pat::Result<Vec<(&'a [u8], &'a [u8])>> {
    if challenges.len() != keys.len() {
        return Err(Error::InvalidLength(Field::Batch));
    }
    Ok(challenges.iter().map(Vec::as_slice).zip(keys.iter().map(Vec::as_slice)).collect())
}

/// A generic batch in flight: its bytes, the clients of its keys and its
/// state (every entry's secrets, as the library exports them).
#[wasm_bindgen]
#[derive(Debug)]
pub struct GenericBatchRequest {
    clients: Clients,
    /// `None` once finalized (wiped then).
    state: Option<Zeroizing<Vec<u8>>>,
    bytes: Vec<u8>,
    count: usize,
}

impl GenericBatchRequest {
    /// The object over a made batch.
    pub fn from_made(clients: Clients, made: Made, count: usize) -> Self {
        Self { clients, state: Some(made.state), bytes: made.request, count }
    }
}

#[wasm_bindgen]
impl GenericBatchRequest {
    /// A batch of one entry per challenge (encoded TokenChallenges of types
    /// 0x0001, 0x0002 and 0x0005, any mix) with the token key at the same
    /// index of `token_keys` (the issuer's key for that challenge's type),
    /// 1 to 16 entries, every nonce, blind and salt fresh from
    /// `crypto.getRandomValues`.
    pub fn create(
        challenges: Vec<js_sys::Uint8Array>,
        token_keys: Vec<js_sys::Uint8Array>,
    ) -> Result<GenericBatchRequest, JsValue> {
        let (challenges, keys) = (bytes_of(&challenges), bytes_of(&token_keys));
        let entries = pairs(&challenges, &keys).map_err(js)?;
        let (clients, made) = with_web_crypto(|rng| request(&entries, rng))?;
        Ok(Self::from_made(clients, made, entries.len()))
    }

    /// The encoded GenericBatchTokenRequest, to send to the issuer
    /// (`application/private-token-generic-batch-request`).
    #[wasm_bindgen(getter)]
    pub fn bytes(&self) -> Vec<u8> {
        self.bytes.clone()
    }

    /// The number of entries.
    #[wasm_bindgen(getter)]
    pub fn count(&self) -> usize {
        self.count
    }

    /// The state as bytes (secret: every entry's blind), for
    /// [`GenericBatchRequest::finalize_exported`]; `StateSpent` after a
    /// finalize.
    #[wasm_bindgen(js_name = exportState)]
    pub fn export_state(&self) -> Result<js_sys::Uint8Array, JsValue> {
        let state = self.state.as_ref().ok_or(Error::StateSpent).map_err(js)?;
        Ok(js_sys::Uint8Array::from(&state[..]))
    }

    /// The tokens from the issuer's encoded GenericBatchTokenResponse, in
    /// request order: a `Uint8Array` per issued entry, `undefined` per
    /// absent one. `InvalidLength` for another number of entries,
    /// `WrongTokenType` for an entry of another type, `Verification` if a
    /// proof or signature fails; a failure leaves the batch as it was, a
    /// success wipes it (`StateSpent` after).
    pub fn finalize(&mut self, response: &[u8]) -> Result<js_sys::Array, JsValue> {
        let state = self.state.as_ref().ok_or(Error::StateSpent).map_err(js)?;
        let tokens = finalize(&self.clients, state, response).map_err(js)?;
        self.state = None;
        Ok(to_array(&tokens))
    }

    /// The tokens of a batch exported by `exportState`, finalized with the
    /// clients of `token_keys` (the keys of its entries, each with its type
    /// at the same index of `token_types`; `KeyIdMismatch` for an entry
    /// whose key is not among them), as [`GenericBatchRequest::finalize`].
    #[wasm_bindgen(js_name = finalizeExported)]
    pub fn finalize_exported(
        state: Vec<u8>,
        token_types: Vec<u16>,
        token_keys: Vec<js_sys::Uint8Array>,
        response: &[u8],
    ) -> Result<js_sys::Array, JsValue> {
        let state = Zeroizing::new(state);
        let keys = bytes_of(&token_keys);
        if token_types.len() != keys.len() {
            return Err(js(Error::InvalidLength(Field::Batch)));
        }
        let clients = Clients::new(token_types.iter().copied().zip(keys.iter().map(Vec::as_slice))).map_err(js)?;
        finalize(&clients, &state, response).map(|t| to_array(&t)).map_err(js)
    }

    /// The length of an exported generic batch.
    #[wasm_bindgen(js_name = stateLength)]
    pub fn state_length() -> usize {
        STATE_LEN
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::challenge::build as challenge;
    use crate::testing::TestRng;
    use pat::rand_core::UnwrapErr;
    use pat::tokens::batched::Issuer;

    #[test]
    fn a_mixed_batch_round_trips_through_its_export() {
        let mut rng = UnwrapErr(TestRng(0xBA7C));
        let p384 = private::Issuer::<PrivateP384>::generate(&mut rng).unwrap();
        let r255 = private::Issuer::<PrivateRistretto255>::generate(&mut rng).unwrap();
        let c1 = challenge(1, b"issuer.example", &[1; 32], b"origin.example").unwrap();
        let c5 = challenge(5, b"issuer.example", &[], b"").unwrap();
        let (k1, k5) = (p384.token_key(), r255.token_key());
        let entries = [(&c1[..], k1.as_ref()), (&c5[..], k5.as_ref()), (&c1[..], k1.as_ref())];
        let (clients, made) = request(&entries, &mut rng).unwrap();
        assert_eq!((clients.p384.len(), clients.r255.len()), (1, 1));
        assert_eq!(made.state.len(), STATE_LEN);

        let issuer = Issuer::new(core::slice::from_ref(&p384), &[], core::slice::from_ref(&r255)).unwrap();
        let wire = pat::tokens::batched::GenericBatchTokenRequest::decode(&made.request).unwrap();
        let mut out = vec![0u8; wire.max_response_len()];
        let n = issuer.evaluate::<BATCH_MAX, _>(&wire, &mut out, &mut rng).unwrap().len;
        let response = &out[..n];
        assert_eq!(finalize(&clients, &made.state, &response[..n - 1]).err(), Some(Error::Truncated));
        let tokens = finalize(&clients, &made.state, response).unwrap();
        assert_eq!(tokens.len(), 3);
        crate::private::verify(&p384, tokens[0].as_ref().unwrap(), &c1).unwrap();
        crate::private::verify(&r255, tokens[1].as_ref().unwrap(), &c5).unwrap();
        // Without the type-5 key the entry cannot be imported.
        let only1 = Clients::new([(1, k1.as_ref())]).unwrap();
        assert_eq!(finalize(&only1, &made.state, response).err(), Some(Error::KeyIdMismatch));
        // Bad batches.
        assert_eq!(request(&[], &mut rng).err(), Some(Error::InvalidLength(Field::Batch)));
        let many = vec![(&c1[..], k1.as_ref()); BATCH_MAX + 1];
        assert_eq!(request(&many, &mut rng).err(), Some(Error::CapacityExceeded));
        let c7 = challenge(0xDA7A, b"issuer.example", &[], b"").unwrap();
        assert_eq!(request(&[(&c7[..], k1.as_ref())], &mut rng).err(), Some(Error::UnknownTokenType(0xDA7A)));
        // A type-5 challenge with a type-1 key (49 bytes, not ristretto255's 32).
        assert_eq!(request(&[(&c5[..], k1.as_ref())], &mut rng).err(), Some(Error::InvalidLength(Field::Key)));
    }
}
