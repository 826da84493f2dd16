//! System parameters (draft-schlesinger-cfrg-act-01 §3.1): the domain
//! separator and the generators H1..H4 it determines.

use core::fmt;

use curve25519_dalek::ristretto::RistrettoPoint;

#[cfg(feature = "precomputed-tables")]
use super::fixed_base::Tables;
use super::group::Elem;
use super::transcript::{PROTOCOL_VERSION, absorb};
use crate::error::{Error, Field, Result};

/// The prefix of a structured domain separator (§3.1).
pub const DOMAIN_SEPARATOR_PREFIX: &str = "ACT-v1:";

/// A deployment's parameters: H1, H2, H3, H4 (`GenerateParameters`, §3.1),
/// and the transcript state after the protocol version and their encodings
/// (§3.7.2). They do not depend on the bit length L.
///
/// With the `precomputed-tables` feature they also keep a fixed-base table
/// per generator (30 KiB on the heap each, built on the first product by
/// that generator, about 0.8 ms), which makes every step two to three
/// times faster, and for an issuer a variable-time table of H3 (215 KiB,
/// 0.2 ms, built on its first issuance or refund); clones share the
/// tables, so build the parameters once per deployment and clone them.
/// Without the feature they hold no more than the generators and the
/// transcript state, and nothing allocates.
#[derive(Clone)]
pub struct Params {
    pub(crate) h1: Elem,
    pub(crate) h2: Elem,
    pub(crate) h3: Elem,
    pub(crate) h4: Elem,
    pub(crate) transcript: blake3::Hasher,
    #[cfg(feature = "precomputed-tables")]
    pub(crate) tables: Tables,
}

impl fmt::Debug for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Params")
            .field("h1", &self.h1.bytes)
            .field("h2", &self.h2.bytes)
            .field("h3", &self.h3.bytes)
            .field("h4", &self.h4.bytes)
            .finish()
    }
}

impl Params {
    /// The parameters of the structured domain separator
    /// `"ACT-v1:" ‖ organization ‖ ":" ‖ service ‖ ":" ‖ deployment_id ‖ ":"
    /// ‖ version` (§3.1; `version` an ISO 8601 date). A component containing
    /// ':' is `InvalidValue(Message)` (the draft forbids it, so that two
    /// deployments cannot share a separator).
    pub fn new(organization: &str, service: &str, deployment_id: &str, version: &str) -> Result<Self> {
        let parts = [organization, service, deployment_id, version];
        if parts.iter().any(|p| p.contains(':')) {
            return Err(Error::InvalidValue(Field::Message));
        }
        Ok(Self::from_parts(&[
            DOMAIN_SEPARATOR_PREFIX.as_bytes(),
            organization.as_bytes(),
            b":",
            service.as_bytes(),
            b":",
            deployment_id.as_bytes(),
            b":",
            version.as_bytes(),
        ]))
    }

    /// The parameters of any domain separator, taken as it is (for
    /// separators made elsewhere, such as the appendix vectors'
    /// `"ACT-v1:test:vectors:v0:2025-01-01"`). Prefer [`Params::new`], which
    /// builds the structured form the draft asks for.
    pub fn from_domain_separator(domain_separator: &[u8]) -> Self {
        Self::from_parts(&[domain_separator])
    }

    /// `GenerateParameters` over the concatenation of `parts` (hashed
    /// piecewise, so nothing is copied).
    fn from_parts(parts: &[&[u8]]) -> Self {
        let ds_len: usize = parts.iter().map(|p| p.len()).sum();
        let lp_ds = |hasher: &mut blake3::Hasher| {
            hasher.update(&u64::try_from(ds_len).unwrap_or(u64::MAX).to_be_bytes());
            for p in parts {
                hasher.update(p);
            }
        };
        // seed = BLAKE3(LengthPrefixed(domain_separator)).
        let mut hasher = blake3::Hasher::new();
        lp_ds(&mut hasher);
        let seed = *hasher.finalize().as_bytes();
        // HashToRistretto255(seed, counter), counter = 0, 1, 2, 3.
        let generator = |counter: u32| {
            let mut hasher = blake3::Hasher::new();
            lp_ds(&mut hasher);
            absorb(&mut hasher, &seed);
            absorb(&mut hasher, &counter.to_le_bytes());
            let mut uniform = [0u8; 64];
            hasher.finalize_xof().fill(&mut uniform);
            let point = RistrettoPoint::from_uniform_bytes(&uniform);
            Elem { point, bytes: point.compress().to_bytes() }
        };
        let (h1, h2, h3, h4) = (generator(0), generator(1), generator(2), generator(3));
        // CreateTranscript's steps before the label (§3.7.2).
        let mut transcript = blake3::Hasher::new();
        absorb(&mut transcript, PROTOCOL_VERSION);
        for h in [&h1, &h2, &h3, &h4] {
            absorb(&mut transcript, &h.bytes);
        }
        Self {
            h1,
            h2,
            h3,
            h4,
            transcript,
            #[cfg(feature = "precomputed-tables")]
            tables: Tables::default(),
        }
    }

    /// The encodings of H1, H2, H3 and H4.
    pub fn generators(&self) -> [[u8; 32]; 4] {
        [self.h1.bytes, self.h2.bytes, self.h3.bytes, self.h4.bytes]
    }
}
