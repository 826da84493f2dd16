// pat-go's issuance vectors of token types 0x0001, 0x0002 and 0x0005
// (tests/vectors/pat-go/tokens/, each file as published, both the pat-go
// and the .rust variants) through the WebAssembly package built with the
// `hazmat` feature, whose deterministic request functions take the case's
// nonce, blind and salt.
//
// Per case: the client is made from pkS; the request built from the
// challenge, nonce and blind (and salt) must equal token_request byte for
// byte; finalizing the file's token_response must give the file's token;
// the token's Authorization value must parse back to the same bytes; and a
// second finalize of the spent state must throw StateSpent.
//
// Prints `FILE: N passed, M failed` per file and exits non-zero if any case
// failed, or a file had no cases, or not every case of a file was run.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { fromHex, hazmatDir, hex, importFrom, root, throwsPat } from './harness.mjs';

const pkg = await importFrom(hazmatDir);
const raw = await importFrom(hazmatDir, 'pat_wasm.js');

const dir = path.join(root, 'tests/vectors/pat-go/tokens');

/** blind r as pat-go writes it: minimal length, left-padded here to 256 bytes. */
function rsaBlind(bytes) {
    assert.ok(bytes.length <= 256, `blind of ${bytes.length} bytes`);
    const out = new Uint8Array(256);
    out.set(bytes, 256 - bytes.length);
    return out;
}

const kinds = {
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
};

const files = [
    ['private/type1-issuance-test-vectors.json', 1],
    ['private/type1-issuance-test-vectors.rust.json', 1],
    ['private/type5-issuance-test-vectors.json', 5],
    ['private/type5-issuance-test-vectors.rust.json', 5],
    ['type2/type2-issuance-test-vectors.json', 2],
    ['type2/type2-issuance-test-vectors.rust.json', 2],
];

function runCase(type, v) {
    const c = {
        challenge: fromHex(v.token_challenge),
        nonce: fromHex(v.nonce),
        blind: fromHex(v.blind),
        salt: v.salt === undefined ? undefined : fromHex(v.salt),
    };
    if (type === 2) assert.ok(c.salt, 'type-2 case without salt');
    const kind = kinds[type];
    const client = kind.client(fromHex(v.pkS));
    const request = kind.request(client, c);
    try {
        assert.equal(hex(request.bytes), v.token_request, 'token_request');
        const token = request.finalize(fromHex(v.token_response));
        assert.equal(hex(token), v.token, 'token');
        // The same token through the package's public classes.
        const parsed = pkg.Token.deserialize(token);
        assert.equal(parsed.authInput.tokenType, type);
        assert.equal(hex(parsed.serialize()), v.token);
        const header = new pkg.AuthorizationHeader(parsed).toString();
        assert.equal(hex(pkg.AuthorizationHeader.parse(header).token.serialize()), v.token, 'Authorization round trip');
        // The challenge digest in the token is SHA-256 of the file's challenge, as received.
        assert.equal(hex(pkg.TokenChallenge.deserialize(c.challenge).serialize()), v.token_challenge);
        throwsPat(() => request.finalize(fromHex(v.token_response)), 'StateSpent');
    } finally {
        request.free();
        client.free();
    }
}

let failures = 0;
let total = 0;
for (const [file, type] of files) {
    const cases = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
    let passed = 0;
    let failed = 0;
    for (const [i, v] of cases.entries()) {
        try {
            runCase(type, v);
            passed += 1;
        } catch (e) {
            failed += 1;
            console.log(`FAIL ${file} case ${i}: ${e?.message ?? e}`);
        }
    }
    const run = passed + failed;
    console.log(`${file}: ${passed} passed, ${failed} failed`);
    if (failed > 0 || run === 0) failures += 1;
    total += passed;
}
// pat-go's files hold 5 cases each: a file cut short is a failure too.
const expected = 5 * files.length;
console.log(`vectors: ${total} cases passed in ${files.length} files, ${failures} files with failures`);
if (total !== expected) console.log(`FAIL vectors: ${total} cases passed, ${expected} expected`);
process.exitCode = failures === 0 && total === expected ? 0 : 1;
