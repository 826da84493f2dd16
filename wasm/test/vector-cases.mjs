// Issuance vectors of token types 0x0001, 0x0002 and 0x0005 (pat-go's),
// 0xDA7A (privacypass-ts's, public metadata), 0xDA7B (pat's own, public
// metadata on a POPRF: no peer implements it), ARC's (0xE5AC, the
// draft's crypto vectors: see `arcCases`), ACT's (0xE5AD, the cfrg
// draft's appendix: see `runActCase`), ATHM's (0xC07E, the reference's:
// see `athmCases`) and the batched-tokens draft's
// amortized and generic batches (pat-go's and the `privacypass` crate's:
// see `runAmortizedCase`, `runGenericCase`), run
// through a pat-wasm build with the `hazmat` feature (its deterministic
// request functions take the case's nonce, blind and salt). Shared by the
// Node test (vectors.mjs) and the browser page (browser/vectors-page.js), so
// it imports nothing: the caller passes the package, its wasm-bindgen glue
// and each file's parsed cases.
//
// Per case: the client is made from pkS; the request built from the
// challenge, nonce and blind (and salt) must equal token_request byte for
// byte; finalizing the file's token_response must give the file's token;
// the token's Authorization value must parse back to the same bytes; and a
// second finalize of the spent state must throw StateSpent. Type 0xDA7B's
// cases hold the issuer too: its key derived from the seed and imported
// from skS must both give pkS, its response with the case's proof nonce
// (`hazmatEvaluatePoprf`) must equal token_response, and it must verify
// the token with the case's extensions and refuse it with others.

// The batch families' kinds in VECTOR_FILES (not token types: the tokens
// of a batch are of types 1, 2 and 5).
const AMORTIZED_1 = 'amortized-1';
const AMORTIZED_5 = 'amortized-5';
const GENERIC = 'generic';

// What the files with more than one value per case must have checked in
// all (see VECTOR_FILES).
// ARC: the fields of its six groups, less the internal scalars and the two
// contexts (inputs of the run): ServerKey 7, CredentialRequest 6,
// CredentialResponse 7, Credential 4, each presentation 8.
const ARC_COMPARED = 7 + 6 + 7 + 4 + 8 + 8;
// ACT: the 14 fields of ACT_FIELDS from the run, and 4 through the shipped
// classes (pk_cbor, credit_token_cbor, refund_token_cbor and the balances).
const ACT_COMPARED = 14 + 4;
// ATHM: what each procedure's case compares (see runAthmCase).
const ATHM_COMPARED = 1 + 4 + 2 + 1 + 1 + 1;

/**
 * The files (under tests/vectors/), their token type (or batch kind), how
 * many cases each holds, and, for the files whose cases hold more than one
 * value each, how many of those the run must check in all: fields compared
 * for ARC, ACT and ATHM, tokens for the batches (null: one token per case).
 * A file passes only with both counts exact.
 */
export const VECTOR_FILES = [
    ['pat-go/tokens/private/type1-issuance-test-vectors.json', 1, 5, null],
    ['pat-go/tokens/private/type1-issuance-test-vectors.rust.json', 1, 5, null],
    ['pat-go/tokens/private/type5-issuance-test-vectors.json', 5, 5, null],
    ['pat-go/tokens/private/type5-issuance-test-vectors.rust.json', 5, 5, null],
    ['pat-go/tokens/type2/type2-issuance-test-vectors.json', 2, 5, null],
    ['pat-go/tokens/type2/type2-issuance-test-vectors.rust.json', 2, 5, null],
    ['privacypass-ts/pub_verif_with_metadata_v3.json', 0xda7a, 1, null],
    ['pat/type-da7b-issuance-test-vectors.json', 0xda7b, 5, null],
    ['arc/draft-ietf-privacypass-arc-crypto-01.json', 0xe5ac, 6, ARC_COMPARED],
    ['act/draft-schlesinger-cfrg-act-01.json', 0xe5ad, 1, ACT_COMPARED],
    ['athm/test_vectors.json', 0xc07e, 6, ATHM_COMPARED],
    ['pat-go/tokens/amortized/type1-issuance-test-vectors.json', AMORTIZED_1, 5, 15],
    ['pat-go/tokens/amortized/type1-issuance-test-vectors.rust.json', AMORTIZED_1, 5, 25],
    ['privacypass-rs/amortized_p384_rs.json', AMORTIZED_1, 5, 25],
    ['pat-go/tokens/amortized/type5-issuance-test-vectors.json', AMORTIZED_5, 5, 15],
    ['pat-go/tokens/amortized/type5-issuance-test-vectors.rust.json', AMORTIZED_5, 5, 25],
    ['privacypass-rs/amortized_ristretto255_rs.json', AMORTIZED_5, 5, 25],
    ['pat-go/tokens/batched/batched-issuance-test-vectors.json', GENERIC, 5, 8],
    ['pat-go/tokens/batched/batched-issuance-test-vectors.rust.json', GENERIC, 2, 4],
    ['privacypass-rs/generic_rs.json', GENERIC, 3, 8],
];

// ---- ARC (draft-ietf-privacypass-arc-crypto-01) ------------------------------
//
// The file is one suite, ARCV1-P256, of six groups made by one run of the
// draft's protocol from its test generator (seed "test vector seed" and 16
// zero bytes, presentation limit 2). The package reruns it
// (`hazmatArcRun`: keygen, request, response, finalize, two presentations,
// all from one generator) and each group is one case: every field that a
// message, key, state or credential holds is compared byte for byte with
// the slice of the run that carries it. The blinds the library keeps to
// itself (m2, b, a, r, z, nonce_blinding) are in no output: they are
// listed, counted and reported, and `pat vectors verify` (tests/arc.rs)
// checks them.

const ARC_SEED = (() => {
    const seed = new Uint8Array(32);
    seed.set(new TextEncoder().encode('test vector seed'));
    return seed;
})();
const ARC_LIMIT = 2n;
/** Per group: each field's slice of the run, `[output, from, to]` (to undefined: to the end). */
const ARC_FIELDS = {
    ServerKey: {
        x0: ['secretKey', 0, 32],
        x1: ['secretKey', 32, 64],
        x2: ['secretKey', 64, 96],
        xb: ['secretKey', 96, 128],
        X0: ['publicKey', 0, 33],
        X1: ['publicKey', 33, 66],
        X2: ['publicKey', 66, 99],
    },
    CredentialRequest: {
        m1: ['requestState', 0, 32],
        r1: ['requestState', 32, 64],
        r2: ['requestState', 64, 96],
        m1_enc: ['request', 0, 33],
        m2_enc: ['request', 33, 66],
        proof: ['request', 66],
        request_context: ['requestContext', 0],
    },
    CredentialResponse: {
        U: ['response', 0, 33],
        enc_U_prime: ['response', 33, 66],
        X0_aux: ['response', 66, 99],
        X1_aux: ['response', 99, 132],
        X2_aux: ['response', 132, 165],
        H_aux: ['response', 165, 198],
        proof: ['response', 198],
    },
    Credential: {
        m1: ['credential', 0, 32],
        U: ['credential', 32, 65],
        U_prime: ['credential', 65, 98],
        X1: ['credential', 98, 131],
    },
};
for (const [name, index] of [['Presentation1', 0], ['Presentation2', 1]]) {
    ARC_FIELDS[name] = {
        U: [`presentation${index}`, 0, 33],
        U_prime_commit: [`presentation${index}`, 33, 66],
        m1_commit: [`presentation${index}`, 66, 99],
        tag: [`presentation${index}`, 99, 132],
        nonce_commit: [`presentation${index}`, 132, 165],
        D_0: [`presentation${index}`, 165, 198],
        proof: [`presentation${index}`, 165],
        presentation_context: ['presentationContext', 0],
        nonce: [`nonce${index}`],
    };
}
/** The library's internal scalars: in the file, in no output of the package. */
const ARC_INTERNAL = {
    CredentialRequest: ['m2'],
    CredentialResponse: ['b'],
    Presentation1: ['a', 'r', 'z', 'nonce_blinding'],
    Presentation2: ['a', 'r', 'z', 'nonce_blinding'],
};

/**
 * The six cases of an ARC file: `{ group, fields, run }`, the run made once
 * for the file from its contexts (CredentialRequest.request_context and the
 * presentations' presentation_context, which must agree).
 */
function arcCases(raw, json) {
    const suites = Object.keys(json ?? {});
    if (suites.length !== 1 || suites[0] !== 'ARCV1-P256') throw new Error(`ARC suites ${suites}: ARCV1-P256 only`);
    const groups = json['ARCV1-P256'];
    const rctx = fromHex(groups.CredentialRequest.request_context);
    const pctx = fromHex(groups.Presentation1.presentation_context);
    if (groups.Presentation2.presentation_context !== groups.Presentation1.presentation_context) {
        throw new Error('the two presentations have different contexts');
    }
    const r = raw.hazmatArcRun(ARC_SEED, rctx, pctx, ARC_LIMIT, 2);
    let run;
    try {
        const each = r.presentations.length / 2;
        run = {
            secretKey: r.secretKey,
            publicKey: r.publicKey,
            requestState: r.requestState,
            request: r.request,
            response: r.response,
            credential: r.credential,
            presentation0: r.presentations.slice(0, each),
            presentation1: r.presentations.slice(each),
            nonce0: r.nonces[0],
            nonce1: r.nonces[1],
            requestContext: rctx,
            presentationContext: pctx,
        };
    } finally {
        r.free();
    }
    return Object.keys(groups).map((group) => ({ group, fields: groups[group], run }));
}

/** One ARC group: every field compared or listed as internal; returns the counts. */
function runArcCase({ group, fields, run }) {
    const slices = ARC_FIELDS[group];
    if (slices === undefined) throw new Error(`unknown group ${group}`);
    const internal = ARC_INTERNAL[group] ?? [];
    let compared = 0;
    for (const [name, value] of Object.entries(fields)) {
        if (internal.includes(name)) continue;
        const slice = slices[name];
        if (slice === undefined) throw new Error(`${group}.${name}: a field this test does not know`);
        const [output, from, to] = slice;
        // The contexts are the run's inputs, read from this file: present, not compared.
        if (output === 'requestContext' || output === 'presentationContext') continue;
        if (typeof run[output] === 'number') {
            equal(parseInt(value, 16), run[output], `${group}.${name}`);
        } else {
            equal(hex(run[output].slice(from, to)), value, `${group}.${name}`);
        }
        compared += 1;
    }
    for (const name of [...Object.keys(slices), ...internal]) {
        if (!(name in fields)) throw new Error(`${group}.${name}: missing from the file`);
    }
    return { compared, internal: internal.length };
}

// ---- ACT (draft-schlesinger-cfrg-act-01) -----------------------------------
//
// The file holds one run of the appendix (L = 8, ChaCha20 seeded with
// 00..1f, request context 0). The package reruns it (`hazmatActRun`: key
// generation, pre-issuance, request, issuance, credential, spend, refund,
// next credential, all from one generator in the reference's order) and
// compares every message, state and revealed value byte for byte. Then the
// shipped classes take the file's bytes: the issuer's key from sk_cbor
// gives pk; a client finalizes the file's response from the state
// pre-issuance ‖ request ‖ ctx into credit_token_cbor and turns the file's
// refund into refund_token_cbor (the spend proof in a token); the
// credentials' balances are c and remaining_balance (= c - s + t).

/** Each field of the file and the output of the run that holds it. */
const ACT_FIELDS = {
    sk_cbor: 'secretKey',
    pk_cbor: 'publicKey',
    preissuance_cbor: 'preIssuance',
    issuance_request_cbor: 'request',
    issuance_response_cbor: 'response',
    credit_token_cbor: 'credential',
    nullifier: 'nullifier',
    context: 'context',
    charge: 'charge',
    spend_proof_cbor: 'spendProof',
    prerefund_cbor: 'preRefund',
    refund_cbor: 'refund',
    refund_token_cbor: 'refundCredential',
    refund_token_nullifier: 'refundNullifier',
};
/** The run's inputs (and the balance checked through the classes). */
const ACT_INPUTS = ['domain_separator', 'L', 'rng_seed', 'c', 's', 't', 'ctx', 'remaining_balance'];

/** A non-negative integer as a 32-byte little-endian scalar, in hex. */
function scalarHex(value) {
    let v = BigInt(value);
    const out = new Uint8Array(32);
    for (let i = 0; v > 0n; i++, v >>= 8n) out[i] = Number(v & 0xffn);
    return hex(out);
}

/** The ACT run `v`; returns how many fields were compared. */
function runActCase(pkg, raw, v) {
    for (const name of [...Object.keys(ACT_FIELDS), ...ACT_INPUTS, 'refund_token_credits']) {
        if (!(name in v)) throw new Error(`${name}: missing from the file`);
    }
    for (const name of Object.keys(v)) {
        if (!(name in ACT_FIELDS) && !ACT_INPUTS.includes(name) && name !== 'refund_token_credits') {
            throw new Error(`${name}: a field this test does not know`);
        }
    }
    const [c, s, t] = [BigInt(v.c), BigInt(v.s), BigInt(v.t)];
    const ds = new TextEncoder().encode(v.domain_separator);
    const run = raw.hazmatActRun(fromHex(v.rng_seed), ds, v.L, fromHex(v.ctx), c, s, t);
    let compared = 0;
    try {
        for (const [name, output] of Object.entries(ACT_FIELDS)) {
            equal(hex(run[output]), v[name], name);
            compared += 1;
        }
    } finally {
        run.free();
    }
    // The file's bytes through the shipped classes.
    const { act } = pkg;
    const issuer = act.Issuer.fromSecretKey(fromHex(v.sk_cbor), v.domain_separator, v.L);
    const client = new act.Client(issuer.tokenKey, v.domain_separator, v.L);
    const held = [issuer, client];
    try {
        equal(`5820${hex(issuer.tokenKey)}`, v.pk_cbor, 'pk_cbor from sk_cbor');
        const state = fromHex(v.preissuance_cbor + v.issuance_request_cbor + v.ctx);
        const credential = client.finalizeExported(state, fromHex(v.issuance_response_cbor));
        held.push(credential);
        equal(hex(credential.export()), v.credit_token_cbor, 'credit_token_cbor from the client');
        equal(BigInt(credential.credits), c, 'the credential holds c');
        // A token around the file's spend proof (its digest and key id are not read by the refund).
        const token = fromHex(`e5ad${'00'.repeat(64)}${v.spend_proof_cbor}`);
        const next = client.refundExported(fromHex(v.prerefund_cbor), token, fromHex(v.refund_cbor));
        held.push(next);
        equal(hex(next.export()), v.refund_token_cbor, 'refund_token_cbor from the client');
        equal(BigInt(next.credits), BigInt(v.remaining_balance), 'remaining_balance');
        equal(scalarHex(next.credits), v.refund_token_credits, 'refund_token_credits');
        equal(c - s + t, BigInt(v.remaining_balance), 'c - s + t');
        compared += 4;
    } finally {
        for (const o of held) o.free();
    }
    return compared;
}

// ---- ATHM (draft-yun-privacypass-athm-00, the reference's vectors) ----------
//
// Six procedures, one case each, replayed in order: the reference draws
// every random value from ChaCha20 seeded with the case's rng_seed, and so
// do the hazmat functions (`hazmatAthmIssuer`, `hazmatAthmRequest`,
// `hazmatAthmIssue`, `hazmatAthmFinalize`). Compared byte for byte: the
// key (public key, proof, key id; the private key through
// `athm.Issuer.fromSecretKey`, which must give the same public key), the
// request, the token context (in the request's exported state), the
// response hiding 3, the token, and the value read back; each procedure's
// inputs must be the outputs of the procedures before it. Every field of
// the file is read or named in ATHM_UNREAD (the generators, in no output
// of the package: H is in every public key, C_x = x·G + r_x·H).

/**
 * Each procedure's fields, `args` and `output`, each one read by its case
 * or listed in ATHM_UNREAD: a file with a field missing or one not named
 * here is refused.
 */
const ATHM_FIELDS = {
    params: { args: [], output: ['deployment_id', 'generator_g', 'generator_h', 'n_buckets'] },
    key_gen: { args: ['rng_seed'], output: ['key_id', 'private_key', 'public_key', 'public_key_proof'] },
    token_request: { args: ['public_key', 'public_key_proof', 'rng_seed'], output: ['token_context', 'token_request'] },
    token_response: {
        args: ['hidden_metadata', 'private_key', 'public_key', 'rng_seed', 'token_request'],
        output: ['token_response'],
    },
    finalize_token: {
        args: ['public_key', 'rng_seed', 'token_context', 'token_request', 'token_response'],
        output: ['token'],
    },
    verify_token: { args: ['private_key', 'token'], output: ['hidden_metadata'] },
};
/**
 * The fields no case reads: the generators are in no output of the
 * package; H is in every public key (C_x = x·G + r_x·H), so key_gen's
 * public_key checks it, and G is P-256's base point.
 */
const ATHM_UNREAD = ['params.output.generator_g', 'params.output.generator_h'];

/** The ATHM file's procedures as cases, run by `runAthmCase` in file order against one shared run. */
function athmCases(json) {
    if (!Array.isArray(json)) throw new Error('the ATHM file is not a list of procedures');
    const names = json.map((c) => c?.procedure);
    const expected = Object.keys(ATHM_FIELDS);
    if (names.join() !== expected.join()) throw new Error(`procedures ${names}: expected ${expected}`);
    for (const c of json) {
        const known = ATHM_FIELDS[c.procedure];
        const keys = Object.keys(c).sort().join();
        if (keys !== 'args,output,procedure') throw new Error(`${c.procedure}: fields ${keys}, expected args, output, procedure`);
        for (const part of ['args', 'output']) {
            const got = Object.keys(c[part] ?? {}).sort().join();
            const want = [...known[part]].sort().join();
            if (got !== want) throw new Error(`${c.procedure}.${part}: fields ${got}, expected ${want}`);
        }
    }
    const run = {};
    return json.map((c) => ({ ...c, run }));
}

/** One ATHM procedure; returns the number of fields compared. */
function runAthmCase(pkg, raw, c) {
    const { run, args, output } = c;
    const seed = () => fromHex(args.rng_seed);
    switch (c.procedure) {
        case 'params':
            equal(Number(output.n_buckets), pkg.athm.BUCKETS, 'n_buckets');
            run.deployment = new TextEncoder().encode(output.deployment_id);
            return 1;
        case 'key_gen': {
            run.issuer = raw.hazmatAthmIssuer(run.deployment, seed());
            equal(hex(run.issuer.tokenKey), output.public_key + output.public_key_proof, 'public_key ‖ public_key_proof');
            equal(hex(run.issuer.keyId), output.key_id, 'key_id');
            run.privateKey = output.private_key;
            run.publicKey = output.public_key;
            run.proof = output.public_key_proof;
            const imported = pkg.athm.Issuer.fromSecretKey(fromHex(output.private_key), run.deployment);
            try {
                equal(hex(imported.tokenKey.slice(0, 99)), output.public_key, 'public_key from private_key');
            } finally {
                imported.free();
            }
            return 4;
        }
        case 'token_request': {
            equal(args.public_key, run.publicKey, 'the key_gen public_key');
            equal(args.public_key_proof, run.proof, 'the key_gen public_key_proof');
            run.client = new raw.AthmClient(run.deployment, fromHex(args.public_key + args.public_key_proof));
            run.request = raw.hazmatAthmRequest(run.client, seed());
            const bytes = run.request.bytes;
            equal(hex(bytes.slice(0, 3)), `c07e${hex(run.issuer.keyId.slice(31))}`, 'type and truncated key id');
            equal(hex(bytes.slice(3)), output.token_request, 'token_request');
            // The exported state: version 1, shape 4, type 0xC07E, then the
            // token context r ‖ tc, T and the key id (the library's layout).
            const state = run.request.exportState();
            equal(state.length, 133, 'the state length');
            equal(hex(state.slice(0, 4)), '0104c07e', 'the state header and type');
            equal(hex(state.slice(4, 68)), output.token_context, 'token_context from the exported state');
            run.tokenRequest = output.token_request;
            run.tokenContext = output.token_context;
            return 2;
        }
        case 'token_response': {
            equal(args.private_key, run.privateKey, 'the key_gen private_key');
            equal(args.public_key, run.publicKey, 'the key_gen public_key');
            equal(args.token_request, run.tokenRequest, 'the token_request');
            const response = raw.hazmatAthmIssue(run.issuer, run.request.bytes, Number(args.hidden_metadata), seed());
            equal(hex(response), output.token_response, 'token_response');
            return 1;
        }
        case 'finalize_token': {
            equal(args.public_key, run.publicKey, 'the key_gen public_key');
            equal(args.token_context, run.tokenContext, 'the token_request token_context');
            equal(args.token_request, run.tokenRequest, 'the token_request');
            const token = raw.hazmatAthmFinalize(run.request, fromHex(args.token_response), seed());
            equal(hex(token.slice(0, 34)), `c07e${hex(run.issuer.keyId)}`, 'type and key id');
            equal(hex(token.slice(34)), output.token, 'token');
            throwsCode(() => raw.hazmatAthmFinalize(run.request, fromHex(args.token_response), seed()), 'StateSpent');
            run.token = token;
            const back = pkg.AuthorizationHeader.parse(new pkg.AuthorizationHeader(pkg.athm.Token.deserialize(token)).toString());
            equal(hex(back.token.serialize()), hex(token), 'Authorization round trip');
            return 1;
        }
        case 'verify_token': {
            equal(args.private_key, run.privateKey, 'the key_gen private_key');
            equal(hex(run.token.slice(34)), args.token, 'the finalize_token token');
            const verified = run.issuer.verify(run.token);
            try {
                equal(verified.metadata, Number(output.hidden_metadata), 'hidden_metadata');
            } finally {
                verified.free();
                for (const o of [run.issuer, run.request, run.client]) o.free();
            }
            return 1;
        }
        default:
            throw new Error(`unknown procedure ${c.procedure}`);
    }
}

// ---- batches (draft-ietf-privacypass-batched-tokens §5, §6) ------------------
//
// Amortized (types 1 and 5): the request rebuilt from the case's nonces and
// blinds (`hazmatRequestBatch*`) must equal token_request; the file's
// response finalized must give the file's tokens, in order, both from the
// live request and from its exported state through a fresh client; each
// token round-trips through Token and Authorization; a second finalize is
// StateSpent. Generic: every entry's request rebuilt from its nonce, blind
// (and salt) in one batch (`hazmatGenericBatch`) must equal token_request
// as a whole; the file's response finalized, live and from the exported
// state with the entries' keys, must give each entry's token.

/** A field of a case under either of its spellings (pat-go's or the privacypass crate's). */
function field(v, names) {
    for (const name of names) if (v[name] !== undefined && v[name] !== null) return v[name];
    throw new Error(`${names.join(' / ')}: missing from the case`);
}

/**
 * Refuses an object with a field not in `known` (each item a name, or a
 * list of one field's spellings, of which the object may hold one).
 */
function onlyFields(v, known, what) {
    const names = known.flat();
    for (const name of Object.keys(v ?? {})) {
        if (!names.includes(name)) throw new Error(`${what}.${name}: a field this test does not know`);
    }
    for (const spellings of known.filter(Array.isArray)) {
        if (spellings.filter((n) => n in v).length > 1) throw new Error(`${what}: both ${spellings.join(' and ')}`);
    }
}

// The issuer's secret key of each case (skS in pat-go's files, sk_s in the
// privacypass crate's) is known and not read: the package imports no
// secret key of types 1, 2 or 5. The key is checked through its public
// half: the client is made from pkS, and the tokens, whose proofs or
// signatures finalize verifies under it, must be the file's.
const AMORTIZED_FIELDS = [
    'token_challenge',
    'nonces',
    'blinds',
    'token_request',
    'token_response',
    'tokens',
    ['pkS', 'pk_s'],
    ['skS', 'sk_s'],
];
const GENERIC_FIELDS = ['issuance', 'token_request', 'token_response'];
const GENERIC_ENTRY_FIELDS = [
    ['type', 'token_type'],
    'token_challenge',
    'nonce',
    'blind',
    'salt',
    'token',
    ['pkS', 'pk_s'],
    ['skS', 'sk_s'],
];

/** One amortized case of type `type`; returns the number of tokens checked. */
function runAmortizedCase(pkg, raw, type, v) {
    onlyFields(v, AMORTIZED_FIELDS, 'case');
    field(v, ['skS', 'sk_s']);
    const [Client, request, len] =
        type === 1
            ? [raw.P384Client, raw.hazmatRequestBatchP384, 2 + 96 + 48]
            : [raw.Ristretto255Client, raw.hazmatRequestBatchRistretto255, 2 + 96 + 64];
    const nonces = field(v, ['nonces']);
    const blinds = field(v, ['blinds']);
    const tokens = field(v, ['tokens']);
    if (nonces.length !== blinds.length || nonces.length !== tokens.length) throw new Error('lists of different lengths');
    const pk = fromHex(field(v, ['pkS', 'pk_s']));
    const response = fromHex(v.token_response);
    const client = new Client(pk);
    const batch = request(client, fromHex(v.token_challenge), fromHex(nonces.join('')), fromHex(blinds.join('')));
    // The module's finalize gives one Uint8Array per token.
    const hexList = (array) =>
        Array.from(array, (t) => {
            equal(t.length, len, 'token length');
            return hex(t);
        }).join(',');
    try {
        equal(hex(batch.bytes), v.token_request, 'token_request');
        equal(batch.count, nonces.length, 'count');
        const state = batch.exportState();
        equal(hexList(batch.finalize(response)), tokens.join(','), 'tokens');
        throwsCode(() => batch.finalize(response), 'StateSpent');
        const fresh = new Client(pk);
        try {
            equal(hexList(fresh.finalizeBatchExported(state, response)), tokens.join(','), 'tokens from the exported state');
        } finally {
            fresh.free();
        }
        for (const t of tokens) {
            const parsed = pkg.Token.deserialize(fromHex(t));
            equal(parsed.authInput.tokenType, type, 'token type');
            const back = pkg.AuthorizationHeader.parse(new pkg.AuthorizationHeader(parsed).toString());
            equal(hex(back.token.serialize()), t, 'Authorization round trip');
        }
    } finally {
        batch.free();
        client.free();
    }
    return tokens.length;
}

/** One generic case; returns the number of tokens checked. */
function runGenericCase(pkg, raw, v) {
    onlyFields(v, GENERIC_FIELDS, 'case');
    const entries = field(v, ['issuance']).map((e, i) => {
        onlyFields(e, GENERIC_ENTRY_FIELDS, `issuance[${i}]`);
        field(e, ['skS', 'sk_s']);
        const type = parseInt(field(e, ['type', 'token_type']), 16);
        if (![1, 2, 5].includes(type)) throw new Error(`an entry of type ${type}`);
        // A salt only where the type has one (absent or null elsewhere).
        if (type !== 2 && e.salt !== undefined && e.salt !== null) throw new Error(`issuance[${i}]: a salt on type ${type}`);
        return {
            type,
            challenge: fromHex(e.token_challenge),
            key: fromHex(field(e, ['pkS', 'pk_s'])),
            nonce: fromHex(e.nonce),
            blind: type === 2 ? rsaBlind(fromHex(e.blind)) : fromHex(e.blind),
            salt: type === 2 ? fromHex(field(e, ['salt'])) : new Uint8Array(0),
            token: e.token,
        };
    });
    const list = (name) => entries.map((e) => e[name]);
    const batch = raw.hazmatGenericBatch(list('challenge'), list('key'), list('nonce'), list('blind'), list('salt'));
    const response = fromHex(v.token_response);
    try {
        equal(hex(batch.bytes), v.token_request, 'token_request');
        const state = batch.exportState();
        const made = Array.from(batch.finalize(response), (t) => (t === undefined ? 'absent' : hex(t)));
        equal(made.join(','), list('token').join(','), 'tokens');
        throwsCode(() => batch.finalize(response), 'StateSpent');
        const again = raw.GenericBatchRequest.finalizeExported(state, Uint16Array.from(list('type')), list('key'), response);
        equal(Array.from(again, (t) => hex(t)).join(','), list('token').join(','), 'tokens from the exported state');
        for (const t of list('token')) {
            const back = pkg.AuthorizationHeader.parse(new pkg.AuthorizationHeader(pkg.Token.deserialize(fromHex(t))).toString());
            equal(hex(back.token.serialize()), t, 'Authorization round trip');
        }
    } finally {
        batch.free();
    }
    return entries.length;
}

const fromHex = (s) => {
    if (typeof s !== 'string' || s.length % 2 !== 0 || !/^[0-9a-f]*$/i.test(s)) throw new Error(`not hex: ${s}`);
    const out = new Uint8Array(s.length / 2);
    for (let i = 0; i < out.length; i++) out[i] = parseInt(s.slice(2 * i, 2 * i + 2), 16);
    return out;
};
const hex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

function equal(actual, expected, what) {
    if (actual !== expected) throw new Error(`${what}: got ${actual}, expected ${expected}`);
}

/** `f` must throw a PatError (not a WebAssembly trap) with `code`. */
export function throwsCode(f, code) {
    let error;
    try {
        f();
    } catch (e) {
        error = e;
    }
    if (!(error instanceof Error)) throw new Error(`expected a PatError ${code}, got ${error}`);
    if (error instanceof WebAssembly.RuntimeError) throw new Error(`a WebAssembly trap: ${error}`);
    equal(error.name, 'PatError', `error name (${error.message})`);
    equal(error.code, code, `error code (${error.message})`);
}

/** blind r as pat-go writes it: minimal length, left-padded here to 256 bytes. */
function rsaBlind(bytes) {
    if (bytes.length > 256) throw new Error(`blind of ${bytes.length} bytes`);
    const out = new Uint8Array(256);
    out.set(bytes, 256 - bytes.length);
    return out;
}

function kinds(raw) {
    return {
        1: {
            client: (pk) => new raw.P384Client(pk),
            request: (client, c) => raw.hazmatRequestP384(client, c.challenge, c.nonce, c.blind),
        },
        5: {
            client: (pk) => new raw.Ristretto255Client(pk),
            request: (client, c) => raw.hazmatRequestRistretto255(client, c.challenge, c.nonce, c.blind),
        },
        2: {
            client: (pk) => new raw.BlindRsaClient(pk),
            request: (client, c) => raw.hazmatRequestBlindRsa(client, c.challenge, c.nonce, c.salt, rsaBlind(c.blind)),
        },
        0xda7a: {
            client: (pk) => new raw.MetadataClient(pk),
            request: (client, c) =>
                raw.hazmatRequestMetadata(client, c.challenge, c.extensions, c.nonce, c.salt, rsaBlind(c.blind)),
        },
        0xda7b: {
            client: (pk) => new raw.PoprfClient(pk),
            request: (client, c) => raw.hazmatRequestPoprf(client, c.challenge, c.extensions, c.nonce, c.blind),
        },
    };
}

/** The metadata types: finalize takes the extensions again, and the case must have them. */
const withExtensions = (type) => type === 0xda7a || type === 0xda7b;

/**
 * Type 0xDA7B's issuer side of case `v`: the key from the seed and from
 * skS, the response with the case's proof nonce, and the token verified.
 */
function runPoprfIssuer(raw, v, c, request, token) {
    const derived = raw.PoprfIssuer.derive(fromHex(v.seed));
    const imported = raw.PoprfIssuer.fromSecretKey(fromHex(v.skS));
    try {
        equal(hex(derived.tokenKey), v.pkS, 'pkS from DeriveKeyPair(seed)');
        equal(hex(imported.tokenKey), v.pkS, 'pkS from skS');
        equal(hex(derived.keyId), v.token_key_id, 'token_key_id');
        const response = raw.hazmatEvaluatePoprf(derived, request.bytes, fromHex(v.proof_random_scalar));
        equal(hex(response), v.token_response, 'token_response');
        imported.verify(token, c.challenge, c.extensions);
        // Other extensions: one more byte of data in a one-entry list.
        const other = new Uint8Array([0, 5, 0, 9, 0, 1, 0x42]);
        throwsCode(() => imported.verify(token, c.challenge, other), 'Verification');
    } finally {
        derived.free();
        imported.free();
    }
}

/** Runs one case; throws on the first mismatch. */
export function runCase(pkg, raw, type, v) {
    const c = {
        challenge: fromHex(v.token_challenge),
        nonce: fromHex(v.nonce),
        blind: fromHex(v.blind),
        salt: v.salt === undefined ? undefined : fromHex(v.salt),
        extensions: v.extensions === undefined ? undefined : fromHex(v.extensions),
    };
    if ((type === 2 || type === 0xda7a) && !c.salt) throw new Error(`type-${type} case without salt`);
    if (withExtensions(type) && !c.extensions) throw new Error(`type-0x${type.toString(16)} case without extensions`);
    // A metadata request's finalize takes the extensions again.
    const finish = (request, response) =>
        withExtensions(type) ? request.finalize(c.extensions, response) : request.finalize(response);
    const kind = kinds(raw)[type];
    const client = kind.client(fromHex(v.pkS));
    const request = kind.request(client, c);
    try {
        equal(hex(request.bytes), v.token_request, 'token_request');
        const token = finish(request, fromHex(v.token_response));
        equal(hex(token), v.token, 'token');
        if (type === 0xda7b) runPoprfIssuer(raw, v, c, request, token);
        // The same token through the package's public classes.
        const parsed = pkg.Token.deserialize(token);
        equal(parsed.authInput.tokenType, type, 'token type');
        equal(hex(parsed.serialize()), v.token, 'token re-serialized');
        const header = new pkg.AuthorizationHeader(parsed, c.extensions).toString();
        const back = pkg.AuthorizationHeader.parse(header);
        equal(hex(back.token.serialize()), v.token, 'Authorization round trip');
        equal(back.extensions === undefined ? undefined : hex(back.extensions), v.extensions, 'Authorization extensions');
        equal(hex(pkg.TokenChallenge.deserialize(c.challenge).serialize()), v.token_challenge, 'challenge round trip');
        throwsCode(() => finish(request, fromHex(v.token_response)), 'StateSpent');
    } finally {
        request.free();
        client.free();
    }
}

/**
 * Runs every file: `load(file)` gives its parsed cases (may be async),
 * `log(line)` prints. Returns `{ passed, failures, ok }`: a line
 * `FILE: N passed, M failed` per file; ok only if every case of every file
 * passed and each file had its count of cases.
 */
export async function runFiles(pkg, raw, load, log) {
    let failures = 0;
    let total = 0;
    let expected = 0;
    for (const [file, type, count, values] of VECTOR_FILES) {
        expected += count;
        const json = await load(file);
        let passed = 0;
        let failed = 0;
        let cases = json;
        if (type === 0xc07e) {
            try {
                cases = athmCases(json);
            } catch (e) {
                cases = [];
                failed += 1;
                log(`FAIL ${file}: ${e?.message ?? e}`);
            }
        }
        if (type === 0xe5ac) {
            try {
                cases = arcCases(raw, json);
            } catch (e) {
                cases = [];
                failed += 1;
                log(`FAIL ${file}: ${e?.message ?? e}`);
            }
        }
        const fields = { compared: 0, internal: 0 };
        for (const [i, v] of cases.entries()) {
            try {
                if (type === 0xe5ac) {
                    const n = runArcCase(v);
                    fields.compared += n.compared;
                    fields.internal += n.internal;
                } else if (type === 0xe5ad) {
                    fields.compared += runActCase(pkg, raw, v);
                } else if (type === 0xc07e) {
                    fields.compared += runAthmCase(pkg, raw, v);
                } else if (type === AMORTIZED_1 || type === AMORTIZED_5) {
                    fields.tokens = (fields.tokens ?? 0) + runAmortizedCase(pkg, raw, type === AMORTIZED_1 ? 1 : 5, v);
                } else if (type === GENERIC) {
                    fields.tokens = (fields.tokens ?? 0) + runGenericCase(pkg, raw, v);
                } else {
                    runCase(pkg, raw, type, v);
                }
                passed += 1;
            } catch (e) {
                failed += 1;
                log(`FAIL ${file} case ${i}: ${e?.message ?? e}`);
            }
        }
        if (type === 0xe5ac) {
            log(
                `${file}: ${fields.compared} fields compared; ${fields.internal} internal scalars ` +
                    '(m2, b, a, r, z, nonce_blinding) in no output of the package, checked by `pat vectors verify`',
            );
        }
        if (type === 0xe5ad) {
            log(`${file}: ${fields.compared} fields compared (the run's, and the file's bytes through the shipped classes)`);
        }
        if (type === 0xc07e) {
            log(`${file}: ${fields.compared} fields compared; not read: ${ATHM_UNREAD.join(', ')} (H is in the public key)`);
        }
        if (fields.tokens !== undefined) log(`${file}: ${fields.tokens} tokens in its batches; the issuers' secret keys not read`);
        log(`${file}: ${passed} passed, ${failed} failed`);
        // Every case run, and every value of the file checked.
        const checked = fields.tokens ?? (values === null ? null : fields.compared);
        let short = passed + failed !== count;
        if (short) log(`FAIL ${file}: ${passed + failed} cases run, ${count} expected`);
        if (checked !== values) {
            log(`FAIL ${file}: ${checked} values checked, ${values} expected`);
            short = true;
        }
        if (failed > 0 || short) failures += 1;
        total += passed;
    }
    log(`vectors: ${total} cases passed in ${VECTOR_FILES.length} files, ${failures} files with failures`);
    if (total !== expected) log(`FAIL vectors: ${total} cases passed, ${expected} expected`);
    return { passed: total, failures, ok: failures === 0 && total === expected };
}
