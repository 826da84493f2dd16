//! ACT (Anonymous Credit Tokens, draft-schlesinger-cfrg-act-01, crypto
//! layer): the fixture and the demo's row.

use pat::crypto::act::{CreditToken, IssuanceRequest, IssuanceResponse, Params, PreIssuance, PrivateKey, SpendProof};
use pat::deploy::replay::{MemoryReplayStore, spend_id};

use super::{RUNS, Result, Row, median_us, rng};

/// Bits of a balance in the demo (balances below 65,536).
pub(crate) const ACT_L: usize = 16;
/// The credits the demo's credential starts with.
const CREDITS: u128 = 100;
/// The demo's request context (its `ctx` scalar, canonical).
const CTX: [u8; 32] = [7; 32];

/// An issuer key, the parameters, and one issued credential of 100 credits.
pub(crate) struct ActFixture {
    pub(crate) params: Params,
    pub(crate) key: PrivateKey,
    pub(crate) request: IssuanceRequest,
    pub(crate) pre: PreIssuance,
    pub(crate) response: IssuanceResponse,
    pub(crate) token: CreditToken,
}

impl ActFixture {
    pub(crate) fn new() -> Result<Self> {
        let params = Params::new("pat", "demo", "act", "2026-12-04")?;
        let key = PrivateKey::generate(&mut rng())?;
        let pre = PreIssuance::random(&mut rng())?;
        let request = pre.request(&params, &mut rng())?;
        let response = key.issue::<ACT_L, _>(&params, &request, CREDITS, &CTX, &mut rng())?;
        let token = pre.to_credit_token::<ACT_L>(&params, key.public_key(), &request, &response)?;
        Ok(Self { params, key, request, pre, response, token })
    }

    /// A spend of `s` from the fixture's credential: the proof.
    pub(crate) fn spend(&self, s: u128) -> Result<SpendProof<ACT_L>> {
        Ok(self.token.prove_spend::<ACT_L, _>(&self.params, s, &mut rng())?.0)
    }
}

/// The row and a line: a credential of 100 credits spent three times with
/// refunds, an overspend refused by the client, a replayed spend refused
/// by the issuer's nullifier store.
pub(super) fn act_row() -> Result<(Row, String)> {
    let f = ActFixture::new()?;
    let mut store = MemoryReplayStore::<16>::new([0xac; 32]);
    let (now, expires_at) = (1_700_000_000, 1_700_086_400);
    let key_id = f.key.public_key().to_bytes();
    let mut token = CreditToken::from_cbor(&*f.token.to_cbor())?;
    let mut balances = vec![token.credits::<ACT_L>()?];
    let mut first_proof = None;
    // Spend 30 (refund 5), 20 (refund 0), 40 (refund 10): 100 → 75 → 55 → 25.
    for (s, t) in [(30, 5), (20, 0), (40, 10)] {
        let (proof, pre_refund) = token.prove_spend::<ACT_L, _>(&f.params, s, &mut rng())?;
        spend_id(&mut store, &key_id, &proof.nullifier(), expires_at, now)?;
        let refund = f.key.refund::<ACT_L, _>(&f.params, &proof, t, &mut rng())?;
        token = pre_refund.to_credit_token::<ACT_L>(&f.params, &proof, &refund, f.key.public_key())?;
        balances.push(token.credits::<ACT_L>()?);
        first_proof.get_or_insert(proof);
    }
    let overspend = match token.prove_spend::<ACT_L, _>(&f.params, 26, &mut rng()) {
        Err(pat::Error::ValueTooLarge) => "refused",
        _ => return Err(pat::Error::Verification),
    };
    let first = first_proof.ok_or(pat::Error::Verification)?;
    let replay = match spend_id(&mut store, &key_id, &first.nullifier(), expires_at, now) {
        Err(pat::Error::Replayed) => "refused (replayed)",
        _ => return Err(pat::Error::Verification),
    };
    let proof = f.spend(30)?;
    let times = [
        median_us(RUNS, || PreIssuance::random(&mut rng()), |pre| pre.and_then(|p| p.request(&f.params, &mut rng()))),
        median_us(RUNS, || (), |()| f.key.issue::<ACT_L, _>(&f.params, &f.request, CREDITS, &CTX, &mut rng())),
        median_us(
            RUNS,
            || (),
            |()| f.pre.to_credit_token::<ACT_L>(&f.params, f.key.public_key(), &f.request, &f.response),
        ),
        median_us(RUNS, || (), |()| f.key.refund::<ACT_L, _>(&f.params, &proof, 0, &mut rng())),
    ];
    let spend_us = median_us(RUNS, || (), |()| f.token.prove_spend::<ACT_L, _>(&f.params, 30, &mut rng()));
    let line = format!(
        "act (L {ACT_L}): credits {balances:?} after spending 30, 20, 40 with refunds 5, 0, 10; spending 26 of 25 {overspend}; \
         a replayed spend {replay}; a spend proof takes {spend_us:.1} us (verify = issuer's check and refund)"
    );
    Ok((
        Row {
            label: format!("act ristretto255 (L {ACT_L})"),
            request: IssuanceRequest::LEN,
            response: IssuanceResponse::LEN,
            token: SpendProof::<ACT_L>::LEN,
            times,
        },
        line,
    ))
}
