//! Primitives of rate-limited issuance (token type 0x0003,
//! draft-ietf-privacypass-rate-limit-tokens).
//!
//! - [`encap`]: the issuer's HPKE encapsulation key `EncapKey` (draft
//!   "Configuration") and its secret key.
//! - [`inner_request`]: `InnerTokenRequest` and the origin-name padding (draft
//!   "Client to Issuer Encapsulation").
//! - [`origin_encryption`]: HPKE encryption of the `InnerTokenRequest` to the
//!   issuer and the exported response secret (draft "Client to Issuer
//!   Encapsulation").
//! - [`response`]: the issuer → client response encryption (draft "Issuer to
//!   Client Encapsulation").
//! - [`alias`]: request keys, index keys and the issuer-origin alias (draft
//!   "Issuer's Origin Alias Computation").
//!
//! The draft and pat-go (the reference implementation whose vectors this crate
//! passes) disagree in a few places. Each such choice is a parameter or a
//! constant here, and defaults to pat-go's wire behaviour:
//!
//! | choice | pat-go (default) | draft | where |
//! |---|---|---|---|
//! | HPKE `info` | `"TokenRequest"` | `"InnerTokenRequest"` (sender) / `"TokenRequest"` (receiver) | [`Labels`] |
//! | HPKE export label | `"TokenResponse"` | `"OriginTokenResponse"` | [`Labels`] |
//! | inner `token_key_id` | first byte of the key id | last byte, as RFC 9578 | [`KeyIdByte`] |
//! | ECDSA blind encoding | minimal big-endian | fixed 48 bytes | [`BlindKeyEncoding`](crate::crypto::key_blinding::ecdsa_p384::BlindKeyEncoding) |
//! | blinding context | 13-byte contexts in the protocol, empty in the vectors | same | `ctx` parameters of [`alias`] |
//! | `EncapKey.key_id` | 0x01 from a seed, 0x00 when random | unspecified | [`EncapSecretKey::derive`](encap::EncapSecretKey::derive) |
//! | Nk (blinded message) | 256 (RSA-2048) | 512 in the table | [`inner_request::BLINDED_MSG_LEN`] |

pub mod alias;
pub mod encap;
// Deterministic variants (explicit blinds, nonces, salts): public only as
// `crate::hazmat`, used inside the crate by the power-on self-test and tests.
#[cfg_attr(not(feature = "hazmat"), allow(dead_code))]
pub(crate) mod deterministic;
pub mod inner_request;
pub mod origin_encryption;
pub mod response;

pub use encap::{EncapKey, EncapSecretKey};
pub use inner_request::InnerTokenRequest;
pub use origin_encryption::{EncapSecret, decrypt_origin_request, encrypt_origin_request};
pub use response::{decrypt_response, encrypt_response};

use crate::wire::token_type::{RateLimitedRsa2048, TokenType as _};

/// The token type code point, 0x0003 (draft "IANA Considerations").
pub const TOKEN_TYPE: u16 = RateLimitedRsa2048::CODE;

/// The HPKE labels of the origin encryption (draft "Client to Issuer
/// Encapsulation"): the `info` of `SetupBaseS`/`SetupBaseR` and the exporter
/// context of the response secret `Export(label, Nk)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Labels {
    /// The HPKE `info` string, the same on both sides.
    pub info: &'static [u8],
    /// The exporter context of the 16-byte response secret.
    pub exporter_context: &'static [u8],
}

impl Labels {
    /// pat-go's labels: `info = "TokenRequest"`, export `"TokenResponse"`.
    /// The committed vectors use these.
    pub const PAT_GO: Self = Self { info: b"TokenRequest", exporter_context: b"TokenResponse" };

    /// The draft's sender-side labels: `info = "InnerTokenRequest"`, export
    /// `"OriginTokenResponse"`. The draft's receiver text says `"TokenRequest"`
    /// instead, so the draft is not self-consistent; both peers must use the
    /// same value.
    pub const DRAFT: Self = Self { info: b"InnerTokenRequest", exporter_context: b"OriginTokenResponse" };
}

impl Default for Labels {
    /// [`Labels::PAT_GO`].
    fn default() -> Self {
        Self::PAT_GO
    }
}

/// Which byte of the 32-byte token key id the `InnerTokenRequest.token_key_id`
/// field carries (draft "Client to Issuer Encapsulation").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum KeyIdByte {
    /// The first byte, as pat-go does. The default.
    #[default]
    First,
    /// The last (least significant) byte, as RFC 9578 §6.5's
    /// `truncated_token_key_id` and the draft.
    Last,
}

impl KeyIdByte {
    /// The selected byte of `key_id`.
    pub const fn truncate(self, key_id: &[u8; 32]) -> u8 {
        match self {
            KeyIdByte::First => key_id[0],
            KeyIdByte::Last => key_id[31],
        }
    }
}
