//! Generic token batch issuance: one request carrying token requests of
//! different types and keys (draft-ietf-privacypass-batched-tokens §6;
//! section numbers are those of draft -08).
//!
//! ```text
//! GenericBatchTokenRequest  = varint(total) ‖ TokenRequest_1 ‖ … ‖ TokenRequest_n       (§6.1)
//! GenericBatchTokenResponse = varint(total) ‖ OptionalTokenResponse_1 ‖ … ‖ _n         (§6.2)
//! OptionalTokenResponse     = 0x00                                  (absent, §4.1)
//!                           | 0x01 ‖ token_type ‖ TokenResponse     (present)
//! ```
//!
//! Every entry of a request is a complete RFC 9578 TokenRequest with its own
//! 2-byte token type (52, 259 or 35 bytes for types 0x0001, 0x0002, 0x0005);
//! every present response is that type's TokenResponse (145, 256 or 96 bytes)
//! behind a presence byte and the type. The varint is the byte length of what
//! follows, minimally encoded (§4.2); a presence byte other than 0 or 1 is
//! malformed (§4.1). Other token types are [`Error::UnknownTokenType`](crate::error::Error::UnknownTokenType) here.
//! That includes type 0xDA7A ([`crate::tokens::metadata`]): the batched
//! draft (draft-ietf-privacypass-batched-tokens-07) carries a plain
//! TokenRequest per entry, with no place for the `Extensions` a 0xDA7A
//! request is signed over, and never names the type.
//!
//! Messages are parsed without copying: [`GenericBatchTokenRequest`] and
//! [`GenericBatchTokenResponse`] borrow the input, check the whole framing
//! when decoded and hand out entries one at a time. The [`Issuer`] evaluates
//! each entry with the first of the caller's keys of that type whose truncated
//! key id matches and marks the others absent; the client's [`BatchState`]
//! keeps the per-entry secrets in caller-chosen capacity `N`. Nothing
//! allocates.
//!
//! pat-go writes a refused entry as `0x01 ‖ token_type ‖ 0x00`, a malformed
//! present entry. This module writes and expects the draft's single `0x00`.

// One job per file: `per_type.rs` writes the per-type enums once, `wire.rs`
// holds the messages and their codec, `issuer.rs`
// the issuer's dispatch to the per-type issuers, `client.rs` the client's
// batch state and finalization.

#[macro_use]
mod per_type;

mod client;
mod issuer;
mod wire;

#[cfg(test)]
mod tests;

pub use client::{BatchClient, BatchClients, BatchRequest, BatchState, GenericToken, PendingEntry};
pub use issuer::{BatchEvaluation, Issuer};

/// The client of a generic batch: one client per token type of the batch
/// (the same type as [`BatchClients`]).
pub type Client<'c> = BatchClients<'c>;

/// A token of a generic batch, under the name every family uses (the same
/// type as [`GenericToken`]). Each is redeemed at the origin of its own
/// family: a generic batch has no origin role of its own.
pub type Token = GenericToken;
pub use wire::{
    GenericBatchTokenRequest, GenericBatchTokenResponse, GenericTokenRequest, GenericTokenRequests,
    GenericTokenResponse, OptionalTokenResponses, request_max_len, response_max_len,
};
