//! Properties checked by the cargo-fuzz targets in `fuzz/` (not a stable API).
//!
//! Each function takes arbitrary bytes and panics only if a property of the
//! library is violated: parsing never panics; whatever parses re-encodes to
//! the same bytes; what fails, fails with an error. The fuzz targets are
//! one-line shims into these functions, and `tests/fuzz_corpus.rs` replays the
//! committed seed corpus through them on every `cargo test`.
#![allow(clippy::panic, clippy::missing_panics_doc)]

// One job per file: `decode.rs` holds the decode → re-encode checks of the
// parser targets, `encode.rs` the `encode_roundtrip` target, which builds
// messages from fuzzer-chosen fields and checks encode → decode. This file
// keeps the target table and the helper both use. `metadata.rs` holds the
// parser targets of token type 0xDA7A, whose messages need 64 KiB buffers,
// `poprf.rs` those of token type 0xDA7B (each message also through the role
// that receives it, played by a fixed issuer and client), `arc.rs` those
// of ARC (token type 0xE5AC), its states and its keys, and `athm.rs` those of
// ATHM (token type 0xC07E), its state and its keys, with the reference
// vectors' issuer and client as the fixture, and `act.rs` the one target of
// the ACT crypto layer's decoders (a selector byte, then the CBOR), with the
// appendix vectors' issuer as the fixture.

mod act;
mod arc;
mod athm;
mod decode;
mod encode;
mod metadata;
mod poprf;

use crate::wire::codec::Encode;

pub use act::act_messages;
pub use arc::{arc_challenge, arc_credential_response, arc_presentation, arc_state, arc_token, arc_token_request};
pub use athm::{athm_keys, type_c07e_request, type_c07e_response, type_c07e_state, type_c07e_token};
pub use decode::{
    amortized_request, authorization, batch_request, batch_response, challenge, directory, encap_key, inner_request,
    private_request, rsa_pkcs8, rsa_spki, token, type1_request, type2_request, type3_request, type5_request, varint,
    www_authenticate,
};
pub use encode::{ROUNDTRIP_MESSAGES, encode_roundtrip};
pub use metadata::{authorization_extensions, extensions, type_da7a_request};
pub use poprf::{type_da7b_request, type_da7b_response, type_da7b_seeds, type_da7b_state, type_da7b_token};

/// A property check over arbitrary input.
pub type Check = fn(&[u8]);

/// The fuzz targets, by name, for corpus replay.
pub const TARGETS: [(&str, Check); 37] = [
    ("challenge", challenge),
    ("token", token),
    ("www_authenticate", www_authenticate),
    ("authorization", authorization),
    ("varint", varint),
    ("type3_request", type3_request),
    ("encap_key", encap_key),
    ("inner_request", inner_request),
    ("batch_request", batch_request),
    ("batch_response", batch_response),
    ("rsa_spki", rsa_spki),
    ("rsa_pkcs8", rsa_pkcs8),
    ("type1_request", type1_request),
    ("type5_request", type5_request),
    ("type2_request", type2_request),
    ("amortized_request", amortized_request),
    ("encode_roundtrip", encode_roundtrip),
    ("directory", directory),
    ("extensions", extensions),
    ("type_da7a_request", type_da7a_request),
    ("authorization_extensions", authorization_extensions),
    ("type_da7b_request", type_da7b_request),
    ("type_da7b_response", type_da7b_response),
    ("type_da7b_token", type_da7b_token),
    ("type_da7b_state", type_da7b_state),
    ("arc_challenge", arc_challenge),
    ("arc_token_request", arc_token_request),
    ("arc_credential_response", arc_credential_response),
    ("arc_presentation", arc_presentation),
    ("arc_token", arc_token),
    ("arc_state", arc_state),
    ("type_c07e_request", type_c07e_request),
    ("type_c07e_response", type_c07e_response),
    ("type_c07e_token", type_c07e_token),
    ("type_c07e_state", type_c07e_state),
    ("athm_keys", athm_keys),
    ("act_messages", act_messages),
];

/// Re-encodes `msg` and compares with `data` when it fits a 4 KiB buffer;
/// longer messages must at least report the input's length.
fn reencodes_to(msg: &impl Encode, data: &[u8]) {
    assert_eq!(msg.encoded_len(), data.len());
    let mut out = [0u8; 4096];
    if let Some(out) = out.get_mut(..data.len()) {
        assert_eq!(msg.encode(out), Ok(data.len()));
        assert_eq!(out, data);
    }
}
