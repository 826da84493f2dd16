//! The RFC 9110 §11 grammar of challenges and credentials: a lexer over a
//! `WWW-Authenticate` or `Authorization` field value that yields each
//! auth-scheme with its body, and a lazy iterator over the auth-params.

use super::ParamValue;
use crate::error::{Error, Result};

/// tchar (RFC 9110 §5.6.2).
fn is_tchar(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&c)
}

/// token68 characters before its trailing `=` (RFC 9110 §11.2).
fn is_token68_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"-._~+/".contains(&c)
}

/// What follows an auth-scheme.
#[derive(Clone, Debug)]
pub(super) enum Body<'a> {
    /// Nothing, or a token68 (whose content we never need).
    Token68,
    /// A list of auth-params, parsed lazily.
    Params(Params<'a>),
}

#[derive(Clone, Debug)]
pub(super) struct Lexer<'a> {
    s: &'a [u8],
    pos: usize,
}

impl<'a> Lexer<'a> {
    pub(super) fn new(s: &'a [u8]) -> Self {
        Self { s, pos: 0 }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn skip_ows(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.pos += 1;
        }
    }

    fn skip_while(&mut self, f: impl Fn(u8) -> bool) -> &'a [u8] {
        let start = self.pos;
        while self.peek().is_some_and(&f) {
            self.pos += 1;
        }
        self.s.get(start..self.pos).unwrap_or_default()
    }

    /// Skips OWS and empty list elements (RFC 9110 §5.6.1 allows `, ,`).
    fn skip_separators(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b',')) {
            self.pos += 1;
        }
    }

    /// Whether a new challenge starts here: a token not followed by `=`.
    fn at_new_challenge(&self) -> bool {
        let mut probe = self.clone();
        if probe.skip_while(is_tchar).is_empty() {
            return false;
        }
        probe.skip_ows();
        probe.peek() != Some(b'=')
    }

    /// Reads the next challenge: its scheme and a lazily parsed body. The lexer
    /// is left after the body.
    pub(super) fn next_challenge(&mut self) -> Result<Option<(&'a [u8], Body<'a>)>> {
        self.skip_separators();
        if self.peek().is_none() {
            return Ok(None);
        }
        let scheme = self.skip_while(is_tchar);
        if scheme.is_empty() {
            return Err(Error::MalformedHeader);
        }
        let after_scheme = self.pos;
        self.skip_ows();
        if self.pos == after_scheme || matches!(self.peek(), None | Some(b',')) {
            // No body (an optional comma-separated successor follows).
            return match self.peek() {
                None | Some(b',') => Ok(Some((scheme, Body::Token68))),
                Some(_) => Err(Error::MalformedHeader),
            };
        }
        // token68: its characters, then `=`s, then the end of this item.
        let mut probe = self.clone();
        if !probe.skip_while(is_token68_char).is_empty() {
            probe.skip_while(|c| c == b'=');
            probe.skip_ows();
            if matches!(probe.peek(), None | Some(b',')) {
                *self = probe;
                return Ok(Some((scheme, Body::Token68)));
            }
        }
        let start = self.pos;
        // Walk the auth-params once to find where this challenge ends; the
        // caller re-walks them lazily from `start`.
        let mut params = Params { lex: Lexer { s: self.s, pos: start }, first: true, done: false };
        for p in params.by_ref() {
            p?;
        }
        self.pos = params.lex.pos;
        Ok(Some((scheme, Body::Params(Params { lex: Lexer { s: self.s, pos: start }, first: true, done: false }))))
    }

    fn param_value(&mut self) -> Result<ParamValue<'a>> {
        if self.peek() == Some(b'"') {
            self.pos += 1;
            let start = self.pos;
            loop {
                match self.peek() {
                    None => return Err(Error::MalformedHeader),
                    Some(b'"') => break,
                    Some(b'\\') => {
                        self.pos += 1;
                        // quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text )
                        match self.peek() {
                            Some(c) if c == b'\t' || c >= 0x20 && c != 0x7f => self.pos += 1,
                            _ => return Err(Error::MalformedHeader),
                        }
                    }
                    // qdtext = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text
                    Some(c) if c == b'\t' || c >= 0x20 && c != 0x7f => self.pos += 1,
                    Some(_) => return Err(Error::MalformedHeader),
                }
            }
            let raw = self.s.get(start..self.pos).unwrap_or_default();
            self.pos += 1; // closing quote
            Ok(ParamValue { raw, quoted: true })
        } else {
            // A bare value is a token; as a leniency for base64 values sent
            // unquoted, trailing `=` padding is accepted too (token68 style).
            let start = self.pos;
            if self.skip_while(is_tchar).is_empty() {
                return Err(Error::MalformedHeader);
            }
            self.skip_while(|c| c == b'=');
            let raw = self.s.get(start..self.pos).unwrap_or_default();
            Ok(ParamValue { raw, quoted: false })
        }
    }
}

/// Lazy iterator over one challenge's auth-params.
#[derive(Clone, Debug)]
pub(super) struct Params<'a> {
    lex: Lexer<'a>,
    first: bool,
    done: bool,
}

impl<'a> Iterator for Params<'a> {
    type Item = Result<(&'a [u8], ParamValue<'a>)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        if !self.first {
            // Between params: OWS, then a comma or the end of the header.
            self.lex.skip_ows();
            match self.lex.peek() {
                None => {
                    self.done = true;
                    return None;
                }
                Some(b',') => {
                    let mark = self.lex.pos;
                    self.lex.skip_separators();
                    if self.lex.peek().is_none() || self.lex.at_new_challenge() {
                        // The list continues with another challenge: stop before it.
                        self.lex.pos = mark;
                        self.done = true;
                        return None;
                    }
                }
                Some(_) => {
                    self.done = true;
                    return Some(Err(Error::MalformedHeader));
                }
            }
        }
        self.first = false;
        let item = (|| {
            let name = self.lex.skip_while(is_tchar);
            if name.is_empty() {
                return Err(Error::MalformedHeader);
            }
            self.lex.skip_ows();
            if self.lex.peek() != Some(b'=') {
                return Err(Error::MalformedHeader);
            }
            self.lex.pos += 1;
            self.lex.skip_ows();
            Ok((name, self.lex.param_value()?))
        })();
        if item.is_err() {
            self.done = true;
        }
        Some(item)
    }
}
