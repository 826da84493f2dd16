//! Amortized batched issuance of privately verifiable tokens (types 0x0001
//! and 0x0005; draft-ietf-privacypass-batched-tokens §5, "Amortized Privately
//! Verifiable Token Batch Issuance"; section numbers of -07 and -08, which
//! are the same on the wire).
//!
//! ```text
//! AmortizedBatchTokenRequest  = token_type ‖ truncated_token_key_id ‖
//!                               varint(Nr·Ne) ‖ blinded_msg[Ne] × Nr              (§5.1)
//! AmortizedBatchTokenResponse = varint(Nr·Ne) ‖ evaluated_msg[Ne] × Nr ‖ proof[2·Ns] (§5.2)
//! ```
//!
//! The finalization is §5.3. What each section asks and what pat does, for
//! this family and the generic one, is tabled in [`crate::tokens::batched`].
//!
//! All Nr tokens share one key and one challenge; the issuer answers with one
//! batched DLEQ proof. Storage is the caller's: the client keeps its secrets in
//! a [`BatchState`] of capacity `N` (a const generic), the issuer evaluates into
//! stack storage of capacity `N` and writes the response into a caller buffer.
//! Messages are parsed without copying. Varints must be minimal, lengths a
//! non-zero multiple of Ne, and batches at most 65535 (the proof's 2-byte index).

use super::private::PrivateTokenType;
use crate::crypto::voprf::Suite;

type ElementBytes<T> = <<T as PrivateTokenType>::Suite as Suite>::ElementBytes;
type ScalarBytes<T> = <<T as PrivateTokenType>::Suite as Suite>::ScalarBytes;
type ProofBytes<T> = <<T as PrivateTokenType>::Suite as Suite>::ProofBytes;
type Output<T> = <<T as PrivateTokenType>::Suite as Suite>::Output;

mod client;
mod issuer;
mod wire;

pub use client::{BatchRequest, BatchState};
pub use wire::{AmortizedTokenRequest, AmortizedTokenResponse, request_len, response_len};

// Deterministic variants (explicit blinds, nonces, salts): public only as
// `crate::hazmat`, used inside the crate by the power-on self-test and tests.
#[cfg_attr(not(feature = "hazmat"), allow(dead_code))]
pub(crate) mod deterministic;

/// The client of amortized issuance: a type 0x0001/0x0005 client, whose
/// batch methods ([`request_batch`](Client::request_batch),
/// [`finalize_batch`](Client::finalize_batch)) this module adds.
pub type Client<T> = super::private::Client<T>;

/// The issuer of amortized issuance: a type 0x0001/0x0005 issuer, whose
/// [`evaluate_batch`](Issuer::evaluate_batch) this module adds.
pub type Issuer<T> = super::private::Issuer<T>;

/// The origin: the issuer, as for single privately verifiable tokens.
pub type Origin<T> = super::private::Issuer<T>;

/// The tokens an amortized batch yields: ordinary type 0x0001/0x0005 tokens.
pub type Token<T> = super::private::Token<T>;

/// The largest batch: the composite proof indexes elements with 2 bytes.
pub const MAX_BATCH: usize = u16::MAX as usize;
