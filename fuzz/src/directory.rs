//! Differential check of pat's issuer directory reader (`src/wire/json.rs`,
//! `src/deploy/directory.rs`, RFC 9578 §4 on RFC 8259) against `serde_json` 1
//! (default features: numbers as `u64`/`i64`/`f64`, recursion limit on).

use std::fmt;

use pat::deploy::directory::IssuerDirectory;
use pat::error::Error;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// The directory capacity the check parses with; a document with more keys
/// is not "of the right shape".
pub const CAPACITY: usize = 16;

/// pat's nesting limit for a skipped value (`json::MAX_DEPTH`).
pub const PAT_MAX_DEPTH: usize = 128;

/// The deepest nesting `serde_json` accepts: its recursion limit is 128 and
/// counts down on each array or object, failing when it reaches 0, so 127
/// levels pass and 128 fail.
pub const SERDE_MAX_DEPTH: usize = 127;

/// A known, explained case where pat accepts what `serde_json` refuses.
/// Each one is checked on the input itself and on serde_json's error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Divergence {
    /// The document nests arrays and objects deeper than
    /// [`SERDE_MAX_DEPTH`]. pat's limit ([`PAT_MAX_DEPTH`]) applies to each
    /// skipped unknown value, below the directory's own levels, so pat reads
    /// up to 129 levels at the top level and 131 inside a key.
    DeepNesting,
    /// A number (in a member pat skips) is beyond the range of `f64`:
    /// serde_json without `arbitrary_precision` refuses it ("number out of
    /// range"); RFC 8259 §6 allows any number, and pat keeps numbers as text.
    NumberOutOfRange,
}

/// The [`Divergence`] rules, for the corpus test's coverage check.
pub const RULES: [Divergence; 2] = [Divergence::DeepNesting, Divergence::NumberOutOfRange];

/// What [`directory_differential`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Both accept, with the same URI and keys.
    BothAccept,
    /// Neither parses it as JSON.
    BothRefuseJson,
    /// serde_json parses it as JSON but not as a directory of the right
    /// shape (the reason), and pat refuses it with a field error.
    NotADirectory(&'static str),
    /// pat accepts what serde_json refuses, for the reason given.
    PatOnly(Divergence),
}

/// Compares `IssuerDirectory::<16>::parse` with serde_json on `bytes`, and
/// panics on any difference that is not intended (the fuzz target's failure
/// signal).
///
/// - **pat accepts**: serde_json must parse `bytes` as a JSON object whose
///   `issuer-request-uri` is a string equal to pat's (both unescaped) and
///   whose `token-keys` is an array with, entry by entry, the same
///   `token-type`, `token-key` string and `not-before` as pat's keys. The
///   only exceptions are the [`Divergence`] rules, each verified on the input
///   and on serde_json's error message.
/// - **serde_json parses it as a directory of the right shape**, that is an
///   object with `issuer-request-uri` a non-empty string and `token-keys` an
///   array of at most [`CAPACITY`] objects, each with `token-type` an integer
///   in `0..=65535`, `token-key` a string and `not-before` absent, `null` or a
///   `u64`, none of these names repeated in its object: pat must accept it.
/// - **serde_json parses it as JSON of another shape**: pat must refuse it
///   with a field error (`InvalidValue`, `MissingParameter`,
///   `DuplicateParameter`, `CapacityExceeded`), never a syntax error
///   (`MalformedJson`, `Truncated`, `TrailingBytes`): what is valid JSON to
///   one is valid JSON to the other.
/// - **serde_json refuses it and pat refuses it**: nothing to compare.
///
/// serde_json is read into its own tree ([`Json`]) that keeps every member
/// of an object in order: `serde_json::Value` keeps only the last of
/// repeated names, which would hide pat's `DuplicateParameter`.
///
/// Intended differences and non-differences:
///
/// - Repeated names: pat refuses a repeated `issuer-request-uri`,
///   `token-keys`, `token-type`, `token-key` or `not-before`
///   (`DuplicateParameter`, even `"not-before": null` twice), where
///   serde_json's `Value` would silently keep the last; such a document is
///   not "of the right shape" here. Repeated unknown names are accepted by
///   both.
/// - Depth: see [`Divergence::DeepNesting`]. In the other direction there
///   is nothing to except: what serde_json accepts is at most 127 levels
///   deep, within pat's limit.
/// - Numbers: see [`Divergence::NumberOutOfRange`]. For `token-type` and
///   `not-before` both sides want a plain integer: `1e3`, `1.0` and `-0`
///   are `f64` to serde_json (not `u64`) and not digits-only to pat, so both
///   refuse them; integers above `u64::MAX` become `f64` in serde_json and
///   overflow in pat, and `-1` is an `i64`: refused by both.
/// - Surrogates: pat refuses a lone or unpaired UTF-16 surrogate in a `\u`
///   escape anywhere (keys and skipped strings included); so does
///   serde_json when it reads a string (it allows them only when asked for
///   bytes, which [`Json`] never does).
/// - Text around the value: both allow only the four RFC 8259 whitespace
///   characters; a byte-order mark, comments, trailing commas, `NaN`,
///   `Infinity`, single quotes and trailing data are refused by both.
/// - Bytes: pat checks the whole input is UTF-8 first, serde_json checks
///   strings and refuses any other non-ASCII byte as a syntax error.
pub fn directory_differential(bytes: &[u8]) -> Outcome {
    let mut scratch = vec![0u8; bytes.len()];
    let pat = IssuerDirectory::<CAPACITY>::parse(bytes, &mut scratch);
    let serde = serde_json::from_slice::<Json>(bytes);
    let text = String::from_utf8_lossy(bytes);
    match (pat, serde) {
        (Ok(dir), Ok(json)) => {
            let shape = shape(&json).unwrap_or_else(|why| panic!("pat accepts, serde_json shape: {why}: {text}"));
            assert_eq!(dir.issuer_request_uri(), shape.uri, "issuer-request-uri differs: {text}");
            let keys: Vec<Key> = dir
                .keys()
                .iter()
                .map(|k| Key {
                    token_type: k.token_type(),
                    token_key: k.token_key_base64().to_owned(),
                    not_before: k.not_before(),
                })
                .collect();
            assert_eq!(keys, shape.keys, "token-keys differ: {text}");
            Outcome::BothAccept
        }
        (Ok(_), Err(e)) => {
            let msg = e.to_string();
            if msg.starts_with("recursion limit exceeded") && depth(bytes) > SERDE_MAX_DEPTH {
                Outcome::PatOnly(Divergence::DeepNesting)
            } else if msg.starts_with("number out of range") && has_huge_number(bytes) {
                Outcome::PatOnly(Divergence::NumberOutOfRange)
            } else {
                panic!("pat accepts, serde_json refuses ({msg}): {text}")
            }
        }
        (Err(e), Ok(json)) => match shape(&json) {
            Ok(_) => panic!("serde_json reads a directory, pat refuses ({e:?}): {text}"),
            Err(why) => {
                assert!(
                    matches!(
                        e,
                        Error::InvalidValue(_)
                            | Error::MissingParameter(_)
                            | Error::DuplicateParameter(_)
                            | Error::CapacityExceeded
                    ),
                    "serde_json reads the JSON ({why}), pat calls it malformed ({e:?}): {text}"
                );
                Outcome::NotADirectory(why)
            }
        },
        (Err(_), Err(_)) => Outcome::BothRefuseJson,
    }
}

/// A JSON value as serde_json reads it, keeping repeated object members.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A non-negative integer that fits a `u64`.
    U64(u64),
    /// A negative integer that fits an `i64`.
    I64(i64),
    /// Any other number (fraction, exponent, `-0`, out of integer range).
    F64(f64),
    /// A string, unescaped.
    Str(String),
    /// An array.
    Array(Vec<Json>),
    /// An object's members in order, repeated names included.
    Object(Vec<(String, Json)>),
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Json, E> {
        Ok(Json::U64(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Json, E> {
        Ok(u64::try_from(v).map_or(Json::I64(v), Json::U64))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Json, E> {
        Ok(Json::F64(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Json, E> {
        Ok(Json::Str(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Json, E> {
        Ok(Json::Str(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut members = Vec::new();
        while let Some((name, value)) = map.next_entry::<String, Json>()? {
            members.push((name, value));
        }
        Ok(Json::Object(members))
    }
}

/// One `token-keys` entry, as both sides report it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Key {
    token_type: u16,
    token_key: String,
    not_before: Option<u64>,
}

/// A directory of the right shape, read from serde_json's tree.
struct Shape {
    uri: String,
    keys: Vec<Key>,
}

/// The one member named `name`: `Ok(None)` if absent, `Err` if repeated.
fn member<'j>(members: &'j [(String, Json)], name: &str) -> Result<Option<&'j Json>, ()> {
    let mut found = members.iter().filter(|(n, _)| n == name).map(|(_, v)| v);
    let first = found.next();
    if found.next().is_some() { Err(()) } else { Ok(first) }
}

fn shape(json: &Json) -> Result<Shape, &'static str> {
    let Json::Object(top) = json else { return Err("not an object") };
    let uri = match member(top, "issuer-request-uri").map_err(|()| "repeated issuer-request-uri")? {
        Some(Json::Str(s)) if !s.is_empty() => s.clone(),
        Some(_) => return Err("issuer-request-uri not a non-empty string"),
        None => return Err("no issuer-request-uri"),
    };
    let list = match member(top, "token-keys").map_err(|()| "repeated token-keys")? {
        Some(Json::Array(list)) => list,
        Some(_) => return Err("token-keys not an array"),
        None => return Err("no token-keys"),
    };
    if list.len() > CAPACITY {
        return Err("more keys than the capacity");
    }
    let mut keys = Vec::new();
    for entry in list {
        let Json::Object(fields) = entry else { return Err("a token-keys entry is not an object") };
        let token_type = match member(fields, "token-type").map_err(|()| "repeated token-type")? {
            Some(Json::U64(v)) => u16::try_from(*v).map_err(|_| "token-type above 65535")?,
            Some(_) => return Err("token-type not an integer"),
            None => return Err("no token-type"),
        };
        let token_key = match member(fields, "token-key").map_err(|()| "repeated token-key")? {
            Some(Json::Str(s)) => s.clone(),
            Some(_) => return Err("token-key not a string"),
            None => return Err("no token-key"),
        };
        let not_before = match member(fields, "not-before").map_err(|()| "repeated not-before")? {
            Some(Json::U64(v)) => Some(*v),
            Some(Json::Null) | None => None,
            Some(_) => return Err("not-before not a u64 or null"),
        };
        keys.push(Key { token_type, token_key, not_before });
    }
    Ok(Shape { uri, keys })
}

/// Calls `f` on each byte outside JSON strings (with the nesting so far),
/// for input pat has checked to be valid JSON.
fn outside_strings(bytes: &[u8], mut f: impl FnMut(usize, u8)) {
    let (mut in_string, mut escaped) = (false, false);
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
        } else if b == b'"' {
            in_string = true;
        } else {
            f(i, b);
        }
    }
}

/// The deepest nesting of arrays and objects in valid JSON.
fn depth(bytes: &[u8]) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    outside_strings(bytes, |_, b| match b {
        b'[' | b'{' => {
            depth += 1;
            max = max.max(depth);
        }
        b']' | b'}' => depth = depth.saturating_sub(1),
        _ => {}
    });
    max
}

/// Whether valid JSON holds a number at or beyond the edge of the `f64`
/// range (serde_json's own conversion may round up to infinity there).
fn has_huge_number(bytes: &[u8]) -> bool {
    let mut numbers: Vec<(usize, usize)> = Vec::new();
    outside_strings(bytes, |i, b| {
        if matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
            match numbers.last_mut() {
                Some((_, end)) if *end == i => *end = i + 1,
                _ => numbers.push((i, i + 1)),
            }
        }
    });
    numbers.iter().any(|&(start, end)| {
        std::str::from_utf8(&bytes[start..end])
            .ok()
            .and_then(|s| s.parse::<f64>().ok())
            .is_some_and(|v| v.abs() >= 1e308)
    })
}
