// pat-wasm/core (core.js) under Node: the entry for bundlers and runtimes
// that bring the WebAssembly themselves. Two processes, each with a fresh
// module: this one loads it with init() (bytes), a child (this file with
// --sync) with initSync() from a compiled WebAssembly.Module, as a
// Cloudflare Worker does. In both: before loading, every call that needs
// the WebAssembly throws "NotInitialized"; a failed load leaves it so and
// may be retried; after it, the API does real work (checked against
// pat-go's type-5 vector and an independent base64url). Here also: the
// package's entries resolve through Node (scripts/wasm links the package
// as wasm/test/node_modules/pat-wasm), init() is memoised, initSync during
// it is "InitPending", and a second copy of core.js shares the state.
//
// Prints `core: N passed, M failed` (the child: `core --sync: ...`); exit
// status 0 only if all passed.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { Checks, fromHex, importFrom, root, shippedDir, throwsPat } from './harness.mjs';

const sync = process.argv.includes('--sync');

const core = await importFrom(shippedDir, 'core.js');
const { AuthorizationHeader, Token, TokenChallenge, WWWAuthenticateHeader, privateVerif } = core;
const checks = new Checks(sync ? 'core --sync' : 'core');

const vector = JSON.parse(
    readFileSync(path.join(root, 'tests/vectors/pat-go/tokens/private/type5-issuance-test-vectors.json'), 'utf8'),
)[0];
const challengeBytes = fromHex(vector.token_challenge);
const tokenKey = fromHex(vector.pkS);
const tokenBytes = fromHex(vector.token);
const wasmBytes = readFileSync(path.join(shippedDir, 'pat_wasm_bg.wasm'));
const notWasm = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 9, 9, 9, 9]); // the magic, then a bad version
const b64url = (bytes) => Buffer.from(bytes).toString('base64url');
const wwwAuthenticate = `PrivateToken challenge="${b64url(challengeBytes)}", token-key="${b64url(tokenKey)}"`;

function notInitialized(api = core) {
    throwsPat(() => api.WWWAuthenticateHeader.parse(wwwAuthenticate), 'NotInitialized');
    throwsPat(() => api.TokenChallenge.deserialize(challengeBytes), 'NotInitialized');
    throwsPat(() => api.Token.deserialize(tokenBytes), 'NotInitialized');
    throwsPat(() => api.AuthorizationHeader.parse(`PrivateToken token="${b64url(tokenBytes)}"`), 'NotInitialized');
    throwsPat(() => api.IssuerDirectory.parse('{}'), 'NotInitialized');
    // The client's constructor needs no WebAssembly; reading a response does.
    const client = new api.privateVerif.Client(0x0005);
    throwsPat(() => client.deserializeTokenResponse(fromHex(vector.token_response)), 'NotInitialized');
}

function works() {
    const [header, ...others] = WWWAuthenticateHeader.parse(wwwAuthenticate);
    assert.equal(others.length, 0);
    assert.equal(header.challenge.tokenType, 0x0005);
    assert.deepEqual(header.challenge.serialize(), new Uint8Array(challengeBytes));
    assert.deepEqual(header.tokenKey, new Uint8Array(tokenKey));

    const request = new privateVerif.Client(0x0005).createTokenRequest(header.challenge, header.tokenKey).serialize();
    assert.equal(request.length, 2 + 1 + 32);
    assert.deepEqual([...request.subarray(0, 2)], [0x00, 0x05]);
    const keyId = createHash('sha256').update(tokenKey).digest();
    assert.equal(request[2], keyId[31], 'truncated token key id: the last byte of SHA-256(pkS)');
    assert.equal(request[2], fromHex(vector.token_request)[2], "the vector's key id");

    const value = new AuthorizationHeader(Token.deserialize(tokenBytes)).toString();
    assert.equal(value, `PrivateToken token="${b64url(tokenBytes)}"`);
    assert.deepEqual(AuthorizationHeader.parse(value).token.serialize(), new Uint8Array(tokenBytes));
}

if (sync) {
    await checks.check('before initSync: every entry into the WebAssembly throws NotInitialized', () => notInitialized());
    await checks.check('a failed initSync (bytes that do not compile) leaves it uninitialized', () => {
        assert.throws(() => core.initSync(notWasm), WebAssembly.CompileError);
        notInitialized();
    });
    await checks.check('initSync from a compiled WebAssembly.Module (as a Cloudflare Worker imports it)', () => {
        core.initSync(new WebAssembly.Module(wasmBytes));
        works();
    });
    await checks.check('then init() and initSync() do nothing (no fetch, no second instance)', async () => {
        const directory = core.IssuerDirectory.parse('{"issuer-request-uri":"https://issuer.example/t","token-keys":[]}');
        await core.init(); // without a source it would fetch a file: URL, which Node cannot
        core.initSync(new Uint8Array(0));
        throwsPat(() => directory.select(0x0002), 'NoMatchingKey'); // a call into the instance it was made in
        works();
    });
    checks.finish();
} else {
    await checks.check('core.js imports no node: module and loads nothing at import', () => {
        const source = readFileSync(path.join(shippedDir, 'core.js'), 'utf8');
        assert.doesNotMatch(source, /(from|import\()\s*['"]node:/, 'no node: import');
        assert.deepEqual([...source.matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1]), ['./pat_wasm.js', './pat_wasm.js']);
        assert.doesNotMatch(source, /^\s*await\b/m, 'no top-level await');
        const glue = readFileSync(path.join(shippedDir, 'pat_wasm.js'), 'utf8');
        assert.doesNotMatch(glue, /(from|import\()\s*['"]node:/, "wasm-bindgen's glue: no node: import");
        const index = readFileSync(path.join(shippedDir, 'index.js'), 'utf8');
        assert.match(index, /import\('node:fs\/promises'\)/, 'index.js is the entry that reads from disk');
    });

    await checks.check('package.json: the entries pat-wasm and pat-wasm/core, and the .wasm for callers that load it', () => {
        const pkg = JSON.parse(readFileSync(path.join(shippedDir, 'package.json'), 'utf8'));
        assert.deepEqual(pkg.exports['.'], { types: './index.d.ts', default: './index.js' });
        assert.deepEqual(pkg.exports['./core'], { types: './core.d.ts', default: './core.js' });
        assert.equal(pkg.exports['./pat_wasm_bg.wasm'], './pat_wasm_bg.wasm');
        for (const f of pkg.files) assert.ok(readFileSync(path.join(shippedDir, f)).length > 0, f);
    });

    await checks.check('the entries resolve through Node: pat-wasm, pat-wasm/core, pat-wasm/pat_wasm_bg.wasm', () => {
        const resolved = (specifier) => realpathSync(fileURLToPath(import.meta.resolve(specifier)));
        const dir = realpathSync(shippedDir);
        assert.equal(resolved('pat-wasm'), path.join(dir, 'index.js'));
        assert.equal(resolved('pat-wasm/core'), path.join(dir, 'core.js'));
        assert.equal(resolved('pat-wasm/pat_wasm_bg.wasm'), path.join(dir, 'pat_wasm_bg.wasm'));
    });

    await checks.check('before init: every entry into the WebAssembly throws NotInitialized', () => notInitialized());

    await checks.check('a failed init and a failed initSync leave it uninitialized', async () => {
        await assert.rejects(core.init(notWasm), WebAssembly.CompileError);
        notInitialized();
        assert.throws(() => core.initSync(notWasm), WebAssembly.CompileError);
        notInitialized();
    });

    await checks.check('init(bytes) after the failures: memoised while pending, initSync meanwhile is InitPending', async () => {
        const pending = core.init(wasmBytes);
        assert.equal(core.init(wasmBytes), pending, 'a second init() while pending is the same promise');
        throwsPat(() => core.initSync(wasmBytes), 'InitPending');
        notInitialized();
        await pending;
        works();
    });

    await checks.check('a second copy of core.js over the same glue shares the state: loaded, no second instance', async () => {
        const directory = core.IssuerDirectory.parse('{"issuer-request-uri":"https://issuer.example/t","token-keys":[]}');
        const second = await import(`${pathToFileURL(path.join(shippedDir, 'core.js')).href}?second`);
        assert.notEqual(second.init, core.init);
        assert.equal(second.WWWAuthenticateHeader.parse(wwwAuthenticate).length, 1);
        await second.init(wasmBytes);
        second.initSync(wasmBytes);
        throwsPat(() => directory.select(0x0002), 'NoMatchingKey'); // a call into the instance it was made in
        works();
    });

    await checks.check('initSync from a WebAssembly.Module, in a fresh process (this file with --sync)', () => {
        const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--sync'], { encoding: 'utf8' });
        process.stdout.write(out.replace(/^/gm, '    | '));
        assert.match(out, /^core --sync: 4 passed, 0 failed$/m);
    });

    checks.finish();
}
