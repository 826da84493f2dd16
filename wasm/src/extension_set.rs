//! The `ExtensionSet` of a challenge
//! (draft-ietf-privacypass-auth-scheme-extensions-03 §4): the extension
//! types an origin asks for, each required or optional. A parsed
//! `WWW-Authenticate` challenge hands over the set's encoding
//! ([`crate::auth::ChallengeHeader`]); these functions read it into its
//! required and optional types, and write a new one. And the check of an
//! encoded Extensions list, which `core.js` encodes and reads.

use pat::Decode;
use pat::wire::extension_set::{ExtensionEntry, ExtensionSet, ExtensionSetWriter, extension_set_len};
use wasm_bindgen::prelude::*;

use crate::error::js;

/// The types of an ExtensionSet, required and optional, each in the order
/// of the set.
#[wasm_bindgen(getter_with_clone)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtensionSetParts {
    /// The types whose entry says `is_required`.
    pub required: Vec<u16>,
    /// The other types.
    pub optional: Vec<u16>,
}

/// The types of an encoded ExtensionSet; a truncated set, one that is not a
/// whole number of 3-byte entries, an `is_required` byte other than 0 or 1
/// and trailing bytes are errors.
pub fn parts(bytes: &[u8]) -> pat::Result<ExtensionSetParts> {
    let set = ExtensionSet::decode(bytes)?;
    let required = set.required().collect();
    let optional = set.iter().filter(|e| !e.required).map(|e| e.extension_type).collect();
    Ok(ExtensionSetParts { required, optional })
}

/// The encoding of an ExtensionSet listing `required` (as required), then
/// `optional`.
pub fn build(required: &[u16], optional: &[u16]) -> pat::Result<Vec<u8>> {
    let mut out = vec![0u8; extension_set_len(required.len().saturating_add(optional.len()))];
    let mut w = ExtensionSetWriter::new(&mut out);
    for &t in required {
        w.push(ExtensionEntry::required(t))?;
    }
    for &t in optional {
        w.push(ExtensionEntry::optional(t))?;
    }
    let n = w.finish()?.as_bytes().len();
    out.truncate(n);
    Ok(out)
}

/// Checks an encoded Extensions list (the metadata of type 0xDA7A, the
/// `extensions` parameters): its length prefix, whole entries, the order
/// of the types (`UnsortedExtensions`), no trailing bytes.
#[wasm_bindgen(js_name = checkExtensions)]
pub fn check_extensions(bytes: &[u8]) -> Result<(), JsValue> {
    pat::wire::extensions::Extensions::decode(bytes).map(|_| ()).map_err(js)
}

/// [`parts`], for JavaScript.
#[wasm_bindgen(js_name = decodeExtensionSet)]
pub fn decode_extension_set(bytes: &[u8]) -> Result<ExtensionSetParts, JsValue> {
    parts(bytes).map_err(js)
}

/// [`build`], for JavaScript.
#[wasm_bindgen(js_name = encodeExtensionSet)]
pub fn encode_extension_set(required: &[u16], optional: &[u16]) -> Result<Vec<u8>, JsValue> {
    build(required, optional).map_err(js)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pat::{Error, Field};

    #[test]
    fn round_trip() {
        let bytes = build(&[2, 0xda7a], &[1]).unwrap();
        assert_eq!(bytes, [0, 9, 1, 0, 2, 1, 0xda, 0x7a, 0, 0, 1]);
        assert_eq!(parts(&bytes).unwrap(), ExtensionSetParts { required: vec![2, 0xda7a], optional: vec![1] });
        let empty = build(&[], &[]).unwrap();
        assert_eq!(empty, [0, 0]);
        assert_eq!(parts(&empty).unwrap(), ExtensionSetParts { required: vec![], optional: vec![] });
    }

    #[test]
    fn structure_is_checked() {
        assert_eq!(parts(&[0, 3, 1, 0]), Err(Error::Truncated));
        assert_eq!(parts(&[0, 2, 1, 0]), Err(Error::InvalidLength(Field::ExtensionSet)));
        assert_eq!(parts(&[0, 3, 2, 0, 1]), Err(Error::InvalidValue(Field::ExtensionSet)));
        assert_eq!(parts(&[0, 0, 0]), Err(Error::TrailingBytes));
        let too_many = vec![1u16; 21_846];
        assert_eq!(build(&too_many, &[]), Err(Error::InvalidLength(Field::ExtensionSet)));
    }
}
