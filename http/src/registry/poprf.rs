//! Type 0xDA7B (POPRF(P-384, SHA-384) with public metadata,
//! draft-ietf-privacypass-public-metadata-issuance-03 §5): privately
//! verifiable, and every token carries Extensions, which are the POPRF's
//! public input.
//!
//! A key file is `type55931-<id>.seed`, 48 random bytes (`Ns`) in hex, from
//! which the key pair is derived as the draft recommends
//! (`DeriveKeyPair(seed, "PrivacyPass-TypeDA7B")`, POPRF mode). The issuer
//! answers 400 to every refusal of a request (§5.2), as for 0xDA7A. The
//! client sends the token with its Extensions, `Authorization: PrivateToken
//! token="…", extensions="…"`; the origin is the issuer (it holds the key).

use std::path::Path;

use axum::http::StatusCode;
use pat::tokens::poprf;
use pat::wire::challenge::TokenChallenge;
use pat::wire::codec::Decode;
use pat::wire::extensions::Extensions;
use pat::wire::token_type::TokenKind;
use zeroize::Zeroizing;

use super::{
    Check, Family, INTERNAL, Issue, IssuerKey, IssuerKeys, Pending, Presented, Refusal, Verifier, Verify, bad,
};
use crate::{BoxError, hex, rng};

/// The type-0xDA7B family.
pub struct Poprf;

const KIND: TokenKind = TokenKind::PublicMetadataP384;

/// The seed length: `Ns` for P-384 (draft §5.5).
const SEED_LEN: usize = 48;

fn derive(seed: &[u8]) -> Result<IssuerKey, BoxError> {
    let issuer = poprf::Issuer::derive(seed)?;
    let (key_id, token_key) = (*issuer.key_id(), issuer.token_key().to_vec());
    Ok(IssuerKey::new(KIND.code(), key_id, token_key, issuer))
}

/// Every refusal of a type-0xDA7B request is 400 (draft §5.2).
const fn bad_request(text: &'static str) -> Refusal {
    Refusal(StatusCode::BAD_REQUEST, text)
}

impl Family for Poprf {
    fn code(&self) -> u16 {
        KIND.code()
    }

    fn key_file_ext(&self) -> &'static str {
        "seed"
    }

    fn generate(&self) -> Result<(IssuerKey, Zeroizing<Vec<u8>>), BoxError> {
        let mut seed = Zeroizing::new([0u8; SEED_LEN]);
        rand_core::TryRng::try_fill_bytes(&mut pat::OsRng, seed.as_mut()).map_err(|e| format!("randomness: {e}"))?;
        let key = derive(seed.as_ref())?;
        let mut text = Zeroizing::new(hex(seed.as_ref()));
        text.push('\n');
        Ok((key, Zeroizing::new(text.as_bytes().to_vec())))
    }

    fn load(&self, path: &Path, contents: &[u8]) -> Result<IssuerKey, BoxError> {
        let text = core::str::from_utf8(contents).map_err(|_| bad(path, "not hex text"))?;
        let seed = super::voprf::unhex(text).ok_or_else(|| bad(path, "not hex"))?;
        if seed.len() != SEED_LEN {
            return Err(bad(path, "a type-0xDA7B seed is 48 bytes"));
        }
        derive(&seed)
    }

    fn issuer_keys(&self) -> Box<dyn IssuerKeys> {
        Box::new(Vec::<poprf::Issuer>::new())
    }

    fn verifier(&self, key: IssuerKey) -> Option<Verifier> {
        let (key_id, token_key) = (key.key_id, key.token_key.clone());
        let issuer = key.into_secret::<poprf::Issuer>().ok()?;
        Some(Verifier::new(KIND.code(), key_id, token_key, issuer))
    }

    fn carries_extensions(&self) -> bool {
        true
    }

    /// `PrivateToken token="…", extensions="…"`, as for 0xDA7A.
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
        let client = poprf::Client::from_token_key(token_key)?;
        let (request, state) = client.request(challenge, *extensions, &mut rng())?;
        let pending = Requested { client, state, extensions: extensions.as_bytes().to_vec() };
        Ok((crate::encoded(&request)?, Box::new(pending)))
    }
}

/// A type-0xDA7B request in flight, with the encoded Extensions it carries.
struct Requested {
    client: poprf::Client,
    state: poprf::RequestState,
    extensions: Vec<u8>,
}

impl Pending for Requested {
    fn finalize(mut self: Box<Self>, response: &[u8]) -> Result<String, BoxError> {
        let extensions = Extensions::decode(&self.extensions)?;
        let response = poprf::TokenResponse::decode(response)?;
        let token = crate::encoded(&self.client.finalize(&mut self.state, &extensions, &response)?)?;
        super::authorization_with_extensions(&token, &extensions)
    }
}

impl Verify for poprf::Issuer {
    fn verify(&self, token: &[u8], check: &Check<'_>) -> Option<[u8; 32]> {
        super::verified_nonce(token, check, |challenge, extensions| {
            poprf::Token::decode(token).is_ok_and(|t| poprf::Issuer::verify(self, &t, challenge, extensions).is_ok())
        })
    }
}

impl IssuerKeys for Vec<poprf::Issuer> {
    fn count(&self) -> usize {
        self.len()
    }

    fn accepts(&self, key: &IssuerKey) -> bool {
        super::accepts::<poprf::Issuer>(key)
    }

    fn add(&mut self, key: IssuerKey) -> Result<(), IssuerKey> {
        super::add(self, key)
    }

    /// Every refusal is 400 (draft §5.2): a malformed request or Extensions
    /// list, extensions the policy does not permit, a truncated key id no
    /// key has, a blinded element that does not decode.
    fn issue(&self, request: &Issue<'_>) -> Result<Vec<u8>, Refusal> {
        let decoded =
            poprf::TokenRequest::decode(request.body).map_err(|_| bad_request("malformed extended token request"))?;
        if !(request.permits)(&decoded.extensions) {
            return Err(bad_request("extensions not permitted"));
        }
        let slot = (request.slot)(KIND.code(), decoded.truncated_token_key_id)
            .map_err(|Refusal(_, text)| bad_request(text))?;
        let issuer = self.get(slot).ok_or(INTERNAL)?;
        let response = issuer.evaluate(&decoded, &mut rng()).map_err(|e| match e {
            // The generator failed: the server's fault, not the request's.
            pat::Error::Rng(_) => INTERNAL,
            _ => bad_request("token request cannot be processed"),
        })?;
        super::encoded(&response)
    }
}
