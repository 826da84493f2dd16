//! The issuer directory (RFC 9578 §4): parsing the JSON document an issuer
//! publishes at `/.well-known/private-token-issuer-directory`, and choosing
//! a key from it (`IssuerDirectory::select` of the library: the key a
//! challenge names, or the newest whose `not-before` has passed).

use pat::deploy::directory::{DirectoryKey, IssuerDirectory as Parsed, MAX_TOKEN_KEY_LEN};
use pat::wire::token_type::KEY_ID_LEN;
use pat::{Error, Field};
use wasm_bindgen::prelude::*;

use crate::error::js;

/// The most keys a directory may list here; more is `CapacityExceeded`.
pub const CAPACITY: usize = 64;

/// One key of a directory.
#[wasm_bindgen(getter_with_clone)]
#[derive(Clone, Debug, PartialEq)]
pub struct DirectoryEntry {
    /// `token-type`.
    #[wasm_bindgen(js_name = tokenType)]
    pub token_type: u16,
    /// `token-key` as listed (base64url).
    #[wasm_bindgen(js_name = tokenKeyBase64)]
    pub token_key_base64: String,
    /// `token-key` decoded; absent if it is not base64url (a key of a type
    /// this client does not know may be listed in another format).
    #[wasm_bindgen(js_name = tokenKey)]
    pub token_key: Option<Vec<u8>>,
    /// SHA-256 of the decoded key (RFC 9578 `token_key_id`), when it decodes.
    #[wasm_bindgen(js_name = keyId)]
    pub key_id: Option<Vec<u8>>,
    /// `not-before`, in UNIX seconds (a JavaScript number: exact up to 2^53).
    #[wasm_bindgen(js_name = notBefore)]
    pub not_before: Option<f64>,
}

impl DirectoryEntry {
    fn of(key: &DirectoryKey<'_>) -> Self {
        let mut buf = vec![0u8; MAX_TOKEN_KEY_LEN];
        let token_key = key.decode_token_key(&mut buf).ok().map(<[u8]>::to_vec);
        Self {
            token_type: key.token_type(),
            token_key_base64: key.token_key_base64().to_owned(),
            token_key,
            key_id: key.key_id().ok().map(|id| id.to_vec()),
            // Seconds since 1970 as a float: exact below 2^53, the nearest
            // value above.
            #[allow(clippy::cast_precision_loss)]
            not_before: key.not_before().map(|t| t as f64),
        }
    }
}

/// A parsed issuer directory.
#[wasm_bindgen]
#[derive(Clone, Debug)]
pub struct IssuerDirectory {
    json: Vec<u8>,
    issuer_request_uri: String,
    keys: Vec<DirectoryEntry>,
}

/// Runs `f` on the directory parsed from `json`.
fn with_parsed<T>(json: &[u8], f: impl FnOnce(&Parsed<'_, CAPACITY>) -> pat::Result<T>) -> pat::Result<T> {
    // Strings with JSON escapes are unescaped into this; never longer than the input.
    let mut scratch = vec![0u8; json.len()];
    f(&Parsed::parse(json, &mut scratch)?)
}

/// `now`, in seconds as a JavaScript number, as whole seconds: negative or
/// NaN is 0, beyond `u64::MAX` is `u64::MAX`, fractions are dropped.
fn whole_seconds(now: f64) -> u64 {
    // `as` from a float saturates and maps NaN to 0: exactly the rule above.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let secs = now as u64;
    secs
}

impl IssuerDirectory {
    /// Parses a directory document (see `pat::deploy::directory` for what it accepts).
    pub fn from_json(json: &[u8]) -> pat::Result<Self> {
        let (issuer_request_uri, keys) = with_parsed(json, |d| {
            Ok((d.issuer_request_uri().to_owned(), d.keys().iter().map(DirectoryEntry::of).collect()))
        })?;
        Ok(Self { json: json.to_vec(), issuer_request_uri, keys })
    }

    /// The library's key choice: `token_type`, and `key_id` if given (32
    /// bytes), among the keys whose `not-before` is at most `now`.
    pub fn choose(&self, token_type: u16, key_id: Option<&[u8]>, now: u64) -> pat::Result<DirectoryEntry> {
        let key_id = key_id
            .map(|id| <&[u8; KEY_ID_LEN]>::try_from(id).map_err(|_| Error::InvalidLength(Field::Key)))
            .transpose()?;
        with_parsed(&self.json, |d| d.select(token_type, key_id, now).map(DirectoryEntry::of))
    }
}

#[wasm_bindgen]
impl IssuerDirectory {
    /// [`IssuerDirectory::from_json`], for JavaScript (the document's UTF-8 bytes).
    pub fn parse(json: &[u8]) -> Result<IssuerDirectory, JsValue> {
        Self::from_json(json).map_err(js)
    }

    /// `issuer-request-uri`.
    #[wasm_bindgen(getter, js_name = issuerRequestUri)]
    pub fn issuer_request_uri(&self) -> String {
        self.issuer_request_uri.clone()
    }

    /// `token-keys`, in the order listed.
    #[wasm_bindgen(getter, js_name = tokenKeys)]
    pub fn token_keys(&self) -> Vec<DirectoryEntry> {
        self.keys.clone()
    }

    /// [`IssuerDirectory::choose`], for JavaScript; `now` in UNIX seconds.
    pub fn select(&self, token_type: u16, key_id: Option<Vec<u8>>, now: f64) -> Result<DirectoryEntry, JsValue> {
        self.choose(token_type, key_id.as_deref(), whole_seconds(now)).map_err(js)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = r#"{"issuer-request-uri": "https://issuer.example/request",
        "token-keys": [{"token-type": 2, "token-key": "AAEC", "not-before": 100},
                       {"token-type": 2, "token-key": "AwQF", "not-before": 200},
                       {"token-type": 9, "token-key": "not base64!"}]}"#;

    #[test]
    fn keys_and_choice() {
        let d = IssuerDirectory::from_json(DOC.as_bytes()).unwrap();
        assert_eq!(d.issuer_request_uri, "https://issuer.example/request");
        assert_eq!(d.keys.len(), 3);
        assert_eq!(d.keys[0].token_key, Some(vec![0, 1, 2]));
        assert_eq!(d.keys[1].not_before, Some(200.0));
        assert_eq!(d.keys[2].token_key, None);
        // The newest key in force; before 200 the older one; before 100 none.
        assert_eq!(d.choose(2, None, 300).unwrap().token_key, Some(vec![3, 4, 5]));
        assert_eq!(d.choose(2, None, 150).unwrap().token_key, Some(vec![0, 1, 2]));
        assert_eq!(d.choose(2, None, 50), Err(Error::KeyNotYetValid));
        assert_eq!(d.choose(1, None, 300), Err(Error::NoMatchingKey));
        // By key id: the older key, though a newer one exists.
        let id = d.keys[0].key_id.clone().unwrap();
        assert_eq!(d.choose(2, Some(&id), 300).unwrap().token_key, Some(vec![0, 1, 2]));
        assert_eq!(d.choose(2, Some(&id[1..]), 300), Err(Error::InvalidLength(Field::Key)));
    }

    #[test]
    fn malformed_documents() {
        assert_eq!(IssuerDirectory::from_json(b"{").err(), Some(Error::Truncated));
        assert_eq!(
            IssuerDirectory::from_json(br#"{"token-keys": []}"#).err(),
            Some(Error::MissingParameter(Field::IssuerRequestUri))
        );
    }

    #[test]
    fn seconds() {
        assert_eq!(whole_seconds(f64::NAN), 0);
        assert_eq!(whole_seconds(-5.0), 0);
        assert_eq!(whole_seconds(1.9), 1);
        assert_eq!(whole_seconds(1e30), u64::MAX);
    }
}
