//! Token type 0x0003, rate-limited tokens with blind RSA and ECDSA P-384 key
//! blinding (draft-ietf-privacypass-rate-limit-tokens), with pat-go's wire
//! choices by default (see [`crate::crypto::rate_limited`] for the table of choices).
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
//!    [`InnerTokenRequest`](crate::crypto::rate_limited::InnerTokenRequest) naming the origin, and an ECDSA signature over
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
//!
//! # Example
//!
//! The attester knows its clients' keys and limits tokens per client and origin
//! without learning the origin: it checks the request before the issuer sees it
//! and counts the token before it forwards the issuer's answer.
//!
//! ```rust
//! # #[cfg(feature = "keygen")]
//! # fn main() -> pat::Result<()> {
//! use pat::wire::codec::Decode;
//! use pat::crypto::key_blinding::ecdsa_p384 as ecdsa;
//! use pat::crypto::rate_limited::encap::EncapSecretKey;
//! use pat::tokens::rate_limited::{Attester, Client, Issuer, Origin, OriginKey, Policy, TokenKey, TokenRequest};
//! use pat::{OsRng, TokenChallenge};
//!
//! let mut rng = pat::rand_core::UnwrapErr(OsRng);
//! let origins = [OriginKey::new(b"origin.example", ecdsa::SecretKey::random(&mut rng)?)];
//! let issuer = Issuer::new(EncapSecretKey::random(1, &mut rng)?, TokenKey::generate(&mut rng)?, origins);
//! let client = Client::new(ecdsa::SecretKey::random(&mut rng)?, *issuer.encap_key(), issuer.public_key().clone());
//! let mut attester = Attester::<64>::new(Policy { max_tokens: 3, window: 3600 });
//! let challenge = TokenChallenge::new(0x0003, b"issuer.example", &[], b"origin.example")?;
//!
//! // Client → attester: the request, its request blind, an anonymous origin id.
//! let mut wire = [0u8; 520];
//! let (len, mut state) = client.request(&challenge, b"origin.example", &mut rng, &mut wire)?;
//! let request = TokenRequest::decode(&wire[..len])?;
//! let (anonymous_origin_id, now) = ([0xa1; 32], 1_000); // time in the caller's unit
//! attester.process(&request, client.client_key(), state.request_blind(), &anonymous_origin_id, now)?;
//!
//! // Issuer; then the attester counts the token and forwards the response.
//! let response = issuer.evaluate(&request, &mut [0u8; 512], &mut rng)?; // 512: scratch space
//! let key = &response.blinded_request_key;
//! attester.finalize_index(client.client_key(), state.request_blind(), key, &anonymous_origin_id, now)?;
//! // Client: decrypt, unblind, verify; origin: verify.
//! let token = client.finalize(&mut state, &response.encrypted_token_response)?;
//! Origin::new(issuer.public_key().clone()).verify(&token, &challenge)?;
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "keygen"))]
//! # fn main() {}
//! ```

// One job per file: this one holds what every role shares (the TokenRequest
// and its codec, the sizes, `Config`); `client.rs`, `attester.rs`,
// `issuer.rs` and `origin.rs` hold one role each, and `store.rs` the
// rate-limit table the attester keeps.

mod attester;
mod client;
// Deterministic variants (explicit blinds, nonces, salts): public only as
// `crate::hazmat`, used inside the crate by the power-on self-test and tests.
#[cfg_attr(not(feature = "hazmat"), allow(dead_code))]
pub(crate) mod deterministic;
mod issuer;
mod key;
mod origin;
mod store;

use core::fmt;

use sha2::{Digest as _, Sha384};

use super::expect_type;
use crate::crypto::blind_rsa::MODULUS_LEN;
use crate::crypto::key_blinding::ecdsa_p384::{self as ecdsa, BlindKeyEncoding};
use crate::crypto::rate_limited::encap::ENCAP_KEY_ID_LEN;
use crate::crypto::rate_limited::inner_request;
use crate::crypto::rate_limited::origin_encryption::{ENC_LEN, TAG_LEN};
use crate::crypto::rate_limited::response::ENCRYPTED_RESPONSE_LEN;
use crate::crypto::rate_limited::{KeyIdByte, Labels, TOKEN_TYPE};
use crate::error::{Error, Field, Result};
use crate::hex::Hex;
use crate::wire::codec::{Decode, Encode, Reader, Writer};
use crate::wire::token::Token as WireToken;

pub use attester::Attester;
pub use client::{Client, ClientState};
pub use issuer::{Issuer, IssuerResponse, OriginKey, OriginKeys, scratch_len};
pub use key::TokenKey;
pub use origin::Origin;
pub use store::Policy;

/// A type 0x0003 token: token_input ‖ an RSA-2048 signature (354 bytes).
pub type RateLimitedToken = WireToken<MODULUS_LEN>;

/// A type 0x0003 token, under the name every family uses (the same type as
/// [`RateLimitedToken`]).
pub type Token = RateLimitedToken;

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

/// The wire choices where pat-go and the draft differ, in one place; all
/// parties must agree. [`Config::PAT_GO`] is the default, for pat-go
/// interoperability; [`Config::DRAFT`] is recommended otherwise (its blind
/// encoding is constant time).
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
    /// key id byte, minimal blind encoding. Needed to interoperate with
    /// pat-go; its minimal blind encoding is not constant time and leaks the
    /// number of leading zero bytes of `request_blind` and of the issuer's
    /// origin key (see [`BlindKeyEncoding::Minimal`]).
    pub const PAT_GO: Self =
        Self { labels: Labels::PAT_GO, key_id_byte: KeyIdByte::First, blind_encoding: BlindKeyEncoding::Minimal };

    /// The draft's choices: labels `"InnerTokenRequest"`/`"OriginTokenResponse"`,
    /// the last key id byte, the fixed 48-byte blind encoding (constant
    /// time). The recommended setting wherever pat-go interoperability is not
    /// required; every party of a deployment must use the same one.
    pub const DRAFT: Self =
        Self { labels: Labels::DRAFT, key_id_byte: KeyIdByte::Last, blind_encoding: BlindKeyEncoding::Fixed };
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
