//! The one hex formatter: public bytes (keys, key ids, encodings) as
//! lowercase hex in `Debug` output. Secrets are never printed (see
//! `secret`).

use core::fmt;

/// Formats public bytes as lowercase hex.
pub(crate) struct Hex<'a>(pub(crate) &'a [u8]);

impl fmt::Debug for Hex<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

/// `name(hex)`, the `Debug` form of a type that is a public byte string.
pub(crate) fn debug_bytes(f: &mut fmt::Formatter<'_>, name: &str, bytes: &[u8]) -> fmt::Result {
    write!(f, "{name}({:?})", Hex(bytes))
}

/// Lowercase or uppercase hex to `N` bytes, for `const` items only: a bad
/// digit or a length other than `2·N` digits stops the build (a failed
/// `assert!` in const evaluation is a compile error, never a runtime panic).
/// The known answers of [`crate::self_test`] keep the vector files' hex this
/// way, so that a grep finds them in the file they come from.
pub(crate) const fn decode<const N: usize>(hex: &str) -> [u8; N] {
    assert!(hex.len() == 2 * N, "hex string of the wrong length");
    let mut out = [0u8; N];
    let mut digits = hex.as_bytes();
    let mut bytes: &mut [u8] = &mut out;
    while let ([hi, lo, rest @ ..], [byte, tail @ ..]) = (digits, bytes) {
        *byte = (digit(*hi) << 4) | digit(*lo);
        digits = rest;
        bytes = tail;
    }
    out
}

/// The value of one hex digit; anything else stops the build (see [`decode`]).
const fn digit(c: u8) -> u8 {
    assert!(c.is_ascii_hexdigit(), "not a hex digit");
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => c - b'A' + 10,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn decodes_both_cases() {
        const BYTES: [u8; 4] = super::decode("00a0Ff19");
        assert_eq!(BYTES, [0x00, 0xa0, 0xff, 0x19]);
    }
}
