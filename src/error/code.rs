//! Stable integer codes for [`Error`]: the encoding is described on
//! [`Error::code`].

use super::{Error, Field, RngCode, SelfTestKind};

/// Every field, in the order of their codes (`Field::code` is the index + 1).
const FIELDS: [Field; 31] = [
    Field::IssuerName,
    Field::RedemptionContext,
    Field::OriginInfo,
    Field::Authenticator,
    Field::Message,
    Field::Batch,
    Field::Challenge,
    Field::TokenKey,
    Field::MaxAge,
    Field::Token,
    Field::Key,
    Field::OriginName,
    Field::EncryptedTokenRequest,
    Field::Directory,
    Field::IssuerRequestUri,
    Field::TokenKeys,
    Field::TokenType,
    Field::NotBefore,
    Field::Validity,
    Field::State,
    Field::BlindInverse,
    Field::Extensions,
    Field::Extension,
    Field::PresentationLimit,
    Field::RateLimit,
    Field::Presentation,
    Field::CredentialContext,
    Field::Info,
    Field::ExtensionSet,
    Field::DeploymentId,
    Field::HiddenMetadata,
];

/// The token types a `WrongTokenType` can expect, numbered from 1.
const EXPECTED_TYPES: [u16; 6] = [0x0001, 0x0002, 0x0003, 0x0005, 0xDA7A, 0xE5AC];

/// Expected types numbered after [`EXPECTED_OTHER`], from 8 (the numbers of
/// older types never change).
const EXPECTED_TYPES_LATER: [u16; 1] = [0xDA7B];

/// `e` for a `WrongTokenType` whose expected type is not in [`EXPECTED_TYPES`].
const EXPECTED_OTHER: u32 = 7;

/// Every self-test kind, in the order of their codes.
const SELF_TESTS: [SelfTestKind; 6] = [
    SelfTestKind::PrivateP384Request,
    SelfTestKind::PrivateP384Token,
    SelfTestKind::PublicRsa2048Request,
    SelfTestKind::PublicRsa2048Token,
    SelfTestKind::PrivateRistretto255Request,
    SelfTestKind::PrivateRistretto255Token,
];

/// The largest RNG code carried as it is; the fixed codes sit above it.
const RNG_DRIVER_MAX: u32 = 0x7F_FFFC;
const RNG_INTERNAL: u32 = 0x7F_FFFD;
const RNG_EXHAUSTED: u32 = 0x7F_FFFE;
const RNG_UNKNOWN: u32 = 0x7F_FFFF;

impl Field {
    /// The field's stable number, 1 to 29 (see [`Error::code`]).
    pub const fn code(self) -> u8 {
        match self {
            Field::IssuerName => 1,
            Field::RedemptionContext => 2,
            Field::OriginInfo => 3,
            Field::Authenticator => 4,
            Field::Message => 5,
            Field::Batch => 6,
            Field::Challenge => 7,
            Field::TokenKey => 8,
            Field::MaxAge => 9,
            Field::Token => 10,
            Field::Key => 11,
            Field::OriginName => 12,
            Field::EncryptedTokenRequest => 13,
            Field::Directory => 14,
            Field::IssuerRequestUri => 15,
            Field::TokenKeys => 16,
            Field::TokenType => 17,
            Field::NotBefore => 18,
            Field::Validity => 19,
            Field::State => 20,
            Field::BlindInverse => 21,
            Field::Extensions => 22,
            Field::Extension => 23,
            Field::PresentationLimit => 24,
            Field::RateLimit => 25,
            Field::Presentation => 26,
            Field::CredentialContext => 27,
            Field::Info => 28,
            Field::ExtensionSet => 29,
            Field::DeploymentId => 30,
            Field::HiddenMetadata => 31,
        }
    }

    /// The field with this [`Field::code`], if any.
    pub fn from_code(code: u8) -> Option<Self> {
        FIELDS.get(usize::from(code.checked_sub(1)?)).copied()
    }
}

impl SelfTestKind {
    /// The kind's stable number, 1 to 6, in declaration order.
    pub const fn code(self) -> u8 {
        match self {
            SelfTestKind::PrivateP384Request => 1,
            SelfTestKind::PrivateP384Token => 2,
            SelfTestKind::PublicRsa2048Request => 3,
            SelfTestKind::PublicRsa2048Token => 4,
            SelfTestKind::PrivateRistretto255Request => 5,
            SelfTestKind::PrivateRistretto255Token => 6,
        }
    }

    /// The kind with this [`SelfTestKind::code`], if any.
    pub fn from_code(code: u8) -> Option<Self> {
        SELF_TESTS.get(usize::from(code.checked_sub(1)?)).copied()
    }
}

const fn rng_detail(code: RngCode) -> u32 {
    match code {
        RngCode::UNKNOWN => RNG_UNKNOWN,
        RngCode::EXHAUSTED => RNG_EXHAUSTED,
        RngCode::INTERNAL => RNG_INTERNAL,
        RngCode(c) if c <= RNG_DRIVER_MAX => c,
        RngCode(_) => RNG_UNKNOWN,
    }
}

/// `e` of a `WrongTokenType`: the expected type's place in [`EXPECTED_TYPES`], from 1.
const fn expected_number(expected: u16) -> u32 {
    match expected {
        0x0001 => 1,
        0x0002 => 2,
        0x0003 => 3,
        0x0005 => 4,
        0xDA7A => 5,
        0xE5AC => 6,
        0xDA7B => 8,
        _ => EXPECTED_OTHER,
    }
}

impl Error {
    /// The variant's stable number, 1 to 40 (see [`Error::code`]).
    pub const fn kind_code(self) -> u8 {
        match self {
            Error::Truncated => 1,
            Error::TrailingBytes => 2,
            Error::BufferTooSmall => 3,
            Error::InvalidLength(_) => 4,
            Error::NonMinimalVarint => 5,
            Error::ValueTooLarge => 6,
            Error::InvalidValue(_) => 7,
            Error::UnknownTokenType(_) => 8,
            Error::WrongTokenType { .. } => 9,
            Error::KeyIdMismatch => 10,
            Error::KeyIdCollision => 11,
            Error::ChallengeMismatch => 12,
            Error::MalformedHeader => 13,
            Error::MissingParameter(_) => 14,
            Error::DuplicateParameter(_) => 15,
            Error::InvalidBase64 => 16,
            Error::MalformedJson => 17,
            Error::NoMatchingKey => 18,
            Error::KeyNotYetValid => 19,
            Error::Replayed => 20,
            Error::ReplayStoreFull => 21,
            Error::InvalidElement => 22,
            Error::InvalidScalar => 23,
            Error::InvalidKey => 24,
            Error::Verification => 25,
            Error::DeriveKeyPair => 26,
            Error::Rng(_) => 27,
            Error::CapacityExceeded => 28,
            Error::UnsortedExtensions => 29,
            Error::ExtensionsMismatch => 30,
            Error::RequestKeyMismatch => 31,
            Error::UnknownOrigin => 32,
            Error::RateLimited => 33,
            Error::OriginIdConflict => 34,
            Error::StateSpent => 35,
            Error::UnknownStateVersion(_) => 36,
            Error::PresentationLimitReached => 37,
            Error::SelfTest(_) => 38,
            Error::ReplayWindowExpired => 39,
            Error::NotSafePrime => 40,
        }
    }

    /// What the variant carries, as a number below 2^23 (see [`Error::code`]).
    pub const fn detail(self) -> u32 {
        match self {
            Error::InvalidLength(f)
            | Error::InvalidValue(f)
            | Error::MissingParameter(f)
            | Error::DuplicateParameter(f) => f.code() as u32,
            Error::UnknownTokenType(t) => t as u32,
            Error::WrongTokenType { expected, found } => found as u32 | expected_number(expected) << 16,
            Error::Rng(code) => rng_detail(code),
            Error::UnknownStateVersion(v) => v as u32,
            Error::SelfTest(kind) => kind.code() as u32,
            _ => 0,
        }
    }

    /// The error as a stable negative `i32`, for callers that cannot hold a Rust
    /// enum: the C API (`pat-capi`), firmware logs, a status word sent over a
    /// bus.
    ///
    /// An error's code is negative; zero is left for success:
    ///
    /// ```text
    /// code   = -(kind + 256 × detail)
    /// kind   = 1 ..= 40, one per variant (new variants take the next number)
    /// detail = what the variant carries, else 0:
    ///   InvalidLength, InvalidValue, MissingParameter, DuplicateParameter
    ///                        the field's code, Field::code (1 ..= 29)
    ///   UnknownTokenType     the type code (0 ..= 0xFFFF)
    ///   WrongTokenType       found + 0x10000 × e, where e numbers the expected
    ///                        type: 1 = 0x0001, 2 = 0x0002, 3 = 0x0003,
    ///                        4 = 0x0005, 5 = 0xDA7A, 6 = 0xE5AC, 8 = 0xDA7B
    ///                        (7: another type)
    ///   Rng                  the RngCode: a driver's code as it is (0 ..= 0x7F_FFFC),
    ///                        INTERNAL 0x7F_FFFD, EXHAUSTED 0x7F_FFFE, UNKNOWN 0x7F_FFFF
    ///   UnknownStateVersion  the version byte
    ///   SelfTest             the SelfTestKind, 1 ..= 6 in declaration order
    /// ```
    ///
    /// The magnitude stays below 2^31, so every code fits an `int32_t`.
    /// [`Error::from_code`] inverts this for every error the library
    /// returns. Two values have no code of their own: a driver's RNG code above
    /// 0x7F_FFFC is reported as [`RngCode::UNKNOWN`], and a `WrongTokenType`
    /// whose `expected` is not one of the six types above gets `e = 7`, which
    /// [`Error::from_code`] refuses. The library itself only ever expects one of
    /// its own types, so neither happens except with a driver's large codes.
    ///
    /// Codes are part of the API: a released kind, field or detail never changes
    /// its number, and new variants take the next free one below 100 (the C
    /// API numbers its own call faults from 100).
    pub const fn code(self) -> i32 {
        // kind < 2^8 and detail < 2^23: the sum is below 2^31.
        -((self.kind_code() as u32 | self.detail() << 8) as i32)
    }

    /// The error whose [`Error::code`] is `code`; `None` for zero, positive
    /// values and anything no error encodes to.
    pub fn from_code(code: i32) -> Option<Self> {
        if code >= 0 || code == i32::MIN {
            return None;
        }
        let magnitude = code.unsigned_abs();
        let detail = magnitude >> 8;
        let byte = u8::try_from(detail).ok();
        let field = byte.and_then(Field::from_code);
        let error = match magnitude & 0xFF {
            1 => Error::Truncated,
            2 => Error::TrailingBytes,
            3 => Error::BufferTooSmall,
            4 => match field {
                Some(f) => return Some(Error::InvalidLength(f)),
                None => return None,
            },
            5 => Error::NonMinimalVarint,
            6 => Error::ValueTooLarge,
            7 => match field {
                Some(f) => return Some(Error::InvalidValue(f)),
                None => return None,
            },
            8 => return u16::try_from(detail).ok().map(Error::UnknownTokenType),
            9 => {
                let e = usize::try_from(detail >> 16).ok()?.checked_sub(1)?;
                let expected = match e.checked_sub(7) {
                    Some(later) => *EXPECTED_TYPES_LATER.get(later)?,
                    None => *EXPECTED_TYPES.get(e)?,
                };
                let found = u16::try_from(detail & 0xFFFF).ok()?;
                return Some(Error::WrongTokenType { expected, found });
            }
            10 => Error::KeyIdMismatch,
            11 => Error::KeyIdCollision,
            12 => Error::ChallengeMismatch,
            13 => Error::MalformedHeader,
            14 => match field {
                Some(f) => return Some(Error::MissingParameter(f)),
                None => return None,
            },
            15 => match field {
                Some(f) => return Some(Error::DuplicateParameter(f)),
                None => return None,
            },
            16 => Error::InvalidBase64,
            17 => Error::MalformedJson,
            18 => Error::NoMatchingKey,
            19 => Error::KeyNotYetValid,
            20 => Error::Replayed,
            21 => Error::ReplayStoreFull,
            22 => Error::InvalidElement,
            23 => Error::InvalidScalar,
            24 => Error::InvalidKey,
            25 => Error::Verification,
            26 => Error::DeriveKeyPair,
            27 => {
                return Some(Error::Rng(match detail {
                    RNG_UNKNOWN => RngCode::UNKNOWN,
                    RNG_EXHAUSTED => RngCode::EXHAUSTED,
                    RNG_INTERNAL => RngCode::INTERNAL,
                    d => RngCode(d),
                }));
            }
            28 => Error::CapacityExceeded,
            29 => Error::UnsortedExtensions,
            30 => Error::ExtensionsMismatch,
            31 => Error::RequestKeyMismatch,
            32 => Error::UnknownOrigin,
            33 => Error::RateLimited,
            34 => Error::OriginIdConflict,
            35 => Error::StateSpent,
            36 => return byte.map(Error::UnknownStateVersion),
            37 => Error::PresentationLimitReached,
            38 => return byte.and_then(SelfTestKind::from_code).map(Error::SelfTest),
            39 => Error::ReplayWindowExpired,
            40 => Error::NotSafePrime,
            _ => return None,
        };
        // Variants without data carry detail 0.
        if detail == 0 { Some(error) } else { None }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    /// One value of every variant, with every field, type, version and
    /// self-test kind where the variant carries one.
    fn every_error(mut f: impl FnMut(Error)) {
        let plain = [
            Error::Truncated,
            Error::TrailingBytes,
            Error::BufferTooSmall,
            Error::NonMinimalVarint,
            Error::ValueTooLarge,
            Error::KeyIdMismatch,
            Error::KeyIdCollision,
            Error::ChallengeMismatch,
            Error::MalformedHeader,
            Error::InvalidBase64,
            Error::MalformedJson,
            Error::NoMatchingKey,
            Error::KeyNotYetValid,
            Error::Replayed,
            Error::ReplayStoreFull,
            Error::ReplayWindowExpired,
            Error::InvalidElement,
            Error::InvalidScalar,
            Error::InvalidKey,
            Error::Verification,
            Error::DeriveKeyPair,
            Error::NotSafePrime,
            Error::CapacityExceeded,
            Error::UnsortedExtensions,
            Error::ExtensionsMismatch,
            Error::RequestKeyMismatch,
            Error::UnknownOrigin,
            Error::RateLimited,
            Error::OriginIdConflict,
            Error::StateSpent,
            Error::PresentationLimitReached,
        ];
        plain.into_iter().for_each(&mut f);
        for field in FIELDS {
            f(Error::InvalidLength(field));
            f(Error::InvalidValue(field));
            f(Error::MissingParameter(field));
            f(Error::DuplicateParameter(field));
        }
        for t in [0, 1, 2, 3, 5, 0x00ff, 0xDA7A, 0xE5AC, 0xFFFF] {
            f(Error::UnknownTokenType(t));
            for expected in EXPECTED_TYPES.into_iter().chain(EXPECTED_TYPES_LATER) {
                f(Error::WrongTokenType { expected, found: t });
            }
        }
        for code in [0, 1, 5, 0xFFFF, RNG_DRIVER_MAX] {
            f(Error::Rng(RngCode::new(code)));
        }
        for code in [RngCode::UNKNOWN, RngCode::EXHAUSTED, RngCode::INTERNAL] {
            f(Error::Rng(code));
        }
        for v in [0, 1, 2, 0xFF] {
            f(Error::UnknownStateVersion(v));
        }
        SELF_TESTS.into_iter().map(Error::SelfTest).for_each(f);
    }

    #[test]
    fn every_error_round_trips_to_a_distinct_negative_code() {
        let mut seen = heapless::Vec::<i32, 256>::new();
        every_error(|e| {
            let code = e.code();
            assert!(code < 0, "{e:?} -> {code}");
            assert_eq!(Error::from_code(code), Some(e), "{e:?} -> {code}");
            assert_eq!(i32::from(e.kind_code()), -code & 0xFF);
            seen.push(code).unwrap();
        });
        seen.sort_unstable();
        assert!(seen.windows(2).all(|w| w[0] != w[1]), "two errors share a code");
        // Every kind from 1 to 40 is used.
        let mut kinds = [false; 41];
        seen.iter().for_each(|c| kinds[(-c & 0xFF) as usize] = true);
        assert!(kinds[1..].iter().all(|&k| k) && !kinds[0]);
    }

    #[test]
    fn published_numbers_do_not_move() {
        assert_eq!(Error::Truncated.code(), -1);
        assert_eq!(Error::Verification.code(), -25);
        assert_eq!(Error::ReplayWindowExpired.code(), -39);
        assert_eq!(Error::NotSafePrime.code(), -40);
        assert_eq!(Error::SelfTest(SelfTestKind::PrivateRistretto255Token).code(), -(38 + 256 * 6));
        assert_eq!(Error::InvalidLength(Field::Key).code(), -(4 + 256 * 11));
        assert_eq!(Error::InvalidValue(Field::CredentialContext).code(), -(7 + 256 * 27));
        assert_eq!(Error::WrongTokenType { expected: 2, found: 1 }.code(), -(9 + 256 * (1 + 0x10000 * 2)));
        assert_eq!(Error::Rng(RngCode::UNKNOWN).code(), -(27 + 256 * 0x7F_FFFF));
        assert_eq!(Error::UnknownTokenType(0xFFFF).code(), -(8 + 256 * 0xFFFF));
    }

    #[test]
    fn codes_outside_the_mapping_are_refused() {
        for code in [0, 1, i32::MAX, i32::MIN, -41, -(40 + 256), -255, -(1 + 256), -(4 + 256 * 32), -(4 + 256 * 300)] {
            assert_eq!(Error::from_code(code), None, "{code}");
        }
        // A WrongTokenType with an expected type of its own numbers as 7, which does not decode.
        let odd = Error::WrongTokenType { expected: 0x1234, found: 1 };
        assert_eq!(Error::from_code(odd.code()), None);
        // 0xDA7B, numbered after the `other` slot, decodes as itself.
        let da7b = Error::WrongTokenType { expected: 0xDA7B, found: 1 };
        assert_eq!(da7b.code(), -(9 + 256 * (1 + 0x10000 * 8)));
        assert_eq!(Error::from_code(da7b.code()), Some(da7b));
        assert_eq!(Error::from_code(-(9 + 256 * (1 + 0x10000 * 9))), None);
        // A driver code above the carried range is reported as UNKNOWN.
        assert_eq!(Error::from_code(Error::Rng(RngCode::new(0x0080_0000)).code()), Some(Error::Rng(RngCode::UNKNOWN)));
        assert_eq!(Field::from_code(0), None);
        assert_eq!(Field::from_code(29), Some(Field::ExtensionSet));
        assert_eq!(Field::from_code(31), Some(Field::HiddenMetadata));
        assert_eq!(Field::from_code(32), None);
        assert_eq!(SelfTestKind::from_code(7), None);
    }
}
