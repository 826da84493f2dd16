//! Token and token_input (RFC 9577 §2.2).
//!
//! ```text
//! struct {
//!     uint16_t token_type;
//!     uint8_t nonce[32];
//!     uint8_t challenge_digest[32];
//!     uint8_t token_key_id[Nid];
//!     uint8_t authenticator[Nk];
//! } Token;
//! ```
//!
//! The first 98 bytes, everything but the authenticator, are the
//! *token_input*: the VOPRF input or the RSA message that the authenticator
//! covers. [`TokenRef`] parses any known type without copying; [`Token`] owns a
//! token of one authenticator length.

use subtle::{Choice, ConstantTimeEq};
use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::error::{Error, Field, Result};
use crate::hex::Hex;
use crate::wire::challenge::TokenChallenge;
use crate::wire::codec::{Decode, Encode, Reader, Writer};
use crate::wire::token_type::{CHALLENGE_DIGEST_LEN, KEY_ID_LEN, NONCE_LEN, TOKEN_INPUT_LEN, TokenKind};

/// The token fields the authenticator covers (RFC 9577 §2.2, "token_input").
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct TokenInput {
    kind: TokenKind,
    bytes: [u8; TOKEN_INPUT_LEN],
}

impl TokenInput {
    /// Assembles type ‖ nonce ‖ challenge_digest ‖ token_key_id.
    pub fn new(
        kind: TokenKind,
        nonce: &[u8; NONCE_LEN],
        challenge_digest: &[u8; CHALLENGE_DIGEST_LEN],
        token_key_id: &[u8; KEY_ID_LEN],
    ) -> Self {
        let mut bytes = [0u8; TOKEN_INPUT_LEN];
        let (ty, rest) = bytes.split_at_mut(2);
        let (n, rest) = rest.split_at_mut(NONCE_LEN);
        let (d, k) = rest.split_at_mut(CHALLENGE_DIGEST_LEN);
        ty.copy_from_slice(&kind.code().to_be_bytes());
        n.copy_from_slice(nonce);
        d.copy_from_slice(challenge_digest);
        k.copy_from_slice(token_key_id);
        Self { kind, bytes }
    }

    /// Builds the token_input for a challenge: its type and digest, a fresh
    /// nonce and the issuer's key id. Fails if the challenge's type is unknown.
    pub fn for_challenge(
        challenge: &TokenChallenge<'_>,
        nonce: &[u8; NONCE_LEN],
        token_key_id: &[u8; KEY_ID_LEN],
    ) -> Result<Self> {
        Ok(Self::new(challenge.kind()?, nonce, &challenge.digest(), token_key_id))
    }

    /// Parses 98 bytes; the type must be known.
    pub fn from_bytes(bytes: &[u8; TOKEN_INPUT_LEN]) -> Result<Self> {
        let kind = TokenKind::from_code(u16::from_be_bytes(*fields(bytes).0))?;
        Ok(Self { kind, bytes: *bytes })
    }

    /// The encoded 98 bytes.
    pub const fn as_bytes(&self) -> &[u8; TOKEN_INPUT_LEN] {
        &self.bytes
    }

    /// The token type.
    pub const fn kind(&self) -> TokenKind {
        self.kind
    }

    /// The client nonce.
    pub fn nonce(&self) -> &[u8; NONCE_LEN] {
        fields(&self.bytes).1
    }

    /// SHA-256 of the TokenChallenge.
    pub fn challenge_digest(&self) -> &[u8; CHALLENGE_DIGEST_LEN] {
        fields(&self.bytes).2
    }

    /// SHA-256 of the issuer's public key.
    pub fn token_key_id(&self) -> &[u8; KEY_ID_LEN] {
        fields(&self.bytes).3
    }
}

impl core::fmt::Debug for TokenInput {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TokenInput")
            .field("kind", &self.kind())
            .field("nonce", &Hex(self.nonce()))
            .field("challenge_digest", &Hex(self.challenge_digest()))
            .field("token_key_id", &Hex(self.token_key_id()))
            .finish()
    }
}

/// Splits token_input into its four fixed fields (the fallbacks are unreachable:
/// the array lengths add up to `TOKEN_INPUT_LEN`).
fn fields(
    bytes: &[u8; TOKEN_INPUT_LEN],
) -> (&[u8; 2], &[u8; NONCE_LEN], &[u8; CHALLENGE_DIGEST_LEN], &[u8; KEY_ID_LEN]) {
    let (ty, rest) = bytes.split_first_chunk::<2>().unwrap_or((&[0; 2], &[]));
    let (n, rest) = rest.split_first_chunk::<NONCE_LEN>().unwrap_or((&[0; NONCE_LEN], &[]));
    let (d, rest) = rest.split_first_chunk::<CHALLENGE_DIGEST_LEN>().unwrap_or((&[0; CHALLENGE_DIGEST_LEN], &[]));
    let (k, _) = rest.split_first_chunk::<KEY_ID_LEN>().unwrap_or((&[0; KEY_ID_LEN], &[]));
    (ty, n, d, k)
}

/// A token of any known type, borrowed from its encoding (RFC 9577 §2.2).
///
/// Equality is constant time ([`ConstantTimeEq`]); `Debug` shows the token
/// input but not the authenticator (a bearer credential until redeemed).
#[derive(Clone, Copy)]
pub struct TokenRef<'a> {
    input: TokenInput,
    authenticator: &'a [u8],
}

impl<'a> TokenRef<'a> {
    /// Pairs a token_input with an authenticator of the type's length Nk.
    pub fn new(input: TokenInput, authenticator: &'a [u8]) -> Result<Self> {
        if authenticator.len() != input.kind().nk() {
            return Err(Error::InvalidLength(Field::Authenticator));
        }
        Ok(Self { input, authenticator })
    }

    /// The token type.
    pub fn kind(&self) -> TokenKind {
        self.input.kind()
    }

    /// The 98-byte token_input the authenticator covers.
    pub const fn input(&self) -> &TokenInput {
        &self.input
    }

    /// The authenticator (Nk bytes).
    pub const fn authenticator(&self) -> &'a [u8] {
        self.authenticator
    }
}

impl ConstantTimeEq for TokenRef<'_> {
    /// Constant time in the contents; the lengths (public, fixed by the type) may leak.
    fn ct_eq(&self, other: &Self) -> Choice {
        self.input.as_bytes().ct_eq(other.input.as_bytes()) & self.authenticator.ct_eq(other.authenticator)
    }
}

impl PartialEq for TokenRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.ct_eq(other).into()
    }
}

impl Eq for TokenRef<'_> {}

impl core::fmt::Debug for TokenRef<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TokenRef").field("input", &self.input).finish_non_exhaustive()
    }
}

impl<'a> Decode<'a> for TokenRef<'a> {
    fn decode_from(r: &mut Reader<'a>) -> Result<Self> {
        let input = TokenInput::from_bytes(r.array::<TOKEN_INPUT_LEN>()?)?;
        let authenticator = r.take(input.kind().nk())?;
        Ok(Self { input, authenticator })
    }
}

impl Encode for TokenRef<'_> {
    fn encoded_len(&self) -> usize {
        TOKEN_INPUT_LEN + self.authenticator.len()
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        w.put(self.input.as_bytes())?;
        w.put(self.authenticator)
    }
}

/// An owned token whose authenticator is `NK` bytes.
///
/// `Token<48>` holds type 0x0001 tokens, `Token<64>` type 0x0005 and
/// `Token<256>` types 0x0002 and 0x0003. Equality is constant time
/// ([`ConstantTimeEq`]), since an origin compares authenticators it computed.
/// The authenticator is a bearer credential until redeemed: it is wiped on
/// drop and `Debug` shows only the token input.
#[derive(Clone)]
pub struct Token<const NK: usize> {
    input: TokenInput,
    authenticator: [u8; NK],
}

impl<const NK: usize> Token<NK> {
    /// Pairs a token_input with its authenticator; the type's Nk must be `NK`.
    pub fn new(input: TokenInput, authenticator: [u8; NK]) -> Result<Self> {
        if input.kind().nk() != NK {
            return Err(Error::InvalidLength(Field::Authenticator));
        }
        Ok(Self { input, authenticator })
    }

    /// The token type.
    pub fn kind(&self) -> TokenKind {
        self.input.kind()
    }

    /// The 98-byte token_input the authenticator covers.
    pub const fn input(&self) -> &TokenInput {
        &self.input
    }

    /// The authenticator.
    pub const fn authenticator(&self) -> &[u8; NK] {
        &self.authenticator
    }

    /// A borrowed view.
    pub fn as_ref(&self) -> TokenRef<'_> {
        TokenRef { input: self.input, authenticator: &self.authenticator }
    }
}

impl<const NK: usize> core::fmt::Debug for Token<NK> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Token").field("input", &self.input).finish_non_exhaustive()
    }
}

impl<const NK: usize> Drop for Token<NK> {
    fn drop(&mut self) {
        self.authenticator.zeroize();
    }
}

impl<const NK: usize> ZeroizeOnDrop for Token<NK> {}

impl<const NK: usize> ConstantTimeEq for Token<NK> {
    fn ct_eq(&self, other: &Self) -> Choice {
        self.input.as_bytes().ct_eq(other.input.as_bytes()) & self.authenticator.ct_eq(&other.authenticator)
    }
}

impl<const NK: usize> PartialEq for Token<NK> {
    fn eq(&self, other: &Self) -> bool {
        self.ct_eq(other).into()
    }
}

impl<const NK: usize> Eq for Token<NK> {}

impl<'a, const NK: usize> Decode<'a> for Token<NK> {
    fn decode_from(r: &mut Reader<'a>) -> Result<Self> {
        let t = TokenRef::decode_from(r)?;
        let authenticator =
            <[u8; NK]>::try_from(t.authenticator).map_err(|_| Error::InvalidLength(Field::Authenticator))?;
        Self::new(t.input, authenticator)
    }
}

impl<const NK: usize> Encode for Token<NK> {
    fn encoded_len(&self) -> usize {
        TOKEN_INPUT_LEN + NK
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        self.as_ref().encode_into(w)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn sample(kind: TokenKind) -> TokenInput {
        TokenInput::new(kind, &[1; 32], &[2; 32], &[3; 32])
    }

    #[test]
    fn token_input_layout() {
        let t = sample(TokenKind::PublicRsa2048);
        let b = t.as_bytes();
        assert_eq!(&b[..2], &[0, 2]);
        assert_eq!(&b[2..34], &[1; 32]);
        assert_eq!(&b[34..66], &[2; 32]);
        assert_eq!(&b[66..98], &[3; 32]);
        assert_eq!(t.nonce(), &[1; 32]);
        assert_eq!(t.challenge_digest(), &[2; 32]);
        assert_eq!(t.token_key_id(), &[3; 32]);
        assert_eq!(TokenInput::from_bytes(b).unwrap(), t);
    }

    #[test]
    fn token_roundtrip_every_kind() {
        for kind in TokenKind::ALL {
            let input = sample(kind);
            let auth = [0x5a; 256];
            let t = TokenRef::new(input, &auth[..kind.nk()]).unwrap();
            let mut buf = [0u8; 354];
            let n = t.encode(&mut buf).unwrap();
            assert_eq!(n, kind.token_len());
            let d = TokenRef::decode(&buf[..n]).unwrap();
            assert_eq!(d, t);
            assert_eq!(d.kind(), kind);
        }
    }

    #[test]
    fn owned_token_checks_nk() {
        let t = Token::<48>::new(sample(TokenKind::PrivateP384), [9; 48]).unwrap();
        let mut buf = [0u8; 146];
        t.encode(&mut buf).unwrap();
        assert_eq!(Token::<48>::decode(&buf).unwrap(), t);
        assert_eq!(Token::<64>::decode(&buf).err(), Some(Error::InvalidLength(Field::Authenticator)));
        assert_eq!(
            Token::<64>::new(sample(TokenKind::PrivateP384), [9; 64]).err(),
            Some(Error::InvalidLength(Field::Authenticator))
        );
        let other = Token::<48>::new(sample(TokenKind::PrivateP384), [8; 48]).unwrap();
        assert_ne!(t, other);
    }

    #[test]
    fn decode_rejects_malformed() {
        let t = Token::<48>::new(sample(TokenKind::PrivateP384), [9; 48]).unwrap();
        let mut buf = [0u8; 147];
        t.encode(&mut buf).unwrap();
        for n in 0..146 {
            assert_eq!(TokenRef::decode(&buf[..n]).err(), Some(Error::Truncated), "prefix {n}");
        }
        assert_eq!(TokenRef::decode(&buf).err(), Some(Error::TrailingBytes));
        buf[1] = 4;
        assert_eq!(TokenRef::decode(&buf[..146]).err(), Some(Error::UnknownTokenType(4)));
        assert_eq!(
            TokenRef::new(sample(TokenKind::PrivateRistretto255), &[0; 48]).err(),
            Some(Error::InvalidLength(Field::Authenticator))
        );
    }
}
