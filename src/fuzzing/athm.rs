//! The targets of ATHM(P-256) and token type 0xC07E
//! (draft-yun-cfrg-athm-00, draft-yun-privacypass-athm-00): the
//! TokenRequest, the TokenResponse for four buckets, the Token, the client's
//! exported request state, and the keys (public key, key proof, private key,
//! the published token key). What decodes re-encodes to the same bytes; what
//! fails, fails with the error its decoder documents; and each message then
//! goes through the role that receives it, played by a fixed issuer and
//! client ([`Fixture`]): the issuer issues a response to a request, the client
//! finalizes a response, the issuer verifies a token, an imported state
//! finalizes. The fixture is the reference's vectors (`tests/vectors/athm/`:
//! four buckets, its deployment id, key, request and response), so the
//! vector's messages reach the success paths; the seeds are the valid ATHM
//! messages of the negative vectors (`scripts/fuzz-seeds.py`). Randomness is
//! [`FixedRng`], so every input replays the same way.

use p256::AffinePoint;
use p256::elliptic_curve::group::GroupEncoding;
use sha2::{Digest, Sha256};

use super::reencodes_to;
use crate::crypto::athm::{Params, PrivateKey, PublicKey, PublicKeyProof, TokenRequest as AthmRequest, TokenResponse};
use crate::error::{Error, Field};
use crate::tokens::athm::{
    Client, Issuer, REQUEST_LEN, RequestState, TOKEN_KEY_LEN, TOKEN_LEN, TOKEN_TYPE, Token, TokenRequest,
};
use crate::wire::codec::Decode;

/// The buckets of the fixture's deployment (the vectors' `n_buckets`).
const N: usize = 4;
/// [`N`] as a hidden value's bound.
const BUCKETS: u8 = 4;
type Response = TokenResponse<N>;

/// The vectors' deployment id.
const DEPLOYMENT_ID: &[u8] = b"test_vector_deployment_id";
/// The value the vectors' response hides.
const HIDDEN: u8 = 3;

/// The reference's `key_gen` private key, x ‖ y ‖ z ‖ r_x ‖ r_y (160 bytes).
const PRIVATE_KEY: [&str; 4] = [
    "023f37203a2476c42566a61cc55c3ca875dbb4cc41c0deb789f8e7bf881836381ecc3686b60ee3b84b6c7d321d70d5c0",
    "6e9dac63a4d0a79d731b17c0d04d030d01274dd1ee5216c204fb698daea45b52e98b6f0fdd046dcc3a86bb079e36f024",
    "147e4b875d59a9ef432b8e45b04a98c4b19dc8c7475f5dce4259b4ca2dd67282b478b8702c1d2569fe52e5d7dbadec62",
    "23cd10fd4b504dabac7fff23a37363d1",
];

/// Its public key, Z ‖ C_x ‖ C_y (99 bytes).
const PUBLIC_KEY: [&str; 3] = [
    "032b80024ee818d709196780a84affe08789f571529fccc1acce07eea2df2fc65f035f6a6eb84bea9c1361119462bda8",
    "63c47c3b43e53e9e5e7a8796ba1b924d093e03b7f16df0ad82cbd8bd6a04ed427107adf5a3d4ba840e9b341a3badc1d9",
    "b7fe19",
];

/// Its public key's proof, e ‖ a_z (64 bytes).
const KEY_PROOF: [&str; 2] = [
    "28ccf67d4ad339a45a8435b660160fef113a157221ce6f4a5c6f584a58d4509152852fcc950dd7495211dbefd34b733a",
    "730e5a2085e04f847e3c1af4355c59fe",
];

/// The client's state after the reference's `token_request`: pat's header
/// (version 1, shape 4, type 0xC07E), r ‖ tc ‖ T ‖ key id (133 bytes,
/// [`RequestState::export`]'s layout).
const STATE: [&str; 4] = [
    "0104c07e",
    "f6a12ca8ffc30a66ca140ccc7276336115819361186d3f535dd99f8eaaca8fce7f82dd63f4f75c33da444b72372be3aa",
    "43c0027a076bf9675eb7932695d127a4030a1b41e492728f4f59d368761e1ff568536ad2987fd5be6017c5043ed25b67",
    "ea027defbe3a76d47f76e8e1296ddbadf8faeb91852a5964d7986ad974441dfc1c",
];

/// The reference's `token_response` to that request, hiding 3 (483 bytes).
const RESPONSE: [&str; 11] = [
    "0245db306e323313840a20233ad432aae1be784f96aa940b628d56914249ce4b8c0250ccea1818d4ecf3026ebca1845f",
    "bff1cd0089868bbfdecac1c77b9ef2b00480385553aa23a24b14d8bbc2dff606277f444e049797ae7e0404e3a9ba0ece",
    "f2fb02d84ab8d7b059374064295a5b2c084c1814a4a33635769a6a196cb99c33122b6affb9e4ee66f5a203f5a31575fd",
    "70251b1cd922bcfaa87fc7c071df4412854ba49b424c1a1cded001b3ff8f0bc5306fa9950d236ce7075d9f702c3f0cd5",
    "546f8900a60c8dfef9f6633994aa4ed8b1ebd9111bcf05c62b39e9f7426edc7aab3fe679ff5c180ef849b41bd7033353",
    "818dd3e442431a1cb2c16992bdadef048a3673a43052fa4d37c9836e498619b9fc1584381292d0b1ec6f952fc6bab803",
    "5f6b30478648a01804edaba38b5cf910a932567c48e78b724d57400edd6f98cd565835bb1f733e33dc6335d9283d288a",
    "da574131ba288318476415651c571eee8430a75cae55cb231a35b67334ab9c30110d0bc6ce1d3654d4c44bbef74c3d57",
    "2d432c7b4d06f693bd73505a93a56ab5190b18484c9e7231037fddfa45e1bcbb488def7d54110bbbe0a2a4799a6a8ccf",
    "f13b1b347fe6867132b1dec0901f7bad11d7c2f8446cffc0f19d60db17c0db5770fdc83f70cd691de8b68289efafac5b",
    "098f63",
];

/// Offsets in a [`RequestState`] export: T, then the key id.
const STATE_T: usize = 4 + 64;
const STATE_KEY_ID: usize = STATE_T + AthmRequest::LEN;
/// Offsets in a [`Token`]: the key id, t, P, Q.
const TOKEN_KEY_ID: usize = 2;
const TOKEN_T: usize = TOKEN_KEY_ID + 32;
const TOKEN_P: usize = TOKEN_T + 32;
const TOKEN_Q: usize = TOKEN_P + 33;

/// Hex pieces to bytes (the constants above; a panic names a bad one).
fn unhex<const L: usize>(pieces: &[&str]) -> [u8; L] {
    let digit = |c: &u8| match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => panic!("not a hex digit: {c}"),
    };
    let mut out = [0u8; L];
    let pairs = pieces.iter().flat_map(|p| p.as_bytes().chunks_exact(2));
    assert_eq!(pieces.iter().map(|p| p.len()).sum::<usize>(), 2 * L, "a constant of the wrong length");
    for (byte, pair) in out.iter_mut().zip(pairs) {
        if let [hi, lo] = pair {
            *byte = (digit(hi) << 4) | digit(lo);
        }
    }
    out
}

fn ok<T>(r: crate::Result<T>, what: &str) -> T {
    match r {
        Ok(v) => v,
        Err(e) => panic!("the 0xC07E fixture's {what} failed: {e:?}"),
    }
}

/// A deterministic generator: SHA-256 of a label and a counter. The draws
/// of issue (ts, d, the simulated proof) and finalize (c) need not be
/// secret here, only reproducible.
struct FixedRng(u64);

impl rand_core::TryRng for FixedRng {
    type Error = core::convert::Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        let mut b = [0u8; 4];
        self.try_fill_bytes(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        let mut b = [0u8; 8];
        self.try_fill_bytes(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        for chunk in dst.chunks_mut(32) {
            let block = Sha256::new().chain_update(b"pat fuzzing 0xC07E").chain_update(self.0.to_be_bytes()).finalize();
            self.0 = self.0.wrapping_add(1);
            if let Some(src) = block.get(..chunk.len()) {
                chunk.copy_from_slice(src);
            }
        }
        Ok(())
    }
}

impl rand_core::TryCryptoRng for FixedRng {}

/// The vectors' issuer and a client of its token key, each rebuilt per
/// input and only when a target needs it (the library has no allocator and
/// no lazy statics: generatorH is one hash to the curve, and the issuer and
/// the client each check the key's proof).
struct Fixture;

impl Fixture {
    fn params() -> Params<'static, N> {
        ok(Params::new(DEPLOYMENT_ID), "params")
    }

    fn issuer() -> Issuer<'static, N> {
        let key = ok(PrivateKey::from_bytes(&unhex::<{ PrivateKey::LEN }>(&PRIVATE_KEY)), "private key");
        let proof = ok(PublicKeyProof::from_bytes(&unhex::<{ PublicKeyProof::LEN }>(&KEY_PROOF)), "key proof");
        ok(Issuer::with_proof(Self::params(), key, proof), "issuer")
    }

    /// A client of the vectors' token key, `PUBLIC_KEY ‖ KEY_PROOF`.
    fn client() -> Client<'static, N> {
        let mut token_key = [0u8; TOKEN_KEY_LEN];
        let (key, proof) = token_key.split_at_mut(PublicKey::LEN);
        key.copy_from_slice(&unhex::<{ PublicKey::LEN }>(&PUBLIC_KEY));
        proof.copy_from_slice(&unhex::<{ PublicKeyProof::LEN }>(&KEY_PROOF));
        ok(Client::from_token_key(Self::params(), &token_key), "client")
    }

    /// The client's state after the vectors' request.
    fn state() -> RequestState {
        ok(RequestState::import(&Self::state_bytes()), "state")
    }

    fn state_bytes() -> [u8; RequestState::LEN] {
        unhex(&STATE)
    }

    /// The vectors' request, T.
    fn request() -> AthmRequest {
        ok(AthmRequest::from_bytes(Self::state_bytes().get(STATE_T..STATE_KEY_ID).unwrap_or_default()), "request")
    }

    fn response_bytes() -> [u8; Response::LEN] {
        unhex(&RESPONSE)
    }
}

/// A type 0xC07E TokenRequest: decode → encode is the identity, exactly
/// [`REQUEST_LEN`] bytes. The fixed issuer issues it (the hidden value is the
/// input's last byte modulo 4): the only refusal is another truncated key
/// id. Its response round-trips, and the fixture's client finalizes it with
/// the vectors' state: for the vectors' T, to a token the issuer reads back
/// as that value; for any other T, the proof fails (`Verification`).
pub fn type_c07e_request(data: &[u8]) {
    let req = match TokenRequest::decode(data) {
        Ok(r) => r,
        Err(e) => {
            assert!(
                matches!(
                    e,
                    Error::Truncated
                        | Error::TrailingBytes
                        | Error::InvalidElement
                        | Error::WrongTokenType { expected: TOKEN_TYPE, .. }
                ),
                "unexpected error {e:?}"
            );
            return;
        }
    };
    assert_eq!(data.len(), REQUEST_LEN);
    reencodes_to(&req, data);
    assert_eq!(data.get(3..), Some(&req.request.to_bytes()[..]));

    let issuer = Fixture::issuer();
    let hidden = data.last().copied().unwrap_or_default() % BUCKETS;
    let mut rng = FixedRng(0);
    let resp = match issuer.issue(&req, hidden, &mut rng) {
        Ok(resp) => resp,
        Err(e) => {
            assert_eq!(e, Error::KeyIdMismatch);
            assert_ne!(issuer.key_id().last(), Some(&req.truncated_key_id));
            return;
        }
    };
    assert_eq!(issuer.key_id().last(), Some(&req.truncated_key_id));
    let mut wire = [0u8; Response::LEN];
    assert_eq!(resp.encode(&mut wire), Ok(Response::LEN));
    assert_eq!(Response::from_bytes(&wire), Ok(resp));
    let result = Fixture::client().finalize(&Fixture::state(), &resp, &mut rng);
    if req.request == Fixture::request() {
        let token = match result {
            Ok(t) => t,
            Err(e) => panic!("the issuer's response to the vectors' request does not finalize: {e:?}"),
        };
        assert_eq!(issuer.verify(&token), Ok(hidden));
    } else {
        assert_eq!(result.err(), Some(Error::Verification));
    }
}

/// A TokenResponse for four buckets: exactly 483 bytes, decode → encode is
/// the identity. The fixture's client finalizes it with the vectors' state:
/// the proof fails (`Verification`, and nothing else), or the token it gives
/// is read back by the issuer as a value below 4 (3 for the vectors' own
/// response).
pub fn type_c07e_response(data: &[u8]) {
    let resp = match Response::from_bytes(data) {
        Ok(r) => r,
        Err(e) => {
            assert!(
                matches!(e, Error::Truncated | Error::TrailingBytes | Error::InvalidElement | Error::InvalidScalar),
                "unexpected error {e:?}"
            );
            return;
        }
    };
    assert_eq!(data.len(), Response::LEN);
    let mut out = [0u8; Response::LEN];
    assert_eq!(resp.encode(&mut out), Ok(Response::LEN));
    assert_eq!(&out[..], data);

    match Fixture::client().finalize(&Fixture::state(), &resp, &mut FixedRng(0)) {
        Ok(token) => {
            let hidden = Fixture::issuer().verify(&token);
            assert!(matches!(hidden, Ok(m) if m < BUCKETS), "a finalized token reads {hidden:?}");
            if data == Fixture::response_bytes() {
                assert_eq!(hidden, Ok(HIDDEN));
            }
        }
        Err(e) => {
            assert_eq!(e, Error::Verification);
            assert_ne!(data, Fixture::response_bytes());
        }
    }
}

/// A type 0xC07E Token: decode → encode is the identity, exactly
/// [`TOKEN_LEN`] bytes, its nonce is t's bytes. The fixed issuer's
/// verification refuses another key id (`KeyIdMismatch`) and anything else
/// with `Verification`; a token it accepts reads a value below 4, and so
/// does the same token rescaled, (t, 2·P, 2·Q), which is why a redeemer
/// keys on t.
pub fn type_c07e_token(data: &[u8]) {
    let token = match Token::decode(data) {
        Ok(t) => t,
        Err(e) => {
            assert!(
                matches!(
                    e,
                    Error::Truncated
                        | Error::TrailingBytes
                        | Error::InvalidElement
                        | Error::InvalidScalar
                        | Error::WrongTokenType { expected: TOKEN_TYPE, .. }
                ),
                "unexpected error {e:?}"
            );
            return;
        }
    };
    assert_eq!(data.len(), TOKEN_LEN);
    reencodes_to(&token, data);
    assert_eq!(data.get(TOKEN_KEY_ID..TOKEN_T), Some(&token.issuer_key_id[..]));
    assert_eq!(data.get(TOKEN_T..TOKEN_P), Some(&token.token.nonce()[..]));

    let issuer = Fixture::issuer();
    match issuer.verify(&token) {
        Ok(hidden) => {
            assert!(hidden < BUCKETS);
            assert_eq!(&token.issuer_key_id, issuer.key_id());
            assert_eq!(issuer.verify(&doubled(data)), Ok(hidden));
        }
        Err(e) => {
            let expected =
                if &token.issuer_key_id == issuer.key_id() { Error::Verification } else { Error::KeyIdMismatch };
            assert_eq!(e, expected);
        }
    }
}

/// The token `data` with P and Q doubled.
fn doubled(data: &[u8]) -> Token {
    let mut bytes = [0u8; TOKEN_LEN];
    bytes.copy_from_slice(data);
    for range in [TOKEN_P..TOKEN_Q, TOKEN_Q..TOKEN_LEN] {
        let Some(slot) = bytes.get_mut(range) else { panic!("a token shorter than its points") };
        let Ok(compressed) = <[u8; 33]>::try_from(&*slot) else { panic!("a point of another length") };
        let Some(point) = Option::<AffinePoint>::from(AffinePoint::from_bytes(&compressed.into())) else {
            panic!("a decoded token's point does not decode")
        };
        let twice = (p256::ProjectivePoint::from(point) + point).to_affine().to_bytes();
        slot.copy_from_slice(&twice);
    }
    ok(Token::decode(&bytes), "doubled token")
}

/// An exported [`RequestState`] (first byte: bit 0 set also finalizes it).
/// Import refuses with a length, version, shape, type, scalar or point error; what imports is
/// exactly [`RequestState::LEN`] bytes and exports to them. Finalizing the
/// vectors' response with it: another key id is `KeyIdMismatch`; another T,
/// `Verification` (the proof names T); the vectors' T gives a token, which
/// the issuer reads back as 3 for the vectors' own (r, tc) and refuses for
/// any other (another (r, tc) with the same T would need the discrete
/// logarithm of Z).
pub fn type_c07e_state(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else { return };
    let state = match RequestState::import(rest) {
        Ok(s) => s,
        Err(e) => {
            assert!(
                matches!(
                    e,
                    Error::InvalidLength(Field::State)
                        | Error::UnknownStateVersion(_)
                        | Error::InvalidValue(Field::State)
                        | Error::WrongTokenType { .. }
                        | Error::InvalidScalar
                        | Error::InvalidElement
                ),
                "unexpected error {e:?}"
            );
            return;
        }
    };
    assert_eq!(rest.len(), RequestState::LEN);
    assert_eq!(&state.export()[..], rest);
    if which & 1 == 0 {
        return;
    }
    let own = Fixture::state_bytes();
    let resp = ok(Response::from_bytes(&Fixture::response_bytes()), "response");
    let result = Fixture::client().finalize(&state, &resp, &mut FixedRng(0));
    if rest.get(STATE_KEY_ID..) != own.get(STATE_KEY_ID..) {
        assert_eq!(result.err(), Some(Error::KeyIdMismatch));
    } else if rest.get(STATE_T..STATE_KEY_ID) != own.get(STATE_T..STATE_KEY_ID) {
        assert_eq!(result.err(), Some(Error::Verification));
    } else {
        let token = match result {
            Ok(t) => t,
            Err(e) => panic!("a state with the vectors' T does not finalize: {e:?}"),
        };
        let expected = if rest == own { Ok(HIDDEN) } else { Err(Error::Verification) };
        assert_eq!(Fixture::issuer().verify(&token), expected);
    }
}

/// The keys (first byte, modulo 4: which): `PublicKey::from_bytes`,
/// `PublicKeyProof::from_bytes`, `PrivateKey::from_bytes` and the published
/// token key (`Client::from_token_key` under the vectors' parameters, which
/// checks the proof). What is read encodes to the same bytes; the key id is
/// SHA-256 of the 99-byte public key; a private key that loads has a public
/// key (unless x = r_x = 0, whose C_x is the identity) and proves it to a new
/// issuer.
pub fn athm_keys(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else { return };
    match which % 4 {
        0 => match PublicKey::from_bytes(rest) {
            Ok(pk) => {
                assert_eq!(&pk.to_bytes()[..], rest);
                assert_eq!(pk.key_id(), <[u8; 32]>::from(Sha256::digest(rest)));
            }
            Err(e) => assert!(
                matches!(e, Error::Truncated | Error::TrailingBytes | Error::InvalidElement),
                "unexpected error {e:?}"
            ),
        },
        1 => match PublicKeyProof::from_bytes(rest) {
            Ok(proof) => assert_eq!(&proof.to_bytes()[..], rest),
            Err(e) => assert!(
                matches!(e, Error::Truncated | Error::TrailingBytes | Error::InvalidScalar),
                "unexpected error {e:?}"
            ),
        },
        2 => match PrivateKey::from_bytes(rest) {
            Ok(sk) => {
                assert_eq!(&sk.to_bytes()[..], rest);
                private_key_proves(sk, rest);
            }
            Err(e) => assert!(
                matches!(e, Error::Truncated | Error::TrailingBytes | Error::InvalidScalar | Error::InvalidKey),
                "unexpected error {e:?}"
            ),
        },
        _ => match Client::from_token_key(Fixture::params(), rest) {
            Ok(client) => {
                assert_eq!(rest.len(), TOKEN_KEY_LEN);
                let key = rest.get(..PublicKey::LEN).unwrap_or_default();
                assert_eq!(client.key_id(), &<[u8; 32]>::from(Sha256::digest(key)));
            }
            Err(e) if rest.len() != TOKEN_KEY_LEN => assert_eq!(e, Error::InvalidLength(Field::TokenKey)),
            Err(e) => assert!(
                matches!(e, Error::InvalidElement | Error::InvalidScalar | Error::Verification),
                "unexpected error {e:?}"
            ),
        },
    }
}

/// A private key that loaded (its encoding `bytes`): its public key, a proof
/// made for it, and an issuer that accepts the proof; the one refusal is the
/// identity C_x of x = r_x = 0.
fn private_key_proves(sk: PrivateKey, bytes: &[u8]) {
    let params = Fixture::params();
    let public = match sk.public_key(&params) {
        Ok(pk) => pk,
        Err(e) => {
            assert_eq!(e, Error::InvalidElement);
            let zero = |at: usize| bytes.get(at..at + 32).is_some_and(|s| s.iter().all(|&b| b == 0));
            assert!(zero(0) && zero(96), "a public key that does not encode");
            return;
        }
    };
    let proof = ok(sk.prove(&params, &public, &mut FixedRng(0)), "proof");
    let issuer = ok(Issuer::with_proof(params, sk, proof), "issuer of a loaded key");
    assert_eq!(issuer.key_id(), &public.key_id());
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;
    use crate::wire::codec::Encode;

    /// The fixture is the vectors': its request issues and finalizes to a
    /// token read back with its hidden value; the vectors' response
    /// finalizes with the vectors' state to a token that reads 3; every
    /// target passes its fixture's message.
    #[test]
    fn fixture_messages_reach_the_success_paths() {
        let (issuer, client) = (Fixture::issuer(), Fixture::client());
        assert_eq!(usize::from(BUCKETS), N);
        assert_eq!(issuer.token_key()[..PublicKey::LEN], unhex::<{ PublicKey::LEN }>(&PUBLIC_KEY));
        assert_eq!(client.key_id(), issuer.key_id());
        let request = TokenRequest { truncated_key_id: issuer.key_id()[31], request: Fixture::request() };
        let mut wire = [0u8; REQUEST_LEN];
        request.encode(&mut wire).unwrap();
        type_c07e_request(&wire);
        let resp = Response::from_bytes(&Fixture::response_bytes()).unwrap();
        let token = client.finalize(&Fixture::state(), &resp, &mut FixedRng(7)).unwrap();
        assert_eq!(issuer.verify(&token), Ok(HIDDEN));
        type_c07e_response(&Fixture::response_bytes());
        let mut token_wire = [0u8; TOKEN_LEN];
        token.encode(&mut token_wire).unwrap();
        type_c07e_token(&token_wire);
        assert_eq!(issuer.verify(&doubled(&token_wire)), Ok(HIDDEN));
        let mut state = [1u8; 1 + RequestState::LEN];
        state[1..].copy_from_slice(&Fixture::state_bytes());
        type_c07e_state(&state);
        let mut key = [3u8; 1 + TOKEN_KEY_LEN];
        key[1..].copy_from_slice(&issuer.token_key());
        athm_keys(&key);
        let mut sk = [2u8; 1 + PrivateKey::LEN];
        sk[1..].copy_from_slice(&unhex::<{ PrivateKey::LEN }>(&PRIVATE_KEY));
        athm_keys(&sk);
    }

    /// A private key with x = r_x = 0 would have the identity as C_x, which
    /// has no encoding: decoding refuses it, and the target does not panic.
    #[test]
    fn a_private_key_with_x_and_r_x_zero() {
        let mut sk = [2u8; 1 + PrivateKey::LEN];
        sk[1..].copy_from_slice(&unhex::<{ PrivateKey::LEN }>(&PRIVATE_KEY));
        sk[1..33].fill(0);
        sk[97..129].fill(0);
        athm_keys(&sk);
        assert_eq!(PrivateKey::from_bytes(&sk[1..]).err(), Some(Error::InvalidKey));
    }
}
