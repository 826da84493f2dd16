#![doc = include_str!("../README.md")]
#![no_std]
// docs.rs: items behind a feature say so (`doc_cfg` includes the former `doc_auto_cfg`).
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "std")]
extern crate std;

#[macro_use]
mod secret;
mod hex;
mod json;

pub mod arc;
pub mod auth;
pub mod blind_rsa;
pub mod challenge;
pub mod codec;
mod ct;
pub mod directory;
pub mod error;
pub mod extensions;
#[doc(hidden)]
pub mod fuzzing;
pub mod key_blinding;
pub mod keyset;
pub mod rate_limited;
pub mod replay;
mod rng;
pub mod self_test;
pub mod token;
pub mod token_type;
pub mod types;
pub mod voprf;

pub use challenge::TokenChallenge;
pub use codec::{Decode, Encode};
pub use error::{Error, Field, Result, RngCode, SelfTestKind};
pub use token::{Token, TokenInput, TokenRef};
pub use token_type::{TokenKind, TokenType};

/// The operating system's random number generator (feature `std`): a
/// `rand_core::TryCryptoRng` whose failures surface as errors, never panics.
#[cfg(feature = "std")]
pub use getrandom::SysRng as OsRng;

pub use rand_core;
