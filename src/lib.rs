//! Privacy Pass issuance protocols (RFC 9576, RFC 9577, RFC 9578 and the
//! drafts that extend them) in `no_std` Rust that never allocates.
//!
//! Every role of every token family: the client that turns a
//! [`TokenChallenge`] into a request and a token, the issuer that evaluates
//! requests, the origin that verifies tokens, and the attester of the
//! rate-limited type. Messages are fixed-size values parsed from borrowed
//! bytes ([`Decode`]) and written into caller buffers ([`Encode`]).
//!
//! # The layers
//!
//! Each top-level module is one layer; a module uses only its own layer and
//! those below it (`tests/layers.rs` fails on an import from above or on a
//! cycle).
//!
//! | layer | what it holds | may use |
//! |---|---|---|
//! | [`deploy`] | issuer directory, key sets with validity windows, replay protection | everything below |
//! | [`tokens`] | one module per token family, with the roles `Client`, `Issuer`, `Origin`, `Attester` and its `Token` (the table in [`tokens`]) | crypto, wire |
//! | [`crypto`] | the primitives: VOPRF, blind RSA, key blinding, type 0x0003's HPKE pieces, ARC | wire |
//! | [`wire`] | codec, challenge, token, the registry of token types, extensions and extension sets, HTTP auth headers | – |
//! | crate-wide | [`error`], randomness, secret wrappers; [`self_test`] (power-on known answers, above `tokens`) | – |
//!
//! The `hazmat` module (feature `hazmat`) holds every entry point that takes
//! a blind, nonce or salt as an argument, for known-answer tests only.
//!
//! # Example
//!
//! A privately verifiable token (type 0x0005): the issuer is also the party
//! that checks it at redemption.
//!
//! ```
//! use pat::tokens::private::{Client, Issuer, TokenRequest, TokenResponse};
//! use pat::wire::token_type::PrivateRistretto255;
//! use pat::{Decode, Encode, OsRng, TokenChallenge};
//!
//! # fn main() -> pat::Result<()> {
//! let mut rng = pat::rand_core::UnwrapErr(OsRng);
//! let issuer = Issuer::<PrivateRistretto255>::generate(&mut rng)?;
//! let challenge = TokenChallenge::new(0x0005, b"issuer.example", &[], b"origin.example")?;
//!
//! let client = Client::<PrivateRistretto255>::from_token_key(issuer.token_key())?;
//! let (request, mut state) = client.request(&challenge, &mut rng)?;
//! let mut wire = [0u8; 35];
//! request.encode(&mut wire)?;
//!
//! let response = issuer.evaluate(&TokenRequest::decode(&wire)?, &mut rng)?;
//! let mut wire = [0u8; 96];
//! response.encode(&mut wire)?;
//!
//! let token = client.finalize(&mut state, &TokenResponse::decode(&wire)?)?;
//! issuer.verify(&token, &challenge)?;
//! # Ok(())
//! # }
//! ```
//!
//! The project's README (set-up, features, deployment) is on the
//! repository's front page; its examples are compiled and run as doctests
//! here.
//!
//! # Features
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `std` | yes | OS randomness: [`OsRng`] |
//! | `precomputed-tables` | yes | fixed-base tables for P-384 and P-256 (built in RAM on first use), ristretto255's base point (static), ACT's generators (on the heap at first use, shared by a `Params`' clones) and ARC's G and H (in a `static` at first use), with ARC's Jacobian products on fiat-crypto's P-256 field; needs `std` |
//! | `keygen` | no | RSA-2048 issuer key generation and PKCS#8 export |
//! | `hazmat` | no | the `hazmat` tree of deterministic entry points; never in production |
//! | `defmt` | no | `defmt::Format` for the error and registry types a firmware logs |
//!
//! Not a feature: on x86_64, a build with `--cfg
//! curve25519_dalek_backend="avx512"` in `RUSTFLAGS` lets curve25519-dalek
//! choose its AVX-512 IFMA backend at run time where the CPU has it, for
//! every curve25519 product (types 0x0005 and 0xDA7B, ACT, ed25519 key
//! blinding); the repository's own builds set it (`.cargo/config.toml`).
#![no_std]
// docs.rs: items behind a feature say so (`doc_cfg` includes the former `doc_auto_cfg`).
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "std")]
extern crate std;

// Crate-wide: errors, randomness, secrets, constant-time helpers, hex.
#[macro_use]
mod secret;
mod ct;
pub mod error;
mod hex;
mod rng;

// The layers, bottom to top; a module never imports from a layer above its
// own (tests/layers.rs).
pub mod wire;

pub mod crypto;

pub mod tokens;

pub mod deploy;

pub mod self_test;

#[cfg(feature = "hazmat")]
pub mod hazmat;

// The fuzz targets' logic (parse → re-encode → compare), unit-tested here;
// not part of the API.
#[cfg(any(test, feature = "fuzzing"))]
#[doc(hidden)]
pub mod fuzzing;

pub use error::{Error, Field, Result, RngCode, SelfTestKind};
pub use wire::challenge::TokenChallenge;
pub use wire::codec::{Decode, Encode};
pub use wire::token::{Token, TokenInput, TokenRef};
pub use wire::token_type::{TokenKind, TokenType};

/// The operating system's random number generator (feature `std`): a
/// `rand_core::TryCryptoRng` whose failures surface as errors, never panics.
#[cfg(feature = "std")]
pub use getrandom::SysRng as OsRng;

pub use rand_core;

// The README's examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
