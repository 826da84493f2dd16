// pat-wasm in the Workers runtime: workerd (from npm, its binary inside the
// package) runs worker/worker.js, bundled by esbuild as wrangler bundles a
// Worker (the `.wasm` left as a module import, which workerd compiles and
// the Worker passes to initSync). Node, with the shipped pat-wasm as the
// client, checks over loopback:
//   - the Worker as an issuer of types 1 and 5: tokens requested by pat-wasm,
//     finalized (the issuer's DLEQ proof checked), and verified by voprf-ts
//     with the key it derives from the same seed; a malformed request is 400;
//   - the Worker as a type-2 origin: 401 with a challenge the client parses,
//     a token from `pat issuer serve` (the directory's key passed to the
//     Worker) accepted once (200), its replay and a forgery refused (401);
//   - the Worker as ARC's issuer and origin (type 0xE5AC, limit 3): its
//     challenge and rate-limit parsed, a credential issued by it and
//     finalized by pat-wasm, 3 tokens each 200 once (replay and forgery
//     401), no fourth from the state, and a malformed credential request 400.
//
// Usage: node worker.mjs PATH_TO_PAT_BINARY
// Prints one line per check and `worker: N passed, M failed`.

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { Oprf, VOPRFServer, deriveKeyPair } from '@cloudflare/voprf-ts';
import { CryptoNoble } from '@cloudflare/voprf-ts/crypto-noble';
import * as esbuild from 'esbuild';

import { Checks, hex, importFrom, root, shippedDir } from './harness.mjs';
import { cleanup, freePort, start, startPat, tempDir } from './services.mjs';

const patBin = process.argv[2];
if (!patBin) {
    console.error('usage: node worker.mjs PATH_TO_PAT_BINARY');
    process.exit(2);
}
const pat = await importFrom(shippedDir);
const { AuthorizationHeader, IssuerDirectory, MediaType, PRIVATE_TOKEN_ISSUER_DIRECTORY, TokenChallenge, WWWAuthenticateHeader } =
    pat;
const checks = new Checks('worker');
const INFO = new TextEncoder().encode('pat-http issuer key');

// ---- the Worker's bundle and workerd's configuration --------------------------

const dir = tempDir('pat-wasm-worker-');
mkdirSync(dir, { recursive: true });
await esbuild.build({
    entryPoints: [path.join(root, 'wasm/test/worker/worker.js')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    outfile: path.join(dir, 'worker.js'),
    logLevel: 'warning',
    plugins: [{
        name: 'wasm-module',
        setup(build) {
            // What wrangler does: a `.wasm` import stays an import of a module.
            build.onResolve({ filter: /\.wasm$/ }, () => ({ path: './pat_wasm_bg.wasm', external: true }));
        },
    }],
});
writeFileSync(path.join(dir, 'pat_wasm_bg.wasm'), readFileSync(path.join(shippedDir, 'pat_wasm_bg.wasm')));
const bundle = readFileSync(path.join(dir, 'worker.js'), 'utf8');
await checks.check('the Worker bundle imports the .wasm as a module and no node: module', () => {
    assert.match(bundle, /from\s*["']\.\/pat_wasm_bg\.wasm["']/);
    assert.doesNotMatch(bundle, /["']node:/);
});

const services = await startPat(patBin, [2]);
const directory = IssuerDirectory.parse(
    new Uint8Array(await (await fetch(services.issuerUrl + PRIVATE_TOKEN_ISSUER_DIRECTORY)).arrayBuffer()),
);
const type2Key = directory.select(2).tokenKey;
const seed = crypto.getRandomValues(new Uint8Array(32));
const port = await freePort();
const quote = (s) => JSON.stringify(s);
writeFileSync(path.join(dir, 'config.capnp'), `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
    (name = "pat_wasm_bg.wasm", wasm = embed "pat_wasm_bg.wasm"),
  ],
  bindings = [
    (name = "SEED", text = ${quote(hex(seed))}),
    (name = "TYPE2_TOKEN_KEY", text = ${quote(Buffer.from(type2Key).toString('base64url'))}),
    (name = "ISSUER_NAME", text = ${quote(services.issuerName)}),
    (name = "ORIGIN_NAME", text = "worker.example"),
  ],
  compatibilityDate = "2025-06-01",
);
`);
const workerd = path.join(root, 'wasm/test/node_modules/workerd/bin/workerd');
const base = `http://127.0.0.1:${port}`;
await start('workerd', workerd, ['serve', path.join(dir, 'config.capnp'), '--verbose'], { ready: null });
// workerd prints nothing when it is up: wait until it answers.
for (let i = 0; ; i++) {
    try {
        await fetch(`${base}/token-key?type=1`);
        break;
    } catch (e) {
        if (i >= 300) throw new Error(`workerd does not answer on ${base}: ${e.message}`);
        await new Promise((r) => setTimeout(r, 100));
    }
}
console.log(`workerd ${JSON.parse(readFileSync(path.join(root, 'wasm/test/node_modules/workerd/package.json'), 'utf8')).version} up on ${base}`);

// ---- the Worker as an issuer of types 1 and 5 ---------------------------------

for (const type of [1, 5]) {
    const suite = type === 1 ? Oprf.Suite.P384_SHA384 : Oprf.Suite.RISTRETTO255_SHA512;
    const provider = type === 1 ? [] : [CryptoNoble];
    const theirs = await deriveKeyPair(Oprf.Mode.VOPRF, suite, seed, INFO, ...provider);
    const server = new VOPRFServer(suite, theirs.privateKey, ...provider);
    let tokenKey;
    await checks.check(`type ${type}: the Worker's token key is voprf-ts's derivation of the seed`, async () => {
        const r = await fetch(`${base}/token-key?type=${type}`);
        assert.equal(r.status, 200);
        tokenKey = new Uint8Array(Buffer.from(await r.text(), 'base64url'));
        assert.equal(hex(tokenKey), hex(theirs.publicKey));
    });
    for (let round = 1; round <= 3; round++) {
        await checks.check(`type ${type} #${round}: issued by the Worker, finalized by pat-wasm, verified by voprf-ts`, async () => {
            const challenge = new TokenChallenge(type, 'worker.example', crypto.getRandomValues(new Uint8Array(32)), []);
            const client = new pat.privateVerif.Client(type);
            const request = client.createTokenRequest(challenge, tokenKey);
            const r = await fetch(`${base}/token-request?type=${type}`, {
                method: 'POST',
                headers: { 'Content-Type': MediaType.PRIVATE_TOKEN_REQUEST },
                body: request.serialize(),
            });
            assert.equal(r.status, 200, await r.clone().text());
            assert.equal(r.headers.get('content-type'), MediaType.PRIVATE_TOKEN_RESPONSE);
            const token = client.finalize(client.deserializeTokenResponse(new Uint8Array(await r.arrayBuffer())));
            assert.equal(await server.verifyFinalize(token.authInput.serialize(), token.authenticator), true);
            token.authenticator[0] ^= 1;
            assert.equal(await server.verifyFinalize(token.authInput.serialize(), token.authenticator), false);
        });
    }
    await checks.check(`type ${type}: a truncated TokenRequest is 400 Truncated`, async () => {
        const r = await fetch(`${base}/token-request?type=${type}`, {
            method: 'POST',
            headers: { 'Content-Type': MediaType.PRIVATE_TOKEN_REQUEST },
            body: new Uint8Array([0, type, 0]),
        });
        assert.equal(r.status, 400);
        assert.equal(await r.text(), 'Truncated');
    });
}

// ---- the Worker as a type-2 origin ----------------------------------------------

for (let round = 1; round <= 3; round++) {
    await checks.check(`type 2 #${round}: the Worker's challenge, a token from pat issuer serve, 200 once, replay and forgery 401`, async () => {
        const first = await fetch(`${base}/resource`);
        assert.equal(first.status, 401);
        const [header] = WWWAuthenticateHeader.parse(first.headers.get('www-authenticate'));
        assert.equal(header.challenge.tokenType, 2);
        assert.equal(header.challenge.issuerName, services.issuerName);
        assert.equal(hex(header.tokenKey), hex(type2Key));
        const client = new pat.publicVerif.Client();
        const request = client.createTokenRequest(header.challenge, header.tokenKey);
        const r = await fetch(directory.issuerRequestUri, {
            method: 'POST',
            headers: { 'Content-Type': MediaType.PRIVATE_TOKEN_REQUEST, Accept: MediaType.PRIVATE_TOKEN_RESPONSE },
            body: request.serialize(),
        });
        assert.equal(r.status, 200);
        const token = client.finalize(client.deserializeTokenResponse(new Uint8Array(await r.arrayBuffer())));
        const forged = pat.Token.deserialize(token.serialize());
        forged.authenticator[9] ^= 1;
        const get = (t) => fetch(`${base}/resource`, { headers: { Authorization: new AuthorizationHeader(t).toString() } });
        assert.equal((await get(forged)).status, 401, 'forged');
        const ok = await get(token);
        assert.equal(ok.status, 200, 'token');
        assert.equal(await ok.text(), 'hello from the worker');
        assert.equal((await get(token)).status, 401, 'replay');
    });
}

// ---- the Worker as ARC's issuer and origin ----------------------------------------

{
    const s = {};
    await checks.check('ARC: the Worker\'s challenge with its rate-limit; a credential issued by the Worker', async () => {
        const first = await fetch(`${base}/arc/resource`);
        assert.equal(first.status, 401);
        const [header] = WWWAuthenticateHeader.parse(first.headers.get('www-authenticate'));
        assert.equal(header.challenge.tokenType, pat.arc.TOKEN_TYPE);
        assert.equal(header.rateLimit, 3);
        const key = await (await fetch(`${base}/arc/token-key`)).text();
        assert.equal(Buffer.from(header.tokenKey).toString('base64url'), key);
        const client = new pat.arc.Client(header.tokenKey);
        const request = client.createCredentialRequest(header.challenge);
        const r = await fetch(`${base}/arc/credential-request`, {
            method: 'POST',
            headers: { 'Content-Type': MediaType.PRIVATE_CREDENTIAL_REQUEST },
            body: request.serialize(),
        });
        assert.equal(r.status, 200, await r.clone().text());
        assert.equal(r.headers.get('content-type'), MediaType.PRIVATE_CREDENTIAL_RESPONSE);
        const credential = request.finalize(new Uint8Array(await r.arrayBuffer()));
        Object.assign(s, { header, client, state: client.presentationState(credential, header.challenge, header.rateLimit) });
    });
    for (let i = 1; i <= 3; i++) {
        await checks.check(`ARC token ${i} of 3: 200 once, its replay and a forgery 401`, async () => {
            const token = s.client.createToken(s.state, s.header.challenge);
            const forged = token.serialize();
            forged[forged.length - 2] ^= 1;
            const get = (bytes) =>
                fetch(`${base}/arc/resource`, { headers: { Authorization: new AuthorizationHeader(pat.arc.Token.deserialize(bytes)).toString() } });
            assert.equal((await get(forged)).status, 401, 'forged');
            const ok = await get(token.serialize());
            assert.equal(ok.status, 200, 'token');
            assert.equal(await ok.text(), 'hello from the ARC worker');
            assert.equal((await get(token.serialize())).status, 401, 'replay');
        });
    }
    await checks.check('ARC: no fourth token; a malformed credential request is 400', async () => {
        assert.throws(() => s.client.createToken(s.state, s.header.challenge), (e) => e.code === 'PresentationLimitReached');
        const r = await fetch(`${base}/arc/credential-request`, {
            method: 'POST',
            headers: { 'Content-Type': MediaType.PRIVATE_CREDENTIAL_REQUEST },
            body: new Uint8Array([0xe5, 0xac, 0]),
        });
        assert.equal(r.status, 400);
        assert.equal(await r.text(), 'Truncated');
    });
}

checks.finish();
cleanup();
process.exit();
