// A small TypeScript consumer of pat-wasm's index.d.ts (and of
// pat-wasm/core's loading functions): scripts/wasm runs
// `tsc --noEmit` on it (with "pat-wasm" resolved through a link to the built
// package in node_modules and its package.json exports), so the
// declared types must be usable as a privacypass-ts user would write them.
// Type-checked only, never run.

import {
    AuthorizationHeader,
    IssuerDirectory,
    MediaType,
    TOKEN_TYPES,
    type PatError,
    type Token,
    TokenChallenge,
    WWWAuthenticateHeader,
    decodeExtensions,
    encodeExtensionSet,
    encodeExtensions,
    type ExtensionEntry,
    act,
    arc,
    athm,
    genericBatched,
    privateVerif,
    publicVerif,
} from 'pat-wasm';
import { init, initSync, type InitInput } from 'pat-wasm/core';

/** The client of a challenge's type, or null for a type this package has none for. */
function clientFor(tokenType: number): privateVerif.Client | publicVerif.Client | null {
    switch (tokenType) {
        case TOKEN_TYPES.VOPRF.value:
            return new privateVerif.Client();
        case TOKEN_TYPES.VOPRF_RISTRETTO255.value:
            return new privateVerif.Client(0x0005);
        case TOKEN_TYPES.BLIND_RSA.value:
            return new publicVerif.Client(publicVerif.BlindRSAMode.PSS);
        default:
            return null;
    }
}

/** fetchToken's steps: challenge, directory, request, response, Authorization value. */
export async function redeem(url: string, directoryUrl: string): Promise<Response> {
    const first = await fetch(url);
    const header = WWWAuthenticateHeader.parse(first.headers.get('WWW-Authenticate') ?? '')[0];
    if (header === undefined) return first;
    const challenge: TokenChallenge = header.challenge;
    const client = clientFor(challenge.tokenType);
    if (client === null) return first;

    const directory = IssuerDirectory.parse(await (await fetch(directoryUrl)).text());
    const tokenKey = header.tokenKey ?? directory.select(challenge.tokenType).tokenKey;
    if (tokenKey === undefined) throw new Error('no usable token key');

    const request = client.createTokenRequest(challenge, tokenKey);
    const answer = await fetch(directory.issuerRequestUri, {
        method: 'POST',
        headers: { 'Content-Type': MediaType.PRIVATE_TOKEN_REQUEST, Accept: MediaType.PRIVATE_TOKEN_RESPONSE },
        body: request.serialize(),
    });
    let token: Token;
    try {
        token = client.finalize(client.deserializeTokenResponse(new Uint8Array(await answer.arrayBuffer())));
    } catch (e) {
        const error = e as PatError;
        if (error.code === 'Verification') throw new Error(`the issuer's answer does not verify: ${error.message}`);
        throw e;
    }
    const nonce: Uint8Array = token.authInput.nonce;
    void nonce;
    return fetch(url, { headers: { Authorization: new AuthorizationHeader(token).toString() } });
}

// Responses built from their fields, and the header writer.
const response = new privateVerif.TokenResponse(new Uint8Array(32), new Uint8Array(64), 0x0005);
const same: privateVerif.TokenResponse = privateVerif.TokenResponse.deserialize(response.serialize(), 0x0005);
const rsa: publicVerif.TokenResponse = new publicVerif.TokenResponse(new Uint8Array(256));
const value: string = new WWWAuthenticateHeader(new TokenChallenge(2, 'issuer.example', new Uint8Array(32)), undefined, 60).toString();
// A challenge that negotiates extensions (auth-scheme-extensions-03 §4).
const negotiating = new WWWAuthenticateHeader(
    new TokenChallenge(2, 'issuer.example', new Uint8Array(32)),
    undefined,
    60,
    encodeExtensionSet([2], [1]),
);
const required: number[] = negotiating.requiredExtensions;
const suggested: Uint8Array | undefined = negotiating.extensions;
export const used = [same, rsa, value, required, suggested];

// pat-wasm/core: the caller loads the module (a Worker's imported module, or bytes, or a URL).
export function load(module: WebAssembly.Module): void {
    initSync(module);
}
export async function loadFrom(source: InitInput): Promise<void> {
    await init(source);
    await init(fetch(new URL('https://example.com/pat_wasm_bg.wasm')));
}

// The services' side: an issuer of type 5 and an origin of type 2.
export function serve(seed: Uint8Array, request: Uint8Array, token: Token, challenge: TokenChallenge, spki: Uint8Array): Uint8Array {
    const issuer: privateVerif.Issuer = privateVerif.Issuer.derive(seed, new TextEncoder().encode('pat-http issuer key'), 0x0005);
    const response: privateVerif.TokenResponse = issuer.issue(request);
    issuer.verify(token, challenge);
    const key: Uint8Array = issuer.tokenKey;
    issuer.free();
    new publicVerif.Origin(spki).verify(token.serialize(), challenge);
    return key.length > 0 ? response.serialize() : new Uint8Array(0);
}

// Type 0xDA7A: a client whose tokens carry public metadata, and its origin.
export function metadata(challenge: TokenChallenge, spki: Uint8Array, response: Uint8Array): string {
    const extensions: Uint8Array = encodeExtensions([{ type: 1, data: new Uint8Array([1]) }]);
    const entries: ExtensionEntry[] = decodeExtensions(extensions);
    const client = new publicVerif.ClientWithMetadata(publicVerif.BlindRSAMode.PSS, extensions);
    const request: publicVerif.ExtendedTokenRequest = client.createTokenRequest(challenge, spki);
    const token: Token = client.finalize(response);
    new publicVerif.OriginWithMetadata(spki).verify(token, challenge, entries.length > 0 ? extensions : request.extensions);
    const header = new AuthorizationHeader(token, extensions);
    const sent: Uint8Array | undefined = AuthorizationHeader.parse(header.toString()).extensions;
    return sent === undefined ? '' : header.toString();
}

// Type 0xDA7B: a client whose tokens carry public metadata on a POPRF, and
// its issuer (also its origin), from a seed, from skS or fresh.
export function poprfMetadata(challenge: TokenChallenge, seed: Uint8Array, skS: Uint8Array): string {
    const entry: typeof TOKEN_TYPES.PRIVATE_METADATA = TOKEN_TYPES.PRIVATE_METADATA;
    const code: 0xda7b = entry.value;
    const extensions: Uint8Array = encodeExtensions([{ type: 1, data: new Uint8Array([1]) }]);
    const issuer: privateVerif.IssuerWithMetadata = privateVerif.IssuerWithMetadata.derive(seed);
    const same: privateVerif.IssuerWithMetadata = privateVerif.IssuerWithMetadata.fromSecretKey(skS);
    const fresh = privateVerif.IssuerWithMetadata.generate();
    const kind: 0xda7b = issuer.tokenType;
    const client = new privateVerif.ClientWithMetadata(extensions);
    const request: privateVerif.ExtendedTokenRequest = client.createTokenRequest(challenge, issuer.tokenKey);
    const carried: Uint8Array = request.extensions;
    const response: privateVerif.TokenResponse = issuer.issue(request);
    const parsed: privateVerif.TokenResponse = client.deserializeTokenResponse(response.serialize());
    const again = privateVerif.TokenResponse.deserialize(parsed.serialize(), 0xda7b);
    const token: Token = client.finalize(again);
    same.verify(token, challenge, carried);
    const header = new AuthorizationHeader(token, client.extensions);
    const received = AuthorizationHeader.parse(header.toString());
    if (received.extensions !== undefined) issuer.verify(received.token, challenge, received.extensions);
    const keyId: Uint8Array = fresh.keyId;
    issuer.free();
    same.free();
    fresh.free();
    return code === kind && keyId.length > 0 ? header.toString() : '';
}

// ARC (type 0xE5AC): a credential once, then tokens from a state kept as bytes.
export async function arcToken(url: string, issuerUri: string, saved: Uint8Array | undefined): Promise<Uint8Array> {
    const first = await fetch(url);
    const header = WWWAuthenticateHeader.parse(first.headers.get('WWW-Authenticate') ?? '')[0];
    if (header === undefined || header.challenge.tokenType !== arc.TOKEN_TYPE) throw new Error('no ARC challenge');
    const limit: number | bigint | undefined = header.rateLimit;
    const context: Uint8Array | undefined = header.challenge.credentialContext;
    if (limit === undefined || header.tokenKey === undefined || context === undefined) throw new Error('no limit or key');
    const client = new arc.Client(header.tokenKey);
    let state: arc.PresentationState;
    if (saved === undefined) {
        const request: arc.CredentialRequest = client.createCredentialRequest(header.challenge);
        const answer = await fetch(issuerUri, {
            method: 'POST',
            headers: { 'Content-Type': MediaType.PRIVATE_CREDENTIAL_REQUEST, Accept: MediaType.PRIVATE_CREDENTIAL_RESPONSE },
            body: request.serialize(),
        });
        const credential: arc.Credential = request.finalize(new Uint8Array(await answer.arrayBuffer()));
        state = client.presentationState(credential, header.challenge, limit);
        credential.free();
    } else {
        state = arc.PresentationState.import(saved);
    }
    const remaining: number | bigint = state.remaining;
    const token: arc.Token = client.createToken(state, header.challenge);
    const next: Uint8Array = state.export();
    state.free();
    const value = new AuthorizationHeader(token).toString();
    await fetch(url, { headers: { Authorization: value } });
    const issuer: arc.Issuer = arc.Issuer.generate();
    const replayKey: Uint8Array = issuer.verify(token, header.challenge, limit);
    issuer.free();
    const nonce: number = token.presentationNonce;
    return remaining === 0 || nonce < 0 ? replayKey : next;
}

// ACT (type 0xE5AD): a credential of credits kept as bytes, a spend, the
// origin's check and refund, the next credential kept as bytes.
export function actSpend(challenge: TokenChallenge, saved: Uint8Array | undefined, cost: number | bigint): Uint8Array {
    const code: 0xe5ad = act.TOKEN_TYPE;
    const bits: act.Bits = act.BITS[1];
    const issuer: act.Issuer = act.Issuer.generate('ACT-v1:example:api:production:2026-01-01', bits);
    const client = new act.Client(issuer.tokenKey, new TextEncoder().encode('ACT-v1:example:api:production:2026-01-01'), bits);
    let credential: act.Credential;
    if (saved === undefined) {
        const request: act.CredentialRequest = client.createCredentialRequest(challenge);
        const state: Uint8Array = request.exportState();
        const response: Uint8Array = issuer.issue(request, 100, challenge);
        credential = client.finalizeExported(state, response);
    } else {
        credential = act.Credential.import(saved);
    }
    const before: number | bigint = credential.credits;
    const spend: act.Spend = client.spend(credential, challenge, cost);
    const token: act.Token = spend.token;
    const header = new AuthorizationHeader(token).toString();
    const received = AuthorizationHeader.parse(header).token;
    const verified: act.Verified = issuer.verify(received, challenge, cost, 1n);
    const nullifier: Uint8Array = verified.nullifier;
    const refundState: Uint8Array = spend.exportState();
    const next: act.Credential =
        nullifier.length === 32 ? spend.refund(verified.refund) : client.refundExported(refundState, token, verified.refund);
    const out: Uint8Array = next.export();
    for (const o of [issuer, client, credential, spend, next]) o.free();
    return received instanceof act.Token && code === received.tokenType && before !== 0 ? out : token.spendProof;
}

// Batches: an amortized batch of type 1 from one issuer, kept as bytes,
// and a generic batch of types 1 and 2 (absent entries are null).
export async function batches(c1: TokenChallenge, c2: TokenChallenge, issuerUri: string, key2: Uint8Array): Promise<number> {
    const issuer: privateVerif.Issuer = privateVerif.Issuer.generate(TOKEN_TYPES.VOPRF.value);
    const client = new privateVerif.Client();
    const batch: privateVerif.BatchTokenRequest = client.createBatchTokenRequest(c1, issuer.tokenKey, 4);
    const count: number = batch.count;
    const state: Uint8Array = batch.exportState();
    const response: Uint8Array = issuer.issueBatch(batch);
    const tokens: Token[] = client.finalizeBatch(response);
    const again: Token[] = new privateVerif.Client().finalizeBatchExported(state, issuer.tokenKey, response);
    const generic = new genericBatched.Client();
    const entries: genericBatched.Entry[] = [
        { challenge: c1, tokenKey: issuer.tokenKey },
        { challenge: c2, tokenKey: key2 },
    ];
    const request: genericBatched.BatchedTokenRequest = generic.createTokenRequest(entries);
    const saved: Uint8Array = request.exportState();
    const answer = await fetch(issuerUri, {
        method: 'POST',
        headers: { 'Content-Type': MediaType.GENERIC_BATCHED_TOKEN_REQUEST, Accept: MediaType.GENERIC_BATCHED_TOKEN_RESPONSE },
        body: request.serialize(),
    });
    const body = new Uint8Array(await answer.arrayBuffer());
    const issued: (Token | null)[] = generic.finalize(body);
    const restored: (Token | null)[] = generic.finalizeExported(saved, [{ tokenType: 1, tokenKey: issuer.tokenKey }, entries[1]!], body);
    issuer.free();
    const kinds: number[] = request.tokenTypes;
    return count + tokens.length + again.length + issued.filter((t) => t !== null).length + restored.length + kinds.length;
}

// ATHM (type 0xC07E): a token requested before any challenge, its state
// kept as bytes, the hidden value read back by the issuer.
export function athmToken(deploymentId: string, saved: Uint8Array | undefined): number {
    const code: 0xc07e = athm.TOKEN_TYPE;
    const buckets: 4 = athm.BUCKETS;
    const issuer: athm.Issuer = athm.Issuer.generate(deploymentId);
    const client = new athm.Client(issuer.tokenKey, deploymentId);
    const request: athm.TokenRequest = client.createTokenRequest();
    const state: Uint8Array = saved ?? request.exportState();
    const response: Uint8Array = issuer.issue(request, buckets - 1);
    const token: athm.Token = saved === undefined ? request.finalize(response) : client.finalizeExported(state, response);
    const received = AuthorizationHeader.parse(new AuthorizationHeader(token).toString()).token;
    const verified: athm.Verified = issuer.verify(received);
    const replayKey: Uint8Array = verified.nonce;
    for (const o of [issuer, client, request]) o.free();
    return received instanceof athm.Token && received.tokenType === code && replayKey.length === 32 ? verified.metadata : -1;
}
