//! Encrypting the `InnerTokenRequest` to the issuer
//! (draft-ietf-privacypass-rate-limit-tokens "Client to Issuer Encapsulation",
//! HPKE base mode, RFC 9180 §5.1.1 and §5.3, through the `hpke` crate).
//!
//! The client runs
//!
//! ```text
//! enc, context = SetupBaseS(pkI, info)
//! ct = context.Seal(aad, InnerTokenRequest)          (the first message: base_nonce)
//! encrypted_token_request = enc ‖ ct
//! secret = context.Export(exporter_context, 16)      (Nk of AES-128-GCM)
//! aad = key_id(1) ‖ kem_id(2) ‖ kdf_id(2) ‖ aead_id(2) ‖ token_type = 0x0003 (2)
//!       ‖ request_key(49) ‖ issuer_encap_key_id(32)
//! ```
//!
//! and the issuer runs `SetupBaseR(enc, skI, info)`, `Open` and the same
//! `Export`. `info` and `exporter_context` come from [`Labels`] (pat-go's by
//! default). The issuer's AAD uses its own `EncapKey` and key id, so a request
//! naming another encapsulation key fails to decrypt.
//!
//! Nothing is allocated: the plaintext is encoded into the caller's output
//! buffer and sealed in place; opening writes the plaintext into a second
//! caller buffer. AEAD failures and invalid encapsulated keys are the opaque
//! [`Error::Verification`].

use core::convert::Infallible;

use hpke::aead::{AeadTag, AesGcm128};
use hpke::inout::InOutBuf;
use hpke::kdf::HkdfSha256;
use hpke::{Deserializable as _, OpModeR, OpModeS, Serializable as _};
use rand_core::{TryCryptoRng, TryRng};
use zeroize::{Zeroize, Zeroizing};

use super::encap::{AEAD_ID, ENCAP_KEY_ID_LEN, EncapKey, EncapSecretKey, KDF_ID, KEM_ID, Kem};
use super::inner_request::{self, InnerTokenRequest};
use super::{Labels, TOKEN_TYPE};
use crate::error::{Error, Result, RngCode};
use crate::wire::codec::{Decode, Encode};

/// Nenc: the length of the encapsulated key `enc` (RFC 9180 §7.1, X25519).
pub const ENC_LEN: usize = 32;
/// Nt: the AES-128-GCM tag length.
pub const TAG_LEN: usize = 16;
/// The length of the exported response secret: Nk of AES-128-GCM.
pub const SECRET_LEN: usize = 16;
/// The length of the client's blinded request key (compressed P-384): 49 bytes.
pub const REQUEST_KEY_LEN: usize = 49;
/// The length of the AAD: 1 + 2 + 2 + 2 + 2 + 49 + 32.
pub const AAD_LEN: usize = 1 + 2 + 2 + 2 + 2 + REQUEST_KEY_LEN + ENCAP_KEY_ID_LEN;
/// The shortest `encrypted_token_request`: enc ‖ Seal(InnerTokenRequest with a
/// 32-byte padded origin name), 339 bytes.
pub const MIN_ENCRYPTED_REQUEST_LEN: usize = ENC_LEN + inner_request::FIXED_LEN + inner_request::PAD_BLOCK + TAG_LEN;

type Aead = AesGcm128;
type Kdf = HkdfSha256;

/// The AAD of the origin encryption (draft "Client to Issuer Encapsulation"):
/// `key_id ‖ kem_id ‖ kdf_id ‖ aead_id ‖ token_type ‖ request_key ‖
/// issuer_encap_key_id`. Note the order differs from the `EncapKey` encoding.
pub fn aad(encap_key: &EncapKey, request_key: &[u8; REQUEST_KEY_LEN]) -> [u8; AAD_LEN] {
    let mut out = [0u8; AAD_LEN];
    let mut w = crate::wire::codec::Writer::new(&mut out);
    // The buffer has exactly AAD_LEN bytes, so none of these writes can fail.
    let _ = w.u8(encap_key.key_id());
    let _ = w.u16(KEM_ID);
    let _ = w.u16(KDF_ID);
    let _ = w.u16(AEAD_ID);
    let _ = w.u16(TOKEN_TYPE);
    let _ = w.put(request_key);
    let _ = w.put(&encap_key.id());
    out
}

/// The length of `encrypted_token_request` for `inner`: 32 + its encoding + 16.
pub fn encrypted_request_len(inner: &InnerTokenRequest<'_>) -> usize {
    ENC_LEN + inner.encoded_len() + TAG_LEN
}

/// The state both ends keep for the response: `enc` and the exported 16-byte
/// `secret` (draft "Client to Issuer Encapsulation" and "Issuer to Client
/// Encapsulation").
///
/// Secret: not `Copy`, zeroized on drop, `Debug` prints only the type name.
pub struct EncapSecret {
    enc: [u8; ENC_LEN],
    secret: [u8; SECRET_LEN],
}

impl EncapSecret {
    /// Rebuilds the state from stored parts.
    pub fn from_parts(enc: &[u8; ENC_LEN], secret: &[u8; SECRET_LEN]) -> Self {
        Self { enc: *enc, secret: *secret }
    }

    /// The encapsulated key `enc`, the first 32 bytes of `encrypted_token_request`.
    pub const fn enc(&self) -> &[u8; ENC_LEN] {
        &self.enc
    }

    /// The exported secret.
    pub const fn secret(&self) -> &[u8; SECRET_LEN] {
        &self.secret
    }

    /// Zeroes both parts in place (a spent client state).
    pub(crate) fn wipe(&mut self) {
        self.enc.zeroize();
        self.secret.zeroize();
    }
}

secret_newtype!(EncapSecret { enc, secret });

/// Encrypts `inner` to the issuer's `encap_key` (draft "Client to Issuer
/// Encapsulation"), writing `encrypted_token_request = enc ‖ ct` to the front of
/// `out` and returning its length with the state for the response.
///
/// Fails with [`Error::BufferTooSmall`] if `out` is shorter than
/// [`encrypted_request_len`], [`Error::Rng`] if the generator fails, and
/// [`Error::InvalidKey`] if `encap_key` is a low-order X25519 point. On error
/// nothing useful is left in `out` (it is zeroed).
pub fn encrypt_origin_request<R: TryCryptoRng<Error: 'static> + ?Sized>(
    encap_key: &EncapKey,
    request_key: &[u8; REQUEST_KEY_LEN],
    inner: &InnerTokenRequest<'_>,
    labels: &Labels,
    out: &mut [u8],
    rng: &mut R,
) -> Result<(usize, EncapSecret)> {
    let mut ikm_e = Zeroizing::new([0u8; ENC_LEN]);
    crate::rng::fill(rng, ikm_e.as_mut())?;
    encrypt_with_ikm(encap_key, request_key, inner, labels, &ikm_e, out)
}

pub(crate) fn encrypt_with_ikm(
    encap_key: &EncapKey,
    request_key: &[u8; REQUEST_KEY_LEN],
    inner: &InnerTokenRequest<'_>,
    labels: &Labels,
    ikm_e: &[u8; ENC_LEN],
    out: &mut [u8],
) -> Result<(usize, EncapSecret)> {
    let total = encrypted_request_len(inner);
    let out = out.get_mut(..total).ok_or(Error::BufferTooSmall)?;
    let result = encrypt_into(encap_key, request_key, inner, labels, ikm_e, out);
    if result.is_err() {
        out.zeroize();
    }
    result.map(|secret| (total, secret))
}

/// `out` is exactly `enc ‖ ct ‖ tag` long.
fn encrypt_into(
    encap_key: &EncapKey,
    request_key: &[u8; REQUEST_KEY_LEN],
    inner: &InnerTokenRequest<'_>,
    labels: &Labels,
    ikm_e: &[u8; ENC_LEN],
    out: &mut [u8],
) -> Result<EncapSecret> {
    let (enc_out, rest) = out.split_at_mut_checked(ENC_LEN).ok_or(Error::BufferTooSmall)?;
    let body_len = rest.len().checked_sub(TAG_LEN).ok_or(Error::BufferTooSmall)?;
    let (body, tag_out) = rest.split_at_mut_checked(body_len).ok_or(Error::BufferTooSmall)?;
    inner.encode(body)?;
    let mut secret = [0u8; SECRET_LEN];
    let (enc, tag) = seal_base(
        encap_key,
        labels.info,
        &aad(encap_key, request_key),
        ikm_e,
        body,
        labels.exporter_context,
        &mut secret,
    )?;
    enc_out.copy_from_slice(&enc);
    tag_out.copy_from_slice(&tag);
    let state = EncapSecret { enc, secret };
    secret.zeroize();
    Ok(state)
}

/// Decrypts an `encrypted_token_request` with the issuer's secret key (draft
/// "Client to Issuer Encapsulation"), writing the plaintext into `out` and
/// returning the parsed request (borrowing `out`) with the response state.
///
/// `out` needs `encrypted.len() − 48` bytes ([`Error::BufferTooSmall`]).
/// Every decryption failure is [`Error::Verification`]; a plaintext that does
/// not parse strictly fails with the parse error. On any error `out` is zeroed.
pub fn decrypt_origin_request<'b>(
    sk: &EncapSecretKey,
    request_key: &[u8; REQUEST_KEY_LEN],
    encrypted: &[u8],
    labels: &Labels,
    out: &'b mut [u8],
) -> Result<(InnerTokenRequest<'b>, EncapSecret)> {
    let (enc, rest) = encrypted.split_first_chunk::<ENC_LEN>().ok_or(Error::Truncated)?;
    let (ct, tag) = rest.split_last_chunk::<TAG_LEN>().ok_or(Error::Truncated)?;
    let out = out.get_mut(..ct.len()).ok_or(Error::BufferTooSmall)?;
    let mut secret = [0u8; SECRET_LEN];
    let opened = open_base(
        sk,
        enc,
        labels.info,
        &aad(sk.encap_key(), request_key),
        ct,
        out,
        tag,
        labels.exporter_context,
        &mut secret,
    );
    if let Err(e) = opened {
        out.zeroize();
        return Err(e);
    }
    // The inner request (blinded message, origin name) is the issuer's to
    // read: it parses it and looks up the origin.
    crate::ct::declassify(out);
    let state = EncapSecret { enc: *enc, secret };
    secret.zeroize();
    // Validate first so that a parse error can still zero `out`; then parse
    // again for the borrow that is returned.
    if let Err(e) = InnerTokenRequest::decode(out) {
        out.zeroize();
        return Err(e);
    }
    let out: &'b [u8] = out;
    Ok((InnerTokenRequest::decode(out)?, state))
}

/// An RNG for the `hpke` crate that hands out exactly one 32-byte `ikm_e`: the
/// crate's ephemeral key generation is `DeriveKeyPair(random(Nsk))` (RFC 9180
/// §4), so this makes the ephemeral key `DeriveKeyPair(ikm_e)`. Any other draw
/// is recorded as misuse and the operation fails with [`Error::Rng`].
struct IkmRng<'a> {
    ikm: &'a [u8; ENC_LEN],
    used: bool,
    misuse: bool,
}

impl TryRng for IkmRng<'_> {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> core::result::Result<u32, Infallible> {
        self.misuse = true;
        Ok(0)
    }

    fn try_next_u64(&mut self) -> core::result::Result<u64, Infallible> {
        self.misuse = true;
        Ok(0)
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> core::result::Result<(), Infallible> {
        if !self.used && dst.len() == ENC_LEN {
            dst.copy_from_slice(self.ikm);
            self.used = true;
        } else {
            dst.fill(0);
            self.misuse = true;
        }
        Ok(())
    }
}

impl TryCryptoRng for IkmRng<'_> {}

/// Single-shot HPKE base-mode seal of one message (RFC 9180 §5.1.1, §5.2, §5.3)
/// in place, with the ephemeral key `DeriveKeyPair(ikm_e)`; fills `export` with
/// `Export(exporter_context, export.len())`. Returns `(enc, tag)`.
pub(super) fn seal_base(
    pk: &EncapKey,
    info: &[u8],
    aad: &[u8],
    ikm_e: &[u8; ENC_LEN],
    buf: &mut [u8],
    exporter_context: &[u8],
    export: &mut [u8],
) -> Result<([u8; ENC_LEN], [u8; TAG_LEN])> {
    let pk = pk.hpke_public_key()?;
    let mut rng = IkmRng { ikm: ikm_e, used: false, misuse: false };
    let setup = hpke::setup_sender_with_rng::<Aead, Kdf, Kem>(&OpModeS::Base, &pk, info, &mut rng);
    if rng.misuse || !rng.used {
        return Err(Error::Rng(RngCode::INTERNAL));
    }
    let (encapped, mut ctx) = setup.map_err(|_| Error::InvalidKey)?;
    let tag = ctx.seal_inout_detached(InOutBuf::from(buf), aad).map_err(|_| Error::ValueTooLarge)?;
    ctx.export(exporter_context, export).map_err(|_| Error::ValueTooLarge)?;
    let mut enc = [0u8; ENC_LEN];
    encapped.write_exact(&mut enc);
    let mut tag_bytes = [0u8; TAG_LEN];
    tag.write_exact(&mut tag_bytes);
    Ok((enc, tag_bytes))
}

/// Single-shot HPKE base-mode open of the first message (RFC 9180 §5.1.1, §5.2,
/// §5.3) from `ct` into `out` (same length); fills `export` with
/// `Export(exporter_context, export.len())`.
#[allow(clippy::too_many_arguments)]
pub(super) fn open_base(
    sk: &EncapSecretKey,
    enc: &[u8; ENC_LEN],
    info: &[u8],
    aad: &[u8],
    ct: &[u8],
    out: &mut [u8],
    tag: &[u8; TAG_LEN],
    exporter_context: &[u8],
    export: &mut [u8],
) -> Result<()> {
    let encapped = <Kem as hpke::Kem>::EncappedKey::from_bytes(enc).map_err(|_| Error::Verification)?;
    let tag = AeadTag::<Aead>::from_bytes(tag).map_err(|_| Error::Verification)?;
    let mut ctx = hpke::setup_receiver::<Aead, Kdf, Kem>(&OpModeR::Base, sk.hpke_secret_key(), &encapped, info)
        .map_err(|_| Error::Verification)?;
    let buf = InOutBuf::new(ct, out).map_err(|_| Error::BufferTooSmall)?;
    let mut opened = ctx.open_inout_detached(buf, aad, &tag);
    crate::ct::declassify(&mut opened); // the AEAD verdict: the request is accepted or not
    opened.map_err(|_| Error::Verification)?;
    ctx.export(exporter_context, export).map_err(|_| Error::ValueTooLarge)
}
