//! The issuer of type 0xDA7B, which is also the origin: evaluation with the
//! key tweaked by the request's extensions (draft §5.2) and token
//! verification (§5.4).

use rand_core::TryCryptoRng;

use super::{Client, DERIVE_INFO, Token, TokenRequest, TokenResponse, key_id_of};
use crate::crypto::voprf::{self, ByteArray, Element, KeyPair, P384Sha384, Suite, poprf};
use crate::error::{Error, Result};
use crate::tokens::truncated_key_id;
use crate::wire::challenge::TokenChallenge;
use crate::wire::extensions::Extensions;
use crate::wire::token_type::{KEY_ID_LEN, PublicMetadataP384, TokenKind, TokenType};

type S = P384Sha384;

/// The issuer of type 0xDA7B (draft §5.2, §5.4): evaluates requests under
/// the key tweaked by their extensions and verifies redeemed tokens. Whether
/// a request's extensions are acceptable is the caller's policy (the draft
/// answers 400 to extensions the issuer does not allow): check
/// [`TokenRequest::extensions`] before [`Issuer::evaluate`].
pub struct Issuer {
    key: KeyPair<S>,
    key_id: [u8; KEY_ID_LEN],
}

/// The key pair's secret wipes itself on drop.
impl zeroize::ZeroizeOnDrop for Issuer {}

impl core::fmt::Debug for Issuer {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Issuer").field("token_type", &PublicMetadataP384::CODE).field("key", &self.key).finish()
    }
}

impl Issuer {
    /// An issuer with the given key pair. The draft (§5.5) forbids using
    /// the key in another protocol: do not give the key of a type 0x0001
    /// issuer here.
    pub fn new(key: KeyPair<S>) -> Self {
        let key_id = key_id_of(key.public_key().as_bytes());
        Self { key, key_id }
    }

    /// An issuer with a fresh random key (RFC 9497 §3.2 `GenerateKeyPair`).
    pub fn generate<R: TryCryptoRng<Error: 'static> + ?Sized>(rng: &mut R) -> Result<Self> {
        Ok(Self::new(voprf::generate_key_pair(rng)?))
    }

    /// An issuer whose key is `DeriveKeyPair(seed, "PrivacyPass-TypeDA7B")`
    /// in the POPRF mode (draft §5.5; RFC 9497 §3.2.1): `seed` should be
    /// `Ns` = 48 uniformly random bytes.
    pub fn derive(seed: &[u8]) -> Result<Self> {
        Ok(Self::new(poprf::derive_key_pair(seed, DERIVE_INFO)?))
    }

    /// The key pair.
    pub const fn key_pair(&self) -> &KeyPair<S> {
        &self.key
    }

    /// The token key to publish: the serialized public key.
    pub fn token_key(&self) -> &<S as Suite>::ElementBytes {
        self.key.public_key().as_bytes()
    }

    /// The token_key_id.
    pub const fn key_id(&self) -> &[u8; KEY_ID_LEN] {
        &self.key_id
    }

    /// A client configured for this issuer.
    pub fn client(&self) -> Client {
        Client::new(*self.key.public_key())
    }

    /// Evaluates a request (draft §5.2): checks the truncated key id
    /// ([`Error::KeyIdMismatch`]) and the blinded element
    /// ([`Error::InvalidElement`]), then returns `t⁻¹·B` with a fresh DLEQ
    /// proof, where `t` is the key tweaked by the request's extensions.
    /// Other errors: [`Error::InvalidLength`]`(Field::Info)` for extensions
    /// over 65535 bytes, [`Error::InvalidScalar`] if `t` is zero (extensions
    /// whose hash is minus the key), [`Error::Rng`].
    pub fn evaluate<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        request: &TokenRequest<'_>,
        rng: &mut R,
    ) -> Result<TokenResponse> {
        self.check_request(request)?;
        let blinded = Element::from_bytes(&request.blinded_msg)?;
        let mut evaluated = [<S as Suite>::ElementBytes::ZERO];
        let proof = poprf::blind_evaluate(
            self.key.secret_key(),
            &[blinded],
            request.extensions.as_bytes(),
            &mut evaluated,
            rng,
        )?;
        let [evaluate_msg] = evaluated;
        Ok(TokenResponse { evaluate_msg, evaluate_proof: proof.to_bytes() })
    }

    pub(super) fn check_request(&self, request: &TokenRequest<'_>) -> Result<()> {
        if request.truncated_token_key_id != truncated_key_id(&self.key_id) {
            return Err(Error::KeyIdMismatch);
        }
        Ok(())
    }

    /// Verifies a redeemed token with the extensions that came with it
    /// (draft §5.4): its type, key id and challenge digest, then recomputes
    /// the POPRF output under `extensions` and compares it in constant time.
    /// A wrong authenticator, or extensions other than the issued ones, is
    /// [`Error::Verification`]; extensions over 65535 bytes are
    /// [`Error::InvalidLength`]`(Field::Info)`. Whether the extensions are
    /// acceptable is the caller's policy.
    pub fn verify(&self, token: &Token, challenge: &TokenChallenge<'_>, extensions: &Extensions<'_>) -> Result<()> {
        let input = token.input();
        if input.kind() != TokenKind::PublicMetadataP384 {
            return Err(Error::WrongTokenType { expected: PublicMetadataP384::CODE, found: input.kind().code() });
        }
        if challenge.token_type() != PublicMetadataP384::CODE || input.challenge_digest() != &challenge.digest() {
            return Err(Error::ChallengeMismatch);
        }
        if input.token_key_id() != &self.key_id {
            return Err(Error::KeyIdMismatch);
        }
        poprf::verify_output(self.key.secret_key(), input.as_bytes(), extensions.as_bytes(), token.authenticator())
    }
}
