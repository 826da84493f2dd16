//! The issuer of type 0xDA7A: signing with the key pair derived for the
//! request's extensions.

use super::{TokenRequest, TokenResponse};
use crate::crypto::blind_rsa::partial::{DerivedSecretKey, OwnedDerivedSecretKey};
use crate::crypto::blind_rsa::{PublicKey, SecretKey};
use crate::error::{Error, Result};
use crate::tokens::truncated_key_id;
use crate::wire::extensions::Extensions;
use crate::wire::token_type::KEY_ID_LEN;

/// The issuer side of type 0xDA7A. Not `Copy`; `Debug` shows only the
/// public key.
///
/// Its key must have safe primes (draft-irtf-cfrg-partially-blind-rsa-01
/// §4.1): with other primes `DeriveKeyPair` fails for some extensions, and
/// which ones fail tells the small factors of p − 1 and q − 1 to the
/// clients that choose them. Both constructors check
/// ([`SecretKey::check_safe_primes_vartime`]): [`Self::try_new`] refuses
/// such a key, [`Self::new`] makes an issuer that signs nothing.
///
/// To reuse a derivation for extensions that repeat, keep the
/// [`OwnedDerivedSecretKey`] of [`Self::derive_owned`] (fixed size, no
/// borrow of the issuer) and sign with [`Self::evaluate_with_owned`]. The
/// issuer keeps no cache itself: `evaluate` takes `&self`, and a cache
/// shared between callers would need a lock this `no_std` crate does not
/// choose for you.
pub struct Issuer {
    key: SecretKey,
    /// The safe-prime check of the key, run once when the issuer was built:
    /// an error here refuses every derivation and signature.
    safe_primes: Result<()>,
}

impl core::fmt::Debug for Issuer {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Issuer").field("public_key", self.key.public_key()).finish_non_exhaustive()
    }
}

/// The RSA key wipes itself on drop.
impl zeroize::ZeroizeOnDrop for Issuer {}

impl Issuer {
    /// An issuer with the given private key, after checking that its primes
    /// are safe primes (variable time in the primes; see
    /// [`SecretKey::check_safe_primes_vartime`]). A key that fails the check
    /// still makes an issuer, but one whose [`Self::derive`],
    /// [`Self::derive_owned`] and `evaluate*` all return
    /// [`Error::NotSafePrime`]; to refuse the key when it is loaded, use
    /// [`Self::try_new`].
    pub fn new(key: SecretKey) -> Self {
        let safe_primes = key.check_safe_primes_vartime();
        Self { key, safe_primes }
    }

    /// An issuer with the given private key, or [`Error::NotSafePrime`] if
    /// its primes are not safe primes (checked in variable time in the
    /// primes, see [`SecretKey::check_safe_primes_vartime`]). The
    /// constructor for loading a key.
    pub fn try_new(key: SecretKey) -> Result<Self> {
        let issuer = Self::new(key);
        issuer.safe_primes?;
        Ok(issuer)
    }

    /// The public key.
    pub const fn public_key(&self) -> &PublicKey {
        self.key.public_key()
    }

    /// The token key to publish: the 342-byte RSASSA-PSS SPKI.
    pub fn token_key(&self) -> [u8; 342] {
        self.key.public_key().to_spki_array()
    }

    /// The token_key_id.
    pub const fn key_id(&self) -> &[u8; KEY_ID_LEN] {
        self.key.public_key().key_id()
    }

    /// Marks the issuer's RSA key as secret for valgrind memcheck, after
    /// the safe-prime check (the `ctgrind` harness only; see `ctgrind/`).
    #[cfg(pat_ctgrind)]
    #[doc(hidden)]
    pub fn ctgrind_poison(&self) {
        self.key.ctgrind_poison();
    }

    /// The signing key derived for `extensions` (`DeriveKeyPair`), to sign
    /// many requests with the same metadata through [`Self::evaluate_with`].
    /// [`Error::NotSafePrime`] if the key failed the check of [`Self::new`].
    pub fn derive(&self, extensions: &Extensions<'_>) -> Result<DerivedSecretKey<'_>> {
        self.safe_primes?;
        DerivedSecretKey::new(&self.key, extensions.as_bytes())
    }

    /// [`Self::derive`] in the form that keeps no borrow of the issuer, to
    /// hold in a struct of your own (a cache) and sign with through
    /// [`Self::evaluate_with_owned`].
    pub fn derive_owned(&self, extensions: &Extensions<'_>) -> Result<OwnedDerivedSecretKey> {
        self.safe_primes?;
        OwnedDerivedSecretKey::new(&self.key, extensions.as_bytes())
    }

    /// Signs a request: checks its truncated key id against this key
    /// ([`Error::KeyIdMismatch`]), derives the key pair for its extensions
    /// and signs in constant time, checking the signature before it is
    /// returned. Which extensions to accept is the caller's policy: read
    /// `request.extensions` before calling this. [`Error::NotSafePrime`] if
    /// the key failed the check of [`Self::new`].
    pub fn evaluate(&self, request: &TokenRequest<'_>) -> Result<TokenResponse> {
        self.safe_primes?;
        self.check_key_id(request)?;
        let derived = self.derive_owned(&request.extensions)?;
        Ok(TokenResponse { blind_sig: derived.blind_sign(&self.key, &request.blinded_msg)? })
    }

    /// [`Self::evaluate`] with a key derived beforehand by [`Self::derive`]
    /// for the request's extensions. A key derived from another issuer key
    /// is [`Error::KeyIdMismatch`]; one derived for other extensions is
    /// [`Error::ExtensionsMismatch`] (checked by digest before signing, so a
    /// cache lookup that returns the wrong key never signs).
    pub fn evaluate_with(&self, derived: &DerivedSecretKey<'_>, request: &TokenRequest<'_>) -> Result<TokenResponse> {
        self.safe_primes?;
        self.check_key_id(request)?;
        if derived.base().public_key() != self.key.public_key() {
            return Err(Error::KeyIdMismatch);
        }
        if !derived.is_for(request.extensions.as_bytes()) {
            return Err(Error::ExtensionsMismatch);
        }
        Ok(TokenResponse { blind_sig: derived.blind_sign(&request.blinded_msg)? })
    }

    /// [`Self::evaluate_with`] for a key of [`Self::derive_owned`], with the
    /// same checks: [`Error::KeyIdMismatch`] for a key derived from another
    /// issuer key, [`Error::ExtensionsMismatch`] for one derived for other
    /// extensions, both before anything is signed.
    pub fn evaluate_with_owned(
        &self,
        derived: &OwnedDerivedSecretKey,
        request: &TokenRequest<'_>,
    ) -> Result<TokenResponse> {
        self.safe_primes?;
        self.check_key_id(request)?;
        if !derived.is_from(self.key.public_key()) {
            return Err(Error::KeyIdMismatch);
        }
        if !derived.is_for(request.extensions.as_bytes()) {
            return Err(Error::ExtensionsMismatch);
        }
        Ok(TokenResponse { blind_sig: derived.blind_sign(&self.key, &request.blinded_msg)? })
    }

    fn check_key_id(&self, request: &TokenRequest<'_>) -> Result<()> {
        if request.truncated_token_key_id == truncated_key_id(self.key_id()) {
            Ok(())
        } else {
            Err(Error::KeyIdMismatch)
        }
    }
}
