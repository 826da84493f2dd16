//! The encodings of RSA keys: the SubjectPublicKeyInfo of RFC 9578 §6.5 and
//! RFC 3279 §2.3.1, PKCS#8 `PrivateKeyInfo` (RFC 5208 §5) around a two-prime
//! PKCS#1 `RSAPrivateKey` (RFC 8017 §A.1.2), and the PEM armor of RFC 7468.
//! Liberal on one point of the key encoding, strict on what it emits: a
//! received RSASSA-PSS key may spell its SHA-384 identifiers with NULL
//! parameters (OpenSSL's 346-byte form, RFC 5754 §2), but only RFC 9578's
//! 342-byte form is ever written (see "What is accepted").
//!
//! # Which crates do the job
//!
//! The RustCrypto encoding crates, all without `alloc`: `der` (X.690 DER
//! reader and writer), `spki` (`SubjectPublicKeyInfo`, `AlgorithmIdentifier`,
//! and the SHA-256 fingerprint that is the RFC 9578 `token_key_id`), `pkcs1`
//! (`RSAPublicKey`, `RSAPrivateKey`), `pkcs8` (`PrivateKeyInfo`) and
//! `pem-rfc7468` (strict RFC 7468 armor over the constant-time `base64ct`).
//! This file only adapts them: it maps their errors onto ours, adds the
//! BIT STRING wrapping of `RSAPublicKey`, and refuses what the crates would
//! let through but this library does not accept.
//!
//! Until 2026-12-01 this file was a hand-written strict DER reader and
//! writer, and `key.rs` had its own PEM reader. The rule is to hand-write
//! nothing such a crate does well unless a measurement says otherwise; the
//! threshold, set before measuring, was at most 10 % more Cortex-M4 flash
//! (per client role) or stack, and at most twice the instructions of each
//! public parse call (a key is parsed once per load: not a hot path). Both
//! versions were measured against it on 2026-12-01 (flash and stack on the
//! Cortex-M4, instructions per parse call) and the crates stayed within it;
//! the table, the reasons and the commands are in
//! `docs/reports/2026-12-01-crypto-design-measurements.md`.
//!
//! # What is accepted
//!
//! Strict on structure, as before, and byte for byte the same set of public
//! keys, with one exception added since (issue 33, below):
//!
//! - SPKI: the `AlgorithmIdentifier` must be id-RSASSA-PSS with
//!   RSASSA-PSS-params {SHA-384, MGF1-SHA-384, saltLength 48} in one of the
//!   four DER spellings of [`ACCEPTED_PSS_PARAMS`], or rsaEncryption with
//!   NULL parameters, exactly, through its own function. The BIT STRING has
//!   no unused bits and holds exactly one `RSAPublicKey`.
//! - The four PSS spellings differ only in the parameters of the two SHA-384
//!   `AlgorithmIdentifier`s (the hashAlgorithm, and the one inside the MGF1
//!   maskGenAlgorithm): each may be absent, as RFC 9578 §6.5 and pat-go write
//!   it (342 bytes for RSA-2048), or NULL, as OpenSSL writes it and so
//!   Quicr's privacypass-cpp publishes it (346 bytes with both NULL). RFC
//!   5754 §2 (and RFC 4055 §2.1 before it) has receivers take both spellings
//!   of a SHA-2 identifier. Until issue 33 only the first was accepted.
//!   Everything else stays refused: another hash or MGF, the MGF hash
//!   differing from the message hash, any saltLength but 48, anything but
//!   `05 00` as the parameters (an empty OCTET STRING, a NULL with content),
//!   and a trailerField written out. That last one is a choice: trailerField
//!   1 is the DEFAULT, and DER (X.690 §11.5) leaves a DEFAULT value out, so
//!   writing it is BER, not DER; OpenSSL, Go and pat-go never write it, and
//!   no peer is known to. `write_pss_spki` is unchanged: this library
//!   writes only the RFC 9578 spelling. The token key id (RFC 9578 §6.5) of
//!   a parsed key is SHA-256 of the bytes as received (`key.rs`), so it is
//!   the id the issuer computed over what it published, not that of a
//!   re-encoding.
//! - PKCS#8: version 0, rsaEncryption with NULL parameters, no attributes and
//!   no public key (`pkcs8` skips attributes and unknown trailing fields; the
//!   re-encoded length check below refuses them), a two-prime `RSAPrivateKey`
//!   of version 0.
//! - DER everywhere: definite, minimal lengths; minimal non-negative
//!   `INTEGER`s; nothing after the last field of any `SEQUENCE` or after the
//!   top-level value.
//! - PEM: RFC 7468's strict grammar as `pem-rfc7468` implements it, with the
//!   line width detected (every full line of the same width: 64 as Go and
//!   OpenSSL write, 76 as MIME tools do, or any other), LF, CRLF or CR line
//!   ends, optional text before the pre-encapsulation boundary, label
//!   `PRIVATE KEY`, after whitespace around the block is trimmed. The old
//!   reader took any ASCII whitespace anywhere (lines of mixed widths, blank
//!   lines, spaces inside lines) and no text before the block; `pem_grammar`
//!   in `tests/blind_rsa.rs` pins both.
//!
//! Before issue 33, a differential run of 9,330 mutated inputs (every byte of
//! the headers flipped and replaced, every truncation, every TLV re-encoded
//! with long or indefinite lengths, extra or missing elements, other tags,
//! non-minimal and negative integers, other PSS parameters) through both
//! versions accepted exactly the same SPKI and PKCS#8 inputs. Some refusals carry another error
//! than before: a malformed `AlgorithmIdentifier` is now a DER error
//! (`InvalidValue`, `TrailingBytes`, `Truncated`) instead of `InvalidKey`,
//! the version fields, and an element other than attributes after the
//! private key, fail inside `pkcs8`/`pkcs1` (`InvalidValue`), and with two
//! faults the DER one is reported first;
//! `spki_typed_errors` and `pkcs8_typed_errors` in `tests/blind_rsa.rs` pin
//! the new values.
//!
//! # Errors
//!
//! A `der` error means the bytes are not well-formed DER: running out of
//! input is [`Error::Truncated`], bytes left after a complete value (at any
//! level) are [`Error::TrailingBytes`], anything else is
//! [`Error::InvalidValue`]`(`[`Field::Key`]`)`. Well-formed DER for a key this
//! library does not take (another algorithm or parameters, another version,
//! e ≠ 65537, an inconsistent private key) is [`Error::InvalidKey`].
//!
//! # Secrets
//!
//! Parsing is variable time in the lengths and tags (public) and, through DER
//! minimality, in the leading zero bytes of each integer. `UintRef` and
//! `OctetStringRef` borrow from the input, so no private integer is copied
//! here; `key.rs` converts them into wiped `Uint`s. The PEM body is decoded
//! into a caller-provided buffer that `key.rs` wipes. `base64ct`'s streaming
//! decoder, inside `pem-rfc7468`, carries the 3-byte group that straddles each
//! line end (and the last group, when it sizes the output) in its own stack
//! frame, which no caller can wipe: at most 3 decoded bytes of the key in
//! released stack, the same class as the register spills of any decoder.

use der::asn1::{AnyRef, BitStringRef, ObjectIdentifier, UintRef};
use der::{Decode, DecodeValue, Encode, EncodeValue, ErrorKind, FixedTag, Header, Length, Reader, Tag, Writer};
use pkcs1::{RsaPrivateKeyRef, RsaPublicKeyRef};
use pkcs8::PrivateKeyInfoRef;
use spki::{AlgorithmIdentifierRef, SubjectPublicKeyInfo};

use crate::error::{Error, Field, Result};

/// The only public exponent accepted, e = 65537, as DER `INTEGER` content.
pub(crate) const E_BYTES: [u8; 3] = [0x01, 0x00, 0x01];

/// id-RSASSA-PSS (RFC 8017 §A.2.3).
const ID_RSASSA_PSS: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.10");

/// The contents of RSASSA-PSS-params: `hashAlgorithm [0]` SHA-384 (parameters
/// absent), `maskGenAlgorithm [1]` MGF1 with SHA-384 (parameters absent),
/// `saltLength [2]` 48, `trailerField` omitted (its default), as RFC 9578 §6.5
/// serialises them. The only spelling this library writes.
const PSS_PARAMS: [u8; 48] = [
    0xa0, 0x0d, 0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02, 0xa1, 0x1a, 0x30, 0x18,
    0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x08, 0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01,
    0x65, 0x03, 0x04, 0x02, 0x02, 0xa2, 0x03, 0x02, 0x01, 0x30,
];

/// [`PSS_PARAMS`] with NULL (`05 00`) parameters in the hashAlgorithm's
/// SHA-384 identifier only (RFC 5754 §2 allows either spelling in each).
const PSS_PARAMS_NULL_HASH: [u8; 50] = [
    0xa0, 0x0f, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02, 0x05, 0x00, 0xa1, 0x1a,
    0x30, 0x18, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x08, 0x30, 0x0b, 0x06, 0x09, 0x60, 0x86,
    0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02, 0xa2, 0x03, 0x02, 0x01, 0x30,
];

/// [`PSS_PARAMS`] with NULL parameters in the SHA-384 identifier inside the
/// MGF1 maskGenAlgorithm only.
const PSS_PARAMS_NULL_MGF_HASH: [u8; 50] = [
    0xa0, 0x0d, 0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02, 0xa1, 0x1c, 0x30, 0x1a,
    0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x08, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01,
    0x65, 0x03, 0x04, 0x02, 0x02, 0x05, 0x00, 0xa2, 0x03, 0x02, 0x01, 0x30,
];

/// [`PSS_PARAMS`] with NULL parameters in both SHA-384 identifiers: what
/// OpenSSL writes (its SHA-2 `AlgorithmIdentifier`s always carry NULL), so
/// the parameters of Quicr's privacypass-cpp type-2 keys (346-byte SPKI).
const PSS_PARAMS_NULL_BOTH: [u8; 52] = [
    0xa0, 0x0f, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02, 0x05, 0x00, 0xa1, 0x1c,
    0x30, 0x1a, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x08, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86,
    0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02, 0x05, 0x00, 0xa2, 0x03, 0x02, 0x01, 0x30,
];

/// Every contents of the RSASSA-PSS-params `SEQUENCE` a received type-2,
/// type-3 or 0xDA7A key may carry: the DER spellings of {SHA-384,
/// MGF1-SHA-384, saltLength 48, trailerField 1}. DER fixes everything but the
/// parameters of the two SHA-384 identifiers (saltLength must be written, as
/// 48 is not its default of 20; trailerField must not, as 1 is its default),
/// and those are absent or NULL: 2 × 2 spellings. The inner bytes are compared
/// whole, so a non-DER spelling of the same values is refused as
/// [`Error::InvalidKey`].
const ACCEPTED_PSS_PARAMS: [&[u8]; 4] =
    [&PSS_PARAMS, &PSS_PARAMS_NULL_HASH, &PSS_PARAMS_NULL_MGF_HASH, &PSS_PARAMS_NULL_BOTH];

/// The RSASSA-PSS-params `SEQUENCE` (`AnyRef::new` fails only above 4 GiB).
const PSS_PARAMETERS: AnyRef<'static> = match AnyRef::new(Tag::Sequence, &PSS_PARAMS) {
    Ok(any) => any,
    Err(_) => AnyRef::NULL,
};

/// The `AlgorithmIdentifier` of a Privacy Pass type-2 token key (RFC 9578
/// §6.5), in the spelling this library writes.
pub(crate) const RSASSA_PSS: AlgorithmIdentifierRef<'static> =
    AlgorithmIdentifierRef { oid: ID_RSASSA_PSS, parameters: Some(PSS_PARAMETERS) };

/// rsaEncryption with NULL parameters (RFC 8017 §A.1, RFC 3279 §2.3.1).
pub(crate) const RSA_ENCRYPTION: AlgorithmIdentifierRef<'static> = pkcs1::ALGORITHM_ID;

/// The largest PKCS#8 document [`decode_pem`] takes, in bytes (a 4096-bit
/// key is about 2.4 KB).
pub(crate) const MAX_PKCS8_LEN: usize = 3072;

/// Maps a `der` error onto ours (see the module docs).
fn der_error(e: der::Error) -> Error {
    match e.kind() {
        ErrorKind::Incomplete { .. } => Error::Truncated,
        ErrorKind::TrailingData { .. } => Error::TrailingBytes,
        _ => Error::InvalidValue(Field::Key),
    }
}

/// The subjectPublicKey of an RSA SPKI: a BIT STRING with no unused bits
/// whose contents are one DER `RSAPublicKey` (RFC 8017 §A.1.1).
#[derive(Clone, Copy)]
struct RsaBits<'a>(RsaPublicKeyRef<'a>);

impl FixedTag for RsaBits<'_> {
    const TAG: Tag = Tag::BitString;
}

impl<'a> DecodeValue<'a> for RsaBits<'a> {
    type Error = der::Error;

    fn decode_value<R: Reader<'a>>(reader: &mut R, header: Header) -> der::Result<Self> {
        let bits = BitStringRef::decode_value(reader, header)?;
        let bytes = bits.as_bytes().ok_or_else(|| reader.error(Tag::BitString.value_error()))?;
        RsaPublicKeyRef::from_der(bytes).map(Self)
    }
}

impl EncodeValue for RsaBits<'_> {
    fn value_len(&self) -> der::Result<Length> {
        self.0.encoded_len()? + 1u8
    }

    fn encode_value(&self, writer: &mut impl Writer) -> der::Result<()> {
        writer.write_byte(0)?; // no unused bits
        self.0.encode(writer)
    }
}

/// An RSA SubjectPublicKeyInfo whose key borrows its integers.
type RsaSpki<'a> = SubjectPublicKeyInfo<AnyRef<'a>, RsaBits<'a>>;

/// The SubjectPublicKeyInfo algorithms [`parse_spki`] takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SpkiAlgorithm {
    /// id-RSASSA-PSS with RFC 9578 §6.5's parameters in any spelling of
    /// [`ACCEPTED_PSS_PARAMS`].
    RsassaPss,
    /// rsaEncryption with NULL parameters ([`RSA_ENCRYPTION`]), exactly.
    RsaEncryption,
}

impl SpkiAlgorithm {
    /// Whether a decoded `AlgorithmIdentifier` is this one.
    fn accepts(self, algorithm: &AlgorithmIdentifierRef<'_>) -> bool {
        match self {
            Self::RsassaPss => {
                algorithm.oid == ID_RSASSA_PSS
                    && algorithm.parameters.is_some_and(|params| {
                        params.header().tag() == Tag::Sequence && ACCEPTED_PSS_PARAMS.contains(&params.value())
                    })
            }
            Self::RsaEncryption => *algorithm == RSA_ENCRYPTION,
        }
    }
}

/// Parses an RSA SPKI whose `AlgorithmIdentifier` must be `algorithm`;
/// returns the modulus and exponent magnitudes (no sign byte).
pub(crate) fn parse_spki(der: &[u8], algorithm: SpkiAlgorithm) -> Result<(&[u8], &[u8])> {
    let spki = RsaSpki::from_der(der).map_err(der_error)?;
    if !algorithm.accepts(&spki.algorithm) {
        return Err(Error::InvalidKey);
    }
    let key = spki.subject_public_key.0;
    Ok((key.modulus.as_bytes(), key.public_exponent.as_bytes()))
}

/// The RSASSA-PSS SPKI of the key with big-endian modulus `n` and e = 65537.
fn pss_spki(n: &[u8]) -> Result<RsaSpki<'_>> {
    let key = RsaPublicKeyRef {
        modulus: UintRef::new(n).map_err(der_error)?,
        public_exponent: UintRef::new(&E_BYTES).map_err(der_error)?,
    };
    Ok(RsaSpki { algorithm: RSASSA_PSS, subject_public_key: RsaBits(key) })
}

/// Writes the RSASSA-PSS SPKI of modulus `n` into `out`; returns its length.
pub(crate) fn write_pss_spki(n: &[u8], out: &mut [u8]) -> Result<usize> {
    let spki = pss_spki(n)?;
    Ok(spki.encode_to_slice(out).map_err(|_| Error::BufferTooSmall)?.len())
}

/// SHA-256 of the RSASSA-PSS SPKI of modulus `n`, hashed as it is encoded
/// (`spki`'s fingerprint): the `token_key_id` of RFC 9578 §6.5.
pub(crate) fn pss_spki_sha256(n: &[u8]) -> Result<[u8; 32]> {
    pss_spki(n)?.fingerprint_bytes().map_err(|_| Error::InvalidKey)
}

/// Parses a DER PKCS#8 `PrivateKeyInfo` holding an rsaEncryption
/// `RSAPrivateKey` (see the module docs for what is refused); the integers
/// borrow from `der`.
pub(crate) fn parse_pkcs8(der: &[u8]) -> Result<RsaPrivateKeyRef<'_>> {
    let info = PrivateKeyInfoRef::from_der(der).map_err(der_error)?;
    // `pkcs8` decodes and drops attributes and unknown context-specific
    // fields: if re-encoding does not give back every input byte, some were
    // there.
    let len = info.encoded_len().map_err(der_error)?;
    if usize::try_from(len).ok() != Some(der.len()) {
        return Err(Error::TrailingBytes);
    }
    if info.public_key.is_some() || info.algorithm != RSA_ENCRYPTION {
        return Err(Error::InvalidKey); // version 1 (RFC 5958), or not an RSA key
    }
    let key = RsaPrivateKeyRef::from_der(info.private_key.as_bytes()).map_err(der_error)?;
    if key.other_prime_infos.is_some() {
        return Err(Error::InvalidKey); // multi-prime (decodes only where `pkcs1/alloc` is on)
    }
    Ok(key)
}

/// Decodes a PEM `PRIVATE KEY` block (RFC 7468 §10) into `buf` and returns
/// the DER bytes. Whitespace around the block is dropped first (as the old
/// reader did); inside it, `pem-rfc7468`'s strict grammar applies, except
/// that the base64 lines may have any width as long as it is the same for
/// every full line (64 as Go and OpenSSL write, 76 as MIME tools do; the
/// width is public, so detecting it leaks nothing). A body larger than `buf`
/// is [`Error::InvalidLength`].
pub(crate) fn decode_pem<'o>(pem: &str, buf: &'o mut [u8]) -> Result<&'o [u8]> {
    let map = |e| match e {
        pem_rfc7468::Error::Length => Error::InvalidLength(Field::Key),
        _ => Error::InvalidValue(Field::Key),
    };
    let mut decoder = pem_rfc7468::Decoder::new_detect_wrap(pem.trim().as_bytes()).map_err(map)?;
    if decoder.type_label() != "PRIVATE KEY" {
        return Err(Error::InvalidValue(Field::Key));
    }
    let out = buf.get_mut(..decoder.remaining_len()).ok_or(Error::InvalidLength(Field::Key))?;
    let der = decoder.decode(out).map_err(map)?;
    if !decoder.is_finished() {
        return Err(Error::InvalidLength(Field::Key));
    }
    Ok(der)
}

/// The length of a DER header for `len` content bytes (< 64 KiB), as a
/// `const fn` for [`super::RsaPublicKey::SPKI_LEN`] (`der`'s `Length`
/// arithmetic is not `const`; a test checks the two agree).
pub(crate) const fn header_len(len: usize) -> usize {
    if len < 0x80 {
        2
    } else if len < 0x100 {
        3
    } else {
        4
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn header_len_matches_der() {
        for len in (0..0x300).chain([0xfffe, 0xffff]) {
            let header = Header::new(Tag::Sequence, Length::try_from(len).unwrap());
            assert_eq!(usize::try_from(header.encoded_len().unwrap()).unwrap(), header_len(len), "{len}");
        }
    }

    #[test]
    fn pss_parameters_are_a_sequence() {
        assert_eq!(PSS_PARAMETERS.header().tag(), Tag::Sequence);
        assert_eq!(PSS_PARAMETERS.value(), PSS_PARAMS);
    }

    /// Each accepted spelling, read with the `der` crate, means {SHA-384,
    /// MGF1-SHA-384, saltLength 48} and nothing more, and the four cover the
    /// absent/NULL choice of both hash identifiers once each.
    #[test]
    fn accepted_pss_params_mean_the_same() {
        use der::SliceReader;
        use der::asn1::{ContextSpecific, Null};

        const SHA384: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.2.2");
        const MGF1: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.8");
        // Whether a SHA-384 identifier's parameters are NULL (else absent).
        let sha384_null = |id: AlgorithmIdentifierRef<'_>| {
            assert_eq!(id.oid, SHA384);
            match id.parameters {
                None => false,
                Some(p) => {
                    assert_eq!(p.decode_as::<Null>().unwrap(), Null);
                    true
                }
            }
        };
        let mut seen = [[false; 2]; 2];
        for params in ACCEPTED_PSS_PARAMS {
            let mut r = SliceReader::new(params).unwrap();
            let hash = ContextSpecific::<AlgorithmIdentifierRef<'_>>::decode(&mut r).unwrap();
            let mgf = ContextSpecific::<AlgorithmIdentifierRef<'_>>::decode(&mut r).unwrap();
            let salt = ContextSpecific::<u8>::decode(&mut r).unwrap();
            assert!(r.is_finished(), "no trailerField");
            assert_eq!([hash.tag_number.value(), mgf.tag_number.value(), salt.tag_number.value()], [0, 1, 2]);
            assert_eq!(mgf.value.oid, MGF1);
            let mgf_hash = mgf.value.parameters.unwrap().decode_as::<AlgorithmIdentifierRef<'_>>().unwrap();
            assert_eq!(salt.value, 48);
            let (h, m) = (sha384_null(hash.value), sha384_null(mgf_hash));
            assert!(!seen[usize::from(h)][usize::from(m)], "a spelling listed twice");
            seen[usize::from(h)][usize::from(m)] = true;
        }
        assert_eq!(seen, [[true; 2]; 2]);
        // The written form is the first, RFC 9578's.
        assert_eq!(ACCEPTED_PSS_PARAMS[0], PSS_PARAMS);
    }

    #[test]
    fn spki_algorithm_accepts() {
        let null_both = AlgorithmIdentifierRef {
            oid: ID_RSASSA_PSS,
            parameters: Some(AnyRef::new(Tag::Sequence, &PSS_PARAMS_NULL_BOTH).unwrap()),
        };
        assert!(SpkiAlgorithm::RsassaPss.accepts(&RSASSA_PSS));
        assert!(SpkiAlgorithm::RsassaPss.accepts(&null_both));
        assert!(!SpkiAlgorithm::RsassaPss.accepts(&RSA_ENCRYPTION));
        assert!(!SpkiAlgorithm::RsaEncryption.accepts(&RSASSA_PSS));
        assert!(!SpkiAlgorithm::RsaEncryption.accepts(&null_both));
        assert!(SpkiAlgorithm::RsaEncryption.accepts(&RSA_ENCRYPTION));
        // The right contents under another tag (a SET) or the OID of
        // rsaEncryption with PSS parameters: refused.
        let as_set = AlgorithmIdentifierRef {
            oid: ID_RSASSA_PSS,
            parameters: Some(AnyRef::new(Tag::Set, &PSS_PARAMS).unwrap()),
        };
        assert!(!SpkiAlgorithm::RsassaPss.accepts(&as_set));
        let wrong_oid = AlgorithmIdentifierRef { oid: RSA_ENCRYPTION.oid, parameters: Some(PSS_PARAMETERS) };
        assert!(!SpkiAlgorithm::RsassaPss.accepts(&wrong_oid));
    }

    #[test]
    fn error_mapping() {
        // Truncated, trailing, non-minimal length, indefinite length, negative.
        assert_eq!(UintRef::from_der(&[0x02, 0x02, 0x01]).map_err(der_error), Err(Error::Truncated));
        assert_eq!(UintRef::from_der(&[0x02, 0x01, 0x01, 0x00]).map_err(der_error), Err(Error::TrailingBytes));
        for bad in [&[0x02, 0x81, 0x01, 0x01][..], &[0x02, 0x80, 0x01, 0x00, 0x00], &[0x02, 0x01, 0x80]] {
            assert_eq!(UintRef::from_der(bad).map_err(der_error), Err(Error::InvalidValue(Field::Key)));
        }
    }
}
