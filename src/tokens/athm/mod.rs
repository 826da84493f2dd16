//! Token type 0xC07E, ATHM(P-256): tokens that carry a value only the
//! issuer can read (draft-yun-privacypass-athm-00, on the ATHM of
//! [`crate::crypto::athm`]).
//!
//! ```text
//! TokenKey      = Z ‖ C_x ‖ C_y ‖ e ‖ a_z                  (99 + 64 = 163 bytes)
//! issuer_key_id = SHA-256(Z ‖ C_x ‖ C_y)                   (the key without its proof)
//! TokenRequest  = token_type (0xC07E) ‖ truncated_issuer_key_id ‖ T[33]      (36 bytes)
//! TokenResponse = U ‖ V ‖ ts ‖ proof                       (response_len(N); 483 for N = 4)
//! Token         = token_type ‖ issuer_key_id[32] ‖ t ‖ P ‖ Q                 (132 bytes)
//! ```
//!
//! The issuer picks a value below N for each request (a signal about the
//! client it saw at issuance) and reads it back when the token is
//! redeemed; the client only learns that the value is one of the N. ATHM
//! is privately verifiable, so the issuer and the origin are one party
//! ([`Issuer`] does both), the draft's joint deployment model.
//!
//! The draft binds no challenge into the token (no nonce, no challenge
//! digest): tokens may be fetched before any challenge and are redeemed
//! once each. The redeemer keeps t, which a token cannot be re-randomized
//! away from ((t, k·P, k·Q) verifies as well), in its
//! [`ReplayStore`](crate::deploy::replay::ReplayStore)
//! ([`Issuer::redeem`]).
//!
//! The draft's text has slips that its structures settle: it writes the type
//! once as 0xC7D3 and lists Nk = 48 (the token is 98 bytes after its key
//! id); pat uses 0xC07E and the structures' sizes, as the reference code
//! does. How a token travels is not written down; pat uses RFC 9577's
//! `Authorization: PrivateToken token=…`. The published key is the draft's
//! `publicKey` with its proof, so a client checks the proof once when it
//! loads the key.
//!
//! # Example
//!
//! ```rust
//! use pat::crypto::athm::{Params, PrivateKey};
//! use pat::deploy::replay::MemoryReplayStore;
//! use pat::tokens::athm::{Client, Issuer, Token, TokenRequest};
//! use pat::wire::codec::{Decode, Encode};
//! use pat::{Error, OsRng};
//!
//! # fn main() -> pat::Result<()> {
//! let mut rng = pat::rand_core::UnwrapErr(OsRng);
//! let params = Params::<4>::new(b"example deployment")?;
//! let issuer = Issuer::new(params, PrivateKey::generate(&params, &mut rng)?.0)?;
//!
//! let client = Client::from_token_key(params, &issuer.token_key())?;
//! let (state, request) = client.request(&mut rng)?;
//! let mut wire = [0u8; pat::tokens::athm::REQUEST_LEN];
//! request.encode(&mut wire)?;
//! // The issuer hides 2 (of 0..4) in the token.
//! let response = issuer.issue(&TokenRequest::decode(&wire)?, 2, &mut rng)?;
//! let token = client.finalize(&state, &response, &mut rng)?;
//!
//! let mut seen = MemoryReplayStore::<64>::new([0x42; 32]); // use a secret random key
//! let (now, expires_at) = (1_000, 1_000 + 3_600);
//! let mut bytes = [0u8; pat::tokens::athm::TOKEN_LEN];
//! token.encode(&mut bytes)?;
//! assert_eq!(issuer.redeem(&Token::decode(&bytes)?, &mut seen, expires_at, now)?, 2);
//! assert_eq!(issuer.redeem(&token, &mut seen, expires_at, now), Err(Error::Replayed));
//! # Ok(())
//! # }
//! ```

mod client;
mod issuer;
mod wire;

pub use client::{Client, RequestState};
pub use issuer::Issuer;
pub use wire::{Token, TokenRequest};

use crate::crypto::athm::{PublicKey, PublicKeyProof, TokenRequest as AthmRequest};
use crate::wire::token_type::KEY_ID_LEN;

/// The token type code point.
pub const TOKEN_TYPE: u16 = 0xC07E;
/// Length of the published token key: the public key and its proof.
pub const TOKEN_KEY_LEN: usize = PublicKey::LEN + PublicKeyProof::LEN;
/// Length of a `TokenRequest`: type ‖ truncated key id ‖ T.
pub const REQUEST_LEN: usize = 2 + 1 + AthmRequest::LEN;
/// Length of a `Token`: type ‖ key id ‖ t ‖ P ‖ Q.
pub const TOKEN_LEN: usize = 2 + KEY_ID_LEN + crate::crypto::athm::Token::LEN;

/// The origin of type 0xC07E is its issuer.
pub type Origin<'p, const N: usize> = Issuer<'p, N>;
