//! `pat` for WebAssembly: the clients of token types 0x0001 (VOPRF P-384),
//! 0x0002 (blind RSA 2048), 0x0005 (VOPRF ristretto255), 0xDA7A (blind
//! RSA with public metadata), 0xDA7B (POPRF P-384 with public metadata,
//! [`poprf`]), 0xE5AC (ARC, [`arc`]), 0xE5AD (ACT, [`act`]) and 0xC07E
//! (ATHM, [`athm`]), the issuers (which are also the origins) of 0x0001,
//! 0x0005, 0xDA7B, 0xE5AC, 0xE5AD and 0xC07E and the origins of 0x0002 and
//! 0xDA7A, amortized ([`amortized`])
//! and generic ([`batched`]) batches, the `PrivateToken` HTTP
//! authentication scheme (RFC 9577) and the issuer directory (RFC 9578 §4),
//! exported with `wasm-bindgen`.
//!
//! These exports are the low-level half of the package: byte strings in,
//! byte strings out, one exported type per token type. The ES module
//! `wasm/js/core.js` (re-exported by `index.js`, which loads the module)
//! wraps them in the classes a privacypass-ts user knows
//! (`TokenChallenge`, `WWWAuthenticateHeader`, `privateVerif.Client`, ...);
//! see `docs/wasm.md`. Built with `scripts/wasm`.
//!
//! - Every library error becomes a thrown JavaScript `Error` whose `code` is
//!   the name of the [`pat::Error`] variant and whose message is the
//!   library's ([`error`]); nothing here panics.
//! - Randomness comes from `crypto.getRandomValues` ([`rng`]); when it
//!   throws, the operation throws a `code: "Rng"` error with the exception as
//!   its `cause`.
//! - Client secrets (VOPRF and POPRF blinds, RSA blind inverses) live in
//!   the request objects inside the module's memory and are wiped when the
//!   request is finalized or freed (the library's `RequestState` zeroizes
//!   on drop); an issuer's secret key lives in its issuer object and is
//!   wiped when that is freed (the library's `Issuer` zeroizes on drop).
//!
//! The functions that take an explicit nonce, blind, salt or proof nonce
//! exist only with the `hazmat` feature ([`hazmat`]), for the known-answer
//! tests; the shipped package is built without it.
//!
//! The crate builds for the host too (as a workspace member): everything that
//! does not call into JavaScript is unit-tested there.

pub mod act;
pub mod amortized;
pub mod arc;
pub mod athm;
pub mod auth;
pub mod batched;
pub mod challenge;
pub mod directory;
pub mod error;
pub mod extension_set;
#[cfg(feature = "hazmat")]
pub mod hazmat;
pub mod metadata;
pub mod poprf;
pub mod private;
pub mod public;
pub mod rng;
#[cfg(test)]
mod testing;

use wasm_bindgen::JsValue;

/// Encodes a message into a fresh vector of exactly its length.
fn encode(msg: &impl pat::Encode) -> pat::Result<Vec<u8>> {
    let mut out = vec![0u8; msg.encoded_len()];
    let n = msg.encode(&mut out)?;
    out.truncate(n);
    Ok(out)
}

/// Encoded tokens as a JavaScript array, in order: a `Uint8Array` per
/// token, `undefined` where an entry has none (a generic batch's absent
/// entry). The batches return their tokens this way, so that JavaScript
/// never has to cut a run of concatenated tokens apart.
fn tokens_array<'t>(tokens: impl IntoIterator<Item = Option<&'t [u8]>>) -> js_sys::Array {
    tokens.into_iter().map(|t| t.map_or(JsValue::UNDEFINED, |t| js_sys::Uint8Array::from(t).into())).collect()
}
