//! Token type 0xE5AC, ARC(P-256): rate-limited tokens from one anonymous
//! credential (draft-ietf-privacypass-arc-protocol-01, on the ARC of
//! [`crate::crypto::arc`]).
//!
//! ```text
//! TokenChallenge     = token_type (0xE5AC) ‖ issuer_name<1..2^16-1>
//!                      ‖ redemption_context<0..32> ‖ origin_info<0..2^16-1>
//!                      ‖ credential_context<0..32>
//! CredentialRequest  = token_type ‖ truncated_issuer_key_id ‖ encoded_request[226]
//! CredentialResponse = encoded_response[454]
//! Token              = token_type ‖ presentation_nonce (u32) ‖ challenge_digest[32]
//!                      ‖ issuer_key_id[32] ‖ presentation[Npresentation]
//! ```
//!
//! One issuance gives a [`Credential`] bound to the challenge's issuer,
//! origin_info and credential_context (the request context, arc-protocol-01 §7.1); each
//! token is a presentation bound to its issuer, origin_info and
//! redemption_context (the presentation context, §8.1), under the
//! presentation limit the origin announces (the `rate-limit` attribute of
//! its HTTP challenge). ARC is privately verifiable: the issuer and the
//! origin are one party ([`Issuer`] does both), and the tag of each
//! presentation is what it keeps to refuse a replay ([`Issuer::redeem`]).
//!
//! Not in [`TokenKind`](crate::TokenKind): an ARC token is not
//! `token_input ‖ authenticator` and its length depends on the limit, so the
//! registry's generic paths (token parsing, batches, key sets) do not apply.
//!
//! The token's `presentation_nonce` is carried as the draft says, but
//! nothing verifies it: the presentation proves its hidden nonce is below
//! the limit, and the field is the client's claim. A client that fills it
//! in truthfully tells the origin how many presentations it has made, which
//! the crypto layer otherwise hides; see docs/security.md.
//!
//! # Example
//!
//! An ARC credential is issued once and then presented up to a limit the origin
//! announces; each token is unlinkable, and its tag lets the issuer-origin
//! refuse a replay.
//!
//! ```rust
//! use pat::crypto::arc::{CredentialResponse, ServerPrivateKey};
//! use pat::wire::codec::{Decode, Encode};
//! use pat::deploy::replay::MemoryReplayStore;
//! use pat::tokens::arc::{ArcChallenge, ArcToken, Client, Issuer, TokenRequest, token_len};
//! use pat::{Error, OsRng};
//!
//! # fn main() -> pat::Result<()> {
//! let mut rng = pat::rand_core::UnwrapErr(OsRng);
//! let issuer = Issuer::new(ServerPrivateKey::generate(&mut rng)?);
//! let challenge = ArcChallenge::new(b"issuer.example", &[], b"origin.example", &[])?;
//!
//! // Issuance, once: request, response, finalize.
//! let client = Client::from_token_key(&issuer.token_key())?;
//! let (request_state, request) = client.request(&challenge, &mut rng)?;
//! let mut wire = [0u8; pat::tokens::arc::REQUEST_LEN];
//! request.encode(&mut wire)?;
//! let response = issuer.issue(&TokenRequest::decode(&wire)?, &mut rng)?;
//! let credential = client.finalize(&request_state, &CredentialResponse::decode(&response.to_bytes())?)?;
//!
//! // Redemption, up to the limit: three tokens, then no more.
//! const LIMIT: u64 = 3;
//! let mut state = client.presentation_state(&credential, &challenge, LIMIT)?;
//! let mut seen = MemoryReplayStore::<64>::new([0x42; 32]); // use a secret random key
//! let mut token = [0u8; 1024];
//! for _ in 0..LIMIT {
//!     let len = client.token(&mut state, &challenge, &mut rng, &mut token)?;
//!     let parsed = ArcToken::decode(&token[..len], LIMIT)?;
//!     // Spent tags are kept two windows of the challenge's max-age and a margin.
//!     let now = 1_000; // the caller's clock, in seconds
//!     let expires_at = pat::deploy::replay::windowed_expiry(now, 60, pat::deploy::replay::CLOCK_SKEW_MARGIN);
//!     issuer.redeem(&parsed, &challenge, LIMIT, &mut seen, expires_at, now)?;
//! }
//! assert_eq!(client.token(&mut state, &challenge, &mut rng, &mut token), Err(Error::PresentationLimitReached));
//! # let _ = token_len(LIMIT)?;
//! # Ok(())
//! # }
//! ```

use rand_core::TryCryptoRng;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::{expect_type, truncated_key_id};
use crate::crypto::arc::messages::{self as arc_messages, PresentationRef};
use crate::crypto::arc::{
    Credential, CredentialRequest, CredentialRequestState, CredentialResponse, PresentationState, ServerPrivateKey,
    ServerPublicKey,
};
use crate::error::{Error, Field, Result};
use crate::wire::challenge::{MAX_NAME_LEN, REDEMPTION_CONTEXT_LEN, TokenChallenge};
use crate::wire::codec::{Decode, Encode, Reader, Writer};
use crate::wire::token_type::{CHALLENGE_DIGEST_LEN, KEY_ID_LEN};

/// The token type code point.
pub const TOKEN_TYPE: u16 = 0xE5AC;
/// Length of a non-empty `credential_context`.
pub const CREDENTIAL_CONTEXT_LEN: usize = 32;
/// Length of a `CredentialRequest`: type ‖ truncated key id ‖ request.
pub const REQUEST_LEN: usize = 2 + 1 + arc_messages::REQUEST_LEN;
/// Length of a `CredentialResponse`.
pub const RESPONSE_LEN: usize = arc_messages::RESPONSE_LEN;
/// Length of a token without its presentation.
pub const TOKEN_HEADER_LEN: usize = 2 + 4 + CHALLENGE_DIGEST_LEN + KEY_ID_LEN;
/// The longest token (a limit of 2^32).
pub const TOKEN_MAX_LEN: usize = TOKEN_HEADER_LEN + arc_messages::PRESENTATION_MAX_LEN;

/// Length of a token under `limit`.
pub fn token_len(limit: u64) -> Result<usize> {
    Ok(TOKEN_HEADER_LEN + arc_messages::presentation_len(limit)?)
}

/// An ARC `TokenChallenge` (arc-protocol-01 §6): the RFC 9577 fields with the
/// type fixed to 0xE5AC, and the `credential_context` (empty or 32 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArcChallenge<'a> {
    inner: TokenChallenge<'a>,
    credential_context: Option<&'a [u8; CREDENTIAL_CONTEXT_LEN]>,
}

fn credential_context_of(bytes: &[u8]) -> Result<Option<&[u8; CREDENTIAL_CONTEXT_LEN]>> {
    match bytes.len() {
        0 => Ok(None),
        _ => Ok(Some(bytes.try_into().map_err(|_| Error::InvalidLength(Field::CredentialContext))?)),
    }
}

fn len16(field: &[u8]) -> [u8; 2] {
    u16::try_from(field.len()).unwrap_or(u16::MAX).to_be_bytes()
}

impl<'a> ArcChallenge<'a> {
    /// A challenge with the names checked as [`TokenChallenge::new`] checks
    /// them; `credential_context` must be empty or 32 bytes.
    pub fn new(
        issuer_name: &'a [u8],
        redemption_context: &'a [u8],
        origin_info: &'a [u8],
        credential_context: &'a [u8],
    ) -> Result<Self> {
        let inner = TokenChallenge::new(TOKEN_TYPE, issuer_name, redemption_context, origin_info)?;
        Ok(Self { inner, credential_context: credential_context_of(credential_context)? })
    }

    /// A challenge checked for structure only, as decoding does.
    pub fn new_opaque(
        issuer_name: &'a [u8],
        redemption_context: &'a [u8],
        origin_info: &'a [u8],
        credential_context: &'a [u8],
    ) -> Result<Self> {
        let inner = TokenChallenge::new_opaque(TOKEN_TYPE, issuer_name, redemption_context, origin_info)?;
        Ok(Self { inner, credential_context: credential_context_of(credential_context)? })
    }

    /// The RFC 9577 fields.
    pub const fn challenge(&self) -> &TokenChallenge<'a> {
        &self.inner
    }

    /// The `credential_context` (empty or 32 bytes).
    pub fn credential_context(&self) -> &'a [u8] {
        match self.credential_context {
            Some(c) => c,
            None => &[],
        }
    }

    /// SHA-256 of the encoding, the token's `challenge_digest`.
    pub fn digest(&self) -> [u8; CHALLENGE_DIGEST_LEN] {
        let c = &self.inner;
        let mut h = Sha256::new();
        h.update(TOKEN_TYPE.to_be_bytes());
        h.update(len16(c.issuer_name()));
        h.update(c.issuer_name());
        // redemption_context is 0 or 32 bytes: one length byte.
        h.update([u8::try_from(c.redemption_context().len()).unwrap_or(0)]);
        h.update(c.redemption_context());
        h.update(len16(c.origin_info()));
        h.update(c.origin_info());
        h.update([u8::try_from(self.credential_context().len()).unwrap_or(0)]);
        h.update(self.credential_context());
        h.finalize().into()
    }

    /// The request context of issuance (arc-protocol-01 §7.1), in parts.
    pub fn request_context(&self, issuer_key_id: &[u8; KEY_ID_LEN]) -> Context<'a> {
        Context::new(self.inner.issuer_name(), self.inner.origin_info(), self.credential_context(), issuer_key_id)
    }

    /// The presentation context of a token (arc-protocol-01 §8.1), in parts.
    pub fn presentation_context(&self, issuer_key_id: &[u8; KEY_ID_LEN]) -> Context<'a> {
        Context::new(self.inner.issuer_name(), self.inner.origin_info(), self.inner.redemption_context(), issuer_key_id)
    }
}

impl<'a> Decode<'a> for ArcChallenge<'a> {
    fn decode_from(r: &mut Reader<'a>) -> Result<Self> {
        expect_type(r, TOKEN_TYPE)?;
        let issuer_name = r.u16_prefixed(1, MAX_NAME_LEN, Field::IssuerName)?;
        let redemption_context = r.u8_prefixed(0, REDEMPTION_CONTEXT_LEN, Field::RedemptionContext)?;
        let origin_info = r.u16_prefixed(0, MAX_NAME_LEN, Field::OriginInfo)?;
        let credential_context = r.u8_prefixed(0, CREDENTIAL_CONTEXT_LEN, Field::CredentialContext)?;
        Self::new_opaque(issuer_name, redemption_context, origin_info, credential_context)
    }
}

impl Encode for ArcChallenge<'_> {
    fn encoded_len(&self) -> usize {
        self.inner.encoded_len() + 1 + self.credential_context().len()
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        self.inner.encode_into(w)?;
        w.u8_prefixed(self.credential_context())
    }
}

/// A request or presentation context: len ‖ issuer_name ‖ len ‖ origin_info
/// ‖ len ‖ context ‖ issuer_key_id, kept as parts (nothing is copied).
#[derive(Clone, Copy, Debug)]
pub struct Context<'a> {
    lens: [[u8; 2]; 3],
    issuer_name: &'a [u8],
    origin_info: &'a [u8],
    context: &'a [u8],
    key_id: [u8; KEY_ID_LEN],
}

impl<'a> Context<'a> {
    fn new(issuer_name: &'a [u8], origin_info: &'a [u8], context: &'a [u8], key_id: &[u8; KEY_ID_LEN]) -> Self {
        Self {
            lens: [len16(issuer_name), len16(origin_info), len16(context)],
            issuer_name,
            origin_info,
            context,
            key_id: *key_id,
        }
    }

    /// The parts, whose concatenation is the context.
    pub fn parts(&self) -> [&[u8]; 7] {
        let [a, b, c] = &self.lens;
        [a, self.issuer_name, b, self.origin_info, c, self.context, &self.key_id]
    }
}

/// A `CredentialRequest` (arc-protocol-01 §7.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenRequest {
    /// The last byte of the issuer key id.
    pub truncated_key_id: u8,
    /// The ARC request.
    pub request: CredentialRequest,
}

impl Decode<'_> for TokenRequest {
    fn decode_from(r: &mut Reader<'_>) -> Result<Self> {
        expect_type(r, TOKEN_TYPE)?;
        let truncated_key_id = r.u8()?;
        let request = CredentialRequest::decode(r.take(arc_messages::REQUEST_LEN)?)?;
        Ok(Self { truncated_key_id, request })
    }
}

impl Encode for TokenRequest {
    fn encoded_len(&self) -> usize {
        REQUEST_LEN
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        w.u16(TOKEN_TYPE)?;
        w.u8(self.truncated_key_id)?;
        w.put(&self.request.to_bytes())
    }
}

/// An ARC token, under the name every family uses (the same type as
/// [`ArcToken`]).
pub type Token<'a> = ArcToken<'a>;

/// ARC's origin is its issuer: presentations are checked with the server's
/// secret key ([`Issuer::verify`], and `redeem` with a replay store).
pub type Origin = Issuer;

/// A decoded ARC token, borrowing its presentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArcToken<'a> {
    /// `presentation_nonce`, as the client wrote it (unverified).
    pub presentation_nonce: u32,
    /// SHA-256 of the challenge.
    pub challenge_digest: [u8; CHALLENGE_DIGEST_LEN],
    /// SHA-256 of the issuer's public key.
    pub issuer_key_id: [u8; KEY_ID_LEN],
    /// The encoded presentation.
    pub presentation: &'a [u8],
}

impl<'a> ArcToken<'a> {
    /// Decodes a token made under `limit`: exactly [`token_len`]`(limit)`
    /// bytes. The presentation is decoded when the token is verified.
    pub fn decode(bytes: &'a [u8], limit: u64) -> Result<Self> {
        let want = token_len(limit)?;
        let mut r = Reader::new(bytes);
        expect_type(&mut r, TOKEN_TYPE)?;
        let presentation_nonce = u32::from_be_bytes(*r.array::<4>()?);
        let challenge_digest = *r.array::<CHALLENGE_DIGEST_LEN>()?;
        let issuer_key_id = *r.array::<KEY_ID_LEN>()?;
        let presentation = r.take(want - TOKEN_HEADER_LEN)?;
        r.finish()?;
        Ok(Self { presentation_nonce, challenge_digest, issuer_key_id, presentation })
    }

    /// Writes the token into `out`; returns its length.
    pub fn encode(&self, out: &mut [u8]) -> Result<usize> {
        let len = TOKEN_HEADER_LEN + self.presentation.len();
        let mut w = Writer::new(out.get_mut(..len).ok_or(Error::BufferTooSmall)?);
        w.u16(TOKEN_TYPE)?;
        w.put(&self.presentation_nonce.to_be_bytes())?;
        w.put(&self.challenge_digest)?;
        w.put(&self.issuer_key_id)?;
        w.put(self.presentation)?;
        Ok(len)
    }
}

/// The client of type 0xE5AC, for one issuer key.
#[derive(Clone, Debug)]
pub struct Client {
    public_key: ServerPublicKey,
    key_id: [u8; KEY_ID_LEN],
}

impl Client {
    /// A client for the issuer key `token_key` (the 99-byte ServerPublicKey).
    pub fn from_token_key(token_key: &[u8]) -> Result<Self> {
        let public_key = ServerPublicKey::decode(token_key)?;
        Ok(Self { key_id: public_key.key_id(), public_key })
    }

    /// The issuer key id.
    pub fn key_id(&self) -> &[u8; KEY_ID_LEN] {
        &self.key_id
    }

    /// The credential request for `challenge` (arc-protocol-01 §7.1).
    pub fn request<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        challenge: &ArcChallenge<'_>,
        rng: &mut R,
    ) -> Result<(CredentialRequestState, TokenRequest)> {
        let ctx = challenge.request_context(&self.key_id);
        let (state, request) = CredentialRequestState::new(&ctx.parts(), rng)?;
        Ok((state, TokenRequest { truncated_key_id: truncated_key_id(&self.key_id), request }))
    }

    /// Credential finalization (arc-protocol-01 §7.3).
    pub fn finalize(&self, state: &CredentialRequestState, response: &CredentialResponse) -> Result<Credential> {
        state.finalize(&self.public_key, response)
    }

    /// The presentation state for the presentation context of `challenge`
    /// under `limit` (arc-protocol-01 §8.1). Keep it, exported if need be, for
    /// every later token for the same context.
    pub fn presentation_state(
        &self,
        credential: &Credential,
        challenge: &ArcChallenge<'_>,
        limit: u64,
    ) -> Result<PresentationState> {
        PresentationState::new(credential, &challenge.presentation_context(&self.key_id).parts(), limit)
    }

    /// A token for `challenge` from `state` (arc-protocol-01 §8.1), written into
    /// `out` ([`token_len`] of the state's limit); returns its length.
    /// [`Error::ChallengeMismatch`] if `state` is for another presentation
    /// context, [`Error::PresentationLimitReached`] once it is used up.
    pub fn token<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        state: &mut PresentationState,
        challenge: &ArcChallenge<'_>,
        rng: &mut R,
        out: &mut [u8],
    ) -> Result<usize> {
        if !state.is_for(&challenge.presentation_context(&self.key_id).parts())? {
            return Err(Error::ChallengeMismatch);
        }
        let len = token_len(state.limit())?;
        let out = out.get_mut(..len).ok_or(Error::BufferTooSmall)?;
        let (header, presentation) = out.split_at_mut(TOKEN_HEADER_LEN);
        let p = state.present(rng, presentation)?;
        let mut w = Writer::new(header);
        w.u16(TOKEN_TYPE)?;
        w.put(&p.nonce.to_be_bytes())?;
        w.put(&challenge.digest())?;
        w.put(&self.key_id)?;
        Ok(len)
    }
}

/// The issuer and origin of type 0xE5AC (one party: ARC is privately
/// verifiable), for one key.
#[derive(Debug)]
pub struct Issuer {
    key: ServerPrivateKey,
    key_id: [u8; KEY_ID_LEN],
}

/// The key inside wipes itself on drop.
impl zeroize::ZeroizeOnDrop for Issuer {}

impl Issuer {
    /// An issuer with `key`.
    pub fn new(key: ServerPrivateKey) -> Self {
        let key_id = key.public_key().key_id();
        Self { key, key_id }
    }

    /// The token key to publish: the 99-byte ServerPublicKey.
    pub fn token_key(&self) -> [u8; ServerPublicKey::LEN] {
        self.key.public_key().to_bytes()
    }

    /// The issuer key id, SHA-256 of [`token_key`](Self::token_key).
    pub fn key_id(&self) -> &[u8; KEY_ID_LEN] {
        &self.key_id
    }

    /// The secret key.
    pub fn secret_key(&self) -> &ServerPrivateKey {
        &self.key
    }

    /// The credential response (arc-protocol-01 §7.2):
    /// [`Error::KeyIdMismatch`] for a request for another key,
    /// [`Error::Verification`] if its proof fails.
    pub fn issue<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        request: &TokenRequest,
        rng: &mut R,
    ) -> Result<CredentialResponse> {
        if request.truncated_key_id != truncated_key_id(&self.key_id) {
            return Err(Error::KeyIdMismatch);
        }
        self.key.respond(&request.request, rng)
    }

    /// Token verification (arc-protocol-01 §8.2) for `challenge` under `limit`;
    /// returns the presentation tag, which the caller must refuse to see
    /// twice ([`redeem`](Self::redeem), from the deployment layer, does both).
    pub fn verify(&self, token: &ArcToken<'_>, challenge: &ArcChallenge<'_>, limit: u64) -> Result<[u8; 33]> {
        if !bool::from(token.challenge_digest.ct_eq(&challenge.digest())) {
            return Err(Error::ChallengeMismatch);
        }
        if !bool::from(token.issuer_key_id.ct_eq(&self.key_id)) {
            return Err(Error::KeyIdMismatch);
        }
        let presentation = PresentationRef::decode(token.presentation, limit)?;
        self.key.verify_presentation(
            &challenge.request_context(&self.key_id).parts(),
            &challenge.presentation_context(&self.key_id).parts(),
            &presentation,
            limit,
        )?;
        Ok(*presentation.tag())
    }
}

/// The 32-byte replay-store entry of a presentation tag: SHA-256 of the tag.
pub fn tag_id(tag: &[u8; 33]) -> [u8; 32] {
    Sha256::digest(tag).into()
}
