//! The sizes a C caller allocates, as `#define`s in the header. Each is
//! checked against the library's own constant when this crate compiles, so
//! the header cannot drift from the code.

use pat::crypto::blind_rsa;
use pat::crypto::key_blinding::ecdsa_p384 as ecdsa;
use pat::tokens::{act, amortized, arc, athm, batched, metadata, poprf, private, public, rate_limited};
use pat::wire::auth;
use pat::wire::challenge::PRACTICAL_CHALLENGE_LEN;
use pat::wire::token_type::{
    KEY_ID_LEN, NONCE_LEN, PrivateP384, PrivateRistretto255, PublicMetadataP384, PublicMetadataRsa2048, PublicRsa2048,
    RateLimitedRsa2048, TokenType,
};

/// Token nonce (RFC 9577 §2.2).
pub const PAT_NONCE_LEN: usize = 32;
/// Token key id: SHA-256 of the token key (RFC 9578 §5, §6).
pub const PAT_KEY_ID_LEN: usize = 32;

/// Type 0x0001 token key: a compressed P-384 point.
pub const PAT_TYPE1_TOKEN_KEY_LEN: usize = 49;
/// Type 0x0001 TokenRequest.
pub const PAT_TYPE1_REQUEST_LEN: usize = 52;
/// Type 0x0001 TokenResponse.
pub const PAT_TYPE1_RESPONSE_LEN: usize = 145;
/// Type 0x0001 Token.
pub const PAT_TYPE1_TOKEN_LEN: usize = 146;
/// Type 0x0001 client state kept between request and finalize (secret).
pub const PAT_TYPE1_STATE_LEN: usize = 197;
/// Type 0x0001 `Authorization` value with its terminating NUL.
pub const PAT_TYPE1_AUTHORIZATION_SIZE: usize = 218;
/// Type 0x0001 VOPRF blind (hazmat known-answer entry points only).
pub const PAT_TYPE1_BLIND_LEN: usize = 48;

/// Type 0x0002 token key: the RSASSA-PSS SubjectPublicKeyInfo of pat-go and
/// RFC 9578 (other SPKI encodings of an RSA-2048 key are accepted too).
pub const PAT_TYPE2_TOKEN_KEY_LEN: usize = 342;
/// Type 0x0002 TokenRequest.
pub const PAT_TYPE2_REQUEST_LEN: usize = 259;
/// Type 0x0002 TokenResponse.
pub const PAT_TYPE2_RESPONSE_LEN: usize = 256;
/// Type 0x0002 Token.
pub const PAT_TYPE2_TOKEN_LEN: usize = 354;
/// Type 0x0002 client state kept between request and finalize (secret).
pub const PAT_TYPE2_STATE_LEN: usize = 356;
/// Type 0x0002 `Authorization` value with its terminating NUL.
pub const PAT_TYPE2_AUTHORIZATION_SIZE: usize = 494;
/// Type 0x0002 PSS salt (hazmat known-answer entry points only).
pub const PAT_TYPE2_SALT_LEN: usize = 48;
/// Type 0x0002 RSA blind, big-endian (hazmat known-answer entry points only).
pub const PAT_TYPE2_BLIND_LEN: usize = 256;

/// Type 0xDA7A token key: the RSASSA-PSS SubjectPublicKeyInfo, as for 0x0002.
pub const PAT_TYPEDA7A_TOKEN_KEY_LEN: usize = 342;
/// Type 0xDA7A TokenRequest without its extensions (`pat_typeda7a_request_len`
/// adds them).
pub const PAT_TYPEDA7A_REQUEST_FIXED_LEN: usize = 259;
/// Type 0xDA7A TokenResponse.
pub const PAT_TYPEDA7A_RESPONSE_LEN: usize = 256;
/// Type 0xDA7A Token.
pub const PAT_TYPEDA7A_TOKEN_LEN: usize = 354;
/// Type 0xDA7A client state kept between request and finalize (secret).
pub const PAT_TYPEDA7A_STATE_LEN: usize = 388;

/// Type 0xDA7B token key: a compressed P-384 point, as for 0x0001.
pub const PAT_TYPEDA7B_TOKEN_KEY_LEN: usize = 49;
/// Type 0xDA7B TokenRequest without its extensions (`pat_typeda7b_request_len`
/// adds them).
pub const PAT_TYPEDA7B_REQUEST_FIXED_LEN: usize = 52;
/// Type 0xDA7B TokenResponse (type 0x0001's layout).
pub const PAT_TYPEDA7B_RESPONSE_LEN: usize = 145;
/// Type 0xDA7B Token.
pub const PAT_TYPEDA7B_TOKEN_LEN: usize = 146;
/// Type 0xDA7B client state kept between request and finalize (secret).
pub const PAT_TYPEDA7B_STATE_LEN: usize = 229;

/// Type 0x0005 token key: a ristretto255 element.
pub const PAT_TYPE5_TOKEN_KEY_LEN: usize = 32;
/// Type 0x0005 TokenRequest.
pub const PAT_TYPE5_REQUEST_LEN: usize = 35;
/// Type 0x0005 TokenResponse.
pub const PAT_TYPE5_RESPONSE_LEN: usize = 96;
/// Type 0x0005 Token.
pub const PAT_TYPE5_TOKEN_LEN: usize = 162;
/// Type 0x0005 client state kept between request and finalize (secret).
pub const PAT_TYPE5_STATE_LEN: usize = 164;
/// Type 0x0005 `Authorization` value with its terminating NUL.
pub const PAT_TYPE5_AUTHORIZATION_SIZE: usize = 238;
/// Type 0x0005 VOPRF blind (hazmat known-answer entry points only).
pub const PAT_TYPE5_BLIND_LEN: usize = 32;

/// The most tokens in one batch: amortized (types 0x0001 and 0x0005) or
/// generic (entries of types 0x0001, 0x0002 and 0x0005).
pub const PAT_BATCH_MAX: usize = 8;
/// Type 0x0001 amortized batch state (secret), whatever the count.
pub const PAT_TYPE1_BATCH_STATE_LEN: usize = 1326;
/// Type 0x0005 amortized batch state (secret), whatever the count.
pub const PAT_TYPE5_BATCH_STATE_LEN: usize = 1062;
/// The longest GenericBatchTokenRequest of `PAT_BATCH_MAX` entries (all of
/// type 0x0002).
pub const PAT_GENERIC_BATCH_REQUEST_MAX_LEN: usize = 2074;
/// The longest GenericBatchTokenResponse of `PAT_BATCH_MAX` entries.
pub const PAT_GENERIC_BATCH_RESPONSE_MAX_LEN: usize = 2074;
/// Generic batch state (secret), whatever the count and types.
pub const PAT_GENERIC_BATCH_STATE_LEN: usize = 4884;
/// Room for the tokens of `PAT_BATCH_MAX` entries of type 0x0002, the
/// longest.
pub const PAT_GENERIC_BATCH_TOKENS_MAX_LEN: usize = 2832;

/// Type 0x0003 client's long-term ECDSA P-384 secret (big-endian scalar).
pub const PAT_TYPE3_CLIENT_SECRET_LEN: usize = 48;
/// Type 0x0003 client's public key (compressed P-384), which its attester knows.
pub const PAT_TYPE3_CLIENT_KEY_LEN: usize = 49;
/// Type 0x0003 issuer's HPKE key configuration (`EncapKey`).
pub const PAT_TYPE3_ENCAP_KEY_LEN: usize = 39;
/// Type 0x0003 token key: an RSA-2048 SubjectPublicKeyInfo, as for type 0x0002.
pub const PAT_TYPE3_TOKEN_KEY_LEN: usize = 342;
/// Type 0x0003 TokenRequest for an origin name of up to 32 bytes
/// (`pat_type3_request_len` for longer names).
pub const PAT_TYPE3_REQUEST_LEN_SHORT_NAME: usize = 520;
/// Type 0x0003 `request_blind`, sent to the attester alone.
pub const PAT_TYPE3_REQUEST_BLIND_LEN: usize = 48;
/// Type 0x0003 `encrypted_token_response`.
pub const PAT_TYPE3_RESPONSE_LEN: usize = 288;
/// Type 0x0003 Token.
pub const PAT_TYPE3_TOKEN_LEN: usize = 354;
/// Type 0x0003 client state kept between request and finalize (secret).
pub const PAT_TYPE3_STATE_LEN: usize = 453;
/// Type 0x0003 `Authorization` value with its terminating NUL.
pub const PAT_TYPE3_AUTHORIZATION_SIZE: usize = 494;

/// Type 0xE5AC (ARC) token key: the issuer's ServerPublicKey (three
/// compressed P-256 points).
pub const PAT_ARC_TOKEN_KEY_LEN: usize = 99;
/// Type 0xE5AC CredentialRequest.
pub const PAT_ARC_REQUEST_LEN: usize = 229;
/// Type 0xE5AC CredentialResponse.
pub const PAT_ARC_RESPONSE_LEN: usize = 454;
/// Type 0xE5AC client state kept between request and finalize (secret).
pub const PAT_ARC_REQUEST_STATE_LEN: usize = 162;
/// Type 0xE5AC credential (secret), kept for every later presentation state.
pub const PAT_ARC_CREDENTIAL_LEN: usize = 131;
/// Type 0xE5AC presentation state of one context (secret), written back by
/// every `pat_arc_token`.
pub const PAT_ARC_PRESENTATION_STATE_LEN: usize = 180;
/// The longest type-0xE5AC token (a limit of 2^32; `pat_arc_token_len`
/// gives a limit's).
pub const PAT_ARC_TOKEN_MAX_LEN: usize = 4555;
/// A non-empty `credential_context` of an ARC TokenChallenge.
pub const PAT_ARC_CREDENTIAL_CONTEXT_LEN: usize = 32;

/// Type 0xE5AD (ACT) token key: the issuer's ristretto255 public key.
pub const PAT_ACT_TOKEN_KEY_LEN: usize = 32;
/// Type 0xE5AD TokenRequest.
pub const PAT_ACT_REQUEST_LEN: usize = 144;
/// Type 0xE5AD TokenResponse.
pub const PAT_ACT_RESPONSE_LEN: usize = 211;
/// Type 0xE5AD request state (secret), kept until the response.
pub const PAT_ACT_REQUEST_STATE_LEN: usize = 244;
/// Type 0xE5AD credential (secret): a CBOR `CreditToken`.
pub const PAT_ACT_CREDENTIAL_LEN: usize = 211;
/// Type 0xE5AD refund state (secret), kept from a spend to its refund.
pub const PAT_ACT_REFUND_STATE_LEN: usize = 141;
/// Type 0xE5AD refund, the issuer's answer to a spend.
pub const PAT_ACT_REFUND_LEN: usize = 176;
/// The longest type-0xE5AD token (balances of 128 bits; `pat_act_token_len`
/// gives each bit length's).
pub const PAT_ACT_TOKEN_MAX_LEN: usize = 18137;

/// Type 0xC07E (ATHM) buckets: the hidden value is one of 0 to 3.
pub const PAT_ATHM_BUCKETS: usize = 4;
/// Type 0xC07E token key: the issuer's public key (three compressed P-256
/// points) and its proof.
pub const PAT_ATHM_TOKEN_KEY_LEN: usize = 163;
/// Type 0xC07E TokenRequest.
pub const PAT_ATHM_REQUEST_LEN: usize = 36;
/// Type 0xC07E TokenResponse (for `PAT_ATHM_BUCKETS` buckets).
pub const PAT_ATHM_RESPONSE_LEN: usize = 483;
/// Type 0xC07E Token.
pub const PAT_ATHM_TOKEN_LEN: usize = 132;
/// Type 0xC07E client state kept between request and finalize (secret).
pub const PAT_ATHM_STATE_LEN: usize = 133;
/// Type 0xC07E `Authorization` value with its terminating NUL.
pub const PAT_ATHM_AUTHORIZATION_SIZE: usize = 198;

/// A buffer that holds the decoded `challenge` and `token-key` of any
/// `WWW-Authenticate` challenge whose names are of practical length (host
/// names with a port, one origin; `pat::wire::auth::PRACTICAL_WWW_AUTHENTICATE_LEN`)
/// and any token key of the implemented types.
pub const PAT_CHALLENGE_BUFFER_SIZE: usize = 903;
/// The most keys `pat_directory_select` reads from one directory.
pub const PAT_DIRECTORY_MAX_KEYS: usize = 16;
/// The longest token key of the implemented types (the RSA-2048 SPKI of
/// types 0x0002 and 0x0003 as OpenSSL writes it, with NULL hash parameters;
/// RFC 9578's form is 342 bytes): a `pat_directory_select` key buffer.
pub const PAT_TOKEN_KEY_MAX_LEN: usize = 346;
/// A buffer that holds `pat_error_message`'s text of any status code.
pub const PAT_ERROR_MESSAGE_SIZE: usize = 128;

const _: () = {
    assert!(PAT_NONCE_LEN == NONCE_LEN && PAT_KEY_ID_LEN == KEY_ID_LEN);

    assert!(PAT_TYPE1_REQUEST_LEN == PrivateP384::REQUEST_MAX_LEN);
    assert!(PAT_TYPE1_RESPONSE_LEN == PrivateP384::RESPONSE_MAX_LEN);
    assert!(PAT_TYPE1_TOKEN_LEN == PrivateP384::TOKEN_LEN);
    assert!(PAT_TYPE1_STATE_LEN == private::RequestState::<PrivateP384>::STATE_LEN);
    assert!(PAT_TYPE1_AUTHORIZATION_SIZE == PrivateP384::AUTHORIZATION_LEN + 1);
    assert!(PAT_TYPE1_TOKEN_KEY_LEN + 3 == PAT_TYPE1_REQUEST_LEN);

    assert!(PAT_TYPE2_TOKEN_KEY_LEN == blind_rsa::PublicKey::SPKI_LEN);
    assert!(PAT_TYPE2_REQUEST_LEN == PublicRsa2048::REQUEST_MAX_LEN);
    assert!(PAT_TYPE2_RESPONSE_LEN == PublicRsa2048::RESPONSE_MAX_LEN);
    assert!(PAT_TYPE2_TOKEN_LEN == PublicRsa2048::TOKEN_LEN);
    assert!(PAT_TYPE2_STATE_LEN == public::RequestState::STATE_LEN);
    assert!(PAT_TYPE2_AUTHORIZATION_SIZE == PublicRsa2048::AUTHORIZATION_LEN + 1);
    assert!(PAT_TYPE2_SALT_LEN == blind_rsa::SALT_LEN && PAT_TYPE2_BLIND_LEN == blind_rsa::MODULUS_LEN);

    assert!(PAT_TYPEDA7A_TOKEN_KEY_LEN == blind_rsa::PublicKey::SPKI_LEN);
    assert!(PAT_TYPEDA7A_REQUEST_FIXED_LEN + 2 == PublicMetadataRsa2048::REQUEST_LEN.min());
    assert!(PAT_TYPEDA7A_RESPONSE_LEN == PublicMetadataRsa2048::RESPONSE_MAX_LEN);
    assert!(PAT_TYPEDA7A_TOKEN_LEN == PublicMetadataRsa2048::TOKEN_LEN);
    assert!(PAT_TYPEDA7A_STATE_LEN == metadata::RequestState::STATE_LEN);

    assert!(PAT_TYPEDA7B_TOKEN_KEY_LEN == PAT_TYPE1_TOKEN_KEY_LEN);
    assert!(PAT_TYPEDA7B_REQUEST_FIXED_LEN + 2 == PublicMetadataP384::REQUEST_LEN.min());
    assert!(PAT_TYPEDA7B_RESPONSE_LEN == PublicMetadataP384::RESPONSE_MAX_LEN);
    assert!(PAT_TYPEDA7B_TOKEN_LEN == PublicMetadataP384::TOKEN_LEN);
    assert!(PAT_TYPEDA7B_STATE_LEN == poprf::RequestState::STATE_LEN);

    assert!(PAT_TYPE5_REQUEST_LEN == PrivateRistretto255::REQUEST_MAX_LEN);
    assert!(PAT_TYPE5_RESPONSE_LEN == PrivateRistretto255::RESPONSE_MAX_LEN);
    assert!(PAT_TYPE5_TOKEN_LEN == PrivateRistretto255::TOKEN_LEN);
    assert!(PAT_TYPE5_STATE_LEN == private::RequestState::<PrivateRistretto255>::STATE_LEN);
    assert!(PAT_TYPE5_AUTHORIZATION_SIZE == PrivateRistretto255::AUTHORIZATION_LEN + 1);
    assert!(PAT_TYPE5_TOKEN_KEY_LEN + 3 == PAT_TYPE5_REQUEST_LEN);

    assert!(PAT_BATCH_MAX == crate::amortized::CAPACITY);
    assert!(PAT_TYPE1_BATCH_STATE_LEN == amortized::BatchState::<PrivateP384, PAT_BATCH_MAX>::STATE_LEN);
    assert!(PAT_TYPE5_BATCH_STATE_LEN == amortized::BatchState::<PrivateRistretto255, PAT_BATCH_MAX>::STATE_LEN);
    assert!(PAT_GENERIC_BATCH_REQUEST_MAX_LEN == batched::request_max_len(PAT_BATCH_MAX));
    assert!(PAT_GENERIC_BATCH_RESPONSE_MAX_LEN == batched::response_max_len(PAT_BATCH_MAX));
    assert!(PAT_GENERIC_BATCH_STATE_LEN == batched::BatchState::<PAT_BATCH_MAX>::STATE_LEN);
    assert!(PAT_GENERIC_BATCH_STATE_LEN == crate::batched::STATE_LEN);
    assert!(PAT_GENERIC_BATCH_TOKENS_MAX_LEN == PAT_BATCH_MAX * PublicRsa2048::TOKEN_LEN);

    assert!(PAT_TYPE3_CLIENT_SECRET_LEN == ecdsa::SCALAR_LEN && PAT_TYPE3_CLIENT_KEY_LEN == ecdsa::PUBLIC_KEY_LEN);
    assert!(PAT_TYPE3_ENCAP_KEY_LEN == pat::crypto::rate_limited::encap::ENCAP_KEY_LEN);
    assert!(PAT_TYPE3_TOKEN_KEY_LEN == blind_rsa::PublicKey::SPKI_LEN);
    assert!(matches!(rate_limited::request_len(32), Ok(PAT_TYPE3_REQUEST_LEN_SHORT_NAME)));
    assert!(PAT_TYPE3_REQUEST_BLIND_LEN == ecdsa::SCALAR_LEN);
    assert!(PAT_TYPE3_RESPONSE_LEN == rate_limited::RESPONSE_LEN);
    assert!(PAT_TYPE3_RESPONSE_LEN == RateLimitedRsa2048::RESPONSE_MAX_LEN);
    assert!(PAT_TYPE3_TOKEN_LEN == RateLimitedRsa2048::TOKEN_LEN);
    assert!(PAT_TYPE3_STATE_LEN == rate_limited::ClientState::STATE_LEN);
    assert!(PAT_TYPE3_AUTHORIZATION_SIZE == RateLimitedRsa2048::AUTHORIZATION_LEN + 1);

    assert!(PAT_ARC_TOKEN_KEY_LEN == pat::crypto::arc::ServerPublicKey::LEN);
    assert!(PAT_ARC_REQUEST_LEN == arc::REQUEST_LEN);
    assert!(PAT_ARC_RESPONSE_LEN == arc::RESPONSE_LEN);
    assert!(PAT_ARC_REQUEST_STATE_LEN == pat::crypto::arc::CredentialRequestState::STATE_LEN);
    assert!(PAT_ARC_CREDENTIAL_LEN == pat::crypto::arc::Credential::LEN);
    assert!(PAT_ARC_PRESENTATION_STATE_LEN == pat::crypto::arc::PresentationState::STATE_LEN);
    assert!(PAT_ARC_TOKEN_MAX_LEN == arc::TOKEN_MAX_LEN);
    assert!(PAT_ARC_CREDENTIAL_CONTEXT_LEN == arc::CREDENTIAL_CONTEXT_LEN);

    assert!(PAT_ACT_TOKEN_KEY_LEN == act::TOKEN_KEY_LEN);
    assert!(PAT_ACT_REQUEST_LEN == act::REQUEST_LEN);
    assert!(PAT_ACT_RESPONSE_LEN == act::RESPONSE_LEN);
    assert!(PAT_ACT_REQUEST_STATE_LEN == act::RequestState::LEN);
    assert!(PAT_ACT_CREDENTIAL_LEN == pat::crypto::act::CreditToken::CBOR_LEN);
    assert!(PAT_ACT_REFUND_STATE_LEN == pat::crypto::act::PreRefund::CBOR_LEN);
    assert!(PAT_ACT_REFUND_LEN == act::REFUND_LEN);
    assert!(PAT_ACT_TOKEN_MAX_LEN == act::token_len(128) && PAT_ACT_TOKEN_MAX_LEN == act::TOKEN_MAX_LEN);

    assert!(PAT_ATHM_BUCKETS == crate::athm::BUCKETS);
    assert!(PAT_ATHM_TOKEN_KEY_LEN == athm::TOKEN_KEY_LEN);
    assert!(PAT_ATHM_REQUEST_LEN == athm::REQUEST_LEN);
    assert!(PAT_ATHM_RESPONSE_LEN == pat::crypto::athm::response_len(PAT_ATHM_BUCKETS));
    assert!(PAT_ATHM_TOKEN_LEN == athm::TOKEN_LEN);
    assert!(PAT_ATHM_STATE_LEN == athm::RequestState::LEN);
    assert!(PAT_ATHM_AUTHORIZATION_SIZE == auth::authorization_len(athm::TOKEN_LEN) + 1);

    assert!(PAT_TOKEN_KEY_MAX_LEN == auth::MAX_TOKEN_KEY_LEN);
    assert!(PAT_CHALLENGE_BUFFER_SIZE == PRACTICAL_CHALLENGE_LEN + auth::MAX_TOKEN_KEY_LEN);
};
