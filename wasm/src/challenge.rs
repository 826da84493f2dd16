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
//!
//! A challenge of type 0xE5AC (ARC, draft-ietf-privacypass-arc-protocol-01
//! §6) or 0xE5AD (ACT, draft-schlesinger-privacypass-act-01 §5.1) has one
//! more field, `credential_context` (empty or 32 bytes): both directions
//! dispatch on the type.

use pat::tokens::act::{ActChallenge, TOKEN_TYPE as ACT};
use pat::tokens::arc::{ArcChallenge, TOKEN_TYPE as ARC};
use pat::{Decode, Error, Field, TokenChallenge};
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
    /// `credential_context` (empty or 32 bytes) of a type-0xE5AC or 0xE5AD
    /// challenge; absent for every other type, whose challenges have no
    /// such field.
    #[wasm_bindgen(js_name = credentialContext)]
    pub credential_context: Option<Vec<u8>>,
}

/// An encoded TokenChallenge decoded, with its `credential_context` when
/// its type has one (types 0xE5AC and 0xE5AD), borrowed from `bytes`.
pub fn decode_any(bytes: &[u8]) -> pat::Result<(TokenChallenge<'_>, Option<&[u8]>)> {
    if bytes.starts_with(&ARC.to_be_bytes()) {
        let c = ArcChallenge::decode(bytes)?;
        Ok((*c.challenge(), Some(c.credential_context())))
    } else if bytes.starts_with(&ACT.to_be_bytes()) {
        let c = ActChallenge::decode(bytes)?;
        Ok((*c.challenge(), Some(c.credential_context())))
    } else {
        Ok((TokenChallenge::decode(bytes)?, None))
    }
}

/// The fields of an encoded TokenChallenge; trailing bytes, a truncated
/// field or a length outside RFC 9577's bounds are errors. A type-0xE5AC
/// or 0xE5AD challenge is read with its `credential_context`.
pub fn parts(bytes: &[u8]) -> pat::Result<ChallengeParts> {
    let (c, credential_context) = decode_any(bytes)?;
    let credential_context = credential_context.map(<[u8]>::to_vec);
    Ok(ChallengeParts {
        token_type: c.token_type(),
        issuer_name: c.issuer_name().to_vec(),
        redemption_context: c.redemption_context().to_vec(),
        origin_info: c.origin_info().to_vec(),
        credential_context,
    })
}

/// Checks that `bytes` is one TokenChallenge (of type 0xE5AC or 0xE5AD
/// with its `credential_context`), without copying its fields.
pub fn check(bytes: &[u8]) -> pat::Result<()> {
    decode_any(bytes).map(|_| ())
}

/// The encoding of a new TokenChallenge (`TokenChallenge::new`).
pub fn build(
    token_type: u16,
    issuer_name: &[u8],
    redemption_context: &[u8],
    origin_info: &[u8],
) -> pat::Result<Vec<u8>> {
    build_with(token_type, issuer_name, redemption_context, origin_info, None)
}

/// [`build`] with a `credential_context`, which types 0xE5AC and 0xE5AD
/// have (empty when `None`) and every other type refuses
/// (`InvalidValue(CredentialContext)`).
pub fn build_with(
    token_type: u16,
    issuer_name: &[u8],
    redemption_context: &[u8],
    origin_info: &[u8],
    credential_context: Option<&[u8]>,
) -> pat::Result<Vec<u8>> {
    if token_type == ARC {
        let c =
            ArcChallenge::new(issuer_name, redemption_context, origin_info, credential_context.unwrap_or_default())?;
        return encode(&c);
    }
    if token_type == ACT {
        let c =
            ActChallenge::new(issuer_name, redemption_context, origin_info, credential_context.unwrap_or_default())?;
        return encode(&c);
    }
    if credential_context.is_some() {
        return Err(Error::InvalidValue(Field::CredentialContext));
    }
    encode(&TokenChallenge::new(token_type, issuer_name, redemption_context, origin_info)?)
}

/// [`parts`], for JavaScript.
#[wasm_bindgen(js_name = decodeChallenge)]
pub fn decode_challenge(bytes: &[u8]) -> Result<ChallengeParts, JsValue> {
    parts(bytes).map_err(js)
}

/// [`build_with`], for JavaScript (the last argument may be left out).
#[wasm_bindgen(js_name = encodeChallenge)]
pub fn encode_challenge(
    token_type: u16,
    issuer_name: &[u8],
    redemption_context: &[u8],
    origin_info: &[u8],
    credential_context: Option<Vec<u8>>,
) -> Result<Vec<u8>, JsValue> {
    build_with(token_type, issuer_name, redemption_context, origin_info, credential_context.as_deref()).map_err(js)
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn arc_challenges_carry_the_credential_context() {
        let cc = [9u8; 32];
        for credential_context in [None, Some(&[][..]), Some(&cc[..])] {
            let bytes = build_with(ARC, b"issuer.example", &[1; 32], b"origin.example", credential_context).unwrap();
            let p = parts(&bytes).unwrap();
            assert_eq!(p.token_type, ARC);
            assert_eq!(p.credential_context.as_deref(), Some(credential_context.unwrap_or_default()));
            assert_eq!(p.redemption_context, [1; 32]);
            check(&bytes).unwrap();
            // Truncated and trailing bytes, as for every other type.
            assert_eq!(parts(&bytes[..bytes.len() - 1]), Err(Error::Truncated));
            let mut long = bytes.clone();
            long.push(0);
            assert_eq!(check(&long), Err(Error::TrailingBytes));
        }
        // A credential context of another length; one on another type.
        assert_eq!(
            build_with(ARC, b"i", &[], &[], Some(&[1; 31])),
            Err(Error::InvalidLength(Field::CredentialContext))
        );
        assert_eq!(build_with(2, b"i", &[], &[], Some(&[])), Err(Error::InvalidValue(Field::CredentialContext)));
        // A type-2 challenge has no credential context; read as ARC's it is
        // one byte short (and the other way round, one byte too long).
        let plain = build(2, b"i", &[], &[]).unwrap();
        assert_eq!(parts(&plain).unwrap().credential_context, None);
        let mut as_arc = plain.clone();
        as_arc[..2].copy_from_slice(&ARC.to_be_bytes());
        assert_eq!(check(&as_arc), Err(Error::Truncated));
        let arc = build_with(ARC, b"i", &[], &[], None).unwrap();
        let mut as_plain = arc.clone();
        as_plain[..2].copy_from_slice(&2u16.to_be_bytes());
        assert_eq!(check(&as_plain), Err(Error::TrailingBytes));
    }

    #[test]
    fn act_challenges_carry_the_credential_context() {
        let cc = [3u8; 32];
        for credential_context in [None, Some(&cc[..])] {
            let bytes = build_with(ACT, b"issuer.example", &[], b"origin.example", credential_context).unwrap();
            let p = parts(&bytes).unwrap();
            assert_eq!(p.token_type, ACT);
            assert_eq!(p.credential_context.as_deref(), Some(credential_context.unwrap_or_default()));
            assert_eq!(parts(&bytes[..bytes.len() - 1]), Err(Error::Truncated));
            let mut long = bytes.clone();
            long.push(0);
            assert_eq!(check(&long), Err(Error::TrailingBytes));
        }
        assert_eq!(
            build_with(ACT, b"i", &[], &[], Some(&[1; 33])),
            Err(Error::InvalidLength(Field::CredentialContext))
        );
    }
}
