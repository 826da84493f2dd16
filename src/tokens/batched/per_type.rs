//! The three token types a generic batch carries (0x0001, 0x0002, 0x0005),
//! written once: `per_type_enum!` declares an enum with one variant per
//! type and what such enums have (`kind`, `From` each payload, and on request
//! the payload's `Debug` and decoding by token type); `per_type!` matches on
//! one with the same body for every variant.

/// `match $value { Self::PrivateP384($x) => $body, … }` with the same body for
/// each of the three variants.
macro_rules! per_type {
    ($value:expr, $x:ident => $body:expr) => {
        match $value {
            Self::PrivateP384($x) => $body,
            Self::PublicRsa2048($x) => $body,
            Self::PrivateRistretto255($x) => $body,
        }
    };
}

/// Declares a per-type enum with `kind()` and `From` each payload. Options in
/// parentheses after the name: `debug` gives it the payload's `Debug` (no
/// variant name); `decode` gives it `decode_as(token_type, reader)`, which
/// decodes the payload of that type and refuses any other type with
/// `UnknownTokenType`.
macro_rules! per_type_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident $(($($option:ident),+))? {
            $(#[$m1:meta])* PrivateP384($t1:ty),
            $(#[$m2:meta])* PublicRsa2048($t2:ty),
            $(#[$m3:meta])* PrivateRistretto255($t3:ty),
        }
    ) => {
        $(#[$meta])*
        pub enum $name {
            $(#[$m1])* PrivateP384($t1),
            $(#[$m2])* PublicRsa2048($t2),
            $(#[$m3])* PrivateRistretto255($t3),
        }

        impl $name {
            /// The token type.
            pub const fn kind(&self) -> crate::wire::token_type::TokenKind {
                use crate::wire::token_type::TokenKind;
                match self {
                    Self::PrivateP384(_) => TokenKind::PrivateP384,
                    Self::PublicRsa2048(_) => TokenKind::PublicRsa2048,
                    Self::PrivateRistretto255(_) => TokenKind::PrivateRistretto255,
                }
            }
        }

        impl From<$t1> for $name {
            fn from(x: $t1) -> Self {
                Self::PrivateP384(x)
            }
        }

        impl From<$t2> for $name {
            fn from(x: $t2) -> Self {
                Self::PublicRsa2048(x)
            }
        }

        impl From<$t3> for $name {
            fn from(x: $t3) -> Self {
                Self::PrivateRistretto255(x)
            }
        }

        $($(per_type_enum!(@$option $name);)+)?
    };
    (@debug $name:ident) => {
        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                per_type!(self, x => core::fmt::Debug::fmt(x, f))
            }
        }
    };
    (@decode $name:ident) => {
        impl $name {
            /// Decodes the payload of token type `code` from `r`; any other
            /// type is [`Error::UnknownTokenType`](crate::error::Error::UnknownTokenType).
            fn decode_as(code: u16, r: &mut crate::wire::codec::Reader<'_>) -> crate::error::Result<Self> {
                use crate::wire::codec::Decode;
                use crate::wire::token_type::{PrivateP384, PrivateRistretto255, PublicRsa2048, TokenType as _};
                match code {
                    PrivateP384::CODE => Ok(Self::PrivateP384(Decode::decode_from(r)?)),
                    PublicRsa2048::CODE => Ok(Self::PublicRsa2048(Decode::decode_from(r)?)),
                    PrivateRistretto255::CODE => Ok(Self::PrivateRistretto255(Decode::decode_from(r)?)),
                    other => Err(crate::error::Error::UnknownTokenType(other)),
                }
            }
        }
    };
}
