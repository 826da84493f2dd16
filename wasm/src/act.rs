//! Token type 0xE5AD, ACT(ristretto255) (draft-schlesinger-privacypass-act-01
//! on draft-schlesinger-cfrg-act-01): the client (credential request,
//! finalize, spends, the credentials that refunds make) and the issuer,
//! which is also the origin (credential responses, spends checked and
//! refunded), exported as `ActClient`, `ActCredentialRequest`,
//! `ActCredential`, `ActSpend`, `ActIssuer` and `ActVerified`.
//!
//! A deployment is named by its domain separator (`ACT-v1:<organization>:
//! <service>:<deployment id>:<version>`, which the issuer publishes) and by
//! `bits`, the bit length L of its balances: 8, 16, 32, 64 or 128 ([`BITS`],
//! the lengths the C API serves; the library takes any L from 1 to 128).
//! Credits and costs cross to JavaScript as `BigInt`s (u128).
//!
//! The client's secrets are three states a caller keeps between page loads
//! or Worker invocations, so each exports as bytes (the draft's CBOR) and
//! imports again:
//! - the request state, between the credential request and its response
//!   ([`ActCredentialRequest::export_state`], [`ActClient::finalize_exported`]);
//! - the credential, until it is spent ([`ActCredential::export`],
//!   [`ActCredential::import`]). A spend uses it up: the object is wiped
//!   (`StateSpent` after), because a credential spent twice shows the same
//!   nullifier, which the issuer refuses and which links the two spends;
//! - the refund state, between a spend and the issuer's refund
//!   ([`ActSpend::export_state`], [`ActClient::refund_exported`]).
//!
//! The objects wipe their copies when freed (the library's types zeroize on
//! drop); an export is written from a wiped-on-drop buffer straight into a
//! new JavaScript `Uint8Array`, and an import's bytes, which wasm-bindgen
//! copies into the module, are wiped after use, as in [`crate::arc`].
//!
//! The issuer checks a spend and returns its nullifier with the signed
//! refund; refusing a nullifier seen before, and recording it before the
//! refund is released, is the caller's job (the replay store of its
//! deployment; the library's `redeem` does both with one).

use pat::crypto::act::{CreditToken, Params, PreRefund, PrivateKey, Refund};
use pat::rand_core::TryCryptoRng;
use pat::tokens::act::{
    ActChallenge, Client, Issuer, RequestState, TOKEN_TYPE, Token, TokenRequest, TokenResponse, Verified, token_len,
};
use pat::{Decode, Error, Field};
use wasm_bindgen::prelude::*;
use zeroize::Zeroizing;

use crate::encode;
use crate::error::js;
use crate::rng::with_web_crypto;

/// The bit lengths L this package serves, ascending (the C API's).
pub const BITS: [u32; 5] = [8, 16, 32, 64, 128];

/// Whether `bytes` starts with ACT's token type.
pub fn is_act(bytes: &[u8]) -> bool {
    bytes.starts_with(&TOKEN_TYPE.to_be_bytes())
}

/// The bit length of a token of `len` bytes: the one of [`BITS`] whose
/// token is that long (`InvalidLength(Token)` for none).
pub fn token_bits(len: usize) -> pat::Result<u32> {
    BITS.into_iter()
        .find(|&l| usize::try_from(l).is_ok_and(|l| token_len(l) == len))
        .ok_or(Error::InvalidLength(Field::Token))
}

/// Checks that `bytes` is an ACT token of one of [`BITS`] (its length
/// tells which), strictly.
pub fn check_token(bytes: &[u8]) -> pat::Result<()> {
    match token_bits(bytes.len())? {
        8 => Token::<8>::decode(bytes).map(|_| ()),
        16 => Token::<16>::decode(bytes).map(|_| ()),
        32 => Token::<32>::decode(bytes).map(|_| ()),
        64 => Token::<64>::decode(bytes).map(|_| ()),
        _ => Token::<128>::decode(bytes).map(|_| ()),
    }
}

/// One value of a family generic in L, for each L of [`BITS`].
#[derive(Clone, Debug)]
pub enum ForBits<T8, T16, T32, T64, T128> {
    /// L = 8.
    B8(T8),
    /// L = 16.
    B16(T16),
    /// L = 32.
    B32(T32),
    /// L = 64.
    B64(T64),
    /// L = 128.
    B128(T128),
}

/// A client of one deployment and key, for its L.
pub type AnyClient = ForBits<Client<8>, Client<16>, Client<32>, Client<64>, Client<128>>;
/// An issuer of one deployment and key, for its L.
pub type AnyIssuer = ForBits<Issuer<8>, Issuer<16>, Issuer<32>, Issuer<64>, Issuer<128>>;

/// Runs `$body` with `$v` the value inside the [`ForBits`] `$any` and the
/// const `$l` its L.
macro_rules! each_bits {
    ($any:expr, $v:ident, $l:ident => $body:expr) => {
        match $any {
            ForBits::B8($v) => {
                const $l: usize = 8;
                $body
            }
            ForBits::B16($v) => {
                const $l: usize = 16;
                $body
            }
            ForBits::B32($v) => {
                const $l: usize = 32;
                $body
            }
            ForBits::B64($v) => {
                const $l: usize = 64;
                $body
            }
            ForBits::B128($v) => {
                const $l: usize = 128;
                $body
            }
        }
    };
}

impl<T8, T16, T32, T64, T128> ForBits<T8, T16, T32, T64, T128> {
    /// L.
    pub fn bits(&self) -> u32 {
        match self {
            Self::B8(_) => 8,
            Self::B16(_) => 16,
            Self::B32(_) => 32,
            Self::B64(_) => 64,
            Self::B128(_) => 128,
        }
    }
}

impl AnyClient {
    /// The client of the deployment `domain_separator` for the issuer key
    /// `token_key` (its 32-byte ristretto255 public key) and balances of
    /// `bits` bits (one of [`BITS`]: `InvalidLength(Message)` otherwise).
    pub fn new(domain_separator: &[u8], token_key: &[u8], bits: u32) -> pat::Result<Self> {
        let params = Params::from_domain_separator(domain_separator);
        Ok(match bits {
            8 => Self::B8(Client::from_token_key(params, token_key)?),
            16 => Self::B16(Client::from_token_key(params, token_key)?),
            32 => Self::B32(Client::from_token_key(params, token_key)?),
            64 => Self::B64(Client::from_token_key(params, token_key)?),
            128 => Self::B128(Client::from_token_key(params, token_key)?),
            _ => return Err(Error::InvalidLength(Field::Message)),
        })
    }

    /// The issuer key id.
    pub fn key_id(&self) -> [u8; 32] {
        each_bits!(self, c, _L => *c.key_id())
    }
}

impl AnyIssuer {
    /// The issuer with `key` in the deployment `domain_separator` for
    /// balances of `bits` bits (one of [`BITS`]).
    pub fn new(domain_separator: &[u8], key: PrivateKey, bits: u32) -> pat::Result<Self> {
        let params = Params::from_domain_separator(domain_separator);
        Ok(match bits {
            8 => Self::B8(Issuer::new(params, key)),
            16 => Self::B16(Issuer::new(params, key)),
            32 => Self::B32(Issuer::new(params, key)),
            64 => Self::B64(Issuer::new(params, key)),
            128 => Self::B128(Issuer::new(params, key)),
            _ => return Err(Error::InvalidLength(Field::Message)),
        })
    }

    /// The token key to publish: the raw 32-byte public key.
    pub fn token_key(&self) -> [u8; 32] {
        each_bits!(self, i, _L => i.token_key())
    }

    /// The issuer key id.
    pub fn key_id(&self) -> [u8; 32] {
        each_bits!(self, i, _L => *i.key_id())
    }
}

/// A credential request for the encoded ACT `challenge`, encoded, and its state.
pub fn request<R: TryCryptoRng<Error: 'static> + ?Sized>(
    client: &AnyClient,
    challenge: &[u8],
    rng: &mut R,
) -> pat::Result<(Vec<u8>, RequestState)> {
    let challenge = ActChallenge::decode(challenge)?;
    let (state, request) = each_bits!(client, c, _L => c.request(&challenge, rng))?;
    Ok((encode(&request)?, state))
}

/// The credential from the issuer's encoded TokenResponse.
pub fn finalize(client: &AnyClient, state: &RequestState, response: &[u8]) -> pat::Result<CreditToken> {
    let response = TokenResponse::decode(response)?;
    each_bits!(client, c, _L => c.finalize(state, &response))
}

/// A spend of `cost` credits of `credential` for the encoded `challenge`:
/// the encoded token and the refund state.
pub fn spend<R: TryCryptoRng<Error: 'static> + ?Sized>(
    client: &AnyClient,
    credential: &CreditToken,
    challenge: &[u8],
    cost: u128,
    rng: &mut R,
) -> pat::Result<(Vec<u8>, PreRefund)> {
    let challenge = ActChallenge::decode(challenge)?;
    each_bits!(client, c, _L => {
        let (token, state) = c.spend(credential, &challenge, cost, rng)?;
        Ok((encode(&token)?, state))
    })
}

/// The next credential from the refund `state`, the encoded token it was
/// made with and the issuer's encoded refund.
pub fn refund(client: &AnyClient, state: &PreRefund, token: &[u8], refund: &[u8]) -> pat::Result<CreditToken> {
    let refund = Refund::from_cbor(refund)?;
    each_bits!(client, c, L => c.refund(state, &Token::<L>::decode(token)?, &refund))
}

/// The issuer's encoded TokenResponse granting `credits` to an encoded
/// TokenRequest for the encoded `challenge`.
pub fn issue<R: TryCryptoRng<Error: 'static> + ?Sized>(
    issuer: &AnyIssuer,
    request: &[u8],
    credits: u128,
    challenge: &[u8],
    rng: &mut R,
) -> pat::Result<Vec<u8>> {
    let request = TokenRequest::decode(request)?;
    let challenge = ActChallenge::decode(challenge)?;
    let response = each_bits!(issuer, i, _L => i.issue(&request, credits, &challenge, rng))?;
    encode(&response)
}

/// Checks an encoded token for the encoded `challenge` at `cost` and signs
/// the refund of `refund_amount` credits.
pub fn verify<R: TryCryptoRng<Error: 'static> + ?Sized>(
    issuer: &AnyIssuer,
    token: &[u8],
    challenge: &[u8],
    cost: u128,
    refund_amount: u128,
    rng: &mut R,
) -> pat::Result<Verified> {
    let challenge = ActChallenge::decode(challenge)?;
    each_bits!(issuer, i, L => i.verify(&Token::<L>::decode(token)?, &challenge, cost, refund_amount, rng))
}

/// The balance of a credential. A credential of any L has its balance below
/// 2^L ≤ 2^128, so the widest L reads every one.
fn credits_of(credential: &CreditToken) -> pat::Result<u128> {
    credential.credits::<128>()
}

/// A client of token type 0xE5AD (ACT) for one deployment, issuer key and
/// bit length.
#[wasm_bindgen]
#[derive(Clone, Debug)]
pub struct ActClient {
    inner: AnyClient,
}

#[wasm_bindgen]
impl ActClient {
    /// A client for the deployment's domain separator, the issuer's token
    /// key (its 32-byte ristretto255 public key) and balances of `bits`
    /// bits (8, 16, 32, 64 or 128: `InvalidLength` otherwise).
    #[wasm_bindgen(constructor)]
    pub fn new(domain_separator: &[u8], token_key: &[u8], bits: u32) -> Result<ActClient, JsValue> {
        AnyClient::new(domain_separator, token_key, bits).map(|inner| Self { inner }).map_err(js)
    }

    /// The key id, SHA-256 of the token key.
    #[wasm_bindgen(getter, js_name = keyId)]
    pub fn key_id(&self) -> Vec<u8> {
        self.inner.key_id().to_vec()
    }

    /// The bit length of balances.
    #[wasm_bindgen(getter)]
    pub fn bits(&self) -> u32 {
        self.inner.bits()
    }

    /// A credential request for the encoded ACT challenge (its issuer name,
    /// origin_info, credential_context and the key bind the credential),
    /// its randomness from `crypto.getRandomValues`.
    pub fn request(&self, challenge: &[u8]) -> Result<ActCredentialRequest, JsValue> {
        let (bytes, state) = with_web_crypto(|rng| request(&self.inner, challenge, rng))?;
        Ok(ActCredentialRequest { client: self.inner.clone(), state: Some(state), bytes })
    }

    /// The credential from a request state exported by
    /// [`ActCredentialRequest::export_state`] and the issuer's encoded
    /// TokenResponse (`ChallengeMismatch` for another request context,
    /// `Verification` if its proof fails).
    #[wasm_bindgen(js_name = finalizeExported)]
    pub fn finalize_exported(&self, state: Vec<u8>, response: &[u8]) -> Result<ActCredential, JsValue> {
        let state = RequestState::from_bytes(&Zeroizing::new(state)).map_err(js)?;
        finalize(&self.inner, &state, response).map(ActCredential::new).map_err(js)
    }

    /// A spend of `cost` credits of `credential` for the encoded challenge,
    /// its randomness from `crypto.getRandomValues`: the token and the
    /// refund state. `ChallengeMismatch` if the credential was issued for
    /// another request context, `ValueTooLarge` if `cost` exceeds its
    /// balance. A successful spend wipes the credential (`StateSpent`
    /// after); a failed one leaves it as it was.
    pub fn spend(&self, credential: &mut ActCredential, challenge: &[u8], cost: u128) -> Result<ActSpend, JsValue> {
        let held = credential.inner.as_ref().ok_or(Error::StateSpent).map_err(js)?;
        let (token, state) = with_web_crypto(|rng| spend(&self.inner, held, challenge, cost, rng))?;
        credential.inner = None;
        Ok(ActSpend { client: self.inner.clone(), token, state: Some(state) })
    }

    /// The next credential from a refund state exported by
    /// [`ActSpend::export_state`], the encoded token of that spend and the
    /// issuer's encoded refund (`Verification` if its proof fails).
    #[wasm_bindgen(js_name = refundExported)]
    pub fn refund_exported(&self, state: Vec<u8>, token: &[u8], refund_bytes: &[u8]) -> Result<ActCredential, JsValue> {
        let state = PreRefund::from_cbor(&Zeroizing::new(state)).map_err(js)?;
        refund(&self.inner, &state, token, refund_bytes).map(ActCredential::new).map_err(js)
    }
}

/// A credential request of type 0xE5AD in flight: its bytes and the state
/// that finalizes it.
#[wasm_bindgen]
#[derive(Debug)]
pub struct ActCredentialRequest {
    client: AnyClient,
    /// `None` once finalized (the state is wiped then).
    state: Option<RequestState>,
    bytes: Vec<u8>,
}

#[wasm_bindgen]
impl ActCredentialRequest {
    /// The encoded TokenRequest, to send to the issuer
    /// (`application/private-token-request`).
    #[wasm_bindgen(getter)]
    pub fn bytes(&self) -> Vec<u8> {
        self.bytes.clone()
    }

    /// The request state as bytes (secret), for
    /// [`ActClient::finalize_exported`]; `StateSpent` after a finalize.
    #[wasm_bindgen(js_name = exportState)]
    pub fn export_state(&self) -> Result<js_sys::Uint8Array, JsValue> {
        let state = self.state.as_ref().ok_or(Error::StateSpent).map_err(js)?;
        Ok(js_sys::Uint8Array::from(&state.to_bytes()[..]))
    }

    /// The credential, from the issuer's encoded TokenResponse (its proof
    /// checked). A failed finalize leaves the state as it was; a successful
    /// one wipes it, and finalizing again is `StateSpent`.
    pub fn finalize(&mut self, response: &[u8]) -> Result<ActCredential, JsValue> {
        let state = self.state.as_ref().ok_or(Error::StateSpent).map_err(js)?;
        let credential = finalize(&self.client, state, response).map_err(js)?;
        self.state = None;
        Ok(ActCredential::new(credential))
    }
}

/// An ACT credential (secret): credits to spend, once.
#[wasm_bindgen]
#[derive(Debug)]
pub struct ActCredential {
    /// `None` once spent (wiped then).
    inner: Option<CreditToken>,
}

impl ActCredential {
    fn new(credential: CreditToken) -> Self {
        Self { inner: Some(credential) }
    }

    fn held(&self) -> Result<&CreditToken, JsValue> {
        self.inner.as_ref().ok_or(Error::StateSpent).map_err(js)
    }
}

#[wasm_bindgen]
impl ActCredential {
    /// The credential as bytes (secret: its CBOR), for
    /// [`ActCredential::import`]; `StateSpent` once spent.
    pub fn export(&self) -> Result<js_sys::Uint8Array, JsValue> {
        Ok(js_sys::Uint8Array::from(&self.held()?.to_cbor()[..]))
    }

    /// A credential from [`ActCredential::export`]'s bytes.
    pub fn import(bytes: Vec<u8>) -> Result<ActCredential, JsValue> {
        CreditToken::from_cbor(&Zeroizing::new(bytes)).map(Self::new).map_err(js)
    }

    /// Its balance; `StateSpent` once spent.
    pub fn credits(&self) -> Result<u128, JsValue> {
        credits_of(self.held()?).map_err(js)
    }
}

/// A spend of type 0xE5AD: the token for the origin, and the state that
/// turns the issuer's refund into the next credential.
#[wasm_bindgen]
#[derive(Debug)]
pub struct ActSpend {
    client: AnyClient,
    token: Vec<u8>,
    /// `None` once refunded (wiped then).
    state: Option<PreRefund>,
}

#[wasm_bindgen]
impl ActSpend {
    /// The encoded token (type ‖ challenge_digest ‖ issuer_key_id ‖ spend
    /// proof), for `Authorization`.
    #[wasm_bindgen(getter)]
    pub fn token(&self) -> Vec<u8> {
        self.token.clone()
    }

    /// The refund state as bytes (secret: its CBOR), for
    /// [`ActClient::refund_exported`]; `StateSpent` after a refund.
    #[wasm_bindgen(js_name = exportState)]
    pub fn export_state(&self) -> Result<js_sys::Uint8Array, JsValue> {
        let state = self.state.as_ref().ok_or(Error::StateSpent).map_err(js)?;
        Ok(js_sys::Uint8Array::from(&state.to_cbor()[..]))
    }

    /// The next credential from the issuer's encoded refund (its proof
    /// checked: `Verification`), worth the balance left plus the refund. A
    /// failure leaves the state as it was; a success wipes it
    /// (`StateSpent` after).
    pub fn refund(&mut self, refund_bytes: &[u8]) -> Result<ActCredential, JsValue> {
        let state = self.state.as_ref().ok_or(Error::StateSpent).map_err(js)?;
        let credential = refund(&self.client, state, &self.token, refund_bytes).map_err(js)?;
        self.state = None;
        Ok(ActCredential::new(credential))
    }
}

/// A spend that verified: its nullifier and the signed refund.
#[wasm_bindgen(getter_with_clone)]
#[derive(Clone, Debug)]
pub struct ActVerified {
    /// The spend's nullifier (32 bytes): refuse it if seen before, and
    /// record it before the refund leaves.
    pub nullifier: Vec<u8>,
    /// The encoded refund for the client.
    pub refund: Vec<u8>,
}

/// The issuer and origin of token type 0xE5AD (one party: ACT is
/// privately verifiable); its secret key stays in the module's memory and
/// is wiped by `free()`.
#[wasm_bindgen]
#[derive(Debug)]
pub struct ActIssuer {
    inner: AnyIssuer,
}

#[wasm_bindgen]
impl ActIssuer {
    /// An issuer with a fresh key from `crypto.getRandomValues`, for the
    /// deployment's domain separator and balances of `bits` bits.
    pub fn generate(domain_separator: &[u8], bits: u32) -> Result<ActIssuer, JsValue> {
        with_web_crypto(|rng| AnyIssuer::new(domain_separator, PrivateKey::generate(rng)?, bits))
            .map(|inner| Self { inner })
    }

    /// An issuer with the secret key's CBOR (`{1: x, 2: W}`, the draft's
    /// encoding), for the deployment's domain separator and balances of
    /// `bits` bits. Refuses bytes cut short (`Truncated`) or followed by
    /// more (`TrailingBytes`), another CBOR shape (`InvalidValue` for
    /// another item or key, `InvalidLength` for another count or string
    /// length), an x that is not a canonical scalar (`InvalidScalar`), a W
    /// that is not a valid element (`InvalidElement`) or not x·G
    /// (`InvalidKey`), and a bit length not served (`InvalidLength`).
    #[wasm_bindgen(js_name = fromSecretKey)]
    pub fn from_secret_key(bytes: Vec<u8>, domain_separator: &[u8], bits: u32) -> Result<ActIssuer, JsValue> {
        let bytes = Zeroizing::new(bytes);
        let made = PrivateKey::from_cbor(&bytes).and_then(|key| AnyIssuer::new(domain_separator, key, bits));
        made.map(|inner| Self { inner }).map_err(js)
    }

    /// The token key to publish: the raw 32-byte ristretto255 public key.
    #[wasm_bindgen(getter, js_name = tokenKey)]
    pub fn token_key(&self) -> Vec<u8> {
        self.inner.token_key().to_vec()
    }

    /// The key id, SHA-256 of the token key.
    #[wasm_bindgen(getter, js_name = keyId)]
    pub fn key_id(&self) -> Vec<u8> {
        self.inner.key_id().to_vec()
    }

    /// The bit length of balances.
    #[wasm_bindgen(getter)]
    pub fn bits(&self) -> u32 {
        self.inner.bits()
    }

    /// The encoded TokenResponse granting `credits` (0 < credits < 2^L:
    /// `InvalidScalar` for 0, `ValueTooLarge` from 2^L) to an encoded
    /// TokenRequest for the encoded challenge, its proof's randomness from
    /// `crypto.getRandomValues`; `KeyIdMismatch` for a request for another
    /// key, `Verification` if its proof fails.
    pub fn issue(&self, request: &[u8], credits: u128, challenge: &[u8]) -> Result<Vec<u8>, JsValue> {
        with_web_crypto(|rng| issue(&self.inner, request, credits, challenge, rng))
    }

    /// Checks an encoded token for the encoded challenge at `cost` and
    /// signs the refund of `refund_amount` (≤ `cost`) credits. A verified
    /// spend is not yet a redeemed one: refuse a nullifier seen before and
    /// record it before the refund leaves, or a credential spends again and
    /// again. Throws `ChallengeMismatch`, `KeyIdMismatch`,
    /// `InvalidValue` (a charge other than `cost`), `Verification`,
    /// `ValueTooLarge` (a `refund_amount` above `cost`) or a parse error.
    pub fn verify(
        &self,
        token: &[u8],
        challenge: &[u8],
        cost: u128,
        refund_amount: u128,
    ) -> Result<ActVerified, JsValue> {
        let verified = with_web_crypto(|rng| verify(&self.inner, token, challenge, cost, refund_amount, rng))?;
        Ok(ActVerified { nullifier: verified.nullifier.to_vec(), refund: verified.refund.to_cbor().to_vec() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::challenge::build_with;
    use crate::testing::TestRng;
    use pat::rand_core::UnwrapErr;

    const DS: &[u8] = b"ACT-v1:pat:wasm-test:1:2026-01-01";

    #[test]
    fn issuance_spend_refund_and_state_export() {
        let mut rng = UnwrapErr(TestRng(0xE5AD));
        let key = PrivateKey::generate(&mut rng).unwrap();
        let issuer = AnyIssuer::new(DS, key, 16).unwrap();
        let client = AnyClient::new(DS, &issuer.token_key(), 16).unwrap();
        assert_eq!(client.key_id(), issuer.key_id());
        assert_eq!(client.bits(), 16);
        let challenge = build_with(TOKEN_TYPE, b"issuer.example", &[4; 32], b"origin.example", Some(&[9; 32])).unwrap();

        let (bytes, state) = request(&client, &challenge, &mut rng).unwrap();
        assert_eq!(bytes.len(), pat::tokens::act::REQUEST_LEN);
        assert_eq!(
            issue(&issuer, &bytes[1..], 100, &challenge, &mut rng),
            Err(Error::WrongTokenType { expected: TOKEN_TYPE, found: u16::from_be_bytes([bytes[1], bytes[2]]) })
        );
        let mut long = bytes.clone();
        long.push(0);
        assert_eq!(issue(&issuer, &long, 100, &challenge, &mut rng), Err(Error::TrailingBytes));
        // No credential of 0 credits (a zero scalar), none of 2^L or more.
        assert_eq!(issue(&issuer, &bytes, 0, &challenge, &mut rng), Err(Error::InvalidScalar));
        assert_eq!(issue(&issuer, &bytes, 1 << 16, &challenge, &mut rng), Err(Error::ValueTooLarge));
        let response = issue(&issuer, &bytes, 100, &challenge, &mut rng).unwrap();
        // The state exported and imported finalizes the same.
        let again = RequestState::from_bytes(&state.to_bytes()[..]).unwrap();
        assert_eq!(RequestState::from_bytes(&state.to_bytes()[1..]).err(), Some(Error::InvalidLength(Field::State)));
        assert_eq!(finalize(&client, &state, &response[1..]).err(), Some(Error::Truncated));
        let credential = finalize(&client, &again, &response).unwrap();
        assert_eq!(credits_of(&credential).unwrap(), 100);

        // A spend of 30 from a credential exported and imported, 5 refunded.
        let credential = CreditToken::from_cbor(&credential.to_cbor()[..]).unwrap();
        assert_eq!(spend(&client, &credential, &challenge, 101, &mut rng).err(), Some(Error::ValueTooLarge));
        let (token, pre) = spend(&client, &credential, &challenge, 30, &mut rng).unwrap();
        assert_eq!(token_bits(token.len()), Ok(16));
        check_token(&token).unwrap();
        let other = build_with(TOKEN_TYPE, b"issuer.example", &[5; 32], b"origin.example", None).unwrap();
        assert_eq!(verify(&issuer, &token, &other, 30, 5, &mut rng).err(), Some(Error::ChallengeMismatch));
        assert_eq!(verify(&issuer, &token, &challenge, 31, 5, &mut rng).err(), Some(Error::InvalidValue(Field::Token)));
        // A refund above the cost.
        assert_eq!(verify(&issuer, &token, &challenge, 30, 31, &mut rng).err(), Some(Error::ValueTooLarge));
        let verified = verify(&issuer, &token, &challenge, 30, 5, &mut rng).unwrap();
        assert_eq!(verified.nullifier, credential.nullifier());
        let pre = PreRefund::from_cbor(&pre.to_cbor()[..]).unwrap();
        let next = refund(&client, &pre, &token, &verified.refund.to_cbor()).unwrap();
        assert_eq!(credits_of(&next).unwrap(), 75);
        // The refund's CBOR is {1: A, 2: e, ...}, each a 32-byte string after
        // 3 bytes of key and head: byte 10 lies in the element A, byte 40 in
        // the scalar e (a low byte, so it stays canonical).
        let mut forged = verified.refund.to_cbor();
        forged[10] ^= 1;
        assert_eq!(refund(&client, &pre, &token, &forged).err(), Some(Error::InvalidElement));
        let mut forged = verified.refund.to_cbor();
        forged[40] ^= 1;
        assert_eq!(refund(&client, &pre, &token, &forged).err(), Some(Error::Verification));

        // A spend for another request context; a challenge of another type.
        assert_eq!(spend(&client, &next, &other, 1, &mut rng).err(), Some(Error::ChallengeMismatch));
        let plain = crate::challenge::build(2, b"issuer.example", &[], &[]).unwrap();
        assert_eq!(
            request(&client, &plain, &mut rng).err(),
            Some(Error::WrongTokenType { expected: TOKEN_TYPE, found: 2 })
        );
        // A token of another L, a bit length not served.
        let wide = AnyIssuer::new(DS, PrivateKey::generate(&mut rng).unwrap(), 32).unwrap();
        assert_eq!(verify(&wide, &token, &challenge, 30, 5, &mut rng).err(), Some(Error::Truncated));
        assert_eq!(AnyClient::new(DS, &issuer.token_key(), 12).err(), Some(Error::InvalidLength(Field::Message)));
        assert_eq!(check_token(&token[..token.len() - 1]), Err(Error::InvalidLength(Field::Token)));
    }

    #[test]
    fn token_lengths_tell_the_bits() {
        for bits in BITS {
            let len = token_len(usize::try_from(bits).unwrap());
            assert_eq!(token_bits(len), Ok(bits));
            assert_eq!(token_bits(len + 1), Err(Error::InvalidLength(Field::Token)));
        }
    }
}
