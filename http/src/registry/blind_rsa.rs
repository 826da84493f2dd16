//! Type 0x0002 (blind RSA 2048): publicly verifiable. A key file is
//! `type2-<id>.pem`, the RSA key as PKCS#8 PEM.

use std::path::Path;

use pat::crypto::blind_rsa::{self, PKCS8_PEM_MAX_LEN};
use pat::tokens::public;
use pat::wire::challenge::TokenChallenge;
use pat::wire::codec::Decode;
use pat::wire::extensions::Extensions;
use pat::wire::token_type::TokenKind;
use zeroize::Zeroizing;

use super::{
    Check, Family, Issue, IssuerKey, IssuerKeys, Pending, Refusal, UNPROCESSABLE, Verifier, Verify, bad, encoded,
};
use crate::{BoxError, rng};

/// The type-0x0002 family.
pub struct BlindRsa;

const KIND: TokenKind = TokenKind::PublicRsa2048;

/// The PKCS#8 PEM of `secret`.
pub(super) fn pem(secret: &blind_rsa::SecretKey) -> Result<Zeroizing<Vec<u8>>, BoxError> {
    let mut pem = Zeroizing::new([0u8; PKCS8_PEM_MAX_LEN]);
    Ok(Zeroizing::new(secret.to_pkcs8_pem(pem.as_mut())?.as_bytes().to_vec()))
}

/// The RSA key of a PEM file's `contents`.
pub(super) fn from_pem(path: &Path, contents: &[u8]) -> Result<blind_rsa::SecretKey, BoxError> {
    let text = core::str::from_utf8(contents).map_err(|_| bad(path, "not PEM text"))?;
    blind_rsa::SecretKey::from_pkcs8_pem(text).map_err(|e| bad(path, &format!("{e}")))
}

/// The SPKI token key of the directory and its public key.
pub(super) fn from_spki(token_key: &[u8]) -> Result<blind_rsa::PublicKey, BoxError> {
    Ok(blind_rsa::PublicKey::from_spki(token_key)?)
}

fn issuer_key(issuer: public::Issuer) -> IssuerKey {
    let (key_id, token_key) = (*issuer.key_id(), issuer.token_key().to_vec());
    IssuerKey::new(KIND.code(), key_id, token_key, issuer)
}

impl Family for BlindRsa {
    fn code(&self) -> u16 {
        KIND.code()
    }

    fn key_file_ext(&self) -> &'static str {
        "pem"
    }

    fn generate(&self) -> Result<(IssuerKey, Zeroizing<Vec<u8>>), BoxError> {
        let secret = blind_rsa::SecretKey::generate(&mut rng())?;
        let text = pem(&secret)?;
        Ok((issuer_key(public::Issuer::new(secret)), text))
    }

    fn load(&self, path: &Path, contents: &[u8]) -> Result<IssuerKey, BoxError> {
        Ok(issuer_key(public::Issuer::new(from_pem(path, contents)?)))
    }

    fn issuer_keys(&self) -> Box<dyn IssuerKeys> {
        Box::new(Vec::<public::Issuer>::new())
    }

    fn verifier(&self, key: IssuerKey) -> Option<Verifier> {
        let (key_id, token_key) = (key.key_id, key.token_key.clone());
        let issuer = key.into_secret::<public::Issuer>().ok()?;
        Some(Verifier::new(KIND.code(), key_id, token_key, public::Origin::new(issuer.public_key().clone())))
    }

    fn publicly_verifiable(&self) -> bool {
        true
    }

    fn directory_verifier(&self, token_key: &[u8]) -> Result<Verifier, BoxError> {
        let public_key = from_spki(token_key)?;
        let key_id = *public_key.key_id();
        Ok(Verifier::new(KIND.code(), key_id, token_key.to_vec(), public::Origin::new(public_key)))
    }

    fn request(
        &self,
        token_key: &[u8],
        challenge: &TokenChallenge<'_>,
        _extensions: &Extensions<'_>,
        _log: &mut dyn FnMut(&str),
    ) -> Result<(Vec<u8>, Box<dyn Pending>), BoxError> {
        let client = public::Client::from_token_key(token_key)?;
        let (request, state) = client.request(challenge, &mut rng())?;
        Ok((crate::encoded(&request)?, Box::new(Requested { client, state })))
    }
}

/// A type-0x0002 request in flight.
struct Requested {
    client: public::Client,
    state: public::RequestState,
}

impl Pending for Requested {
    fn finalize(mut self: Box<Self>, response: &[u8]) -> Result<String, BoxError> {
        let response = public::TokenResponse::decode(response)?;
        let token = self.client.finalize(&mut self.state, &response)?;
        super::authorization(&crate::encoded(&token)?)
    }
}

impl Verify for public::Origin {
    fn verify(&self, token: &[u8], check: &Check<'_>) -> Option<[u8; 32]> {
        super::verified_nonce(token, check, |challenge, _| {
            public::PublicToken::decode(token).is_ok_and(|t| public::Origin::verify(self, &t, challenge).is_ok())
        })
    }
}

impl IssuerKeys for Vec<public::Issuer> {
    fn count(&self) -> usize {
        self.len()
    }

    fn accepts(&self, key: &IssuerKey) -> bool {
        super::accepts::<public::Issuer>(key)
    }

    fn add(&mut self, key: IssuerKey) -> Result<(), IssuerKey> {
        super::add(self, key)
    }

    fn issue(&self, request: &Issue<'_>) -> Result<Vec<u8>, Refusal> {
        let decoded = public::TokenRequest::decode(request.body).map_err(|_| UNPROCESSABLE)?;
        let slot = (request.slot)(KIND.code(), decoded.truncated_token_key_id)?;
        let issuer = self.get(slot).ok_or(UNPROCESSABLE)?;
        encoded(&issuer.evaluate(&decoded).map_err(|_| UNPROCESSABLE)?)
    }
}
