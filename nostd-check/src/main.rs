//! Runs vector cases of every implemented token type on a bare-metal core
//! with no allocator (Cortex-M4 by default; also v6-M, Cortex-M33 and
//! RV32IMAC, see `scripts/footprint`): the binary links without a
//! `#[global_allocator]`, which proves the `pat` core never reaches for the
//! heap. Under qemu (`cargo run --release [--target T]`) it prints one line per
//! kind and `N passed, M failed` over semihosting, and exits non-zero on any
//! failure. Each role operation runs under [`measure`], which paints the free
//! stack and prints `stack LABEL BYTES` (the peak the operation used) and
//! `insns LABEL N` (the instructions it executed, when qemu runs with
//! `-icount shift=0`); `scripts/footprint` checks those figures against
//! `budgets.tsv`.
#![no_std]
#![no_main]

use pat::Error;
use pat::crypto::blind_rsa::{PublicKey, SecretKey};
use pat::crypto::voprf::{ByteArray, KeyPair, Suite};
use pat::tokens::amortized::AmortizedTokenResponse;
use pat::tokens::private::{self, PrivateTokenType};
use pat::tokens::public;
use pat::wire::auth;
use pat::wire::challenge::TokenChallenge;
use pat::wire::codec::{Decode, Encode};
use pat::wire::token::{TokenInput, TokenRef};
use pat::wire::token_type::{PrivateP384, PrivateRistretto255, TokenKind};

use pat_nostd_check::{
    ActCase, AmortizedCase, ArcCase, AthmCase, BatchedCase, MetadataCase, PbrsaCase, PoprfCase, PoprfTokenCase,
    PrivateCase, PublicCase, TestRng, athm_rng, check, clock, hprintln, platform, same, vectors,
};

const PAINT: u32 = 0xCCCC_CCCC;

/// Runs `f` and prints the peak stack it used and the instructions it
/// executed: the free stack below this frame is painted first, and afterwards
/// scanned for the deepest word that changed; the clock is read around `f`
/// only. Reads and writes raw memory below the stack pointer, hence the
/// `unsafe` (this harness is the only place in the project that has any).
#[inline(never)]
fn measure<R>(label: &str, f: impl FnOnce() -> R) -> R {
    let bottom = platform::stack_bottom();
    let sp = platform::sp();
    // Leave a margin for this frame and the call into `f`.
    let top = sp - 256;
    let mut p = bottom;
    while p < top {
        // SAFETY: [bottom, top) lies between the end of .bss/.heap and the
        // current stack pointer: memory no live object occupies.
        unsafe { core::ptr::write_volatile(p as *mut u32, PAINT) };
        p += 4;
    }
    let t0 = clock::ticks();
    let result = core::hint::black_box(apart(f));
    let ticks = clock::ticks() - t0;
    let mut p = bottom;
    // SAFETY: the same region, read back.
    while p < top && unsafe { core::ptr::read_volatile(p as *const u32) } == PAINT {
        p += 4;
    }
    hprintln!("stack {} {}", label, sp - p);
    if let Some(n) = clock::insns(ticks) {
        hprintln!("insns {} {}", label, n);
    }
    result
}

/// Runs `f` in a frame of its own, below the stack pointer [`measure`]
/// read. Called directly, `f` is inlined into `measure`, whose frame (above
/// that pointer, never painted) then holds the operation's locals: the
/// figures left them out (a type-2 request read 7.6 KB where it uses 15).
#[inline(never)]
fn apart<R>(f: impl FnOnce() -> R) -> R {
    f()
}

fn token_case(case: &vectors::TokenCase) -> Result<(), Error> {
    let (ty, issuer, ctx, origin, nonce, key_id, expected) = case;
    let challenge = TokenChallenge::new(*ty, issuer, ctx, origin)?;
    let mut buf = [0u8; 256];
    let n = challenge.encode(&mut buf)?;
    let parsed = TokenChallenge::decode(buf.get(..n).ok_or(Error::BufferTooSmall)?)?;
    let input = TokenInput::new(TokenKind::from_code(*ty)?, nonce, &parsed.digest(), key_id);
    check(input.as_bytes() == expected)?;
    // A whole token through the Authorization header and back.
    let auth_bytes = [0x5au8; 256];
    let token = TokenRef::new(input, auth_bytes.get(..input.kind().nk()).ok_or(Error::BufferTooSmall)?)?;
    let mut tbuf = [0u8; 354];
    let tn = token.encode(&mut tbuf)?;
    let mut hbuf = [0u8; 512];
    let header = auth::write_authorization(tbuf.get(..tn).ok_or(Error::BufferTooSmall)?, &mut hbuf)?;
    let mut dbuf = [0u8; 354];
    let decoded = auth::parse_authorization(header)?.decode_base64url(&mut dbuf)?;
    check(TokenRef::decode(decoded)? == token)
}

fn issuer_of<T: PrivateTokenType>(sk: &[u8], pk: &[u8]) -> Result<private::Issuer<T>, Error> {
    let sk = <<T::Suite as Suite>::ScalarBytes>::from_slice(sk).ok_or(Error::InvalidScalar)?;
    let issuer = private::Issuer::<T>::new(KeyPair::from_secret_key(pat::crypto::voprf::SecretKey::from_bytes(&sk)?)?);
    check(issuer.token_key().as_ref() == pk)?;
    Ok(issuer)
}

fn private_case<T: PrivateTokenType>(case: &PrivateCase, name: &str) -> Result<(), Error> {
    let issuer = issuer_of::<T>(case.sk, case.pk)?;
    let challenge = TokenChallenge::decode(case.challenge)?;
    let client = measure(label(name, "client_key_parse"), || private::Client::<T>::from_token_key(case.pk))?;
    let blind = <<T::Suite as Suite>::ScalarBytes>::from_slice(case.blind).ok_or(Error::InvalidScalar)?;
    let (request, mut state) = pat::hazmat::tokens::private::request_with(&client, &challenge, &case.nonce, &blind)?;
    same(&request, case.request)?;
    let mut state_buf = [0u8; 512];
    let exported = state.export()?;
    let state_bytes = exported.as_bytes().as_ref();
    // A generic array length is out of reach on stable: the buffer is cut
    // to the state's length instead.
    let state_len = private::RequestState::<T>::STATE_LEN;
    check(state_bytes.len() == state_len)?;
    let state_buf = state_buf.get_mut(..state_len).ok_or(Error::BufferTooSmall)?;
    state_buf.copy_from_slice(state_bytes);
    let response = private::TokenResponse::decode(case.response)?;
    let token = measure(label(name, "client_finalize"), || client.finalize(&mut state, &response))?;
    same(&token, case.token)?;
    measure(label(name, "issuer_verify"), || issuer.verify(&token, &challenge))?;
    // What one C API call does (capi/firmware compares with these): key
    // parsing, the state imported, the finalize and the token encoded.
    let mut token_buf = [0u8; 512];
    let n = measure(label(name, "client_finalize_from_key"), || -> Result<usize, Error> {
        let client = private::Client::<T>::from_token_key(case.pk)?;
        let mut state = private::RequestState::<T>::import(&client, state_buf)?;
        let response = private::TokenResponse::<T>::decode(case.response)?;
        client.finalize(&mut state, &response)?.encode(&mut token_buf)
    })?;
    check(token_buf.get(..n) == Some(case.token))?;
    // The random path too: a fresh request, evaluation, token and verification.
    let mut rng = TestRng::new(0x9e37_79b9_7f4a_7c15);
    let (request, mut state) = measure(label(name, "client_request"), || client.request(&challenge, &mut rng))?;
    let response = measure(label(name, "issuer_evaluate"), || issuer.evaluate(&request, &mut rng))?;
    let token = client.finalize(&mut state, &response)?;
    issuer.verify(&token, &challenge)?;
    // The C API's request call: key parsing, the request, its state exported
    // and the request encoded.
    let mut request_buf = [0u8; 512];
    measure(label(name, "client_request_from_key"), || -> Result<usize, Error> {
        let client = private::Client::<T>::from_token_key(case.pk)?;
        let challenge = TokenChallenge::decode(case.challenge)?;
        let (request, state) = client.request(&challenge, &mut rng)?;
        let exported = state.export()?;
        let bytes = exported.as_bytes().as_ref();
        state_buf.copy_from_slice(bytes.get(..state_buf.len()).ok_or(Error::BufferTooSmall)?);
        request.encode(&mut request_buf)
    })?;
    Ok(())
}

fn amortized_case<T: PrivateTokenType>(case: &AmortizedCase) -> Result<(), Error> {
    const N: usize = 8;
    let issuer = issuer_of::<T>(case.sk, case.pk)?;
    let challenge = TokenChallenge::decode(case.challenge)?;
    let client = issuer.client();
    let mut blinds = [<<T::Suite as Suite>::ScalarBytes>::ZERO; N];
    for (slot, b) in blinds.iter_mut().zip(case.blinds) {
        *slot = <<T::Suite as Suite>::ScalarBytes>::from_slice(b).ok_or(Error::InvalidScalar)?;
    }
    let blinds = blinds.get(..case.blinds.len()).ok_or(Error::CapacityExceeded)?;
    let mut state =
        pat::hazmat::tokens::amortized::request_batch_with::<_, N>(&client, &challenge, case.nonces, blinds)?;
    same(&state.request(), case.request)?;
    let response = AmortizedTokenResponse::decode(case.response)?;
    let tokens = measure("amortized/client_finalize_batch", || client.finalize_batch(&mut state, &response))?;
    check(tokens.len() == case.tokens.len())?;
    for (token, expected) in tokens.iter().zip(case.tokens) {
        same(token, expected)?;
        issuer.verify(token, &challenge)?;
    }
    Ok(())
}

fn public_case(case: &PublicCase) -> Result<(), Error> {
    let sk = measure("type2/issuer_key_load", || SecretKey::from_pkcs8_pem(case.sk_pem))?;
    let pk = PublicKey::from_spki(case.pk)?;
    check(sk.public_key() == &pk)?;
    let challenge = TokenChallenge::decode(case.challenge)?;
    let client = measure("type2/client_key_parse", || public::Client::from_token_key(case.pk))?;
    let (request, mut state) =
        pat::hazmat::tokens::public::request_with(&client, &challenge, &case.nonce, &case.salt, &case.blind)?;
    same(&request, case.request)?;
    let issuer = public::Issuer::new(sk);
    let response = measure("type2/issuer_evaluate", || issuer.evaluate(&request))?;
    same(&response, case.response)?;
    let mut state_buf = [0u8; public::RequestState::STATE_LEN];
    state_buf.copy_from_slice(state.export()?.as_bytes());
    let token = measure("type2/client_finalize", || client.finalize(&mut state, &response))?;
    same(&token, case.token)?;
    let origin = public::Origin::new(pk);
    measure("type2/origin_verify", || origin.verify(&token, &challenge))?;
    // What one C API call does (capi/firmware compares with these): key
    // parsing, the state imported, the finalize and the token encoded.
    let mut token_buf = [0u8; 512];
    let n = measure("type2/client_finalize_from_key", || -> Result<usize, Error> {
        let client = public::Client::from_token_key(case.pk)?;
        let mut state = public::RequestState::import(&client, &state_buf)?;
        let response = public::TokenResponse::decode(case.response)?;
        client.finalize(&mut state, &response)?.encode(&mut token_buf)
    })?;
    check(token_buf.get(..n) == Some(case.token))?;
    let mut rng = TestRng::new(0x2545_f491_4f6c_dd1d);
    let (_, state) = measure("type2/client_request", || client.request(&challenge, &mut rng))?;
    drop(state);
    // The C API's request call: key parsing, the request, its state exported
    // and the request encoded.
    let mut request_buf = [0u8; 512];
    measure("type2/client_request_from_key", || -> Result<usize, Error> {
        let client = public::Client::from_token_key(case.pk)?;
        let challenge = TokenChallenge::decode(case.challenge)?;
        let (request, state) = client.request(&challenge, &mut rng)?;
        state_buf.copy_from_slice(state.export()?.as_bytes());
        request.encode(&mut request_buf)
    })?;
    Ok(())
}

/// The partially blind RSA draft's known answers through the primitive: e′,
/// the blinded message for the given salt and r, the blind signature under
/// the key pair derived for `info`, the finalized signature and its
/// verification.
fn pbrsa_case(case: &PbrsaCase) -> Result<(), Error> {
    use pat::crypto::blind_rsa::partial::{DerivedPublicKey, DerivedSecretKey};
    use pat::crypto::blind_rsa::{PreparedMessage, Variant};
    let sk = SecretKey::from_components(case.n, case.e, case.d, case.p, case.q)?;
    let pk: DerivedPublicKey<'_, '_> = DerivedPublicKey::new(sk.public_key(), case.info)?;
    let mut eprime = [0u8; 128];
    pk.exponent_to_be(&mut eprime)?;
    check(eprime.as_slice() == case.eprime)?;
    let variant = Variant::Sha384PssDeterministic;
    let input = PreparedMessage::identity(case.msg);
    let (blinded, state) =
        pat::hazmat::crypto::blind_rsa::partial_blind_with(&pk, variant, &input, case.salt, &case.r)?;
    check(blinded.as_slice() == case.blind_msg)?;
    let blind_sig = DerivedSecretKey::new(&sk, case.info)?.blind_sign(&blinded)?;
    check(blind_sig.as_slice() == case.blind_sig)?;
    let sig = pk.finalize(variant, &input, &state, &blind_sig)?;
    check(sig.as_slice() == case.sig)?;
    pk.verify(variant, &input, &sig)
}

/// Type 0xDA7A through the roles on privacypass-ts's known answer: request
/// (given nonce, salt and blind), the issuer's derivation and signature, the
/// client's finalize and the origin's verification; then a random request.
fn metadata_case(case: &MetadataCase) -> Result<(), Error> {
    use pat::tokens::metadata::{Client, Issuer, Origin};
    use pat::wire::extensions::Extensions;
    let sk = SecretKey::from_pkcs8_pem(case.sk_pem)?;
    let pk = PublicKey::from_spki(case.pk)?;
    check(sk.public_key() == &pk)?;
    let challenge = TokenChallenge::decode(case.challenge)?;
    let extensions = Extensions::decode(case.extensions)?;
    let client = measure("type_da7a/client_key_parse", || Client::from_token_key(case.pk))?;
    let (request, mut state) = pat::hazmat::tokens::metadata::request_with(
        &client,
        &challenge,
        extensions,
        &case.nonce,
        &case.salt,
        &case.blind,
    )?;
    same(&request, case.request)?;
    let mut state_buf = [0u8; pat::tokens::metadata::RequestState::STATE_LEN];
    state_buf.copy_from_slice(state.export()?.as_bytes());
    let issuer = Issuer::new(sk);
    // DeriveKeyPair alone, then the whole evaluation (derivation and signature).
    measure("type_da7a/issuer_derive", || issuer.derive(&extensions).map(drop))?;
    let response = measure("type_da7a/issuer_evaluate", || issuer.evaluate(&request))?;
    same(&response, case.response)?;
    let token = measure("type_da7a/client_finalize", || client.finalize(&mut state, &extensions, &response))?;
    same(&token, case.token)?;
    let origin = Origin::new(pk);
    measure("type_da7a/origin_verify", || origin.verify(&token, &challenge, &extensions))?;
    // What one C API call does (capi/firmware compares with these).
    let mut token_buf = [0u8; 512];
    let n = measure("type_da7a/client_finalize_from_key", || -> Result<usize, Error> {
        let client = Client::from_token_key(case.pk)?;
        let extensions = Extensions::decode(case.extensions)?;
        let mut state = pat::tokens::metadata::RequestState::import(&client, &state_buf)?;
        client.finalize(&mut state, &extensions, &response)?.encode(&mut token_buf)
    })?;
    check(token_buf.get(..n) == Some(case.token))?;
    let mut rng = TestRng::new(0x2545_f491_4f6c_da7a);
    let (_, state) = measure("type_da7a/client_request", || client.request(&challenge, extensions, &mut rng))?;
    drop(state);
    let mut request_buf = [0u8; 512];
    measure("type_da7a/client_request_from_key", || -> Result<usize, Error> {
        let client = Client::from_token_key(case.pk)?;
        let challenge = TokenChallenge::decode(case.challenge)?;
        let extensions = Extensions::decode(case.extensions)?;
        let (request, state) = client.request(&challenge, extensions, &mut rng)?;
        state_buf.copy_from_slice(state.export()?.as_bytes());
        request.encode(&mut request_buf)
    })?;
    Ok(())
}

/// POPRF(P-384, SHA-384), the primitive of type 0xDA7B, on RFC 9497's
/// known answers (A.4.3): the key pair derived from the seed, the blinded
/// element for the given blind, the evaluation and proof for the given proof
/// nonce, the finalized output, and the server's direct evaluation and check.
fn poprf_case(case: &PoprfCase) -> Result<(), Error> {
    use pat::crypto::voprf::{Element, P384Sha384, Proof, poprf as p};
    use pat::hazmat::crypto::voprf::{poprf_blind_evaluate_with_nonce, poprf_blind_with};
    type S = P384Sha384;
    let key = p::derive_key_pair::<S>(case.seed, case.key_info)?;
    check(*key.secret_key().to_bytes() == case.sk && key.public_key().as_bytes() == &case.pk)?;
    let (blind, blinded, tweaked) = poprf_blind_with::<S>(case.input, case.info, key.public_key(), &case.blind)?;
    check(blinded.as_bytes() == &case.blinded)?;
    let mut evaluated = [[0u8; 49]];
    let proof =
        poprf_blind_evaluate_with_nonce(key.secret_key(), &[blinded], case.info, &mut evaluated, &case.proof_nonce)?;
    let [evaluated] = evaluated;
    check(evaluated == case.evaluated && proof.to_bytes() == case.proof)?;
    let evaluated = Element::<S>::from_bytes(&case.evaluated)?;
    let proof = Proof::<S>::from_bytes(&case.proof)?;
    let mut output = [[0u8; 48]];
    p::finalize(&tweaked, &[case.input], &[blind], &[blinded], &[evaluated], &proof, case.info, &mut output)?;
    let [output] = output;
    check(output == case.output && p::evaluate(key.secret_key(), case.input, case.info)? == case.output)?;
    p::verify_output(key.secret_key(), case.input, case.info, &case.output)
}

/// Type 0xDA7B through the roles on pat's known answers: request (given
/// nonce and blind), the issuer's evaluation (given proof nonce), the
/// client's finalize and the issuer's verification (a forged token
/// refused); then a random request through the same steps.
fn poprf_token_case(case: &PoprfTokenCase) -> Result<(), Error> {
    use pat::crypto::voprf::SecretKey as VoprfSecretKey;
    use pat::tokens::poprf::{Client, Issuer, Token};
    use pat::wire::extensions::Extensions;
    let issuer = Issuer::new(KeyPair::from_secret_key(VoprfSecretKey::from_bytes(&case.sk)?)?);
    check(issuer.token_key() == &case.pk)?;
    let challenge = TokenChallenge::decode(case.challenge)?;
    let extensions = Extensions::decode(case.extensions)?;
    let client = measure("type_da7b/client_key_parse", || Client::from_token_key(&case.pk))?;
    let (request, mut state) =
        pat::hazmat::tokens::poprf::request_with(&client, &challenge, extensions, &case.nonce, &case.blind)?;
    same(&request, case.request)?;
    let response = measure("type_da7b/issuer_evaluate", || {
        pat::hazmat::tokens::poprf::evaluate_with_nonce(&issuer, &request, &case.proof_nonce)
    })?;
    same(&response, case.response)?;
    let mut state_buf = [0u8; pat::tokens::poprf::RequestState::STATE_LEN];
    state_buf.copy_from_slice(state.export()?.as_bytes());
    let token = measure("type_da7b/client_finalize", || client.finalize(&mut state, &extensions, &response))?;
    same(&token, case.token)?;
    // What one C API call does (capi/firmware compares with these): key
    // parsing, the inputs decoded, the state imported, the finalize and the
    // token encoded.
    let mut token_buf = [0u8; 146];
    let n = measure("type_da7b/client_finalize_from_key", || -> Result<usize, Error> {
        let client = Client::from_token_key(&case.pk)?;
        let extensions = Extensions::decode(case.extensions)?;
        let mut state = pat::tokens::poprf::RequestState::import(&client, &state_buf)?;
        let response = pat::tokens::poprf::TokenResponse::decode(case.response)?;
        client.finalize(&mut state, &extensions, &response)?.encode(&mut token_buf)
    })?;
    check(token_buf.get(..n) == Some(case.token))?;
    measure("type_da7b/issuer_verify", || issuer.verify(&token, &challenge, &extensions))?;
    let mut forged = [0u8; 146];
    let n = token.encode(&mut forged)?;
    let last = forged.get_mut(n - 1).ok_or(Error::BufferTooSmall)?;
    *last ^= 1;
    check(issuer.verify(&Token::decode(&forged)?, &challenge, &extensions) == Err(Error::Verification))?;
    let mut rng = TestRng::new(0x2545_f491_4f6c_da7b);
    let (request, mut state) =
        measure("type_da7b/client_request", || client.request(&challenge, extensions, &mut rng))?;
    let token = client.finalize(&mut state, &extensions, &issuer.evaluate(&request, &mut rng)?)?;
    issuer.verify(&token, &challenge, &extensions)?;
    // The C API's request call: key parsing, the inputs decoded, the
    // request, its state exported and the request encoded.
    let mut request_buf = [0u8; 512];
    let n = measure("type_da7b/client_request_from_key", || -> Result<usize, Error> {
        let client = Client::from_token_key(&case.pk)?;
        let challenge = TokenChallenge::decode(case.challenge)?;
        let extensions = Extensions::decode(case.extensions)?;
        let (request, state) = client.request(&challenge, extensions, &mut rng)?;
        state_buf.copy_from_slice(state.export()?.as_bytes());
        request.encode(&mut request_buf)
    })?;
    // Its outputs work: the issuer answers the encoded request, and the
    // exported state finalizes the answer into a token the issuer accepts.
    let request = pat::tokens::poprf::TokenRequest::decode(request_buf.get(..n).ok_or(Error::BufferTooSmall)?)?;
    check(request.extensions.as_bytes() == case.extensions)?;
    let mut state = pat::tokens::poprf::RequestState::import(&client, &state_buf)?;
    let token = client.finalize(&mut state, &extensions, &issuer.evaluate(&request, &mut rng)?)?;
    issuer.verify(&token, &challenge, &extensions)?;
    Ok(())
}

/// The published token key of type 0xC07E: the public key and its proof.
fn athm_token_key(public_key: &[u8; 99], proof: &[u8; 64]) -> [u8; pat::tokens::athm::TOKEN_KEY_LEN] {
    let mut out = [0u8; pat::tokens::athm::TOKEN_KEY_LEN];
    let (key, rest) = out.split_at_mut(99);
    key.copy_from_slice(public_key);
    rest.copy_from_slice(proof);
    out
}

/// ATHM(P-256) (draft-yun-cfrg-athm-00, the crypto layer of type 0xC07E)
/// on the reference's six procedures, each randomized one drawing from a
/// ChaCha20 generator seeded with its seed, every output compared byte for
/// byte: the generators, key generation (the key and its proof), the
/// client's key check and request, the issuer's response hiding the file's
/// value, the client's finalize (the issuance proof, unblinding), and the
/// issuer's redemption scan reading the value back (a forged t refused).
fn athm_case(case: &AthmCase) -> Result<(), Error> {
    use pat::crypto::athm::{
        self, Params, PrivateKey, PublicKey, PublicKeyProof, Token, TokenContext, TokenRequest, TokenResponse,
    };
    const N: usize = vectors::ATHM_BUCKETS;
    let params = Params::<N>::new(vectors::ATHM_DEPLOYMENT_ID)?;
    let verified = |key: &[u8; 99], proof: &[u8; 64]| {
        PublicKey::from_bytes(key)?.verify(&params, &PublicKeyProof::from_bytes(proof)?)
    };
    match case {
        AthmCase::Params { generator_g, generator_h } => {
            check(athm::generator_g_bytes() == *generator_g && params.generator_h() == *generator_h)
        }
        AthmCase::KeyGen { seed, private_key, public_key, proof, key_id } => {
            let mut rng = athm_rng(*seed);
            let (sk, pk, pf) = measure("athm/issuer_key_gen", || PrivateKey::generate(&params, &mut rng))?;
            check(
                *sk.to_bytes() == *private_key
                    && pk.to_bytes() == *public_key
                    && pf.to_bytes() == *proof
                    && pk.key_id() == *key_id,
            )
        }
        AthmCase::TokenRequest { public_key, proof, seed, context, request } => {
            let key = measure("athm/client_key_check", || verified(public_key, proof))?;
            let mut rng = athm_rng(*seed);
            let (ctx, req) = measure("athm/client_request", || athm::token_request(&key, &mut rng))?;
            check(*ctx.to_bytes() == *context && req.to_bytes() == *request)?;
            // What one C API call does (capi/firmware compares with these):
            // the deployment's parameters, the key and its proof checked,
            // the request, its state exported and the request encoded.
            let token_key = athm_token_key(public_key, proof);
            let mut state_buf = [0u8; pat::tokens::athm::RequestState::LEN];
            let mut request_buf = [0u8; pat::tokens::athm::REQUEST_LEN];
            let mut rng = athm_rng(*seed);
            measure("athm/client_request_from_key", || -> Result<usize, Error> {
                let params = Params::<N>::new(vectors::ATHM_DEPLOYMENT_ID)?;
                let client = pat::tokens::athm::Client::from_token_key(params, &token_key)?;
                let (state, request) = client.request(&mut rng)?;
                state_buf.copy_from_slice(&state.export()[..]);
                request.encode(&mut request_buf)
            })?;
            check(request_buf.get(3..) == Some(request.as_slice()))
        }
        AthmCase::TokenResponse { private_key, public_key, request, metadata, seed, response } => {
            let sk = PrivateKey::from_bytes(private_key)?;
            let pk = PublicKey::from_bytes(public_key)?;
            let req = TokenRequest::from_bytes(request)?;
            let mut rng = athm_rng(*seed);
            let resp =
                measure("athm/issuer_response", || athm::token_response(&params, &sk, &pk, &req, *metadata, &mut rng))?;
            let mut out = [0u8; TokenResponse::<N>::LEN];
            let n = resp.encode(&mut out)?;
            check(out.get(..n) == Some(*response))
        }
        AthmCase::FinalizeToken { public_key, proof, seed, context, request, response, token } => {
            let key = verified(public_key, proof)?;
            let ctx = TokenContext::from_bytes(context)?;
            let req = TokenRequest::from_bytes(request)?;
            let resp = TokenResponse::<N>::from_bytes(response)?;
            let mut rng = athm_rng(*seed);
            let got =
                measure("athm/client_finalize", || athm::finalize_token(&params, &key, &ctx, &req, &resp, &mut rng))?;
            check(got.to_bytes() == *token)?;
            // What one C API call does: the parameters, the key and its
            // proof checked, the state imported, the response decoded, the
            // finalize and the token encoded.
            let token_key = athm_token_key(public_key, proof);
            // The stored state: pat's format (version 1, shape 4, the type)
            // and r ‖ tc ‖ T ‖ key id.
            let mut stored = [0u8; pat::tokens::athm::RequestState::LEN];
            let (header, rest) = stored.split_at_mut(4);
            header.copy_from_slice(&[1, 4, 0xC0, 0x7E]);
            let (ctx_out, rest) = rest.split_at_mut(TokenContext::LEN);
            let (req_out, id_out) = rest.split_at_mut(TokenRequest::LEN);
            ctx_out.copy_from_slice(context);
            req_out.copy_from_slice(request);
            id_out.copy_from_slice(&key.key().key_id());
            let mut token_buf = [0u8; pat::tokens::athm::TOKEN_LEN];
            let mut rng = athm_rng(*seed);
            let n = measure("athm/client_finalize_from_key", || -> Result<usize, Error> {
                let params = Params::<N>::new(vectors::ATHM_DEPLOYMENT_ID)?;
                let client = pat::tokens::athm::Client::from_token_key(params, &token_key)?;
                let state = pat::tokens::athm::RequestState::import(&stored)?;
                let response = TokenResponse::<N>::from_bytes(response)?;
                client.finalize(&state, &response, &mut rng)?.encode(&mut token_buf)
            })?;
            check(n == token_buf.len() && token_buf.get(34..) == Some(token.as_slice()))
        }
        AthmCase::VerifyToken { private_key, token, metadata } => {
            let sk = PrivateKey::from_bytes(private_key)?;
            let parsed = Token::from_bytes(token)?;
            let m = measure("athm/issuer_verify", || athm::verify_token(&params, &sk, &parsed))?;
            check(m == *metadata)?;
            // t altered: no bucket matches.
            let mut forged = *token;
            let last_of_t = forged.get_mut(31).ok_or(Error::BufferTooSmall)?;
            *last_of_t ^= 1;
            check(athm::verify_token(&params, &sk, &Token::from_bytes(&forged)?) == Err(Error::Verification))
        }
    }
}

/// ACT (draft-schlesinger-cfrg-act-01, ristretto255/BLAKE3/CBOR, the
/// crypto layer of type 0xE5AD) on the appendix runs, one ChaCha20 generator
/// seeded with the run's seed drawn through every step in the reference's
/// order, each output's CBOR compared byte for byte: the issuer's key, the
/// pre-issuance and request, the issuance, the client's check of it, the
/// spend proof, the issuer's verification and refund, the token rebuilt
/// from the refund and its balance. A spend proof with one bit flipped in
/// its last field (the context scalar) is refused.
fn act_case(case: &ActCase) -> Result<(), Error> {
    use pat::crypto::act::{Params, PreIssuance, PrivateKey, SpendProof};
    const L: usize = vectors::ACT_L;
    let params = Params::from_domain_separator(case.domain_separator);
    let mut rng = athm_rng(case.seed);
    let sk = measure("act/issuer_key_gen", || PrivateKey::generate(&mut rng))?;
    check(sk.to_cbor().as_slice() == case.sk && sk.public_key().to_cbor().as_slice() == case.pk)?;
    let pre = PreIssuance::random(&mut rng)?;
    check(pre.to_cbor().as_slice() == case.pre_issuance)?;
    let request = measure("act/client_request", || pre.request(&params, &mut rng))?;
    check(request.to_cbor().as_slice() == case.request)?;
    let response = measure("act/issuer_issue", || sk.issue::<L, _>(&params, &request, case.c, &case.ctx, &mut rng))?;
    check(response.to_cbor().as_slice() == case.response)?;
    let token =
        measure("act/client_finalize", || pre.to_credit_token::<L>(&params, sk.public_key(), &request, &response))?;
    check(token.to_cbor().as_slice() == case.credit_token)?;
    let (proof, pre_refund) = measure("act/client_spend", || token.prove_spend::<L, _>(&params, case.s, &mut rng))?;
    let mut encoded = [0u8; SpendProof::<L>::LEN];
    let n = proof.encode(&mut encoded)?;
    check(encoded.get(..n) == Some(case.spend_proof) && proof.nullifier() == case.nullifier)?;
    check(pre_refund.to_cbor().as_slice() == case.pre_refund)?;
    // The proof as the issuer receives it.
    let received = SpendProof::<L>::from_cbor(case.spend_proof)?;
    let refund = measure("act/issuer_refund", || sk.refund::<L, _>(&params, &received, case.t, &mut rng))?;
    check(refund.to_cbor().as_slice() == case.refund)?;
    let rebuilt =
        measure("act/client_refund", || pre_refund.to_credit_token::<L>(&params, &proof, &refund, sk.public_key()))?;
    check(rebuilt.to_cbor().as_slice() == case.refund_token && rebuilt.credits::<L>()? == case.remaining)?;
    act_from_key(case)?;
    // One bit of the proof's last scalar flipped: refused (a decoding error
    // or a failed verification, never a refund).
    let mut forged = encoded;
    let last = forged.get_mut(n.saturating_sub(2)).ok_or(Error::BufferTooSmall)?;
    *last ^= 1;
    let refused = match SpendProof::<L>::from_cbor(forged.get(..n).ok_or(Error::BufferTooSmall)?) {
        Ok(p) => sk.refund::<L, _>(&params, &p, case.t, &mut rng).is_err(),
        Err(_) => true,
    };
    check(refused)
}

/// What one C API call of type 0xE5AD does (capi/firmware compares with
/// these), on the appendix's values at its L: the parameters from the
/// domain separator, the client from the token key, the inputs decoded,
/// the step, and its outputs encoded. A request for an empty challenge; the
/// appendix's response finalized from its request state; its refund turned
/// into the next credential.
fn act_from_key(case: &ActCase) -> Result<(), Error> {
    use pat::crypto::act::{CreditToken, Params, PreRefund, PublicKey, Refund};
    use pat::tokens::act::{ActChallenge, Client, RequestState, Token, TokenResponse};
    const L: usize = vectors::ACT_L;
    let key = PublicKey::from_cbor(case.pk)?.to_bytes();
    let mut rng = TestRng::new(0x0e5a_d0e5_ad0e_5ad0);
    let challenge = [
        0xE5, 0xAD, 0, 14, b'i', b's', b's', b'u', b'e', b'r', b'.', b'e', b'x', b'a', b'm', b'p', b'l', b'e', 0, 0, 0,
        0,
    ];
    let mut state_buf = [0u8; RequestState::LEN];
    let mut request_buf = [0u8; pat::tokens::act::REQUEST_LEN];
    measure("act/client_request_from_key", || -> Result<usize, Error> {
        let client = Client::<L>::from_token_key(Params::from_domain_separator(case.domain_separator), &key)?;
        let challenge = ActChallenge::decode(&challenge)?;
        let (state, request) = client.request(&challenge, &mut rng)?;
        state_buf.copy_from_slice(&state.to_bytes()[..]);
        request.encode(&mut request_buf)
    })?;
    // The appendix's request as a stored state: pre-issuance ‖ request ‖ ctx.
    let (pre, rest) = state_buf.split_at_mut(case.pre_issuance.len());
    let (req, ctx) = rest.split_at_mut(case.request.len());
    pre.copy_from_slice(case.pre_issuance);
    req.copy_from_slice(case.request);
    ctx.copy_from_slice(&case.ctx);
    let mut credential = [0u8; CreditToken::CBOR_LEN];
    measure("act/client_finalize_from_key", || -> Result<(), Error> {
        let client = Client::<L>::from_token_key(Params::from_domain_separator(case.domain_separator), &key)?;
        let state = RequestState::from_bytes(&state_buf)?;
        let response = TokenResponse::decode(case.response)?;
        credential.copy_from_slice(&client.finalize(&state, &response)?.to_cbor()[..]);
        Ok(())
    })?;
    check(credential.as_slice() == case.credit_token)?;
    // A token carrying the appendix's spend proof (the refund reads only it).
    let mut token = [0u8; Token::<L>::LEN];
    let (header, proof) = token.split_at_mut(pat::tokens::act::TOKEN_HEADER_LEN);
    header.get_mut(..2).ok_or(Error::BufferTooSmall)?.copy_from_slice(&[0xE5, 0xAD]);
    proof.copy_from_slice(case.spend_proof);
    measure("act/client_refund_from_key", || -> Result<(), Error> {
        let client = Client::<L>::from_token_key(Params::from_domain_separator(case.domain_separator), &key)?;
        let state = PreRefund::from_cbor(case.pre_refund)?;
        let token = Token::<L>::decode(&token)?;
        let refund = Refund::from_cbor(case.refund)?;
        credential.copy_from_slice(&client.refund(&state, &token, &refund)?.to_cbor()[..]);
        Ok(())
    })?;
    check(credential.as_slice() == case.refund_token)
}

/// ARC (P-256) on the draft's vectors, every value drawn in the draft's
/// order from its TestDRNG: the server key, the request (and its state's
/// m1, r1, r2), the response, the credential and both presentations of
/// limit 2, each compared byte for byte with its group, each presentation
/// verified by the issuer, the third refused. Then the roles through the
/// ordinary entry points with the harness's generator (what a device runs):
/// key generation, a request, a response, and presentations of limits 2,
/// 2^16 and 2^32 (one, 16 and 32 range-proof bases) with their
/// verification. The known-answer finalize and limit-2 verification are
/// measured too.
fn arc_case(case: &ArcCase) -> Result<(), Error> {
    use pat::crypto::arc::messages::{PRESENTATION_MAX_LEN, PresentationRef, presentation_len};
    use pat::crypto::arc::{CredentialRequestState, PresentationState, ServerPrivateKey};
    use pat::hazmat::crypto::arc::{self as hazmat, TestDrng};
    const LIMIT: u64 = 2;
    let mut seed = [0u8; 32];
    seed[..16].copy_from_slice(b"test vector seed");
    let mut drng = TestDrng::new(&seed);

    // ServerKey
    let key = hazmat::server_keygen(&mut drng)?;
    check(key.to_bytes().as_slice() == case.sk)?;
    check(key.public_key().to_bytes().as_slice() == case.pk)?;
    // CredentialRequest: the state's m1, r1, r2 (and the two encodings), the request.
    let ctx = case.request_context;
    let (state, request) = hazmat::credential_request(&[ctx], &mut drng)?;
    check(state.export().as_slice() == case.state)?;
    check(request.to_bytes().as_slice() == case.request)?;
    // CredentialResponse
    let response = hazmat::credential_response(&key, &request, &mut drng)?;
    check(response.to_bytes().as_slice() == case.response)?;
    // Credential
    let credential = measure("arc/client_finalize", || state.finalize(key.public_key(), &response))?;
    check(credential.export().as_slice() == case.credential)?;
    // Presentation1, Presentation2
    let pctx = case.presentations.first().ok_or(Error::Verification)?.context;
    let mut pstate = PresentationState::new(&credential, &[pctx], LIMIT)?;
    let mut out = [0u8; PRESENTATION_MAX_LEN];
    for expected in case.presentations {
        check(expected.context == pctx)?;
        let p = hazmat::present(&mut pstate, &mut drng, &mut out)?;
        check(p.nonce == expected.nonce)?;
        let bytes = out.get(..p.len).ok_or(Error::BufferTooSmall)?;
        check(bytes == expected.bytes)?;
        let parsed = PresentationRef::decode(bytes, LIMIT)?;
        measure("arc/issuer_verify", || key.verify_presentation(&[ctx], &[pctx], &parsed, LIMIT))?;
    }
    check(hazmat::present(&mut pstate, &mut drng, &mut out) == Err(Error::PresentationLimitReached))?;

    // The ordinary entry points, with the harness's generator.
    let mut rng = TestRng::new(0xa7c0_e5ac_0001_0000);
    let key = measure("arc/server_keygen", || ServerPrivateKey::generate(&mut rng))?;
    let (state, request) = measure("arc/client_request", || CredentialRequestState::new(&[ctx], &mut rng))?;
    let response = measure("arc/issuer_respond", || key.respond(&request, &mut rng))?;
    let credential = state.finalize(key.public_key(), &response)?.export();
    for (limit, present_label, verify_label) in [
        (LIMIT, "arc/client_present", "arc/issuer_verify"),
        (1u64 << 16, "arc/client_present_limit_2e16", "arc/issuer_verify_limit_2e16"),
        (1u64 << 32, "arc/client_present_limit_2e32", "arc/issuer_verify_limit_2e32"),
    ] {
        let mut pstate =
            PresentationState::new(&pat::crypto::arc::Credential::import(&credential[..])?, &[pctx], limit)?;
        let p = measure(present_label, || pstate.present(&mut rng, &mut out))?;
        check(p.nonce == 0 && p.len == presentation_len(limit)?)?;
        let parsed = PresentationRef::decode(out.get(..p.len).ok_or(Error::BufferTooSmall)?, limit)?;
        measure(verify_label, || key.verify_presentation(&[ctx], &[pctx], &parsed, limit))?;
        // The same presentation under another context is refused.
        check(key.verify_presentation(&[ctx], &[b"other"], &parsed, limit) == Err(Error::Verification))?;
    }
    Ok(())
}

/// A generic batch: every entry's request rebuilt (explicit blinds), the whole
/// batch request compared byte for byte, the file's response finalized and
/// every token compared.
fn batched_case(case: &BatchedCase) -> Result<(), Error> {
    use pat::tokens::batched::{BatchState, GenericBatchTokenResponse, GenericToken};
    const N: usize = 4;
    let mut p384: heapless::Vec<private::Client<PrivateP384>, N> = heapless::Vec::new();
    let mut rsa: heapless::Vec<public::Client, N> = heapless::Vec::new();
    for e in case.entries {
        match e.ty {
            1 => p384.push(private::Client::from_token_key(e.pk)?).map_err(|_| Error::CapacityExceeded)?,
            2 => rsa.push(public::Client::from_token_key(e.pk)?).map_err(|_| Error::CapacityExceeded)?,
            other => return Err(Error::UnknownTokenType(other)),
        }
    }
    let mut batch = BatchState::<N>::new();
    let (mut i1, mut i2) = (0, 0);
    for e in case.entries {
        let challenge = TokenChallenge::decode(e.challenge)?;
        if e.ty == 1 {
            let client = p384.get(i1).ok_or(Error::CapacityExceeded)?;
            i1 += 1;
            let blind = <<PrivateP384 as PrivateTokenType>::Suite as Suite>::ScalarBytes::from_slice(e.blind)
                .ok_or(Error::InvalidScalar)?;
            batch.push(client, pat::hazmat::tokens::private::request_with(client, &challenge, &e.nonce, &blind)?)?;
        } else {
            let client = rsa.get(i2).ok_or(Error::CapacityExceeded)?;
            i2 += 1;
            let salt: &[u8; 48] = e.salt.try_into().map_err(|_| Error::InvalidLength(pat::Field::Message))?;
            let blind: &[u8; 256] = e.blind.try_into().map_err(|_| Error::InvalidLength(pat::Field::Message))?;
            batch
                .push(client, pat::hazmat::tokens::public::request_with(client, &challenge, &e.nonce, salt, blind)?)?;
        }
    }
    same(&batch.request(), case.request)?;
    let response = GenericBatchTokenResponse::decode(case.response)?;
    let tokens = measure("batched/client_finalize", || batch.finalize(&response))?;
    check(tokens.len() == case.entries.len())?;
    for (token, e) in tokens.iter().zip(case.entries) {
        match token {
            Some(GenericToken::PrivateP384(t)) => same(t, e.token)?,
            Some(GenericToken::PublicRsa2048(t)) => same(t, e.token)?,
            _ => return Err(Error::Verification),
        }
    }
    Ok(())
}

/// Type 0x0003 end to end with keys from the vector files and fixed secrets:
/// client → attester → issuer → attester → client → origin.
fn rate_limited_flow(rsa_pem: &&str) -> Result<(), Error> {
    use pat::crypto::key_blinding::ecdsa_p384;
    use pat::crypto::rate_limited::encap::EncapSecretKey;
    use pat::tokens::rate_limited::{self as t3, Attester, OriginKey, Policy};

    let origin_name: &[u8] = b"origin.example";
    let challenge = TokenChallenge::new(3, b"issuer.example", &[], origin_name)?;
    let origins = [OriginKey::new(origin_name, ecdsa_p384::SecretKey::from_bytes(&[0x30; 48])?)];
    let issuer =
        t3::Issuer::new(EncapSecretKey::derive(0x01, &[7; 32]), t3::TokenKey::from_pkcs8_pem(rsa_pem)?, origins);
    // What a client parses: the issuer's encapsulation key and token key (the
    // vector files' bytes; the flow below uses the derived issuer's own).
    let spki = vectors::TYPE2.first().map_or(&[][..], |c| c.pk);
    measure("type3/client_key_parse", || {
        Ok::<_, Error>((
            pat::crypto::rate_limited::encap::EncapKey::decode(vectors::ENCAP_KEY)?,
            PublicKey::from_spki(spki)?,
        ))
    })?;
    let client = t3::Client::new(
        ecdsa_p384::SecretKey::from_bytes(&[0x11; 48])?,
        *issuer.encap_key(),
        issuer.public_key().clone(),
    );
    let mut attester = Attester::<4>::new(Policy { max_tokens: 2, window: 60 });
    let anon = [0xa1u8; 32];
    let mut rng = TestRng::new(0x0123_4567_89ab_cdef);

    let mut out = [0u8; 600];
    let (n, mut state) =
        measure("type3/client_request", || client.request(&challenge, origin_name, &mut rng, &mut out))?;
    let bytes = out.get(..n).ok_or(Error::BufferTooSmall)?;
    let request = t3::TokenRequest::decode(bytes)?;
    measure("type3/attester_process", || {
        attester.process(&request, client.client_key(), state.request_blind(), &anon, 5)
    })?;
    let mut scratch = [0u8; 600];
    let scratch = scratch.get_mut(..t3::scratch_len(&request)).ok_or(Error::BufferTooSmall)?;
    let response = measure("type3/issuer_evaluate", || issuer.evaluate(&request, scratch, &mut rng))?;
    measure("type3/attester_finalize", || {
        attester.finalize_index(client.client_key(), state.request_blind(), &response.blinded_request_key, &anon, 5)
    })?;
    let token = measure("type3/client_finalize", || client.finalize(&mut state, &response.encrypted_token_response))?;
    measure("type3/origin_verify", || t3::Origin::new(issuer.public_key().clone()).verify(&token, &challenge))
}

/// Directory → key choice → request: parse an issuer directory listing a
/// type-1 and a type-2 key, select the type-2 key, build a client from it
/// and make a request for a challenge.
fn directory_flow(json: &&str) -> Result<(), Error> {
    use pat::deploy::directory::IssuerDirectory;
    let challenge = TokenChallenge::new(2, b"issuer.example", &[], b"origin.example")?;
    let nonce = TestRng::new(0x0d1e_c70e_0000_0002).bytes::<32>();
    let (request, key_id) = measure("directory/select_request", || {
        let dir = IssuerDirectory::<4>::parse(json.as_bytes(), &mut [])?;
        let key = dir.select(2, None, 1_700_000_000)?;
        let mut buf = [0u8; 512];
        let client = public::Client::from_token_key(key.decode_token_key(&mut buf)?)?;
        // Fixed nonce, salt and blind: with a second call site of
        // `Client::request`, LTO inlines it differently and the type-2
        // client_request figure grows by 1.8 KiB.
        let (request, _state) =
            pat::hazmat::tokens::public::request_with(&client, &challenge, &nonce, &[2; 48], &[3; 256])?;
        Ok::<_, Error>((request, *client.key_id()))
    })?;
    check(PublicKey::from_spki(vectors::DIRECTORY_TYPE2_KEY)?.key_id() == &key_id)?;
    check(request.truncated_token_key_id == key_id[31])
}

/// The replay store: a token is spent once, its replay is refused.
fn replay_case(seed: &u64) -> Result<(), Error> {
    use pat::deploy::replay::{MemoryReplayStore, spend_token};
    let mut store = MemoryReplayStore::<64>::new([0x5a; 32]);
    let mut rng = TestRng::new(*seed);
    let input = TokenInput::new(TokenKind::PublicRsa2048, &rng.bytes(), &rng.bytes(), &rng.bytes());
    measure("replay/spend", || spend_token(&mut store, &input, 2000, 1000))?;
    let replay = measure("replay/spend", || spend_token(&mut store, &input, 2000, 1001));
    check(replay == Err(Error::Replayed))?;
    check(store.len() == 1)
}

/// The primitives under the type-2 and type-5 clients, each done once by the
/// crate that does it well (crypto-bigint, curve25519-dalek), so the
/// protocols' own cost shows against them: an RSA-2048 public operation
/// (`x^65537 mod n`, Montgomery form), an inversion mod n (safegcd), a
/// ristretto255 multiplication and a variable-time `a·B + b·P`.
fn primitives(spki: &&[u8]) -> Result<(), Error> {
    use crypto_bigint::modular::{FixedMontyForm, FixedMontyParams};
    use crypto_bigint::{Odd, U64, U2048};
    use curve25519_dalek::ristretto::RistrettoPoint;
    use curve25519_dalek::scalar::Scalar;

    let pk = PublicKey::from_spki(spki)?;
    let n = U2048::from_be_slice(pk.modulus());
    let n = Odd::new(n).into_option().ok_or(Error::InvalidKey)?;
    let params = FixedMontyParams::new(n);
    let mut rng = TestRng::new(0x5eed_0f_9e1d);
    // A value below n: the top byte clear.
    let mut bytes = rng.bytes::<256>();
    bytes[0] = 0;
    let x = U2048::from_be_slice(&bytes);
    let e = U64::from_u32(65_537);
    let y = measure("prim/rsa2048_public_op", || FixedMontyForm::new(&x, &params).pow_bounded_exp(&e, 17).retrieve());
    let inv = measure("prim/rsa2048_invert", || y.invert_odd_mod(&n));
    check(bool::from(inv.is_some()))?;
    let k = Scalar::from_bytes_mod_order(rng.bytes::<32>());
    let c = Scalar::from_bytes_mod_order(rng.bytes::<32>());
    let p = RistrettoPoint::mul_base(&Scalar::from_bytes_mod_order(rng.bytes::<32>()));
    let q = measure("prim/ristretto255_mul", || p * k);
    let r = measure("prim/ristretto255_double_mul_vartime", || {
        RistrettoPoint::vartime_double_scalar_mul_basepoint(&c, &p, &k)
    });
    check(q != r)
}

/// `type1/client_request` and the like, as a static string.
fn label(kind: &str, op: &str) -> &'static str {
    const LABELS: [(&str, &str, &str); 14] = [
        ("type1", "client_key_parse", "type1/client_key_parse"),
        ("type5", "client_key_parse", "type5/client_key_parse"),
        ("type1", "client_request", "type1/client_request"),
        ("type1", "client_request_from_key", "type1/client_request_from_key"),
        ("type5", "client_request_from_key", "type5/client_request_from_key"),
        ("type1", "client_finalize_from_key", "type1/client_finalize_from_key"),
        ("type5", "client_finalize_from_key", "type5/client_finalize_from_key"),
        ("type1", "client_finalize", "type1/client_finalize"),
        ("type1", "issuer_evaluate", "type1/issuer_evaluate"),
        ("type1", "issuer_verify", "type1/issuer_verify"),
        ("type5", "client_request", "type5/client_request"),
        ("type5", "client_finalize", "type5/client_finalize"),
        ("type5", "issuer_evaluate", "type5/issuer_evaluate"),
        ("type5", "issuer_verify", "type5/issuer_verify"),
    ];
    LABELS.iter().find(|(k, o, _)| *k == kind && *o == op).map_or("other", |(_, _, l)| l)
}

/// Runs `f` over `cases`, prints the kind's tally and adds it to the totals.
fn run<C>(name: &str, cases: &[C], f: impl Fn(&C) -> Result<(), Error>, totals: &mut (u32, u32)) {
    let (mut passed, mut failed) = (0u32, 0u32);
    for (i, case) in cases.iter().enumerate() {
        match f(core::hint::black_box(case)) {
            Ok(()) => passed += 1,
            Err(e) => {
                failed += 1;
                hprintln!("{} case {} failed: {}", name, i, e);
            }
        }
    }
    hprintln!("{}: {} passed, {} failed", name, passed, failed);
    totals.0 += passed;
    totals.1 += failed;
}

#[cfg(target_arch = "arm")]
#[cortex_m_rt::exception]
fn SysTick() {
    clock::wrapped();
}

#[cfg_attr(target_arch = "arm", cortex_m_rt::entry)]
#[cfg_attr(target_arch = "riscv32", riscv_rt::entry)]
fn main() -> ! {
    clock::start();
    match clock::calibrate() {
        Some(f) => hprintln!("clock: {} instructions per clock tick (qemu -icount shift=0)", f),
        None => hprintln!("clock: not instruction-exact (run qemu with -icount shift=0): no insns figures"),
    }
    let mut totals = (0u32, 0u32);
    run("token", vectors::TOKEN_CASES, token_case, &mut totals);
    run("type1", vectors::TYPE1, |c| private_case::<PrivateP384>(c, "type1"), &mut totals);
    run("type1 (rust)", vectors::TYPE1_RS, |c| private_case::<PrivateP384>(c, "type1"), &mut totals);
    run("type5", vectors::TYPE5, |c| private_case::<PrivateRistretto255>(c, "type5"), &mut totals);
    run("type5 (rust)", vectors::TYPE5_RS, |c| private_case::<PrivateRistretto255>(c, "type5"), &mut totals);
    run("amortized-type1", vectors::AMORTIZED1, amortized_case::<PrivateP384>, &mut totals);
    run("amortized-type5", vectors::AMORTIZED5, amortized_case::<PrivateRistretto255>, &mut totals);
    run("type2", vectors::TYPE2, public_case, &mut totals);
    run("pbrsa", vectors::PBRSA, pbrsa_case, &mut totals);
    run("type-da7a", vectors::TYPE_DA7A, metadata_case, &mut totals);
    run("poprf-p384", vectors::POPRF_P384, poprf_case, &mut totals);
    run("type-da7b", vectors::TYPE_DA7B, poprf_token_case, &mut totals);
    run("athm", vectors::ATHM, athm_case, &mut totals);
    run("act", vectors::ACT, act_case, &mut totals);
    run("arc", vectors::ARC, arc_case, &mut totals);
    run("batched", vectors::BATCHED, batched_case, &mut totals);
    let pem = vectors::TYPE2.first().map_or("", |c| c.sk_pem);
    run("type3 flow", &[pem], rate_limited_flow, &mut totals);
    run("directory", &[vectors::DIRECTORY], directory_flow, &mut totals);
    run("replay", &[0x7e91_a5e0_u64], replay_case, &mut totals);
    run("primitives", &[vectors::TYPE2.first().map_or(&[][..], |c| c.pk)], primitives, &mut totals);
    // Hostile bytes: a truncated challenge must be a typed error.
    let truncated = [0u8, 1, 0, 5, b'a'];
    run("hostile", &[truncated], |b| check(TokenChallenge::decode(b) == Err(Error::Truncated)), &mut totals);
    let (passed, failed) = totals;
    hprintln!("{} passed, {} failed", passed, failed);
    platform::exit(failed == 0 && passed > 0)
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    hprintln!("panic: {}", info);
    platform::exit(false)
}
