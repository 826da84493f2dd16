//! Test-vector harness for pat-go's JSON schemas (feature `std`).
//!
//! One loader for every vector file: it detects the schema from the fields
//! (or takes a [`Kind`]), checks every case and counts them. A case either
//! passes or fails (the library computed something else, or rejected the
//! input); a file or field that is not of the schema at all is a
//! [`VectorError`] naming the case and the field, never a silent skip.
//!
//! The JSON conventions follow pat-go (protocol-reference §12): lowercase hex
//! everywhere, except for a few plain strings and numbers. Key names of the
//! upstream Rust `privacypass` files (`sk_s`, `token_type`, …) are accepted too.

use core::fmt;
use std::string::{String, ToString};
use std::vec::Vec;

use serde_json::{Map, Value};

use pat::wire::token_type::{PrivateP384, PrivateRistretto255};

mod act;
mod amortized;
mod arc;
mod athm;
mod batched;
mod metadata;
mod poprf;
mod private;
mod token;
mod type2;
mod type3;

/// The vector schemas, named as on the `pat vectors` command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Kind {
    /// `tokens/token-test-vectors.json`: TokenChallenge → token_input.
    Token,
    /// `tokens/private/type1-*`: VOPRF(P-384) issuance.
    Type1,
    /// `tokens/type2/type2-*`: blind RSA issuance.
    Type2,
    /// `tokens/private/type5-*`: VOPRF(ristretto255) issuance.
    Type5,
    /// `tokens/amortized/type1-*`.
    AmortizedType1,
    /// `tokens/amortized/type5-*`.
    AmortizedType5,
    /// `tokens/batched/*`: generic batches of types 1, 2 and 5.
    Batched,
    /// `tokens/type3/type3-ecdsa-blinding-*`.
    Type3EcdsaBlinding,
    /// `tokens/type3/type3-ed25519-blinding-*`.
    Type3Ed25519Blinding,
    /// `tokens/type3/type3-origin-encryption-*`.
    Type3OriginEncryption,
    /// `tokens/type3/type3-anon-origin-id-*`.
    Type3AnonOriginId,
    /// Partially blind RSA known answers (draft-irtf-cfrg-partially-blind-rsa,
    /// blindrsa-ts `test_vectors_partially_blind_rsa_draft_2.json`).
    Pbrsa,
    /// Type 0xDA7A issuance with extensions (privacypass-ts
    /// `pub_verif_with_metadata_v3.json`).
    TypeDa7a,
    /// Type 0xDA7B issuance with extensions, POPRF(P-384): pat's own schema
    /// (no other implementation publishes vectors of this type), the type-1
    /// fields plus `extensions`, `proof_random_scalar`, `token_key_id` and
    /// the key's `seed`.
    TypeDa7b,
    /// ARC(P-256), draft-ietf-privacypass-arc-crypto-01's
    /// `allVectors.json`: an object keyed by suite, six groups (cases) each.
    Arc,
    /// ATHM(P-256), draft-yun-cfrg-athm-00: google/anonymous-tokens'
    /// `athm/test_vectors.json`, six procedures (cases).
    Athm,
    /// ACT (ristretto255, BLAKE3, CBOR), draft-schlesinger-cfrg-act-01: the
    /// draft's appendix vectors as JSON, one run (issue, spend, refund) per
    /// case.
    Act,
}

impl Kind {
    /// Every kind, in command-line order.
    pub const ALL: [Kind; 17] = [
        Kind::Token,
        Kind::Type1,
        Kind::Type2,
        Kind::Type5,
        Kind::AmortizedType1,
        Kind::AmortizedType5,
        Kind::Batched,
        Kind::Type3EcdsaBlinding,
        Kind::Type3Ed25519Blinding,
        Kind::Type3OriginEncryption,
        Kind::Type3AnonOriginId,
        Kind::Pbrsa,
        Kind::TypeDa7a,
        Kind::TypeDa7b,
        Kind::Arc,
        Kind::Athm,
        Kind::Act,
    ];

    /// The command-line name.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::Token => "token",
            Kind::Type1 => "type1",
            Kind::Type2 => "type2",
            Kind::Type5 => "type5",
            Kind::AmortizedType1 => "amortized-type1",
            Kind::AmortizedType5 => "amortized-type5",
            Kind::Batched => "batched",
            Kind::Type3EcdsaBlinding => "type3-ecdsa-blinding",
            Kind::Type3Ed25519Blinding => "type3-ed25519-blinding",
            Kind::Type3OriginEncryption => "type3-origin-encryption",
            Kind::Type3AnonOriginId => "type3-anon-origin-id",
            Kind::Pbrsa => "pbrsa",
            Kind::TypeDa7a => "type-da7a",
            Kind::TypeDa7b => "type-da7b",
            Kind::Arc => "arc",
            Kind::Athm => "athm",
            Kind::Act => "act",
        }
    }

    /// Parses a command-line name.
    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Whether this build can verify and generate the kind: every kind of
    /// pat-go's files is implemented.
    pub const fn is_implemented(self) -> bool {
        true
    }

    /// The number of cases [`generate`] writes when none is asked for:
    /// 5, as pat-go's files hold; 6 for `arc`, whose one suite has six groups.
    pub const fn default_count(self) -> usize {
        match self {
            Kind::Arc => arc::GROUPS.len(),
            Kind::Athm => athm::PROCEDURES.len(),
            _ => 5,
        }
    }

    /// Guesses the schema of a vector file from the fields of its first case
    /// (for `arc`, the groups of its first suite).
    pub fn detect(file: &Value) -> Option<Kind> {
        if let Some(suites) = file.as_object() {
            let first = suites.values().next()?.as_object()?;
            return (first.contains_key("ServerKey") && first.contains_key("Presentation1")).then_some(Kind::Arc);
        }
        let first = file.as_array()?.first()?.as_object()?;
        if athm::detect(first) {
            return Some(Kind::Athm);
        }
        if act::detect(first) {
            return Some(Kind::Act);
        }
        let has = |k: &str| first.contains_key(k);
        let type_of = |field: &str| first.get(field).and_then(Value::as_str).and_then(|h| h.get(..4)).map(String::from);
        if has("eprime") {
            Some(Kind::Pbrsa)
        } else if has("token_authenticator_input") {
            Some(Kind::Token)
        } else if has("issuance") {
            Some(Kind::Batched)
        } else if has("issuer_origin_alias") {
            Some(Kind::Type3AnonOriginId)
        } else if has("issuer_encap_key_seed") {
            Some(Kind::Type3OriginEncryption)
        } else if has("Curve") {
            Some(Kind::Type3EcdsaBlinding)
        } else if has("bk") && has("pkR") {
            Some(Kind::Type3Ed25519Blinding)
        } else if has("tokens") {
            match type_of("token_request").as_deref() {
                Some("0001") => Some(Kind::AmortizedType1),
                Some("0005") => Some(Kind::AmortizedType5),
                _ => None,
            }
        } else if has("token_request") {
            match type_of("token_request").as_deref() {
                Some("0001") => Some(Kind::Type1),
                Some("0002") => Some(Kind::Type2),
                Some("0005") => Some(Kind::Type5),
                Some("da7a" | "DA7A") => Some(Kind::TypeDa7a),
                Some("da7b" | "DA7B") => Some(Kind::TypeDa7b),
                _ => None,
            }
        } else {
            None
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The outcome of checking one file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Cases that passed every check.
    pub passed: usize,
    /// Cases that failed, with the index and the first check that failed.
    pub failures: Vec<Failure>,
}

impl Report {
    /// Number of failed cases.
    pub fn failed(&self) -> usize {
        self.failures.len()
    }

    /// Number of cases checked.
    pub fn total(&self) -> usize {
        self.passed + self.failed()
    }

    /// True when at least one case was checked and none failed.
    pub fn ok(&self) -> bool {
        self.passed > 0 && self.failures.is_empty()
    }

    fn record(&mut self, case: usize, outcome: Result<(), String>) {
        match outcome {
            Ok(()) => self.passed += 1,
            Err(what) => self.failures.push(Failure { case, what }),
        }
    }
}

/// One failed case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// Index of the case in the file (from 0).
    pub case: usize,
    /// What did not match.
    pub what: String,
}

/// A vector file that is not of the expected schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VectorError {
    /// Not JSON, or not a JSON array of objects.
    Format(String),
    /// The schema could not be detected; pass a kind.
    Undetectable,
    /// The kind is known but not implemented in this build.
    Unsupported(Kind),
    /// A field is missing or not of the schema's form.
    Field {
        /// Index of the case (from 0).
        case: usize,
        /// The field's name.
        field: String,
        /// What is wrong with it.
        problem: String,
    },
}

impl fmt::Display for VectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VectorError::Format(why) => write!(f, "not a vector file: {why}"),
            VectorError::Undetectable => f.write_str("cannot tell the vector kind from the fields; pass --kind"),
            VectorError::Unsupported(kind) => {
                write!(f, "vector kind `{kind}` is not implemented yet")
            }
            VectorError::Field { case, field, problem } => write!(f, "case {case}, field `{field}`: {problem}"),
        }
    }
}

impl core::error::Error for VectorError {}

/// Parses a vector file's text.
pub fn parse(text: &str) -> Result<Value, VectorError> {
    serde_json::from_str(text).map_err(|e| VectorError::Format(e.to_string()))
}

/// Checks every case of a parsed file against the library.
pub fn verify(kind: Kind, file: &Value) -> Result<Report, VectorError> {
    if kind == Kind::Arc {
        return arc::verify(file);
    }
    if kind == Kind::Athm {
        return athm::verify(file);
    }
    if kind == Kind::Act {
        return act::verify(file);
    }
    let mut report = Report::default();
    for (i, fields) in cases(file)?.into_iter().enumerate() {
        let case = Case { index: i, fields };
        let outcome = match kind {
            Kind::Token => token::verify(&case)?,
            Kind::Type1 => private::verify::<PrivateP384>(&case)?,
            Kind::Type2 => type2::verify(&case)?,
            Kind::Type5 => private::verify::<PrivateRistretto255>(&case)?,
            Kind::AmortizedType1 => amortized::verify::<PrivateP384>(&case)?,
            Kind::AmortizedType5 => amortized::verify::<PrivateRistretto255>(&case)?,
            Kind::Type3EcdsaBlinding => type3::verify_ecdsa(&case)?,
            Kind::Type3Ed25519Blinding => type3::verify_ed25519(&case)?,
            Kind::Type3OriginEncryption => type3::verify_origin_encryption(&case)?,
            Kind::Type3AnonOriginId => type3::verify_anon_origin_id(&case)?,
            Kind::Batched => batched::verify(&case)?,
            Kind::Pbrsa => metadata::verify_pbrsa(&case)?,
            Kind::TypeDa7a => metadata::verify_type_da7a(&case)?,
            Kind::TypeDa7b => poprf::verify(&case)?,
            Kind::Arc => return arc::verify(file),
            Kind::Athm => return athm::verify(file),
            Kind::Act => return act::verify(file),
        };
        report.record(i, outcome);
    }
    Ok(report)
}

/// The most cases [`generate`] writes in one call (pat-go's files hold 5; a
/// million cases of the slowest kind takes hours, of any kind gigabytes).
pub const MAX_GENERATE: usize = 100_000;

/// Generates `count` fresh cases of `kind` in pat-go's schema; `count` above
/// [`MAX_GENERATE`] is a [`VectorError::Format`], refused before any work.
/// `arc` writes one suite, whose six groups are its cases: `count` must be 6
/// (or 0, an empty file).
pub fn generate(kind: Kind, count: usize) -> Result<Value, VectorError> {
    if count > MAX_GENERATE {
        return Err(VectorError::Format(std::format!("--count {count} is above the limit of {MAX_GENERATE} cases")));
    }
    if kind == Kind::Arc {
        return match count {
            0 => Ok(Value::Object(Map::new())),
            6 => arc::generate(),
            _ => Err(VectorError::Format(std::format!(
                "--count {count}: the arc kind writes one suite of {} cases",
                arc::GROUPS.len()
            ))),
        };
    }
    if kind == Kind::Athm {
        return match count {
            0 => Ok(Value::Array(Vec::new())),
            6 => athm::generate(),
            _ => Err(VectorError::Format(std::format!(
                "--count {count}: the athm kind writes one run of {} procedures",
                athm::PROCEDURES.len()
            ))),
        };
    }
    let cases = match kind {
        Kind::Token => (0..count).map(token::generate).collect::<Result<Vec<_>, _>>()?,
        Kind::Type1 => private::generate::<PrivateP384>(count)?,
        Kind::Type2 => type2::generate(count)?,
        Kind::Type5 => private::generate::<PrivateRistretto255>(count)?,
        Kind::AmortizedType1 => amortized::generate::<PrivateP384>(count)?,
        Kind::AmortizedType5 => amortized::generate::<PrivateRistretto255>(count)?,
        Kind::Type3EcdsaBlinding => type3::generate_ecdsa(count)?,
        Kind::Type3Ed25519Blinding => type3::generate_ed25519(count)?,
        Kind::Type3OriginEncryption => type3::generate_origin_encryption(count)?,
        Kind::Type3AnonOriginId => type3::generate_anon_origin_id(count)?,
        Kind::Batched => batched::generate(count)?,
        Kind::Pbrsa => metadata::generate_pbrsa(count)?,
        Kind::TypeDa7a => metadata::generate_type_da7a(count)?,
        Kind::TypeDa7b => poprf::generate(count)?,
        Kind::Arc => return arc::generate(),
        Kind::Athm => return athm::generate(),
        Kind::Act => act::generate(count)?.as_array().cloned().unwrap_or_default(),
    };
    Ok(Value::Array(cases))
}

fn cases(file: &Value) -> Result<Vec<&Map<String, Value>>, VectorError> {
    let cases = file.as_array().ok_or_else(|| VectorError::Format("top level is not an array".into()))?;
    cases
        .iter()
        .enumerate()
        .map(|(i, c)| c.as_object().ok_or_else(|| VectorError::Format(std::format!("case {i} is not an object"))))
        .collect()
}

/// One case of a vector file, with typed field access.
pub(crate) struct Case<'a> {
    index: usize,
    fields: &'a Map<String, Value>,
}

impl<'a> Case<'a> {
    pub(crate) fn error(&self, field: &str, problem: impl Into<String>) -> VectorError {
        VectorError::Field { case: self.index, field: field.into(), problem: problem.into() }
    }

    /// The string value of the first of `names` present (pat-go and upstream spellings).
    fn str(&self, names: &[&str]) -> Result<&'a str, VectorError> {
        let first = names.first().copied().unwrap_or_default();
        let value = names.iter().find_map(|n| self.fields.get(*n)).ok_or_else(|| self.error(first, "missing"))?;
        value.as_str().ok_or_else(|| self.error(first, "not a string"))
    }

    /// Whether the case has the field `name`.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.fields.contains_key(name)
    }

    /// A hex field of any length.
    pub(crate) fn hex(&self, names: &[&str]) -> Result<Vec<u8>, VectorError> {
        let first = names.first().copied().unwrap_or_default();
        decode_hex(self.str(names)?).map_err(|why| self.error(first, why))
    }

    /// An array of hex strings.
    pub(crate) fn hex_list(&self, names: &[&str]) -> Result<Vec<Vec<u8>>, VectorError> {
        let first = names.first().copied().unwrap_or_default();
        let value = names.iter().find_map(|n| self.fields.get(*n)).ok_or_else(|| self.error(first, "missing"))?;
        let items = value.as_array().ok_or_else(|| self.error(first, "not an array"))?;
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let s = item.as_str().ok_or_else(|| self.error(first, std::format!("item {i} is not a string")))?;
                decode_hex(s).map_err(|why| self.error(first, std::format!("item {i}: {why}")))
            })
            .collect()
    }

    /// A JSON number field (a non-negative integer).
    pub(crate) fn num(&self, name: &str) -> Result<u64, VectorError> {
        let value = self.fields.get(name).ok_or_else(|| self.error(name, "missing"))?;
        value.as_u64().ok_or_else(|| self.error(name, "not a non-negative integer"))
    }

    /// A hex field of exactly `N` bytes that may start with `0x`.
    pub(crate) fn hex_array_0x<const N: usize>(&self, name: &str) -> Result<[u8; N], VectorError> {
        let s = self.str(&[name])?;
        let digits = s.strip_prefix("0x").unwrap_or(s);
        let bytes = decode_hex(digits).map_err(|why| self.error(name, why))?;
        <[u8; N]>::try_from(bytes.as_slice())
            .map_err(|_| self.error(name, std::format!("expected {N} bytes, found {}", bytes.len())))
    }

    /// A hex field of exactly `N` bytes.
    pub(crate) fn hex_array<const N: usize>(&self, names: &[&str]) -> Result<[u8; N], VectorError> {
        let first = names.first().copied().unwrap_or_default();
        let bytes = self.hex(names)?;
        <[u8; N]>::try_from(bytes.as_slice())
            .map_err(|_| self.error(first, std::format!("expected {N} bytes, found {}", bytes.len())))
    }
}

/// Decodes lowercase or uppercase hex.
pub fn decode_hex(s: &str) -> Result<Vec<u8>, String> {
    fn nibble(c: u8) -> Result<u8, String> {
        match c {
            b'0'..=b'9' => Ok(c - b'0'),
            b'a'..=b'f' => Ok(c - b'a' + 10),
            b'A'..=b'F' => Ok(c - b'A' + 10),
            _ => Err(std::format!("invalid hex digit {:?}", char::from(c))),
        }
    }
    if !s.len().is_multiple_of(2) {
        return Err("odd number of hex digits".into());
    }
    s.as_bytes()
        .chunks_exact(2)
        .map(|pair| match *pair {
            [hi, lo] => Ok(nibble(hi)? << 4 | nibble(lo)?),
            _ => Err("odd number of hex digits".into()),
        })
        .collect()
}

/// Encodes lowercase hex.
pub fn encode_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| std::format!("{b:02x}")).collect()
}

/// Compares a computed value with the file's, naming the field on mismatch.
pub(crate) fn expect_eq(field: &str, computed: &[u8], expected: &[u8]) -> Result<(), String> {
    if computed == expected {
        Ok(())
    } else {
        Err(std::format!("{field}: computed {} but the file has {}", encode_hex(computed), encode_hex(expected)))
    }
}
