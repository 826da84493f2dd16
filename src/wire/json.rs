//! A small, allocation-free JSON reader (RFC 8259) for the issuer directory
//! (RFC 9578 §4), and the string escaping its writer needs.
//!
//! Why not `serde-json-core`: the directory needs a typed error per field
//! (wrong type, duplicate, missing), [`Error::CapacityExceeded`] when the key
//! list outgrows the caller's bound, and unescaped strings that borrow from
//! caller storage for the directory's lifetime; through serde those become
//! one opaque custom error or need an owned string type. The grammar is small
//! enough to read directly: this module is a cursor over the bytes that reads
//! one value at a time, checks the full RFC 8259 grammar (strings, numbers,
//! literals, nesting) and never recurses, so its stack use does not depend on
//! the input. Skipped values may nest up to [`MAX_DEPTH`] levels.

use crate::error::{Error, Result};
use crate::wire::codec::Writer;

/// The deepest nesting of arrays and objects [`Reader::skip_value`] accepts.
pub(crate) const MAX_DEPTH: u32 = 128;

/// A JSON string as it appears in the input, without its quotes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct JsonStr<'a> {
    raw: &'a [u8],
    escaped: bool,
}

impl<'a> JsonStr<'a> {
    /// The string's bytes with escapes resolved (UTF-8).
    fn bytes(&self) -> Unescape<'a> {
        Unescape { raw: self.raw, pending: [0; 4], pending_len: 0, pending_pos: 0 }
    }

    /// Whether the unescaped string equals `s`.
    pub(crate) fn is(&self, s: &str) -> bool {
        if !self.escaped {
            return self.raw == s.as_bytes();
        }
        let mut it = self.bytes();
        for b in s.bytes() {
            if it.next() != Some(Ok(b)) {
                return false;
            }
        }
        it.next().is_none()
    }

    /// The unescaped string: borrowed from the input when it has no escapes,
    /// otherwise written to the front of `*scratch`, which is then shortened.
    pub(crate) fn into_str(self, scratch: &mut &'a mut [u8]) -> Result<&'a str> {
        if !self.escaped {
            return core::str::from_utf8(self.raw).map_err(|_| Error::MalformedJson);
        }
        let mut n = 0usize;
        for b in self.bytes() {
            *scratch.get_mut(n).ok_or(Error::BufferTooSmall)? = b?;
            n += 1;
        }
        let (head, tail) = core::mem::take(scratch).split_at_mut(n);
        *scratch = tail;
        core::str::from_utf8(head).map_err(|_| Error::MalformedJson)
    }
}

/// Iterator over a raw JSON string's unescaped UTF-8 bytes. The raw string has
/// been checked by [`Reader::string`]; a lone surrogate is an error here.
struct Unescape<'a> {
    raw: &'a [u8],
    pending: [u8; 4],
    pending_len: usize,
    pending_pos: usize,
}

impl Unescape<'_> {
    fn hex4(&mut self) -> Result<u32> {
        let (digits, rest) = self.raw.split_first_chunk::<4>().ok_or(Error::MalformedJson)?;
        self.raw = rest;
        let mut v = 0u32;
        for d in digits {
            v = v << 4 | char::from(*d).to_digit(16).ok_or(Error::MalformedJson)?;
        }
        Ok(v)
    }

    fn escape(&mut self) -> Result<char> {
        let (&c, rest) = self.raw.split_first().ok_or(Error::MalformedJson)?;
        self.raw = rest;
        Ok(match c {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hi = self.hex4()?;
                let code = if (0xd800..0xdc00).contains(&hi) {
                    // A high surrogate must be followed by `\u` and a low one.
                    let (esc, rest) = self.raw.split_first_chunk::<2>().ok_or(Error::MalformedJson)?;
                    if esc != b"\\u" {
                        return Err(Error::MalformedJson);
                    }
                    self.raw = rest;
                    let lo = self.hex4()?;
                    if !(0xdc00..0xe000).contains(&lo) {
                        return Err(Error::MalformedJson);
                    }
                    0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)
                } else {
                    hi
                };
                char::from_u32(code).ok_or(Error::MalformedJson)?
            }
            _ => return Err(Error::MalformedJson),
        })
    }
}

impl Iterator for Unescape<'_> {
    type Item = Result<u8>;

    fn next(&mut self) -> Option<Result<u8>> {
        if self.pending_pos < self.pending_len {
            let b = self.pending.get(self.pending_pos).copied();
            self.pending_pos += 1;
            return b.map(Ok);
        }
        let (&c, rest) = self.raw.split_first()?;
        self.raw = rest;
        if c != b'\\' {
            return Some(Ok(c));
        }
        match self.escape() {
            Err(e) => {
                self.raw = &[];
                Some(Err(e))
            }
            Ok(ch) => {
                let len = ch.encode_utf8(&mut self.pending).len();
                self.pending_len = len;
                self.pending_pos = 1;
                self.pending.first().copied().map(Ok)
            }
        }
    }
}

/// A JSON number as it appears in the input (grammar already checked).
#[derive(Clone, Copy, Debug)]
pub(crate) struct JsonNumber<'a>(&'a [u8]);

impl JsonNumber<'_> {
    /// The value if the number is a non-negative integer written without a
    /// fraction or exponent and fits a `u64`.
    pub(crate) fn as_u64(&self) -> Option<u64> {
        let mut v = 0u64;
        for &d in self.0 {
            if !d.is_ascii_digit() {
                return None;
            }
            v = v.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
        }
        Some(v)
    }
}

/// What a value is, and the value for the scalar kinds the directory reads.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Value<'a> {
    /// A string.
    Str(JsonStr<'a>),
    /// A number.
    Number(JsonNumber<'a>),
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool,
    /// An object, whose `{` has been consumed; read it with [`Reader::next_key`].
    Object,
    /// An array, whose `[` has been consumed; read it with [`Reader::next_element`].
    Array,
}

/// A cursor over a JSON document.
#[derive(Clone, Debug)]
pub(crate) struct Reader<'a> {
    input: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// Starts at the beginning of `input`.
    pub(crate) const fn new(input: &'a [u8]) -> Self {
        Self { input, pos: 0 }
    }

    fn peek(&self) -> Option<u8> {
        self.input.get(self.pos).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.pos += 1;
        Some(c)
    }

    /// The next byte, [`Error::Truncated`] at the end.
    fn next_byte(&mut self) -> Result<u8> {
        self.bump().ok_or(Error::Truncated)
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn expect(&mut self, c: u8) -> Result<()> {
        self.ws();
        if self.next_byte()? == c { Ok(()) } else { Err(Error::MalformedJson) }
    }

    /// Ends the document: only whitespace may follow ([`Error::TrailingBytes`]).
    pub(crate) fn finish(mut self) -> Result<()> {
        self.ws();
        if self.pos < self.input.len() { Err(Error::TrailingBytes) } else { Ok(()) }
    }

    /// Reads the start of the next value: scalars entirely, containers up to
    /// and including their opening bracket.
    pub(crate) fn value(&mut self) -> Result<Value<'a>> {
        self.ws();
        match self.peek().ok_or(Error::Truncated)? {
            b'{' => {
                self.pos += 1;
                Ok(Value::Object)
            }
            b'[' => {
                self.pos += 1;
                Ok(Value::Array)
            }
            b'"' => Ok(Value::Str(self.string()?)),
            b't' => self.literal(b"true").map(|()| Value::Bool),
            b'f' => self.literal(b"false").map(|()| Value::Bool),
            b'n' => self.literal(b"null").map(|()| Value::Null),
            b'-' | b'0'..=b'9' => Ok(Value::Number(self.number()?)),
            _ => Err(Error::MalformedJson),
        }
    }

    fn literal(&mut self, word: &[u8]) -> Result<()> {
        for &c in word {
            if self.next_byte()? != c {
                return Err(Error::MalformedJson);
            }
        }
        Ok(())
    }

    fn digits(&mut self) -> Result<usize> {
        let start = self.pos;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
        match self.pos - start {
            0 if self.peek().is_none() => Err(Error::Truncated),
            0 => Err(Error::MalformedJson),
            n => Ok(n),
        }
    }

    /// RFC 8259 §6: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    fn number(&mut self) -> Result<JsonNumber<'a>> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        let first = self.pos;
        if self.digits()? > 1 && self.input.get(first) == Some(&b'0') {
            return Err(Error::MalformedJson);
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            self.digits()?;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            self.digits()?;
        }
        self.input.get(start..self.pos).map(JsonNumber).ok_or(Error::MalformedJson)
    }

    /// Reads a string, checking its escapes and that it holds no raw control
    /// characters; the input as a whole was checked to be UTF-8.
    fn string(&mut self) -> Result<JsonStr<'a>> {
        if self.next_byte()? != b'"' {
            return Err(Error::MalformedJson);
        }
        let start = self.pos;
        let mut escaped = false;
        loop {
            match self.next_byte()? {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    match self.next_byte()? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                        b'u' => {
                            for _ in 0..4 {
                                if !self.next_byte()?.is_ascii_hexdigit() {
                                    return Err(Error::MalformedJson);
                                }
                            }
                        }
                        _ => return Err(Error::MalformedJson),
                    }
                }
                0..=0x1f => return Err(Error::MalformedJson),
                _ => {}
            }
        }
        let raw = self.input.get(start..self.pos - 1).ok_or(Error::MalformedJson)?;
        let s = JsonStr { raw, escaped };
        if escaped {
            // Surrogates must pair up; find out now rather than on use.
            for b in s.bytes() {
                b?;
            }
        }
        Ok(s)
    }

    /// In an object (after `{` or a member's value): the next member's key,
    /// with its `:` consumed, or `None` at the closing `}`. `first` says
    /// whether no member has been read yet.
    pub(crate) fn next_key(&mut self, first: bool) -> Result<Option<JsonStr<'a>>> {
        self.ws();
        match self.peek().ok_or(Error::Truncated)? {
            b'}' => {
                self.pos += 1;
                return Ok(None);
            }
            b',' if !first => self.pos += 1,
            _ if first => {}
            _ => return Err(Error::MalformedJson),
        }
        self.ws();
        let key = self.string()?;
        self.expect(b':')?;
        Ok(Some(key))
    }

    /// In an array (after `[` or an element): whether another element
    /// follows (its `,` consumed), `false` at the closing `]`.
    pub(crate) fn next_element(&mut self, first: bool) -> Result<bool> {
        self.ws();
        match self.peek().ok_or(Error::Truncated)? {
            b']' => {
                self.pos += 1;
                Ok(false)
            }
            b',' if !first => {
                self.pos += 1;
                Ok(true)
            }
            _ if first => Ok(true),
            _ => Err(Error::MalformedJson),
        }
    }

    /// Skips the rest of a value whose start [`Reader::value`] returned:
    /// nothing for a scalar, the members or elements and the closing bracket
    /// for a container. Iterative, with the open containers kept as bits.
    pub(crate) fn skip(&mut self, start: Value<'a>) -> Result<()> {
        // Bit i of `objects` says whether open container i is an object.
        let mut objects: u128 = 0;
        let mut depth: u32 = 0;
        let mut current = start;
        loop {
            // Open a container: push it and read up to its first value.
            let mut first = true;
            match current {
                Value::Object | Value::Array => {
                    if depth >= MAX_DEPTH {
                        return Err(Error::MalformedJson);
                    }
                    let is_object = matches!(current, Value::Object);
                    objects = objects & !(1 << depth) | u128::from(is_object) << depth;
                    depth += 1;
                }
                _ => first = false,
            }
            // Close what ends here, until a next value is due.
            loop {
                let Some(top) = depth.checked_sub(1) else {
                    return Ok(());
                };
                let more =
                    if objects >> top & 1 == 1 { self.next_key(first)?.is_some() } else { self.next_element(first)? };
                if more {
                    break;
                }
                depth = top;
                first = false;
            }
            current = self.value()?;
        }
    }
}

/// Writes `s` as a JSON string: quotes, `"` and `\` escaped, control
/// characters as `\u00XX`; everything else (non-ASCII included) as is.
pub(crate) fn put_string(w: &mut Writer<'_>, s: &str) -> Result<()> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    w.u8(b'"')?;
    for &b in s.as_bytes() {
        match b {
            b'"' | b'\\' => w.put(&[b'\\', b])?,
            0..=0x1f => {
                let hi = HEX.get(usize::from(b >> 4)).copied().unwrap_or(b'0');
                let lo = HEX.get(usize::from(b & 0xf)).copied().unwrap_or(b'0');
                w.put(&[b'\\', b'u', b'0', b'0', hi, lo])?
            }
            _ => w.u8(b)?,
        }
    }
    w.u8(b'"')
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;

    fn skip_all(s: &str) -> Result<()> {
        let mut r = Reader::new(s.as_bytes());
        let v = r.value()?;
        r.skip(v)?;
        r.finish()
    }

    #[test]
    fn skips_valid_values() {
        for s in [
            "0",
            "-0",
            "12.5e-3",
            "1E+2",
            "true",
            "false",
            "null",
            "\"a\\u0026b\\/\\ud83d\\ude00\"",
            "[]",
            "{}",
            "[1,[2,[3,{}]],{\"a\":[null]}]",
            " { \"a\" : { \"b\" : [ ] } , \"c\" : \"d\" } ",
        ] {
            assert_eq!(skip_all(s), Ok(()), "{s}");
        }
    }

    #[test]
    fn refuses_invalid_values() {
        for s in [
            "01",
            "-",
            "1.",
            ".5",
            "1e",
            "+1",
            "tru",
            "nul",
            "[1,]",
            "[,1]",
            "{,}",
            "{\"a\"}",
            "{\"a\":1,}",
            "[1 2]",
            "{\"a\":1 \"b\":2}",
            "[}",
            "{]",
            "\"\\x\"",
            "\"\\u12g4\"",
            "\"\\ud800\"",
            "\"\\udc00\"",
            "\"\t\"",
        ] {
            assert!(skip_all(s).is_err(), "{s}");
        }
        for s in ["[", "{\"a\":", "\"abc", "[1,2", "12e+"] {
            assert_eq!(skip_all(s), Err(Error::Truncated), "{s}");
        }
        assert_eq!(skip_all("1 2"), Err(Error::TrailingBytes));
    }

    #[test]
    fn depth_is_bounded() {
        let deep = |n: usize| "[".repeat(n) + &"]".repeat(n);
        assert_eq!(skip_all(&deep(128)), Ok(()));
        assert_eq!(skip_all(&deep(129)), Err(Error::MalformedJson));
    }

    #[test]
    fn unescapes() {
        let mut r = Reader::new(br#""a\u0026b\/c\"\\\n\u00e9\ud83d\ude00""#);
        let Value::Str(s) = r.value().unwrap() else { panic!() };
        let mut buf = [0u8; 64];
        let mut scratch = &mut buf[..];
        assert_eq!(s.into_str(&mut scratch).unwrap(), "a&b/c\"\\\n\u{e9}\u{1f600}");
        assert!(s.is("a&b/c\"\\\n\u{e9}\u{1f600}"));
        assert!(!s.is("a&b"));
        let mut small = [0u8; 3];
        assert_eq!(s.into_str(&mut &mut small[..]), Err(Error::BufferTooSmall));
    }

    #[test]
    fn writes_escaped_strings() {
        let mut buf = [0u8; 64];
        let mut w = Writer::new(&mut buf);
        put_string(&mut w, "a\"b\\c\n\u{1}é").unwrap();
        w.decimal(u64::MAX).unwrap();
        let n = w.finish();
        assert_eq!(core::str::from_utf8(&buf[..n]).unwrap(), "\"a\\\"b\\\\c\\u000a\\u0001é\"18446744073709551615");
    }
}
