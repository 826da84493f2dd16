//! TokenChallenge (RFC 9577 §2.1.1): decoding a received challenge into its
//! fields, and encoding a new one.
//!
//! A decoded challenge keeps its names as the bytes received (the library is
//! strict on structure, liberal on content: any issuer name of 1 to 65535
//! bytes, any origin_info); the token binds SHA-256 of exactly those bytes,
//! so the JavaScript side keeps the encoding it was given and passes it back
//! unchanged. A new challenge is written with the library's conservative
//! syntax (`TokenChallenge::new`: printable ASCII names, non-empty origin
//! names).

use pat::{Decode, TokenChallenge};
use wasm_bindgen::prelude::*;

use crate::encode;
use crate::error::js;

/// The fields of a TokenChallenge.
#[wasm_bindgen(getter_with_clone)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChallengeParts {
    /// `token_type`.
    #[wasm_bindgen(js_name = tokenType)]
    pub token_type: u16,
    /// `issuer_name`, the bytes as received.
    #[wasm_bindgen(js_name = issuerName)]
    pub issuer_name: Vec<u8>,
    /// `redemption_context`: empty or 32 bytes.
    #[wasm_bindgen(js_name = redemptionContext)]
    pub redemption_context: Vec<u8>,
    /// `origin_info`, the bytes as received (a comma-separated list of names).
    #[wasm_bindgen(js_name = originInfo)]
    pub origin_info: Vec<u8>,
}

/// The fields of an encoded TokenChallenge; trailing bytes, a truncated
/// field or a length outside RFC 9577's bounds are errors.
pub fn parts(bytes: &[u8]) -> pat::Result<ChallengeParts> {
    let c = TokenChallenge::decode(bytes)?;
    Ok(ChallengeParts {
        token_type: c.token_type(),
        issuer_name: c.issuer_name().to_vec(),
        redemption_context: c.redemption_context().to_vec(),
        origin_info: c.origin_info().to_vec(),
    })
}

/// The encoding of a new TokenChallenge (`TokenChallenge::new`).
pub fn build(
    token_type: u16,
    issuer_name: &[u8],
    redemption_context: &[u8],
    origin_info: &[u8],
) -> pat::Result<Vec<u8>> {
    encode(&TokenChallenge::new(token_type, issuer_name, redemption_context, origin_info)?)
}

/// [`parts`], for JavaScript.
#[wasm_bindgen(js_name = decodeChallenge)]
pub fn decode_challenge(bytes: &[u8]) -> Result<ChallengeParts, JsValue> {
    parts(bytes).map_err(js)
}

/// [`build`], for JavaScript.
#[wasm_bindgen(js_name = encodeChallenge)]
pub fn encode_challenge(
    token_type: u16,
    issuer_name: &[u8],
    redemption_context: &[u8],
    origin_info: &[u8],
) -> Result<Vec<u8>, JsValue> {
    build(token_type, issuer_name, redemption_context, origin_info).map_err(js)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pat::{Error, Field};

    #[test]
    fn round_trip() {
        let ctx = [7u8; 32];
        let bytes = build(1, b"issuer.example", &ctx, b"a.example,b.example").unwrap();
        let p = parts(&bytes).unwrap();
        assert_eq!(p.token_type, 1);
        assert_eq!(p.issuer_name, b"issuer.example");
        assert_eq!(p.redemption_context, ctx);
        assert_eq!(p.origin_info, b"a.example,b.example");
    }

    #[test]
    fn structure_is_checked_content_is_not() {
        let bytes = build(2, b"i", &[], &[]).unwrap();
        let mut long = bytes.clone();
        long.push(0);
        assert_eq!(parts(&long), Err(Error::TrailingBytes));
        assert_eq!(parts(&bytes[..bytes.len() - 1]), Err(Error::Truncated));
        assert_eq!(build(2, b"i", &[1; 5], &[]), Err(Error::InvalidLength(Field::RedemptionContext)));
        // A received name in UTF-8 is kept as it is; a new one must be printable ASCII.
        let utf8 = [0, 2, 0, 2, 0xc3, 0xa9, 0, 0, 0];
        assert_eq!(parts(&utf8).unwrap().issuer_name, [0xc3, 0xa9]);
        assert_eq!(build(2, "é".as_bytes(), &[], &[]), Err(Error::InvalidValue(Field::IssuerName)));
    }
}
