//! EMSA-PSS encoding and verification (RFC 8017 §9.1) with SHA-384 and
//! MGF1-SHA-384 (RFC 8017 §B.2.1), as used by RFC 9474 §4.2 and §4.5.
//!
//! The message is given as a list of parts that are hashed one after the other,
//! so that RFC 9474's `input_msg = msg_prefix ‖ msg` never has to be
//! concatenated into a buffer.

use sha2::{Digest, Sha384};
use subtle::{Choice, ConstantTimeEq};

use crate::error::{Error, Result};

/// hLen for SHA-384.
pub(crate) const HASH_LEN: usize = 48;

/// mHash = Hash(M) for `M = parts[0] ‖ parts[1] ‖ …` (RFC 8017 §9.1.1 step 2).
pub(crate) fn message_hash(parts: &[&[u8]]) -> [u8; HASH_LEN] {
    let mut h = Sha384::new();
    for part in parts {
        h.update(part);
    }
    h.finalize().into()
}

/// H = Hash(0x00×8 ‖ mHash ‖ salt) (RFC 8017 §9.1.1 steps 5–6).
fn salted_hash(m_hash: &[u8; HASH_LEN], salt: &[u8]) -> [u8; HASH_LEN] {
    let mut h = Sha384::new();
    h.update([0u8; 8]);
    h.update(m_hash);
    h.update(salt);
    h.finalize().into()
}

/// `out ^= MGF1-SHA-384(seed, out.len())` (RFC 8017 §B.2.1).
fn xor_mgf1(seed: &[u8; HASH_LEN], out: &mut [u8]) {
    for (counter, chunk) in (0u32..).zip(out.chunks_mut(HASH_LEN)) {
        let mut h = Sha384::new();
        h.update(seed);
        h.update(counter.to_be_bytes());
        let block: [u8; HASH_LEN] = h.finalize().into();
        for (o, m) in chunk.iter_mut().zip(block.iter()) {
            *o ^= *m;
        }
    }
}

/// The mask that keeps the low `8·emLen − (8·emLen − emBits)` bits of EM's first byte.
fn top_byte_mask(em_len: usize, em_bits: usize) -> Result<u8> {
    let unused =
        em_len.checked_mul(8).and_then(|b| b.checked_sub(em_bits)).filter(|u| *u < 8).ok_or(Error::InvalidKey)?;
    Ok(0xffu8 >> unused)
}

/// EMSA-PSS-ENCODE (RFC 8017 §9.1.1) of `M = parts[0] ‖ parts[1] ‖ …` with the
/// given salt (its length is sLen), into `em` (whose length is emLen).
///
/// `em_bits` must satisfy `emLen = ⌈emBits/8⌉`. Constant time in the salt and
/// message contents (lengths are public).
pub(crate) fn encode(parts: &[&[u8]], salt: &[u8], em_bits: usize, em: &mut [u8]) -> Result<()> {
    let em_len = em.len();
    let mask = top_byte_mask(em_len, em_bits)?;
    // Step 3: emLen < hLen + sLen + 2 → "encoding error".
    let db_len = em_len.checked_sub(HASH_LEN + 1).ok_or(Error::InvalidKey)?;
    let ps_len = db_len.checked_sub(salt.len() + 1).ok_or(Error::InvalidKey)?;

    let m_hash = message_hash(parts);
    let h = salted_hash(&m_hash, salt);

    let (db, tail) = em.split_at_mut_checked(db_len).ok_or(Error::InvalidKey)?;
    // Step 8: DB = PS ‖ 0x01 ‖ salt.
    let (ps, rest) = db.split_at_mut_checked(ps_len).ok_or(Error::InvalidKey)?;
    ps.fill(0);
    let (one, salt_out) = rest.split_first_mut().ok_or(Error::InvalidKey)?;
    *one = 0x01;
    for (o, s) in salt_out.iter_mut().zip(salt.iter()) {
        *o = *s;
    }
    // Steps 9–11.
    xor_mgf1(&h, db);
    if let Some(first) = db.first_mut() {
        *first &= mask;
    }
    // Step 12: EM = maskedDB ‖ H ‖ 0xbc.
    let (h_out, bc) = tail.split_at_mut_checked(HASH_LEN).ok_or(Error::InvalidKey)?;
    h_out.copy_from_slice(&h);
    for b in bc.iter_mut() {
        *b = 0xbc;
    }
    Ok(())
}

/// EMSA-PSS-VERIFY (RFC 8017 §9.1.2) of `M = parts[0] ‖ …` against `em` (whose
/// length is emLen), with salt length `s_len`. `em` is used as scratch space.
///
/// Constant time in the contents of `em`: every check is computed and the
/// results are combined into one [`Choice`]; only lengths are branched on.
pub(crate) fn verify(parts: &[&[u8]], em: &mut [u8], em_bits: usize, s_len: usize) -> Choice {
    match verify_inner(parts, em, em_bits, s_len) {
        Some(ok) => ok,
        None => Choice::from(0),
    }
}

fn verify_inner(parts: &[&[u8]], em: &mut [u8], em_bits: usize, s_len: usize) -> Option<Choice> {
    let em_len = em.len();
    let mask = top_byte_mask(em_len, em_bits).ok()?;
    // Step 3.
    let db_len = em_len.checked_sub(HASH_LEN + 1)?;
    let ps_len = db_len.checked_sub(s_len + 1)?;
    let (db, tail) = em.split_at_mut_checked(db_len)?;
    let (h_bytes, bc) = tail.split_at_checked(HASH_LEN)?;
    let h: [u8; HASH_LEN] = h_bytes.try_into().ok()?;

    // Step 4: the rightmost octet is 0xbc.
    let mut ok = bc.ct_eq(&[0xbc]);
    // Step 6: the leftmost 8·emLen − emBits bits of maskedDB are zero.
    let first = *db.first()?;
    ok &= (first & !mask).ct_eq(&0);
    // Steps 7–9.
    xor_mgf1(&h, db);
    if let Some(first) = db.first_mut() {
        *first &= mask;
    }
    // Step 10: DB = 0x00×ps_len ‖ 0x01 ‖ salt.
    let (ps, rest) = db.split_at_checked(ps_len)?;
    let mut acc = 0u8;
    for b in ps {
        acc |= *b;
    }
    ok &= acc.ct_eq(&0);
    let (one, salt) = rest.split_first()?;
    ok &= one.ct_eq(&0x01);
    // Steps 11–14.
    let m_hash = message_hash(parts);
    let h2 = salted_hash(&m_hash, salt);
    ok &= h2.ct_eq(&h);
    Some(ok)
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::unwrap_used, clippy::cast_possible_truncation)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let salt = [7u8; 48];
        for (em_len, em_bits) in [(256usize, 2047usize), (512, 4095), (256, 2044)] {
            let mut em = [0u8; 512];
            let em = em.get_mut(..em_len).unwrap_or_default();
            encode(&[b"ab", b"c"], &salt, em_bits, em).unwrap_or_default();
            assert_eq!(em.last(), Some(&0xbc));
            let mut copy = [0u8; 512];
            let copy = copy.get_mut(..em_len).unwrap_or_default();
            copy.copy_from_slice(em);
            assert!(bool::from(verify(&[b"a", b"bc"], copy, em_bits, 48)));
            copy.copy_from_slice(em);
            assert!(!bool::from(verify(&[b"abd"], copy, em_bits, 48)));
            copy.copy_from_slice(em);
            assert!(!bool::from(verify(&[b"abc"], copy, em_bits, 0)));
        }
    }

    #[test]
    fn too_short() {
        let mut em = [0u8; 97];
        assert!(encode(&[b"x"], &[0u8; 48], 776, &mut em).is_err());
        let mut em = [0u8; 98];
        assert!(encode(&[b"x"], &[0u8; 48], 784, &mut em).is_ok());
        assert!(encode(&[b"x"], &[0u8; 48], 700, &mut em).is_err());
    }
}
