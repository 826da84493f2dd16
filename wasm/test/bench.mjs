// Client speed: the shipped pat-wasm package against privacypass-ts 0.9.0
// in the same Node process, per client operation. A benchmark, not a test:
// scripts/wasm does not run it.
//
// Usage: node wasm/test/bench.mjs [--min-seconds S] [--warmup N] [--pat-only] [--json]
//   (the package: $PAT_WASM_PKG, default target/wasm-pkg/pat-wasm)
//
// Each operation runs --warmup times (default 100) untimed, then in batches
// until at least --min-seconds (default 1) of timed work and 100 timed
// operations; a batch's inputs (clients holding a request, and the
// issuer's responses) are made before its timer starts, and the timer
// covers the whole batch, so the mean is a batch time divided by its size.
// privacypass-ts's methods are async and are awaited one by one; the
// package's are synchronous. The same issuers answer both clients (see
// below). Type 5 has no privacypass-ts counterpart; its rows give
// pat-wasm's time only.
//
// Output: a Markdown table, mean time per operation and the ratio
// privacypass-ts / pat-wasm (above 1: pat-wasm is faster), with the load
// average before and after. --pat-only skips privacypass-ts (to compare
// builds of the package, e.g. opt-levels).

import { constants, createPrivateKey, privateDecrypt } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';

import {
    AuthorizationHeader as TsAuthorizationHeader,
    TokenChallenge as TsTokenChallenge,
    WWWAuthenticateHeader as TsWWWAuthenticateHeader,
    privateVerif as tsPrivate,
    publicVerif as tsPublic,
} from '@cloudflare/privacypass-ts';
import { EvaluationRequest, Oprf, VOPRFServer, generateKeyPair } from '@cloudflare/voprf-ts';
import { CryptoNoble } from '@cloudflare/voprf-ts/crypto-noble';

import { importFrom, shippedDir } from './harness.mjs';

const { values: opts } = parseArgs({
    options: {
        'min-seconds': { type: 'string', default: '1' },
        warmup: { type: 'string', default: '100' },
        json: { type: 'boolean', default: false },
        'pat-only': { type: 'boolean', default: false },
    },
});
const MIN_MS = Number(opts['min-seconds']) * 1000;
const WARMUP = Number(opts.warmup);
const MIN_OPS = 100;
const BATCH = 20;

const pat = await importFrom(shippedDir);
const loadBefore = os.loadavg();

// ---- issuers and challenges -------------------------------------------------
// The issuers only prepare inputs, outside the timers. Both clients finalize
// the same kind of response: a VOPRF evaluation with its DLEQ proof (voprf-ts
// over @noble/curves, much faster than privacypass-ts's own Issuer, which
// uses sjcl) and a raw RSA blind signature blinded^d mod n (node:crypto
// privateDecrypt without padding, RFC 9474 BlindSign; deterministic, so
// byte-identical to what privacypass-ts's Issuer returns, and much faster).

const ctx = () => crypto.getRandomValues(new Uint8Array(32));

function voprfIssuer(suite, privateKey) {
    const server = new VOPRFServer(suite, privateKey, CryptoNoble);
    const group = Oprf.getGroup(suite, CryptoNoble);
    return async (blindedMsg) => {
        const ev = await server.blindEvaluate(new EvaluationRequest([group.desElt(blindedMsg)]));
        const msg = ev.evaluated[0].serialize();
        const proof = ev.proof.serialize();
        const out = new Uint8Array(msg.length + proof.length);
        out.set(msg);
        out.set(proof, msg.length);
        return out;
    };
}

const t1 = await tsPrivate.keyGen();
const issue1 = voprfIssuer(Oprf.Suite.P384_SHA384, t1.privateKey);
const rsa = await tsPublic.Issuer.generateKey(tsPublic.BlindRSAMode.PSS, {
    modulusLength: 2048,
    publicExponent: new Uint8Array([1, 0, 1]),
});
const key2 = await tsPublic.getPublicKeyBytes(rsa.publicKey);
const rsaPrivate = createPrivateKey({
    key: Buffer.from(await crypto.subtle.exportKey('pkcs8', rsa.privateKey)),
    format: 'der',
    type: 'pkcs8',
});
const issue2 = (blindedMsg) =>
    new Uint8Array(privateDecrypt({ key: rsaPrivate, padding: constants.RSA_NO_PADDING }, blindedMsg));
const R255 = Oprf.Suite.RISTRETTO255_SHA512;
const t5 = await generateKeyPair(R255, CryptoNoble);
const issue5 = voprfIssuer(R255, t5.privateKey);

const tsChallenge1 = new TsTokenChallenge(1, 'issuer.example', ctx(), ['origin.example']);
const tsChallenge2 = new TsTokenChallenge(2, 'issuer.example', ctx(), ['origin.example']);
const challenge1 = pat.TokenChallenge.deserialize(tsChallenge1.serialize());
const challenge2 = pat.TokenChallenge.deserialize(tsChallenge2.serialize());
const challenge5 = new pat.TokenChallenge(5, 'issuer.example', ctx(), ['origin.example']);

// ---- the measured operations ------------------------------------------------
// Each: prepare(n) -> inputs for n operations (untimed); run(input) -> one
// operation (may be async).

const wwwValue = new TsWWWAuthenticateHeader(tsChallenge2, key2, 60).toString(true);
const sampleToken = await (async () => {
    const c = new pat.publicVerif.Client();
    const r = c.createTokenRequest(challenge2, key2);
    return c.finalize(issue2(r.blindedMsg));
})();
const tsSampleToken = TsAuthorizationHeader.parse(tsPublic.BLIND_RSA, new pat.AuthorizationHeader(sampleToken).toString())[0]
    .token;

const ops = [
    {
        name: 'type 1 createTokenRequest',
        pat: { prepare: () => new pat.privateVerif.Client(), run: (c) => c.createTokenRequest(challenge1, t1.publicKey) },
        ts: { prepare: () => new tsPrivate.Client(), run: (c) => c.createTokenRequest(tsChallenge1, t1.publicKey) },
    },
    {
        name: 'type 1 finalize',
        pat: {
            prepare: async () => {
                const c = new pat.privateVerif.Client();
                const r = c.createTokenRequest(challenge1, t1.publicKey);
                return [c, c.deserializeTokenResponse(await issue1(r.blindedMsg))];
            },
            run: ([c, resp]) => c.finalize(resp),
        },
        ts: {
            prepare: async () => {
                const c = new tsPrivate.Client();
                const r = await c.createTokenRequest(tsChallenge1, t1.publicKey);
                return [c, c.deserializeTokenResponse(await issue1(r.blindedMsg))];
            },
            run: ([c, resp]) => c.finalize(resp),
        },
    },
    {
        name: 'type 2 createTokenRequest',
        pat: { prepare: () => new pat.publicVerif.Client(), run: (c) => c.createTokenRequest(challenge2, key2) },
        ts: {
            prepare: () => new tsPublic.Client(tsPublic.BlindRSAMode.PSS),
            run: (c) => c.createTokenRequest(tsChallenge2, key2),
        },
    },
    {
        name: 'type 2 finalize',
        pat: {
            prepare: async () => {
                const c = new pat.publicVerif.Client();
                const r = c.createTokenRequest(challenge2, key2);
                return [c, c.deserializeTokenResponse(issue2(r.blindedMsg))];
            },
            run: ([c, resp]) => c.finalize(resp),
        },
        ts: {
            prepare: async () => {
                const c = new tsPublic.Client(tsPublic.BlindRSAMode.PSS);
                const r = await c.createTokenRequest(tsChallenge2, key2);
                return [c, c.deserializeTokenResponse(issue2(r.blindedMsg))];
            },
            run: ([c, resp]) => c.finalize(resp),
        },
    },
    {
        name: 'WWW-Authenticate parse (type 2, with key)',
        pat: { prepare: () => wwwValue, run: (v) => pat.WWWAuthenticateHeader.parse(v) },
        ts: { prepare: () => wwwValue, run: (v) => TsWWWAuthenticateHeader.parse(v) },
    },
    {
        name: 'Authorization build (type 2 token)',
        pat: { prepare: () => sampleToken, run: (t) => new pat.AuthorizationHeader(t).toString() },
        ts: { prepare: () => tsSampleToken, run: (t) => new TsAuthorizationHeader(t).toString() },
    },
    {
        name: 'type 5 createTokenRequest',
        pat: { prepare: () => new pat.privateVerif.Client(5), run: (c) => c.createTokenRequest(challenge5, t5.publicKey) },
    },
    {
        name: 'type 5 finalize',
        pat: {
            prepare: async () => {
                const c = new pat.privateVerif.Client(5);
                const r = c.createTokenRequest(challenge5, t5.publicKey);
                return [c, c.deserializeTokenResponse(await issue5(r.blindedMsg))];
            },
            run: ([c, resp]) => c.finalize(resp),
        },
    },
];

// ---- timing -----------------------------------------------------------------

async function inputs(side, n) {
    const out = [];
    for (let i = 0; i < n; i++) out.push(await side.prepare());
    return out;
}

/** Mean milliseconds per operation and the number timed. */
async function measure(side) {
    for (const input of await inputs(side, WARMUP)) await side.run(input);
    let ms = 0;
    let n = 0;
    while (ms < MIN_MS || n < MIN_OPS) {
        const batch = await inputs(side, BATCH);
        const t0 = performance.now();
        for (const input of batch) await side.run(input);
        ms += performance.now() - t0;
        n += batch.length;
    }
    return { mean: ms / n, n };
}

const fmt = (ms) => (ms >= 1 ? `${ms.toFixed(3)} ms` : `${(ms * 1000).toFixed(1)} µs`);
const rows = [];
for (const op of ops) {
    const p = await measure(op.pat);
    const t = op.ts && !opts['pat-only'] ? await measure(op.ts) : null;
    rows.push({ name: op.name, pat: p, ts: t, ratio: t ? t.mean / p.mean : null });
    process.stderr.write(`${op.name}: done\n`);
}
const loadAfter = os.loadavg();

if (opts.json) {
    console.log(JSON.stringify({ rows, loadBefore, loadAfter }, null, 2));
} else {
    console.log(`package ${shippedDir}`);
    console.log(`node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}`);
    console.log(`load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' ')}`);
    console.log(`warm-up ${WARMUP} per operation, then batches of ${BATCH} until >= ${MIN_MS / 1000} s and >= ${MIN_OPS} operations`);
    console.log('');
    console.log('| operation | pat-wasm | privacypass-ts | ratio (ts / pat) |');
    console.log('|---|---:|---:|---:|');
    for (const r of rows) {
        const ts = r.ts ? `${fmt(r.ts.mean)} (n=${r.ts.n})` : '—';
        const ratio = r.ratio === null ? '—' : `${r.ratio.toFixed(2)}×`;
        console.log(`| ${r.name} | ${fmt(r.pat.mean)} (n=${r.pat.n}) | ${ts} | ${ratio} |`);
    }
}
