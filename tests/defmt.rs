//! With the `defmt` feature, the public types a firmware logs implement
//! `defmt::Format`. Only the bounds are checked: printing needs a defmt
//! logger, which a host test does not link.
#![cfg(feature = "defmt")]

fn implements_format<T: defmt::Format>() {}

#[test]
fn loggable_types_implement_format() {
    implements_format::<pat::Error>();
    implements_format::<pat::Field>();
    implements_format::<pat::RngCode>();
    implements_format::<pat::SelfTestKind>();
    implements_format::<pat::TokenKind>();
    implements_format::<pat::wire::token_type::MessageLen>();
    implements_format::<pat::wire::token_type::PrivateP384>();
    implements_format::<pat::wire::token_type::PublicRsa2048>();
    implements_format::<pat::wire::token_type::RateLimitedRsa2048>();
    implements_format::<pat::wire::token_type::PrivateRistretto255>();
}
