//! The issuer of type 0x0003 (draft "Issuer Behavior"): its table of origin
//! keys, and the evaluation of a TokenRequest into an encrypted blind
//! signature for the client and a blinded request key for the attester.

use core::fmt;

use rand_core::TryCryptoRng;
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use super::TokenKey;
use super::{BLINDED_REQUEST_KEY_LEN, Config, RESPONSE_LEN, TokenRequest};
use crate::crypto::blind_rsa::{self, PublicKey};
use crate::crypto::key_blinding::ecdsa_p384 as ecdsa;
use crate::crypto::rate_limited::alias::{self, CTX_ISSUER};
use crate::crypto::rate_limited::encap::{ENCAP_KEY_ID_LEN, EncapKey, EncapSecretKey};
use crate::crypto::rate_limited::origin_encryption::{self, ENC_LEN, TAG_LEN};
use crate::crypto::rate_limited::response;
use crate::error::{Error, Result};
use crate::hex::Hex;
use crate::wire::token_type::KEY_ID_LEN;

/// The scratch space [`Issuer::evaluate`] needs for `request`: the plaintext
/// length, `encrypted_token_request` minus 48 bytes (at most 65487 bytes).
pub const fn scratch_len(request: &TokenRequest<'_>) -> usize {
    request.encrypted_token_request.len().saturating_sub(ENC_LEN + TAG_LEN)
}

/// One origin's ECDSA P-384 secret key on the issuer (the draft's origin
/// index key `sk_origin`), with the origin name it serves.
pub struct OriginKey<'a> {
    name: &'a [u8],
    key: ecdsa::SecretKey,
}

impl<'a> OriginKey<'a> {
    /// Pairs an origin name with its secret key.
    pub const fn new(name: &'a [u8], key: ecdsa::SecretKey) -> Self {
        Self { name, key }
    }

    /// The origin name.
    pub const fn name(&self) -> &'a [u8] {
        self.name
    }

    /// The secret key.
    pub const fn key(&self) -> &ecdsa::SecretKey {
        &self.key
    }
}

/// The ECDSA secret key wipes itself on drop.
impl ZeroizeOnDrop for OriginKey<'_> {}

impl fmt::Debug for OriginKey<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OriginKey")
            .field("name", &core::str::from_utf8(self.name).unwrap_or("<not UTF-8>"))
            .finish_non_exhaustive()
    }
}

/// The issuer's table from origin names to origin secret keys.
///
/// Implemented for slices and arrays of [`OriginKey`] (a linear scan); a
/// caller with many origins can implement it over its own map. Origin names
/// are compared in variable time: the issuer learns them anyway.
pub trait OriginKeys {
    /// The secret key of `origin_name`, if the issuer serves it.
    fn origin_key(&self, origin_name: &[u8]) -> Option<&ecdsa::SecretKey>;
}

impl OriginKeys for [OriginKey<'_>] {
    fn origin_key(&self, origin_name: &[u8]) -> Option<&ecdsa::SecretKey> {
        self.iter().find(|o| o.name == origin_name).map(OriginKey::key)
    }
}

impl<const K: usize> OriginKeys for [OriginKey<'_>; K] {
    fn origin_key(&self, origin_name: &[u8]) -> Option<&ecdsa::SecretKey> {
        self.as_slice().origin_key(origin_name)
    }
}

impl<T: OriginKeys + ?Sized> OriginKeys for &T {
    fn origin_key(&self, origin_name: &[u8]) -> Option<&ecdsa::SecretKey> {
        (**self).origin_key(origin_name)
    }
}

/// What the issuer returns to the attester (draft "Issuer-to-Attester
/// Response").
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct IssuerResponse {
    /// The encrypted blind signature, for the client.
    pub encrypted_token_response: [u8; RESPONSE_LEN],
    /// `BlindPublicKey(request_key, sk_origin, ctx_issuer)`, for the attester.
    pub blinded_request_key: [u8; BLINDED_REQUEST_KEY_LEN],
}

impl fmt::Debug for IssuerResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IssuerResponse")
            .field("blinded_request_key", &Hex(&self.blinded_request_key))
            .finish_non_exhaustive()
    }
}

/// The issuer of type 0x0003 (draft "Issuer Behavior"): its HPKE
/// encapsulation key, its RSA-2048 token key and a table of origin keys.
pub struct Issuer<T> {
    encap: EncapSecretKey,
    encap_key_id: [u8; ENCAP_KEY_ID_LEN],
    token_key: TokenKey,
    origins: T,
    config: Config,
}

/// The HPKE and RSA keys wipe themselves on drop, and so do owned origin keys.
impl<const K: usize> ZeroizeOnDrop for Issuer<[OriginKey<'_>; K]> {}

/// The HPKE and RSA keys wipe themselves on drop; the borrowed origin table is
/// its owner's to wipe.
impl<T: ?Sized> ZeroizeOnDrop for Issuer<&T> {}

impl<T> fmt::Debug for Issuer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Issuer")
            .field("encap_key", self.encap.encap_key())
            .field("token_key", self.token_key.public_key())
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl<T: OriginKeys> Issuer<T> {
    /// An issuer with pat-go's wire choices. `token_key` is a [`TokenKey`],
    /// not a [`blind_rsa::SecretKey`](crate::crypto::blind_rsa::SecretKey): an RSA
    /// key must never serve type 0x0002 as well (see [`TokenKey`]).
    pub fn new(encap: EncapSecretKey, token_key: TokenKey, origins: T) -> Self {
        let encap_key_id = encap.encap_key().id();
        Self { encap, encap_key_id, token_key, origins, config: Config::PAT_GO }
    }

    /// The same issuer with other wire choices.
    #[must_use]
    pub fn with_config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    /// The `EncapKey` to publish.
    pub const fn encap_key(&self) -> &EncapKey {
        self.encap.encap_key()
    }

    /// `issuer_encap_key_id`, SHA-256 of the `EncapKey`.
    pub const fn encap_key_id(&self) -> &[u8; ENCAP_KEY_ID_LEN] {
        &self.encap_key_id
    }

    /// The RSA public key.
    pub const fn public_key(&self) -> &PublicKey {
        self.token_key.public_key()
    }

    /// The token key to publish: the 342-byte RSASSA-PSS SPKI.
    pub fn token_key(&self) -> [u8; 342] {
        self.token_key.public_key().to_spki_array()
    }

    /// The token_key_id.
    pub const fn key_id(&self) -> &[u8; KEY_ID_LEN] {
        self.token_key.public_key().key_id()
    }

    /// The origin key table.
    pub const fn origins(&self) -> &T {
        &self.origins
    }

    /// Evaluates a request (draft "Issuer Behavior"), in this order:
    ///
    /// 1. `issuer_encap_key_id` must be this issuer's ([`Error::KeyIdMismatch`];
    ///    pat-go does not check).
    /// 2. `request_key` must be a point ([`Error::InvalidElement`]) under which
    ///    the signature verifies ([`Error::Verification`]).
    /// 3. The ciphertext must decrypt ([`Error::Verification`]) into a strictly
    ///    parsed, minimally padded `InnerTokenRequest` (parse errors).
    /// 4. Its `token_key_id` byte must match the RSA key ([`Error::KeyIdMismatch`];
    ///    pat-go does not check).
    /// 5. The origin must be in the table ([`Error::UnknownOrigin`]).
    /// 6. `blinded_request_key = BlindPublicKey(request_key, sk_origin,
    ///    ctx_issuer)`; the blinded message is signed in constant time with a
    ///    fault check (RFC 9474 §4.3) and encrypted to the client.
    ///
    /// `scratch` holds the plaintext ([`scratch_len`] bytes, else
    /// [`Error::BufferTooSmall`]) and is zeroed before returning.
    pub fn evaluate<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        request: &TokenRequest<'_>,
        scratch: &mut [u8],
        rng: &mut R,
    ) -> Result<IssuerResponse> {
        if !bool::from(request.issuer_encap_key_id.ct_eq(&self.encap_key_id)) {
            return Err(Error::KeyIdMismatch);
        }
        let request_key = ecdsa::PublicKey::from_bytes(request.request_key)?;
        request.verify_signature()?;
        let used = scratch_len(request).min(scratch.len());
        let result = self.open_and_sign(request, &request_key, scratch, rng);
        if let Some(s) = scratch.get_mut(..used) {
            s.zeroize();
        }
        result
    }

    fn open_and_sign<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        request: &TokenRequest<'_>,
        request_key: &ecdsa::PublicKey,
        scratch: &mut [u8],
        rng: &mut R,
    ) -> Result<IssuerResponse> {
        let (inner, encap) = origin_encryption::decrypt_origin_request(
            &self.encap,
            request.request_key,
            request.encrypted_token_request,
            &self.config.labels,
            scratch,
        )?;
        if inner.token_key_id != self.config.key_id_byte.truncate(self.key_id()) {
            return Err(Error::KeyIdMismatch);
        }
        let origin_key = self.origins.origin_key(inner.origin_name).ok_or(Error::UnknownOrigin)?;
        let blinded_request_key =
            alias::blinded_request_key(request_key, origin_key, CTX_ISSUER, self.config.blind_encoding)?.to_bytes();
        let blind_sig = Zeroizing::new(blind_rsa::blind_sign(self.token_key.secret(), inner.blinded_msg)?);
        let encrypted_token_response = response::encrypt_response(&encap, &blind_sig, rng)?;
        Ok(IssuerResponse { encrypted_token_response, blinded_request_key })
    }
}
