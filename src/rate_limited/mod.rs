//! Rate-limited issuance primitives (token type 0x0003,
//! draft-ietf-privacypass-rate-limit-tokens).
