//! The safe-prime check of partially blind RSA keys (token type 0xDA7A)
//! and the owned form of a derived signing key.
//!
//! Keys whose primes are prime but not safe primes are refused with
//! `Error::NotSafePrime` by `RsaSecretKey::check_safe_primes_vartime` and
//! by the type 0xDA7A issuer, while every published safe-prime key still
//! loads and its vectors pass; an `OwnedDerivedSecretKey` signs as the
//! borrowed `DerivedSecretKey` does, only with the key it came from, and is
//! a secret like the others (not `Copy`, wiped on drop, redacted `Debug`).
//!
//! The test keys were made offline with `openssl prime` and Python (sympy
//! 1.14 `isprime` says p and q are prime, and which of (p − 1)/2, (q − 1)/2
//! are); each test also checks that the key is a valid RSA key (n = p·q,
//! the CRT values consistent) by parsing it and signing a type 0x0002
//! token with it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core
)]

use pat::crypto::blind_rsa::partial::{DerivedSecretKey, OwnedDerivedSecretKey};
use pat::crypto::blind_rsa::{MODULUS_LEN, SecretKey};
use pat::tokens::metadata::{Issuer, TokenRequest};
use pat::tokens::public;
use pat::wire::codec::Decode;
use pat::wire::extensions::{Extensions, ExtensionsWriter};
use pat::{Error, TokenChallenge};
use zeroize::ZeroizeOnDrop;

mod common;
use common::{field, hex, load, rng};

/// An RSA-2048 key as hex components (e = 65537).
struct TestKey {
    n: &'static str,
    d: &'static str,
    p: &'static str,
    q: &'static str,
}

impl TestKey {
    /// The key, after checking n = p·q as integers (the parser checks it
    /// too, with the CRT values).
    fn secret_key(&self) -> SecretKey {
        let (n, p, q) = (hex(self.n), hex(self.p), hex(self.q));
        assert_eq!(mul_be(&p, &q), n, "n = p·q");
        SecretKey::from_components(&n, &[1, 0, 1], &hex(self.d), &p, &q).unwrap()
    }
}

/// The product of two big-endian integers, big-endian, as long as both
/// together (schoolbook, test only).
fn mul_be(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = vec![0u32; a.len() + b.len()];
    for (i, &x) in a.iter().rev().enumerate() {
        let mut carry = 0u32;
        for (j, &y) in b.iter().rev().enumerate() {
            let t = out[i + j] + u32::from(x) * u32::from(y) + carry;
            out[i + j] = t & 0xff;
            carry = t >> 8;
        }
        out[i + b.len()] += carry;
    }
    out.iter().rev().map(|&x| u8::try_from(x).unwrap()).collect()
}

/// Two primes from `openssl prime -generate -bits 1024` whose halves are
/// composite: (p − 1)/2 = 7·37·829·…, and q ≡ 1 (mod 4), so (q − 1)/2 is
/// even. The kind of key `openssl genrsa` makes.
const ORDINARY: TestKey = TestKey {
    n: "f0e3b8a71dbd2fddeb5f88823d72c0af1a5000f4bc7f45646a0e570a74f84caebfffbaa8f933b31c32153b340c88ba97c16031151bcd3fc5df7b4ad6ed99741de5cc59cf2f6c222aabc71f629c0840c5890d1343f0d8897d577c2dd90d0c0ee55b13b2fd9f9f5a99d1b9b360fbb984bc0a7748fa0a37de14b22455680d38e92ef04f9ec8664e45e9e0251decaec0ca638702081161719c2928a37e843f0fc17208c618cd299f6ba7afd740d5ed2d9363dbb80f0739e569db10b20123476abe89278bf2b351864ce32f34557f7e24d7d534dfda553def3fccfe597a26f1453e8006bba0074d5be1f7bd9aef7251ef435e8e99b6a3694b4242d0ba2c6f0cfc4dab",
    d: "e83077d20d6647f73e62ed2fac8f298f1e6bb3203378f1a8225a0427fe2b3faec93e73eb5f9927b1abccaf2e324eb09c8a366fd90add41f536be9e9aa096e347d632acf6799d5f29863dfed08bd9a0a546bf25acbd3fdaf6c816d81278f30080aed3441a177c005677c2e956380cd0167878160d7d3ff07e3e5fab3b0a53aade46b396c2b4438115f2d235ba34da587e6b91a64dc641a47edabb95cd6c2d61392c0ef387e01d6149c1440176e8c4e9fa4ba9c7f7ea8da104c6f3d01ef6a3a30d01021a711e3ce11c3b6753584bf8a99c38af1dee7ea9065b0eb51e06d4f61e4d6db820636562c24324b7a208fd57185617a147d5b2b344719a0de145f6811b31",
    p: "ff8827b0d6486d84e6f0c0a96859f58bd3e28211b13cee72bffc1593ee8383407605b086e2a09aeeb785e64dbeb3b14141dba83446fb2eb20a345415d773e87a0154daccbfa10fbbe70d508dd7290b39ef6e699a188e24d529e316a1e8db2be99fda87b1618109763a85b356bd3abb2ed98d1ec942e7a551a6f298460233c81f",
    q: "f154b2f062ecd5e6781f331b3dd301416805582cc01e54688bcdd586e64d80f1f37617dc3f6765e47e01268cd74e6bb2c6b6de4d7eff5ad132ceaa811c46c735404d139fd362818c49228ad150ce5f2d02137bbf59a49de7e629cf049a74df214658df3a9ba562c57c5407b8cc5cd814ed95bbde07b727eab9c90631197938f5",
};

/// p a safe prime (`openssl prime -generate -bits 1024 -safe`), q the q
/// of [`ORDINARY`]: one prime that fails is enough.
const SAFE_P_ONLY: TestKey = TestKey {
    n: "c90bf81f174782bfc09e044f193768e6b1295c46918f57a9123ca098376f5e280e7ad00a52c97740baa2c06864d80a928adbdcbf5e095d3de9565f95657057fb0b56952d78f0e2c1713eda6ec1f939e4006d2e3e7c9847bede5fe3924cbf85cd1979ee05d119cd117f2bde968c61f8c0bc86efed6ee43f18de37372a17964a51f839d09cfcbd0ebb5bcc05ac86c7b5f3511f70536fdd381553886e1de30728d4814993c946067722ca20942d1b383e496d78d0308d83fac3f020344f238d8a2b82b12b702ff4e056d97b771cb82a04853cb7fc7377b798f8e1e339d824cb3c83184fe6db8e94bb35ea6c308f37d7b29e9e92ac382092da71114ef1c4c982a687",
    d: "7a4ca0ac7121dc44bf6ca09c696f8e8dbf39b4db6cd2b0f5b59551f026d0c58b427bad308a79e9e463647bfd455332e3403b4d06d0b28b990ce7b10f957c88d8bb65f92b8745a9fb18e3ae46f012a707aec6bbf9e11b5591a37edb55f50010e9da5494d9cf008e01d5c59f0b1fecbd40a9aec027446cee81373489873e7ffb46db59b14c86a902d0df74e932bcd2cf338076abbeef00c42e0ec50a7c7874d513600ae70fd29f95bf968b9fbb2511a245d84fb55029751c9e59365872093d8411bac50854c158cdd386f9818d2282b4323dbff6ccea7580eadc38fd11464613d48851d10153764264d0d8db1bd905e61ae36f45b71905e973de094f6c1aebce59",
    p: "d5446add2726787480ccee76d0e7bc0ba01a57eaecb2f5124d54b4f31a1344cd5cdfd68d5b2e7771c827fe16b20f6adc7fc52037c321308f7c5cb1c32da8e25e00f3d8df898e6005a43d908fb9fd2d45abf5774db1fcbdbd775ff25dd4124c3bb2164e5d8a81d63021ab6865e42870f3f46fd770eee01625a3be50e59067e40b",
    q: "f154b2f062ecd5e6781f331b3dd301416805582cc01e54688bcdd586e64d80f1f37617dc3f6765e47e01268cd74e6bb2c6b6de4d7eff5ad132ceaa811c46c735404d139fd362818c49228ad150ce5f2d02137bbf59a49de7e629cf049a74df214658df3a9ba562c57c5407b8cc5cd814ed95bbde07b727eab9c90631197938f5",
};

/// [`SAFE_P_ONLY`] with p and q swapped (the check looks at both).
const SAFE_Q_ONLY: TestKey = TestKey {
    n: "c90bf81f174782bfc09e044f193768e6b1295c46918f57a9123ca098376f5e280e7ad00a52c97740baa2c06864d80a928adbdcbf5e095d3de9565f95657057fb0b56952d78f0e2c1713eda6ec1f939e4006d2e3e7c9847bede5fe3924cbf85cd1979ee05d119cd117f2bde968c61f8c0bc86efed6ee43f18de37372a17964a51f839d09cfcbd0ebb5bcc05ac86c7b5f3511f70536fdd381553886e1de30728d4814993c946067722ca20942d1b383e496d78d0308d83fac3f020344f238d8a2b82b12b702ff4e056d97b771cb82a04853cb7fc7377b798f8e1e339d824cb3c83184fe6db8e94bb35ea6c308f37d7b29e9e92ac382092da71114ef1c4c982a687",
    d: "7a4ca0ac7121dc44bf6ca09c696f8e8dbf39b4db6cd2b0f5b59551f026d0c58b427bad308a79e9e463647bfd455332e3403b4d06d0b28b990ce7b10f957c88d8bb65f92b8745a9fb18e3ae46f012a707aec6bbf9e11b5591a37edb55f50010e9da5494d9cf008e01d5c59f0b1fecbd40a9aec027446cee81373489873e7ffb46db59b14c86a902d0df74e932bcd2cf338076abbeef00c42e0ec50a7c7874d513600ae70fd29f95bf968b9fbb2511a245d84fb55029751c9e59365872093d8411bac50854c158cdd386f9818d2282b4323dbff6ccea7580eadc38fd11464613d48851d10153764264d0d8db1bd905e61ae36f45b71905e973de094f6c1aebce59",
    p: "f154b2f062ecd5e6781f331b3dd301416805582cc01e54688bcdd586e64d80f1f37617dc3f6765e47e01268cd74e6bb2c6b6de4d7eff5ad132ceaa811c46c735404d139fd362818c49228ad150ce5f2d02137bbf59a49de7e629cf049a74df214658df3a9ba562c57c5407b8cc5cd814ed95bbde07b727eab9c90631197938f5",
    q: "d5446add2726787480ccee76d0e7bc0ba01a57eaecb2f5124d54b4f31a1344cd5cdfd68d5b2e7771c827fe16b20f6adc7fc52037c321308f7c5cb1c32da8e25e00f3d8df898e6005a43d908fb9fd2d45abf5774db1fcbdbd775ff25dd4124c3bb2164e5d8a81d63021ab6865e42870f3f46fd770eee01625a3be50e59067e40b",
};

/// p = 2·r·s + 1 for primes r (511 bits) and s (512 bits), q the safe
/// prime of [`SAFE_P_ONLY`]: (p − 1)/2 = r·s has no small factor, so trial
/// division cannot refuse it; the probable-prime tests must.
const NO_SMALL_FACTOR: TestKey = TestKey {
    n: "82da4e0a898978a37f0ee517478b4678ab44de2340b32915b488529c1818e5e4136829aaa2011145ee71236a1d2145d3cc4465237d8ab412b3eacd5cadf95cac3eab8c8d53d321fbfee3c5af4aa915a86c02d3421cdafec03ca02468a4db2f203ca61f2768c7bdae5c6a6ab4dc0b950fde3e42f4423ca4fda95ea36f40bafb3b1e3825d7d22fc3162b88e6f970efd460679f990a3954db4342c1bedccb1e3890a5c286f9f727177aea0a65c4a06082260d12f8a31fc012354d15b74358a1480e4ee79d739853633e81648d78dfdc749e3f7f796bccd47299f066a00f947ff66194e4b42bfd71a10b093db0b3b0ff4fd7c60ec0b45fefebfdfd79ec72548a8abd",
    d: "282a01d2522d140e7b2d833c0605c5f7bbfa4384e69317854608a1f2afa2d4cd90f763f2b00f4bd1ff4252f07b487f3a677486e6c1de152fb871d5df20b76daea0fddf02723c582e152aacbf0557a9022d4520bb264841f197aa4002aeb7685ba8c204c5ffef6f5559a080684b3272ea8ff8e46c3cf8885c23e49c9dc56c9f38307dd3ee8a482921174e6c82c652d7b165805a67224463438145e04e883c4c0a5c3b81a6c275d84e816dcc42ea589b5492ae506bd0844f4c1bb66f4ff9e6eb18ae7f2e0751bfe861d5d9a7b05d8dbf1e3cde98dc6c59528454026bac279deeecd42aed0db485c4d6767a687c92da2ac4016524a0bda08579fa22e6e18098a131",
    p: "9d126baa35debe1e53be84afcadf72880677a9fe19d5e7842156d2fb3f2f0a47a233183db97cfe418342e61e248951c309386d08bf52c7fc84ca9895af633bcc96572d9d2c26c6032e8e3403ce6414a523217a9219f47b6b6e9b4604fd6fc531b518ce0d24c0f1560d47df73fcb4b16781e3a8630659747bc27bcf9ecb080157",
    q: "d5446add2726787480ccee76d0e7bc0ba01a57eaecb2f5124d54b4f31a1344cd5cdfd68d5b2e7771c827fe16b20f6adc7fc52037c321308f7c5cb1c32da8e25e00f3d8df898e6005a43d908fb9fd2d45abf5774db1fcbdbd775ff25dd4124c3bb2164e5d8a81d63021ab6865e42870f3f46fd770eee01625a3be50e59067e40b",
};

/// Every test key above.
const NOT_SAFE: [(&str, TestKey); 4] = [
    ("ordinary", ORDINARY),
    ("safe p only", SAFE_P_ONLY),
    ("safe q only", SAFE_Q_ONLY),
    ("no small factor", NO_SMALL_FACTOR),
];

fn challenge() -> TokenChallenge<'static> {
    TokenChallenge::new(0xDA7A, b"issuer.example", &[7; 32], b"origin.example").unwrap()
}

fn extensions(buf: &mut [u8], value: u8) -> Extensions<'_> {
    let mut w = ExtensionsWriter::new(buf);
    w.push(1, &[value; 4]).unwrap();
    w.finish().unwrap()
}

/// A type 0xDA7A request for `issuer`'s key and `extensions`.
fn request(issuer: &Issuer, extensions: Extensions<'_>) -> Vec<u8> {
    let client = pat::tokens::metadata::Client::from_token_key(&issuer.token_key()).unwrap();
    let (req, _) = client.request(&challenge(), extensions, &mut rng()).unwrap();
    common::encode(&req)
}

/// The published safe-prime keys: the draft's (both pbrsa files) and
/// privacypass-ts's type 0xDA7A key.
fn draft_key(case: &serde_json::Value) -> SecretKey {
    let [n, e, d, p, q] = ["n", "e", "d", "p", "q"].map(|f| field(case, f));
    SecretKey::from_components(&n, &e, &d, &p, &q).unwrap()
}

fn privacypass_ts_key() -> SecretKey {
    let v = &load("privacypass-ts/pub_verif_with_metadata_v3.json")[0];
    SecretKey::from_pkcs8_pem(&String::from_utf8(field(v, "skS")).unwrap()).unwrap()
}

#[test]
fn keys_whose_primes_are_not_safe_primes_are_refused() {
    // Derivations made around the issuer exist for some keys and extensions
    // only (the primitive fails where e′ is not invertible): count them.
    let mut outside = 0;
    for (name, test_key) in NOT_SAFE {
        let sk = test_key.secret_key();
        assert_eq!(sk.check_safe_primes_vartime(), Err(Error::NotSafePrime), "{name}");
        // A valid RSA key all the same: it issues type 0x0002 tokens.
        let t2 = public::Issuer::new(test_key.secret_key());
        let client = public::Client::new(t2.public_key().clone());
        let ch = TokenChallenge::new(2, b"issuer.example", &[], b"origin.example").unwrap();
        let (req, mut state) = client.request(&ch, &mut rng()).unwrap();
        let token = client.finalize(&mut state, &t2.evaluate(&req).unwrap()).unwrap();
        public::Origin::new(t2.public_key().clone()).verify(&token, &ch).unwrap();

        // The type 0xDA7A issuer refuses it at load ...
        assert_eq!(Issuer::try_new(test_key.secret_key()).err(), Some(Error::NotSafePrime), "{name}");
        // ... or, built with `new`, signs nothing.
        let issuer = Issuer::new(sk);
        let mut buf = [0u8; 16];
        let ext = extensions(&mut buf, 1);
        let req_bytes = request(&issuer, ext);
        let req = TokenRequest::decode(&req_bytes).unwrap();
        assert_eq!(issuer.evaluate(&req).err(), Some(Error::NotSafePrime), "{name}");
        assert_eq!(issuer.derive(&ext).err(), Some(Error::NotSafePrime), "{name}");
        assert_eq!(issuer.derive_owned(&ext).err(), Some(Error::NotSafePrime), "{name}");
        // A derivation made around the issuer (the primitive does not
        // check) is refused too.
        let key = test_key.secret_key();
        if let Ok(owned) = OwnedDerivedSecretKey::new(&key, ext.as_bytes()) {
            assert_eq!(issuer.evaluate_with_owned(&owned, &req).err(), Some(Error::NotSafePrime), "{name}");
            outside += 1;
        }
        if let Ok(derived) = DerivedSecretKey::new(&key, ext.as_bytes()) {
            assert_eq!(issuer.evaluate_with(&derived, &req).err(), Some(Error::NotSafePrime), "{name}");
            outside += 1;
        }
    }
    assert!(outside > 0, "no derivation outside the issuer succeeded: the last two checks never ran");
}

#[test]
fn published_safe_prime_keys_load_and_their_vectors_pass() {
    for file in [
        "pbrsa/draft-irtf-cfrg-partially-blind-rsa-01.json",
        "pbrsa/blindrsa-ts-test_vectors_partially_blind_rsa_draft_2.json",
    ] {
        let cases = load(file);
        let cases = cases.as_array().unwrap();
        assert_eq!(cases.len(), 4, "{file}");
        for case in cases {
            let sk = draft_key(case);
            sk.check_safe_primes_vartime().unwrap();
            let info = field(case, "info");
            let blind_msg = field(case, "blind_msg");
            // The owned form and the borrowed one give the vector's blind
            // signature.
            let owned = OwnedDerivedSecretKey::new(&sk, &info).unwrap();
            assert_eq!(owned.blind_sign(&sk, &blind_msg).unwrap().to_vec(), field(case, "blind_sig"), "{file}");
            let borrowed = sk.derive(&info).unwrap();
            assert_eq!(borrowed.blind_sign(&blind_msg).unwrap().to_vec(), field(case, "blind_sig"), "{file}");
            assert!(Issuer::try_new(draft_key(case)).is_ok());
        }
    }

    // privacypass-ts's type 0xDA7A vector through the checked issuer, with
    // the three ways of signing.
    let v = &load("privacypass-ts/pub_verif_with_metadata_v3.json")[0];
    let issuer = Issuer::try_new(privacypass_ts_key()).unwrap();
    let request_bytes = field(v, "token_request");
    let req = TokenRequest::decode(&request_bytes).unwrap();
    let expected = field(v, "token_response");
    assert_eq!(common::encode(&issuer.evaluate(&req).unwrap()), expected);
    let derived = issuer.derive(&req.extensions).unwrap();
    assert_eq!(common::encode(&issuer.evaluate_with(&derived, &req).unwrap()), expected);
    let owned = issuer.derive_owned(&req.extensions).unwrap();
    assert_eq!(common::encode(&issuer.evaluate_with_owned(&owned, &req).unwrap()), expected);
    assert_eq!(common::encode(&issuer.evaluate_with_owned(&derived.into_owned(), &req).unwrap()), expected);
}

/// Compiles only for `ZeroizeOnDrop` types.
fn assert_zeroize_on_drop<T: ZeroizeOnDrop>() {}

/// Fails to compile if `OwnedDerivedSecretKey` is `Copy` (two candidate
/// impls make the call ambiguous, as in tests/secrets.rs).
const _: fn() = || {
    trait AmbiguousIfCopy<A> {
        fn some_item() {}
    }
    impl<T: ?Sized> AmbiguousIfCopy<()> for T {}
    #[allow(dead_code)]
    struct IsCopy;
    impl<T: Copy> AmbiguousIfCopy<IsCopy> for T {}
    let _ = <OwnedDerivedSecretKey as AmbiguousIfCopy<_>>::some_item;
};

#[test]
fn an_owned_derived_key_is_a_secret_that_signs_only_with_its_key() {
    assert_zeroize_on_drop::<OwnedDerivedSecretKey>();
    assert_zeroize_on_drop::<DerivedSecretKey<'static>>();
    let sk = privacypass_ts_key();
    let owned = OwnedDerivedSecretKey::new(&sk, b"metadata").unwrap();
    assert_eq!(format!("{owned:?}"), "RsaOwnedDerivedSecretKey { .. }");
    assert_eq!(format!("{owned:#?}"), "RsaOwnedDerivedSecretKey { .. }");
    assert!(owned.is_for(b"metadata") && !owned.is_for(b"other"));
    assert!(owned.is_from(sk.public_key()));

    let mut m = [0u8; MODULUS_LEN];
    m[1..].fill(0x5a);
    let signed = owned.blind_sign(&sk, &m).unwrap();
    assert_eq!(sk.derive(b"metadata").unwrap().blind_sign(&m).unwrap(), signed);
    // Another key (a valid RSA key, here without safe primes): refused
    // before anything is computed.
    let other = ORDINARY.secret_key();
    assert!(!owned.is_from(other.public_key()));
    assert_eq!(owned.blind_sign(&other, &m), Err(Error::KeyIdMismatch));
    // The message checks of the borrowed form.
    assert_eq!(owned.blind_sign(&sk, &m[1..]), Err(Error::InvalidLength(pat::Field::Message)));
    assert_eq!(owned.blind_sign(&sk, &[0xff; MODULUS_LEN]), Err(Error::InvalidValue(pat::Field::Message)));
}

/// What the owned form is for: an issuer of your own that keeps
/// derivations in a fixed-capacity cache keyed by the extensions.
struct CachingIssuer {
    issuer: Issuer,
    cache: heapless::Vec<OwnedDerivedSecretKey, 2>,
}

impl CachingIssuer {
    fn evaluate(&mut self, req: &TokenRequest<'_>) -> pat::Result<pat::tokens::metadata::TokenResponse> {
        let info = req.extensions.as_bytes();
        let slot = match self.cache.iter().position(|d| d.is_for(info)) {
            Some(slot) => slot,
            None => {
                let derived = self.issuer.derive_owned(&req.extensions)?;
                if self.cache.is_full() {
                    self.cache.remove(0);
                }
                self.cache.push(derived).map_err(|_| Error::CapacityExceeded)?;
                self.cache.len() - 1
            }
        };
        self.issuer.evaluate_with_owned(&self.cache[slot], req)
    }
}

#[test]
fn an_issuer_can_keep_owned_derivations() {
    let mut caching =
        CachingIssuer { issuer: Issuer::try_new(privacypass_ts_key()).unwrap(), cache: heapless::Vec::new() };
    let plain = Issuer::try_new(privacypass_ts_key()).unwrap();
    let client = pat::tokens::metadata::Client::from_token_key(&plain.token_key()).unwrap();
    for value in [1u8, 2, 1, 3, 1, 2] {
        let mut buf = [0u8; 16];
        let ext = extensions(&mut buf, value);
        let (req, mut state) = client.request(&challenge(), ext, &mut rng()).unwrap();
        let resp = caching.evaluate(&req).unwrap();
        // The same blind signature as without the cache (deterministic).
        assert_eq!(common::encode(&resp), common::encode(&plain.evaluate(&req).unwrap()));
        let token = client.finalize(&mut state, &ext, &resp).unwrap();
        pat::tokens::metadata::Origin::new(plain.public_key().clone()).verify(&token, &challenge(), &ext).unwrap();
    }
    assert_eq!(caching.cache.len(), 2);

    // A cached key for other extensions, or from another issuer key, never signs.
    let mut buf = [0u8; 16];
    let ext = extensions(&mut buf, 9);
    let (req, _) = client.request(&challenge(), ext, &mut rng()).unwrap();
    assert_eq!(plain.evaluate_with_owned(&caching.cache[0], &req).err(), Some(Error::ExtensionsMismatch));
    let other = ORDINARY.secret_key();
    let from_other = (0u8..64).find_map(|i| OwnedDerivedSecretKey::new(&other, &[i]).ok()).unwrap();
    assert_eq!(plain.evaluate_with_owned(&from_other, &req).err(), Some(Error::KeyIdMismatch));
}

/// The cost of the check, for the report: run with
/// `cargo test --release --test pbrsa_safe_primes -- --ignored --nocapture`.
#[test]
#[ignore = "a timing, not a test"]
fn safe_prime_check_cost() {
    use std::time::{Duration, Instant};

    /// Ten timed runs of `f`, sorted.
    fn ten_runs(mut f: impl FnMut()) -> Vec<Duration> {
        let mut times: Vec<Duration> = (0..10)
            .map(|_| {
                let start = Instant::now();
                f();
                start.elapsed()
            })
            .collect();
        times.sort();
        times
    }
    fn show(what: &str, t: &[Duration]) {
        println!("{what}, 10 runs: min {:?}, median {:?}, max {:?}", t[0], t[5], t[9]);
    }

    let pem = String::from_utf8(field(&load("privacypass-ts/pub_verif_with_metadata_v3.json")[0], "skS")).unwrap();
    let sk = SecretKey::from_pkcs8_pem(&pem).unwrap();
    show("check_safe_primes_vartime, RSA-2048 safe-prime key", &ten_runs(|| sk.check_safe_primes_vartime().unwrap()));
    show("SecretKey::from_pkcs8_pem alone", &ten_runs(|| drop(SecretKey::from_pkcs8_pem(&pem).unwrap())));
    show(
        "SecretKey::from_pkcs8_pem + Issuer::try_new",
        &ten_runs(|| drop(Issuer::try_new(SecretKey::from_pkcs8_pem(&pem).unwrap()).unwrap())),
    );
    // The same two probable-prime tests with crypto-primes (what `keygen`
    // uses; the test build enables it), on (p − 1)/2 and (q − 1)/2 of the
    // same key (the draft's, which privacypass-ts's vector shares).
    let case = &load("pbrsa/draft-irtf-cfrg-partially-blind-rsa-01.json")[0];
    assert_eq!(draft_key(case).public_key(), sk.public_key());
    let halves = ["p", "q"].map(|f| crypto_bigint::U1024::from_be_slice(&field(case, f)).shr_vartime(1));
    show(
        "crypto_primes::is_prime on (p − 1)/2 and (q − 1)/2",
        &ten_runs(|| assert!(halves.iter().all(|h| crypto_primes::is_prime(crypto_primes::Flavor::Any, h)))),
    );
    let ordinary = ORDINARY.secret_key();
    show(
        "check_safe_primes_vartime, refusal of ORDINARY",
        &ten_runs(|| assert!(ordinary.check_safe_primes_vartime().is_err())),
    );
    let rs = NO_SMALL_FACTOR.secret_key();
    show(
        "check_safe_primes_vartime, refusal of NO_SMALL_FACTOR",
        &ten_runs(|| assert!(rs.check_safe_primes_vartime().is_err())),
    );
}
