//! Token type 0x0003, rate-limited tokens with blind RSA and ECDSA P-384 key
//! blinding (draft-ietf-privacypass-rate-limit-tokens), with pat-go's wire
//! choices by default (see [`crate::rate_limited`] for the table of choices).
//!
//! ```text
//! TokenRequest = token_type (0x0003) ‖ request_key[49] ‖ issuer_encap_key_id[32]
//!                ‖ encrypted_token_request<1..2^16-1> ‖ request_signature[96]
//! encrypted_token_response = response_nonce[16] ‖ AES-128-GCM(blind_sig)[272]
//! Token        = token_input[98] ‖ authenticator[256]
//! ```
//!
//! The flow is Client → Attester → Issuer → Attester → Client, then the token
//! is redeemed at an origin as a type-2 token would be:
//!
//! 1. [`Client::request`] builds the TokenRequest: a blinded RSA message over
//!    the token input, a fresh `request_blind`, `request_key =
//!    BlindPublicKey(client_key, request_blind, ctx_client)`, the HPKE-encrypted
//!    [`InnerTokenRequest`] naming the origin, and an ECDSA signature over
//!    everything before the signature, made with the blinded client secret. The
//!    client sends the request and `request_blind` to its attester.
//! 2. [`Attester::process`] checks that `request_key` is the client key blinded
//!    with `request_blind` and that the signature verifies, and refuses clients
//!    already over their limit for that anonymous origin id.
//! 3. [`Issuer::evaluate`] checks the encapsulation key id, the signature,
//!    decrypts and parses the inner request, checks its key id byte, looks up
//!    the origin's secret key, blinds `request_key` with it into
//!    `blinded_request_key`, blind-signs and encrypts the blind signature for
//!    the client.
//! 4. [`Attester::finalize_index`] unblinds `blinded_request_key` into the
//!    index key, derives the issuer-origin alias and counts the token against
//!    the client's limit for that alias; only then does it forward the
//!    encrypted response.
//! 5. [`Client::finalize`] decrypts, unblinds and verifies the signature.
//! 6. [`Origin::verify`] checks the token against the issuer's RSA key.
//!
//! Where pat-go is lenient this module is not: the attester rejects a bad
//! signature (pat-go returns success), the issuer checks
//! `issuer_encap_key_id` and the inner key id byte (pat-go checks neither), and
//! the attester counts tokens per window (pat-go never counts).

use core::fmt;

use heapless::Vec;
use rand_core::TryCryptoRng;
use sha2::{Digest as _, Sha384};
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use super::{expect_type, random_nonce};
use crate::blind_rsa::{self, BlindingState, MODULUS_LEN, PublicKey, SecretKey};
use crate::challenge::TokenChallenge;
use crate::codec::{Decode, Encode, Reader, Writer};
use crate::error::{Error, Field, Result};
use crate::key_blinding::ecdsa_p384::{self as ecdsa, BlindKey, BlindKeyEncoding};
use crate::rate_limited::alias::{self, ALIAS_LEN, CTX_CLIENT, CTX_ISSUER};
use crate::rate_limited::encap::{ENCAP_KEY_ID_LEN, EncapKey, EncapSecretKey};
use crate::rate_limited::inner_request::{self, InnerTokenRequest};
use crate::rate_limited::origin_encryption::{self, ENC_LEN, EncapSecret, TAG_LEN};
use crate::rate_limited::response::{self, ENCRYPTED_RESPONSE_LEN};
use crate::rate_limited::{KeyIdByte, Labels, TOKEN_TYPE};
use crate::token::{Hex, Token, TokenInput};
use crate::token_type::{KEY_ID_LEN, NONCE_LEN, TokenKind};

/// A type 0x0003 token: token_input ‖ an RSA-2048 signature (354 bytes).
pub type RateLimitedToken = Token<MODULUS_LEN>;

/// Npk: the length of `request_key`, a compressed P-384 point.
pub const REQUEST_KEY_LEN: usize = ecdsa::PUBLIC_KEY_LEN;
/// Nsig: the length of `request_signature`, `r ‖ s`.
pub const SIGNATURE_LEN: usize = ecdsa::SIGNATURE_LEN;
/// The longest `encrypted_token_request` its 2-byte length prefix allows.
pub const MAX_ENCRYPTED_REQUEST_LEN: usize = u16::MAX as usize;
/// The length of the anonymous origin id the client gives its attester for
/// each origin (draft "Attester Behavior"): 32 bytes here.
pub const ANONYMOUS_ORIGIN_ID_LEN: usize = 32;
/// The length of `encrypted_token_response`: 288 bytes.
pub const RESPONSE_LEN: usize = ENCRYPTED_RESPONSE_LEN;
/// The length of `blinded_request_key` (the draft's `index_key` result of the
/// issuer), a compressed P-384 point.
pub const BLINDED_REQUEST_KEY_LEN: usize = ecdsa::PUBLIC_KEY_LEN;

/// token_type ‖ request_key ‖ issuer_encap_key_id ‖ the ciphertext's length prefix.
const HEADER_LEN: usize = 2 + REQUEST_KEY_LEN + ENCAP_KEY_ID_LEN + 2;
/// enc ‖ the InnerTokenRequest's fixed fields ‖ the AEAD tag.
const ENCRYPTION_OVERHEAD: usize = ENC_LEN + inner_request::FIXED_LEN + TAG_LEN;

/// The longest origin name a type-3 request can carry: its padded form must
/// keep `encrypted_token_request` within 65535 bytes (65216 bytes).
pub const MAX_ORIGIN_NAME_LEN: usize =
    (MAX_ENCRYPTED_REQUEST_LEN - ENCRYPTION_OVERHEAD) / inner_request::PAD_BLOCK * inner_request::PAD_BLOCK;

/// The length of the TokenRequest for an origin name of `origin_name_len`
/// bytes (520 bytes up to 32 bytes of name). Fails with
/// [`Error::InvalidLength`] beyond [`MAX_ORIGIN_NAME_LEN`].
pub const fn request_len(origin_name_len: usize) -> Result<usize> {
    if origin_name_len > MAX_ORIGIN_NAME_LEN {
        return Err(Error::InvalidLength(Field::OriginName));
    }
    Ok(HEADER_LEN + ENCRYPTION_OVERHEAD + inner_request::padded_len(origin_name_len) + SIGNATURE_LEN)
}

/// The scratch space [`Issuer::evaluate`] needs for `request`: the plaintext
/// length, `encrypted_token_request` minus 48 bytes (at most 65487 bytes).
pub const fn scratch_len(request: &TokenRequest<'_>) -> usize {
    request.encrypted_token_request.len().saturating_sub(ENC_LEN + TAG_LEN)
}

/// The wire choices where pat-go and the draft differ, in one place; both
/// peers must agree. [`Config::PAT_GO`] is the default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Config {
    /// The HPKE `info` and exporter labels.
    pub labels: Labels,
    /// Which byte of the token key id the inner request carries.
    pub key_id_byte: KeyIdByte,
    /// How blind keys (`request_blind`, `sk_origin`) are hashed.
    pub blind_encoding: BlindKeyEncoding,
}

impl Config {
    /// pat-go's choices: labels `"TokenRequest"`/`"TokenResponse"`, the first
    /// key id byte, minimal blind encoding.
    pub const PAT_GO: Self =
        Self { labels: Labels::PAT_GO, key_id_byte: KeyIdByte::First, blind_encoding: BlindKeyEncoding::Minimal };
}

/// TokenRequest for type 0x0003 (draft "Client-to-Attester Request"),
/// borrowing every field from its encoding.
///
/// Decoding is strict: the type must be 0x0003, `encrypted_token_request`
/// must be non-empty, and nothing may follow the signature. Its content is
/// checked by the issuer, which decrypts it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct TokenRequest<'a> {
    /// `BlindPublicKey(client_key, request_blind, ctx_client)`, compressed.
    pub request_key: &'a [u8; REQUEST_KEY_LEN],
    /// SHA-256 of the issuer's `EncapKey`.
    pub issuer_encap_key_id: &'a [u8; ENCAP_KEY_ID_LEN],
    /// `enc ‖ ct` of the HPKE-encrypted `InnerTokenRequest`, 1..=65535 bytes.
    pub encrypted_token_request: &'a [u8],
    /// ECDSA P-384 `r ‖ s` over SHA-384 of everything before it, under `request_key`.
    pub request_signature: &'a [u8; SIGNATURE_LEN],
}

impl TokenRequest<'_> {
    /// SHA-384 of the signed message: token_type ‖ request_key ‖
    /// issuer_encap_key_id ‖ len2(encrypted_token_request) (draft
    /// "Client-to-Attester Request"). Fails if the ciphertext is empty or
    /// longer than 65535 bytes.
    pub fn message_digest(&self) -> Result<[u8; ecdsa::DIGEST_LEN]> {
        Ok(digest(&self.header()?, self.encrypted_token_request))
    }

    /// Verifies `request_signature` under `request_key` (draft "Attester
    /// Behavior" and "Issuer Behavior"). A `request_key` that is not a P-384
    /// point is [`Error::InvalidElement`]; a bad signature is
    /// [`Error::Verification`]. Variable time (public data).
    pub fn verify_signature(&self) -> Result<()> {
        let request_key = ecdsa::PublicKey::from_bytes(self.request_key)?;
        let sig = ecdsa::Signature::from_bytes(self.request_signature);
        ecdsa::verify_prehash(&request_key, &self.message_digest()?, &sig)
    }

    fn ciphertext_len(&self) -> Result<u16> {
        if self.encrypted_token_request.is_empty() {
            return Err(Error::InvalidLength(Field::EncryptedTokenRequest));
        }
        u16::try_from(self.encrypted_token_request.len())
            .map_err(|_| Error::InvalidLength(Field::EncryptedTokenRequest))
    }

    fn header(&self) -> Result<[u8; HEADER_LEN]> {
        let len = self.ciphertext_len()?;
        let mut out = [0u8; HEADER_LEN];
        let mut w = Writer::new(&mut out);
        w.u16(TOKEN_TYPE)?;
        w.put(self.request_key)?;
        w.put(self.issuer_encap_key_id)?;
        w.u16(len)?;
        Ok(out)
    }
}

fn digest(header: &[u8], ciphertext: &[u8]) -> [u8; ecdsa::DIGEST_LEN] {
    Sha384::new().chain_update(header).chain_update(ciphertext).finalize().into()
}

impl fmt::Debug for TokenRequest<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenRequest")
            .field("request_key", &Hex(self.request_key))
            .field("issuer_encap_key_id", &Hex(self.issuer_encap_key_id))
            .field("encrypted_token_request_len", &self.encrypted_token_request.len())
            .finish_non_exhaustive()
    }
}

impl<'a> Decode<'a> for TokenRequest<'a> {
    fn decode_from(r: &mut Reader<'a>) -> Result<Self> {
        expect_type(r, TOKEN_TYPE)?;
        let request_key = r.array::<REQUEST_KEY_LEN>()?;
        let issuer_encap_key_id = r.array::<ENCAP_KEY_ID_LEN>()?;
        let encrypted_token_request = r.u16_prefixed(1, MAX_ENCRYPTED_REQUEST_LEN, Field::EncryptedTokenRequest)?;
        let request_signature = r.array::<SIGNATURE_LEN>()?;
        Ok(Self { request_key, issuer_encap_key_id, encrypted_token_request, request_signature })
    }
}

impl Encode for TokenRequest<'_> {
    fn encoded_len(&self) -> usize {
        HEADER_LEN + self.encrypted_token_request.len() + SIGNATURE_LEN
    }

    /// Fails with [`Error::InvalidLength`] if the ciphertext is empty or longer
    /// than 65535 bytes.
    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        w.put(&self.header()?)?;
        w.put(self.encrypted_token_request)?;
        w.put(self.request_signature)
    }
}

/// What the client keeps between [`Client::request`] and [`Client::finalize`]:
/// the token input, the RSA blind inverse, the HPKE response secret and
/// `request_blind`. Every secret is wiped on drop; `Debug` shows only the
/// token input.
pub struct ClientState {
    input: TokenInput,
    blinding: BlindingState,
    encap: EncapSecret,
    request_blind: BlindKey,
}

impl ClientState {
    /// The token input the request covers.
    pub const fn input(&self) -> &TokenInput {
        &self.input
    }

    /// `request_blind`, which the client sends to its attester with the
    /// request (draft "Client-to-Attester Request"). Secret towards everyone
    /// else: with it and the client key, the request links to the client.
    pub const fn request_blind(&self) -> &BlindKey {
        &self.request_blind
    }
}

impl ZeroizeOnDrop for ClientState {}

impl fmt::Debug for ClientState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientState").field("input", &self.input).finish_non_exhaustive()
    }
}

/// Explicit values for everything [`Client::request`] draws at random except
/// the ECDSA signing hedge (feature `hazmat`; known-answer tests only: reusing
/// any of them links requests or breaks the encryption).
#[cfg(feature = "hazmat")]
#[derive(Clone, Copy)]
pub struct RequestRandomness<'a> {
    /// The token nonce.
    pub nonce: &'a [u8; NONCE_LEN],
    /// The PSS salt.
    pub salt: &'a [u8; blind_rsa::SALT_LEN],
    /// The RSA blind r (big-endian, in [1, n) and invertible).
    pub blind: &'a [u8; MODULUS_LEN],
    /// `request_blind` (48 bytes).
    pub request_blind: &'a [u8; ecdsa::SCALAR_LEN],
    /// The HPKE ephemeral key seed: the ephemeral key is `DeriveKeyPair(ikm_e)`.
    pub ikm_e: &'a [u8; ENC_LEN],
}

#[cfg(feature = "hazmat")]
impl fmt::Debug for RequestRandomness<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RequestRandomness")
    }
}

/// The client side of type 0x0003 (draft "Client-to-Attester Request",
/// "Attester-to-Client Response"): its long-term ECDSA P-384 secret and the
/// issuer's encapsulation and token keys.
pub struct Client {
    secret: ecdsa::SecretKey,
    client_key: ecdsa::PublicKey,
    encap_key: EncapKey,
    encap_key_id: [u8; ENCAP_KEY_ID_LEN],
    token_key: PublicKey,
    config: Config,
}

/// The ECDSA secret key wipes itself on drop.
impl ZeroizeOnDrop for Client {}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("client_key", &self.client_key)
            .field("encap_key", &self.encap_key)
            .field("token_key", &self.token_key)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A client with its long-term secret, the issuer's `EncapKey` and RSA token
    /// key, and pat-go's wire choices.
    pub fn new(secret: ecdsa::SecretKey, encap_key: EncapKey, token_key: PublicKey) -> Self {
        let client_key = secret.public_key();
        let encap_key_id = encap_key.id();
        Self { secret, client_key, encap_key, encap_key_id, token_key, config: Config::PAT_GO }
    }

    /// The same client with other wire choices.
    #[must_use]
    pub const fn with_config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    /// The client's public key, which its attester knows (the draft's Client Key).
    pub const fn client_key(&self) -> &ecdsa::PublicKey {
        &self.client_key
    }

    /// The issuer's token key.
    pub const fn token_key(&self) -> &PublicKey {
        &self.token_key
    }

    fn input(&self, challenge: &TokenChallenge<'_>, nonce: &[u8; NONCE_LEN]) -> Result<TokenInput> {
        if challenge.token_type() != TOKEN_TYPE {
            return Err(Error::WrongTokenType { expected: TOKEN_TYPE, found: challenge.token_type() });
        }
        Ok(TokenInput::new(TokenKind::RateLimitedRsa2048, nonce, &challenge.digest(), self.token_key.key_id()))
    }

    /// Checks the origin name and returns the exact slice of `out` the request
    /// will fill.
    fn request_buffer<'o>(origin_name: &[u8], out: &'o mut [u8]) -> Result<&'o mut [u8]> {
        let total = request_len(origin_name.len())?;
        if origin_name.last() == Some(&0) {
            return Err(Error::InvalidValue(Field::OriginName));
        }
        out.get_mut(..total).ok_or(Error::BufferTooSmall)
    }

    /// Builds a TokenRequest for `challenge` and `origin_name` into the front of
    /// `out` and returns its length with the state for [`Client::finalize`]
    /// (draft "Client-to-Attester Request"). Nonce, salt, RSA blind,
    /// `request_blind`, the HPKE ephemeral key and the ECDSA hedge are fresh.
    ///
    /// `out` needs [`request_len`]`(origin_name.len())` bytes (520 for names up
    /// to 32 bytes). Errors: [`Error::WrongTokenType`] for a challenge of
    /// another type; [`Error::InvalidLength`]/[`Error::InvalidValue`] with
    /// [`Field::OriginName`] for a name longer than [`MAX_ORIGIN_NAME_LEN`] or
    /// ending in a zero byte; [`Error::BufferTooSmall`]; [`Error::Rng`]. Nothing
    /// is written to `out` before these checks, and if a later step fails the
    /// request's bytes in `out` are zeroed.
    ///
    /// The origin name is not checked against the challenge's `origin_info`.
    pub fn request<R: TryCryptoRng + ?Sized>(
        &self,
        challenge: &TokenChallenge<'_>,
        origin_name: &[u8],
        rng: &mut R,
        out: &mut [u8],
    ) -> Result<(usize, ClientState)> {
        let out = Self::request_buffer(origin_name, out)?;
        let input = self.input(challenge, &random_nonce(rng)?)?;
        let (blinded, blinding) = blind_rsa::blind(&self.token_key, input.as_bytes(), rng)?;
        let request_blind = BlindKey::random(rng, self.config.blind_encoding)?;
        let mut ikm_e = Zeroizing::new([0u8; ENC_LEN]);
        rng.try_fill_bytes(ikm_e.as_mut()).map_err(|_| Error::Rng)?;
        self.assemble(input, &blinded, blinding, request_blind, origin_name, &ikm_e, out, rng)
    }

    /// [`Client::request`] with explicit nonce, salt, RSA blind,
    /// `request_blind` and HPKE ephemeral seed (feature `hazmat`; known-answer
    /// tests only). `rng` only hedges the ECDSA signature.
    #[cfg(feature = "hazmat")]
    pub fn request_with<R: TryCryptoRng + ?Sized>(
        &self,
        challenge: &TokenChallenge<'_>,
        origin_name: &[u8],
        fixed: &RequestRandomness<'_>,
        rng: &mut R,
        out: &mut [u8],
    ) -> Result<(usize, ClientState)> {
        let out = Self::request_buffer(origin_name, out)?;
        let input = self.input(challenge, fixed.nonce)?;
        let (blinded, blinding) = blind_rsa::blind_with(&self.token_key, input.as_bytes(), fixed.salt, fixed.blind)?;
        let request_blind = BlindKey::with_encoding(fixed.request_blind, self.config.blind_encoding);
        self.assemble(input, &blinded, blinding, request_blind, origin_name, fixed.ikm_e, out, rng)
    }

    /// Writes the request into `out` (exactly its length); zeroes `out` on error.
    #[allow(clippy::too_many_arguments)]
    fn assemble<R: TryCryptoRng + ?Sized>(
        &self,
        input: TokenInput,
        blinded: &[u8; MODULUS_LEN],
        blinding: BlindingState,
        request_blind: BlindKey,
        origin_name: &[u8],
        ikm_e: &[u8; ENC_LEN],
        out: &mut [u8],
        rng: &mut R,
    ) -> Result<(usize, ClientState)> {
        let total = out.len();
        match self.fill(blinded, &request_blind, origin_name, ikm_e, out, rng) {
            Ok(encap) => Ok((total, ClientState { input, blinding, encap, request_blind })),
            Err(e) => {
                out.zeroize();
                Err(e)
            }
        }
    }

    fn fill<R: TryCryptoRng + ?Sized>(
        &self,
        blinded: &[u8; MODULUS_LEN],
        request_blind: &BlindKey,
        origin_name: &[u8],
        ikm_e: &[u8; ENC_LEN],
        out: &mut [u8],
        rng: &mut R,
    ) -> Result<EncapSecret> {
        let (header, rest) = out.split_first_chunk_mut::<HEADER_LEN>().ok_or(Error::BufferTooSmall)?;
        let (ciphertext, signature) = rest.split_last_chunk_mut::<SIGNATURE_LEN>().ok_or(Error::BufferTooSmall)?;

        let request_key = alias::request_key(&self.client_key, request_blind, CTX_CLIENT)?.to_bytes();
        let inner =
            InnerTokenRequest::new(self.config.key_id_byte.truncate(self.token_key.key_id()), blinded, origin_name)?;
        let (n, encap) = origin_encryption::encrypt_with_ikm(
            &self.encap_key,
            &request_key,
            &inner,
            &self.config.labels,
            ikm_e,
            ciphertext,
        )?;
        let len = u16::try_from(n).map_err(|_| Error::InvalidLength(Field::EncryptedTokenRequest))?;
        if n != ciphertext.len() {
            return Err(Error::InvalidLength(Field::EncryptedTokenRequest));
        }
        let mut w = Writer::new(header);
        w.u16(TOKEN_TYPE)?;
        w.put(&request_key)?;
        w.put(&self.encap_key_id)?;
        w.u16(len)?;

        let digest = digest(header, ciphertext);
        let sig = ecdsa::blind_key_sign(&self.secret, request_blind, CTX_CLIENT, &digest, rng)?;
        *signature = sig.to_bytes();
        Ok(encap)
    }

    /// Decrypts the issuer's `encrypted_token_response` (288 bytes), unblinds
    /// the signature and verifies it before returning the token (draft
    /// "Attester-to-Client Response", RFC 9474 §4.4). A wrong length is
    /// [`Error::InvalidLength`]; a response that does not decrypt or a
    /// signature that does not verify is [`Error::Verification`].
    pub fn finalize(&self, state: ClientState, encrypted_token_response: &[u8]) -> Result<RateLimitedToken> {
        let response = <&[u8; RESPONSE_LEN]>::try_from(encrypted_token_response)
            .map_err(|_| Error::InvalidLength(Field::Message))?;
        let ClientState { input, blinding, encap, request_blind } = state;
        drop(request_blind);
        let blind_sig = Zeroizing::new(response::decrypt_response(&encap, response)?);
        let sig = blind_rsa::finalize(&self.token_key, input.as_bytes(), blinding, blind_sig.as_slice())?;
        Token::new(input, sig)
    }
}

/// The attester's rate-limit policy: at most `max_tokens` tokens per client
/// and issuer-origin alias in each window of `window` time units.
///
/// Time is whatever the caller passes as `now` (seconds, minutes, a counter):
/// `no_std` has no clock. Windows are fixed and aligned: window number
/// `now / window`. A `now` in a later window than the stored one starts a new
/// count; a `now` in an earlier window (a clock going backwards) counts
/// against the stored window and never resets it. `window = 0` means one
/// window for all time (a lifetime limit).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Policy {
    /// Tokens allowed per client, origin and window (0 refuses everything).
    pub max_tokens: u32,
    /// The window length, in the caller's time unit.
    pub window: u64,
}

impl Policy {
    fn window_of(&self, now: u64) -> u64 {
        now.checked_div(self.window).unwrap_or(0)
    }
}

/// One client's state for one origin (alias).
struct Entry {
    client_key: [u8; REQUEST_KEY_LEN],
    alias: [u8; ALIAS_LEN],
    anonymous_origin_id: [u8; ANONYMOUS_ORIGIN_ID_LEN],
    window: u64,
    count: u32,
}

impl Drop for Entry {
    fn drop(&mut self) {
        self.client_key.zeroize();
        self.alias.zeroize();
        self.anonymous_origin_id.zeroize();
    }
}

/// The attester of type 0x0003 (draft "Attester Behavior") with a bounded
/// state of at most `N` (client, issuer-origin alias) entries.
///
/// Each entry binds a client key and an alias to the anonymous origin id the
/// client used for it, and counts tokens in the current [`Policy`] window
/// (about 150 bytes per entry; no allocation). A new (client, alias) pair
/// needs a free entry: a full store fails with [`Error::CapacityExceeded`]
/// until [`Attester::prune`] frees entries of past windows. Entries are looked
/// up by a linear scan with constant-time comparisons, so `N` should stay in
/// the thousands at most.
pub struct Attester<const N: usize> {
    policy: Policy,
    entries: Vec<Entry, N>,
}

impl<const N: usize> Drop for Attester<N> {
    fn drop(&mut self) {
        super::wipe_vec(&mut self.entries);
    }
}

/// Every entry (client key, alias, anonymous origin id) is wiped on drop, and
/// so is the spare capacity, which holds stale copies of moved entries.
impl<const N: usize> ZeroizeOnDrop for Attester<N> {}

impl<const N: usize> fmt::Debug for Attester<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Attester")
            .field("policy", &self.policy)
            .field("entries", &self.entries.len())
            .field("capacity", &N)
            .finish_non_exhaustive()
    }
}

impl<const N: usize> Attester<N> {
    /// An attester with an empty store.
    pub const fn new(policy: Policy) -> Self {
        Self { policy, entries: Vec::new() }
    }

    /// The policy.
    pub const fn policy(&self) -> Policy {
        self.policy
    }

    /// The number of (client, alias) entries held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the store is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The capacity `N`.
    pub const fn capacity(&self) -> usize {
        N
    }

    /// Checks a client's request before it goes to the issuer (draft "Attester
    /// Behavior"): `request_key` must be `BlindPublicKey(client_key,
    /// request_blind, ctx_client)` ([`Error::RequestKeyMismatch`]), the request
    /// signature must verify under it ([`Error::Verification`]; pat-go's
    /// attester wrongly accepts a bad signature), and the client must not
    /// already have used up the current window for `anonymous_origin_id`
    /// ([`Error::RateLimited`]). Changes no state.
    pub fn process(
        &self,
        request: &TokenRequest<'_>,
        client_key: &ecdsa::PublicKey,
        request_blind: &BlindKey,
        anonymous_origin_id: &[u8; ANONYMOUS_ORIGIN_ID_LEN],
        now: u64,
    ) -> Result<()> {
        alias::verify_request_key(client_key, request_blind, CTX_CLIENT, request.request_key)
            .map_err(|_| Error::RequestKeyMismatch)?;
        request.verify_signature()?;
        let client = client_key.to_bytes();
        let window = self.policy.window_of(now);
        let exhausted = self.policy.max_tokens == 0
            || self.entries.iter().any(|e| {
                bool::from(e.client_key.ct_eq(&client) & e.anonymous_origin_id.ct_eq(anonymous_origin_id))
                    && e.window >= window
                    && e.count >= self.policy.max_tokens
            });
        if exhausted { Err(Error::RateLimited) } else { Ok(()) }
    }

    /// After the issuer answered (draft "Attester Behavior", index
    /// computation): `index_key = UnblindPublicKey(blinded_request_key,
    /// request_blind, ctx_client)`, `alias = HKDF-SHA384(client_key, index_key,
    /// "IssuerOriginAlias")`, then the state update. Returns the alias.
    ///
    /// Errors, each leaving the state unchanged: [`Error::InvalidElement`] for
    /// a `blinded_request_key` that is not a point; [`Error::OriginIdConflict`]
    /// if this client's alias was seen with another anonymous origin id (the
    /// client lied about which origin it asks for); [`Error::RateLimited`] if
    /// the window's count is used up; [`Error::CapacityExceeded`] if a new
    /// entry is needed and the store is full. Forward the encrypted response
    /// to the client only on success.
    ///
    /// One anonymous origin id may map to several aliases (an issuer rotating
    /// its origin key gives the same origin a new alias), as in pat-go.
    pub fn finalize_index(
        &mut self,
        client_key: &ecdsa::PublicKey,
        request_blind: &BlindKey,
        blinded_request_key: &[u8; BLINDED_REQUEST_KEY_LEN],
        anonymous_origin_id: &[u8; ANONYMOUS_ORIGIN_ID_LEN],
        now: u64,
    ) -> Result<[u8; ALIAS_LEN]> {
        let blinded = ecdsa::PublicKey::from_bytes(blinded_request_key)?;
        let index_key = alias::index_key(&blinded, request_blind, CTX_CLIENT)?;
        let alias = alias::issuer_origin_alias(client_key, &index_key);
        let client = client_key.to_bytes();
        let window = self.policy.window_of(now);
        let max = self.policy.max_tokens;
        let found = self.entries.iter_mut().find(|e| bool::from(e.client_key.ct_eq(&client) & e.alias.ct_eq(&alias)));
        match found {
            Some(entry) => {
                if !bool::from(entry.anonymous_origin_id.ct_eq(anonymous_origin_id)) {
                    return Err(Error::OriginIdConflict);
                }
                let count = if window > entry.window { 0 } else { entry.count };
                if count >= max {
                    return Err(Error::RateLimited);
                }
                entry.window = entry.window.max(window);
                entry.count = count.saturating_add(1);
            }
            None => {
                if max == 0 {
                    return Err(Error::RateLimited);
                }
                let entry =
                    Entry { client_key: client, alias, anonymous_origin_id: *anonymous_origin_id, window, count: 1 };
                self.entries.push(entry).map_err(|_| Error::CapacityExceeded)?;
            }
        }
        Ok(alias)
    }

    /// Tokens left for this client and alias in the window of `now`.
    pub fn remaining(&self, client_key: &ecdsa::PublicKey, alias: &[u8; ALIAS_LEN], now: u64) -> u32 {
        let client = client_key.to_bytes();
        let window = self.policy.window_of(now);
        let used = self
            .entries
            .iter()
            .find(|e| bool::from(e.client_key.ct_eq(&client) & e.alias.ct_eq(alias)))
            .map_or(0, |e| if window > e.window { 0 } else { e.count });
        self.policy.max_tokens.saturating_sub(used)
    }

    /// Drops every entry whose window ended before the window of `now` and
    /// returns how many were dropped. This frees capacity but also forgets
    /// those entries' alias → anonymous origin id bindings.
    pub fn prune(&mut self, now: u64) -> usize {
        let window = self.policy.window_of(now);
        let before = self.entries.len();
        self.entries.retain(|e| e.window >= window);
        // `retain` shifts the kept entries down, leaving stale copies behind.
        self.entries.spare_capacity_mut().zeroize();
        before.saturating_sub(self.entries.len())
    }
}

/// One origin's ECDSA P-384 secret key on the issuer (the draft's origin
/// index key `sk_origin`), with the origin name it serves.
pub struct OriginKey<'a> {
    name: &'a [u8],
    key: ecdsa::SecretKey,
}

impl<'a> OriginKey<'a> {
    /// Pairs an origin name with its secret key.
    pub const fn new(name: &'a [u8], key: ecdsa::SecretKey) -> Self {
        Self { name, key }
    }

    /// The origin name.
    pub const fn name(&self) -> &'a [u8] {
        self.name
    }

    /// The secret key.
    pub const fn key(&self) -> &ecdsa::SecretKey {
        &self.key
    }
}

/// The ECDSA secret key wipes itself on drop.
impl ZeroizeOnDrop for OriginKey<'_> {}

impl fmt::Debug for OriginKey<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OriginKey")
            .field("name", &core::str::from_utf8(self.name).unwrap_or("<not UTF-8>"))
            .finish_non_exhaustive()
    }
}

/// The issuer's table from origin names to origin secret keys.
///
/// Implemented for slices and arrays of [`OriginKey`] (a linear scan); a
/// caller with many origins can implement it over its own map. Origin names
/// are compared in variable time: the issuer learns them anyway.
pub trait OriginKeys {
    /// The secret key of `origin_name`, if the issuer serves it.
    fn origin_key(&self, origin_name: &[u8]) -> Option<&ecdsa::SecretKey>;
}

impl OriginKeys for [OriginKey<'_>] {
    fn origin_key(&self, origin_name: &[u8]) -> Option<&ecdsa::SecretKey> {
        self.iter().find(|o| o.name == origin_name).map(OriginKey::key)
    }
}

impl<const K: usize> OriginKeys for [OriginKey<'_>; K] {
    fn origin_key(&self, origin_name: &[u8]) -> Option<&ecdsa::SecretKey> {
        self.as_slice().origin_key(origin_name)
    }
}

impl<T: OriginKeys + ?Sized> OriginKeys for &T {
    fn origin_key(&self, origin_name: &[u8]) -> Option<&ecdsa::SecretKey> {
        (**self).origin_key(origin_name)
    }
}

/// What the issuer returns to the attester (draft "Issuer-to-Attester
/// Response").
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct IssuerResponse {
    /// The encrypted blind signature, for the client.
    pub encrypted_token_response: [u8; RESPONSE_LEN],
    /// `BlindPublicKey(request_key, sk_origin, ctx_issuer)`, for the attester.
    pub blinded_request_key: [u8; BLINDED_REQUEST_KEY_LEN],
}

impl fmt::Debug for IssuerResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IssuerResponse")
            .field("blinded_request_key", &Hex(&self.blinded_request_key))
            .finish_non_exhaustive()
    }
}

/// The issuer of type 0x0003 (draft "Issuer Behavior"): its HPKE
/// encapsulation key, its RSA-2048 token key and a table of origin keys.
pub struct Issuer<T> {
    encap: EncapSecretKey,
    encap_key_id: [u8; ENCAP_KEY_ID_LEN],
    token_key: SecretKey,
    origins: T,
    config: Config,
}

/// The HPKE and RSA keys wipe themselves on drop, and so do owned origin keys.
impl<const K: usize> ZeroizeOnDrop for Issuer<[OriginKey<'_>; K]> {}

/// The HPKE and RSA keys wipe themselves on drop; the borrowed origin table is
/// its owner's to wipe.
impl<T: ?Sized> ZeroizeOnDrop for Issuer<&T> {}

impl<T> fmt::Debug for Issuer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Issuer")
            .field("encap_key", self.encap.encap_key())
            .field("token_key", self.token_key.public_key())
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl<T: OriginKeys> Issuer<T> {
    /// An issuer with pat-go's wire choices.
    pub fn new(encap: EncapSecretKey, token_key: SecretKey, origins: T) -> Self {
        let encap_key_id = encap.encap_key().id();
        Self { encap, encap_key_id, token_key, origins, config: Config::PAT_GO }
    }

    /// The same issuer with other wire choices.
    #[must_use]
    pub fn with_config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    /// The `EncapKey` to publish.
    pub const fn encap_key(&self) -> &EncapKey {
        self.encap.encap_key()
    }

    /// `issuer_encap_key_id`, SHA-256 of the `EncapKey`.
    pub const fn encap_key_id(&self) -> &[u8; ENCAP_KEY_ID_LEN] {
        &self.encap_key_id
    }

    /// The RSA public key.
    pub const fn public_key(&self) -> &PublicKey {
        self.token_key.public_key()
    }

    /// The token key to publish: the 342-byte RSASSA-PSS SPKI.
    pub fn token_key(&self) -> [u8; 342] {
        self.token_key.public_key().to_spki_array()
    }

    /// The token_key_id.
    pub const fn key_id(&self) -> &[u8; KEY_ID_LEN] {
        self.token_key.public_key().key_id()
    }

    /// The origin key table.
    pub const fn origins(&self) -> &T {
        &self.origins
    }

    /// Evaluates a request (draft "Issuer Behavior"), in this order:
    ///
    /// 1. `issuer_encap_key_id` must be this issuer's ([`Error::KeyIdMismatch`];
    ///    pat-go does not check).
    /// 2. `request_key` must be a point ([`Error::InvalidElement`]) under which
    ///    the signature verifies ([`Error::Verification`]).
    /// 3. The ciphertext must decrypt ([`Error::Verification`]) into a strictly
    ///    parsed, minimally padded `InnerTokenRequest` (parse errors).
    /// 4. Its `token_key_id` byte must match the RSA key ([`Error::KeyIdMismatch`];
    ///    pat-go does not check).
    /// 5. The origin must be in the table ([`Error::UnknownOrigin`]).
    /// 6. `blinded_request_key = BlindPublicKey(request_key, sk_origin,
    ///    ctx_issuer)`; the blinded message is signed in constant time with a
    ///    fault check (RFC 9474 §4.3) and encrypted to the client.
    ///
    /// `scratch` holds the plaintext ([`scratch_len`] bytes, else
    /// [`Error::BufferTooSmall`]) and is zeroed before returning.
    pub fn evaluate<R: TryCryptoRng + ?Sized>(
        &self,
        request: &TokenRequest<'_>,
        scratch: &mut [u8],
        rng: &mut R,
    ) -> Result<IssuerResponse> {
        if !bool::from(request.issuer_encap_key_id.ct_eq(&self.encap_key_id)) {
            return Err(Error::KeyIdMismatch);
        }
        let request_key = ecdsa::PublicKey::from_bytes(request.request_key)?;
        request.verify_signature()?;
        let used = scratch_len(request).min(scratch.len());
        let result = self.open_and_sign(request, &request_key, scratch, rng);
        if let Some(s) = scratch.get_mut(..used) {
            s.zeroize();
        }
        result
    }

    fn open_and_sign<R: TryCryptoRng + ?Sized>(
        &self,
        request: &TokenRequest<'_>,
        request_key: &ecdsa::PublicKey,
        scratch: &mut [u8],
        rng: &mut R,
    ) -> Result<IssuerResponse> {
        let (inner, encap) = origin_encryption::decrypt_origin_request(
            &self.encap,
            request.request_key,
            request.encrypted_token_request,
            &self.config.labels,
            scratch,
        )?;
        if inner.token_key_id != self.config.key_id_byte.truncate(self.key_id()) {
            return Err(Error::KeyIdMismatch);
        }
        let origin_key = self.origins.origin_key(inner.origin_name).ok_or(Error::UnknownOrigin)?;
        let blinded_request_key =
            alias::blinded_request_key(request_key, origin_key, CTX_ISSUER, self.config.blind_encoding)?.to_bytes();
        let blind_sig = Zeroizing::new(blind_rsa::blind_sign(&self.token_key, inner.blinded_msg)?);
        let encrypted_token_response = response::encrypt_response(&encap, &blind_sig, rng)?;
        Ok(IssuerResponse { encrypted_token_response, blinded_request_key })
    }
}

/// Origin verification for type 0x0003: the same RSASSA-PSS check as type
/// 0x0002 (RFC 9578 §6.4) with the type code 0x0003.
#[derive(Clone, Debug)]
pub struct Origin {
    key: PublicKey,
}

impl Origin {
    /// An origin trusting the issuer with this RSA public key.
    pub const fn new(key: PublicKey) -> Self {
        Self { key }
    }

    /// Verifies a token: its type, the challenge digest, the key id, then the
    /// signature ([`Error::Verification`]).
    pub fn verify(&self, token: &RateLimitedToken, challenge: &TokenChallenge<'_>) -> Result<()> {
        super::public::verify_token(&self.key, TokenKind::RateLimitedRsa2048, token, challenge)
    }
}
