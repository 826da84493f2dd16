// The whole client flow from a web page against `pat issuer serve` and
// `pat origin serve` on other ports (other origins: CORS), with the pat-wasm
// API passed in (the `pat-wasm` entry or `pat-wasm/core` after init). Per
// round: GET the origin, 401, its WWW-Authenticate read (the services expose
// it) and parsed; the issuer directory fetched and the challenge's key found
// in it; the TokenRequest POSTed (a preflighted request) to the directory's
// issuer-request-uri; the response finalized; a forged token refused (401),
// the token taken (200), its replay refused (401). Times createTokenRequest
// and finalize in the page. `runArcFlow` does the same for ARC (type
// 0xE5AC): one credential per round, then the origin's whole rate limit,
// the credential and the presentation state kept in localStorage as
// exported bytes between tokens.

const sha256 = async (b) => new Uint8Array(await crypto.subtle.digest('SHA-256', b));
const hex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

function equal(actual, expected, what) {
    if (actual !== expected) throw new Error(`${what}: got ${actual}, expected ${expected}`);
}

/** Counts checks like the Node tests (harness.mjs), into `lines`. */
export class Checks {
    constructor(name) {
        this.name = name;
        this.lines = [];
        this.passed = 0;
        this.failed = 0;
    }

    log(line) {
        this.lines.push(line);
        console.log(line);
    }

    async check(desc, f) {
        try {
            await f();
            this.passed += 1;
            this.log(`ok   ${desc}`);
        } catch (e) {
            this.failed += 1;
            this.log(`FAIL ${desc}: ${e?.stack ?? e}`);
        }
    }

    result(extra = {}) {
        this.log(`${this.name}: ${this.passed} passed, ${this.failed} failed`);
        return { name: this.name, lines: this.lines, passed: this.passed, failed: this.failed, ...extra };
    }
}

/** The page's configuration, from its `config` query parameter (JSON, set by browser.mjs). */
export function config() {
    return JSON.parse(new URLSearchParams(location.search).get('config'));
}

const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length === 0 ? NaN : s[(s.length - 1) >> 1];
};

/**
 * Runs `rounds` rounds of each type in `types` through `pat`; returns the
 * medians in milliseconds: `{ [type]: { request, finalize } }`.
 */
export async function runFlow(pat, checks, cfg, types, rounds) {
    const { AuthorizationHeader, IssuerDirectory, MediaType, PRIVATE_TOKEN_ISSUER_DIRECTORY, WWWAuthenticateHeader } = pat;
    const clients = {
        1: () => new pat.privateVerif.Client(),
        2: () => new pat.publicVerif.Client(),
        5: () => new pat.privateVerif.Client(5),
    };
    const timings = {};
    for (const type of types) {
        const times = { request: [], finalize: [] };
        const origin = cfg.origins[type];
        for (let round = 1; round <= rounds; round++) {
            const s = {};
            const step = (desc, f) => checks.check(`type ${type} #${round}: ${desc}`, async () => {
                if (s.broken) throw new Error(`skipped (${s.broken})`);
                try {
                    await f();
                } catch (e) {
                    s.broken = `after: ${desc}`;
                    throw e;
                }
            });
            await step('cross-origin GET: 401, WWW-Authenticate readable and parsed', async () => {
                const r = await fetch(origin);
                equal(r.status, 401, 'status');
                const value = r.headers.get('www-authenticate');
                if (value === null) throw new Error('WWW-Authenticate not exposed to the page');
                const headers = WWWAuthenticateHeader.parse(value);
                equal(headers.length, 1, 'challenges');
                s.header = headers[0];
                equal(s.header.challenge.tokenType, type, 'challenge type');
                equal(s.header.challenge.issuerName, cfg.issuerName, 'issuer name');
            });
            await step('the issuer directory lists the challenge\'s key', async () => {
                const r = await fetch(cfg.issuerUrl + PRIVATE_TOKEN_ISSUER_DIRECTORY);
                equal(r.status, 200, 'status');
                s.directory = IssuerDirectory.parse(new Uint8Array(await r.arrayBuffer()));
                const entry = s.directory.select(type, { keyId: await sha256(s.header.tokenKey) });
                equal(hex(entry.tokenKey), hex(s.header.tokenKey), 'token key');
            });
            await step('the TokenRequest POSTed to issuer-request-uri (preflighted); the response finalized', async () => {
                const client = clients[type]();
                let t = performance.now();
                const request = client.createTokenRequest(s.header.challenge, s.header.tokenKey);
                times.request.push(performance.now() - t);
                const r = await fetch(s.directory.issuerRequestUri, {
                    method: 'POST',
                    headers: { 'Content-Type': MediaType.PRIVATE_TOKEN_REQUEST, Accept: MediaType.PRIVATE_TOKEN_RESPONSE },
                    body: request.serialize(),
                });
                equal(r.status, 200, 'status');
                equal(r.headers.get('content-type'), MediaType.PRIVATE_TOKEN_RESPONSE, 'content-type');
                const body = new Uint8Array(await r.arrayBuffer());
                t = performance.now();
                const token = client.finalize(client.deserializeTokenResponse(body));
                times.finalize.push(performance.now() - t);
                equal(token.authInput.tokenType, type, 'token type');
                equal(hex(token.authInput.challengeDigest), hex(await sha256(s.header.challenge.serialize())), 'digest');
                s.authorization = new AuthorizationHeader(token).toString();
                const forged = pat.Token.deserialize(token.serialize());
                forged.authenticator[forged.authenticator.length - 1] ^= 1;
                s.forged = new AuthorizationHeader(forged).toString();
            });
            await step('the origin refuses a forgery (401), takes the token (200), refuses its replay (401)', async () => {
                const get = (authorization) => fetch(origin, { headers: { Authorization: authorization } });
                equal((await get(s.forged)).status, 401, 'forged');
                equal((await get(s.authorization)).status, 200, 'token');
                equal((await get(s.authorization)).status, 401, 'replay');
            });
        }
        timings[type] = { request: median(times.request), finalize: median(times.finalize), rounds: times.request.length };
    }
    return timings;
}

const toBase64 = (b) => btoa(String.fromCharCode(...b));
const fromBase64 = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

/**
 * ARC (type 0xE5AC) from the page, `rounds` rounds: the challenge with its
 * rate-limit, a credential from the issuer
 * (application/private-credential-request, preflighted), then `rateLimit`
 * tokens, each from the state read back from localStorage and written back
 * after it; each taken once (200), its replay and a forgery refused (401),
 * and no token past the limit. Returns the medians in milliseconds:
 * `{ request, finalize, token }`.
 */
export async function runArcFlow(pat, checks, cfg, rounds) {
    const { AuthorizationHeader, IssuerDirectory, MediaType, PRIVATE_TOKEN_ISSUER_DIRECTORY, WWWAuthenticateHeader, arc } = pat;
    const origin = cfg.origins[arc.TOKEN_TYPE];
    const times = { request: [], finalize: [], token: [] };
    for (let round = 1; round <= rounds; round++) {
        const s = {};
        const step = (desc, f) => checks.check(`ARC #${round}: ${desc}`, async () => {
            if (s.broken) throw new Error(`skipped (${s.broken})`);
            try {
                await f();
            } catch (e) {
                s.broken = `after: ${desc}`;
                throw e;
            }
        });
        await step('cross-origin GET: 401, the ARC challenge and its rate-limit', async () => {
            const r = await fetch(origin);
            equal(r.status, 401, 'status');
            const [header] = WWWAuthenticateHeader.parse(r.headers.get('www-authenticate') ?? '');
            equal(header.challenge.tokenType, arc.TOKEN_TYPE, 'challenge type');
            equal(header.rateLimit, cfg.arcRateLimit, 'rate-limit');
            s.header = header;
        });
        await step('a credential from the issuer (preflighted POST), kept in localStorage', async () => {
            const r = await fetch(cfg.issuerUrl + PRIVATE_TOKEN_ISSUER_DIRECTORY);
            const directory = IssuerDirectory.parse(new Uint8Array(await r.arrayBuffer()));
            const entry = directory.select(arc.TOKEN_TYPE, { keyId: await sha256(s.header.tokenKey) });
            const client = new arc.Client(entry.tokenKey);
            let t = performance.now();
            const request = client.createCredentialRequest(s.header.challenge);
            times.request.push(performance.now() - t);
            const answer = await fetch(directory.issuerRequestUri, {
                method: 'POST',
                headers: {
                    'Content-Type': MediaType.PRIVATE_CREDENTIAL_REQUEST,
                    Accept: MediaType.PRIVATE_CREDENTIAL_RESPONSE,
                },
                body: request.serialize(),
            });
            equal(answer.status, 200, 'status');
            const body = new Uint8Array(await answer.arrayBuffer());
            t = performance.now();
            const credential = request.finalize(body);
            times.finalize.push(performance.now() - t);
            const state = client.presentationState(credential, s.header.challenge, s.header.rateLimit);
            localStorage.setItem('pat-arc-state', toBase64(state.export()));
            s.tokenKey = entry.tokenKey;
            for (const o of [credential, state, request, client]) o.free();
        });
        for (let i = 1; i <= cfg.arcRateLimit; i++) {
            await step(`token ${i}: forgery 401, token 200, replay 401`, async () => {
                const client = new arc.Client(s.tokenKey);
                const state = arc.PresentationState.import(fromBase64(localStorage.getItem('pat-arc-state')));
                const t = performance.now();
                const token = client.createToken(state, s.header.challenge);
                times.token.push(performance.now() - t);
                localStorage.setItem('pat-arc-state', toBase64(state.export()));
                state.free();
                client.free();
                const forged = token.serialize();
                forged[forged.length - 1] ^= 1;
                const get = (value) => fetch(origin, { headers: { Authorization: value } });
                equal((await get(new AuthorizationHeader(arc.Token.deserialize(forged)).toString())).status, 401, 'forged');
                const value = new AuthorizationHeader(token).toString();
                equal((await get(value)).status, 200, 'token');
                equal((await get(value)).status, 401, 'replay');
            });
        }
        await step('past the limit the package makes no token', async () => {
            const state = arc.PresentationState.import(fromBase64(localStorage.getItem('pat-arc-state')));
            equal(state.remaining, 0, 'remaining');
            let code;
            try {
                new arc.Client(s.tokenKey).createToken(state, s.header.challenge);
            } catch (e) {
                code = e.code;
            }
            equal(code, 'PresentationLimitReached', 'error code');
            localStorage.removeItem('pat-arc-state');
        });
    }
    return { request: median(times.request), finalize: median(times.finalize), token: median(times.token), rounds };
}
