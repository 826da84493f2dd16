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

/// A Montgomery kernel of the RSA private operation (`kernel`). All compute
/// the same values; forcing one ([`force_kernel`]) only changes the time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Kernel {
    /// The portable product-scanning kernel (`monty`): every target.
    Portable,
    /// AVX-512 IFMA with 52-bit limbs, both CRT halves at once (`monty_ifma`):
    /// x86_64 with `std` on a CPU that has it; RSA-2048 only (other sizes
    /// run the portable kernel).
    Ifma,
    /// AVX2 with 29-bit limbs, the CRT halves one after the other (`monty_avx2`):
    /// x86_64 with `std` on a CPU that has AVX2; chosen where IFMA is
    /// missing. RSA-2048 only (other sizes run the portable kernel).
    Avx2,
}

/// The kernel the private operation uses now.
pub fn active_kernel() -> Kernel {
    if super::kernel::ifma_active() {
        Kernel::Ifma
    } else if super::kernel::avx2_active() {
        Kernel::Avx2
    } else {
        Kernel::Portable
    }
}

/// Forces `kernel` for every later private operation in the process, or with
/// `None` goes back to the fastest one the CPU has. Returns `false` (and
/// changes nothing) if this CPU or build cannot run it. For tests and
/// benchmarks that compare the kernels.
pub fn force_kernel(kernel: Option<Kernel>) -> bool {
    match kernel {
        Some(Kernel::Portable) => super::kernel::force_portable(true),
        Some(Kernel::Ifma) if !super::kernel::ifma_available() => return false,
        Some(Kernel::Ifma) | None => super::kernel::force_portable(false),
        Some(Kernel::Avx2) if !super::kernel::avx2_available() => return false,
        Some(Kernel::Avx2) => super::kernel::force_avx2(),
    }
    true
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod kernel_tests {
    use crypto_bigint::{U1024, U2048, Uint};

    use super::*;
    use crate::crypto::blind_rsa::SecretKey;
    use crate::crypto::blind_rsa::test_rng::TestInts;

    fn vector(file: &str) -> serde_json::Value {
        let path = std::format!("{}/tests/vectors/{file}", env!("CARGO_MANIFEST_DIR"));
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    fn field(v: &serde_json::Value, name: &str) -> std::vec::Vec<u8> {
        let hex = v[name].as_str().unwrap();
        (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect()
    }

    /// The RSA-2048 keys of the vectors: the partially blind RSA draft's
    /// (safe primes) and RFC 9578's.
    fn keys() -> [SecretKey; 2] {
        let v = vector("pbrsa/draft-irtf-cfrg-partially-blind-rsa-01.json");
        let [n, e, d, p, q] = ["n", "e", "d", "p", "q"].map(|f| field(&v[0], f));
        let draft = SecretKey::from_components(&n, &e, &d, &p, &q).unwrap();
        let v = vector("rfc/rfc9578-issuance.json");
        let pem = std::string::String::from_utf8(field(&v["type_0002_blind_rsa_2048"][0], "skS")).unwrap();
        [draft, SecretKey::from_pkcs8_pem(&pem).unwrap()]
    }

    /// Held by the tests that force a kernel, so that they do not switch it
    /// under each other (the other tests run on whichever is active, with
    /// equal results).
    static FORCING: std::sync::Mutex<()> = std::sync::Mutex::new(());

    /// The kernels this machine can run.
    fn kernels() -> std::vec::Vec<Kernel> {
        let kernels =
            [Kernel::Portable, Kernel::Avx2, Kernel::Ifma].into_iter().filter(|k| force_kernel(Some(*k))).collect();
        assert!(force_kernel(None));
        kernels
    }

    /// Every kernel reproduces the known answers of RFC 9578 (type 0x0002
    /// BlindSign, 5 cases) and of the partially blind RSA draft (BlindSign
    /// with the key derived for the case's info, 4 cases).
    #[test]
    fn every_kernel_reproduces_the_blind_signature_vectors() {
        let _lock = FORCING.lock().unwrap();
        let kernels = kernels();
        let type2 = vector("rfc/rfc9578-issuance.json")["type_0002_blind_rsa_2048"].clone();
        let partial = vector("pbrsa/draft-irtf-cfrg-partially-blind-rsa-01.json");
        let mut cases = 0;
        for k in &kernels {
            assert!(force_kernel(Some(*k)));
            for case in type2.as_array().unwrap() {
                let pem = std::string::String::from_utf8(field(case, "skS")).unwrap();
                let sk = SecretKey::from_pkcs8_pem(&pem).unwrap();
                let request = field(case, "token_request");
                let sig = crate::crypto::blind_rsa::blind_sign(&sk, &request[3..]).unwrap();
                assert_eq!(sig.as_slice(), field(case, "token_response").as_slice(), "kernel {k:?}");
                cases += 1;
            }
            for case in partial.as_array().unwrap() {
                let [n, e, d, p, q] = ["n", "e", "d", "p", "q"].map(|f| field(case, f));
                let sk = SecretKey::from_components(&n, &e, &d, &p, &q).unwrap();
                let info = field(case, "info");
                let sig = sk.derive(&info).unwrap().blind_sign(&field(case, "blind_msg")).unwrap();
                assert_eq!(sig.as_slice(), field(case, "blind_sig").as_slice(), "kernel {k:?}");
                cases += 1;
            }
        }
        assert!(force_kernel(None));
        assert_eq!(cases, 9 * kernels.len());
    }

    /// Every kernel this machine can run computes the same private
    /// operation (and the same CRT fault check) on reproducible inputs and
    /// the edge values 0, 1 and n − 1.
    #[test]
    fn every_kernel_computes_the_same_private_operation() {
        let _lock = FORCING.lock().unwrap();
        let mut rng = TestInts::new(0x4b45_524e_454c);
        let kernels = kernels();
        std::println!("kernels on this machine: {kernels:?}; active: {:?}", active_kernel());
        for sk in keys() {
            let params = sk.public_key().params();
            let n = *params.modulus().as_ref();
            let mut inputs = std::vec![U2048::ZERO, U2048::ONE, n.wrapping_sub(&U2048::ONE)];
            inputs.extend((0..8).map(|_| rng.uint::<{ U2048::LIMBS }>().rem(params.modulus().as_nz_ref())));
            let e = Uint::<{ U1024::LIMBS }>::from_u32(crate::crypto::blind_rsa::PUBLIC_EXPONENT);
            for m in &inputs {
                let results: std::vec::Vec<_> = kernels
                    .iter()
                    .map(|k| {
                        assert!(force_kernel(Some(*k)));
                        assert_eq!(active_kernel(), *k);
                        let s = sk.rsasp1_crt(m);
                        (s, bool::from(sk.crt_power_matches(&s, m, &e)))
                    })
                    .collect();
                assert!(force_kernel(None));
                let (s, ok) = results[0];
                assert!(ok, "fault check");
                assert_eq!(monty::pow_65537(&s, params), *m, "s^e = m mod n");
                for (k, r) in kernels.iter().zip(&results) {
                    assert_eq!(*r, (s, ok), "kernel {k:?}");
                }
                // The fault check modulo p and q (IFMA and AVX2 only) accepts
                // s and refuses wrong signatures, one correct modulo q only
                // among them.
                let q = sk.q.modulus().as_ref().resize::<{ U2048::LIMBS }>();
                let faulty = s.add_mod(&q, params.modulus().as_nz_ref());
                let wrong = [s.add_mod(&U2048::ONE, params.modulus().as_nz_ref()), faulty];
                for k in kernels.iter().filter(|k| **k != Kernel::Portable) {
                    assert!(force_kernel(Some(*k)));
                    assert_eq!(sk.fault_check_65537(&s, m).map(bool::from), Some(true), "kernel {k:?}");
                    for w in wrong {
                        assert_eq!(sk.fault_check_65537(&w, m).map(bool::from), Some(false), "kernel {k:?}");
                    }
                }
                assert!(force_kernel(Some(Kernel::Portable)));
                assert_eq!(sk.fault_check_65537(&s, m).map(bool::from), None);
                assert!(force_kernel(None));
            }
        }
    }
}
