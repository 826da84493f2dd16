//! Request keys, index keys and the issuer-origin alias
//! (draft-ietf-privacypass-rate-limit-tokens "Issuer's Origin Alias
//! Computation"), on ECDSA P-384 key blinding
//! ([`crate::crypto::key_blinding::ecdsa_p384`]).
//!
//! ```text
//! client:   request_key         = BlindPublicKey(client_key, request_blind, ctx_client)
//! issuer:   blinded_request_key = BlindPublicKey(request_key, sk_origin, ctx_issuer)
//! attester: index_key           = UnblindPublicKey(blinded_request_key, request_blind, ctx_client)
//!                               = BlindPublicKey(client_key, sk_origin, ctx_issuer)
//!           issuer_origin_alias = HKDF-SHA384(salt = client_key, IKM = index_key,
//!                                             info = "IssuerOriginAlias", L = 48)
//! ```
//!
//! Keys are 49-byte compressed points. The protocol uses the 13-byte contexts
//! [`CTX_CLIENT`] and [`CTX_ISSUER`]; the published vectors (pat-go's and the
//! draft's) were made with an **empty** context, so every function takes the
//! context as a parameter.

use hkdf::Hkdf;
use sha2::Sha384;
use subtle::ConstantTimeEq;

use crate::crypto::key_blinding::ecdsa_p384::{self, BlindKey, BlindKeyEncoding, PublicKey, SecretKey};
use crate::error::{Error, Result};

/// The client's blinding context: token type 0x0003 ‖ `"ClientBlind"`.
pub const CTX_CLIENT: &[u8] = b"\x00\x03ClientBlind";
/// The issuer's blinding context: token type 0x0003 ‖ `"IssuerBlind"`.
pub const CTX_ISSUER: &[u8] = b"\x00\x03IssuerBlind";
/// The HKDF `info` of the alias.
pub const ALIAS_INFO: &[u8] = b"IssuerOriginAlias";
/// The alias length: 48 bytes (Nh of SHA-384).
pub const ALIAS_LEN: usize = 48;

/// `request_key = BlindPublicKey(client_key, request_blind, ctx)` (client and
/// attester; the attester compares it with the request's `request_key`).
pub fn request_key(client_key: &PublicKey, request_blind: &BlindKey, ctx: &[u8]) -> Result<PublicKey> {
    ecdsa_p384::blind_public_key(client_key, request_blind, ctx)
}

/// The attester's check that a request's `request_key` is the client key
/// blinded by `request_blind` (draft "Client-to-Attester Request", the
/// attester's checks): recomputes [`request_key`], compares the 49-byte
/// encodings in constant time and fails with [`Error::Verification`].
///
/// pat-go's attester makes the same comparison; it is independent of the
/// request signature check, which callers must also perform.
pub fn verify_request_key(
    client_key: &PublicKey,
    request_blind: &BlindKey,
    ctx: &[u8],
    request_key_bytes: &[u8; ecdsa_p384::PUBLIC_KEY_LEN],
) -> Result<()> {
    let expected = request_key(client_key, request_blind, ctx)?.to_bytes();
    if bool::from(expected.ct_eq(request_key_bytes)) { Ok(()) } else { Err(Error::Verification) }
}

/// `blinded_request_key = BlindPublicKey(request_key, sk_origin, ctx)` (issuer):
/// the origin's secret key serves as the blind, serialized with `encoding`
/// (pat-go: [`BlindKeyEncoding::Minimal`]). pat-go's vector field `index_key`
/// holds this value.
///
/// With [`BlindKeyEncoding::Minimal`] the time of this call depends on the
/// number of leading zero bytes of the long-term origin key (the hash input
/// is shorter), so every issuance leaks it; [`BlindKeyEncoding::Fixed`] is
/// constant time and is the recommended setting wherever pat-go
/// interoperability is not required.
pub fn blinded_request_key(
    request_key: &PublicKey,
    origin_key: &SecretKey,
    ctx: &[u8],
    encoding: BlindKeyEncoding,
) -> Result<PublicKey> {
    ecdsa_p384::blind_public_key(request_key, &BlindKey::from_secret_key(origin_key, encoding), ctx)
}

/// `index_key = UnblindPublicKey(blinded_request_key, request_blind, ctx)`
/// (attester), with a constant-time inversion.
pub fn index_key(blinded_request_key: &PublicKey, request_blind: &BlindKey, ctx: &[u8]) -> Result<PublicKey> {
    ecdsa_p384::unblind_public_key(blinded_request_key, request_blind, ctx)
}

/// `issuer_origin_alias = HKDF-SHA384(salt = client_key, IKM = index_key,
/// info = "IssuerOriginAlias", L = 48)` (attester; RFC 5869), with both keys
/// compressed.
pub fn issuer_origin_alias(client_key: &PublicKey, index_key: &PublicKey) -> [u8; ALIAS_LEN] {
    let hk = Hkdf::<Sha384>::new(Some(&client_key.to_bytes()), &index_key.to_bytes());
    let mut alias = [0u8; ALIAS_LEN];
    // 48 bytes is far below HKDF-SHA384's limit of 255·48, so this cannot fail.
    let _ = hk.expand(ALIAS_INFO, &mut alias);
    alias
}
