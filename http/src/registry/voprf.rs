//! Types 0x0001 (VOPRF P-384) and 0x0005 (VOPRF ristretto255): privately
//! verifiable, with amortized batches. A key file is `typeN-<id>.seed`, 32
//! random bytes in hex, from which the key pair is derived (RFC 9497
//! §3.2.1, `DeriveKeyPair`).

use std::marker::PhantomData;
use std::path::Path;

use pat::crypto::voprf::Suite as _;
use pat::tokens::amortized::AmortizedTokenRequest;
use pat::tokens::private::{self, PrivateTokenType};
use pat::wire::challenge::TokenChallenge;
use pat::wire::codec::Decode;
use pat::wire::extensions::Extensions;
use zeroize::Zeroizing;

use super::{
    Check, Family, Issue, IssuerKey, IssuerKeys, MAX_BATCH, Pending, Refusal, TOO_MANY, UNPROCESSABLE, Verifier,
    Verify, bad, encoded,
};
use crate::{BoxError, hex, rng};

/// The `info` input of the VOPRF key derivation.
const DERIVE_INFO: &[u8] = b"pat-http issuer key";

/// A privately verifiable type whose keys and states cross threads.
pub trait PrivateType: PrivateTokenType + Send + Sync {}

impl<T: PrivateTokenType + Send + Sync> PrivateType for T {}

/// The family of the privately verifiable type `T`.
pub struct Voprf<T>(PhantomData<T>);

impl<T> Voprf<T> {
    /// The family.
    pub const FAMILY: Self = Self(PhantomData);
}

fn issuer_key<T: PrivateType>(issuer: private::Issuer<T>) -> IssuerKey {
    let (key_id, token_key) = (*issuer.key_id(), issuer.token_key().as_ref().to_vec());
    IssuerKey::new(T::CODE, key_id, token_key, issuer)
}

fn derive<T: PrivateType>(seed: &[u8]) -> Result<IssuerKey, BoxError> {
    Ok(issuer_key(private::Issuer::<T>::derive(seed, DERIVE_INFO)?))
}

/// A key file's hex (surrounding whitespace allowed), strictly: see [`crate::unhex`].
pub(super) fn unhex(s: &str) -> Option<Zeroizing<Vec<u8>>> {
    crate::unhex(s.trim())
}

impl<T: PrivateType> Family for Voprf<T> {
    fn code(&self) -> u16 {
        T::CODE
    }

    fn key_file_ext(&self) -> &'static str {
        "seed"
    }

    fn generate(&self) -> Result<(IssuerKey, Zeroizing<Vec<u8>>), BoxError> {
        let mut seed = Zeroizing::new([0u8; 32]);
        rand_core::TryRng::try_fill_bytes(&mut pat::OsRng, seed.as_mut()).map_err(|e| format!("randomness: {e}"))?;
        let key = derive::<T>(seed.as_ref())?;
        let mut text = Zeroizing::new(hex(seed.as_ref()));
        text.push('\n');
        Ok((key, Zeroizing::new(text.as_bytes().to_vec())))
    }

    fn load(&self, path: &Path, contents: &[u8]) -> Result<IssuerKey, BoxError> {
        let text = core::str::from_utf8(contents).map_err(|_| bad(path, "not hex text"))?;
        let seed = unhex(text).ok_or_else(|| bad(path, "not hex"))?;
        if seed.len() != 32 {
            return Err(bad(path, "a seed is 32 bytes"));
        }
        derive::<T>(&seed)
    }

    fn issuer_keys(&self) -> Box<dyn IssuerKeys> {
        Box::new(Vec::<private::Issuer<T>>::new())
    }

    fn verifier(&self, key: IssuerKey) -> Option<Verifier> {
        let (token_type, key_id, token_key) = (key.token_type, key.key_id, key.token_key.clone());
        let issuer = key.into_secret::<private::Issuer<T>>().ok()?;
        Some(Verifier::new(token_type, key_id, token_key, issuer))
    }

    fn request(
        &self,
        token_key: &[u8],
        challenge: &TokenChallenge<'_>,
        _extensions: &Extensions<'_>,
        _log: &mut dyn FnMut(&str),
    ) -> Result<(Vec<u8>, Box<dyn Pending>), BoxError> {
        let client = private::Client::<T>::from_token_key(token_key)?;
        let (request, state) = client.request(challenge, &mut rng())?;
        Ok((crate::encoded(&request)?, Box::new(Requested { client, state })))
    }
}

/// A type-`T` request in flight.
struct Requested<T: PrivateTokenType> {
    client: private::Client<T>,
    state: private::RequestState<T>,
}

impl<T: PrivateType> Pending for Requested<T> {
    fn finalize(mut self: Box<Self>, response: &[u8]) -> Result<String, BoxError> {
        let response = private::TokenResponse::<T>::decode(response)?;
        let token = self.client.finalize(&mut self.state, &response)?;
        super::authorization(&crate::encoded(&token)?)
    }
}

impl<T: PrivateType> Verify for private::Issuer<T> {
    fn verify(&self, token: &[u8], check: &Check<'_>) -> Option<[u8; 32]> {
        super::verified_nonce(token, check, |challenge, _| {
            T::Token::decode(token).is_ok_and(|t| private::Issuer::verify(self, &t, challenge).is_ok())
        })
    }
}

impl<T: PrivateType> IssuerKeys for Vec<private::Issuer<T>> {
    fn count(&self) -> usize {
        self.len()
    }

    fn accepts(&self, key: &IssuerKey) -> bool {
        super::accepts::<private::Issuer<T>>(key)
    }

    fn add(&mut self, key: IssuerKey) -> Result<(), IssuerKey> {
        super::add(self, key)
    }

    fn issue(&self, request: &Issue<'_>) -> Result<Vec<u8>, Refusal> {
        let decoded = private::TokenRequest::<T>::decode(request.body).map_err(|_| UNPROCESSABLE)?;
        let slot = (request.slot)(T::CODE, decoded.truncated_token_key_id)?;
        let issuer = self.get(slot).ok_or(UNPROCESSABLE)?;
        encoded(&issuer.evaluate(&decoded, &mut rng()).map_err(|_| UNPROCESSABLE)?)
    }

    fn issue_amortized(&self, request: &Issue<'_>) -> Result<(Vec<u8>, usize), Refusal> {
        let decoded = AmortizedTokenRequest::<T>::decode(request.body).map_err(|_| UNPROCESSABLE)?;
        if decoded.len() > MAX_BATCH {
            return Err(TOO_MANY);
        }
        let slot = (request.slot)(T::CODE, decoded.truncated_token_key_id())?;
        let issuer = self.get(slot).ok_or(UNPROCESSABLE)?;
        // varint(n·Ne) ‖ n·Ne ‖ 2·Ns, with room for the longest varint.
        let (ne, ns) = (T::Suite::NE, T::Suite::NS);
        let mut out = vec![0u8; 8 + decoded.len() * ne + 2 * ns];
        let n = issuer.evaluate_batch::<MAX_BATCH, _>(&decoded, &mut out, &mut rng()).map_err(|_| UNPROCESSABLE)?;
        out.truncate(n);
        Ok((out, decoded.len()))
    }
}
