//! The deterministic blind_rsa entry points behind `pat::hazmat::crypto::blind_rsa`
//! (see its warning), and used by the power-on self-test and the tests.

use crypto_bigint::Uint;
use zeroize::Zeroize as _;

use super::{PreparedMessage, RsaBlindingState, RsaPublicKey, SALT_LEN, Variant, blind_core, monty, pow_65537_mont};
use crate::error::{Error, Field, Result};

/// [`Variant::blind`] (RFC 9474 §4.2) with an explicit salt (sLen bytes) and
/// blind r (big-endian, `B` bytes, in [1, n) and invertible).
/// [`Error::InvalidLength`] for a salt of the wrong length,
/// [`Error::InvalidValue`] for an r out of range or not invertible.
pub fn blind_variant_with<const L: usize, const B: usize>(
    variant: Variant,
    pk: &RsaPublicKey<L, B>,
    input: &PreparedMessage<'_>,
    salt: &[u8],
    r: &[u8],
) -> Result<([u8; B], RsaBlindingState<L>)> {
    if salt.len() != variant.salt_len() {
        return Err(Error::InvalidLength(Field::Message));
    }
    let mut r = pk.integer(r).ok_or(Error::InvalidValue(Field::Message))?;
    let mut m = variant.encode::<L, B>(input, salt)?;
    let mut r_mont = monty::mul(&r, pk.params().r2(), pk.params());
    // Without an inversion blind: the constant-time inversion of m·r.
    let out = blind_core(pk, &m, &r_mont, None, &|x: &Uint<L>| pow_65537_mont(x, pk.params()))
        .ok_or(Error::InvalidValue(Field::Message));
    for x in [&mut r, &mut m, &mut r_mont] {
        x.zeroize();
    }
    out
}

/// Privacy Pass `Blind` ([`blind_rsa::blind`](super::blind), RFC 9578 §6.1)
/// with an explicit 48-byte salt and blind r (big-endian).
pub fn blind_with<const L: usize, const B: usize>(
    pk: &RsaPublicKey<L, B>,
    msg: &[u8],
    salt: &[u8; SALT_LEN],
    r: &[u8; B],
) -> Result<([u8; B], RsaBlindingState<L>)> {
    blind_variant_with(Variant::Sha384PssDeterministic, pk, &PreparedMessage::identity(msg), salt, r)
}

/// [`blind_with`] through the variable-time inversion that the randomized
/// [`blind_rsa::blind`](super::blind) runs, for a public blind r. The
/// power-on self-test ([`crate::self_test`]) blinds this way, so that its
/// known answer covers the inversion every real request goes through rather
/// than the constant-time one of [`blind_with`]. The inversion blind is
/// u = 1, so m·r itself reaches variable-time code: `r` must be public.
pub(crate) fn blind_with_vartime<const L: usize, const B: usize>(
    pk: &RsaPublicKey<L, B>,
    msg: &[u8],
    salt: &[u8; SALT_LEN],
    r: &[u8; B],
) -> Result<([u8; B], RsaBlindingState<L>)> {
    let r = pk.integer(r).ok_or(Error::InvalidValue(Field::Message))?;
    let m = Variant::Sha384PssDeterministic.encode::<L, B>(&PreparedMessage::identity(msg), salt)?;
    let params = pk.params();
    let r_mont = monty::mul(&r, params.r2(), params);
    // u = 1 in Montgomery form: 1·R²·R⁻¹ = R mod n.
    let one_mont = monty::mul(&Uint::ONE, params.r2(), params);
    blind_core(pk, &m, &r_mont, Some(&one_mont), &|x: &Uint<L>| pow_65537_mont(x, params))
        .ok_or(Error::InvalidValue(Field::Message))
}

/// Partially blind RSA `Blind` ([`RsaDerivedPublicKey::blind`](super::partial::RsaDerivedPublicKey::blind),
/// draft-irtf-cfrg-partially-blind-rsa §4.2) with an explicit salt and
/// blind r (big-endian, in [1, n) and invertible), through the
/// constant-time inversion: the draft's known answers.
pub fn partial_blind_with<const L: usize, const H: usize, const B: usize>(
    pk: &super::partial::RsaDerivedPublicKey<'_, '_, L, H, B>,
    variant: Variant,
    input: &PreparedMessage<'_>,
    salt: &[u8],
    r: &[u8],
) -> Result<([u8; B], RsaBlindingState<L>)> {
    pk.blind_with(variant, input, salt, r)
}
