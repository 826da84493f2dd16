//! Media types (RFC 9578 §8.2, draft-ietf-privacypass-batched-tokens).

/// The issuer directory (RFC 9578 §4).
pub const DIRECTORY: &str = pat::deploy::directory::MEDIA_TYPE;
/// A single TokenRequest.
pub const TOKEN_REQUEST: &str = "application/private-token-request";
/// A single TokenResponse.
pub const TOKEN_RESPONSE: &str = "application/private-token-response";
/// An AmortizedBatchTokenRequest (types 0x0001 and 0x0005).
pub const AMORTIZED_REQUEST: &str = "application/private-token-amortized-batch-request";
/// An AmortizedBatchTokenResponse.
pub const AMORTIZED_RESPONSE: &str = "application/private-token-amortized-batch-response";
/// A GenericBatchTokenRequest.
pub const GENERIC_REQUEST: &str = "application/private-token-generic-batch-request";
/// A GenericBatchTokenResponse.
pub const GENERIC_RESPONSE: &str = "application/private-token-generic-batch-response";

/// The media type of a `Content-Type` value: parameters dropped, lower case.
pub fn essence(content_type: &str) -> String {
    content_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase()
}
