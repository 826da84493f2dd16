//! The RSA key of a type-0x0003 issuer, typed by its use.
//!
//! A blind-RSA issuer signs whatever blinded message it is given, so one RSA
//! key serving both type 0x0002 and type 0x0003 would let a client obtain
//! type-0x0003 tokens from the type-0x0002 issuer, without the attester and
//! its rate limit. [`TokenKey`] is a key of its own type: it cannot be handed
//! to [`public::Issuer`](crate::tokens::public::Issuer), and a
//! [`blind_rsa::SecretKey`] cannot be handed to the type-0x0003
//! [`Issuer`](super::Issuer). The types cannot stop the same key material
//! from being loaded twice: never do so, and never share a key between token
//! types (RFC 9474 §7.6 asks for one key per application as well).

use crate::crypto::blind_rsa::{PublicKey, SecretKey};
use crate::error::Result;

/// The type-0x0003 issuer's RSA-2048 key (RFC 9578 §6, as used by the
/// rate-limit draft). Built only from key material: not `Copy`, not `Clone`,
/// wiped on drop (the inner key is), `Debug` prints the public key only.
///
/// It goes to the type-0x0003 issuer and nowhere else:
///
/// ```
/// # use pat::crypto::rate_limited::EncapSecretKey;
/// # use pat::tokens::rate_limited::{Issuer, OriginKey, TokenKey};
/// fn type_3_issuer(encap: EncapSecretKey, key: TokenKey) -> Issuer<[OriginKey<'static>; 0]> {
///     Issuer::new(encap, key, [])
/// }
/// ```
///
/// The type-0x0002 issuer does not take it:
///
/// ```compile_fail
/// # use pat::tokens::{public, rate_limited::TokenKey};
/// fn type_2_issuer(key: TokenKey) -> public::Issuer {
///     public::Issuer::new(key)
/// }
/// ```
///
/// and the type-0x0003 issuer does not take a type-0x0002 key:
///
/// ```compile_fail
/// # use pat::crypto::blind_rsa::SecretKey;
/// # use pat::crypto::rate_limited::EncapSecretKey;
/// # use pat::tokens::rate_limited::{Issuer, OriginKey};
/// fn type_3_issuer(encap: EncapSecretKey, key: SecretKey) -> Issuer<[OriginKey<'static>; 0]> {
///     Issuer::new(encap, key, [])
/// }
/// ```
pub struct TokenKey(SecretKey);

impl TokenKey {
    /// Parses a DER PKCS#8 `PrivateKeyInfo` as
    /// [`SecretKey::from_pkcs8_der`] does.
    pub fn from_pkcs8_der(der: &[u8]) -> Result<Self> {
        SecretKey::from_pkcs8_der(der).map(Self)
    }

    /// Parses a PEM `PRIVATE KEY` block as [`SecretKey::from_pkcs8_pem`] does.
    pub fn from_pkcs8_pem(pem: &str) -> Result<Self> {
        SecretKey::from_pkcs8_pem(pem).map(Self)
    }

    /// Generates a fresh key (feature `keygen`), as [`SecretKey::generate`].
    #[cfg(feature = "keygen")]
    pub fn generate<R: rand_core::CryptoRng + ?Sized>(rng: &mut R) -> Result<Self> {
        SecretKey::generate(rng).map(Self)
    }

    /// The public key origins verify type-0x0003 tokens with.
    pub const fn public_key(&self) -> &PublicKey {
        self.0.public_key()
    }

    /// The key for the blind signature.
    pub(super) const fn secret(&self) -> &SecretKey {
        &self.0
    }

    /// Marks the secret memory as undefined for valgrind memcheck (the
    /// `ctgrind` harness only; see `ctgrind/`).
    #[cfg(pat_ctgrind)]
    #[doc(hidden)]
    pub fn ctgrind_poison(&self) {
        self.0.ctgrind_poison();
    }
}

/// The inner [`SecretKey`] wipes itself on drop.
impl zeroize::ZeroizeOnDrop for TokenKey {}

impl core::fmt::Debug for TokenKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TokenKey").field("public_key", self.public_key()).finish_non_exhaustive()
    }
}
