//! Type 0xDA7A (partially blind RSA 2048 with public metadata,
//! draft-ietf-privacypass-public-metadata-issuance): publicly verifiable,
//! and every token carries Extensions.
//!
//! A key file is `type55930-<id>.pem`, the RSA key as PKCS#8 PEM, whose
//! primes are safe primes (draft-irtf-cfrg-partially-blind-rsa §4.1), made
//! with `SecretKey::generate_safe` (seconds), or any such key put in the
//! folder. Loading checks the primes (`metadata::Issuer::try_new`) and
//! refuses a key without safe primes. The issuer answers 400 to every
//! refusal of a request (§5.1).
//! The client sends the token with its Extensions, `Authorization:
//! PrivateToken token="…", extensions="…"`
//! (draft-ietf-privacypass-auth-scheme-extensions §3; an absent
//! `extensions` is the empty list).

use std::path::Path;

use axum::http::StatusCode;
use pat::crypto::blind_rsa;
use pat::tokens::metadata;
use pat::wire::challenge::TokenChallenge;
use pat::wire::codec::Decode;
use pat::wire::extensions::Extensions;
use pat::wire::token_type::TokenKind;
use zeroize::Zeroizing;

use super::blind_rsa::{from_pem, from_spki, pem};
use super::{
    Check, Family, Issue, IssuerKey, IssuerKeys, Pending, Presented, Refusal, UNPROCESSABLE, Verifier, Verify, bad,
    encoded,
};
use crate::{BoxError, rng};

/// The type-0xDA7A family.
pub struct Metadata;

const KIND: TokenKind = TokenKind::PublicMetadataRsa2048;

/// A type-0xDA7A issuer for `secret`, refused unless its primes are safe
/// primes: with other primes some metadata fail to derive a key pair, and
/// which ones fail tells the small factors of p − 1 and q − 1 to clients.
fn issuer_key(secret: blind_rsa::SecretKey) -> Result<IssuerKey, BoxError> {
    let issuer = metadata::Issuer::try_new(secret).map_err(|e| match e {
        pat::Error::NotSafePrime => format!(
            "type 0xDA7A: key refused: {e} ((p − 1)/2 or (q − 1)/2 is not prime; \
             draft-irtf-cfrg-partially-blind-rsa §4.1); make the key with `SecretKey::generate_safe`, \
             or let `pat issuer rotate` make one"
        ),
        e => format!("type 0xDA7A: key refused: {e}"),
    })?;
    let (key_id, token_key) = (*issuer.key_id(), issuer.token_key().to_vec());
    Ok(IssuerKey::new(KIND.code(), key_id, token_key, issuer))
}

/// Every refusal of a type-0xDA7A request is 400 (draft §5.1).
const fn bad_request(text: &'static str) -> Refusal {
    Refusal(StatusCode::BAD_REQUEST, text)
}

impl Family for Metadata {
    fn code(&self) -> u16 {
        KIND.code()
    }

    fn key_file_ext(&self) -> &'static str {
        "pem"
    }

    fn generate(&self) -> Result<(IssuerKey, Zeroizing<Vec<u8>>), BoxError> {
        let secret = blind_rsa::SecretKey::generate_safe(&mut rng())?;
        let text = pem(&secret)?;
        Ok((issuer_key(secret)?, text))
    }

    fn load(&self, path: &Path, contents: &[u8]) -> Result<IssuerKey, BoxError> {
        issuer_key(from_pem(path, contents)?).map_err(|e| bad(path, &format!("{e}")))
    }

    fn issuer_keys(&self) -> Box<dyn IssuerKeys> {
        Box::new(Vec::<metadata::Issuer>::new())
    }

    fn verifier(&self, key: IssuerKey) -> Option<Verifier> {
        let (key_id, token_key) = (key.key_id, key.token_key.clone());
        let issuer = key.into_secret::<metadata::Issuer>().ok()?;
        Some(Verifier::new(KIND.code(), key_id, token_key, metadata::Origin::new(issuer.public_key().clone())))
    }

    fn publicly_verifiable(&self) -> bool {
        true
    }

    fn directory_verifier(&self, token_key: &[u8]) -> Result<Verifier, BoxError> {
        let public_key = from_spki(token_key)?;
        let key_id = *public_key.key_id();
        Ok(Verifier::new(KIND.code(), key_id, token_key.to_vec(), metadata::Origin::new(public_key)))
    }

    fn carries_extensions(&self) -> bool {
        true
    }

    /// `PrivateToken token="…", extensions="…"`, bounded by the server's
    /// header cap; extensions of a type outside `allowed` are refused.
    fn presented(
        &self,
        authorization: &str,
        allowed: Option<&[u16]>,
        limit: Option<u64>,
    ) -> Result<Presented, &'static str> {
        let _ = limit;
        super::presented_with_extensions(authorization, allowed)
    }

    fn request(
        &self,
        token_key: &[u8],
        challenge: &TokenChallenge<'_>,
        extensions: &Extensions<'_>,
        log: &mut dyn FnMut(&str),
    ) -> Result<(Vec<u8>, Box<dyn Pending>), BoxError> {
        log(&format!("extensions: {} bytes, {} entries", extensions.as_bytes().len(), extensions.len()));
        let client = metadata::Client::from_token_key(token_key)?;
        let (request, state) = client.request(challenge, *extensions, &mut rng())?;
        let pending = Requested { client, state, extensions: extensions.as_bytes().to_vec() };
        Ok((crate::encoded(&request)?, Box::new(pending)))
    }
}

/// A type-0xDA7A request in flight, with the encoded Extensions it carries.
struct Requested {
    client: metadata::Client,
    state: metadata::RequestState,
    extensions: Vec<u8>,
}

impl Pending for Requested {
    fn finalize(mut self: Box<Self>, response: &[u8]) -> Result<String, BoxError> {
        let extensions = Extensions::decode(&self.extensions)?;
        let response = metadata::TokenResponse::decode(response)?;
        let token = crate::encoded(&self.client.finalize(&mut self.state, &extensions, &response)?)?;
        super::authorization_with_extensions(&token, &extensions)
    }
}

impl Verify for metadata::Origin {
    fn verify(&self, token: &[u8], check: &Check<'_>) -> Option<[u8; 32]> {
        super::verified_nonce(token, check, |challenge, extensions| {
            metadata::MetadataToken::decode(token)
                .is_ok_and(|t| metadata::Origin::verify(self, &t, challenge, extensions).is_ok())
        })
    }
}

impl IssuerKeys for Vec<metadata::Issuer> {
    fn count(&self) -> usize {
        self.len()
    }

    fn accepts(&self, key: &IssuerKey) -> bool {
        super::accepts::<metadata::Issuer>(key)
    }

    fn add(&mut self, key: IssuerKey) -> Result<(), IssuerKey> {
        super::add(self, key)
    }

    /// Every refusal is 400 (draft §5.1): a malformed request or Extensions
    /// list, extensions the policy does not permit, a truncated key id no
    /// key has, a request the key cannot sign.
    fn issue(&self, request: &Issue<'_>) -> Result<Vec<u8>, Refusal> {
        let decoded = metadata::TokenRequest::decode(request.body)
            .map_err(|_| bad_request("malformed extended token request"))?;
        if !(request.permits)(&decoded.extensions) {
            return Err(bad_request("extensions not permitted"));
        }
        let slot = (request.slot)(KIND.code(), decoded.truncated_token_key_id)
            .map_err(|Refusal(_, text)| bad_request(text))?;
        let issuer = self.get(slot).ok_or(UNPROCESSABLE)?;
        let response = issuer.evaluate(&decoded).map_err(|_| bad_request("token request cannot be processed"))?;
        encoded(&response)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use std::path::Path;

    use super::{Family, Metadata};

    /// The PEM `skS` (hex in the file) of the first case of a vector file.
    fn vector_pem(file: &str) -> Vec<u8> {
        let path = format!("{}/../tests/vectors/{file}", env!("CARGO_MANIFEST_DIR"));
        let cases: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let hex = cases[0]["skS"].as_str().unwrap();
        (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect()
    }

    /// A key whose primes are safe primes loads; pat-go's type-2 key (prime
    /// p and q, but (p − 1)/2 and (q − 1)/2 composite) is refused, with a
    /// message naming the file and the reason.
    #[test]
    fn loading_refuses_a_key_without_safe_primes() {
        let path = Path::new("type55930-test.pem");
        let safe = vector_pem("privacypass-ts/pub_verif_with_metadata_v3.json");
        assert!(Metadata.load(path, &safe).is_ok());
        let ordinary = vector_pem("pat-go/tokens/type2/type2-issuance-test-vectors.json");
        let err = Metadata.load(path, &ordinary).err().unwrap().to_string();
        assert!(err.starts_with("type55930-test.pem: type 0xDA7A: key refused: "), "{err}");
        assert!(err.contains("not a safe prime"), "{err}");
        // The same key is a fine type-2 key.
        assert!(super::super::blind_rsa::BlindRsa.load(Path::new("type2-test.pem"), &ordinary).is_ok());
    }
}
