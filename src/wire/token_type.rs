//! The Privacy Pass token type registry (RFC 9578 §8.2.1, the rate-limit and
//! batched-tokens drafts).
//!
//! Each token type is a zero-sized type implementing [`TokenType`]: its code
//! point and every wire size are associated consts, so code generic over a
//! type needs no runtime lookups. [`TokenKind`] is the runtime view of the
//! same registry, used where the type is only known after parsing.

use crate::error::{Error, Result};

/// Length of the token nonce (RFC 9577 §2.2).
pub const NONCE_LEN: usize = 32;
/// Length of the challenge digest, SHA-256 of the TokenChallenge (RFC 9577 §2.2).
pub const CHALLENGE_DIGEST_LEN: usize = 32;
/// Length of the token key id, SHA-256 of the issuer's public key (RFC 9578 §8.2.1: Nid).
pub const KEY_ID_LEN: usize = 32;
/// Length of `token_input`, the first part of a token that the authenticator
/// covers: type ‖ nonce ‖ challenge_digest ‖ token_key_id (RFC 9577 §2.2).
pub const TOKEN_INPUT_LEN: usize = 2 + NONCE_LEN + CHALLENGE_DIGEST_LEN + KEY_ID_LEN;

/// The length of the `Authorization` value that
/// [`write_authorization`](crate::wire::auth::write_authorization) writes for
/// an encoded token of `token_len` bytes: `PrivateToken token="` ‖
/// base64url(token) ‖ `"` (RFC 9577 §2.2). For the token types of this crate
/// it is also [`TokenType::AUTHORIZATION_LEN`]. (Also at
/// `wire::auth::authorization_len`; it lives here so that the registry does
/// not depend on the header module.)
pub const fn authorization_len(token_len: usize) -> usize {
    // `PrivateToken token="`, the padded base64url the builders write, `"`.
    let digits = token_len.div_ceil(3).saturating_mul(4);
    digits.saturating_add("PrivateToken token=\"".len() + 1)
}

/// The size of a message on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum MessageLen {
    /// Always exactly this many bytes.
    Fixed(usize),
    /// Depends on the content (for example a padded origin name), within these bounds.
    Range {
        /// The smallest encoding.
        min: usize,
        /// The largest encoding.
        max: usize,
    },
}

impl MessageLen {
    /// Whether `len` is a possible size.
    pub const fn admits(self, len: usize) -> bool {
        match self {
            MessageLen::Fixed(n) => len == n,
            MessageLen::Range { min, max } => min <= len && len <= max,
        }
    }

    /// The smallest possible size.
    pub const fn min(self) -> usize {
        match self {
            MessageLen::Fixed(n) | MessageLen::Range { min: n, .. } => n,
        }
    }

    /// The largest possible size: a buffer of this length holds every message.
    pub const fn max(self) -> usize {
        match self {
            MessageLen::Fixed(n) | MessageLen::Range { max: n, .. } => n,
        }
    }
}

/// One token type of the registry.
///
/// The sizes are associated consts. The `usize` ones can size arrays for a
/// concrete type:
///
/// ```
/// use pat::wire::token_type::{PrivateRistretto255, TokenType};
///
/// let request = [0u8; PrivateRistretto255::REQUEST_MAX_LEN]; // 35 bytes
/// let response = [0u8; PrivateRistretto255::RESPONSE_MAX_LEN]; // 96
/// let token = [0u8; PrivateRistretto255::TOKEN_LEN]; // 162
/// let header = [0u8; PrivateRistretto255::AUTHORIZATION_LEN]; // 237
/// # let _ = (request, response, token, header);
/// ```
pub trait TokenType {
    /// The 2-byte code point.
    const CODE: u16;
    /// The registry's name for the type.
    const NAME: &'static str;
    /// Length of the token key id (Nid).
    const NID: usize = KEY_ID_LEN;
    /// Length of the authenticator (Nk).
    const NK: usize;
    /// Length of a TokenRequest.
    const REQUEST_LEN: MessageLen;
    /// Length of a TokenResponse.
    const RESPONSE_LEN: MessageLen;
    /// Length of a whole Token: token_input ‖ authenticator.
    const TOKEN_LEN: usize = TOKEN_INPUT_LEN + Self::NK;
    /// The longest TokenRequest, [`Self::REQUEST_LEN`]'s maximum: the exact
    /// length for every type but 0x0003, whose requests grow with the origin
    /// name (see [`RateLimitedRsa2048::request_len_for_origin`]).
    const REQUEST_MAX_LEN: usize = Self::REQUEST_LEN.max();
    /// The longest TokenResponse, [`Self::RESPONSE_LEN`]'s maximum (every
    /// type's responses have one length).
    const RESPONSE_MAX_LEN: usize = Self::RESPONSE_LEN.max();
    /// Length of the `Authorization` value `PrivateToken token="<base64url>"`
    /// that [`write_authorization`](crate::wire::auth::write_authorization) writes
    /// for a token of this type (RFC 9577 §2.2).
    const AUTHORIZATION_LEN: usize = authorization_len(Self::TOKEN_LEN);
}

/// Type 0x0001: VOPRF(P-384, SHA-384), privately verifiable (RFC 9578 §5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PrivateP384;

impl TokenType for PrivateP384 {
    const CODE: u16 = 0x0001;
    const NAME: &'static str = "VOPRF(P-384, SHA-384)";
    const NK: usize = 48;
    // token_type ‖ truncated key id ‖ blinded element (49).
    const REQUEST_LEN: MessageLen = MessageLen::Fixed(2 + 1 + 49);
    // evaluated element (49) ‖ proof c (48) ‖ proof s (48).
    const RESPONSE_LEN: MessageLen = MessageLen::Fixed(49 + 48 + 48);
}

/// Type 0x0002: Blind RSA (2048-bit), publicly verifiable (RFC 9578 §6).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PublicRsa2048;

impl TokenType for PublicRsa2048 {
    const CODE: u16 = 0x0002;
    const NAME: &'static str = "Blind RSA (2048-bit)";
    const NK: usize = 256;
    const REQUEST_LEN: MessageLen = MessageLen::Fixed(2 + 1 + 256);
    const RESPONSE_LEN: MessageLen = MessageLen::Fixed(256);
}

/// Type 0x0003: rate-limited Blind RSA (2048-bit) with ECDSA P-384 key
/// blinding (draft-ietf-privacypass-rate-limit-tokens).
///
/// Nk is 256 as in pat-go (an RSA-2048 signature), not the draft table's 512.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RateLimitedRsa2048;

impl RateLimitedRsa2048 {
    /// The fixed part of a request: type (2) ‖ request_key (49) ‖
    /// issuer_encap_key_id (32) ‖ length (2) ‖ enc (32) ‖ inner token_key_id (1) ‖
    /// blinded_msg (256) ‖ origin length (2) ‖ AEAD tag (16) ‖ signature (96);
    /// the padded origin name (a multiple of 32, at least 32) comes on top.
    const REQUEST_FIXED: usize = 2 + 49 + 32 + 2 + 32 + 1 + 256 + 2 + 16 + 96;
    /// The padding block of the origin name.
    const PAD_BLOCK: usize = 32;

    /// Length of the TokenRequest for an origin name of `origin_name_len`
    /// bytes: 520 bytes up to 32 bytes of name, 32 more per started block of
    /// 32. A name longer than a request can carry
    /// ([`tokens::rate_limited::MAX_ORIGIN_NAME_LEN`](crate::tokens::rate_limited::MAX_ORIGIN_NAME_LEN),
    /// 65,216 bytes) gives [`Self::REQUEST_MAX_LEN`], so the result always
    /// sizes a buffer that holds the request.
    ///
    /// ```
    /// use pat::wire::token_type::RateLimitedRsa2048;
    ///
    /// let request = [0u8; RateLimitedRsa2048::request_len_for_origin(b"origin.example".len())];
    /// assert_eq!(request.len(), 520);
    /// ```
    pub const fn request_len_for_origin(origin_name_len: usize) -> usize {
        let blocks = if origin_name_len == 0 { 1 } else { origin_name_len.div_ceil(Self::PAD_BLOCK) };
        let len = Self::REQUEST_FIXED.saturating_add(blocks.saturating_mul(Self::PAD_BLOCK));
        if len > Self::REQUEST_MAX_LEN { Self::REQUEST_MAX_LEN } else { len }
    }
}

impl TokenType for RateLimitedRsa2048 {
    const CODE: u16 = 0x0003;
    const NAME: &'static str = "Rate-Limited Blind RSA (2048-bit), ECDSA P-384";
    const NK: usize = 256;
    const REQUEST_LEN: MessageLen = MessageLen::Range {
        min: Self::REQUEST_FIXED + 32,
        // encrypted_token_request has a 2-byte length: at most 65535 bytes, of
        // which 32 (enc) + 1 + 256 + 2 + 16 are fixed; the padded origin is a
        // multiple of 32 below the rest.
        max: Self::REQUEST_FIXED + ((65535 - (32 + 1 + 256 + 2 + 16)) / Self::PAD_BLOCK) * Self::PAD_BLOCK,
    };
    // response_nonce (16) ‖ AES-GCM(blind signature) (256 + 16).
    const RESPONSE_LEN: MessageLen = MessageLen::Fixed(16 + 256 + 16);
}

/// Type 0x0005: VOPRF(ristretto255, SHA-512), privately verifiable
/// (draft-ietf-privacypass-batched-tokens, RFC 9578 §5 protocol).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PrivateRistretto255;

impl TokenType for PrivateRistretto255 {
    const CODE: u16 = 0x0005;
    const NAME: &'static str = "VOPRF(ristretto255, SHA-512)";
    const NK: usize = 64;
    const REQUEST_LEN: MessageLen = MessageLen::Fixed(2 + 1 + 32);
    const RESPONSE_LEN: MessageLen = MessageLen::Fixed(32 + 32 + 32);
}

/// Token type 0xDA7A, Partially Blind RSA (2048-bit) with public metadata
/// (draft-ietf-privacypass-public-metadata-issuance; [`crate::tokens::metadata`]).
///
/// The request is the type 0x0002 request followed by an `Extensions` list
/// of 2 to 65,537 bytes; the response and the token have the type 0x0002
/// sizes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PublicMetadataRsa2048;

impl TokenType for PublicMetadataRsa2048 {
    const CODE: u16 = 0xDA7A;
    const NAME: &'static str = "Partially Blind RSA (2048-bit)";
    const NK: usize = 256;
    const REQUEST_LEN: MessageLen = MessageLen::Range { min: 2 + 1 + 256 + 2, max: 2 + 1 + 256 + 2 + 0xffff };
    const RESPONSE_LEN: MessageLen = MessageLen::Fixed(256);
}

/// Token type 0xDA7B, the partially oblivious PRF POPRF(P-384, SHA-384) with
/// public metadata, privately verifiable
/// (draft-ietf-privacypass-public-metadata-issuance-03 §5;
/// [`crate::tokens::poprf`]).
///
/// The request is the type 0x0001 request followed by an `Extensions` list
/// of 2 to 65,537 bytes; the response and the token have the type 0x0001
/// sizes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PublicMetadataP384;

impl TokenType for PublicMetadataP384 {
    const CODE: u16 = 0xDA7B;
    const NAME: &'static str = "Partially Oblivious PRF, OPRF(P-384, SHA-384)";
    const NK: usize = 48;
    const REQUEST_LEN: MessageLen = MessageLen::Range { min: 2 + 1 + 49 + 2, max: 2 + 1 + 49 + 2 + 0xffff };
    const RESPONSE_LEN: MessageLen = MessageLen::Fixed(49 + 48 + 48);
}

/// The token types this crate knows, as a runtime value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum TokenKind {
    /// 0x0001, see [`PrivateP384`].
    PrivateP384,
    /// 0x0002, see [`PublicRsa2048`].
    PublicRsa2048,
    /// 0x0003, see [`RateLimitedRsa2048`].
    RateLimitedRsa2048,
    /// 0x0005, see [`PrivateRistretto255`].
    PrivateRistretto255,
    /// 0xDA7A, see [`PublicMetadataRsa2048`].
    PublicMetadataRsa2048,
    /// 0xDA7B, see [`PublicMetadataP384`].
    PublicMetadataP384,
}

/// Expands to a `match` on a [`TokenKind`] that reads one associated const of
/// the matching zero-sized type, so the registry has a single source of truth.
macro_rules! per_kind {
    ($kind:expr, $konst:ident) => {
        match $kind {
            TokenKind::PrivateP384 => <PrivateP384 as TokenType>::$konst,
            TokenKind::PublicRsa2048 => <PublicRsa2048 as TokenType>::$konst,
            TokenKind::RateLimitedRsa2048 => <RateLimitedRsa2048 as TokenType>::$konst,
            TokenKind::PrivateRistretto255 => <PrivateRistretto255 as TokenType>::$konst,
            TokenKind::PublicMetadataRsa2048 => <PublicMetadataRsa2048 as TokenType>::$konst,
            TokenKind::PublicMetadataP384 => <PublicMetadataP384 as TokenType>::$konst,
        }
    };
}

impl TokenKind {
    /// Every known kind, in code-point order.
    pub const ALL: [TokenKind; 6] = [
        TokenKind::PrivateP384,
        TokenKind::PublicRsa2048,
        TokenKind::RateLimitedRsa2048,
        TokenKind::PrivateRistretto255,
        TokenKind::PublicMetadataRsa2048,
        TokenKind::PublicMetadataP384,
    ];

    /// Looks up a code point; unknown codes are [`Error::UnknownTokenType`].
    pub const fn from_code(code: u16) -> Result<Self> {
        match code {
            PrivateP384::CODE => Ok(TokenKind::PrivateP384),
            PublicRsa2048::CODE => Ok(TokenKind::PublicRsa2048),
            RateLimitedRsa2048::CODE => Ok(TokenKind::RateLimitedRsa2048),
            PrivateRistretto255::CODE => Ok(TokenKind::PrivateRistretto255),
            PublicMetadataRsa2048::CODE => Ok(TokenKind::PublicMetadataRsa2048),
            PublicMetadataP384::CODE => Ok(TokenKind::PublicMetadataP384),
            other => Err(Error::UnknownTokenType(other)),
        }
    }

    /// The 2-byte code point.
    pub const fn code(self) -> u16 {
        per_kind!(self, CODE)
    }

    /// The registry's name.
    pub const fn name(self) -> &'static str {
        per_kind!(self, NAME)
    }

    /// Length of the token key id (Nid).
    pub const fn nid(self) -> usize {
        per_kind!(self, NID)
    }

    /// Length of the authenticator (Nk).
    pub const fn nk(self) -> usize {
        per_kind!(self, NK)
    }

    /// Length of a TokenRequest.
    pub const fn request_len(self) -> MessageLen {
        per_kind!(self, REQUEST_LEN)
    }

    /// Length of a TokenResponse.
    pub const fn response_len(self) -> MessageLen {
        per_kind!(self, RESPONSE_LEN)
    }

    /// Length of a whole Token.
    pub const fn token_len(self) -> usize {
        per_kind!(self, TOKEN_LEN)
    }

    /// The longest TokenRequest ([`TokenType::REQUEST_MAX_LEN`]).
    pub const fn request_max_len(self) -> usize {
        per_kind!(self, REQUEST_MAX_LEN)
    }

    /// The longest TokenResponse ([`TokenType::RESPONSE_MAX_LEN`]).
    pub const fn response_max_len(self) -> usize {
        per_kind!(self, RESPONSE_MAX_LEN)
    }

    /// Length of the `Authorization` value for a token of this kind
    /// ([`TokenType::AUTHORIZATION_LEN`]).
    pub const fn authorization_len(self) -> usize {
        per_kind!(self, AUTHORIZATION_LEN)
    }
}

impl TryFrom<u16> for TokenKind {
    type Error = Error;

    fn try_from(code: u16) -> Result<Self> {
        Self::from_code(code)
    }
}

impl From<TokenKind> for u16 {
    fn from(kind: TokenKind) -> u16 {
        kind.code()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_sizes_match_reference() {
        // protocol-reference §2: request / response / token sizes.
        let table = [
            (0x0001, 48, MessageLen::Fixed(52), MessageLen::Fixed(145), 146),
            (0x0002, 256, MessageLen::Fixed(259), MessageLen::Fixed(256), 354),
            (0x0005, 64, MessageLen::Fixed(35), MessageLen::Fixed(96), 162),
            // draft-ietf-privacypass-public-metadata-issuance: the type
            // 0x0002 request and an Extensions list of 2..=65,537 bytes.
            (0xDA7A, 256, MessageLen::Range { min: 261, max: 65_796 }, MessageLen::Fixed(256), 354),
            // draft-ietf-privacypass-public-metadata-issuance-03 §5: the type
            // 0x0001 request and an Extensions list of 2..=65,537 bytes.
            (0xDA7B, 48, MessageLen::Range { min: 54, max: 65_589 }, MessageLen::Fixed(145), 146),
        ];
        for (code, nk, req, resp, tok) in table {
            let kind = TokenKind::from_code(code).unwrap_or(TokenKind::RateLimitedRsa2048);
            assert_eq!(kind.code(), code);
            assert_eq!(kind.nk(), nk);
            assert_eq!(kind.nid(), 32);
            assert_eq!(kind.request_len(), req);
            assert_eq!(kind.response_len(), resp);
            assert_eq!(kind.token_len(), tok);
        }
        let t3 = TokenKind::RateLimitedRsa2048;
        assert_eq!(t3.token_len(), 354);
        assert_eq!(t3.response_len(), MessageLen::Fixed(288));
        // A 12-byte origin pads to 32 bytes: the 520-byte request of the reference.
        assert!(t3.request_len().admits(520));
        assert!(!t3.request_len().admits(519));
        assert_eq!(TOKEN_INPUT_LEN, 98);
    }

    #[test]
    fn unknown_codes_are_errors() {
        for code in [0x0000, 0x0004, 0x0006, 0xda7c, 0xf91a, 0xffff] {
            assert_eq!(TokenKind::from_code(code), Err(Error::UnknownTokenType(code)));
        }
        for kind in TokenKind::ALL {
            assert_eq!(TokenKind::try_from(u16::from(kind)), Ok(kind));
        }
    }
}
