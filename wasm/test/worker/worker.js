// A Cloudflare Worker (ES module syntax) over pat-wasm/core, run by
// workerd in worker.mjs: the `.wasm` arrives as a compiled module import,
// as on Cloudflare, and initSync() instantiates it at start-up.
//
//   GET  /token-key?type=1|5   the issuer's token key (base64url)
//   POST /token-request?type=1|5   an issuer: the TokenRequest's response
//   GET  /resource             an origin of type 2 (the token key of `pat
//                              issuer serve` in env.TYPE2_TOKEN_KEY): 401 with
//                              a challenge, 200 for a token that verifies and
//                              was not seen before by this isolate, else 401
//   GET  /arc/token-key        ARC (0xE5AC): the issuer's token key (base64url)
//   POST /arc/credential-request   the CredentialResponse
//   GET  /arc/resource         the ARC origin (the same party: ARC is
//                              privately verifiable), limit ARC_LIMIT: 401 with
//                              a challenge and its rate-limit, 200 for a token
//                              that verifies and whose replay key this isolate
//                              has not seen, else 401
//
// The issuer keys of types 1 and 5 derive from env.SEED (hex) with `pat
// issuer serve`'s info; the ARC key is drawn at start-up
// (crypto.getRandomValues).
import {
    MediaType,
    TokenChallenge,
    WWWAuthenticateHeader,
    AuthorizationHeader,
    arc,
    initSync,
    privateVerif,
    publicVerif,
} from 'pat-wasm/core';
import wasm from 'pat-wasm/pat_wasm_bg.wasm';

initSync(wasm);

const INFO = new TextEncoder().encode('pat-http issuer key');
const fromHex = (s) => new Uint8Array(s.match(/../g).map((h) => parseInt(h, 16)));
const b64url = (b) => btoa(String.fromCharCode(...b)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const fromB64url = (s) => Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));

let issuers;
let origin;
let arcParty;
const spent = new Set();
const ARC_LIMIT = 3;

function setUp(env) {
    if (issuers === undefined) {
        const seed = fromHex(env.SEED);
        issuers = { 1: privateVerif.Issuer.derive(seed, INFO, 1), 5: privateVerif.Issuer.derive(seed, INFO, 5) };
        origin = {
            key: fromB64url(env.TYPE2_TOKEN_KEY),
            challenge: new TokenChallenge(2, env.ISSUER_NAME, new Uint8Array(0), [env.ORIGIN_NAME]),
        };
        origin.verifier = new publicVerif.Origin(origin.key);
        const arcChallenge = new TokenChallenge(arc.TOKEN_TYPE, 'worker.example', crypto.getRandomValues(new Uint8Array(32)), [
            'worker.example',
        ]);
        arcParty = { issuer: arc.Issuer.generate(), challenge: arcChallenge };
    }
}

function arcChallengeResponse() {
    const { issuer, challenge } = arcParty;
    const header = new WWWAuthenticateHeader(challenge, issuer.tokenKey, 3600, undefined, undefined, ARC_LIMIT);
    return text(401, 'token required', { 'WWW-Authenticate': header.toString() });
}

const text = (status, body, headers = {}) => new Response(body, { status, headers: { 'Content-Type': 'text/plain', ...headers } });

function challengeResponse() {
    const header = new WWWAuthenticateHeader(origin.challenge, origin.key).toString();
    return text(401, 'token required', { 'WWW-Authenticate': header });
}

export default {
    async fetch(request, env) {
        setUp(env);
        const url = new URL(request.url);
        try {
            if (url.pathname === '/token-key') {
                const issuer = issuers[url.searchParams.get('type')];
                return issuer ? text(200, b64url(issuer.tokenKey)) : text(404, 'no such type');
            }
            if (url.pathname === '/token-request' && request.method === 'POST') {
                const issuer = issuers[url.searchParams.get('type')];
                if (!issuer) return text(404, 'no such type');
                if (request.headers.get('content-type') !== MediaType.PRIVATE_TOKEN_REQUEST) return text(415, 'media type');
                const response = issuer.issue(new Uint8Array(await request.arrayBuffer()));
                return new Response(response.serialize(), { headers: { 'Content-Type': MediaType.PRIVATE_TOKEN_RESPONSE } });
            }
            if (url.pathname === '/arc/token-key') return text(200, b64url(arcParty.issuer.tokenKey));
            if (url.pathname === '/arc/credential-request' && request.method === 'POST') {
                if (request.headers.get('content-type') !== MediaType.PRIVATE_CREDENTIAL_REQUEST) return text(415, 'media type');
                const response = arcParty.issuer.issue(new Uint8Array(await request.arrayBuffer()));
                return new Response(response, { headers: { 'Content-Type': MediaType.PRIVATE_CREDENTIAL_RESPONSE } });
            }
            if (url.pathname === '/arc/resource') {
                const authorization = request.headers.get('authorization');
                if (authorization === null) return arcChallengeResponse();
                const { token } = AuthorizationHeader.parse(authorization);
                const key = b64url(arcParty.issuer.verify(token, arcParty.challenge, ARC_LIMIT));
                if (spent.has(key)) return arcChallengeResponse();
                spent.add(key);
                return text(200, 'hello from the ARC worker');
            }
            if (url.pathname === '/resource') {
                const authorization = request.headers.get('authorization');
                if (authorization === null) return challengeResponse();
                const { token } = AuthorizationHeader.parse(authorization);
                origin.verifier.verify(token, origin.challenge);
                const nonce = b64url(token.authInput.nonce);
                if (spent.has(nonce)) return challengeResponse();
                spent.add(nonce);
                return text(200, 'hello from the worker');
            }
            return text(404, 'not found');
        } catch (e) {
            // A PatError (a bad request or token): refuse with its code.
            if (e?.name === 'PatError') {
                if (url.pathname === '/arc/resource') return arcChallengeResponse();
                return url.pathname === '/resource' ? challengeResponse() : text(400, e.code);
            }
            throw e;
        }
    },
};
