//! The issuer of an amortized batch: the batch evaluation method of
//! `private::Issuer`.

use heapless::Vec;
use rand_core::TryCryptoRng;

use super::{AmortizedTokenRequest, ElementBytes, Issuer};
use crate::crypto::voprf::{self, ByteArray, Element, Suite};
use crate::error::{Error, Result};
use crate::tokens::private::PrivateTokenType;
use crate::tokens::truncated_key_id;
use crate::wire::codec::{Writer, varint_len};

impl<T: PrivateTokenType> Issuer<T> {
    /// Evaluates an amortized request of up to `N` elements with one batched
    /// DLEQ proof and writes the response into `out`, returning its length.
    /// Checks the truncated key id ([`Error::KeyIdMismatch`]), the capacity
    /// ([`Error::CapacityExceeded`]) and the length of `out`
    /// ([`Error::BufferTooSmall`]: the response is `varint(n·Ne) ‖ n·Ne ‖
    /// 2·Ns` bytes for `n` elements) before any cryptography, then every
    /// element ([`Error::InvalidElement`]).
    pub fn evaluate_batch<const N: usize, R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        request: &AmortizedTokenRequest<'_, T>,
        out: &mut [u8],
        rng: &mut R,
    ) -> Result<usize> {
        if request.truncated_token_key_id() != truncated_key_id(self.key_id()) {
            return Err(Error::KeyIdMismatch);
        }
        if request.len() > N {
            return Err(Error::CapacityExceeded);
        }
        // The response length follows from the request: refuse a short buffer
        // before any scalar multiplication.
        let body = request.len() * T::Suite::NE;
        let len = varint_len(u64::try_from(body).map_err(|_| Error::ValueTooLarge)?)? + body + 2 * T::Suite::NS;
        let out = out.get_mut(..len).ok_or(Error::BufferTooSmall)?;
        let mut blinded: Vec<Element<T::Suite>, N> = Vec::new();
        for bytes in request.blinded_msgs() {
            blinded.push(Element::from_bytes(&bytes?)?).map_err(|_| Error::CapacityExceeded)?;
        }
        let mut evaluated: Vec<ElementBytes<T>, N> = Vec::new();
        evaluated.resize(blinded.len(), ElementBytes::<T>::ZERO).map_err(|_| Error::CapacityExceeded)?;
        let proof = voprf::blind_evaluate(self.key_pair(), &blinded, &mut evaluated, rng)?;
        let mut w = Writer::new(out);
        w.varint(u64::try_from(body).map_err(|_| Error::ValueTooLarge)?)?;
        evaluated.iter().try_for_each(|e| w.put(e.as_ref()))?;
        w.put(proof.to_bytes().as_ref())?;
        Ok(w.finish())
    }
}
