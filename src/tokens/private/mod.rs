//! Token types 0x0001 and 0x0005, privately verifiable tokens with a VOPRF
//! (RFC 9578 §5; 0x0005 from draft-ietf-privacypass-batched-tokens).
//!
//! ```text
//! TokenRequest  = token_type ‖ truncated_token_key_id ‖ blinded_msg[Ne]
//! TokenResponse = evaluate_msg[Ne] ‖ evaluate_proof[Ns + Ns]
//! Token         = token_input[98] ‖ authenticator[Nh]
//! ```
//!
//! One generic implementation serves both types through [`PrivateTokenType`]:
//! [`PrivateP384`] runs VOPRF(P-384, SHA-384), [`PrivateRistretto255`] runs
//! VOPRF(ristretto255, SHA-512). The token key is the serialized VOPRF public
//! key; token_key_id is its SHA-256. Only the issuer (or an origin sharing its
//! key) can verify a token: it recomputes the PRF and compares in constant time.

use core::fmt;

use sha2::{Digest, Sha256};

use crate::crypto::voprf::{ByteArray, P384Sha384, Ristretto255Sha512, Suite};
use crate::error::Result;
use crate::tokens::state;
use crate::wire::codec::{Decode, Encode};
use crate::wire::token::{Token as WireToken, TokenInput};
use crate::wire::token_type::{KEY_ID_LEN, PrivateP384, PrivateRistretto255, TOKEN_INPUT_LEN, TokenKind, TokenType};

mod client;
mod issuer;
mod wire;

pub use client::{Client, RequestState};
pub use issuer::Issuer;
pub use wire::{TokenRequest, TokenResponse};

// Deterministic variants (explicit blinds, nonces, salts): public only as
// `crate::hazmat`, used inside the crate by the power-on self-test and tests.
#[cfg_attr(not(feature = "hazmat"), allow(dead_code))]
pub(crate) mod deterministic;

mod sealed {
    pub trait Sealed {}
}

/// A privately verifiable token type: a [`TokenType`] with its VOPRF suite.
pub trait PrivateTokenType: TokenType + sealed::Sealed + Copy + fmt::Debug + Default + 'static {
    /// The VOPRF ciphersuite (RFC 9497 §4).
    type Suite: Suite;
    /// The registry entry.
    const KIND: TokenKind;
    /// The owned token, whose authenticator is the suite's PRF output.
    type Token: Clone + fmt::Debug + Eq + Encode + for<'a> Decode<'a>;
    /// The exported [`RequestState`], `[u8; RequestState::<Self>::STATE_LEN]`
    /// (see [`crate::tokens::state`]).
    type StateBytes: ByteArray;

    /// Pairs a token input with its PRF output.
    fn token(input: TokenInput, output: <Self::Suite as Suite>::Output) -> Result<Self::Token>;
    /// The token input of a token.
    fn token_input(token: &Self::Token) -> &TokenInput;
    /// The authenticator of a token.
    fn authenticator(token: &Self::Token) -> &<Self::Suite as Suite>::Output;
}

macro_rules! private_type {
    ($ty:ty, $suite:ty, $kind:expr, $nk:literal) => {
        impl sealed::Sealed for $ty {}
        impl PrivateTokenType for $ty {
            type Suite = $suite;
            const KIND: TokenKind = $kind;
            type Token = WireToken<$nk>;
            // header ‖ token_input ‖ blind ‖ blinded element.
            type StateBytes = [u8; state::HEADER_LEN + TOKEN_INPUT_LEN + <$suite as Suite>::NS + <$suite as Suite>::NE];

            fn token(input: TokenInput, output: [u8; $nk]) -> Result<WireToken<$nk>> {
                WireToken::new(input, output)
            }

            fn token_input(token: &WireToken<$nk>) -> &TokenInput {
                token.input()
            }

            fn authenticator(token: &WireToken<$nk>) -> &[u8; $nk] {
                token.authenticator()
            }
        }
    };
}

private_type!(PrivateP384, P384Sha384, TokenKind::PrivateP384, 48);
private_type!(PrivateRistretto255, Ristretto255Sha512, TokenKind::PrivateRistretto255, 64);

type ElementBytes<T> = <<T as PrivateTokenType>::Suite as Suite>::ElementBytes;
type ScalarBytes<T> = <<T as PrivateTokenType>::Suite as Suite>::ScalarBytes;
type ProofBytes<T> = <<T as PrivateTokenType>::Suite as Suite>::ProofBytes;

/// token_key_id = SHA-256(SerializeElement(pkI)) (RFC 9578 §5).
fn key_id_of(pk: &[u8]) -> [u8; KEY_ID_LEN] {
    Sha256::digest(pk).into()
}

/// A type 0x0001 or 0x0005 token ([`PrivateTokenType::Token`]).
pub type Token<T> = <T as PrivateTokenType>::Token;

/// The origin of a privately verifiable token is its issuer: only the holder
/// of the VOPRF key can check a token ([`Issuer::verify`]).
pub type Origin<T> = Issuer<T>;
