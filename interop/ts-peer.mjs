// ts-peer.mjs: a Privacy Pass ISSUER and ORIGIN built on
// @cloudflare/privacypass-ts's own classes, served with node:http(s), for
// live interop tests against pat (RFC 9576/9577/9578). Test-only.
//
// Usage:
//   node ts-peer.mjs --port P [--token-type 1|2|1,2|0xda7a] [--tls] [--context random|empty]
//                    [--origin-info NAME[,NAME...]] [--metadata-key PEM_FILE]
//
//   --port P         port to listen on (0: any free port); the port actually used
//                    is printed on stdout as `listening <port>` once ready.
//   --token-type T   token types served: 1 (VOPRF P-384), 2 (blind RSA 2048 PSS)
//                    or 1,2 (both; also answers generic batches of both).
//                    Default 1. GET /protected uses the first type listed.
//                    0xda7a (or 55930): public metadata, publicVerif.IssuerWithMetadata
//                    and OriginWithMetadata; requests are ExtendedTokenRequests,
//                    any well-formed Extensions list is issued, and the origin
//                    verifies a token with the `extensions` parameter of its
//                    Authorization value (the empty list when absent).
//   --metadata-key F the 0xDA7A issuer key, PKCS#8 PEM with safe primes. Default:
//                    the key of privacypass-ts's own metadata test vector
//                    (tests/vectors/privacypass-ts/pub_verif_with_metadata_v3.json):
//                    blindrsa-ts's safe-prime key generation takes longer than
//                    five minutes.
//   --tls            HTTPS with certs/localhost.pem + certs/localhost-key.pem;
//                    issuer_name is then `localhost:P` (privacypass-ts's client
//                    always fetches https://<issuer_name>). Without --tls: plain
//                    HTTP, issuer_name `127.0.0.1:P`.
//   --context C      redemption_context of each challenge: random (32 fresh
//                    bytes per challenge, the default) or empty.
//   --origin-info L  origin_info of the challenges (default: empty).
//
// Routes:
//   GET  /.well-known/private-token-issuer-directory   RFC 9578 §4 directory
//   POST /token-request   application/private-token-request -> application/private-token-response
//                         application/private-token-generic-batch-request
//                           -> application/private-token-generic-batch-response
//                         anything else -> 415
//   GET  /protected       origin for the first token type listed
//   GET  /protected/1, /protected/2, /protected/55930   origin for one type (if served)
// The origin answers 401 + WWW-Authenticate (fresh challenge) without a valid
// token, 200 for a valid unspent one, 401 for an invalid or replayed one.
// One log line per request on stderr.

import http from 'node:http';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
    AuthorizationHeader,
    Extensions,
    MediaType,
    PRIVATE_TOKEN_ISSUER_DIRECTORY,
    TOKEN_TYPES,
    genericBatched,
    privateVerif,
    publicVerif,
} from '@cloudflare/privacypass-ts';

// genericBatched.Issuer reports a failed entry with console.log; keep stdout
// for the `listening <port>` line only.
console.log = (...args) => console.error('[privacypass-ts]', ...args);

const { values: opts } = parseArgs({
    options: {
        port: { type: 'string' },
        'token-type': { type: 'string', default: '1' },
        tls: { type: 'boolean', default: false },
        context: { type: 'string', default: 'random' },
        'origin-info': { type: 'string' },
        'metadata-key': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
});

function usage(msg) {
    if (msg) console.error(`ts-peer: ${msg}`);
    console.error(
        'usage: node ts-peer.mjs --port P [--token-type 1|2|1,2|0xda7a] [--tls] [--context random|empty] [--origin-info NAMES] [--metadata-key PEM]',
    );
    process.exit(2);
}
if (opts.help) usage();
if (opts.port === undefined || !/^\d+$/.test(opts.port) || Number(opts.port) > 65535) {
    usage('--port P is required (0..65535)');
}
const DA7A = 0xda7a;
const types = opts['token-type'].split(',').map((t) => (/^(0x)?da7a$/i.test(t) ? DA7A : Number(t)));
if (types.length === 0 || types.some((t) => t !== 1 && t !== 2 && t !== DA7A) || new Set(types).size !== types.length) {
    usage('--token-type must be 1, 2, 1,2, 2,1 or 0xda7a (alone)');
}
if (types.includes(DA7A) && types.length !== 1) usage('0xda7a is served alone');
if (opts.context !== 'random' && opts.context !== 'empty') usage('--context must be random or empty');
const originInfo = opts['origin-info'] ? opts['origin-info'].split(',') : undefined;

const here = fileURLToPath(new URL('.', import.meta.url));
const scheme = opts.tls ? 'https' : 'http';
const hostName = opts.tls ? 'localhost' : '127.0.0.1';

// Padded base64url, as RFC 9577 §2.1 asks (and as privacypass-ts's rfc4648
// parser requires: it rejects unpadded input whose length is not 0 mod 4).
function b64url(bytes) {
    const s = Buffer.from(bytes).toString('base64url');
    return s + '='.repeat((4 - (s.length % 4)) % 4);
}
async function sha256(bytes) {
    return new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
}
const hex = (b) => Buffer.from(b).toString('hex');

function log(req, status, note = '') {
    console.error(`${req.method} ${req.url} -> ${status}${note ? ' ' + note : ''}`);
}

async function readBody(req, limit = 1 << 20) {
    const chunks = [];
    let n = 0;
    for await (const c of req) {
        n += c.length;
        if (n > limit) throw new Error('body too large');
        chunks.push(c);
    }
    return new Uint8Array(Buffer.concat(chunks));
}

// The media type of a Content-Type value, lower-cased, parameters dropped.
function mediaType(v) {
    return (v ?? '').split(';')[0].trim().toLowerCase();
}

// ---- keys and per-type state ------------------------------------------------

// issuerName is only known once the port is; the issuers' `name` field is not
// used on the wire, so it is set after listen().
const kinds = new Map(); // token type -> { entry, tokenKey, tokenKeyId, issuer, origin, verify, ... }

async function makeType1() {
    const { privateKey, publicKey } = await privateVerif.keyGen();
    const issuer = new privateVerif.Issuer('', privateKey, publicKey);
    const origin = new privateVerif.Origin(originInfo);
    return {
        entry: TOKEN_TYPES.VOPRF,
        tokenKey: publicKey, // SerializeElement(pkI), 49 bytes compressed
        issuer,
        origin,
        verify: (token) => origin.verify(token, privateKey),
        parseRequest: (bytes) => privateVerif.TokenRequest.deserialize(bytes),
    };
}

async function makeType2() {
    const mode = publicVerif.BlindRSAMode.PSS;
    const { privateKey, publicKey } = await publicVerif.Issuer.generateKey(mode, {
        modulusLength: 2048,
        publicExponent: new Uint8Array([1, 0, 1]),
    });
    const issuer = new publicVerif.Issuer(mode, '', privateKey, publicKey);
    const origin = new publicVerif.Origin(mode, originInfo);
    return {
        entry: TOKEN_TYPES.BLIND_RSA,
        tokenKey: await publicVerif.getPublicKeyBytes(publicKey), // SPKI, RSASSA-PSS OID
        issuer,
        origin,
        verify: (token) => origin.verify(token, publicKey),
        parseRequest: (bytes) => publicVerif.TokenRequest.deserialize(TOKEN_TYPES.BLIND_RSA, bytes),
    };
}

async function makeTypeDA7A() {
    const mode = publicVerif.PartiallyBlindRSAMode.PSS;
    let pem;
    if (opts['metadata-key'] !== undefined) {
        pem = readFileSync(opts['metadata-key'], 'utf8');
    } else {
        const vector = JSON.parse(
            readFileSync(`${here}../tests/vectors/privacypass-ts/pub_verif_with_metadata_v3.json`, 'utf8'),
        );
        pem = Buffer.from(vector[0].skS, 'hex').toString('utf8');
    }
    const der = Buffer.from(pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, ''), 'base64');
    const alg = { name: 'RSA-PSS', hash: 'SHA-384' };
    const privateKey = await crypto.subtle.importKey('pkcs8', der, alg, true, ['sign']);
    const { kty, n, e } = await crypto.subtle.exportKey('jwk', privateKey);
    const publicKey = await crypto.subtle.importKey('jwk', { kty, n, e }, alg, true, ['verify']);
    const issuer = new publicVerif.IssuerWithMetadata(mode, '', privateKey, publicKey);
    // The challenge's type comes from the origin; the extensions of each
    // token come from its Authorization value.
    const origin = new publicVerif.OriginWithMetadata(mode, new Extensions([]), originInfo);
    return {
        entry: TOKEN_TYPES.PARTIALLY_BLIND_RSA,
        tokenKey: await publicVerif.getPublicKeyBytes(publicKey),
        issuer,
        origin,
        verify: (token, extensions) =>
            new publicVerif.OriginWithMetadata(mode, extensions ?? new Extensions([]), originInfo).verify(token, publicKey),
        parseRequest: (bytes) => publicVerif.ExtendedTokenRequest.deserialize(bytes),
    };
}

for (const t of types) {
    const k = t === 1 ? await makeType1() : t === 2 ? await makeType2() : await makeTypeDA7A();
    k.tokenKeyId = await sha256(k.tokenKey);
    // Type 0xDA7A: the request ends with an Extensions list (at least its 2-byte length).
    k.requestLength = 3 + (t === 1 ? privateVerif.VOPRF.Ne : TOKEN_TYPES.BLIND_RSA.Nk);
    k.variableLength = t === DA7A;
    k.issued = new Set(); // hex challenge digests of the challenges sent
    k.spent = new Set(); // hex nonces of the tokens redeemed
    kinds.set(t, k);
}
const batchIssuer = new genericBatched.Issuer(
    ...[...kinds.values()].filter((k) => !k.variableLength).map((k) => k.issuer),
);
const notBefore = Math.floor(Date.now() / 1000) - 60;

let issuerName = ''; // host:port, set after listen
let issuerRequestUri = '';

// ---- issuer -----------------------------------------------------------------

function directory() {
    return {
        'issuer-request-uri': issuerRequestUri,
        'token-keys': [...kinds.entries()].map(([t, k]) => ({
            'token-type': t,
            'token-key': b64url(k.tokenKey),
            'not-before': notBefore,
        })),
    };
}

// Checks a single TokenRequest's type, length and truncated key id; returns
// the kind that serves it or a string saying why not.
function kindFor(bytes) {
    if (bytes.length < 3) return 'short token request';
    const t = (bytes[0] << 8) | bytes[1];
    const k = kinds.get(t);
    if (!k) return `token type ${t} not served`;
    if (k.variableLength ? bytes.length < k.requestLength + 2 : bytes.length !== k.requestLength) {
        return `type ${t} request of ${bytes.length} bytes, want ${k.variableLength ? 'at least ' : ''}${k.requestLength}`;
    }
    if (bytes[2] !== k.tokenKeyId[31]) return `truncated_token_key_id ${bytes[2]} is not ${k.tokenKeyId[31]}`;
    return k;
}

async function tokenRequest(req, res) {
    const ct = mediaType(req.headers['content-type']);
    if (ct !== MediaType.PRIVATE_TOKEN_REQUEST && ct !== MediaType.GENERIC_BATCHED_TOKEN_REQUEST) {
        return send(req, res, 415, 'text/plain', `unsupported Content-Type ${ct || '(none)'}\n`);
    }
    const body = await readBody(req);
    if (ct === MediaType.PRIVATE_TOKEN_REQUEST) {
        const k = kindFor(body);
        if (typeof k === 'string') return send(req, res, 400, 'text/plain', k + '\n');
        let parsed;
        try {
            parsed = k.parseRequest(body);
        } catch (e) {
            return send(req, res, 400, 'text/plain', `bad token request: ${e.message}\n`);
        }
        const resp = await k.issuer.issue(parsed);
        const note = parsed.extensions ? ` extensions ${hex(parsed.extensions.serialize())}` : '';
        return send(req, res, 200, MediaType.PRIVATE_TOKEN_RESPONSE, resp.serialize(), `type ${k.entry.value}${note}`);
    }
    // Generic batch: privacypass-ts parses it and answers failed entries as absent.
    let batch;
    try {
        batch = genericBatched.BatchedTokenRequest.deserialize(body);
    } catch (e) {
        return send(req, res, 400, 'text/plain', `bad generic batch: ${e.message}\n`);
    }
    const resp = await batchIssuer.issue(batch);
    const present = resp.tokenResponses.map((r) => (r.tokenResponse ? r.tokenResponse.tokenType : '-')).join(',');
    return send(req, res, 200, MediaType.GENERIC_BATCHED_TOKEN_RESPONSE, resp.serialize(), `batch [${present}]`);
}

// ---- origin -----------------------------------------------------------------

async function challengeHeader(k) {
    const context = opts.context === 'empty' ? new Uint8Array(0) : crypto.getRandomValues(new Uint8Array(32));
    const challenge = k.origin.createTokenChallenge(issuerName, context);
    const bytes = challenge.serialize();
    if (k.issued.size > 100000) k.issued.clear();
    k.issued.add(hex(await sha256(bytes)));
    return `PrivateToken challenge=${b64url(bytes)}, token-key=${b64url(k.tokenKey)}, max-age=60`;
}

// Returns null for a valid unspent token (and spends it), else the reason.
async function checkToken(k, authorization) {
    let token;
    let extensions;
    try {
        const parsed = AuthorizationHeader.parse(k.entry, authorization);
        if (parsed.length !== 1) return `${parsed.length} PrivateToken credentials`;
        token = parsed[0].token;
        extensions = parsed[0].extensions;
    } catch (e) {
        return `unparsable Authorization: ${e.message}`;
    }
    const ai = token.authInput;
    if (ai.tokenType !== k.entry.value) return `token type ${ai.tokenType}`;
    if (hex(ai.tokenKeyId) !== hex(k.tokenKeyId)) return 'unknown token_key_id';
    if (!k.issued.has(hex(ai.challengeDigest))) return 'challenge_digest of no challenge sent';
    const nonce = hex(ai.nonce);
    if (k.spent.has(nonce)) return 'replayed (nonce spent)';
    let ok = false;
    try {
        ok = await k.verify(token, extensions);
    } catch (e) {
        return `verify threw: ${e.message}`;
    }
    if (!ok) return 'authenticator does not verify';
    k.spent.add(nonce);
    return null;
}

async function protectedResource(req, res, k) {
    const authorization = req.headers['authorization'];
    if (authorization !== undefined) {
        const why = await checkToken(k, authorization);
        if (why === null) {
            return send(req, res, 200, 'text/plain', `ok: token type ${k.entry.value} redeemed\n`, 'redeemed');
        }
        res.setHeader('WWW-Authenticate', await challengeHeader(k));
        return send(req, res, 401, 'text/plain', why + '\n', why);
    }
    res.setHeader('WWW-Authenticate', await challengeHeader(k));
    return send(req, res, 401, 'text/plain', 'token required\n', 'challenge');
}

// ---- server -----------------------------------------------------------------

function send(req, res, status, type, body, note) {
    res.statusCode = status;
    res.setHeader('Content-Type', type);
    res.setHeader('Cache-Control', 'no-store');
    res.end(typeof body === 'string' ? body : Buffer.from(body));
    log(req, status, note ?? (status >= 400 && typeof body === 'string' ? body.trim() : ''));
}

async function handle(req, res) {
    const path = new URL(req.url, 'http://x').pathname;
    if (path === PRIVATE_TOKEN_ISSUER_DIRECTORY) {
        if (req.method !== 'GET' && req.method !== 'HEAD') return send(req, res, 405, 'text/plain', 'GET only\n');
        return send(req, res, 200, MediaType.PRIVATE_TOKEN_ISSUER_DIRECTORY, JSON.stringify(directory()));
    }
    if (path === '/token-request') {
        if (req.method !== 'POST') return send(req, res, 405, 'text/plain', 'POST only\n');
        return tokenRequest(req, res);
    }
    const m = /^\/protected(?:\/(1|2|55930))?$/.exec(path);
    if (m) {
        const k = kinds.get(m[1] ? Number(m[1]) : types[0]);
        if (!k) return send(req, res, 404, 'text/plain', `token type ${m[1]} not served\n`);
        if (req.method !== 'GET') return send(req, res, 405, 'text/plain', 'GET only\n');
        return protectedResource(req, res, k);
    }
    return send(req, res, 404, 'text/plain', 'not found\n');
}

function onRequest(req, res) {
    handle(req, res).catch((e) => {
        if (!res.headersSent) send(req, res, 500, 'text/plain', `error: ${e.message}\n`);
        else res.destroy(e);
    });
}

const tlsOptions = opts.tls
    ? {
          cert: readFileSync(`${here}certs/localhost.pem`),
          key: readFileSync(`${here}certs/localhost-key.pem`),
      }
    : null;
const makeServer = () => (tlsOptions ? https.createServer(tlsOptions, onRequest) : http.createServer(onRequest));

function listen(server, port, host) {
    return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
            server.off('error', reject);
            resolve(server.address().port);
        });
    });
}

const server = makeServer();
const port = await listen(server, Number(opts.port), '127.0.0.1');
if (opts.tls) {
    // `localhost` may resolve to ::1 first (e.g. on CI runners): listen there
    // too, on the same port, where IPv6 loopback exists.
    await listen(makeServer(), port, '::1').catch((e) => console.error(`ts-peer: not on [::1]:${port}: ${e.code}`));
}
issuerName = `${hostName}:${port}`;
issuerRequestUri = `${scheme}://${issuerName}/token-request`;
for (const k of kinds.values()) k.issuer.name = issuerName;
console.error(
    `ts-peer: ${scheme} issuer_name ${issuerName}, types ${types.join(',')}, ` +
        `directory ${scheme}://${issuerName}${PRIVATE_TOKEN_ISSUER_DIRECTORY}`,
);
process.stdout.write(`listening ${port}\n`);

for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(0));
