// Issuance vectors of token types 0x0001, 0x0002 and 0x0005 (pat-go's) and
// 0xDA7A (privacypass-ts's, public metadata), run
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
// second finalize of the spent state must throw StateSpent.

/** The files (under tests/vectors/), their token type and how many cases each holds. */
export const VECTOR_FILES = [
    ['pat-go/tokens/private/type1-issuance-test-vectors.json', 1, 5],
    ['pat-go/tokens/private/type1-issuance-test-vectors.rust.json', 1, 5],
    ['pat-go/tokens/private/type5-issuance-test-vectors.json', 5, 5],
    ['pat-go/tokens/private/type5-issuance-test-vectors.rust.json', 5, 5],
    ['pat-go/tokens/type2/type2-issuance-test-vectors.json', 2, 5],
    ['pat-go/tokens/type2/type2-issuance-test-vectors.rust.json', 2, 5],
    ['privacypass-ts/pub_verif_with_metadata_v3.json', 0xda7a, 1],
];

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
    };
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
    if (type === 0xda7a && !c.extensions) throw new Error('type-0xDA7A case without extensions');
    // A metadata request's finalize takes the extensions again.
    const finish = (request, response) =>
        type === 0xda7a ? request.finalize(c.extensions, response) : request.finalize(response);
    const kind = kinds(raw)[type];
    const client = kind.client(fromHex(v.pkS));
    const request = kind.request(client, c);
    try {
        equal(hex(request.bytes), v.token_request, 'token_request');
        const token = finish(request, fromHex(v.token_response));
        equal(hex(token), v.token, 'token');
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
        const cases = await load(file);
        let passed = 0;
        let failed = 0;
        for (const [i, v] of cases.entries()) {
            try {
                runCase(pkg, raw, type, v);
                passed += 1;
            } catch (e) {
                failed += 1;
                log(`FAIL ${file} case ${i}: ${e?.message ?? e}`);
            }
        }
        log(`${file}: ${passed} passed, ${failed} failed`);
        if (failed > 0 || passed + failed !== count) failures += 1;
        total += passed;
    }
    log(`vectors: ${total} cases passed in ${VECTOR_FILES.length} files, ${failures} files with failures`);
    if (total !== expected) log(`FAIL vectors: ${total} cases passed, ${expected} expected`);
    return { passed: total, failures, ok: failures === 0 && total === expected };
}
