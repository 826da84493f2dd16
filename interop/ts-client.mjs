// ts-client.mjs: @cloudflare/privacypass-ts as the CLIENT, running its own
// flow unmodified, against an origin and issuer (pat's servers, or ts-peer.mjs).
// Test-only. Uses only privacypass-ts's public exports.
//
// Usage:
//   node ts-client.mjs ORIGIN_URL [ORIGIN_URL...]
//       For each URL: GET -> 401 with a PrivateToken WWW-Authenticate;
//       header_to_token(value) (privacypass-ts fetches
//       https://<issuer_name>/.well-known/private-token-issuer-directory, posts
//       the token request, finalizes); GET with Authorization -> 200; the same
//       Authorization again -> 401 with a fresh challenge.
//   node ts-client.mjs --issuer-url ISSUER_BASE_URL ORIGIN_URL [ORIGIN_URL...]
//       The same cases, but issuance goes to the directory at ISSUER_BASE_URL
//       (http:// allowed) instead of https://<issuer_name>: the steps of
//       privacypass-ts's fetchToken done with its exported pieces
//       (WWWAuthenticateHeader, privateVerif/publicVerif Client,
//       sendTokenRequest, AuthorizationHeader). For plain-HTTP peers.
//   node ts-client.mjs --metadata EXTENSIONS_HEX [--issuer-url ISSUER_BASE_URL] ORIGIN_URL
//       Type 0xDA7A (public metadata): the origin's 401 carries a 0xDA7A
//       challenge; publicVerif.ClientWithMetadata with the Extensions
//       EXTENSIONS_HEX (an encoded list, length prefix included; privacypass-ts
//       parses it) obtains a token from the directory's issuer-request-uri at
//       https://<issuer_name> (or ISSUER_BASE_URL) through privacypass-ts's
//       fetchToken steps; the Authorization value is written here as
//       `PrivateToken token="…", extensions="…"` (privacypass-ts's
//       AuthorizationHeader.toString() leaves the extensions out). The token
//       presented with other extensions is refused (401), with its own
//       redeemed (200), replayed (401).
//   node ts-client.mjs --batch ORIGIN_URL_TYPE1 ORIGIN_URL_TYPE2 ISSUER_NAME
//       One generic batch (type 1 VOPRF + type 2 blind RSA) built with
//       privacypass-ts's genericBatched classes, posted to the directory's
//       issuer-request-uri at https://ISSUER_NAME; both tokens redeemed (200)
//       and replayed (401).
//
// Output: one line per case, `ok  <description>` or `FAIL <description>: <reason>`,
// then `ts-client: N passed, M failed`. Exit status 0 iff M == 0 (2 on usage errors).
// Cases after a failed step are reported as FAIL (skipped), so N + M is fixed.
// HTTPS to a test CA: run with NODE_EXTRA_CA_CERTS=interop/certs/ca.pem.

import {
    AuthorizationHeader,
    Extension,
    Extensions,
    MediaType,
    WWWAuthenticateHeader,
    genericBatched,
    getIssuerUrl,
    header_to_token,
    PRIVATE_TOKEN_ISSUER_DIRECTORY,
    privateVerif,
    publicVerif,
    sendTokenRequest,
} from '@cloudflare/privacypass-ts';

const TIMEOUT_MS = Number(process.env.TS_CLIENT_TIMEOUT_MS ?? 60000);

// privacypass-ts prints diagnostics with console.log; stdout is for case lines.
const out = (line) => process.stdout.write(line + '\n');
console.log = (...a) => console.error('[privacypass-ts]', ...a);

let passed = 0;
let failed = 0;
function ok(desc) {
    passed++;
    out(`ok  ${desc}`);
}
function fail(desc, reason) {
    failed++;
    out(`FAIL ${desc}: ${String(reason).replace(/\s+/g, ' ').trim()}`);
}

// Runs the cases in order; the first failure skips (and fails) the rest.
// Each case is [description, async () => value]; a thrown error fails it.
async function runCases(cases) {
    let broken = null;
    for (const [desc, fn] of cases) {
        if (broken !== null) {
            fail(desc, `skipped (${broken} failed)`);
            continue;
        }
        try {
            await withTimeout(fn(), desc);
            ok(desc);
        } catch (e) {
            fail(desc, e?.cause ? `${e.message} (${e.cause.code ?? e.cause.message ?? e.cause})` : (e?.message ?? e));
            broken = desc;
        }
    }
}

function withTimeout(p, what) {
    let t;
    const timer = new Promise((_, reject) => {
        t = setTimeout(() => reject(new Error(`timed out after ${TIMEOUT_MS} ms: ${what}`)), TIMEOUT_MS);
    });
    return Promise.race([p, timer]).finally(() => clearTimeout(t));
}

async function get(url, authorization) {
    const headers = authorization === undefined ? {} : { Authorization: authorization };
    const res = await fetch(url, { headers, redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS) });
    await res.arrayBuffer();
    return res;
}

function expectStatus(res, want) {
    if (res.status !== want) {
        const www = res.headers.get('www-authenticate');
        throw new Error(`status ${res.status}, want ${want}${www ? ` (WWW-Authenticate: ${www})` : ''}`);
    }
}

// Parses the PrivateToken challenges of a response with privacypass-ts.
function challengesOf(res) {
    const value = res.headers.get('www-authenticate');
    if (value === null) throw new Error('no WWW-Authenticate header');
    const parsed = WWWAuthenticateHeader.parse(value);
    if (parsed.length === 0) throw new Error(`no PrivateToken challenge in ${JSON.stringify(value)}`);
    return { value, parsed };
}

const typeName = (t) => ({ 1: 'type 1 (VOPRF P-384)', 2: 'type 2 (blind RSA)' })[t] ?? `type ${t}`;

// fetchToken's steps with the directory at issuerBase (any scheme) instead
// of https://<issuer_name>.
async function tokenVia(issuerBase, www) {
    const dirUrl = new URL(PRIVATE_TOKEN_ISSUER_DIRECTORY, issuerBase);
    const res = await fetch(dirUrl, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (res.status !== 200) throw new Error(`directory ${dirUrl}: status ${res.status}`);
    const uri = new URL((await res.json())['issuer-request-uri'], issuerBase);
    const h = WWWAuthenticateHeader.parse(www)[0];
    let client;
    if (h.challenge.tokenType === 1) client = new privateVerif.Client();
    else if (h.challenge.tokenType === 2) client = new publicVerif.Client(publicVerif.BlindRSAMode.PSS);
    else throw new Error(`token type ${h.challenge.tokenType}`);
    const tokReq = await client.createTokenRequest(h.challenge, h.tokenKey);
    const tokRes = client.deserializeTokenResponse(await sendTokenRequest(tokReq.serialize(), uri.href));
    return new AuthorizationHeader(await client.finalize(tokRes)).toString();
}

async function single(url, issuerBase) {
    const s = {};
    await runCases([
        [
            `${url}: GET without a token answers 401`,
            async () => {
                s.res = await get(url);
                expectStatus(s.res, 401);
            },
        ],
        [
            `${url}: WWW-Authenticate has a PrivateToken challenge and token-key`,
            async () => {
                const { value, parsed } = challengesOf(s.res);
                s.www = value;
                s.type = parsed[0].challenge.tokenType;
                if (s.type !== 1 && s.type !== 2) throw new Error(`token type ${s.type} is not 1 or 2`);
            },
        ],
        [
            issuerBase === undefined
                ? `${url}: header_to_token gets a token (issuance)`
                : `${url}: token issued via the directory at ${issuerBase}`,
            async () => {
                s.auth = issuerBase === undefined ? await header_to_token(s.www) : await tokenVia(issuerBase, s.www);
                if (typeof s.auth !== 'string' || !s.auth.startsWith('PrivateToken ')) {
                    throw new Error(`header_to_token returned ${JSON.stringify(s.auth)}`);
                }
            },
        ],
        [
            `${url}: token redeemed (200)`,
            async () => expectStatus(await get(url, s.auth), 200),
        ],
        [
            `${url}: replayed token refused (401) with a fresh challenge`,
            async () => {
                const res = await get(url, s.auth);
                expectStatus(res, 401);
                challengesOf(res);
            },
        ],
    ]);
    if (s.type !== undefined) console.error(`ts-client: ${url} served ${typeName(s.type)}`);
}

async function batch(url1, url2, issuerName) {
    const s = {};
    const want = [
        [url1, 1],
        [url2, 2],
    ];
    await runCases([
        ...want.map(([url, type], i) => [
            `batch: ${url}: 401 with a ${typeName(type)} challenge from ${issuerName}`,
            async () => {
                const res = await get(url);
                expectStatus(res, 401);
                const h = challengesOf(res).parsed.find((p) => p.challenge.tokenType === type);
                if (!h) throw new Error(`no ${typeName(type)} challenge`);
                if (h.challenge.issuerName !== issuerName) {
                    throw new Error(`challenge names issuer ${JSON.stringify(h.challenge.issuerName)}`);
                }
                s[`h${i + 1}`] = h;
            },
        ]),
        [
            `batch: directory at https://${issuerName} gives an issuer-request-uri`,
            async () => {
                s.issuerUrl = await getIssuerUrl(issuerName);
            },
        ],
        [
            'batch: generic batch request (type 1 + type 2) answered 200 with the batch media type',
            async () => {
                s.c1 = new privateVerif.Client();
                s.c2 = new publicVerif.Client(publicVerif.BlindRSAMode.PSS);
                const r1 = await s.c1.createTokenRequest(s.h1.challenge, s.h1.tokenKey);
                const r2 = await s.c2.createTokenRequest(s.h2.challenge, s.h2.tokenKey);
                const req = new genericBatched.Client().createTokenRequest([
                    new genericBatched.TokenRequest(r1),
                    new genericBatched.TokenRequest(r2),
                ]);
                const res = await fetch(s.issuerUrl, {
                    method: 'POST',
                    headers: {
                        'Content-Type': MediaType.GENERIC_BATCHED_TOKEN_REQUEST,
                        Accept: MediaType.GENERIC_BATCHED_TOKEN_RESPONSE,
                    },
                    body: req.serialize(),
                    signal: AbortSignal.timeout(TIMEOUT_MS),
                });
                const body = new Uint8Array(await res.arrayBuffer());
                if (res.status !== 200) {
                    throw new Error(`status ${res.status}: ${Buffer.from(body).toString().slice(0, 200)}`);
                }
                const ct = res.headers.get('content-type');
                if ((ct ?? '').toLowerCase() !== MediaType.GENERIC_BATCHED_TOKEN_RESPONSE) {
                    throw new Error(`Content-Type ${JSON.stringify(ct)}`);
                }
                s.body = body;
            },
        ],
        [
            'batch: response parses with both responses present, in order',
            async () => {
                const resp = new genericBatched.Client().deserializeTokenResponse(s.body);
                const types = resp.tokenResponses.map((r) => r.tokenResponse?.tokenType ?? 'absent');
                if (types.length !== 2 || types[0] !== 1 || types[1] !== 2) {
                    throw new Error(`responses [${types.join(', ')}], want [1, 2]`);
                }
                s.resp = resp.tokenResponses;
            },
        ],
        [
            'batch: type 1 token finalized (DLEQ proof verified)',
            async () => {
                s.a1 = new AuthorizationHeader(await s.c1.finalize(s.resp[0].tokenResponse)).toString();
            },
        ],
        [
            'batch: type 2 token finalized (signature verified)',
            async () => {
                s.a2 = new AuthorizationHeader(await s.c2.finalize(s.resp[1].tokenResponse)).toString();
            },
        ],
        [`batch: ${url1}: type 1 token redeemed (200)`, async () => expectStatus(await get(url1, s.a1), 200)],
        [`batch: ${url2}: type 2 token redeemed (200)`, async () => expectStatus(await get(url2, s.a2), 200)],
        [`batch: ${url1}: replayed type 1 token refused (401)`, async () => expectStatus(await get(url1, s.a1), 401)],
        [`batch: ${url2}: replayed type 2 token refused (401)`, async () => expectStatus(await get(url2, s.a2), 401)],
    ]);
}

// Padded base64url (the auth-scheme-extensions draft and RFC 9577 ask for padding).
function b64url(bytes) {
    const s = Buffer.from(bytes).toString('base64url');
    return s + '='.repeat((4 - (s.length % 4)) % 4);
}

async function metadata(url, extHex, issuerBase) {
    const s = {};
    const extensions = Extensions.deserialize(new Uint8Array(Buffer.from(extHex, 'hex')));
    if (b64url(extensions.serialize()) !== b64url(Buffer.from(extHex, 'hex'))) {
        throw new Error(`privacypass-ts re-encodes ${extHex} differently`);
    }
    // Other extensions: the first entry's data with one more byte (or one entry if empty).
    const first = extensions.extensions[0];
    const other = new Extensions(
        first === undefined
            ? [new Extension(1, new Uint8Array([1]))]
            : [new Extension(first.extensionType, new Uint8Array([...first.extensionData, 0])), ...extensions.extensions.slice(1)],
    );
    const header = (token, ext) => `PrivateToken token="${b64url(token.serialize())}", extensions="${b64url(ext.serialize())}"`;
    await runCases([
        [
            `${url}: GET without a token answers 401 with a type 0xDA7A challenge`,
            async () => {
                const res = await get(url);
                expectStatus(res, 401);
                const h = challengesOf(res).parsed[0];
                if (h.challenge.tokenType !== 0xda7a) throw new Error(`token type ${h.challenge.tokenType}`);
                s.h = h;
            },
        ],
        [
            `${url}: ClientWithMetadata gets a token for extensions ${extHex} (ExtendedTokenRequest)`,
            async () => {
                const base = issuerBase ?? `https://${s.h.challenge.issuerName}`;
                const dirUrl = new URL(PRIVATE_TOKEN_ISSUER_DIRECTORY, base);
                const res = await fetch(dirUrl, { signal: AbortSignal.timeout(TIMEOUT_MS) });
                if (res.status !== 200) throw new Error(`directory ${dirUrl}: status ${res.status}`);
                const dir = await res.json();
                if (!dir['token-keys'].some((k) => k['token-type'] === 0xda7a)) {
                    throw new Error('the directory lists no key of type 0xDA7A (55930)');
                }
                const uri = new URL(dir['issuer-request-uri'], base);
                const client = new publicVerif.ClientWithMetadata(publicVerif.PartiallyBlindRSAMode.PSS, extensions);
                const tokReq = await client.createTokenRequest(s.h.challenge, s.h.tokenKey);
                const tokRes = client.deserializeTokenResponse(await sendTokenRequest(tokReq.serialize(), uri.href));
                s.token = await client.finalize(tokRes);
            },
        ],
        [
            `${url}: the token with other extensions is refused (401)`,
            async () => expectStatus(await get(url, header(s.token, other)), 401),
        ],
        [`${url}: token redeemed with its extensions (200)`, async () => expectStatus(await get(url, header(s.token, extensions)), 200)],
        [
            `${url}: replayed token refused (401)`,
            async () => expectStatus(await get(url, header(s.token, extensions)), 401),
        ],
    ]);
}

function usage() {
    console.error('usage: node ts-client.mjs ORIGIN_URL [ORIGIN_URL...]');
    console.error('       node ts-client.mjs --issuer-url ISSUER_BASE_URL ORIGIN_URL [ORIGIN_URL...]');
    console.error('       node ts-client.mjs --metadata EXTENSIONS_HEX [--issuer-url ISSUER_BASE_URL] ORIGIN_URL');
    console.error('       node ts-client.mjs --batch ORIGIN_URL_TYPE1 ORIGIN_URL_TYPE2 ISSUER_NAME');
    process.exit(2);
}

const args = process.argv.slice(2);
if (args.length === 0 || args.includes('-h') || args.includes('--help')) usage();
if (args[0] === '--batch') {
    if (args.length !== 4) usage();
    await batch(args[1], args[2], args[3]);
} else if (args[0] === '--metadata') {
    if (args.length === 3) await metadata(args[2], args[1]);
    else if (args.length === 5 && args[2] === '--issuer-url') await metadata(args[4], args[1], args[3]);
    else usage();
} else {
    let issuerBase;
    if (args[0] === '--issuer-url') {
        if (args.length < 3) usage();
        issuerBase = args[1];
        args.splice(0, 2);
    }
    if (args.some((a) => a.startsWith('--'))) usage();
    for (const url of args) await single(url, issuerBase);
}
out(`ts-client: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
