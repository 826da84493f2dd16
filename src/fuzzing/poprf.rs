//! The targets of token type 0xDA7B (POPRF(P-384, SHA-384) with public
//! metadata): its ExtendedTokenRequest, its response, its token and the
//! client's exported request state. What decodes re-encodes to the same
//! bytes; what fails, fails with the error its decoder documents; and each
//! message then goes through the role that receives it, played by a fixed
//! issuer and client ([`Fixture`]): the issuer evaluates a request, the
//! client finalizes a response, the issuer verifies a token, an imported
//! state finalizes. The seeds are the fixture's own messages
//! ([`type_da7b_seeds`]), which reach those success paths: each case of
//! pat's vector file (`tests/vectors/pat/`) has its own key, so its messages
//! would reach only the refusals.

use crate::crypto::voprf::{Element, P384Sha384, Suite, poprf};
use crate::error::{Error, Field};
use crate::tokens::poprf::deterministic::{evaluate_with_nonce, request_with};
use crate::tokens::poprf::{Client, Issuer, RequestState, Token, TokenRequest, TokenResponse};
use crate::wire::challenge::TokenChallenge;
use crate::wire::codec::{Decode, Encode};
use crate::wire::extensions::{EXTENSIONS_MAX_LEN, Extensions};
use crate::wire::token_type::{PublicMetadataP384, TOKEN_INPUT_LEN, TokenKind, TokenType};

type S = P384Sha384;

/// The fixed part of a request: type, truncated key id, blinded element.
const REQUEST_HEAD_LEN: usize = 2 + 1 + S::NE;

/// The largest ExtendedTokenRequest.
const REQUEST_MAX_LEN: usize = REQUEST_HEAD_LEN + EXTENSIONS_MAX_LEN;

/// A TokenResponse: `evaluate_msg[49] ‖ evaluate_proof[96]`.
const RESPONSE_LEN: usize = S::NE + 2 * S::NS;

/// A token: `token_input[98] ‖ authenticator[48]`.
const TOKEN_LEN: usize = PublicMetadataP384::TOKEN_LEN;

/// The POPRF `info` is at most 65535 bytes (RFC 9497 §3.3.3, `I2OSP(len(info), 2)`).
const INFO_MAX_LEN: usize = 0xffff;

/// The fixture's issuer key: `DeriveKeyPair` of this seed (draft §5.5).
const ISSUER_SEED: [u8; 48] = [0xdb; 48];
const NONCE: [u8; 32] = [0x7b; 32];
const BLIND: [u8; 48] = [0x22; 48];
const PROOF_NONCE: [u8; 48] = [0x33; 48];

/// The fixture's extensions: type 0x0001 (two 8-byte integers, as an
/// expiration) and type 0x0002 (a geolocation hint).
const EXTENSIONS: [u8; 29] =
    [0, 27, 0, 1, 0, 16, 0, 0, 0, 0, 0, 0, 0, 60, 0, 0, 0, 0, 0x66, 0, 0, 0, 0, 2, 0, 3, 2, b'U', b'S'];

/// A fixed issuer, its client, a challenge and the extensions, each rebuilt
/// per input (the library has no allocator and no lazy statics): deriving
/// the key is one fixed-base multiplication.
struct Fixture {
    issuer: Issuer,
    client: Client,
    challenge: TokenChallenge<'static>,
    extensions: Extensions<'static>,
}

fn ok<T>(r: crate::Result<T>, what: &str) -> T {
    match r {
        Ok(v) => v,
        Err(e) => panic!("the 0xDA7B fixture's {what} failed: {e:?}"),
    }
}

impl Fixture {
    fn new() -> Self {
        let issuer = ok(Issuer::derive(&ISSUER_SEED), "key");
        let client = issuer.client();
        let challenge = ok(
            TokenChallenge::new(PublicMetadataP384::CODE, b"issuer.example", &[0x7b; 32], b"origin.example"),
            "challenge",
        );
        let extensions = ok(Extensions::decode(&EXTENSIONS), "extensions");
        Self { issuer, client, challenge, extensions }
    }

    /// The fixture's request (fixed nonce and blind) for `extensions`, and
    /// its state. The blinded element does not depend on the extensions.
    fn request<'e>(&self, extensions: Extensions<'e>) -> (TokenRequest<'e>, RequestState) {
        ok(request_with(&self.client, &self.challenge, extensions, &NONCE, &BLIND), "request")
    }

    /// The issuer's response to the fixture's request (fixed proof nonce).
    fn response(&self) -> TokenResponse {
        let (request, _) = self.request(self.extensions);
        ok(evaluate_with_nonce(&self.issuer, &request, &PROOF_NONCE), "evaluation")
    }

    /// A token the issuer must accept under `extensions`.
    fn accepted(&self, token: &Token, extensions: &Extensions<'_>) {
        if let Err(e) = self.issuer.verify(token, &self.challenge, extensions) {
            panic!("a finalized 0xDA7B token does not verify: {e:?}");
        }
    }
}

/// Re-encodes `msg` into `out` and compares with `data`.
fn reencodes(msg: &impl Encode, data: &[u8], out: &mut [u8]) {
    assert_eq!(msg.encoded_len(), data.len());
    let Some(out) = out.get_mut(..data.len()) else { panic!("a decoded message is longer than the largest") };
    assert_eq!(msg.encode(out), Ok(data.len()));
    assert_eq!(&*out, data);
}

/// Whether `extensions` can be a POPRF `info` at all: an encoding (length
/// prefix included) over 65535 bytes cannot.
fn fits_info(extensions: &Extensions<'_>) -> bool {
    extensions.as_bytes().len() <= INFO_MAX_LEN
}

/// An ExtendedTokenRequest of type 0xDA7B: decode → encode is the identity
/// and its extensions decode alone. The fixed issuer evaluates it: the only
/// refusals are another truncated key id, a blinded element that is not a
/// canonical non-identity point, and extensions too long to be a POPRF
/// `info`. A response to the fixture's blinded element finalizes, with the
/// request's extensions, to a token the issuer accepts.
pub fn type_da7b_request(data: &[u8]) {
    let req = match TokenRequest::decode(data) {
        Ok(r) => r,
        Err(e) => {
            assert!(
                matches!(
                    e,
                    Error::Truncated
                        | Error::TrailingBytes
                        | Error::UnsortedExtensions
                        | Error::InvalidLength(Field::Extension | Field::Extensions)
                        | Error::WrongTokenType { expected: PublicMetadataP384::CODE, .. }
                ),
                "unexpected error {e:?}"
            );
            return;
        }
    };
    let mut out = [0u8; REQUEST_MAX_LEN];
    reencodes(&req, data, &mut out);
    let ext = req.extensions.as_bytes();
    assert_eq!(data.get(REQUEST_HEAD_LEN..), Some(ext));
    assert_eq!(Extensions::decode(ext).ok(), Some(req.extensions));

    let f = Fixture::new();
    let key_id = f.issuer.key_id();
    // The issuer's checks, in its order.
    let refusal = if key_id.last() != Some(&req.truncated_token_key_id) {
        Some(Error::KeyIdMismatch)
    } else if Element::<S>::from_bytes(&req.blinded_msg).is_err() {
        Some(Error::InvalidElement)
    } else if !fits_info(&req.extensions) {
        Some(Error::InvalidLength(Field::Info))
    } else {
        None
    };
    let resp = match evaluate_with_nonce(&f.issuer, &req, &PROOF_NONCE) {
        Ok(resp) => resp,
        Err(e) => {
            assert_eq!(Some(e), refusal);
            return;
        }
    };
    assert_eq!(refusal, None);
    let mut wire = [0u8; RESPONSE_LEN];
    assert_eq!(resp.encode(&mut wire), Ok(RESPONSE_LEN));
    assert_eq!(TokenResponse::decode(&wire).as_ref(), Ok(&resp));
    let (mine, mut state) = f.request(req.extensions);
    if mine.blinded_msg == req.blinded_msg {
        let token = match f.client.finalize(&mut state, &req.extensions, &resp) {
            Ok(t) => t,
            Err(e) => panic!("the issuer's response to the fixture's request does not finalize: {e:?}"),
        };
        f.accepted(&token, &req.extensions);
    }
}

/// A TokenResponse of type 0xDA7B: exactly 145 bytes, decode → encode is
/// the identity. The fixture's client finalizes it for the fixture's
/// request: with other extensions it is refused before any arithmetic; with
/// the request's it either gives a token the issuer accepts (and spends the
/// state) or fails with a parse or proof error and leaves the state usable.
pub fn type_da7b_response(data: &[u8]) {
    let resp = match TokenResponse::decode(data) {
        Ok(r) => r,
        Err(e) => {
            assert!(matches!(e, Error::Truncated | Error::TrailingBytes), "unexpected error {e:?}");
            return;
        }
    };
    let mut out = [0u8; RESPONSE_LEN];
    reencodes(&resp, data, &mut out);

    let f = Fixture::new();
    let (_, mut state) = f.request(f.extensions);
    assert_eq!(f.client.finalize(&mut state, &Extensions::EMPTY, &resp).err(), Some(Error::ExtensionsMismatch));
    match f.client.finalize(&mut state, &f.extensions, &resp) {
        Ok(token) => {
            assert!(state.is_spent());
            assert_eq!(token.input(), state.input());
            f.accepted(&token, &f.extensions);
        }
        Err(e) => {
            assert!(
                matches!(e, Error::InvalidElement | Error::InvalidScalar | Error::Verification),
                "unexpected error {e:?}"
            );
            assert!(!state.is_spent());
        }
    }
}

/// A type 0xDA7B token (first byte: bit 0 clear, the token alone, checked
/// with the fixture's extensions; set, the token followed by the
/// `Extensions` it is redeemed with). Decode → encode is the identity; the
/// fixed issuer's verification refuses with the error of the first check
/// that fails, and a token it accepts is its own: type 0xDA7B, its key id,
/// the fixture's challenge.
pub fn type_da7b_token(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else { return };
    let (token_bytes, extensions) = if which & 1 == 0 {
        let Ok(ext) = Extensions::decode(&EXTENSIONS) else { panic!("the fixture's extensions do not decode") };
        (rest, ext)
    } else {
        let (t, e) = rest.split_at(rest.len().min(TOKEN_LEN));
        let Ok(ext) = Extensions::decode(e) else { return };
        (t, ext)
    };
    let token = match Token::decode(token_bytes) {
        Ok(t) => t,
        Err(e) => {
            assert!(
                matches!(
                    e,
                    Error::Truncated
                        | Error::TrailingBytes
                        | Error::UnknownTokenType(_)
                        | Error::InvalidLength(Field::Authenticator)
                ),
                "unexpected error {e:?}"
            );
            return;
        }
    };
    let mut out = [0u8; TOKEN_LEN];
    reencodes(&token, token_bytes, &mut out);
    assert_eq!(token_bytes.get(..TOKEN_INPUT_LEN), Some(&token.input().as_bytes()[..]));

    let f = Fixture::new();
    let input = token.input();
    match f.issuer.verify(&token, &f.challenge, &extensions) {
        Ok(()) => {
            assert_eq!(input.kind(), TokenKind::PublicMetadataP384);
            assert_eq!(input.token_key_id(), f.issuer.key_id());
            assert_eq!(input.challenge_digest(), &f.challenge.digest());
            let output = poprf::evaluate(f.issuer.key_pair().secret_key(), input.as_bytes(), extensions.as_bytes());
            assert_eq!(output.as_ref(), Ok(token.authenticator()));
        }
        Err(e) => {
            let expected = if input.kind() != TokenKind::PublicMetadataP384 {
                Error::WrongTokenType { expected: PublicMetadataP384::CODE, found: input.kind().code() }
            } else if input.challenge_digest() != &f.challenge.digest() {
                Error::ChallengeMismatch
            } else if input.token_key_id() != f.issuer.key_id() {
                Error::KeyIdMismatch
            } else if !fits_info(&extensions) {
                Error::InvalidLength(Field::Info)
            } else {
                Error::Verification
            };
            assert_eq!(e, expected);
        }
    }
}

/// An exported 0xDA7B `RequestState` (first byte: bit 0 set also finalizes
/// it). Import for the fixture's client refuses with the errors
/// [`crate::tokens::state`] lists; what imports exports to the same bytes
/// and holds the token input it was exported with. Finalizing an imported
/// state with the issuer's response to the fixture's request (under the
/// fixture's extensions) gives, for the fixture's own state, a token the
/// issuer accepts; for any other state, a token or a refusal, never a panic.
pub fn type_da7b_state(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else { return };
    let f = Fixture::new();
    let mut state = match RequestState::import(&f.client, rest) {
        Ok(s) => s,
        Err(e) => {
            assert!(
                matches!(
                    e,
                    Error::InvalidLength(Field::State)
                        | Error::UnknownStateVersion(_)
                        | Error::InvalidValue(Field::State)
                        | Error::WrongTokenType { expected: PublicMetadataP384::CODE, .. }
                        | Error::KeyIdMismatch
                        | Error::InvalidScalar
                        | Error::InvalidElement
                ),
                "unexpected error {e:?}"
            );
            return;
        }
    };
    assert_eq!(rest.len(), RequestState::STATE_LEN);
    assert!(!state.is_spent());
    assert_eq!(rest.get(2..2 + TOKEN_INPUT_LEN), Some(&state.input().as_bytes()[..]));
    match state.export() {
        Ok(exported) => assert_eq!(&exported.as_bytes()[..], rest),
        Err(e) => panic!("an imported state does not export: {e:?}"),
    }
    if which & 1 == 0 {
        return;
    }
    let resp = f.response();
    let (_, own) = f.request(f.extensions);
    let own = match own.export() {
        Ok(s) => s,
        Err(e) => panic!("the fixture's state does not export: {e:?}"),
    };
    let result = f.client.finalize(&mut state, &f.extensions, &resp);
    if &own.as_bytes()[..] == rest {
        match result {
            Ok(token) => f.accepted(&token, &f.extensions),
            Err(e) => panic!("the fixture's imported state does not finalize: {e:?}"),
        }
    } else if let Err(e) = result {
        assert!(matches!(e, Error::ExtensionsMismatch | Error::Verification), "unexpected error {e:?}");
    }
}

/// The seed corpus of the four targets, as `(target, input)` pairs: the
/// fixture's own request, response, token and state (which reach the
/// success paths), and neighbours of each that fail one check.
/// `tests/fuzz_corpus.rs` checks that `fuzz/corpus/` holds every one of
/// them and writes them when `PAT_WRITE_FUZZ_SEEDS=1`.
pub fn type_da7b_seeds(emit: &mut dyn FnMut(&'static str, &[u8])) {
    let f = Fixture::new();
    let mut buf = [0u8; 1 + REQUEST_HEAD_LEN + 64 + RESPONSE_LEN + S::NE];
    let mut send = |target: &'static str, prefix: &[u8], m: &dyn Fn(&mut [u8]) -> crate::Result<usize>| {
        let (head, body) = buf.split_at_mut(prefix.len());
        head.copy_from_slice(prefix);
        let n = ok(m(body), "seed encoding");
        emit(target, buf.get(..prefix.len() + n).unwrap_or_default());
    };

    // Requests: the fixture's, with no extensions, for another key, with an
    // element off the curve, with extensions out of order.
    let (req, mut state) = f.request(f.extensions);
    send("type_da7b_request", &[], &|out| req.encode(out));
    let (empty, _) = f.request(Extensions::EMPTY);
    send("type_da7b_request", &[], &|out| empty.encode(out));
    let mut other = req.clone();
    other.truncated_token_key_id ^= 0x80;
    send("type_da7b_request", &[], &|out| other.encode(out));
    let mut off = req.clone();
    off.blinded_msg = [0xff; S::NE];
    off.blinded_msg[0] = 0x02;
    send("type_da7b_request", &[], &|out| off.encode(out));
    send("type_da7b_request", &[], &|out| {
        let n = req.encode(out)?;
        let unsorted = [0, 8, 0, 2, 0, 0, 0, 1, 0, 0];
        let at = REQUEST_HEAD_LEN;
        out.get_mut(at..at + unsorted.len()).ok_or(Error::BufferTooSmall)?.copy_from_slice(&unsorted);
        Ok(n.min(at + unsorted.len()))
    });

    // Responses: the issuer's, with a proof scalar over the order, with a
    // flipped proof bit, with an element that is not a point encoding.
    let resp = f.response();
    send("type_da7b_response", &[], &|out| resp.encode(out));
    let mut big = resp;
    big.evaluate_proof[..S::NS].fill(0xff);
    send("type_da7b_response", &[], &|out| big.encode(out));
    let mut flipped = resp;
    flipped.evaluate_proof[90] ^= 4;
    send("type_da7b_response", &[], &|out| flipped.encode(out));
    let mut bad = resp;
    bad.evaluate_msg[0] = 0x04;
    send("type_da7b_response", &[], &|out| bad.encode(out));

    // Tokens: the fixture's alone and with its extensions, with the empty
    // extensions, with a flipped authenticator bit.
    let exported = match state.export() {
        Ok(s) => s,
        Err(e) => panic!("the fixture's state does not export: {e:?}"),
    };
    let token = ok(f.client.finalize(&mut state, &f.extensions, &resp), "finalize");
    send("type_da7b_token", &[0], &|out| token.encode(out));
    send("type_da7b_token", &[1], &|out| {
        let n = token.encode(out)?;
        Ok(n + f.extensions.encode(out.get_mut(n..).ok_or(Error::BufferTooSmall)?)?)
    });
    send("type_da7b_token", &[1], &|out| {
        let n = token.encode(out)?;
        Ok(n + Extensions::EMPTY.encode(out.get_mut(n..).ok_or(Error::BufferTooSmall)?)?)
    });
    send("type_da7b_token", &[0], &|out| {
        let n = token.encode(out)?;
        *out.get_mut(n - 1).ok_or(Error::BufferTooSmall)? ^= 1;
        Ok(n)
    });

    // States: the fixture's, finalized and not; finalized with another
    // nonce in its token input, or another extensions digest; with a zero
    // blind; with a blinded element that is not a point; of an unknown version.
    let state_bytes: [u8; RequestState::STATE_LEN] = *exported.as_bytes();
    let mut state_seed = |selector: u8, edit: &dyn Fn(&mut [u8])| {
        let mut input = [selector; 1 + RequestState::STATE_LEN];
        if let Some((_, body)) = input.split_first_mut() {
            body.copy_from_slice(&state_bytes);
            edit(body);
        }
        emit("type_da7b_state", &input);
    };
    let blind_at = 2 + TOKEN_INPUT_LEN;
    let element_at = blind_at + S::NS;
    let flip = |at: usize, bits: u8| move |s: &mut [u8]| s.get_mut(at).into_iter().for_each(|b| *b ^= bits);
    state_seed(1, &|_| {});
    state_seed(0, &|_| {});
    state_seed(1, &flip(4, 1));
    state_seed(1, &flip(RequestState::STATE_LEN - 1, 1));
    state_seed(0, &|s| s.get_mut(blind_at..element_at).into_iter().for_each(|b| b.fill(0)));
    state_seed(0, &flip(element_at, 0x07));
    state_seed(0, &flip(0, 3));
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;
    use crate::wire::extensions::ExtensionsWriter;

    /// Every seed runs through its target; the success paths are reached.
    #[test]
    fn seeds_pass_their_targets() {
        let mut count = 0;
        type_da7b_seeds(&mut |target, input| {
            let check = match target {
                "type_da7b_request" => type_da7b_request,
                "type_da7b_response" => type_da7b_response,
                "type_da7b_token" => type_da7b_token,
                "type_da7b_state" => type_da7b_state,
                _ => panic!("unknown target {target}"),
            };
            check(input);
            count += 1;
        });
        assert_eq!(count, 20);
    }

    /// The largest list a request carries is 65537 bytes encoded: it parses,
    /// but it cannot be a POPRF `info`. The client refuses to send it; a
    /// request that carries it anyway is refused by the issuer.
    #[test]
    fn extensions_over_the_info_bound() {
        let f = Fixture::new();
        let mut big = [0u8; EXTENSIONS_MAX_LEN];
        let mut w = ExtensionsWriter::new(&mut big);
        w.push(9, &[0xab; 65531]).unwrap();
        let ext = w.finish().unwrap();
        assert_eq!(ext.as_bytes().len(), EXTENSIONS_MAX_LEN);
        assert_eq!(
            request_with(&f.client, &f.challenge, ext, &NONCE, &BLIND).err(),
            Some(Error::InvalidLength(Field::Info))
        );
        let (mut req, _) = f.request(f.extensions);
        req.extensions = ext;
        let mut out = [0u8; REQUEST_MAX_LEN];
        let n = req.encode(&mut out).unwrap();
        type_da7b_request(&out[..n]);
        assert_eq!(evaluate_with_nonce(&f.issuer, &req, &PROOF_NONCE).err(), Some(Error::InvalidLength(Field::Info)));
    }
}
