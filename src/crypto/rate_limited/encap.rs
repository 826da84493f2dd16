//! The issuer's encapsulation key (draft-ietf-privacypass-rate-limit-tokens
//! "Configuration"): an HPKE public key with its fixed suite.
//!
//! ```text
//! struct {
//!     uint8 key_id;
//!     uint16 kem_id;
//!     opaque public_key[Npk];
//!     uint16 kdf_id;
//!     uint16 aead_id;
//! } EncapKey;
//! ```
//!
//! The only suite is DHKEM(X25519, HKDF-SHA256) / HKDF-SHA256 / AES-128-GCM
//! (RFC 9180 §7: KEM 0x0020, KDF 0x0001, AEAD 0x0001), so an `EncapKey` is
//! always 39 bytes; any other identifier is rejected.

use core::fmt;

use hpke::kem::X25519HkdfSha256;
use hpke::{Deserializable as _, Kem as _, Serializable as _};
use sha2::{Digest as _, Sha256};
use subtle::{Choice, ConstantTimeEq};
use zeroize::Zeroizing;

use crate::error::{Error, Result};
use crate::wire::codec::{Decode, Encode, Reader, Writer};

/// The KEM: DHKEM(X25519, HKDF-SHA256) (RFC 9180 §7.1).
pub const KEM_ID: u16 = 0x0020;
/// The KDF: HKDF-SHA256 (RFC 9180 §7.2).
pub const KDF_ID: u16 = 0x0001;
/// The AEAD: AES-128-GCM (RFC 9180 §7.3).
pub const AEAD_ID: u16 = 0x0001;
/// Npk = Nenc = 32 for X25519 (RFC 9180 §7.1).
pub const PUBLIC_KEY_LEN: usize = 32;
/// Nsk = 32 for X25519 (RFC 9180 §7.1).
pub const SECRET_KEY_LEN: usize = 32;
/// The encoded length of an [`EncapKey`]: 1 + 2 + 32 + 2 + 2.
pub const ENCAP_KEY_LEN: usize = 1 + 2 + PUBLIC_KEY_LEN + 2 + 2;
/// The length of `issuer_encap_key_id`, SHA-256 of the encoded [`EncapKey`].
pub const ENCAP_KEY_ID_LEN: usize = 32;

pub(crate) type Kem = X25519HkdfSha256;

/// The issuer's public encapsulation key (draft "Configuration").
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct EncapKey {
    key_id: u8,
    public_key: [u8; PUBLIC_KEY_LEN],
}

impl EncapKey {
    /// An encapsulation key with the fixed suite.
    pub const fn new(key_id: u8, public_key: &[u8; PUBLIC_KEY_LEN]) -> Self {
        Self { key_id, public_key: *public_key }
    }

    /// The issuer-chosen `key_id` byte.
    pub const fn key_id(&self) -> u8 {
        self.key_id
    }

    /// The X25519 public key `pkI`.
    pub const fn public_key(&self) -> &[u8; PUBLIC_KEY_LEN] {
        &self.public_key
    }

    /// The 39-byte encoding.
    pub fn to_bytes(&self) -> [u8; ENCAP_KEY_LEN] {
        let mut out = [0u8; ENCAP_KEY_LEN];
        let mut w = Writer::new(&mut out);
        // The buffer has exactly the encoded length, so this cannot fail.
        let _ = self.encode_into(&mut w);
        out
    }

    /// `issuer_encap_key_id = SHA-256(EncapKey)` (draft "Configuration").
    pub fn id(&self) -> [u8; ENCAP_KEY_ID_LEN] {
        Sha256::digest(self.to_bytes()).into()
    }

    pub(crate) fn hpke_public_key(&self) -> Result<<Kem as hpke::Kem>::PublicKey> {
        <Kem as hpke::Kem>::PublicKey::from_bytes(&self.public_key).map_err(|_| Error::InvalidKey)
    }
}

impl fmt::Debug for EncapKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EncapKey {{ key_id: {}, public_key: {:?} }}", self.key_id, crate::hex::Hex(&self.public_key))
    }
}

impl<'a> Decode<'a> for EncapKey {
    /// Strict: fails with [`Error::InvalidKey`] on any suite other than
    /// (0x0020, 0x0001, 0x0001), with [`Error::Truncated`] on short input
    /// (and, through [`Decode::decode`], with [`Error::TrailingBytes`]).
    fn decode_from(r: &mut Reader<'a>) -> Result<Self> {
        let key_id = r.u8()?;
        let kem_id = r.u16()?;
        if kem_id != KEM_ID {
            return Err(Error::InvalidKey);
        }
        let public_key = *r.array::<PUBLIC_KEY_LEN>()?;
        let kdf_id = r.u16()?;
        let aead_id = r.u16()?;
        if kdf_id != KDF_ID || aead_id != AEAD_ID {
            return Err(Error::InvalidKey);
        }
        Ok(Self { key_id, public_key })
    }
}

impl Encode for EncapKey {
    fn encoded_len(&self) -> usize {
        ENCAP_KEY_LEN
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        w.u8(self.key_id)?;
        w.u16(KEM_ID)?;
        w.put(&self.public_key)?;
        w.u16(KDF_ID)?;
        w.u16(AEAD_ID)
    }
}

/// The issuer's secret encapsulation key `skI` with its [`EncapKey`].
///
/// Not `Copy`; the X25519 secret is zeroized on drop (by x25519-dalek);
/// `Debug` prints only the type name.
pub struct EncapSecretKey {
    sk: <Kem as hpke::Kem>::PrivateKey,
    public: EncapKey,
}

impl EncapSecretKey {
    /// `DeriveKeyPair(seed)` (RFC 9180 §7.1.3) through the `hpke` crate, with the
    /// given `key_id`.
    ///
    /// pat-go's `CreatePrivateEncapKeyFromSeed` uses `key_id = 0x01` (the
    /// committed vector's key has it); its randomly keyed issuer uses `0x00`.
    pub fn derive(key_id: u8, seed: &[u8; SECRET_KEY_LEN]) -> Self {
        let (sk, pk) = Kem::derive_keypair(seed);
        let mut public_key = [0u8; PUBLIC_KEY_LEN];
        pk.write_exact(&mut public_key);
        Self { sk, public: EncapKey::new(key_id, &public_key) }
    }

    /// A key derived from a fresh random 32-byte seed.
    pub fn random<R: rand_core::TryCryptoRng<Error: 'static> + ?Sized>(key_id: u8, rng: &mut R) -> Result<Self> {
        let mut seed = Zeroizing::new([0u8; SECRET_KEY_LEN]);
        crate::rng::fill(rng, seed.as_mut())?;
        Ok(Self::derive(key_id, &seed))
    }

    /// The public [`EncapKey`].
    pub const fn encap_key(&self) -> &EncapKey {
        &self.public
    }

    /// The serialized X25519 secret key (RFC 9180 §7.1.2 `SerializePrivateKey`,
    /// which clamps its output; RFC 9180 Appendix A prints unclamped values).
    pub fn to_bytes(&self) -> Zeroizing<[u8; SECRET_KEY_LEN]> {
        let mut out = Zeroizing::new([0u8; SECRET_KEY_LEN]);
        self.sk.write_exact(out.as_mut());
        out
    }

    pub(crate) const fn hpke_secret_key(&self) -> &<Kem as hpke::Kem>::PrivateKey {
        &self.sk
    }

    /// Marks the secret memory as undefined for valgrind memcheck (the
    /// `ctgrind` harness only; see `ctgrind/`).
    #[cfg(pat_ctgrind)]
    #[doc(hidden)]
    pub fn ctgrind_poison(&self) {
        crate::ct::poison(&self.sk);
    }
}

impl ConstantTimeEq for EncapSecretKey {
    fn ct_eq(&self, other: &Self) -> Choice {
        self.sk.ct_eq(&other.sk) & Choice::from(u8::from(self.public == other.public))
    }
}

/// x25519-dalek's `StaticSecret` (inside `hpke`'s key) wipes itself on drop.
impl zeroize::ZeroizeOnDrop for EncapSecretKey {}

impl fmt::Debug for EncapSecretKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("EncapSecretKey")
    }
}
