//! Type 0xE5AC (ARC(P-256), anonymous rate-limited credentials,
//! draft-ietf-privacypass-arc-protocol-01): privately verifiable, the
//! issuer and the origin are one party (§4), and issuance gives a
//! credential, from which the client makes up to the origin's
//! presentation limit of unlinkable tokens per presentation context.
//!
//! - Key file: `type58796-<id>.key`, the 128-byte ServerPrivateKey
//!   (x0 ‖ x1 ‖ x2 ‖ x0Blinding, draft-ietf-privacypass-arc-crypto-01 §4.1)
//!   in hex, made on first start. The directory publishes its 99-byte
//!   ServerPublicKey as the token key (`token-type` 58796): the draft's
//!   Token Key Encoding (§5, §10.1); the key id is SHA-256 of it.
//! - Issuance (§7): a CredentialRequest posted as
//!   `application/private-credential-request`, answered with a
//!   CredentialResponse as `application/private-credential-response`
//!   ([`crate::media`]). Every refusal of a request is 422 (§7.2): a body
//!   of the wrong size, a truncated key id no key has, a request that does
//!   not deserialize or whose proof fails. A CredentialRequest posted as a
//!   TokenRequest is 422 too (the type is not served as a token).
//! - Redemption (§8): the origin's challenge (a TokenChallenge with a
//!   `credential_context`, empty here) carries the presentation limit in
//!   its `rate-limit` parameter; a token is `PrivateToken token="…"` and
//!   its length follows from the limit. A token that verifies is spent
//!   under SHA-256 of its presentation tag ([`arc::tag_id`]): the tag, not
//!   the unverified `presentation_nonce`, is what repeats when a
//!   presentation is replayed (§8.2), and the same store (memory or Redis)
//!   keeps it as it keeps the other types' nonces.
//! - Client: issuance and presentation are `pat fetch`'s ([`crate::client`]),
//!   which keeps credentials and presentation states between runs
//!   ([`crate::credentials`]); [`Family::request`] is not used for this type.

use std::path::Path;

use pat::crypto::arc::ServerPrivateKey;
use pat::tokens::arc::{self, ArcChallenge, ArcToken};
use pat::wire::challenge::TokenChallenge;
use pat::wire::codec::Decode;
use pat::wire::extensions::Extensions;
use zeroize::Zeroizing;

use super::{
    Check, Family, INTERNAL, Issue, IssuerKey, IssuerKeys, Pending, Presented, Refusal, TokenHeader, UNPROCESSABLE,
    UNSERVED, Verifier, Verify, bad,
};
use crate::{BoxError, hex, rng};

/// The type-0xE5AC family.
pub struct ArcP256;

/// The token type code.
pub const CODE: u16 = arc::TOKEN_TYPE;

/// The longest `Authorization` value read for type 0xE5AC under the
/// presentation limit `limit`: a token of that limit in base64url, with the
/// scheme and parameter around it (`None` for a limit outside 2 to 2^32).
/// Longer values are refused unparsed.
pub fn max_authorization(limit: u64) -> Option<usize> {
    Some(pat::wire::auth::base64url_len(arc::token_len(limit).ok()?) + 64)
}

fn issuer_key(issuer: arc::Issuer) -> IssuerKey {
    let (key_id, token_key) = (*issuer.key_id(), issuer.token_key().to_vec());
    IssuerKey::new(CODE, key_id, token_key, issuer)
}

impl Family for ArcP256 {
    fn code(&self) -> u16 {
        CODE
    }

    fn key_file_ext(&self) -> &'static str {
        "key"
    }

    fn generate(&self) -> Result<(IssuerKey, Zeroizing<Vec<u8>>), BoxError> {
        let key = ServerPrivateKey::generate(&mut rng())?;
        let mut text = Zeroizing::new(hex(&*key.to_bytes()));
        text.push('\n');
        Ok((issuer_key(arc::Issuer::new(key)), Zeroizing::new(text.as_bytes().to_vec())))
    }

    fn load(&self, path: &Path, contents: &[u8]) -> Result<IssuerKey, BoxError> {
        let text = core::str::from_utf8(contents).map_err(|_| bad(path, "not hex text"))?;
        let bytes = super::voprf::unhex(text).ok_or_else(|| bad(path, "not hex"))?;
        if bytes.len() != ServerPrivateKey::LEN {
            return Err(bad(path, "a type-0xE5AC key is 128 bytes"));
        }
        let key = ServerPrivateKey::from_bytes(&bytes).map_err(|e| bad(path, &format!("{e}")))?;
        Ok(issuer_key(arc::Issuer::new(key)))
    }

    fn issuer_keys(&self) -> Box<dyn IssuerKeys> {
        Box::new(Vec::<arc::Issuer>::new())
    }

    fn verifier(&self, key: IssuerKey) -> Option<Verifier> {
        let (key_id, token_key) = (key.key_id, key.token_key.clone());
        let issuer = key.into_secret::<arc::Issuer>().ok()?;
        Some(Verifier::new(CODE, key_id, token_key, issuer))
    }

    fn rate_limited(&self) -> bool {
        true
    }

    /// 2 to 2^32 (draft-ietf-privacypass-arc-crypto-01 §4.3.1).
    fn usable_limit(&self, limit: u64) -> bool {
        arc::token_len(limit).is_ok()
    }

    /// The ARC TokenChallenge (§6): RFC 9577's fields and the
    /// `credential_context` (empty or 32 bytes).
    fn challenge(
        &self,
        issuer_name: &[u8],
        redemption_context: &[u8],
        origin_info: &[u8],
        credential_context: &[u8],
    ) -> Result<Vec<u8>, BoxError> {
        let challenge = ArcChallenge::new(issuer_name, redemption_context, origin_info, credential_context)?;
        Ok(crate::encoded(&challenge)?)
    }

    /// An ARC token of exactly the length the limit gives (§8.1).
    fn token_header(&self, token: &[u8], limit: Option<u64>) -> Result<TokenHeader, &'static str> {
        match token.first_chunk::<2>().map(|b| u16::from_be_bytes(*b)) {
            None => return Err("malformed"),
            Some(CODE) => {}
            Some(_) => return Err("wrong_type"),
        }
        let limit = limit.ok_or("malformed")?;
        let parsed = ArcToken::decode(token, limit).map_err(|_| "malformed")?;
        Ok(TokenHeader { challenge_digest: parsed.challenge_digest, key_id: parsed.issuer_key_id })
    }

    /// `PrivateToken token="…"`, at most [`max_authorization`] bytes for
    /// the origin's limit (a presentation grows with it); no extensions.
    fn presented(
        &self,
        authorization: &str,
        allowed: Option<&[u16]>,
        limit: Option<u64>,
    ) -> Result<Presented, &'static str> {
        let _ = allowed;
        let max = limit.and_then(max_authorization).ok_or("malformed")?;
        if authorization.len() > max {
            return Err("malformed");
        }
        let param = pat::wire::auth::parse_authorization(authorization).map_err(|_| "malformed")?;
        let mut buf = vec![0u8; param.decoded_len_bound().min(max)];
        let token = param.decode_base64url(&mut buf).map_err(|_| "malformed")?;
        Ok(Presented { token: token.to_vec(), extensions: Extensions::EMPTY.as_bytes().to_vec() })
    }

    /// Not a token request: `pat fetch` obtains a credential instead
    /// ([`crate::client`]), and this is an error.
    fn request(
        &self,
        _token_key: &[u8],
        _challenge: &TokenChallenge<'_>,
        _extensions: &Extensions<'_>,
        _log: &mut dyn FnMut(&str),
    ) -> Result<(Vec<u8>, Box<dyn Pending>), BoxError> {
        Err("type 0xE5AC is issued as a credential, not a token".into())
    }
}

impl Verify for arc::Issuer {
    /// Verification (§8.2) under the origin's limit; the id spent is
    /// SHA-256 of the presentation's tag.
    fn verify(&self, token: &[u8], check: &Check<'_>) -> Option<[u8; 32]> {
        let limit = check.limit?;
        let challenge = ArcChallenge::decode(check.challenge).ok()?;
        let token = ArcToken::decode(token, limit).ok()?;
        let tag = arc::Issuer::verify(self, &token, &challenge, limit).ok()?;
        Some(arc::tag_id(&tag))
    }
}

impl IssuerKeys for Vec<arc::Issuer> {
    fn count(&self) -> usize {
        self.len()
    }

    fn accepts(&self, key: &IssuerKey) -> bool {
        super::accepts::<arc::Issuer>(key)
    }

    fn add(&mut self, key: IssuerKey) -> Result<(), IssuerKey> {
        super::add(self, key)
    }

    /// A CredentialRequest is not a TokenRequest: 422.
    fn issue(&self, request: &Issue<'_>) -> Result<Vec<u8>, Refusal> {
        let _ = request;
        Err(UNSERVED)
    }

    /// §7.2: 422 for a request of the wrong size, a truncated key id no
    /// key has, a request that does not deserialize or whose proof fails;
    /// 500 when the issuer's randomness fails.
    fn issue_credential(&self, request: &Issue<'_>) -> Result<Vec<u8>, Refusal> {
        let decoded = arc::TokenRequest::decode(request.body).map_err(|_| UNPROCESSABLE)?;
        let slot = (request.slot)(CODE, decoded.truncated_key_id)?;
        let issuer = self.get(slot).ok_or(UNPROCESSABLE)?;
        let response = issuer.issue(&decoded, &mut rng()).map_err(|e| match e {
            pat::Error::Rng(_) => INTERNAL,
            _ => UNPROCESSABLE,
        })?;
        Ok(response.to_bytes().to_vec())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use std::path::Path;

    use super::{ArcP256, CODE, Family};

    #[test]
    fn a_key_file_round_trips_and_bad_ones_are_refused() {
        let (key, contents) = ArcP256.generate().unwrap();
        assert_eq!(key.token_type(), CODE);
        assert_eq!(key.token_key().len(), 99);
        let path = Path::new("type58796-test.key");
        let loaded = ArcP256.load(path, &contents).unwrap();
        assert_eq!(loaded.key_id(), key.key_id());
        assert_eq!(loaded.token_key(), key.token_key());
        for bad in [&b"zz"[..], &contents[..contents.len() - 3], b"\xff"] {
            let err = ArcP256.load(path, bad).err().unwrap().to_string();
            assert!(err.starts_with("type58796-test.key: "), "{err}");
        }
    }

    #[test]
    fn token_headers_are_read_under_the_limit() {
        assert_eq!(ArcP256.token_header(&[], Some(3)), Err("malformed"));
        assert_eq!(ArcP256.token_header(&[0, 1, 2], Some(3)), Err("wrong_type"));
        assert_eq!(ArcP256.token_header(&[0xE5, 0xAC, 0], Some(3)), Err("malformed"));
        assert_eq!(ArcP256.token_header(&[0xE5, 0xAC, 0], None), Err("malformed"));
        assert!(ArcP256.presented("PrivateToken token=\"AAAA\"", None, Some(3)).is_ok());
        assert!(ArcP256.presented("PrivateToken token=\"AAAA\"", None, None).is_err());
        // The bound is the limit's: a value fitting 2^32 but over the
        // bound of 3 is refused unparsed at 3.
        let at_3 = super::max_authorization(3).unwrap();
        let at_max = super::max_authorization(1 << 32).unwrap();
        assert!(at_3 < at_max);
        assert_eq!(at_3, pat::wire::auth::base64url_len(685) + 64);
        // `PrivateToken token="…"` is 21 bytes around the base64url.
        let over = format!("PrivateToken token=\"{}\"", "A".repeat((at_3 - 21 + 1).next_multiple_of(4)));
        assert!(over.len() > at_3);
        assert_eq!(ArcP256.presented(&over, None, Some(3)).err(), Some("malformed"));
        assert!(ArcP256.presented(&over, None, Some(1 << 32)).is_ok());
        assert_eq!(super::max_authorization(1), None);
    }
}
