//! Type-2 token keys whose SHA-384 identifiers carry NULL parameters (issue
//! 33, item 5): the 346-byte RSASSA-PSS SubjectPublicKeyInfo OpenSSL writes,
//! and so Quicr's privacypass-cpp publishes, beside RFC 9578 §6.5's 342-byte
//! form. RFC 5754 §2 has receivers take a SHA-2 `AlgorithmIdentifier` with
//! its parameters absent or NULL; `pat` takes both, writes only the RFC 9578
//! form, and keys a received key by SHA-256 of the bytes it received.
//!
//! Every key here is put together in this file from DER pieces around the
//! modulus of the first pat-go type-2 vector, not by the code under test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use base64ct::{Base64Url, Encoding};
use pat::crypto::blind_rsa::{self, PublicKey, SecretKey};
use pat::deploy::directory::IssuerDirectory;
use pat::hazmat::tokens::public::request_with;
use pat::tokens::public::{Client, Issuer, Origin, TokenResponse};
use pat::wire::codec::Decode;
use pat::{Error, Field, TokenChallenge};
use serde_json::Value;
use sha2::{Digest, Sha256};

mod common;
use common::{field, load};

const PATGO_TYPE2: &str = "pat-go/tokens/type2/type2-issuance-test-vectors.json";

/// The `rsa_spki` fuzz seed holding the OpenSSL-form key, named like every
/// seed after the first 8 bytes of its SHA-256 (only `seed-*` files are
/// tracked, and `scripts/fuzz-seeds.py` rewrites them).
const SEED: &str = "fuzz/corpus/rsa_spki/seed-f861220ad4241ee0";

const OID_RSASSA_PSS: [u8; 9] = [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0a];
const OID_RSA_ENCRYPTION: [u8; 9] = [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
const OID_MGF1: [u8; 9] = [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x08];
/// id-pSpecified (RSAES-OAEP's label source), a well-formed OID in MGF1's place.
const OID_P_SPECIFIED: [u8; 9] = [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x09];
const OID_SHA256: [u8; 9] = [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01];
const OID_SHA384: [u8; 9] = [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02];
const OID_SHA512: [u8; 9] = [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x03];
/// ASN.1 NULL.
const NULL: [u8; 2] = [0x05, 0x00];

/// A DER TLV (definite length, shortest form).
fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    let len = content.len();
    let mut out = vec![tag];
    if len < 0x80 {
        out.push(u8::try_from(len).unwrap());
    } else {
        let digits: Vec<u8> = len.to_be_bytes().into_iter().skip_while(|b| *b == 0).collect();
        out.push(0x80 | u8::try_from(digits.len()).unwrap());
        out.extend_from_slice(&digits);
    }
    out.extend_from_slice(content);
    out
}

fn seq(parts: &[&[u8]]) -> Vec<u8> {
    tlv(0x30, &parts.concat())
}

/// A non-negative DER INTEGER from a big-endian magnitude without leading zeros.
fn int(magnitude: &[u8]) -> Vec<u8> {
    let mut content = if magnitude[0] >= 0x80 { vec![0] } else { vec![] };
    content.extend_from_slice(magnitude);
    tlv(0x02, &content)
}

/// A hash `AlgorithmIdentifier`: the OID, then `params` (empty: absent).
fn hash_id(oid: &[u8], params: &[u8]) -> Vec<u8> {
    seq(&[&tlv(0x06, oid), params])
}

/// The parts of RSASSA-PSS-params (RFC 8017 §A.2.3), each a complete TLV
/// (or empty: left out), so a test can change one.
#[derive(Clone)]
struct Pss {
    hash: Vec<u8>,
    mgf: Vec<u8>,
    salt: Vec<u8>,
    trailer: Vec<u8>,
}

impl Pss {
    /// SHA-384, MGF1-SHA-384, saltLength 48, with each SHA-384 identifier's
    /// parameters NULL or absent.
    fn sha384(hash_null: bool, mgf_hash_null: bool) -> Self {
        let params = |null: bool| if null { NULL.to_vec() } else { vec![] };
        Self::with(&hash_id(&OID_SHA384, &params(hash_null)), &OID_MGF1, &hash_id(&OID_SHA384, &params(mgf_hash_null)))
    }

    /// `hash` as hashAlgorithm, MGF `mgf_oid` with parameters `mgf_params`,
    /// saltLength 48, no trailerField.
    fn with(hash: &[u8], mgf_oid: &[u8], mgf_params: &[u8]) -> Self {
        Self {
            hash: tlv(0xa0, hash),
            mgf: tlv(0xa1, &seq(&[&tlv(0x06, mgf_oid), mgf_params])),
            salt: tlv(0xa2, &tlv(0x02, &[48])),
            trailer: vec![],
        }
    }

    /// The OpenSSL spelling: NULL in both SHA-384 identifiers.
    fn openssl() -> Self {
        Self::sha384(true, true)
    }

    fn algorithm(&self) -> Vec<u8> {
        self.algorithm_with_oid(&OID_RSASSA_PSS)
    }

    fn algorithm_with_oid(&self, oid: &[u8]) -> Vec<u8> {
        let params = seq(&[&self.hash, &self.mgf, &self.salt, &self.trailer]);
        seq(&[&tlv(0x06, oid), &params])
    }
}

/// SubjectPublicKeyInfo {algorithm, BIT STRING (no unused bits) of
/// RSAPublicKey {n, e}}.
fn spki(algorithm: &[u8], n: &[u8], e: &[u8]) -> Vec<u8> {
    let key = seq(&[&int(n), &int(e)]);
    seq(&[algorithm, &tlv(0x03, &[&[0][..], &key].concat())])
}

/// The first pat-go type-2 vector: its key pair, its 342-byte pkS and the case.
fn vector() -> (SecretKey, PublicKey, Vec<u8>, Value) {
    let v = load(PATGO_TYPE2).as_array().unwrap()[0].clone();
    let sk = SecretKey::from_pkcs8_pem(&String::from_utf8(field(&v, "skS")).unwrap()).unwrap();
    let spki = field(&v, "pkS");
    let pk = PublicKey::from_spki(&spki).unwrap();
    (sk, pk, spki, v)
}

/// The vector key's modulus in the OpenSSL spelling.
fn openssl_spki(n: &[u8]) -> Vec<u8> {
    spki(&Pss::openssl().algorithm(), n, &[1, 0, 1])
}

fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

#[test]
fn openssl_form_is_the_vector_key() {
    let (_, pk, spki342, _) = vector();
    // The builder reproduces pat-go's bytes for the RFC 9578 spelling.
    assert_eq!(spki(&Pss::sha384(false, false).algorithm(), pk.modulus(), &[1, 0, 1]), spki342);

    let spki346 = openssl_spki(pk.modulus());
    assert_eq!(spki346.len(), 346);
    // SEQUENCE (0x156) { SEQUENCE (0x41) { id-RSASSA-PSS, SEQUENCE (0x34) {
    // [0] (0x0f) { SEQUENCE (0x0d) { id-sha384, NULL } }, …
    assert_eq!(spki346[..10], [0x30, 0x82, 0x01, 0x56, 0x30, 0x41, 0x06, 0x09, 0x2a, 0x86]);
    assert_eq!(spki346[17..23], [0x30, 0x34, 0xa0, 0x0f, 0x30, 0x0d]);
    assert_eq!(spki346[23..36], [&[0x06, 0x09][..], &OID_SHA384, &NULL].concat());

    let parsed = PublicKey::from_spki(&spki346).unwrap();
    assert_eq!(parsed.modulus(), pk.modulus());
    assert_ne!(parsed, pk, "another key id: another token key");
    assert_eq!(parsed.key_id(), &sha256(&spki346), "the key id hashes the bytes received");
    assert_ne!(parsed.key_id(), pk.key_id());
    // Strict on what it emits: always RFC 9578's 342 bytes.
    assert_eq!(parsed.to_spki_array().as_slice(), spki342.as_slice());
    let mut out = [0u8; 400];
    assert_eq!(parsed.to_spki(&mut out), Ok(342));
    // Not through the rsaEncryption entry point.
    assert_eq!(PublicKey::from_rsa_encryption_spki(&spki346).err(), Some(Error::InvalidKey));
}

#[test]
fn each_spelling_is_accepted_and_keyed_by_its_bytes() {
    let (_, pk, spki342, _) = vector();
    let mut ids = Vec::new();
    for (hash_null, mgf_hash_null, len) in
        [(false, false, 342), (true, false, 344), (false, true, 344), (true, true, 346)]
    {
        let bytes = spki(&Pss::sha384(hash_null, mgf_hash_null).algorithm(), pk.modulus(), &[1, 0, 1]);
        assert_eq!(bytes.len(), len);
        let what = format!("hash NULL: {hash_null}, MGF1 hash NULL: {mgf_hash_null}");
        let key = PublicKey::from_spki(&bytes).unwrap_or_else(|e| panic!("{what}: {e:?}"));
        assert_eq!(key.modulus(), pk.modulus(), "{what}");
        assert_eq!(key.key_id(), &sha256(&bytes), "{what}");
        assert_eq!(key.to_spki_array().as_slice(), spki342.as_slice(), "{what}");
        // Same modulus, another key id: another key for tokens, so not equal.
        assert_eq!(key == pk, len == 342, "{what}");
        // The clients of types 0x0002 and 0xDA7A take the same keys.
        assert_eq!(Client::from_token_key(&bytes).unwrap().key_id(), &sha256(&bytes), "{what}");
        let da7a = pat::tokens::metadata::Client::from_token_key(&bytes).unwrap();
        assert_eq!(da7a.key_id(), &sha256(&bytes), "{what}");
        ids.push(*key.key_id());
    }
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 4, "four spellings, four key ids");
}

/// A token requested with the OpenSSL-form key: the client binds SHA-256 of
/// the 346 bytes into the token input, the issuer's blind signature does not
/// depend on the spelling, and the origin holding the 346-byte key accepts
/// the token.
#[test]
fn token_under_the_openssl_form_key() {
    let (sk, pk, spki342, v) = vector();
    let spki346 = openssl_spki(pk.modulus());
    let key_id = sha256(&spki346);

    let client = Client::from_token_key(&spki346).unwrap();
    assert_eq!(client.key_id(), &key_id);
    let challenge_bytes = field(&v, "token_challenge");
    let challenge = TokenChallenge::decode(&challenge_bytes).unwrap();
    let (nonce, salt, blind) = (field(&v, "nonce"), field(&v, "salt"), field(&v, "blind"));
    let (request, mut state) = request_with(
        &client,
        &challenge,
        &nonce.clone().try_into().unwrap(),
        &salt.try_into().unwrap(),
        &blind.try_into().unwrap(),
    )
    .unwrap();
    assert_eq!(request.truncated_token_key_id, key_id[31]);
    // The token input differs from the vector's (another key id), so the
    // request does too.
    assert_ne!(request.blinded_msg.as_slice(), &field(&v, "token_request")[3..]);

    // The issuer's signing step does not depend on the spelling: sign as
    // an issuer that published the 346 bytes would.
    let blind_sig = blind_rsa::blind_sign(&sk, &request.blinded_msg).unwrap();
    // pat's issuer of the same secret key publishes the 342-byte form, so
    // the truncated key id of this request is not its own.
    let issuer = Issuer::new(sk);
    assert_eq!(issuer.token_key().as_slice(), spki342.as_slice());
    assert_ne!(issuer.key_id()[31], key_id[31]);
    assert_eq!(issuer.evaluate(&request).err(), Some(Error::KeyIdMismatch));

    let token = client.finalize(&mut state, &TokenResponse { blind_sig }).unwrap();
    assert_eq!(token.input().token_key_id(), &key_id);
    assert_eq!(token.input().nonce().as_slice(), nonce.as_slice());

    let origin = Origin::new(PublicKey::from_spki(&spki346).unwrap());
    assert_eq!(origin.key_id(), &key_id);
    assert_eq!(origin.verify(&token, &challenge), Ok(()));
    // An origin holding the key in the 342-byte form has the other key id.
    let origin342 = Origin::new(pk);
    assert_eq!(origin342.verify(&token, &challenge), Err(Error::KeyIdMismatch));
    // The signature itself is valid under the modulus either way.
    assert_eq!(blind_rsa::verify(origin342.public_key(), token.input().as_bytes(), token.authenticator()), Ok(()));
}

/// The issuer directory keys a listed 346-byte key by SHA-256 of the decoded
/// bytes, the id the client computes from them.
#[test]
fn directory_lists_the_openssl_form_key() {
    let (_, pk, _, _) = vector();
    let spki346 = openssl_spki(pk.modulus());
    let json = format!(
        r#"{{"issuer-request-uri":"/token-request","token-keys":[{{"token-type":2,"token-key":"{}"}}]}}"#,
        Base64Url::encode_string(&spki346)
    );
    let mut scratch = vec![0u8; json.len()];
    let directory = IssuerDirectory::<2>::parse(json.as_bytes(), &mut scratch).unwrap();
    let id = sha256(&spki346);
    let key = directory.select(2, Some(&id), 0).unwrap();
    assert_eq!(key.key_id(), Ok(id));
    let mut buf = [0u8; pat::deploy::directory::MAX_TOKEN_KEY_LEN];
    let decoded = key.decode_token_key(&mut buf).unwrap();
    assert_eq!(decoded, spki346.as_slice());
    assert_eq!(Client::from_token_key(decoded).unwrap().key_id(), &id);
}

#[test]
fn wrong_variants_are_typed_errors() {
    let (_, pk, _, _) = vector();
    let n = pk.modulus();
    let e = [1, 0, 1];
    let with = |pss: &Pss| spki(&pss.algorithm(), n, &e);
    let sha384_null = hash_id(&OID_SHA384, &NULL);
    let sha256_null = hash_id(&OID_SHA256, &NULL);
    let openssl = Pss::openssl();
    let good = with(&openssl);

    let mut cases: Vec<(&str, Vec<u8>, Error)> = Vec::new();
    let mut add = |what, bytes, error| cases.push((what, bytes, error));
    // Other hashes, in the NULL spelling.
    add("SHA-256 for both hashes", with(&Pss::with(&sha256_null, &OID_MGF1, &sha256_null)), Error::InvalidKey);
    add(
        "SHA-256 hashAlgorithm, MGF1 with SHA-384",
        with(&Pss::with(&sha256_null, &OID_MGF1, &sha384_null)),
        Error::InvalidKey,
    );
    add(
        "MGF1 with SHA-256 under a SHA-384 hash",
        with(&Pss::with(&sha384_null, &OID_MGF1, &sha256_null)),
        Error::InvalidKey,
    );
    let sha512_null = hash_id(&OID_SHA512, &NULL);
    add("MGF1 with SHA-512", with(&Pss::with(&sha384_null, &OID_MGF1, &sha512_null)), Error::InvalidKey);
    // Parameters other than absent or NULL.
    let octets = hash_id(&OID_SHA384, &[0x04, 0x00]);
    add("empty OCTET STRING for NULL (hash)", with(&Pss::with(&octets, &OID_MGF1, &sha384_null)), Error::InvalidKey);
    add(
        "empty OCTET STRING for NULL (MGF1 hash)",
        with(&Pss::with(&sha384_null, &OID_MGF1, &octets)),
        Error::InvalidKey,
    );
    let null_with_content = hash_id(&OID_SHA384, &[0x05, 0x01, 0x00]);
    add("NULL with content", with(&Pss::with(&null_with_content, &OID_MGF1, &sha384_null)), Error::InvalidKey);
    let two_nulls = hash_id(&OID_SHA384, &[NULL, NULL].concat());
    add("two NULLs", with(&Pss::with(&two_nulls, &OID_MGF1, &sha384_null)), Error::InvalidKey);
    // The MGF.
    add(
        "another OID in MGF1's place",
        with(&Pss::with(&sha384_null, &OID_P_SPECIFIED, &sha384_null)),
        Error::InvalidKey,
    );
    add("MGF1 with NULL for its hash", with(&Pss::with(&sha384_null, &OID_MGF1, &NULL)), Error::InvalidKey);
    add("MGF1 without parameters", with(&Pss::with(&sha384_null, &OID_MGF1, &[])), Error::InvalidKey);
    // Defaults and the salt.
    add("hashAlgorithm left out (SHA-1)", with(&Pss { hash: vec![], ..openssl.clone() }), Error::InvalidKey);
    add("maskGenAlgorithm left out", with(&Pss { mgf: vec![], ..openssl.clone() }), Error::InvalidKey);
    add("saltLength left out (20)", with(&Pss { salt: vec![], ..openssl.clone() }), Error::InvalidKey);
    let salt = |content: &[u8]| tlv(0xa2, &tlv(0x02, content));
    add("saltLength 32", with(&Pss { salt: salt(&[32]), ..openssl.clone() }), Error::InvalidKey);
    add("saltLength 48 with a leading zero", with(&Pss { salt: salt(&[0, 48]), ..openssl.clone() }), Error::InvalidKey);
    let trailer = |t: u8| tlv(0xa3, &tlv(0x02, &[t]));
    // A choice (see der.rs): trailerField 1 is the DEFAULT, which DER leaves out.
    add("trailerField 1 written out", with(&Pss { trailer: trailer(1), ..openssl.clone() }), Error::InvalidKey);
    add("trailerField 2", with(&Pss { trailer: trailer(2), ..openssl.clone() }), Error::InvalidKey);
    // A non-minimal length inside the parameters: their bytes are compared
    // whole, so it is a wrong key, not a DER error.
    let mut long_hash_len = openssl.clone();
    long_hash_len.hash = [&[0xa0, 0x81, 0x0f][..], &sha384_null].concat();
    add("[0] length in long form", with(&long_hash_len), Error::InvalidKey);
    // Wrong OIDs and key.
    add(
        "rsaEncryption OID with PSS parameters",
        spki(&openssl.algorithm_with_oid(&OID_RSA_ENCRYPTION), n, &e),
        Error::InvalidKey,
    );
    add("e = 3", spki(&openssl.algorithm(), n, &[3]), Error::InvalidKey);
    add("modulus one byte short", spki(&openssl.algorithm(), &n[1..], &e), Error::InvalidLength(Field::Key));
    // Structure.
    add("byte after the SPKI", [&good[..], &[0]].concat(), Error::TrailingBytes);
    add("NULL after the parameters", spki(&seq(&[&openssl.algorithm()[2..], &NULL]), n, &e), Error::TrailingBytes);
    add("truncated inside the modulus", good[..200].to_vec(), Error::Truncated);
    add("truncated inside the parameters", good[..40].to_vec(), Error::Truncated);
    // The AlgorithmIdentifier's own length in long form: not DER.
    let alg = openssl.algorithm();
    let long_alg = [&[0x30, 0x81][..], &alg[1..]].concat();
    add(
        "AlgorithmIdentifier length 0x81 0x41",
        seq(&[&long_alg, &good[2 + 2 + alg.len()..]]),
        Error::InvalidValue(Field::Key),
    );

    for (what, bytes, expected) in &cases {
        assert_eq!(PublicKey::from_spki(bytes).err(), Some(*expected), "{what}");
        assert_eq!(Client::from_token_key(bytes).err(), Some(*expected), "{what} (client)");
    }
    // Truncation at every length is `Truncated`.
    for len in 0..good.len() {
        assert_eq!(PublicKey::from_spki(&good[..len]).err(), Some(Error::Truncated), "{len}");
    }
}

/// The `rsa_spki` fuzz target has the OpenSSL-form key among its seeds.
#[test]
fn fuzz_seed_is_the_openssl_form_key() {
    let (_, pk, _, _) = vector();
    let path = format!("{}/{SEED}", env!("CARGO_MANIFEST_DIR"));
    let seed = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(seed, openssl_spki(pk.modulus()));
}
