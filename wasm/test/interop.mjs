// Live interop on loopback: the shipped pat-wasm package as the client of
// pat's own HTTP issuer and origins (`pat issuer serve`, `pat origin serve`,
// docs/deployment.md), with the tokens checked by code that is not pat's.
//
// Usage: node interop.mjs PATH_TO_PAT_BINARY
//
// One issuer serves types 1, 2 and 5 over plain HTTP; one origin per type
// (types 1 and 5 read the issuer's state folder, type 2 its directory). For
// each type, 3 rounds of:
//   - GET the origin: 401, and the package parses its WWW-Authenticate;
//   - the package parses the issuer directory and its key choice finds the
//     challenge's token-key there;
//   - the package builds the TokenRequest, POSTs it to the directory's
//     issuer-request-uri, finalizes the response and writes Authorization;
//   - someone else verifies the token:
//       type 1: privacypass-ts (its AuthorizationHeader.parse, then
//               privateVerif.Origin.verify with the issuer's private key,
//               which voprf-ts derives from the issuer's seed file with
//               RFC 9497 DeriveKeyPair, info "pat-http issuer key", and whose
//               public key must equal the served token key);
//       type 2: privacypass-ts publicVerif.Origin.verify with the served key;
//       type 5: privacypass-ts has no type 5: voprf-ts (ristretto255-SHA512
//               over @noble/curves) with the key derived as for type 1,
//               VOPRFServer.verifyFinalize of token_input and authenticator;
//     and a token with one authenticator bit flipped must not verify;
//   - GET the origin with the Authorization value: 200; again: 401 (replay).
//
// And ARC (type 0xE5AC; the origin joined with the issuer, --rate-limit 3):
// the package parses the challenge with its rate-limit, gets one credential
// (POST application/private-credential-request to the directory's
// issuer-request-uri), keeps it and its presentation state only as
// exported bytes between tokens, and spends the limit at the origin: each
// token 200 once and 401 replayed, a forged one 401; a fourth token from
// the state is refused by the package (PresentationLimitReached). No other
// ARC implementation exists in JavaScript: pat's origin (native code, the
// issuer's key) is the check of the package's tokens.
//
// Prints one line per check and `interop-wasm: N passed, M failed`.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';

import {
    AuthorizationHeader as TsAuthorizationHeader,
    TOKEN_TYPES as TS_TOKEN_TYPES,
    privateVerif as tsPrivate,
    publicVerif as tsPublic,
} from '@cloudflare/privacypass-ts';
import { Oprf, VOPRFServer, deriveKeyPair } from '@cloudflare/voprf-ts';
import { CryptoNoble } from '@cloudflare/voprf-ts/crypto-noble';

import { Checks, hex, importFrom, shippedDir } from './harness.mjs';
import { ARC_RATE_LIMIT, cleanup, startPat } from './services.mjs';

const patBin = process.argv[2];
if (!patBin) {
    console.error('usage: node interop.mjs PATH_TO_PAT_BINARY');
    process.exit(2);
}

const pat = await importFrom(shippedDir);
const { AuthorizationHeader, IssuerDirectory, MediaType, PRIVATE_TOKEN_ISSUER_DIRECTORY, WWWAuthenticateHeader } = pat;
const checks = new Checks('interop-wasm');
const ROUNDS = 3;
const DERIVE_INFO = new TextEncoder().encode('pat-http issuer key');

const sha256 = async (b) => new Uint8Array(await crypto.subtle.digest('SHA-256', b));

// ---- services ---------------------------------------------------------------

const { issuerName: issuer, issuerUrl, state, origins } = await startPat(patBin, [1, 2, 5, 0xe5ac]);

/** The issuer's VOPRF key of `type`, derived from its seed file as `pat issuer serve` does, by voprf-ts. */
async function derivedKey(type) {
    const manifest = JSON.parse(readFileSync(path.join(state, 'keys.json'), 'utf8'));
    const records = manifest.keys.filter((k) => k.token_type === type);
    assert.equal(records.length, 1, `one key of type ${type} in keys.json`);
    const seed = new Uint8Array(Buffer.from(readFileSync(path.join(state, records[0].file), 'utf8').trim(), 'hex'));
    assert.equal(seed.length, 32, 'a 32-byte seed');
    const suite = type === 1 ? Oprf.Suite.P384_SHA384 : Oprf.Suite.RISTRETTO255_SHA512;
    const provider = type === 1 ? [] : [CryptoNoble];
    const pair = await deriveKeyPair(Oprf.Mode.VOPRF, suite, seed, DERIVE_INFO, ...provider);
    return { ...pair, server: new VOPRFServer(suite, pair.privateKey, ...provider) };
}

/** Independent verification of a token: true, or false when it does not verify. */
const verifiers = {
    1: async (key, token, authorization) => {
        const [theirs] = TsAuthorizationHeader.parse(TS_TOKEN_TYPES.VOPRF, authorization);
        return new tsPrivate.Origin().verify(theirs.token, key.privateKey);
    },
    2: async (key, token, authorization) => {
        const [theirs] = TsAuthorizationHeader.parse(TS_TOKEN_TYPES.BLIND_RSA, authorization);
        return new tsPublic.Origin(tsPublic.BlindRSAMode.PSS).verify(theirs.token, key);
    },
    5: async (key, token) => key.server.verifyFinalize(token.authInput.serialize(), token.authenticator),
};

const clients = {
    1: () => new pat.privateVerif.Client(),
    2: () => new pat.publicVerif.Client(),
    5: () => new pat.privateVerif.Client(5),
};

// ---- rounds -----------------------------------------------------------------

for (const type of [1, 2, 5]) {
    let key;
    for (let round = 1; round <= ROUNDS; round++) {
        const s = {};
        const label = `type ${type} #${round}`;
        const step = (desc, f) => checks.check(`${label}: ${desc}`, async () => {
            if (s.broken) throw new Error(`skipped (${s.broken})`);
            try {
                await f();
            } catch (e) {
                s.broken = `after: ${desc}`;
                throw e;
            }
        });

        await step('origin answers 401 with a PrivateToken challenge the package parses', async () => {
            const r = await fetch(origins[type]);
            assert.equal(r.status, 401);
            const headers = WWWAuthenticateHeader.parse(r.headers.get('www-authenticate'));
            assert.equal(headers.length, 1);
            s.header = headers[0];
            assert.equal(s.header.challenge.tokenType, type);
            assert.equal(s.header.challenge.issuerName, issuer);
            assert.ok(s.header.tokenKey instanceof Uint8Array);
        });
        await step('the directory lists the challenge\'s key (IssuerDirectory.select by key id)', async () => {
            const r = await fetch(issuerUrl + PRIVATE_TOKEN_ISSUER_DIRECTORY);
            assert.equal(r.status, 200);
            s.directory = IssuerDirectory.parse(new Uint8Array(await r.arrayBuffer()));
            const entry = s.directory.select(type, { keyId: await sha256(s.header.tokenKey) });
            assert.equal(hex(entry.tokenKey), hex(s.header.tokenKey));
            assert.equal(entry.tokenType, type);
        });
        await step('the issuer answers the package\'s TokenRequest; the package finalizes it', async () => {
            s.client = clients[type]();
            const request = s.client.createTokenRequest(s.header.challenge, s.header.tokenKey);
            const r = await fetch(s.directory.issuerRequestUri, {
                method: 'POST',
                headers: { 'Content-Type': MediaType.PRIVATE_TOKEN_REQUEST, Accept: MediaType.PRIVATE_TOKEN_RESPONSE },
                body: request.serialize(),
            });
            assert.equal(r.status, 200, await r.clone().text());
            assert.equal(r.headers.get('content-type'), MediaType.PRIVATE_TOKEN_RESPONSE);
            const response = s.client.deserializeTokenResponse(new Uint8Array(await r.arrayBuffer()));
            s.token = s.client.finalize(response);
            s.authorization = new AuthorizationHeader(s.token).toString();
            assert.equal(s.token.authInput.tokenType, type);
            assert.equal(hex(s.token.authInput.challengeDigest), hex(await sha256(s.header.challenge.serialize())));
        });
        const who = type === 5 ? 'voprf-ts' : 'privacypass-ts';
        await step(`${who} verifies the token (and refuses it with a flipped bit)`, async () => {
            if (key === undefined) {
                if (type === 2) {
                    const spki = tsPublic.convertRSASSAPSSToEnc(s.header.tokenKey);
                    const alg = { name: 'RSA-PSS', hash: 'SHA-384' };
                    key = await crypto.subtle.importKey('spki', spki, alg, true, ['verify']);
                } else {
                    key = await derivedKey(type);
                    // voprf-ts's derivation of the seed gives the key the issuer serves.
                    assert.equal(hex(key.publicKey), hex(s.header.tokenKey), 'derived public key');
                }
            }
            assert.equal(await verifiers[type](key, s.token, s.authorization), true);
            const forged = pat.Token.deserialize(s.token.serialize());
            forged.authenticator[forged.authenticator.length - 1] ^= 1;
            s.forged = new AuthorizationHeader(forged).toString();
            assert.equal(await verifiers[type](key, forged, s.forged), false);
        });
        await step('the origin takes the token once (200), refuses the replay and the forgery (401)', async () => {
            const get = (authorization) => fetch(origins[type], { headers: { Authorization: authorization } });
            assert.equal((await get(s.forged)).status, 401);
            assert.equal((await get(s.authorization)).status, 200);
            assert.equal((await get(s.authorization)).status, 401);
        });
    }
}

// ---- ARC (type 0xE5AC) -------------------------------------------------------

{
    const s = {};
    const step = (desc, f) => checks.check(`ARC: ${desc}`, async () => {
        if (s.broken) throw new Error(`skipped (${s.broken})`);
        try {
            await f();
        } catch (e) {
            s.broken = `after: ${desc}`;
            throw e;
        }
    });
    const origin = origins[0xe5ac];

    await step('origin answers 401 with an ARC challenge and its rate-limit', async () => {
        const r = await fetch(origin);
        assert.equal(r.status, 401);
        const [header] = WWWAuthenticateHeader.parse(r.headers.get('www-authenticate'));
        assert.equal(header.challenge.tokenType, pat.arc.TOKEN_TYPE);
        assert.equal(header.challenge.issuerName, issuer);
        assert.equal(header.rateLimit, ARC_RATE_LIMIT);
        assert.equal(header.challenge.credentialContext.length, 0);
        assert.equal(header.tokenKey.length, 99);
        s.header = header;
    });
    await step('the issuer answers the credential request; the credential is kept as bytes', async () => {
        const r = await fetch(issuerUrl + PRIVATE_TOKEN_ISSUER_DIRECTORY);
        const directory = IssuerDirectory.parse(new Uint8Array(await r.arrayBuffer()));
        const entry = directory.select(pat.arc.TOKEN_TYPE, { keyId: await sha256(s.header.tokenKey) });
        const client = new pat.arc.Client(entry.tokenKey);
        const request = client.createCredentialRequest(s.header.challenge);
        const answer = await fetch(directory.issuerRequestUri, {
            method: 'POST',
            headers: {
                'Content-Type': MediaType.PRIVATE_CREDENTIAL_REQUEST,
                Accept: MediaType.PRIVATE_CREDENTIAL_RESPONSE,
            },
            body: request.serialize(),
        });
        assert.equal(answer.status, 200, await answer.clone().text());
        assert.equal(answer.headers.get('content-type'), MediaType.PRIVATE_CREDENTIAL_RESPONSE);
        const credential = request.finalize(new Uint8Array(await answer.arrayBuffer()));
        const state = client.presentationState(credential, s.header.challenge, s.header.rateLimit);
        s.saved = state.export();
        s.tokenKey = entry.tokenKey;
        for (const o of [credential, state, request, client]) o.free();
    });
    for (let i = 1; i <= ARC_RATE_LIMIT; i++) {
        await step(`token ${i} of ${ARC_RATE_LIMIT}: 200 once, the replay and a forgery 401`, async () => {
            // A fresh client and the state from bytes, as a page reloaded between tokens.
            const client = new pat.arc.Client(s.tokenKey);
            const state = pat.arc.PresentationState.import(s.saved);
            assert.equal(state.remaining, ARC_RATE_LIMIT - i + 1);
            const token = client.createToken(state, s.header.challenge);
            s.saved = state.export();
            state.free();
            client.free();
            const authorization = new AuthorizationHeader(token).toString();
            const forged = token.serialize();
            forged[forged.length - 1] ^= 1;
            const get = (value) => fetch(origin, { headers: { Authorization: value } });
            assert.equal((await get(new AuthorizationHeader(pat.arc.Token.deserialize(forged)).toString())).status, 401);
            assert.equal((await get(authorization)).status, 200);
            assert.equal((await get(authorization)).status, 401);
        });
    }
    await step('the state is used up: the package makes no further token', async () => {
        const client = new pat.arc.Client(s.tokenKey);
        const state = pat.arc.PresentationState.import(s.saved);
        assert.equal(state.remaining, 0);
        assert.throws(() => client.createToken(state, s.header.challenge), (e) => e.code === 'PresentationLimitReached');
    });
}

checks.finish();
cleanup();
process.exit();
