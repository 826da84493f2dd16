//! Anonymous Credit Tokens, ACT (ristretto255, BLAKE3, CBOR).
//!
//! Pinned revision: **draft-schlesinger-cfrg-act-01** (February 2026; the
//! `v0` branch of github.com/SamuelSchlesinger/draft-act at commit
//! `0e6e16c82c400a5a9e7c095d64dc7f2644957e0e`), the "Family A" protocol that
//! crates.io `anonymous-credit-tokens` 0.4.2 implements. Its appendix
//! vectors (ChaCha20 seeded with 00..1f, L = 8) pass byte for byte; see
//! `tests/vectors/act/`. draft-02 (SHAKE128 sigma proofs, TLS encoding) is
//! another protocol under the same name and token type, not this one.
//!
//! An issuer grants a client c credits in a token; the client spends s ≤ c
//! at a time with a zero-knowledge proof that reveals only s, the token's
//! nullifier and its context; the issuer refunds t ≤ s, and the client
//! builds a new, unlinkable token worth c − s + t.
//!
//! | step | client | issuer |
//! |---|---|---|
//! | parameters | [`Params::new`] (§3.1) | the same |
//! | keys | | [`PrivateKey::generate`] → [`PublicKey`] (§3.2) |
//! | request | [`PreIssuance::random`], [`PreIssuance::request`] → [`IssuanceRequest`] (§3.3.1) | |
//! | response | | [`PrivateKey::issue`] → [`IssuanceResponse`] (§3.3.2) |
//! | token | [`PreIssuance::to_credit_token`] → [`CreditToken`] (§3.3.3) | |
//! | spend | [`CreditToken::prove_spend`] → [`SpendProof`], [`PreRefund`] (§3.4.1) | |
//! | refund | | nullifier check (the caller's), [`PrivateKey::refund`] → [`Refund`] (§3.4.2–3.4.3) |
//! | new token | [`PreRefund::to_credit_token`] → [`CreditToken`] (§3.4.4) | |
//!
//! `L`, the bit length of balances, is a const generic of every step that
//! depends on it (1 ≤ L ≤ 128, checked: `InvalidLength(Message)`), so the
//! spend proof is a fixed-size value ([`spend_proof_len`], at most
//! [`SPEND_PROOF_MAX_LEN`] bytes) and nothing allocates. Amounts are `u128`
//! below 2^L (`ValueTooLarge` otherwise, and for s > c).
//!
//! Messages and client states are encoded in the deterministic CBOR the
//! reference code writes (§4), decoded strictly by a fixed-schema codec
//! (the private module `cbor` says why not `minicbor`).
//!
//! **Double spending is the issuer's check.** [`PrivateKey::refund`]
//! verifies a spend proof and signs the refund; it does not know which
//! nullifiers were spent. The caller records
//! [`SpendProof::nullifier`] in its store, atomically with accepting the
//! proof, and refuses a nullifier it has seen (§5.1).
//!
//! Secrets (the issuer's x, e, α; the client's k, r, the token, the
//! remainder m and its bits, and the proofs' nonces) enter only
//! constant-time arithmetic and selections and are wiped after use; the
//! verification of a proof one receives uses variable-time multiplication
//! of public values only (the issuer's −γ·x·A′ term excepted, which it
//! computes in constant time). Where the reference code and the draft
//! differ, this follows the reference code (which the vectors encode) and
//! is stricter: decoders refuse the identity and every non-canonical CBOR
//! head.

mod cbor;
mod client;
#[cfg(feature = "precomputed-tables")]
mod comb_vartime;
mod fixed_base;
mod group;
mod issuer;
mod keys;
mod messages;
mod params;
mod transcript;
mod vartime;

pub use client::{CreditToken, PreIssuance, PreRefund};
pub use group::{MAX_L, NE, NS};
pub use keys::{PrivateKey, PublicKey};
pub use messages::{IssuanceRequest, IssuanceResponse, Refund, SPEND_PROOF_MAX_LEN, SpendProof, spend_proof_len};
pub use params::{DOMAIN_SEPARATOR_PREFIX, Params};
