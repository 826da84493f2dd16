//! The client of type 0x0003 (draft "Client-to-Attester Request",
//! "Attester-to-Client Response"): it builds the signed TokenRequest with the
//! HPKE-encrypted inner request, and turns the issuer's encrypted response
//! into a token.

use core::fmt;

use rand_core::TryCryptoRng;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use super::{Config, HEADER_LEN, RESPONSE_LEN, RateLimitedToken, SIGNATURE_LEN, digest, request_len};
use crate::crypto::blind_rsa::{self, BlindingState, MODULUS_LEN, PublicKey};
use crate::crypto::key_blinding::ecdsa_p384::{self as ecdsa, BlindKey, BlindKeyEncoding, SCALAR_LEN};
use crate::crypto::rate_limited::TOKEN_TYPE;
use crate::crypto::rate_limited::alias::{self, CTX_CLIENT};
use crate::crypto::rate_limited::encap::{ENCAP_KEY_ID_LEN, EncapKey};
use crate::crypto::rate_limited::inner_request::InnerTokenRequest;
use crate::crypto::rate_limited::origin_encryption::{self, ENC_LEN, EncapSecret, SECRET_LEN};
use crate::crypto::rate_limited::response;
use crate::error::{Error, Field, Result};
use crate::tokens::blind_rsa_client::{RsaRequestState, token_input};
use crate::tokens::random_nonce;
use crate::tokens::state::{self, ExportedState, Shape};
use crate::wire::challenge::TokenChallenge;
use crate::wire::codec::{Reader, Writer};
use crate::wire::token::TokenInput;
use crate::wire::token_type::{NONCE_LEN, TOKEN_INPUT_LEN, TokenKind};

/// What the client keeps between [`Client::request`] and [`Client::finalize`]:
/// the token input, the RSA blind inverse, the HPKE response secret and
/// `request_blind`. Every secret is wiped on drop; `Debug` shows only the
/// token input.
///
/// A successful [`Client::finalize`] spends the state: it wipes every
/// secret (`request_blind` included), and a second finalize fails with
/// [`Error::StateSpent`].
///
/// To keep it across a reset, [`ClientState::export`] it to
/// [`ClientState::STATE_LEN`] bytes and [`ClientState::import`] them with
/// the same client ([`crate::tokens::state`] has the layout and the rules for
/// storing them).
pub struct ClientState {
    core: RsaRequestState,
    encap: EncapSecret,
    request_blind: BlindKey,
}

impl ClientState {
    /// The length of the exported state: 453 bytes (version, shape, token
    /// input, blind inverse, `enc`, the response secret, `request_blind` and
    /// its encoding).
    pub const STATE_LEN: usize =
        state::HEADER_LEN + TOKEN_INPUT_LEN + MODULUS_LEN + ENC_LEN + SECRET_LEN + SCALAR_LEN + 1;

    /// The token input the request covers.
    pub const fn input(&self) -> &TokenInput {
        self.core.input()
    }

    /// The state as [`Self::STATE_LEN`] bytes, to finalize after a reset with
    /// [`Self::import`]. The bytes hold the blind inverse, the response
    /// secret and `request_blind`: store them as a secret key
    /// ([`crate::tokens::state`]). A spent state is [`Error::StateSpent`].
    pub fn export(&self) -> Result<ExportedState<[u8; Self::STATE_LEN]>> {
        self.core.check_unspent()?;
        state::export(Shape::One, |w| {
            self.core.write(w)?;
            w.put(self.encap.enc())?;
            w.put(self.encap.secret())?;
            w.put(self.request_blind.to_bytes().as_ref())?;
            w.u8(match self.request_blind.encoding() {
                BlindKeyEncoding::Minimal => 0,
                BlindKeyEncoding::Fixed => 1,
            })
        })
    }

    /// The state [`Self::export`] wrote, for `client`: it finalizes exactly
    /// as the original. Checks the length, the version, the token type, the
    /// token key id against `client`'s token key, the blind inverse (in
    /// [1, n)) and the blind encoding byte, each with its own error (listed
    /// in [`crate::tokens::state`]).
    pub fn import(client: &Client, bytes: &[u8]) -> Result<Self> {
        Self::import_for_token_key(&client.token_key, bytes)
    }

    /// [`Self::import`] with the issuer's token key alone: finalizing
    /// ([`ClientState::finalize`]) needs no more, so a device can finish a
    /// request without loading its long-term secret again.
    pub fn import_for_token_key(token_key: &PublicKey, bytes: &[u8]) -> Result<Self> {
        state::import(bytes, Self::STATE_LEN, Shape::One, |r| Self::read(token_key, r))
    }

    fn read(token_key: &PublicKey, r: &mut Reader<'_>) -> Result<Self> {
        let core = RsaRequestState::read(TokenKind::RateLimitedRsa2048, token_key, r)?;
        let encap = EncapSecret::from_parts(r.array::<ENC_LEN>()?, r.array::<SECRET_LEN>()?);
        let blind = r.array::<SCALAR_LEN>()?;
        let encoding = match r.u8()? {
            0 => BlindKeyEncoding::Minimal,
            1 => BlindKeyEncoding::Fixed,
            _ => return Err(Error::InvalidValue(Field::State)),
        };
        Ok(Self { core, encap, request_blind: BlindKey::with_encoding(blind, encoding) })
    }

    /// `request_blind`, which the client sends to its attester with the
    /// request (draft "Client-to-Attester Request"). Secret towards everyone
    /// else: with it and the client key, the request links to the client.
    pub const fn request_blind(&self) -> &BlindKey {
        &self.request_blind
    }

    /// Whether a token was finalized with this state (its secrets are wiped).
    pub const fn is_spent(&self) -> bool {
        self.core.is_spent()
    }

    /// [`Client::finalize`] with the issuer's token key alone (the key the
    /// request was made for; another is [`Error::KeyIdMismatch`]), for a
    /// state imported with [`Self::import_for_token_key`]. The same checks,
    /// errors and spending rules.
    pub fn finalize(&mut self, token_key: &PublicKey, encrypted_token_response: &[u8]) -> Result<RateLimitedToken> {
        self.core.check_unspent()?;
        if self.core.input().token_key_id() != token_key.key_id() {
            return Err(Error::KeyIdMismatch);
        }
        let response = <&[u8; RESPONSE_LEN]>::try_from(encrypted_token_response)
            .map_err(|_| Error::InvalidLength(Field::Message))?;
        let blind_sig = Zeroizing::new(response::decrypt_response(&self.encap, response)?);
        let token = self
            .core
            .token_unspent(|input, blinding| blind_rsa::finalize(token_key, input, blinding, blind_sig.as_slice()))?;
        self.spend();
        Ok(token)
    }

    /// Wipes every secret and marks the state spent.
    fn spend(&mut self) {
        self.core.spend();
        self.encap.wipe();
        self.request_blind.wipe();
    }
}

impl ZeroizeOnDrop for ClientState {}

impl fmt::Debug for ClientState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientState").field("input", self.core.input()).finish_non_exhaustive()
    }
}

/// The client side of type 0x0003 (draft "Client-to-Attester Request",
/// "Attester-to-Client Response"): its long-term ECDSA P-384 secret and the
/// issuer's encapsulation and token keys.
///
/// Flash of the client role on the device cores: docs/embedded.md.
pub struct Client {
    secret: ecdsa::SecretKey,
    client_key: ecdsa::PublicKey,
    encap_key: EncapKey,
    encap_key_id: [u8; ENCAP_KEY_ID_LEN],
    pub(super) token_key: PublicKey,
    pub(super) config: Config,
}

/// The ECDSA secret key wipes itself on drop.
impl ZeroizeOnDrop for Client {}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("client_key", &self.client_key)
            .field("encap_key", &self.encap_key)
            .field("token_key", &self.token_key)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A client with its long-term secret, the issuer's `EncapKey` and RSA token
    /// key, and pat-go's wire choices.
    pub fn new(secret: ecdsa::SecretKey, encap_key: EncapKey, token_key: PublicKey) -> Self {
        let client_key = secret.public_key();
        let encap_key_id = encap_key.id();
        Self { secret, client_key, encap_key, encap_key_id, token_key, config: Config::PAT_GO }
    }

    /// The same client with other wire choices.
    #[must_use]
    pub const fn with_config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    /// The client's public key, which its attester knows (the draft's Client Key).
    pub const fn client_key(&self) -> &ecdsa::PublicKey {
        &self.client_key
    }

    /// The issuer's token key.
    pub const fn token_key(&self) -> &PublicKey {
        &self.token_key
    }

    pub(super) fn input(&self, challenge: &TokenChallenge<'_>, nonce: &[u8; NONCE_LEN]) -> Result<TokenInput> {
        token_input(TokenKind::RateLimitedRsa2048, challenge, nonce, self.token_key.key_id())
    }

    /// Checks the origin name and returns the exact slice of `out` the request
    /// will fill.
    pub(super) fn request_buffer<'o>(origin_name: &[u8], out: &'o mut [u8]) -> Result<&'o mut [u8]> {
        let total = request_len(origin_name.len())?;
        if origin_name.last() == Some(&0) {
            return Err(Error::InvalidValue(Field::OriginName));
        }
        out.get_mut(..total).ok_or(Error::BufferTooSmall)
    }

    /// Builds a TokenRequest for `challenge` and `origin_name` into the front of
    /// `out` and returns its length with the state for [`Client::finalize`]
    /// (draft "Client-to-Attester Request"). Nonce, salt, RSA blind,
    /// `request_blind`, the HPKE ephemeral key and the ECDSA hedge are fresh.
    ///
    /// `out` needs [`request_len`]`(origin_name.len())` bytes (520 for names up
    /// to 32 bytes). Errors: [`Error::WrongTokenType`] for a challenge of
    /// another type; [`Error::InvalidLength`]/[`Error::InvalidValue`] with
    /// [`Field::OriginName`] for a name longer than [`MAX_ORIGIN_NAME_LEN`] or
    /// ending in a zero byte; [`Error::BufferTooSmall`]; [`Error::Rng`]. Nothing
    /// is written to `out` before these checks, and if a later step fails the
    /// request's bytes in `out` are zeroed.
    ///
    /// The origin name is not checked against the challenge's `origin_info`.
    ///
    /// [`MAX_ORIGIN_NAME_LEN`]: super::MAX_ORIGIN_NAME_LEN
    ///
    /// Instructions and peak stack of this call on the device cores: docs/embedded.md.
    pub fn request<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        challenge: &TokenChallenge<'_>,
        origin_name: &[u8],
        rng: &mut R,
        out: &mut [u8],
    ) -> Result<(usize, ClientState)> {
        let out = Self::request_buffer(origin_name, out)?;
        let input = self.input(challenge, &random_nonce(rng)?)?;
        let (blinded, blinding) = blind_rsa::blind(&self.token_key, input.as_bytes(), rng)?;
        let request_blind = BlindKey::random(rng, self.config.blind_encoding)?;
        let mut ikm_e = Zeroizing::new([0u8; ENC_LEN]);
        crate::rng::fill(rng, ikm_e.as_mut())?;
        self.assemble(input, &blinded, blinding, request_blind, origin_name, &ikm_e, out, rng)
    }

    /// Writes the request into `out` (exactly its length); zeroes `out` on error.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn assemble<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        input: TokenInput,
        blinded: &[u8; MODULUS_LEN],
        blinding: BlindingState,
        request_blind: BlindKey,
        origin_name: &[u8],
        ikm_e: &[u8; ENC_LEN],
        out: &mut [u8],
        rng: &mut R,
    ) -> Result<(usize, ClientState)> {
        let total = out.len();
        match self.fill(blinded, &request_blind, origin_name, ikm_e, out, rng) {
            Ok(encap) => Ok((total, ClientState { core: RsaRequestState::new(input, blinding), encap, request_blind })),
            Err(e) => {
                out.zeroize();
                Err(e)
            }
        }
    }

    fn fill<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        blinded: &[u8; MODULUS_LEN],
        request_blind: &BlindKey,
        origin_name: &[u8],
        ikm_e: &[u8; ENC_LEN],
        out: &mut [u8],
        rng: &mut R,
    ) -> Result<EncapSecret> {
        let (header, rest) = out.split_first_chunk_mut::<HEADER_LEN>().ok_or(Error::BufferTooSmall)?;
        let (ciphertext, signature) = rest.split_last_chunk_mut::<SIGNATURE_LEN>().ok_or(Error::BufferTooSmall)?;

        let request_key = alias::request_key(&self.client_key, request_blind, CTX_CLIENT)?.to_bytes();
        let inner =
            InnerTokenRequest::new(self.config.key_id_byte.truncate(self.token_key.key_id()), blinded, origin_name)?;
        let (n, encap) = origin_encryption::encrypt_with_ikm(
            &self.encap_key,
            &request_key,
            &inner,
            &self.config.labels,
            ikm_e,
            ciphertext,
        )?;
        let len = u16::try_from(n).map_err(|_| Error::InvalidLength(Field::EncryptedTokenRequest))?;
        if n != ciphertext.len() {
            return Err(Error::InvalidLength(Field::EncryptedTokenRequest));
        }
        let mut w = Writer::new(header);
        w.u16(TOKEN_TYPE)?;
        w.put(&request_key)?;
        w.put(&self.encap_key_id)?;
        w.u16(len)?;

        let digest = digest(header, ciphertext);
        let sig = ecdsa::blind_key_sign(&self.secret, request_blind, CTX_CLIENT, &digest, rng)?;
        *signature = sig.to_bytes();
        Ok(encap)
    }

    /// Decrypts the issuer's `encrypted_token_response` (288 bytes), unblinds
    /// the signature and verifies it before returning the token (draft
    /// "Attester-to-Client Response", RFC 9474 §4.4). A wrong length is
    /// [`Error::InvalidLength`]; a response that does not decrypt or a
    /// signature that does not verify is [`Error::Verification`].
    ///
    /// The state is borrowed mutably, not consumed. A response that fails
    /// (corrupted on the way, or for another request) returns the error and
    /// leaves the state as it was, ready for the genuine response. Success
    /// spends it: every secret is wiped, and a second finalize (or an
    /// export) fails with [`Error::StateSpent`], so one request gives one
    /// token. It is `&mut` rather than `&` because the call changes the
    /// state; a shared reference would hide that change behind interior
    /// mutability.
    ///
    /// Instructions and peak stack of this call on the device cores: docs/embedded.md.
    pub fn finalize(&self, state: &mut ClientState, encrypted_token_response: &[u8]) -> Result<RateLimitedToken> {
        state.finalize(&self.token_key, encrypted_token_response)
    }
}
