//! Generic token batch issuance: one request carrying token requests of
//! different types and keys (draft-ietf-privacypass-batched-tokens §6).
//!
//! ```text
//! GenericBatchTokenRequest  = varint(total) ‖ TokenRequest_1 ‖ … ‖ TokenRequest_n       (§6.1)
//! GenericBatchTokenResponse = varint(total) ‖ OptionalTokenResponse_1 ‖ … ‖ _n         (§6.2)
//! OptionalTokenResponse     = 0x00                                  (absent, §4.1)
//!                           | 0x01 ‖ token_type ‖ TokenResponse     (present)
//! ```
//!
//! Every entry of a request is a complete RFC 9578 TokenRequest with its own
//! 2-byte token type (52, 259 or 35 bytes for types 0x0001, 0x0002, 0x0005).
//! Read literally, the draft's `GenericTokenRequest` struct puts a type in
//! front of a TokenRequest that starts with the type again; its appendix
//! vectors, pat-go, privacypass-ts and the `privacypass` crate all write the
//! type once, and so does this module. Every present response is that type's
//! TokenResponse (145, 256 or 96 bytes) behind a presence byte and the type.
//! The varint is the byte length of what follows, minimally encoded (§4.2);
//! a presence byte other than 0 or 1 is malformed (§4.1). Other token types
//! are [`Error::UnknownTokenType`](crate::error::Error::UnknownTokenType)
//! here. That includes type 0xDA7A ([`crate::tokens::metadata`]): the draft
//! carries a plain TokenRequest per entry, with no place for the
//! `Extensions` a 0xDA7A request is signed over, and never names the type.
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
//!
//! # The draft, section by section
//!
//! Checked against draft-ietf-privacypass-batched-tokens-07 (February 2026)
//! and -08 (May 2026). The -08 change log adds no entry after -07, and the
//! only edit to the draft's source after -07 that its repository shows
//! re-indents the structure definitions: the two are the same on the wire,
//! and the section numbers below are theirs. -09 (15 October 2026) is not
//! reflected here: its text could not be read from where this was written
//! (only its title page and date were reachable). The
//! table covers both batch families ([`crate::tokens::amortized`] is the
//! other) and what pat-http serves for them; "unchanged" means pat already
//! did what -07 asks, "changed" what this comparison altered, "accepted for
//! peers" what is taken beyond the text because an implementation sends it.
//!
//! | Draft -07/-08 | What it asks | pat | Status |
//! |---|---|---|---|
//! | §4.1 `optional<T>` | one presence byte, 0 or 1; any other value is malformed | [`OptionalTokenResponses`] gives `None` / `Some`, any other byte `InvalidValue(Batch)` | unchanged |
//! | §4.2 `<V>` vectors | a QUIC varint (RFC 9000 §16) of the byte length, in its shortest form | both families read and write the shortest form only (`NonMinimalVarint` otherwise) | unchanged |
//! | §5.1 amortized request | `token_type ‖ truncated_token_key_id ‖ blinded_msgs<V>`, types 0x0001 and 0x0005, one key and one challenge; media type `…-amortized-batch-request`, anything else 415 | [`AmortizedTokenRequest`](crate::tokens::amortized::AmortizedTokenRequest); pat-http answers 415 to an unknown media type | unchanged |
//! | §5.2 amortized response | 422 for a type the issuer does not batch, an unknown truncated key id, a batch over its limit, an element that does not deserialize; one proof over all elements; `evaluated_msgs<V> ‖ proof`, 200, `…-amortized-batch-response` | pat-http refuses each of these with 422 (400 only for a body shorter than a token type) and caps a batch at 100 | unchanged |
//! | §5.3 amortized finalization | verify the one proof, then one token per nonce | [`Client::finalize_batch`](crate::tokens::private::Client::finalize_batch): any failure fails the whole batch | unchanged |
//! | §6.1 generic request | a varint-framed list of TokenRequests of any registered types; media type `…-generic-batch-request`, anything else 415 | [`GenericBatchTokenRequest`] carries types 0x0001, 0x0002, 0x0005 | unchanged |
//! | §6.2 generic response: unknown type | an entry whose token type is not registered: 422 | pat-http answered 400 (it cannot find where such an entry ends); it now answers 422 for any entry of a type this module does not carry, and 400 only when the framing itself is broken | changed: 400 → 422 |
//! | §6.2 generic response: media type | also lists a wrong `Content-Type` as a 422 | the issuer dispatches on the media type, so another one never reaches the batch code: 415, as §6.1 and RFC 9578 say | unchanged (§6.1 followed) |
//! | §6.2 generic response: entries | per entry absent, or `token_type ‖ TokenResponse`; 200 when all issued, 206 when some, 400 when none; `…-generic-batch-response` | [`Issuer::evaluate`] and [`BatchEvaluation`]; pat-http's status follows `issued` / `absent` | unchanged |
//! | §6.3 generic finalization | skip an absent entry, finalize each present one with its own type's procedure | [`BatchState::finalize`]: absent entries are `None`; an entry count that differs is `InvalidLength(Batch)`, a present entry of another type than its request `WrongTokenType` | unchanged |
//! | §7.2 generic cost | an issuer may decline batches past a limit | pat-http refuses a batch over 100 entries with 422; [`Issuer::evaluate`] refuses more than `N` | unchanged |
//! | §8.1 type 0x0005 | VOPRF(ristretto255, SHA-512), Nk 64, Nid 32, RFC 9578 §5 issuance | [`PrivateRistretto255`](crate::wire::token_type::PrivateRistretto255) | unchanged |
//! | §8.2 media types | `application/private-token-{amortized,generic}-batch-{request,response}` | pat-http expects and answers with exactly these | unchanged |
//! | §8.2 older names | -02 named `…-batch-…`, -03/-04 `…-privately-verifiable-batch-…` and `…-arbitrary-batch-…` | refused with 415: the -04 generic response had no per-entry type, so an old client could not read the answer; privacypass-ts 0.9.0 sends the -07 names, and it and the `privacypass` crate write the -07 layout | unchanged (no peer sends the old names) |
//! | App. A.1–A.3 | 10 type-0x0005 issuances, 10 amortized P-384, 10 amortized ristretto255 | all 30 are in `tests/vectors/pat-go` (pat-go's files and the `privacypass` crate's `.rust.json`) and pass | unchanged |
//! | App. A.4 | 8 generic batches; vector 8 mixes types 1, 2, 5, 2 | vectors 1–7 are in `tests/vectors/pat-go/tokens/batched`, vector 8 is the `privacypass` crate's `tests/vectors/privacypass-rs/generic_rs.json` case 3; all pass | unchanged |

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
