//! The prime-order group and hash that make up an RFC 9497 ciphersuite (§2.1, §4).
//!
//! [`Suite`] is implemented by one zero-sized type per ciphersuite. The
//! protocol code in this module is written once against it.

use core::fmt::Debug;
use core::hash::Hash;
use core::ops::{Add, Mul, Sub};

use rand_core::TryCryptoRng;
use subtle::{Choice, ConstantTimeEq};
use zeroize::Zeroize;

use crate::error::{Error, Field, Result};

pub(crate) mod sealed {
    /// Keeps [`super::Suite`] and [`super::ByteArray`] closed to this crate.
    pub trait Sealed {}
}

/// A fixed-size byte array (`[u8; N]`) used for serialized elements, scalars,
/// proofs and outputs (RFC 9497 §2.1 `Ne`, `Ns`, §4 `Nh`).
///
/// It is implemented for every `[u8; N]`; the trait only exists so that the
/// sizes can be associated types of a [`Suite`].
pub trait ByteArray:
    AsRef<[u8]> + AsMut<[u8]> + Copy + Eq + Hash + Debug + Send + Sync + Zeroize + 'static + sealed::Sealed
{
    /// The array length in bytes (`Ne`, `Ns`, `2·Ns` or `Nh`, RFC 9497 §2.1, §4).
    const LEN: usize;
    /// The all-zero array (a placeholder for output slices, e.g. the
    /// evaluated elements of RFC 9497 §3.3.2 `BlindEvaluate`).
    const ZERO: Self;

    /// Copies `bytes` into a new array; `None` if the length differs (the
    /// fixed-length encodings of RFC 9497 §2.1).
    fn from_slice(bytes: &[u8]) -> Option<Self> {
        let mut out = Self::ZERO;
        if bytes.len() != out.as_ref().len() {
            return None;
        }
        out.as_mut().copy_from_slice(bytes);
        Some(out)
    }
}

impl<const N: usize> sealed::Sealed for [u8; N] {}

impl<const N: usize> ByteArray for [u8; N] {
    const LEN: usize = N;
    const ZERO: Self = [0u8; N];
}

/// The protocol variant (RFC 9497 §3.1), which enters every domain separation
/// tag through the context string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// modeOPRF = 0x00.
    Oprf,
    /// modeVOPRF = 0x01.
    Voprf,
    /// modePOPRF = 0x02.
    Poprf,
}

impl Mode {
    /// `I2OSP(mode, 1)`.
    pub(crate) const fn byte(self) -> [u8; 1] {
        match self {
            Mode::Oprf => [0x00],
            Mode::Voprf => [0x01],
            Mode::Poprf => [0x02],
        }
    }
}

/// The prefix of every context string (RFC 9497 §3.1, `CreateContextString`).
const CONTEXT_PREFIX: &[u8] = b"OPRFV1-";

/// The pieces of `contextString = "OPRFV1-" || I2OSP(mode, 1) || "-" || identifier`
/// (RFC 9497 §3.1), kept apart so that DSTs and transcripts can be hashed
/// piece by piece without a buffer.
pub(crate) struct Context<S: Suite> {
    mode: [u8; 1],
    _suite: core::marker::PhantomData<S>,
}

impl<S: Suite> Context<S> {
    pub(crate) const fn new(mode: Mode) -> Self {
        Self { mode: mode.byte(), _suite: core::marker::PhantomData }
    }

    /// `prefix || contextString` as slices, for the `dst` argument of
    /// expand_message or for hashing.
    pub(crate) fn with_prefix<'a>(&'a self, prefix: &'a [u8]) -> [&'a [u8]; 5] {
        [prefix, CONTEXT_PREFIX, &self.mode, b"-", S::ID.as_bytes()]
    }

    /// `len(contextString)`.
    pub(crate) const fn len() -> usize {
        CONTEXT_PREFIX.len() + 2 + S::ID.len()
    }
}

/// An RFC 9497 ciphersuite: a prime-order group, its encodings and a hash
/// function (RFC 9497 §2.1 and §4).
///
/// Implemented by [`P384Sha384`](super::P384Sha384) (§4.4) and
/// [`Ristretto255Sha512`](super::Ristretto255Sha512) (§4.1). The trait is
/// sealed, and the group operations behind it are internal to the crate: use
/// the protocol functions in [`voprf`](super). Its constants and types are
/// public:
///
/// ```
/// fn element_len<S: pat::crypto::voprf::Suite>() -> usize {
///     S::NE
/// }
/// assert_eq!(element_len::<pat::crypto::voprf::P384Sha384>(), 49);
/// ```
///
/// but its group operations are not, not even through a generic bound:
///
/// ```compile_fail
/// fn hash<S: pat::crypto::voprf::Suite>() -> S::Output {
///     S::hash_parts(&[b"x"])
/// }
/// ```
///
/// (The peer benchmarks reach a few of them through `voprf::bench`, which
/// exists only when the crate is built with `--cfg pat_bench`.)
#[allow(private_bounds)] // the private supertrait is the seal
pub trait Suite:
    sealed::Sealed + SuiteOps + Copy + Clone + Debug + Default + Eq + Hash + Send + Sync + 'static
{
    /// The ciphersuite identifier (RFC 9497 §4), e.g. `"P384-SHA384"`.
    const ID: &'static str;
    /// The VOPRF-mode context string,
    /// `"OPRFV1-" || I2OSP(0x01, 1) || "-" || ID` (RFC 9497 §3.1).
    const CONTEXT_STRING: &'static [u8];
    /// `Ne`: the length of a serialized element (RFC 9497 §2.1).
    const NE: usize;
    /// `Ns`: the length of a serialized scalar (RFC 9497 §2.1).
    const NS: usize;
    /// `Nh`: the output length of the suite's hash, and so of the PRF (RFC 9497 §4).
    const NH: usize;

    /// A group element (RFC 9497 §2.1 `Element`), in the representation the
    /// arithmetic uses.
    type Point: Copy
        + Default
        + Zeroize
        + Send
        + Sync
        + ConstantTimeEq
        + Add<Output = Self::Point>
        + Mul<Self::Scalar, Output = Self::Point>;
    /// A scalar modulo the group order (RFC 9497 §2.1 `Scalar`).
    type Scalar: Copy
        + Default
        + Send
        + Sync
        + ConstantTimeEq
        + Zeroize
        + Add<Output = Self::Scalar>
        + Mul<Output = Self::Scalar>
        + Sub<Output = Self::Scalar>;
    /// `SerializeElement` output, `[u8; Ne]`.
    type ElementBytes: ByteArray;
    /// `SerializeScalar` output, `[u8; Ns]`.
    type ScalarBytes: ByteArray;
    /// A serialized DLEQ proof `c || s`, `[u8; 2 * Ns]` (RFC 9497 §2.2).
    type ProofBytes: ByteArray;
    /// A PRF output, `[u8; Nh]` (RFC 9497 §3.3.1 `Finalize`).
    type Output: ByteArray;
}

/// The group operations of a [`Suite`]: internal to the crate. The protocol
/// code calls them; nothing outside the crate can (but the peer benchmarks,
/// through `voprf::bench` under `--cfg pat_bench`), so that they are free to
/// change and cannot be used without the checks the protocol functions make.
/// (A supertrait of `Suite` that is private, not only hidden from the docs.)
pub(crate) trait SuiteOps {
    /// `HashToGroup(msg)` with the given DST (RFC 9497 §4), never the identity
    /// for honest inputs; the caller checks.
    fn hash_to_group(msg: &[&[u8]], dst: &[&[u8]]) -> Result<<Self as Suite>::Point>
    where
        Self: Suite;

    /// `HashToScalar(msg)` with the given DST (RFC 9497 §4).
    fn hash_to_scalar(msg: &[&[u8]], dst: &[&[u8]]) -> Result<<Self as Suite>::Scalar>
    where
        Self: Suite;

    /// `Hash(msg)` (RFC 9497 §4), over the concatenation of `msg`.
    fn hash_parts(msg: &[&[u8]]) -> <Self as Suite>::Output
    where
        Self: Suite;

    /// `RandomScalar()`: a uniformly random non-zero scalar (RFC 9497 §4.7).
    fn random_scalar<R: TryCryptoRng<Error: 'static> + ?Sized>(rng: &mut R) -> Result<<Self as Suite>::Scalar>
    where
        Self: Suite;

    /// `ScalarMultGen(s)`, constant time.
    fn mul_base(s: &<Self as Suite>::Scalar) -> <Self as Suite>::Point
    where
        Self: Suite;

    /// `a·G + b·P` as one double-scalar multiplication. Variable time:
    /// public inputs only.
    fn mul_base_add_vartime(
        a: &<Self as Suite>::Scalar,
        b: &<Self as Suite>::Scalar,
        p: &<Self as Suite>::Point,
    ) -> <Self as Suite>::Point
    where
        Self: Suite;

    /// `Σ s_i·P_i`, as multi-scalar multiplications. Variable time: public
    /// inputs only.
    fn lincomb_vartime(pairs: &[(<Self as Suite>::Point, <Self as Suite>::Scalar)]) -> Result<<Self as Suite>::Point>
    where
        Self: Suite;

    /// `out_i = SerializeElement(k·P_i)` (RFC 9497 §3.3.1 `BlindEvaluate`),
    /// constant time in `k`; `InvalidElement` if a result is the identity.
    /// `out` must have the length of `points`.
    fn mul_serialize(
        k: &<Self as Suite>::Scalar,
        points: &[<Self as Suite>::Point],
        out: &mut [<Self as Suite>::ElementBytes],
    ) -> Result<()>
    where
        Self: Suite,
    {
        const CHUNK: usize = 8;
        if points.len() != out.len() {
            return Err(Error::InvalidLength(Field::Batch));
        }
        for (inp, out) in points.chunks(CHUNK).zip(out.chunks_mut(CHUNK)) {
            let mut products = [<Self as Suite>::Point::default(); CHUNK];
            for (q, p) in products.iter_mut().zip(inp) {
                *q = *p * *k;
            }
            let result = match products.get(..inp.len()) {
                Some(products) => Self::serialize_elements(products, out),
                None => Err(Error::InvalidLength(Field::Batch)),
            };
            // The products are sent by an issuer, but a client's unblinding
            // (`Finalize`) also comes here: wipe them.
            products.zeroize();
            result?;
        }
        Ok(())
    }

    /// `out = SerializeElement(k·P)` for a client's unblinding (RFC 9497
    /// §3.3.1 `Finalize`, `k = blind⁻¹`), constant time in `k`; the product
    /// is the client's secret, unlike [`mul_serialize`](Self::mul_serialize)'s.
    fn unblind_serialize(
        k: &<Self as Suite>::Scalar,
        p: &<Self as Suite>::Point,
        out: &mut <Self as Suite>::ElementBytes,
    ) -> Result<()>
    where
        Self: Suite,
    {
        Self::mul_serialize(k, core::slice::from_ref(p), core::slice::from_mut(out))
    }

    /// `(k·HashToGroup(msg), SerializeElement(k·HashToGroup(msg)))` with the
    /// given DST (RFC 9497 §3.3.1 `Blind`, §3.3.2 `Evaluate`), constant time in
    /// `k` and in the hashed point. `InvalidElement` if the hashed point is the
    /// identity (`InvalidInputError`) or the product is.
    fn hash_mul(
        msg: &[&[u8]],
        dst: &[&[u8]],
        k: &<Self as Suite>::Scalar,
    ) -> Result<(<Self as Suite>::Point, <Self as Suite>::ElementBytes)>
    where
        Self: Suite,
    {
        let p = Self::hash_to_group(msg, dst)?;
        let mut identity = Self::is_identity(&p);
        crate::ct::declassify(&mut identity); // verdict only: InvalidInputError aborts (RFC 9497 §3.3.1)
        if bool::from(identity) {
            return Err(Error::InvalidElement);
        }
        let product = p * *k;
        let bytes = serialize_element::<Self>(&product)?;
        Ok((product, bytes))
    }

    /// Precomputation for several constant-time multiplications of one
    /// point ([`SuiteOps::prepared_mul`]).
    type Prepared;

    /// Prepares `p` for [`SuiteOps::prepared_mul`]; `InvalidElement` if the suite
    /// needs a non-identity point.
    fn prepare(p: &<Self as Suite>::Point) -> Result<Self::Prepared>
    where
        Self: Suite;

    /// `out_i = s_i·P` for the prepared point and up to four scalars, constant
    /// time. `out` must have the length of `scalars`.
    fn prepared_mul(
        p: &Self::Prepared,
        scalars: &[<Self as Suite>::Scalar],
        out: &mut [<Self as Suite>::Point],
    ) -> Result<()>
    where
        Self: Suite;

    /// `s⁻¹`, constant time; `InvalidScalar` for zero.
    fn invert(s: &<Self as Suite>::Scalar) -> Result<<Self as Suite>::Scalar>
    where
        Self: Suite;

    /// Whether `s` is zero.
    fn scalar_is_zero(s: &<Self as Suite>::Scalar) -> Choice
    where
        Self: Suite;

    /// Whether `p` is the identity.
    fn is_identity(p: &<Self as Suite>::Point) -> Choice
    where
        Self: Suite;

    /// `SerializeElement` for a batch of points; `InvalidElement` if one of
    /// them is the identity. `out` must have the length of `points`.
    fn serialize_elements(points: &[<Self as Suite>::Point], out: &mut [<Self as Suite>::ElementBytes]) -> Result<()>
    where
        Self: Suite;

    /// `DeserializeElement`: canonical encodings of non-identity elements only
    /// (`InvalidElement` otherwise).
    fn deserialize_element(bytes: &<Self as Suite>::ElementBytes) -> Result<<Self as Suite>::Point>
    where
        Self: Suite;

    /// `SerializeScalar`.
    fn serialize_scalar(s: &<Self as Suite>::Scalar) -> <Self as Suite>::ScalarBytes
    where
        Self: Suite;

    /// `DeserializeScalar`: canonical encodings only (`InvalidScalar`
    /// otherwise); zero is accepted.
    fn deserialize_scalar(bytes: &<Self as Suite>::ScalarBytes) -> Result<<Self as Suite>::Scalar>
    where
        Self: Suite;
}

/// `SerializeElement` for one point.
pub(crate) fn serialize_element<S: Suite>(p: &S::Point) -> Result<S::ElementBytes> {
    let mut out = [S::ElementBytes::ZERO];
    S::serialize_elements(core::slice::from_ref(p), &mut out)?;
    let [bytes] = out;
    Ok(bytes)
}

/// `I2OSP(len(x), 2)`, or `InvalidLength(field)` if `x` is longer than 65535 bytes.
pub(crate) fn len2(len: usize, field: Field) -> Result<[u8; 2]> {
    u16::try_from(len).map(u16::to_be_bytes).map_err(|_| Error::InvalidLength(field))
}

/// Sizes that cannot be expressed in the types, checked once per suite at
/// compile time (referenced from the suite modules).
pub(crate) const fn check_sizes<S: Suite>() -> bool {
    S::ElementBytes::LEN == S::NE
        && S::ScalarBytes::LEN == S::NS
        && S::ProofBytes::LEN == 2 * S::NS
        && S::Output::LEN == S::NH
        && S::CONTEXT_STRING.len() == Context::<S>::len()
}
