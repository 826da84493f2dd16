//! RFC 9180 Appendix A.1.1 (DHKEM(X25519, HKDF-SHA256), HKDF-SHA256,
//! AES-128-GCM, base mode) through the rate-limited origin encryption's HPKE
//! wrapper: DeriveKeyPair, and (feature `hazmat`) the single-shot seal/open of
//! the first message and the exports.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core
)]

use pat::crypto::rate_limited::EncapSecretKey;
use pat::crypto::rate_limited::encap;
use serde_json::Value;

mod common;
use common::{field, load};

fn arr<const N: usize>(v: &Value, key: &str) -> [u8; N] {
    field(v, key).try_into().unwrap_or_else(|_| panic!("{key} length"))
}

#[test]
fn suite_and_derive_key_pair() {
    let v = load("rfc/rfc9180-hpke-x25519-sha256-aes128gcm.json");
    assert_eq!(v["mode"], 0);
    assert_eq!(v["kem_id"], u64::from(encap::KEM_ID));
    assert_eq!(v["kdf_id"], u64::from(encap::KDF_ID));
    assert_eq!(v["aead_id"], u64::from(encap::AEAD_ID));
    for (ikm, sk, pk) in [("ikmR", "skRm", "pkRm"), ("ikmE", "skEm", "pkEm")] {
        let key = EncapSecretKey::derive(0, &arr(&v, ikm));
        // RFC 9180 §7.1.2: SerializePrivateKey clamps its output for X25519,
        // while Appendix A prints the unclamped DeriveKeyPair output.
        let mut clamped = arr::<32>(&v, sk);
        clamped[0] &= 0xf8;
        clamped[31] = (clamped[31] & 0x7f) | 0x40;
        assert_eq!(*key.to_bytes(), clamped, "{sk}");
        assert_eq!(key.encap_key().public_key(), &arr::<32>(&v, pk), "{pk}");
    }
}

#[cfg(feature = "hazmat")]
mod hazmat {
    use super::*;
    use pat::crypto::rate_limited::{InnerTokenRequest, Labels, origin_encryption, response};
    use pat::hazmat::crypto::rate_limited::{encrypt_origin_request_with_ikm, open_base, seal_base};

    /// The first encryption (seq 0) is the only one a single-shot context makes;
    /// the exports do not depend on the sequence number.
    #[test]
    fn seal_open_and_exports() {
        let v = load("rfc/rfc9180-hpke-x25519-sha256-aes128gcm.json");
        let sk_r = EncapSecretKey::derive(0, &arr(&v, "ikmR"));
        let info = field(&v, "info");
        let encryptions = v["encryptions"].as_array().unwrap();
        assert_eq!(encryptions.len(), 6);
        let first = &encryptions[0];
        assert_eq!(first["seq"], 0);
        let pt = field(first, "pt");
        let aad = field(first, "aad");
        let ct = field(first, "ct");

        let mut buf = pt.clone();
        let mut export = [0u8; 32];
        let (enc, tag) =
            seal_base(sk_r.encap_key(), &info, &aad, &arr(&v, "ikmE"), &mut buf, b"", &mut export).unwrap();
        assert_eq!(enc, arr::<32>(&v, "enc"));
        assert_eq!([&buf[..], &tag[..]].concat(), ct);

        let exports = v["exports"].as_array().unwrap();
        assert_eq!(exports.len(), 3);
        assert_eq!(export.to_vec(), field(&exports[0], "exported_value"));
        for e in exports {
            let l = usize::try_from(e["L"].as_u64().unwrap()).unwrap();
            let mut exported = vec![0u8; l];
            let mut out = vec![0u8; pt.len()];
            let (body, tag) = ct.split_at(ct.len() - 16);
            open_base(
                &sk_r,
                &enc,
                &info,
                &aad,
                body,
                tag.try_into().unwrap(),
                &mut out,
                &field(e, "exporter_context"),
                &mut exported,
            )
            .unwrap();
            assert_eq!(out, pt);
            assert_eq!(exported, field(e, "exported_value"));
        }

        // A later sequence number's ciphertext does not open as the first message.
        let later = &encryptions[1];
        let ct1 = field(later, "ct");
        let (body, tag) = ct1.split_at(ct1.len() - 16);
        let mut out = vec![0u8; body.len()];
        assert_eq!(
            open_base(&sk_r, &enc, &info, &field(later, "aad"), body, tag.try_into().unwrap(), &mut out, b"", &mut [])
                .unwrap_err(),
            pat::Error::Verification
        );
    }

    /// The deterministic entry points are deterministic and agree with the
    /// randomized ones' receivers.
    #[test]
    fn deterministic_origin_request_and_response() {
        let sk = EncapSecretKey::derive(1, &[5u8; 32]);
        let msg = [3u8; 256];
        let inner = InnerTokenRequest::new(7, &msg, b"origin.example").unwrap();
        let ikm_e = [9u8; 32];
        let mut a = [0u8; 400];
        let mut b = [0u8; 400];
        let (n, sa) =
            encrypt_origin_request_with_ikm(sk.encap_key(), &[1; 49], &inner, &Labels::PAT_GO, &ikm_e, &mut a).unwrap();
        let (m, sb) =
            encrypt_origin_request_with_ikm(sk.encap_key(), &[1; 49], &inner, &Labels::PAT_GO, &ikm_e, &mut b).unwrap();
        assert_eq!((n, &a[..n]), (m, &b[..m]));
        assert_eq!(sa.secret(), sb.secret());
        // enc = pk of DeriveKeyPair(ikm_e).
        assert_eq!(&a[..32], EncapSecretKey::derive(0, &ikm_e).encap_key().public_key());
        let mut out = [0u8; 400];
        let (got, state) =
            origin_encryption::decrypt_origin_request(&sk, &[1; 49], &a[..n], &Labels::PAT_GO, &mut out).unwrap();
        assert_eq!(got, inner);
        assert_eq!(state.secret(), sa.secret());

        let sig = [0x5au8; 256];
        let r1 = pat::hazmat::crypto::rate_limited::encrypt_response_with_nonce(&state, &[2; 16], &sig).unwrap();
        let r2 = pat::hazmat::crypto::rate_limited::encrypt_response_with_nonce(&sa, &[2; 16], &sig).unwrap();
        assert_eq!(r1, r2);
        assert_eq!(&r1[..16], &[2u8; 16]);
        assert_eq!(response::decrypt_response(&sb, &r1).unwrap(), sig);
    }
}
