//! # Hazardous: deterministic blind RSA entry points
//!
//! These functions take the client's salt and blind `r` as arguments, so
//! that the known answers of RFC 9474 Appendix A and RFC 9578 Appendix A.2
//! can be reproduced. They exist for tests only.
//!
//! **Never use them to issue or redeem real tokens.** The issuer sees the
//! blinded message `m·r^e`; a blind that is reused, predictable or chosen by
//! someone else lets it recompute that value from the finished token and so
//! link the redemption to the issuance, which removes the unlinkability
//! Privacy Pass exists for. A reused salt makes two encodings of the same
//! input equal. The randomized [`Variant::blind`](crate::crypto::blind_rsa::Variant::blind) and
//! [`blind_rsa::blind`](crate::crypto::blind_rsa::blind) draw both from a cryptographic
//! generator, and also blind the inversion of `r` (see `blind_core`), which
//! these functions do in constant time without that extra blind.

pub use crate::crypto::blind_rsa::deterministic::{
    Kernel, active_kernel, blind_variant_with, blind_with, force_kernel, partial_blind_with,
};
