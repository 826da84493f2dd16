//! The deployment layer: what a service keeps around the protocols.
//!
//! The issuer directory ([`directory`], RFC 9578 §4), sets of keys with their
//! validity windows for rotation ([`keyset`]) and double-spend protection
//! ([`replay`], RFC 9577 §2.2's nonce uniqueness, ARC's presentation tags).
//! A module here may use every layer below it: [`wire`](crate::wire),
//! [`crypto`](crate::crypto) and [`tokens`](crate::tokens)
//! (`tests/layers.rs` checks it).

pub mod directory;
pub mod keyset;
pub mod replay;
