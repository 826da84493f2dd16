//! Token type 0xDA7A, publicly verifiable tokens with public metadata
//! (draft-ietf-privacypass-public-metadata-issuance, on the partially blind
//! RSA of [`crate::crypto::blind_rsa::partial`]).
//!
//! ```text
//! ExtendedTokenRequest = token_type (0xDA7A) ‖ truncated_token_key_id
//!                        ‖ blinded_msg[256] ‖ Extensions
//! TokenResponse        = blind_sig[256]
//! Token                = token_input[98] ‖ authenticator[256]
//! ```
//!
//! The metadata is an [`Extensions`](crate::wire::extensions::Extensions) list. Its encoding (length prefix
//! included) is the `info` of RSAPBSSA-SHA384-PSS-Deterministic: the issuer
//! signs with the key pair derived for it, and the token verifies only
//! together with the same extensions, which the client sends next to the
//! token (`Authorization: PrivateToken token=…, extensions=…`,
//! [`crate::wire::auth::write_authorization_with_extensions`]). The token itself
//! has the type 0x0002 layout; only its type code differs.
//!
//! The token key is the issuer's RSA-2048 public key in the RSASSA-PSS SPKI
//! encoding, as for type 0x0002, and token_key_id its SHA-256. The key's
//! primes must be safe primes (`SecretKey::generate_safe`, feature
//! `keygen`); the issuer checks when it is built ([`Issuer::try_new`]
//! refuses any other key with [`crate::Error::NotSafePrime`]).
//!
//! Costs: the derived exponent e′ has 1024 bits instead of 17, so the
//! client's blinding and its verification in finalize, the issuer's fault
//! check and the origin's verification are each a full 1024-bit-exponent
//! power modulo n (about twice an RSA-2048 signature). The issuer also
//! inverts e′ modulo p − 1 and q − 1 for every request
//! ([`Issuer::derive`] and [`Issuer::derive_owned`] do it once for a
//! metadata value that repeats), and checks its key's primes once, when it
//! is built (two probable-prime tests of 1023-bit integers).

use crate::crypto::blind_rsa::{MODULUS_LEN, Variant};
use crate::wire::token::Token as WireToken;

mod client;
mod issuer;
mod origin;
mod wire;

pub use crate::tokens::public::TokenResponse;
pub use client::{Client, RequestState};
pub use issuer::Issuer;
pub use origin::Origin;
pub use wire::TokenRequest;

// Deterministic variants (explicit blinds, nonces, salts): public only as
// `crate::hazmat`, used inside the crate by the power-on self-test and tests.
#[cfg_attr(not(feature = "hazmat"), allow(dead_code))]
pub(crate) mod deterministic;

/// The partially blind RSA variant of token type 0xDA7A.
pub const VARIANT: Variant = Variant::Sha384PssDeterministic;

/// A type 0xDA7A token.
pub type MetadataToken = WireToken<MODULUS_LEN>;

/// A type 0xDA7A token, under the name every family uses (the same type as
/// [`MetadataToken`]).
pub type Token = MetadataToken;

/// The length of an extensions digest kept in a [`RequestState`].
const EXTENSIONS_DIGEST_LEN: usize = 32;
