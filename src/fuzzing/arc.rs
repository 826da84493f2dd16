//! The targets of ARC (token type 0xE5AC): the challenge, the credential
//! request and response, the presentation and the token under a limit the
//! input's first byte picks, and the exported client states and server keys.
//! What decodes re-encodes to the same bytes; what fails, fails with the
//! structural or group error its decoder documents.

use super::reencodes_to;
use crate::crypto::arc::messages::{PRESENTATION_MAX_LEN, presentation_len};
use crate::crypto::arc::{
    Credential, CredentialRequest, CredentialRequestState, CredentialResponse, PresentationRef, PresentationState,
    ServerPrivateKey, ServerPublicKey,
};
use crate::error::{Error, Field};
use crate::tokens::arc::{
    ArcChallenge, ArcToken, REQUEST_LEN, TOKEN_HEADER_LEN, TOKEN_MAX_LEN, TOKEN_TYPE, TokenRequest, token_len,
};
use crate::wire::challenge::TokenChallenge;
use crate::wire::codec::Decode;

/// The presentation limit a selector byte picks: 0..=63 (0 and 1 are
/// refused), 2^32 (the largest) and 2^32 + 1 (refused).
pub(super) fn limit_of(selector: u8) -> u64 {
    match selector {
        0xFE => 1 << 32,
        0xFF => (1 << 32) + 1,
        b => u64::from(b & 0x3F),
    }
}

fn valid_limit(limit: u64) -> bool {
    (2..=1 << 32).contains(&limit)
}

/// `ArcChallenge`: decode → encode is the identity; the RFC 9577 part is a
/// `TokenChallenge` of type 0xE5AC on its own, followed by the
/// `credential_context` (0 or 32 bytes); refusals are structural.
pub fn arc_challenge(data: &[u8]) {
    let c = match ArcChallenge::decode(data) {
        Ok(c) => c,
        Err(e) => {
            assert!(
                matches!(
                    e,
                    Error::Truncated
                        | Error::TrailingBytes
                        | Error::WrongTokenType { expected: TOKEN_TYPE, .. }
                        | Error::InvalidLength(
                            Field::IssuerName | Field::RedemptionContext | Field::OriginInfo | Field::CredentialContext
                        )
                ),
                "unexpected error {e:?}"
            );
            return;
        }
    };
    reencodes_to(&c, data);
    let cc = c.credential_context();
    assert!(cc.is_empty() || cc.len() == 32);
    let inner_len = data.len() - 1 - cc.len();
    let inner = data.get(..inner_len).map(TokenChallenge::decode);
    assert_eq!(inner, Some(Ok(*c.challenge())));
    assert_eq!(c.challenge().token_type(), TOKEN_TYPE);
    assert_eq!(data.get(inner_len).map(|&n| usize::from(n)), Some(cc.len()));
    assert_eq!(data.get(inner_len + 1..), Some(cc));
}

/// `CredentialRequest` of type 0xE5AC: decode → encode is the identity, and
/// the ARC request inside decodes alone to the same value.
pub fn arc_token_request(data: &[u8]) {
    let req = match TokenRequest::decode(data) {
        Ok(r) => r,
        Err(e) => {
            assert!(
                matches!(
                    e,
                    Error::Truncated
                        | Error::TrailingBytes
                        | Error::InvalidElement
                        | Error::WrongTokenType { expected: TOKEN_TYPE, .. }
                ),
                "unexpected error {e:?}"
            );
            return;
        }
    };
    assert_eq!(data.len(), REQUEST_LEN);
    reencodes_to(&req, data);
    assert_eq!(data.get(2), Some(&req.truncated_key_id));
    let inner = data.get(3..).unwrap_or_default();
    assert_eq!(CredentialRequest::decode(inner).as_ref(), Ok(&req.request));
    assert_eq!(&req.request.to_bytes()[..], inner);
}

/// `CredentialResponse`: decode → encode is the identity.
pub fn arc_credential_response(data: &[u8]) {
    match CredentialResponse::decode(data) {
        Ok(resp) => assert_eq!(&resp.to_bytes()[..], data),
        Err(e) => assert!(
            matches!(e, Error::Truncated | Error::TrailingBytes | Error::InvalidElement),
            "unexpected error {e:?}"
        ),
    }
}

/// The key [`arc_presentation`] verifies with (fixed, nonzero scalars).
fn fixed_key() -> ServerPrivateKey {
    let mut bytes = [0u8; ServerPrivateKey::LEN];
    for (b, v) in bytes.iter_mut().zip((1u8..=32).cycle()) {
        *b = v;
    }
    match ServerPrivateKey::from_bytes(&bytes) {
        Ok(k) => k,
        Err(e) => panic!("fixed key refused: {e:?}"),
    }
}

/// A presentation (first byte: the limit, as `limit_of` maps it): an invalid limit
/// is refused before the bytes are read; a presentation that decodes has
/// exactly [`presentation_len`] bytes, which its fields rebuild; verifying
/// it with an unrelated key (when bit 6 of the first byte is set) fails
/// without panicking.
pub fn arc_presentation(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else { return };
    let limit = limit_of(which);
    let p = match PresentationRef::decode(rest, limit) {
        Ok(p) => p,
        Err(e) => {
            if valid_limit(limit) {
                assert!(
                    matches!(e, Error::Truncated | Error::TrailingBytes | Error::InvalidElement),
                    "unexpected error {e:?}"
                );
            } else {
                assert_eq!(e, Error::InvalidValue(Field::PresentationLimit));
            }
            return;
        }
    };
    assert!(valid_limit(limit));
    assert_eq!(presentation_len(limit), Ok(rest.len()));
    let mut out = [0u8; PRESENTATION_MAX_LEN];
    let mut at = 0;
    for part in
        [&p.u.bytes[..], &p.u_prime_commit.bytes, &p.m1_commit.bytes, &p.tag.bytes, &p.nonce_commit.bytes, p.d, p.proof]
    {
        let Some(dst) = out.get_mut(at..at + part.len()) else { panic!("a presentation longer than the largest") };
        dst.copy_from_slice(part);
        at += part.len();
    }
    assert_eq!(out.get(..at), Some(rest));
    assert_eq!(rest.get(99..132), Some(&p.tag()[..]));
    // When the selector's bit 6 asks, and for small limits only: the check
    // costs k + 10 multiplications, a hundred times the decoding.
    if which & 0x40 != 0 && limit <= 16 {
        let verified = fixed_key().verify_presentation(&[b"fuzz"], &[b"fuzz"], &p, limit);
        assert_eq!(verified, Err(Error::Verification));
    }
}

/// A token (first byte: the limit, as `limit_of` maps it): decode → encode is the
/// identity at exactly [`token_len`] bytes; its presentation then fails to
/// decode only for a bad element.
pub fn arc_token(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else { return };
    let limit = limit_of(which);
    let token = match ArcToken::decode(rest, limit) {
        Ok(t) => t,
        Err(e) => {
            if valid_limit(limit) {
                assert!(
                    matches!(
                        e,
                        Error::Truncated | Error::TrailingBytes | Error::WrongTokenType { expected: TOKEN_TYPE, .. }
                    ),
                    "unexpected error {e:?}"
                );
            } else {
                assert_eq!(e, Error::InvalidValue(Field::PresentationLimit));
            }
            return;
        }
    };
    assert_eq!(token_len(limit), Ok(rest.len()));
    assert_eq!(token.presentation.len() + TOKEN_HEADER_LEN, rest.len());
    let mut out = [0u8; TOKEN_MAX_LEN];
    assert_eq!(token.encode(&mut out), Ok(rest.len()));
    assert_eq!(out.get(..rest.len()), Some(rest));
    if let Err(e) = PresentationRef::decode(token.presentation, limit) {
        assert_eq!(e, Error::InvalidElement);
    }
}

/// The exported states and the server keys (first byte: which):
/// `CredentialRequestState`, `Credential` and `PresentationState` imports,
/// `ServerPublicKey::decode` and `ServerPrivateKey::from_bytes`. What is
/// read exports to the same bytes; a presentation state's nonce is at most
/// its limit, which is a valid limit.
pub fn arc_state(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else { return };
    let state_error = |e: Error| {
        assert!(
            matches!(e, Error::InvalidLength(Field::State) | Error::InvalidScalar | Error::InvalidElement),
            "unexpected error {e:?}"
        );
    };
    match which % 5 {
        0 => match CredentialRequestState::import(rest) {
            Ok(s) => assert_eq!(&s.export()[..], rest),
            Err(e) => state_error(e),
        },
        1 => match Credential::import(rest) {
            Ok(c) => {
                assert_eq!(&c.export()[..], rest);
                assert_eq!(rest.get(32..65), Some(&c.u()[..]));
                assert_eq!(rest.get(65..98), Some(&c.u_prime()[..]));
            }
            Err(e) => state_error(e),
        },
        2 => match PresentationState::import(rest) {
            Ok(s) => {
                assert_eq!(&s.export()[..], rest);
                assert!(valid_limit(s.limit()));
                let next = rest.get(164..172).and_then(|b| <[u8; 8]>::try_from(b).ok()).map(u64::from_be_bytes);
                assert_eq!(next.map(|n| s.limit() - n), Some(s.remaining()));
            }
            Err(Error::InvalidValue(Field::State)) => {}
            Err(e) => state_error(e),
        },
        3 => match ServerPublicKey::decode(rest) {
            Ok(pk) => assert_eq!(&pk.to_bytes()[..], rest),
            Err(e) => assert!(
                matches!(e, Error::Truncated | Error::TrailingBytes | Error::InvalidElement),
                "unexpected error {e:?}"
            ),
        },
        _ => match ServerPrivateKey::from_bytes(rest) {
            Ok(sk) => {
                assert_eq!(&sk.to_bytes()[..], rest);
                let pk = sk.public_key().to_bytes();
                assert_eq!(ServerPublicKey::decode(&pk).as_ref(), Ok(sk.public_key()));
            }
            Err(e) => {
                assert!(matches!(e, Error::InvalidLength(Field::Key) | Error::InvalidKey), "unexpected error {e:?}")
            }
        },
    }
}
