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
