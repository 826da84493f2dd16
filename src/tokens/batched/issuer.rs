//! The issuer side of generic batches (draft §6.2): each entry goes to the
//! first of the caller's per-type issuers whose key answers it, and the
//! response is written in request order with the others marked absent.

use rand_core::TryCryptoRng;

use super::wire::{encode_optional, write_prefix};
use super::{GenericBatchTokenRequest, GenericTokenRequest, GenericTokenResponse};
use crate::error::{Error, Result};
use crate::tokens::{private, public, truncated_key_id};
use crate::wire::codec::{Writer, varint_len};
use crate::wire::token_type::{PrivateP384, PrivateRistretto255};

/// What [`Issuer::evaluate`] wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchEvaluation {
    /// Bytes of GenericBatchTokenResponse written to the front of the buffer.
    pub len: usize,
    /// Entries answered with a TokenResponse.
    pub issued: usize,
    /// Entries marked absent. When none was issued the draft (§6.2) has the
    /// issuer answer 400 instead; when some were, 206.
    pub absent: usize,
}

/// The issuer side of generic batches (draft §6.2): the caller's keys, by
/// token type. Each entry is evaluated with the key of its type whose
/// truncated key id matches; an entry no key can answer (no key of the type
/// or id, an invalid element, a blinded message not below the RSA modulus, a
/// failed signature check) is absent.
///
/// Requests name their key by its truncated key id only (one byte), so two
/// keys of one type with the same last key-id byte cannot both be served:
/// [`Issuer::new`] refuses such a set ([`Error::KeyIdCollision`]). Without the
/// check the first key would answer requests made for the second, and their
/// clients would lose the whole batch to a failed proof or signature.
#[derive(Clone, Copy, Debug, Default)]
pub struct Issuer<'k> {
    private_p384: &'k [private::Issuer<PrivateP384>],
    public_rsa2048: &'k [public::Issuer],
    private_ristretto255: &'k [private::Issuer<PrivateRistretto255>],
}

/// [`Error::KeyIdCollision`] if two different key ids share their last byte
/// (the same key listed twice is one key, and answers correctly either way).
fn check_truncated_ids<'a>(ids: impl Iterator<Item = &'a [u8; 32]> + Clone) -> Result<()> {
    for (i, a) in ids.clone().enumerate() {
        if ids.clone().skip(i + 1).any(|b| truncated_key_id(a) == truncated_key_id(b) && a != b) {
            return Err(Error::KeyIdCollision);
        }
    }
    Ok(())
}

impl<'k> Issuer<'k> {
    /// The key set: keys for types 0x0001, 0x0002 and 0x0005 (any of the
    /// slices may be empty). [`Error::KeyIdCollision`] if two different keys
    /// of one type share their truncated key id; keys of different types may,
    /// and a key may be listed more than once.
    pub fn new(
        private_p384: &'k [private::Issuer<PrivateP384>],
        public_rsa2048: &'k [public::Issuer],
        private_ristretto255: &'k [private::Issuer<PrivateRistretto255>],
    ) -> Result<Self> {
        check_truncated_ids(private_p384.iter().map(private::Issuer::key_id))?;
        check_truncated_ids(public_rsa2048.iter().map(public::Issuer::key_id))?;
        check_truncated_ids(private_ristretto255.iter().map(private::Issuer::key_id))?;
        Ok(Self { private_p384, public_rsa2048, private_ristretto255 })
    }
}

impl Issuer<'_> {
    /// Evaluates one entry (RFC 9578 §5.2, §6.2): `Ok(None)` when no key
    /// answers it or the issuer refuses it (a blinded element that is not a
    /// valid encoding, an RSA message out of range), so that it is left
    /// absent from the batch; a failing random generator is the issuer's
    /// fault, not the entry's, and is [`Error::Rng`] for the whole batch.
    pub fn evaluate_entry<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        request: &GenericTokenRequest,
        rng: &mut R,
    ) -> Result<Option<GenericTokenResponse>> {
        let id = request.truncated_token_key_id();
        let refused_or_rng = |r: Result<GenericTokenResponse>| match r {
            Ok(response) => Ok(Some(response)),
            Err(Error::Rng(code)) => Err(Error::Rng(code)),
            Err(_) => Ok(None),
        };
        match request {
            GenericTokenRequest::PrivateP384(req) => {
                match self.private_p384.iter().find(|i| truncated_key_id(i.key_id()) == id) {
                    Some(i) => refused_or_rng(i.evaluate(req, rng).map(GenericTokenResponse::PrivateP384)),
                    None => Ok(None),
                }
            }
            GenericTokenRequest::PublicRsa2048(req) => {
                match self.public_rsa2048.iter().find(|i| truncated_key_id(i.key_id()) == id) {
                    Some(i) => refused_or_rng(i.evaluate(req).map(GenericTokenResponse::PublicRsa2048)),
                    None => Ok(None),
                }
            }
            GenericTokenRequest::PrivateRistretto255(req) => {
                match self.private_ristretto255.iter().find(|i| truncated_key_id(i.key_id()) == id) {
                    Some(i) => refused_or_rng(i.evaluate(req, rng).map(GenericTokenResponse::PrivateRistretto255)),
                    None => Ok(None),
                }
            }
        }
    }

    /// Evaluates a batch of at most `N` entries (draft §6.2, §7.2: a larger
    /// batch is [`Error::CapacityExceeded`]; a failing random generator is
    /// [`Error::Rng`], with nothing usable in `out`) and writes the
    /// GenericBatchTokenResponse to the front of `out`, in request order,
    /// absent entries as `0x00`.
    ///
    /// `out` must hold [`GenericBatchTokenRequest::max_response_len`] bytes
    /// ([`Error::BufferTooSmall`], checked before any evaluation). Nothing is
    /// stored: the entries are written after room for the longest varint and
    /// moved into place once the length is known.
    pub fn evaluate<const N: usize, R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        request: &GenericBatchTokenRequest<'_>,
        out: &mut [u8],
        rng: &mut R,
    ) -> Result<BatchEvaluation> {
        if request.len() > N {
            return Err(Error::CapacityExceeded);
        }
        let max_body = request.max_response_body();
        let room = varint_len(u64::try_from(max_body).map_err(|_| Error::ValueTooLarge)?)?;
        let buf = out.get_mut(..room + max_body).ok_or(Error::BufferTooSmall)?;
        let (head, tail) = buf.split_at_mut(room);
        let mut w = Writer::new(tail);
        let (mut issued, mut absent) = (0, 0);
        for entry in request.iter() {
            let response = self.evaluate_entry(&entry?, rng)?;
            if response.is_some() {
                issued += 1
            } else {
                absent += 1
            }
            encode_optional(&mut w, response.as_ref())?;
        }
        let body = w.finish();
        let mut prefix = [0u8; 8];
        let mut pw = Writer::new(&mut prefix);
        write_prefix(&mut pw, body)?;
        let n = pw.finish();
        // Move the varint next to the body, then the whole message to the front.
        let start = room.checked_sub(n).ok_or(Error::ValueTooLarge)?;
        head.get_mut(start..).ok_or(Error::ValueTooLarge)?.copy_from_slice(prefix.get(..n).unwrap_or_default());
        buf.copy_within(start..room + body, 0);
        Ok(BatchEvaluation { len: n + body, issued, absent })
    }
}
