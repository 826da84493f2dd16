//! The targets of token type 0xDA7A's messages: the `Extensions` list, the
//! ExtendedTokenRequest and its response, and the `Authorization` header
//! with an `extensions` parameter. They check decode → re-encode with
//! buffers that hold the largest message (an `Extensions` list of 64 KiB).

use crate::error::{Error, Field};
use crate::tokens::metadata::{TokenRequest, TokenResponse};
use crate::wire::auth;
use crate::wire::codec::{Decode, Encode};
use crate::wire::extensions::{EXTENSIONS_MAX_LEN, Extensions, ExtensionsWriter};

/// The largest ExtendedTokenRequest: type, key id, blinded message, the
/// largest `Extensions`.
const REQUEST_MAX_LEN: usize = 2 + 1 + 256 + EXTENSIONS_MAX_LEN;

/// `Extensions`: what decodes is its own encoding, re-encodes to it,
/// iterates over entries that cover it exactly, and is rebuilt byte for
/// byte by [`ExtensionsWriter`]; what fails, fails with a structural error.
pub fn extensions(data: &[u8]) {
    let ext = match Extensions::decode(data) {
        Ok(ext) => ext,
        Err(e) => {
            assert!(
                matches!(
                    e,
                    Error::Truncated
                        | Error::TrailingBytes
                        | Error::UnsortedExtensions
                        | Error::InvalidLength(Field::Extension | Field::Extensions)
                ),
                "unexpected error {e:?}"
            );
            return;
        }
    };
    assert_eq!(ext.as_bytes(), data);
    assert_eq!(ext.encoded_len(), data.len());
    let mut out = [0u8; EXTENSIONS_MAX_LEN];
    let Some(out) = out.get_mut(..data.len()) else { panic!("a decoded list is longer than the largest") };
    assert_eq!(ext.encode(out), Ok(data.len()));
    assert_eq!(&*out, data);

    let mut buf = [0u8; EXTENSIONS_MAX_LEN];
    let mut w = ExtensionsWriter::new(&mut buf);
    let mut count = 0usize;
    let mut body = 0usize;
    let mut last = None;
    for e in ext.iter() {
        assert!(last.is_none_or(|t| t <= e.extension_type), "iteration out of order");
        if last != Some(e.extension_type) {
            assert_eq!(ext.get(e.extension_type), Some(e), "get does not find the first entry of its type");
        }
        last = Some(e.extension_type);
        assert_eq!(w.push(e.extension_type, e.data), Ok(()));
        count += 1;
        body += e.encoded_len();
    }
    assert_eq!(count, ext.len());
    assert_eq!(ext.is_empty(), count == 0);
    assert_eq!(2 + body, data.len());
    let rebuilt = w.finish();
    assert_eq!(rebuilt.map(|r| r.as_bytes() == data), Ok(true));
}

/// Type 0xDA7A requests and responses (the input's first byte picks which):
/// decode → encode is the identity, and a request's extensions are a list
/// that decodes on its own.
pub fn type_da7a_request(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else { return };
    if which & 1 == 0 {
        let Ok(req) = TokenRequest::decode(rest) else { return };
        assert_eq!(req.encoded_len(), rest.len());
        let mut out = [0u8; REQUEST_MAX_LEN];
        let Some(out) = out.get_mut(..rest.len()) else { panic!("a decoded request is longer than the largest") };
        assert_eq!(req.encode(out), Ok(rest.len()));
        assert_eq!(&*out, rest);
        let ext = req.extensions.as_bytes();
        assert_eq!(rest.get(259..), Some(ext));
        assert_eq!(Extensions::decode(ext).ok(), Some(req.extensions));
    } else {
        let Ok(resp) = TokenResponse::decode(rest) else { return };
        assert_eq!(rest.len(), 256);
        let mut out = [0u8; 256];
        assert_eq!(resp.encode(&mut out), Ok(256));
        assert_eq!(out.as_slice(), rest);
    }
}

/// `Authorization` with extensions: whatever parses agrees with
/// [`auth::parse_authorization`] on the token; when the token and the
/// extensions both decode, the header is rebuilt with
/// [`auth::write_authorization_with_extensions`] (at exactly
/// [`auth::authorization_with_extensions_len`]) and parses back to both.
pub fn authorization_extensions(data: &[u8]) {
    let Ok(header) = core::str::from_utf8(data) else { return };
    let params = match auth::parse_authorization_with_extensions(header) {
        Ok(p) => p,
        Err(e) => {
            // Only a repeated `extensions` parameter separates the two parsers.
            if let Ok(token) = auth::parse_authorization(header) {
                assert_eq!(e, Error::DuplicateParameter(Field::Extensions), "token {token:?}");
            }
            return;
        }
    };
    assert_eq!(auth::parse_authorization(header), Ok(params.token));
    let mut tbuf = [0u8; 512];
    let Ok(token) = params.token.decode_base64url(&mut tbuf) else { return };
    let mut ebuf = [0u8; EXTENSIONS_MAX_LEN];
    let Ok(ext) = params.decode_extensions(&mut ebuf) else { return };
    if params.extensions.is_none() {
        assert_eq!(ext, Extensions::EMPTY);
    }
    let len = auth::authorization_with_extensions_len(token.len(), ext.as_bytes().len());
    let mut out = [0u8; auth::authorization_with_extensions_len(512, EXTENSIONS_MAX_LEN)];
    let Some(out) = out.get_mut(..len) else { panic!("the length bound is too small") };
    let rebuilt = match auth::write_authorization_with_extensions(token, &ext, out) {
        Ok(r) => r,
        Err(e) => panic!("writing into authorization_with_extensions_len bytes failed: {e:?}"),
    };
    assert_eq!(rebuilt.len(), len);
    let again = match auth::parse_authorization_with_extensions(rebuilt) {
        Ok(a) => a,
        Err(e) => panic!("rebuilt header does not parse ({e:?}): {rebuilt}"),
    };
    let mut tbuf2 = [0u8; 512];
    assert_eq!(again.token.decode_base64url(&mut tbuf2), Ok(token));
    let mut ebuf2 = [0u8; EXTENSIONS_MAX_LEN];
    assert_eq!(again.decode_extensions(&mut ebuf2).map(|e| e.as_bytes() == ext.as_bytes()), Ok(true));
}
