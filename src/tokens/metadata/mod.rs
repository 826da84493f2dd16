//! Token type 0xDA7A, publicly verifiable tokens with public metadata
//! (draft-ietf-privacypass-public-metadata-issuance, on the partially blind
//! RSA of [`crate::crypto::blind_rsa::partial`]).
//!
//! ```text
//! ExtendedTokenRequest = token_type (0xDA7A) ‖ truncated_token_key_id
//!                        ‖ blinded_msg[256] ‖ Extensions
//! TokenResponse        = blind_sig[256]
//! Token                = token_input[98] ‖ authenticator[256]
//! ```
//!
//! The metadata is an [`Extensions`] list. Its encoding (length prefix
//! included) is the `info` of RSAPBSSA-SHA384-PSS-Deterministic: the issuer
//! signs with the key pair derived for it, and the token verifies only
//! together with the same extensions, which the client sends next to the
//! token (`Authorization: PrivateToken token=…, extensions=…`,
//! [`crate::wire::auth::write_authorization_with_extensions`]). The token itself
//! has the type 0x0002 layout; only its type code differs.
//!
//! The token key is the issuer's RSA-2048 public key in the RSASSA-PSS SPKI
//! encoding, as for type 0x0002, and token_key_id its SHA-256. The key's
//! primes must be safe primes
//! (`SecretKey::generate_safe`, feature `keygen`).
//!
//! Costs: the derived exponent e′ has 1024 bits instead of 17, so the
//! client's blinding and its verification in finalize, the issuer's fault
//! check and the origin's verification are each a full 1024-bit-exponent
//! power modulo n (about twice an RSA-2048 signature). The issuer also
//! inverts e′ modulo p − 1 and q − 1 for every request
//! ([`Issuer::derive`] does it once for a metadata value that repeats).

use rand_core::TryCryptoRng;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::{expect_type, random_nonce, truncated_key_id};
use crate::crypto::blind_rsa::partial::{DerivedPublicKey, DerivedSecretKey};
use crate::crypto::blind_rsa::{BlindingState, MODULUS_LEN, PreparedMessage, PublicKey, SecretKey, Variant};
use crate::error::{Error, Result};
use crate::tokens::blind_rsa_client::{RsaRequestState, token_input};
use crate::tokens::state::{self, ExportedState, Shape};
use crate::wire::challenge::TokenChallenge;
use crate::wire::codec::{Decode, Encode, Reader, Writer};
use crate::wire::extensions::Extensions;
use crate::wire::token::{Token as WireToken, TokenInput};
use crate::wire::token_type::{KEY_ID_LEN, PublicMetadataRsa2048, TOKEN_INPUT_LEN, TokenKind, TokenType};

pub use crate::tokens::public::TokenResponse;

// Deterministic variants (explicit blinds, nonces, salts): public only as
// `crate::hazmat`, used inside the crate by the power-on self-test and tests.
#[cfg_attr(not(feature = "hazmat"), allow(dead_code))]
pub(crate) mod deterministic;

/// The partially blind RSA variant of token type 0xDA7A.
pub const VARIANT: Variant = Variant::Sha384PssDeterministic;

/// A type 0xDA7A token.
pub type MetadataToken = WireToken<MODULUS_LEN>;

/// A type 0xDA7A token, under the name every family uses (the same type as
/// [`MetadataToken`]).
pub type Token = MetadataToken;

/// The length of an extensions digest kept in a [`RequestState`].
const EXTENSIONS_DIGEST_LEN: usize = 32;

/// ExtendedTokenRequest for type 0xDA7A: the type 0x0002 request layout
/// with the type code 0xDA7A, followed by the extensions it is for.
#[derive(Clone, PartialEq, Eq)]
pub struct TokenRequest<'a> {
    /// Last byte of the issuer's token key id.
    pub truncated_token_key_id: u8,
    /// The blinded PSS-encoded `msg_prime` of the token input.
    pub blinded_msg: [u8; MODULUS_LEN],
    /// The public metadata the token will carry.
    pub extensions: Extensions<'a>,
}

impl core::fmt::Debug for TokenRequest<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TokenRequest")
            .field("truncated_token_key_id", &self.truncated_token_key_id)
            .field("extensions", &self.extensions)
            .finish_non_exhaustive()
    }
}

impl<'a> Decode<'a> for TokenRequest<'a> {
    fn decode_from(r: &mut Reader<'a>) -> Result<Self> {
        expect_type(r, PublicMetadataRsa2048::CODE)?;
        let truncated_token_key_id = r.u8()?;
        let blinded_msg = *r.array()?;
        Ok(Self { truncated_token_key_id, blinded_msg, extensions: Extensions::decode_from(r)? })
    }
}

impl Encode for TokenRequest<'_> {
    fn encoded_len(&self) -> usize {
        2 + 1 + MODULUS_LEN + self.extensions.encoded_len()
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        w.u16(PublicMetadataRsa2048::CODE)?;
        w.u8(self.truncated_token_key_id)?;
        w.put(&self.blinded_msg)?;
        self.extensions.encode_into(w)
    }
}

/// SHA-256 of an extensions encoding: what a [`RequestState`] keeps of the
/// extensions, so that finalize can check that it gets the same ones.
fn extensions_digest(extensions: &Extensions<'_>) -> [u8; EXTENSIONS_DIGEST_LEN] {
    Sha256::digest(extensions.as_bytes()).into()
}

/// What the client keeps between [`Client::request`] and
/// [`Client::finalize`]: the token input, the blind inverse (secret, wiped
/// on drop) and the SHA-256 of the extensions (the extensions themselves,
/// public and up to 64 KiB, stay with the caller). Not `Copy`; `Debug`
/// shows only the token input.
///
/// A successful finalize spends it ([`Error::StateSpent`] afterwards).
/// [`RequestState::export`] and [`RequestState::import`] keep it across a
/// reset ([`crate::tokens::state`]).
pub struct RequestState {
    core: RsaRequestState,
    extensions_digest: [u8; EXTENSIONS_DIGEST_LEN],
}

impl core::fmt::Debug for RequestState {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RequestState").field("input", self.core.input()).finish_non_exhaustive()
    }
}

/// The blinding state wipes itself on drop.
impl zeroize::ZeroizeOnDrop for RequestState {}

impl RequestState {
    /// The length of the exported state: 388 bytes (version, shape, token
    /// input, blind inverse, extensions digest).
    pub const STATE_LEN: usize = state::HEADER_LEN + TOKEN_INPUT_LEN + MODULUS_LEN + EXTENSIONS_DIGEST_LEN;

    /// The token input the request covers.
    pub const fn input(&self) -> &TokenInput {
        self.core.input()
    }

    /// The state as [`Self::STATE_LEN`] bytes (a secret: see
    /// [`crate::tokens::state`]). A spent state is [`Error::StateSpent`].
    pub fn export(&self) -> Result<ExportedState<[u8; Self::STATE_LEN]>> {
        self.core.check_unspent()?;
        state::export(Shape::One, |w| {
            self.core.write(w)?;
            w.put(&self.extensions_digest)
        })
    }

    /// The state [`Self::export`] wrote, for `client`, with the checks of
    /// the type 0x0002 state.
    pub fn import(client: &Client, bytes: &[u8]) -> Result<Self> {
        state::import(bytes, Self::STATE_LEN, Shape::One, |r| {
            let core = RsaRequestState::read(TokenKind::PublicMetadataRsa2048, &client.key, r)?;
            let extensions_digest = *r.array::<EXTENSIONS_DIGEST_LEN>()?;
            Ok(Self { core, extensions_digest })
        })
    }

    /// Whether a token was finalized with this state.
    pub const fn is_spent(&self) -> bool {
        self.core.is_spent()
    }
}

/// The client side of type 0xDA7A.
#[derive(Clone, Debug)]
pub struct Client {
    key: PublicKey,
}

impl Client {
    /// A client for the issuer whose token key (RSASSA-PSS SPKI, 342 bytes) is given.
    pub fn from_token_key(spki: &[u8]) -> Result<Self> {
        Ok(Self { key: PublicKey::from_spki(spki)? })
    }

    /// A client for an issuer public key.
    pub const fn new(key: PublicKey) -> Self {
        Self { key }
    }

    /// The issuer key's token_key_id.
    pub const fn key_id(&self) -> &[u8; KEY_ID_LEN] {
        self.key.key_id()
    }

    fn input(&self, challenge: &TokenChallenge<'_>, nonce: &[u8; 32]) -> Result<TokenInput> {
        token_input(TokenKind::PublicMetadataRsa2048, challenge, nonce, self.key.key_id())
    }

    fn request_for<'e>(
        &self,
        input: TokenInput,
        extensions: Extensions<'e>,
        blinded_msg: [u8; MODULUS_LEN],
        blinding: BlindingState,
    ) -> (TokenRequest<'e>, RequestState) {
        let request =
            TokenRequest { truncated_token_key_id: truncated_key_id(self.key.key_id()), blinded_msg, extensions };
        let extensions_digest = extensions_digest(&extensions);
        (request, RequestState { core: RsaRequestState::new(input, blinding), extensions_digest })
    }

    /// Builds a request for `challenge` carrying `extensions`, with a fresh
    /// nonce, salt and blind.
    pub fn request<'e, R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        challenge: &TokenChallenge<'_>,
        extensions: Extensions<'e>,
        rng: &mut R,
    ) -> Result<(TokenRequest<'e>, RequestState)> {
        let input = self.input(challenge, &random_nonce(rng)?)?;
        let derived: DerivedPublicKey<'_, '_> = DerivedPublicKey::new(&self.key, extensions.as_bytes())?;
        let (blinded, blinding) = derived.blind(VARIANT, &PreparedMessage::identity(input.as_bytes()), rng)?;
        Ok(self.request_for(input, extensions, blinded, blinding))
    }

    /// Unblinds the response and verifies it under the key derived for
    /// `extensions`, which must be the extensions of the request
    /// ([`Error::ExtensionsMismatch`] otherwise, checked before anything
    /// else). A signature that does not verify is [`Error::Verification`]
    /// and leaves the state usable; success spends it.
    pub fn finalize(
        &self,
        state: &mut RequestState,
        extensions: &Extensions<'_>,
        response: &TokenResponse,
    ) -> Result<MetadataToken> {
        state.core.check_unspent()?;
        if !bool::from(state.extensions_digest.ct_eq(&extensions_digest(extensions))) {
            return Err(Error::ExtensionsMismatch);
        }
        let derived: DerivedPublicKey<'_, '_> = DerivedPublicKey::new(&self.key, extensions.as_bytes())?;
        state.core.finalize(|input, blinding| {
            derived.finalize(VARIANT, &PreparedMessage::identity(input), blinding, &response.blind_sig)
        })
    }
}

/// The issuer side of type 0xDA7A. Not `Copy`; `Debug` shows only the
/// public key.
pub struct Issuer {
    key: SecretKey,
}

impl core::fmt::Debug for Issuer {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Issuer").field("public_key", self.key.public_key()).finish_non_exhaustive()
    }
}

/// The RSA key wipes itself on drop.
impl zeroize::ZeroizeOnDrop for Issuer {}

impl Issuer {
    /// An issuer with the given private key, whose primes must be safe
    /// primes (see the module docs).
    pub const fn new(key: SecretKey) -> Self {
        Self { key }
    }

    /// The public key.
    pub const fn public_key(&self) -> &PublicKey {
        self.key.public_key()
    }

    /// The token key to publish: the 342-byte RSASSA-PSS SPKI.
    pub fn token_key(&self) -> [u8; 342] {
        self.key.public_key().to_spki_array()
    }

    /// The token_key_id.
    pub const fn key_id(&self) -> &[u8; KEY_ID_LEN] {
        self.key.public_key().key_id()
    }

    /// The signing key derived for `extensions` (`DeriveKeyPair`), to sign
    /// many requests with the same metadata through [`Self::evaluate_with`].
    pub fn derive(&self, extensions: &Extensions<'_>) -> Result<DerivedSecretKey<'_>> {
        DerivedSecretKey::new(&self.key, extensions.as_bytes())
    }

    /// Signs a request: checks its truncated key id against this key
    /// ([`Error::KeyIdMismatch`]), derives the key pair for its extensions
    /// and signs in constant time, checking the signature before it is
    /// returned. Which extensions to accept is the caller's policy: read
    /// `request.extensions` before calling this.
    pub fn evaluate(&self, request: &TokenRequest<'_>) -> Result<TokenResponse> {
        self.check_key_id(request)?;
        let derived = self.derive(&request.extensions)?;
        Ok(TokenResponse { blind_sig: derived.blind_sign(&request.blinded_msg)? })
    }

    /// [`Self::evaluate`] with a key derived beforehand by [`Self::derive`]
    /// for the request's extensions. A key derived from another issuer key
    /// is [`Error::KeyIdMismatch`]; one derived for other extensions is
    /// [`Error::ExtensionsMismatch`] (checked by digest before signing, so a
    /// cache lookup that returns the wrong key never signs).
    pub fn evaluate_with(&self, derived: &DerivedSecretKey<'_>, request: &TokenRequest<'_>) -> Result<TokenResponse> {
        self.check_key_id(request)?;
        if derived.base().public_key() != self.key.public_key() {
            return Err(Error::KeyIdMismatch);
        }
        if !derived.is_for(request.extensions.as_bytes()) {
            return Err(Error::ExtensionsMismatch);
        }
        Ok(TokenResponse { blind_sig: derived.blind_sign(&request.blinded_msg)? })
    }

    fn check_key_id(&self, request: &TokenRequest<'_>) -> Result<()> {
        if request.truncated_token_key_id == truncated_key_id(self.key_id()) {
            Ok(())
        } else {
            Err(Error::KeyIdMismatch)
        }
    }
}

/// Origin verification for type 0xDA7A.
#[derive(Clone, Debug)]
pub struct Origin {
    key: PublicKey,
}

impl Origin {
    /// An origin trusting the issuer with this public key.
    pub const fn new(key: PublicKey) -> Self {
        Self { key }
    }

    /// The issuer public key.
    pub const fn public_key(&self) -> &PublicKey {
        &self.key
    }

    /// Verifies a token with the extensions that came with it: its type, its
    /// key id, the challenge digest against the challenge the origin sent,
    /// then the signature under the key derived for `extensions`. Whether
    /// the extensions are acceptable is the caller's policy. A bad
    /// signature, or extensions other than the issued ones, is
    /// [`Error::Verification`].
    pub fn verify(
        &self,
        token: &MetadataToken,
        challenge: &TokenChallenge<'_>,
        extensions: &Extensions<'_>,
    ) -> Result<()> {
        crate::tokens::public::check_token_input(&self.key, TokenKind::PublicMetadataRsa2048, token, challenge)?;
        let input = token.input();
        let derived: DerivedPublicKey<'_, '_> = DerivedPublicKey::new(&self.key, extensions.as_bytes())?;
        derived.verify(VARIANT, &PreparedMessage::identity(input.as_bytes()), token.authenticator())
    }
}
