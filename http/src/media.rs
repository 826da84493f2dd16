//! Media types (RFC 9578 §8.2; draft-ietf-privacypass-batched-tokens-07
//! and -08 §5.1, §6.1, §8.2; draft-ietf-privacypass-arc-protocol-01 §7.1,
//! §7.2, §10.2).
//!
//! The batch names are the ones the draft has used since -05; -07 and -08
//! did not change them. Earlier names (-02's
//! `application/private-token-batch-request`, -03/-04's
//! `application/private-token-privately-verifiable-batch-request` and
//! `application/private-token-arbitrary-batch-request`) get 415: a -04
//! generic response carried no token type per entry, so a client sending the
//! old name could not read what the issuer answers. privacypass-ts sends
//! the generic names since 0.8.0 (its 0.9.0 renamed only its own enum keys,
//! `ARBITRARY_*` to `GENERIC_*`).

/// The issuer directory (RFC 9578 §4).
pub const DIRECTORY: &str = pat::deploy::directory::MEDIA_TYPE;
/// A single TokenRequest (RFC 9578 §5.1, §6.1).
pub const TOKEN_REQUEST: &str = "application/private-token-request";
/// A single TokenResponse (RFC 9578 §5.2, §6.2).
pub const TOKEN_RESPONSE: &str = "application/private-token-response";
/// An AmortizedBatchTokenRequest, types 0x0001 and 0x0005 (draft §5.1).
pub const AMORTIZED_REQUEST: &str = "application/private-token-amortized-batch-request";
/// An AmortizedBatchTokenResponse (draft §5.2).
pub const AMORTIZED_RESPONSE: &str = "application/private-token-amortized-batch-response";
/// A GenericBatchTokenRequest (draft §6.1).
pub const GENERIC_REQUEST: &str = "application/private-token-generic-batch-request";
/// A GenericBatchTokenResponse, sent with 200 or 206 (draft §6.2).
pub const GENERIC_RESPONSE: &str = "application/private-token-generic-batch-response";

/// An ARC CredentialRequest, type 0xE5AC (draft-ietf-privacypass-arc-protocol-01 §7.1).
pub const CREDENTIAL_REQUEST: &str = "application/private-credential-request";
/// An ARC CredentialResponse (draft-ietf-privacypass-arc-protocol-01 §7.2).
pub const CREDENTIAL_RESPONSE: &str = "application/private-credential-response";

/// The media type of a `Content-Type` value: parameters dropped, lower case.
pub fn essence(content_type: &str) -> String {
    content_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase()
}
