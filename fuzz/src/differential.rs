//! Differential check of pat's parsers against `privacypass` 0.2.0-pre.4.
//!
//! The input's first byte picks a message kind ([`KINDS`], modulo its length);
//! the rest is the message. Both libraries parse it: pat with its top-level
//! `Decode::decode`, privacypass with tls_codec's `Deserialize` (as its own
//! `try_from_bytes`/`deserialize` do).
//!
//! - Both accept: both must have read the whole input, both must re-encode to
//!   exactly the input, and the fields privacypass exposes must match pat's.
//! - Only one accepts: the difference must be one of the [`Divergence`] rules.
//!   Each rule is checked on the input itself, not taken from pat's error; where
//!   a rule reduces the input to a canonical form (trailing bytes cut off, a
//!   varint re-encoded minimally) the comparison goes on with that form, so a
//!   rule never hides a difference behind it.
//! - Both reject: nothing to compare (the error types have nothing in common).
//!
//! Anything else panics: that is the fuzz target's failure signal.
//! `src/corpus_test.rs` (`cargo test --lib`) replays the committed seeds through
//! [`check`] and checks that every rule is still needed by some seed.

use std::fmt::Debug;

use p384::NistP384;
use pat::error::{Error, Field};
use pat::tokens::{amortized, batched, private, public};
use pat::wire::codec::{Decode, Encode, Reader};
use pat::wire::token_type::{PrivateP384, PrivateRistretto255, TokenKind};
use privacypass::amortized_tokens::{AmortizedBatchTokenRequest, AmortizedBatchTokenResponse};
use privacypass::auth::authenticate::TokenChallenge as PpChallenge;
use privacypass::generic_tokens::{
    GenericBatchTokenRequest as PpBatchRequest, GenericBatchTokenResponse as PpBatchResponse,
    GenericTokenRequest as PpEntry, GenericTokenResponse as PpEntryResponse,
};
use privacypass::private_tokens::{PrivateToken, Ristretto255};
use privacypass::public_tokens::PublicToken;
use privacypass::{Deserialize, Serialize, TokenType};

/// A known, explained difference between the two parsers. Every rule names
/// the side that is stricter and why; [`check`] verifies each one on the input
/// before it accepts it as the explanation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Divergence {
    /// privacypass's `tls_deserialize` reads one message and ignores what
    /// follows; pat's top-level decoders reject trailing bytes (house style:
    /// no silent truncation). Checked: privacypass stopped before the end;
    /// the comparison continues on the prefix it read, and if pat accepts that
    /// prefix, pat's error on the whole input must be `TrailingBytes`.
    TrailingBytes,
    /// tls_codec 0.5 without its `mls` feature (as privacypass uses it)
    /// accepts non-minimal QUIC varint lengths in the amortized and generic
    /// batch messages; the batched-tokens draft (§4.2) and pat require the
    /// shortest form. Checked: privacypass's re-encoding is shorter than the
    /// input; the comparison continues on it, and if pat accepts it, pat's
    /// error on the input must be `NonMinimalVarint`.
    NonMinimalVarint,
    /// privacypass's `TokenType` has 0x0001, 0x0002 and 0x0005 only. pat also
    /// parses type 0x0003 tokens (rate-limited, RFC 9578 §8.2.1 registry) and a
    /// TokenChallenge of any type (RFC 9577 §2.1: the type is an open registry;
    /// a client skips challenges of types it does not support).
    /// Checked: pat's parsed type is not one privacypass knows.
    TokenTypeUnknownToPrivacypass,
    /// privacypass does not check the token_type of a per-type message
    /// (`TokenRequest<CS>`, public `TokenRequest`, `AmortizedBatchTokenRequest<CS>`)
    /// against the type it parses for: it reads any of its three types. pat
    /// requires the type's own code point (RFC 9578 §5.1, §6.1; the
    /// batched-tokens draft). Checked: the input's type field differs from the
    /// parsed-for type and pat says `WrongTokenType` for exactly that value.
    TokenTypeMismatch,
    /// RFC 9577 §2.1: `opaque issuer_name<1..2^16-1>`; privacypass accepts an
    /// empty issuer name. Checked: the issuer name is empty.
    EmptyIssuerName,
    /// RFC 9577 §2.1: the redemption_context is either empty or 32 bytes;
    /// privacypass reads any length up to 255. Checked: the length is neither.
    RedemptionContextLength,
    /// Both accept any bytes in issuer_name and origin_info (opaque on the
    /// wire, RFC 9577 §2.1), but privacypass keeps them as lossy UTF-8
    /// strings, so a name that is not UTF-8 does not survive its re-encoding
    /// (and its digest is then over other bytes); pat keeps the bytes.
    /// Checked: a name is not valid UTF-8.
    LossyNames,
    /// pat requires an amortized batch to hold 1..=65535 elements (nothing to
    /// prove for none; the DLEQ batch proof indexes elements with 2 bytes);
    /// privacypass's parser accepts an empty batch (its issuer enforces a size
    /// limit later). Checked: the element count is outside that range.
    AmortizedBatchSize,
}

/// Every rule, so the corpus test can check that each one is still exercised.
pub const RULES: [Divergence; 8] = [
    Divergence::TrailingBytes,
    Divergence::NonMinimalVarint,
    Divergence::TokenTypeUnknownToPrivacypass,
    Divergence::TokenTypeMismatch,
    Divergence::EmptyIssuerName,
    Divergence::RedemptionContextLength,
    Divergence::LossyNames,
    Divergence::AmortizedBatchSize,
];

/// The message kinds, selected by the input's first byte (modulo 14).
/// `scripts/fuzz-seeds.py` writes seeds with the same numbering.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// TokenChallenge (RFC 9577 §2.1).
    Challenge,
    /// Token (RFC 9577 §2.2); privacypass parses it as `Token<Nk>` with the Nk
    /// of the type in the input, as a verifier expecting that type would.
    Token,
    /// Type 0x0001 TokenRequest.
    Type1Request,
    /// Type 0x0001 TokenResponse.
    Type1Response,
    /// Type 0x0002 TokenRequest.
    Type2Request,
    /// Type 0x0002 TokenResponse.
    Type2Response,
    /// Type 0x0005 TokenRequest.
    Type5Request,
    /// Type 0x0005 TokenResponse.
    Type5Response,
    /// Amortized batch request, type 0x0001.
    Amortized1Request,
    /// Amortized batch response, type 0x0001.
    Amortized1Response,
    /// Amortized batch request, type 0x0005.
    Amortized5Request,
    /// Amortized batch response, type 0x0005.
    Amortized5Response,
    /// Generic batch request.
    GenericRequest,
    /// Generic batch response.
    GenericResponse,
}

/// The kinds in selector order.
pub const KINDS: [Kind; 14] = [
    Kind::Challenge,
    Kind::Token,
    Kind::Type1Request,
    Kind::Type1Response,
    Kind::Type2Request,
    Kind::Type2Response,
    Kind::Type5Request,
    Kind::Type5Response,
    Kind::Amortized1Request,
    Kind::Amortized1Response,
    Kind::Amortized5Request,
    Kind::Amortized5Response,
    Kind::GenericRequest,
    Kind::GenericResponse,
];

/// What one comparison found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// The message kind (none for an empty input).
    pub kind: Option<Kind>,
    /// pat accepted the input.
    pub pat_accepts: bool,
    /// privacypass accepted the input.
    pub privacypass_accepts: bool,
    /// The rules that explained the differences, outermost first (empty when
    /// the two agree).
    pub rules: Vec<Divergence>,
}

/// Compares the two parsers on `data` (selector byte, then the message) and
/// panics on any difference no [`Divergence`] rule explains.
pub fn check(data: &[u8]) -> Report {
    let Some((&selector, msg)) = data.split_first() else { return Report::default() };
    let kind = KINDS[usize::from(selector) % KINDS.len()];
    let mut report = Report { kind: Some(kind), ..Report::default() };
    match kind {
        Kind::Challenge => compare::<Challenge>(msg, &mut report),
        Kind::Token => compare::<Token>(msg, &mut report),
        Kind::Type1Request => compare::<PrivateRequest<PrivateP384, NistP384>>(msg, &mut report),
        Kind::Type1Response => compare::<PrivateResponse<PrivateP384, NistP384>>(msg, &mut report),
        Kind::Type2Request => compare::<PublicRequest>(msg, &mut report),
        Kind::Type2Response => compare::<PublicResponse>(msg, &mut report),
        Kind::Type5Request => compare::<PrivateRequest<PrivateRistretto255, Ristretto255>>(msg, &mut report),
        Kind::Type5Response => compare::<PrivateResponse<PrivateRistretto255, Ristretto255>>(msg, &mut report),
        Kind::Amortized1Request => compare::<AmortizedRequest<PrivateP384, NistP384>>(msg, &mut report),
        Kind::Amortized1Response => compare::<AmortizedResponse<PrivateP384, NistP384>>(msg, &mut report),
        Kind::Amortized5Request => compare::<AmortizedRequest<PrivateRistretto255, Ristretto255>>(msg, &mut report),
        Kind::Amortized5Response => compare::<AmortizedResponse<PrivateRistretto255, Ristretto255>>(msg, &mut report),
        Kind::GenericRequest => compare::<GenericRequest>(msg, &mut report),
        Kind::GenericResponse => compare::<GenericResponse>(msg, &mut report),
    }
    report
}

/// One message kind as both libraries see it.
trait Subject {
    type Pat<'a>: Decode<'a> + Encode + Debug;
    type Pp: Debug;

    /// privacypass's parse of the front of `msg` and how many bytes it read.
    fn pp_parse(msg: &[u8]) -> Option<(Self::Pp, usize)>;
    /// privacypass's encoding.
    fn pp_encode(pp: &Self::Pp) -> Vec<u8>;
    /// Compares the fields privacypass exposes (both accepted the same bytes).
    fn same_fields(_pat: &Self::Pat<'_>, _pp: &Self::Pp) {}
    /// Explains privacypass re-encoding differently what both accepted.
    fn reencoding_differs(_msg: &[u8]) -> Option<Divergence> {
        None
    }
    /// Explains pat accepting what privacypass rejects.
    fn pat_only(_pat: &Self::Pat<'_>) -> Option<Divergence> {
        None
    }
    /// Explains pat rejecting (with `err`) the bytes `msg` that privacypass
    /// accepts as `pp` and re-encodes to exactly `msg`.
    fn pp_only(_err: Error, _msg: &[u8], _pp: &Self::Pp) -> Option<Divergence> {
        None
    }
}

fn compare<S: Subject>(msg: &[u8], report: &mut Report) {
    let pat = S::Pat::decode(msg);
    let pp = S::pp_parse(msg);
    if report.rules.is_empty() {
        report.pat_accepts = pat.is_ok();
        report.privacypass_accepts = pp.is_some();
    }
    match (pat, pp) {
        (Err(_), None) => {}
        (Ok(p), Some((q, used))) => {
            assert_eq!(used, msg.len(), "privacypass stopped early on a message pat read whole: {p:?} / {q:?}");
            let mut out = vec![0u8; p.encoded_len()];
            assert_eq!(p.encode(&mut out), Ok(msg.len()));
            assert_eq!(out, msg, "pat re-encodes differently");
            if let Some(rule) = S::reencoding_differs(msg) {
                // Nothing more to compare: privacypass holds other bytes.
                report.rules.push(rule);
                return;
            }
            assert_eq!(hex(&S::pp_encode(&q)), hex(msg), "privacypass re-encodes differently: {q:?}");
            S::same_fields(&p, &q);
        }
        (Ok(p), None) => {
            let rule = S::pat_only(&p)
                .unwrap_or_else(|| panic!("unexplained: pat accepts {p:?}, privacypass rejects {}", hex(msg)));
            report.rules.push(rule);
        }
        (Err(e), Some((q, used))) => {
            if used < msg.len() {
                report.rules.push(Divergence::TrailingBytes);
                let prefix = &msg[..used];
                if S::Pat::decode(prefix).is_ok() {
                    assert_eq!(e, Error::TrailingBytes, "pat accepts the prefix {}", hex(prefix));
                }
                return compare::<S>(prefix, report);
            }
            let canonical = S::pp_encode(&q);
            if canonical != msg {
                report.rules.push(Divergence::NonMinimalVarint);
                assert!(
                    canonical.len() < msg.len(),
                    "privacypass re-encodes {} as {}, not shorter",
                    hex(msg),
                    hex(&canonical)
                );
                if S::Pat::decode(&canonical).is_ok() {
                    assert_eq!(e, Error::NonMinimalVarint, "pat accepts the canonical {}", hex(&canonical));
                }
                return compare::<S>(&canonical, report);
            }
            let rule = S::pp_only(e, msg, &q).unwrap_or_else(|| {
                panic!("unexplained: pat rejects {} with {e:?}, privacypass accepts {q:?}", hex(msg))
            });
            report.rules.push(rule);
        }
    }
}

/// tls_codec parse of the front of `msg`.
fn tls_parse<T: Deserialize>(msg: &[u8]) -> Option<(T, usize)> {
    let mut rest = msg;
    let v = T::tls_deserialize(&mut rest).ok()?;
    Some((v, msg.len() - rest.len()))
}

fn tls_encode<T: Serialize>(v: &T) -> Vec<u8> {
    v.tls_serialize_detached().expect("privacypass cannot re-encode what it parsed")
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn pp_code(t: TokenType) -> u16 {
    t as u16
}

/// The token type in the first two bytes of `msg`.
fn leading_type(msg: &[u8]) -> Option<u16> {
    Some(u16::from_be_bytes(msg.get(..2)?.try_into().ok()?))
}

/// `TokenTypeMismatch` when `err` is pat's `WrongTokenType` for the type that
/// `msg` really carries, and that type differs from `expected`.
fn type_mismatch(err: Error, msg: &[u8], expected: u16) -> Option<Divergence> {
    let found = leading_type(msg)?;
    (found != expected && err == Error::WrongTokenType { expected, found }).then_some(Divergence::TokenTypeMismatch)
}

// ---- TokenChallenge ---------------------------------------------------------

struct Challenge;

/// The issuer_name, redemption_context and origin_info of a TokenChallenge,
/// split by hand from `msg` (a third opinion on the layout, to check rules).
fn challenge_fields(msg: &[u8]) -> Option<[&[u8]; 3]> {
    let mut r = Reader::new(msg);
    r.u16().ok()?;
    let n = usize::from(r.u16().ok()?);
    let issuer = r.take(n).ok()?;
    let n = usize::from(r.u8().ok()?);
    let ctx = r.take(n).ok()?;
    let n = usize::from(r.u16().ok()?);
    let origin = r.take(n).ok()?;
    Some([issuer, ctx, origin])
}

impl Subject for Challenge {
    type Pat<'a> = pat::TokenChallenge<'a>;
    type Pp = PpChallenge;

    fn pp_parse(msg: &[u8]) -> Option<(PpChallenge, usize)> {
        tls_parse(msg)
    }

    fn pp_encode(pp: &PpChallenge) -> Vec<u8> {
        pp.serialize().expect("privacypass cannot re-encode its challenge")
    }

    fn same_fields(pat: &pat::TokenChallenge<'_>, pp: &PpChallenge) {
        assert_eq!(pp_code(pp.token_type()), pat.token_type());
        assert_eq!(pp.issuer_name().as_bytes(), pat.issuer_name());
        assert_eq!(pp.redemption_context().as_ref().map(|c| &c[..]).unwrap_or_default(), pat.redemption_context());
        // privacypass splits an empty origin_info into one empty name; pat
        // yields no origins for it.
        let pp_origins = pp.origin_info();
        let pat_origins: Vec<String> =
            pat.origins().map(|o| String::from_utf8(o.to_vec()).expect("UTF-8, checked first")).collect();
        if pat_origins.is_empty() {
            assert_eq!(pp_origins, [""]);
        } else {
            assert_eq!(pp_origins, pat_origins);
        }
        assert_eq!(pp.digest().ok(), Some(pat.digest()));
    }

    fn pat_only(pat: &pat::TokenChallenge<'_>) -> Option<Divergence> {
        (![1, 2, 5].contains(&pat.token_type())).then_some(Divergence::TokenTypeUnknownToPrivacypass)
    }

    fn reencoding_differs(msg: &[u8]) -> Option<Divergence> {
        let [issuer, _, origin] = challenge_fields(msg)?;
        (core::str::from_utf8(issuer).is_err() || core::str::from_utf8(origin).is_err())
            .then_some(Divergence::LossyNames)
    }

    fn pp_only(err: Error, msg: &[u8], _: &PpChallenge) -> Option<Divergence> {
        let [issuer, ctx, _] = challenge_fields(msg)?;
        match err {
            Error::InvalidLength(Field::IssuerName) if issuer.is_empty() => Some(Divergence::EmptyIssuerName),
            Error::InvalidLength(Field::RedemptionContext) if ![0, 32].contains(&ctx.len()) => {
                Some(Divergence::RedemptionContextLength)
            }
            _ => None,
        }
    }
}

// ---- Token ------------------------------------------------------------------

struct Token;

/// privacypass's token of the length its type calls for.
#[derive(Debug)]
enum PpToken {
    Nk48(PrivateToken<NistP384>),
    Nk256(PublicToken),
    Nk64(PrivateToken<Ristretto255>),
}

impl Subject for Token {
    type Pat<'a> = pat::TokenRef<'a>;
    type Pp = PpToken;

    fn pp_parse(msg: &[u8]) -> Option<(PpToken, usize)> {
        match leading_type(msg)? {
            2 => tls_parse(msg).map(|(t, n)| (PpToken::Nk256(t), n)),
            5 => tls_parse(msg).map(|(t, n)| (PpToken::Nk64(t), n)),
            _ => tls_parse(msg).map(|(t, n)| (PpToken::Nk48(t), n)),
        }
    }

    fn pp_encode(pp: &PpToken) -> Vec<u8> {
        match pp {
            PpToken::Nk48(t) => tls_encode(t),
            PpToken::Nk256(t) => tls_encode(t),
            PpToken::Nk64(t) => tls_encode(t),
        }
    }

    fn same_fields(pat: &pat::TokenRef<'_>, pp: &PpToken) {
        let (ty, nonce, digest, key_id, auth) = match pp {
            PpToken::Nk48(t) => {
                (t.token_type(), t.nonce(), *t.challenge_digest(), *t.token_key_id(), t.authenticator())
            }
            PpToken::Nk256(t) => {
                (t.token_type(), t.nonce(), *t.challenge_digest(), *t.token_key_id(), t.authenticator())
            }
            PpToken::Nk64(t) => {
                (t.token_type(), t.nonce(), *t.challenge_digest(), *t.token_key_id(), t.authenticator())
            }
        };
        let input = pat.input();
        assert_eq!(pp_code(ty), pat.kind().code());
        assert_eq!(&nonce, input.nonce());
        assert_eq!(&digest, input.challenge_digest());
        assert_eq!(&key_id, input.token_key_id());
        assert_eq!(auth, pat.authenticator());
    }

    fn pat_only(pat: &pat::TokenRef<'_>) -> Option<Divergence> {
        (pat.kind() == TokenKind::RateLimitedRsa2048).then_some(Divergence::TokenTypeUnknownToPrivacypass)
    }
}

// ---- types 0x0001, 0x0002, 0x0005 -------------------------------------------

struct PrivateRequest<T, CS>(std::marker::PhantomData<(T, CS)>);

impl<T: private::PrivateTokenType, CS: privacypass::common::private::PrivateCipherSuite> Subject
    for PrivateRequest<T, CS>
{
    type Pat<'a> = private::TokenRequest<T>;
    type Pp = privacypass::private_tokens::TokenRequest<CS>;

    fn pp_parse(msg: &[u8]) -> Option<(Self::Pp, usize)> {
        tls_parse(msg)
    }

    fn pp_encode(pp: &Self::Pp) -> Vec<u8> {
        tls_encode(pp)
    }

    fn pp_only(err: Error, msg: &[u8], _: &Self::Pp) -> Option<Divergence> {
        type_mismatch(err, msg, T::CODE)
    }
}

struct PrivateResponse<T, CS>(std::marker::PhantomData<(T, CS)>);

impl<T: private::PrivateTokenType, CS: privacypass::common::private::PrivateCipherSuite> Subject
    for PrivateResponse<T, CS>
{
    type Pat<'a> = private::TokenResponse<T>;
    type Pp = privacypass::private_tokens::TokenResponse<CS>;

    fn pp_parse(msg: &[u8]) -> Option<(Self::Pp, usize)> {
        tls_parse(msg)
    }

    fn pp_encode(pp: &Self::Pp) -> Vec<u8> {
        tls_encode(pp)
    }
}

struct PublicRequest;

impl Subject for PublicRequest {
    type Pat<'a> = public::TokenRequest;
    type Pp = privacypass::public_tokens::TokenRequest;

    fn pp_parse(msg: &[u8]) -> Option<(Self::Pp, usize)> {
        tls_parse(msg)
    }

    fn pp_encode(pp: &Self::Pp) -> Vec<u8> {
        tls_encode(pp)
    }

    fn pp_only(err: Error, msg: &[u8], _: &Self::Pp) -> Option<Divergence> {
        type_mismatch(err, msg, 2)
    }
}

struct PublicResponse;

impl Subject for PublicResponse {
    type Pat<'a> = public::TokenResponse;
    type Pp = privacypass::public_tokens::TokenResponse;

    fn pp_parse(msg: &[u8]) -> Option<(Self::Pp, usize)> {
        tls_parse(msg)
    }

    fn pp_encode(pp: &Self::Pp) -> Vec<u8> {
        tls_encode(pp)
    }
}

// ---- amortized batches --------------------------------------------------------

/// `AmortizedBatchSize` when pat says the batch length is invalid and the
/// element count (from the canonical varint at `at`) is 0 or above 65535.
fn batch_size(err: Error, msg: &[u8], at: usize, ne: usize) -> Option<Divergence> {
    let len = Reader::new(msg.get(at..)?).varint().ok()?;
    let count = usize::try_from(len).ok()? / ne;
    (err == Error::InvalidLength(Field::Batch) && !(1..=65535).contains(&count))
        .then_some(Divergence::AmortizedBatchSize)
}

struct AmortizedRequest<T, CS>(std::marker::PhantomData<(T, CS)>);

impl<T: private::PrivateTokenType, CS: privacypass::common::private::PrivateCipherSuite> Subject
    for AmortizedRequest<T, CS>
{
    type Pat<'a> = amortized::AmortizedTokenRequest<'a, T>;
    type Pp = AmortizedBatchTokenRequest<CS>;

    fn pp_parse(msg: &[u8]) -> Option<(Self::Pp, usize)> {
        tls_parse(msg)
    }

    fn pp_encode(pp: &Self::Pp) -> Vec<u8> {
        tls_encode(pp)
    }

    fn same_fields(pat: &Self::Pat<'_>, pp: &Self::Pp) {
        assert_eq!(pp.nr(), pat.len());
        assert_eq!(pp.truncated_token_key_id(), pat.truncated_token_key_id());
    }

    fn pp_only(err: Error, msg: &[u8], _: &Self::Pp) -> Option<Divergence> {
        type_mismatch(err, msg, T::CODE).or_else(|| batch_size(err, msg, 3, ne::<T>()))
    }
}

struct AmortizedResponse<T, CS>(std::marker::PhantomData<(T, CS)>);

impl<T: private::PrivateTokenType, CS: privacypass::common::private::PrivateCipherSuite> Subject
    for AmortizedResponse<T, CS>
{
    type Pat<'a> = amortized::AmortizedTokenResponse<'a, T>;
    type Pp = AmortizedBatchTokenResponse<CS>;

    fn pp_parse(msg: &[u8]) -> Option<(Self::Pp, usize)> {
        tls_parse(msg)
    }

    fn pp_encode(pp: &Self::Pp) -> Vec<u8> {
        tls_encode(pp)
    }

    fn pp_only(err: Error, msg: &[u8], _: &Self::Pp) -> Option<Divergence> {
        batch_size(err, msg, 0, ne::<T>())
    }
}

/// The element length Ne of a private token type.
fn ne<T: private::PrivateTokenType>() -> usize {
    match T::CODE {
        1 => 49,
        _ => 32,
    }
}

// ---- generic batches ----------------------------------------------------------

fn pp_entry_code(e: &PpEntry) -> u16 {
    pp_code(match e {
        PpEntry::PrivateP384(_) => TokenType::PrivateP384,
        PpEntry::Public(_) => TokenType::Public,
        PpEntry::PrivateRistretto255(_) => TokenType::PrivateRistretto255,
    })
}

fn pp_response_code(e: &PpEntryResponse) -> u16 {
    pp_code(match e {
        PpEntryResponse::PrivateP384(_) => TokenType::PrivateP384,
        PpEntryResponse::Public(_) => TokenType::Public,
        PpEntryResponse::PrivateRistretto255(_) => TokenType::PrivateRistretto255,
    })
}

fn pat_bytes(e: &impl Encode) -> Vec<u8> {
    let mut out = vec![0u8; e.encoded_len()];
    assert_eq!(e.encode(&mut out), Ok(out.len()));
    out
}

struct GenericRequest;

impl Subject for GenericRequest {
    type Pat<'a> = batched::GenericBatchTokenRequest<'a>;
    type Pp = PpBatchRequest;

    fn pp_parse(msg: &[u8]) -> Option<(Self::Pp, usize)> {
        tls_parse(msg)
    }

    fn pp_encode(pp: &Self::Pp) -> Vec<u8> {
        tls_encode(pp)
    }

    fn same_fields(pat: &Self::Pat<'_>, pp: &Self::Pp) {
        assert_eq!(pat.len(), pp.token_requests.len());
        for (a, b) in pat.iter().zip(&pp.token_requests) {
            let a = a.expect("a decoded batch yields its entries");
            assert_eq!(a.kind().code(), pp_entry_code(b));
            assert_eq!(pat_bytes(&a), tls_encode(b));
        }
    }
}

struct GenericResponse;

impl Subject for GenericResponse {
    type Pat<'a> = batched::GenericBatchTokenResponse<'a>;
    type Pp = PpBatchResponse;

    fn pp_parse(msg: &[u8]) -> Option<(Self::Pp, usize)> {
        tls_parse(msg)
    }

    fn pp_encode(pp: &Self::Pp) -> Vec<u8> {
        tls_encode(pp)
    }

    fn same_fields(pat: &Self::Pat<'_>, pp: &Self::Pp) {
        assert_eq!(pat.len(), pp.token_responses.len());
        for (a, b) in pat.iter().zip(&pp.token_responses) {
            let a = a.expect("a decoded batch yields its entries");
            match (&a, &b.token_response) {
                (None, None) => {}
                (Some(a), Some(b)) => {
                    assert_eq!(a.kind().code(), pp_response_code(b));
                    assert_eq!(pat_bytes(a), tls_encode(b));
                }
                _ => panic!("presence differs: pat {a:?}, privacypass {b:?}"),
            }
        }
    }
}
