// Issuance vectors of token types 0x0001, 0x0002 and 0x0005 (pat-go's),
// 0xDA7A (privacypass-ts's, public metadata), 0xDA7B (pat's own, public
// metadata on a POPRF: no peer implements it) and ARC's (0xE5AC, the
// draft's crypto vectors: see `arcCases`), run
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

/** The files (under tests/vectors/), their token type and how many cases each holds. */
export const VECTOR_FILES = [
    ['pat-go/tokens/private/type1-issuance-test-vectors.json', 1, 5],
    ['pat-go/tokens/private/type1-issuance-test-vectors.rust.json', 1, 5],
    ['pat-go/tokens/private/type5-issuance-test-vectors.json', 5, 5],
    ['pat-go/tokens/private/type5-issuance-test-vectors.rust.json', 5, 5],
    ['pat-go/tokens/type2/type2-issuance-test-vectors.json', 2, 5],
    ['pat-go/tokens/type2/type2-issuance-test-vectors.rust.json', 2, 5],
    ['privacypass-ts/pub_verif_with_metadata_v3.json', 0xda7a, 1],
    ['pat/type-da7b-issuance-test-vectors.json', 0xda7b, 5],
    ['arc/draft-ietf-privacypass-arc-crypto-01.json', 0xe5ac, 6],
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
    for (const [file, type, count] of VECTOR_FILES) {
        expected += count;
        const json = await load(file);
        let passed = 0;
        let failed = 0;
        let cases = json;
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
        log(`${file}: ${passed} passed, ${failed} failed`);
        if (failed > 0 || passed + failed !== count) failures += 1;
        total += passed;
    }
    log(`vectors: ${total} cases passed in ${VECTOR_FILES.length} files, ${failures} files with failures`);
    if (total !== expected) log(`FAIL vectors: ${total} cases passed, ${expected} expected`);
    return { passed: total, failures, ok: failures === 0 && total === expected };
}
