//! The issuer of types 0x0001 and 0x0005, which is also the origin: evaluation
//! (RFC 9578 §5.2) and token verification (§5.4).

use core::fmt;
use core::marker::PhantomData;

use rand_core::TryCryptoRng;

use super::{Client, ElementBytes, PrivateTokenType, TokenRequest, TokenResponse, key_id_of};
use crate::crypto::voprf::{self, ByteArray, Element, KeyPair};
use crate::error::{Error, Result};
use crate::tokens::truncated_key_id;
use crate::wire::challenge::TokenChallenge;
use crate::wire::token_type::KEY_ID_LEN;

/// The issuer of a privately verifiable type (RFC 9578 §5.2, §5.4): evaluates
/// requests and verifies redeemed tokens.
pub struct Issuer<T: PrivateTokenType> {
    key: KeyPair<T::Suite>,
    key_id: [u8; KEY_ID_LEN],
    _type: PhantomData<T>,
}

/// The key pair's secret wipes itself on drop.
impl<T: PrivateTokenType> zeroize::ZeroizeOnDrop for Issuer<T> {}

impl<T: PrivateTokenType> fmt::Debug for Issuer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Issuer").field("token_type", &T::CODE).field("key", &self.key).finish()
    }
}

impl<T: PrivateTokenType> Issuer<T> {
    /// An issuer with the given key pair.
    pub fn new(key: KeyPair<T::Suite>) -> Self {
        let key_id = key_id_of(key.public_key().as_bytes().as_ref());
        Self { key, key_id, _type: PhantomData }
    }

    /// An issuer with a fresh random key.
    pub fn generate<R: TryCryptoRng<Error: 'static> + ?Sized>(rng: &mut R) -> Result<Self> {
        Ok(Self::new(voprf::generate_key_pair(rng)?))
    }

    /// An issuer whose key is derived from a seed and info (RFC 9497 §3.2.1).
    pub fn derive(seed: &[u8], info: &[u8]) -> Result<Self> {
        Ok(Self::new(voprf::derive_key_pair(seed, info)?))
    }

    /// The key pair.
    pub const fn key_pair(&self) -> &KeyPair<T::Suite> {
        &self.key
    }

    /// The token key to publish: the serialized public key.
    pub fn token_key(&self) -> &ElementBytes<T> {
        self.key.public_key().as_bytes()
    }

    /// The token_key_id.
    pub const fn key_id(&self) -> &[u8; KEY_ID_LEN] {
        &self.key_id
    }

    /// A client configured for this issuer.
    pub fn client(&self) -> Client<T> {
        Client { key: *self.key.public_key(), key_id: self.key_id, _type: PhantomData }
    }

    /// Evaluates a request (RFC 9578 §5.2): checks the truncated key id
    /// ([`Error::KeyIdMismatch`]) and the blinded element
    /// ([`Error::InvalidElement`]), then returns skI·B with a fresh DLEQ proof.
    pub fn evaluate<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        request: &TokenRequest<T>,
        rng: &mut R,
    ) -> Result<TokenResponse<T>> {
        if request.truncated_token_key_id != truncated_key_id(&self.key_id) {
            return Err(Error::KeyIdMismatch);
        }
        let blinded = Element::from_bytes(&request.blinded_msg)?;
        let mut evaluated = [ElementBytes::<T>::ZERO];
        let proof = voprf::blind_evaluate(&self.key, &[blinded], &mut evaluated, rng)?;
        let [evaluate_msg] = evaluated;
        Ok(TokenResponse { evaluate_msg, evaluate_proof: proof.to_bytes() })
    }

    /// Verifies a redeemed token (RFC 9578 §5.4): its type, key id and
    /// challenge digest, then recomputes the PRF output and compares it in
    /// constant time. A wrong authenticator is [`Error::Verification`].
    pub fn verify(&self, token: &T::Token, challenge: &TokenChallenge<'_>) -> Result<()> {
        let input = T::token_input(token);
        if input.kind() != T::KIND {
            return Err(Error::WrongTokenType { expected: T::CODE, found: input.kind().code() });
        }
        if challenge.token_type() != T::CODE || input.challenge_digest() != &challenge.digest() {
            return Err(Error::ChallengeMismatch);
        }
        if input.token_key_id() != &self.key_id {
            return Err(Error::KeyIdMismatch);
        }
        voprf::verify_output(self.key.secret_key(), input.as_bytes(), T::authenticator(token))
    }
}
