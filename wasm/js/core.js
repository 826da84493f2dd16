// pat-wasm: the client roles of pat (Privacy Pass, RFC 9576/9577/9578) as
// an ES module over the wasm-bindgen output `pat_wasm.js`. Token types
// 0x0001 (VOPRF P-384), 0x0002 (blind RSA 2048), 0x0005 (VOPRF
// ristretto255), 0xDA7A (public metadata, blind RSA), 0xDA7B (public
// metadata, POPRF P-384), 0xE5AC (ARC, the `arc` namespace), 0xE5AD
// (ACT, the `act` namespace) and 0xC07E (ATHM, the `athm` namespace), and
// amortized and generic batches. Names
// follow @cloudflare/privacypass-ts where the concept is the same; every
// method is synchronous. See docs/wasm.md.
//
// This is the entry `pat-wasm/core`: the API without loading. It imports
// nothing but the wasm-bindgen glue (no `node:` module, no fetch at import),
// for bundlers and runtimes that bring the WebAssembly themselves (Cloudflare
// Workers: `initSync(module)`). Until `init` or `initSync` succeeds, every
// call that needs the WebAssembly throws a PatError with code
// "NotInitialized". The entry `pat-wasm` (index.js) loads it at import.

import initWasm, { initSync as initWasmSync } from './pat_wasm.js';
import * as wasmExports from './pat_wasm.js';

// The loading state belongs to the glue, whose `wasm` instance it describes:
// two copies of this file over one glue (a second bundle chunk, an import
// with a query string) share it, so that neither instantiates the module a
// second time under the other's objects.
const states = (globalThis[Symbol.for('pat-wasm.loading')] ??= new WeakMap());
if (!states.has(initWasm)) states.set(initWasm, { ready: false, loading: undefined });
const state = states.get(initWasm);

/**
 * Instantiates the WebAssembly from `source`: a URL (browsers, workers;
 * Node's fetch cannot read file: URLs, so Node callers pass bytes or a
 * module), a Response (or a promise of one), the bytes or a
 * WebAssembly.Module; without one, `pat_wasm_bg.wasm` next to this file is
 * fetched. A call after a success does nothing; a call while one is pending
 * waits for it. After a failure the module stays uninitialized and init may
 * be called again.
 */
export function init(source) {
    if (state.ready) return Promise.resolve();
    state.loading ??= initWasm(source === undefined ? undefined : { module_or_path: source }).then(
        () => {
            state.ready = true;
        },
        (e) => {
            state.loading = undefined;
            throw e;
        },
    );
    return state.loading;
}

/**
 * Instantiates the WebAssembly synchronously from bytes or a
 * WebAssembly.Module. A call after a success does nothing; a call while
 * init() is pending throws (the module would be instantiated twice).
 */
export function initSync(module) {
    if (state.ready) return;
    if (state.loading !== undefined) {
        throw patError('InitPending', 'init() is pending: await it instead of calling initSync()');
    }
    initWasmSync({ module });
    state.ready = true;
}

/** The wasm-bindgen exports, once instantiated. */
function raw() {
    if (!state.ready) {
        throw patError('NotInitialized', 'pat-wasm is not initialized: call init() or initSync() of pat-wasm/core first');
    }
    return wasmExports;
}

// ---- helpers ----------------------------------------------------------------

const utf8 = new TextEncoder();
// Names are opaque bytes on the wire: shown as UTF-8, invalid sequences as U+FFFD.
const text = new TextDecoder('utf-8', { fatal: false });

/** The errors this module throws itself (the library's come from the wasm side). */
function patError(code, message) {
    const e = new Error(message);
    e.name = 'PatError';
    e.code = code;
    return e;
}

/**
 * A plain Uint8Array copy of `bytes` over its own ArrayBuffer: on a Node
 * Buffer, `.slice()` is a view of the same memory (often Node's shared
 * pool), which the caller may reuse, and even `Uint8Array.prototype.slice`
 * makes a Buffer again (its species).
 */
function copy(bytes) {
    return new Uint8Array(bytes);
}

function bytesArg(value, what) {
    if (!(value instanceof Uint8Array)) throw new TypeError(`${what} must be a Uint8Array`);
    return value;
}

function stringArg(value, what) {
    if (typeof value !== 'string') throw new TypeError(`${what} must be a string`);
    return value;
}

function intArg(value, max, what) {
    if (!Number.isInteger(value) || value < 0 || value > max) {
        throw new RangeError(`${what} must be an integer in 0..${max}`);
    }
    return value;
}

/** Calls f(obj), then frees the wasm-bindgen object. */
function using(obj, f) {
    try {
        return f(obj);
    } finally {
        obj.free();
    }
}

// ---- registry ---------------------------------------------------------------

/** The token types this package has clients for (RFC 9578 §8.2.1 and the batched-tokens draft). */
export const TOKEN_TYPES = Object.freeze({
    VOPRF: Object.freeze({ value: 0x0001, name: 'VOPRF (P-384, SHA-384)', Nk: 48, Nid: 32, publicVerifiable: false }),
    BLIND_RSA: Object.freeze({ value: 0x0002, name: 'Blind RSA (2048)', Nk: 256, Nid: 32, publicVerifiable: true }),
    VOPRF_RISTRETTO255: Object.freeze({
        value: 0x0005,
        name: 'VOPRF (ristretto255, SHA-512)',
        Nk: 64,
        Nid: 32,
        publicVerifiable: false,
    }),
    PUBLIC_METADATA: Object.freeze({
        value: 0xda7a,
        name: 'Partially Blind RSA (2048-bit)',
        Nk: 256,
        Nid: 32,
        publicVerifiable: true,
    }),
    PRIVATE_METADATA: Object.freeze({
        value: 0xda7b,
        name: 'POPRF (P-384, SHA-384)',
        Nk: 48,
        Nid: 32,
        publicVerifiable: false,
    }),
});

/** Media types of RFC 9578 §4 and §8. */
export const MediaType = Object.freeze({
    PRIVATE_TOKEN_ISSUER_DIRECTORY: 'application/private-token-issuer-directory',
    PRIVATE_TOKEN_REQUEST: 'application/private-token-request',
    PRIVATE_TOKEN_RESPONSE: 'application/private-token-response',
    /** ARC (type 0xE5AC): the CredentialRequest's media type (draft-ietf-privacypass-arc-protocol-01 §7). */
    PRIVATE_CREDENTIAL_REQUEST: 'application/private-credential-request',
    PRIVATE_CREDENTIAL_RESPONSE: 'application/private-credential-response',
    /** Amortized batches of types 0x0001 and 0x0005 (draft-ietf-privacypass-batched-tokens §5). */
    AMORTIZED_BATCHED_TOKEN_REQUEST: 'application/private-token-amortized-batch-request',
    AMORTIZED_BATCHED_TOKEN_RESPONSE: 'application/private-token-amortized-batch-response',
    /** Generic batches (§6); privacypass-ts's names. */
    GENERIC_BATCHED_TOKEN_REQUEST: 'application/private-token-generic-batch-request',
    GENERIC_BATCHED_TOKEN_RESPONSE: 'application/private-token-generic-batch-response',
});

/** Where an issuer publishes its directory (RFC 9578 §4). */
export const PRIVATE_TOKEN_ISSUER_DIRECTORY = '/.well-known/private-token-issuer-directory';

// ---- TokenChallenge ---------------------------------------------------------

// The encoding each challenge was built from or received as: the token
// binds SHA-256 of exactly these bytes.
const challengeBytes = new WeakMap();

function challengeFrom(bytes) {
    return using(raw().decodeChallenge(bytes), (p) =>
        challengeFromParts(copy(bytes), p.tokenType, p.issuerName, p.redemptionContext, p.originInfo, p.credentialContext),
    );
}

// A TokenChallenge object from its encoding (kept, not copied) and its
// decoded fields (names still UTF-8 bytes); `credentialContext` only for
// types 0xE5AC (ARC) and 0xE5AD (ACT), whose challenges have that field.
function challengeFromParts(bytes, tokenType, issuerName, redemptionContext, originInfo, credentialContext) {
    const c = Object.create(TokenChallenge.prototype);
    const origins = text.decode(originInfo);
    Object.defineProperties(c, {
        tokenType: { value: tokenType, enumerable: true },
        issuerName: { value: text.decode(issuerName), enumerable: true },
        redemptionContext: { value: redemptionContext, enumerable: true },
        originInfo: { value: origins === '' ? undefined : origins.split(','), enumerable: true },
    });
    if (credentialContext !== undefined) {
        Object.defineProperty(c, 'credentialContext', { value: credentialContext, enumerable: true });
    }
    challengeBytes.set(c, bytes);
    return c;
}

/**
 * TokenChallenge (RFC 9577 §2.1.1); for types 0xE5AC (ARC) and 0xE5AD (ACT)
 * with the `credentialContext` (empty or 32 bytes; empty by default), which
 * no other type has.
 */
export class TokenChallenge {
    constructor(tokenType, issuerName, redemptionContext, originInfo, credentialContext) {
        if (originInfo !== undefined && !Array.isArray(originInfo)) {
            throw new TypeError('originInfo must be an array of strings or undefined');
        }
        const bytes = raw().encodeChallenge(
            intArg(tokenType, 0xffff, 'tokenType'),
            utf8.encode(stringArg(issuerName, 'issuerName')),
            bytesArg(redemptionContext, 'redemptionContext'),
            utf8.encode((originInfo ?? []).map((o) => stringArg(o, 'originInfo item')).join(',')),
            credentialContext === undefined ? undefined : bytesArg(credentialContext, 'credentialContext'),
        );
        return challengeFrom(bytes);
    }

    static deserialize(bytes) {
        return challengeFrom(bytesArg(bytes, 'bytes'));
    }

    serialize() {
        return challengeBytes.get(this).slice();
    }
}

function challengeArg(value) {
    let bytes = challengeBytes.get(value);
    // privacypass-ts's TokenChallenge (or any object with serialize()):
    // taken through its encoding, parsed as strictly as a received one.
    if (bytes === undefined && value !== null && typeof value === 'object' && typeof value.serialize === 'function') {
        bytes = challengeBytes.get(challengeFrom(bytesArg(value.serialize(), 'challenge.serialize()')));
    }
    if (bytes === undefined) throw new TypeError('challenge must be a TokenChallenge (or have serialize())');
    return bytes;
}

// ---- tokens -----------------------------------------------------------------

/** The token_input of a token (RFC 9577 §2.2, RFC 9578 §5.4 and §6.4). */
export class AuthenticatorInput {
    constructor(tokenType, nonce, challengeDigest, tokenKeyId) {
        this.tokenType = tokenType;
        this.nonce = nonce;
        this.challengeDigest = challengeDigest;
        this.tokenKeyId = tokenKeyId;
    }

    serialize() {
        const out = new Uint8Array(2 + 32 + 32 + 32);
        out[0] = this.tokenType >> 8;
        out[1] = this.tokenType & 0xff;
        out.set(this.nonce, 2);
        out.set(this.challengeDigest, 34);
        out.set(this.tokenKeyId, 66);
        return out;
    }
}

/** A token (RFC 9577 §2.2) of any type pat knows. */
export class Token {
    constructor(authInput, authenticator) {
        this.authInput = authInput;
        this.authenticator = authenticator;
    }

    static deserialize(bytes) {
        return using(raw().decodeToken(bytesArg(bytes, 'bytes')), (p) => {
            const input = new AuthenticatorInput(p.tokenType, p.nonce, p.challengeDigest, p.tokenKeyId);
            return new Token(input, p.authenticator);
        });
    }

    serialize() {
        const input = this.authInput.serialize();
        const out = new Uint8Array(input.length + this.authenticator.length);
        out.set(input);
        out.set(this.authenticator, input.length);
        return out;
    }
}

// ---- HTTP authentication scheme (RFC 9577 §2.1–§2.2) ------------------------

/**
 * The encoding of an ExtensionSet (draft-ietf-privacypass-auth-scheme-extensions-03
 * §4) listing the extension types `required` as required, then `optional`:
 * the value of a challenge's `extensionSet`.
 */
export function encodeExtensionSet(required, optional = []) {
    const types = (list, what) => {
        if (!Array.isArray(list)) throw new TypeError(`${what} must be an array of extension types`);
        return Uint16Array.from(list, (t) => intArg(t, 0xffff, `${what} item`));
    };
    return raw().encodeExtensionSet(types(required, 'required'), types(optional, 'optional'));
}

/** The types of an encoded ExtensionSet: `{ required, optional }`, arrays of numbers. */
function extensionSetTypes(bytes) {
    if (bytes === undefined) return { required: [], optional: [] };
    return using(raw().decodeExtensionSet(bytesArg(bytes, 'extensionSet')), (p) => ({
        required: Array.from(p.required),
        optional: Array.from(p.optional),
    }));
}

/** A u64 or u128 from the module as a number when it is exact, else as a BigInt. */
function uintOut(value) {
    return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

/** A u64 argument: a non-negative integer number or BigInt. */
function u64Arg(value, what) {
    if (typeof value === 'bigint' && value >= 0n && value < 1n << 64n) return value;
    if (Number.isSafeInteger(value) && value >= 0) return BigInt(value);
    throw new RangeError(`${what} must be a non-negative integer (a number or a BigInt below 2^64)`);
}

/** A u128 argument (ACT's credits): a non-negative integer number or BigInt. */
function u128Arg(value, what) {
    if (typeof value === 'bigint' && value >= 0n && value < 1n << 128n) return value;
    if (Number.isSafeInteger(value) && value >= 0) return BigInt(value);
    throw new RangeError(`${what} must be a non-negative integer (a number or a BigInt below 2^128)`);
}

/**
 * One `PrivateToken` challenge of a `WWW-Authenticate` value. `extensionSet`
 * and `extensions` are the extension negotiation of
 * draft-ietf-privacypass-auth-scheme-extensions-03 §4: the encoded
 * ExtensionSet of the types the origin asks for, and an encoded Extensions
 * list it suggests; undefined when absent. `rateLimit` is an ARC
 * challenge's presentation limit (type 0xE5AC, its `rate-limit`
 * parameter), undefined on every other type's.
 */
export class WWWAuthenticateHeader {
    constructor(challenge, tokenKey, maxAge, extensionSet, extensions, rateLimit) {
        this.challenge = challenge;
        this.tokenKey = tokenKey;
        this.maxAge = maxAge;
        this.extensionSet = extensionSet;
        this.extensions = extensions;
        this.rateLimit = rateLimit;
    }

    /** The extension types `extensionSet` requires, in its order (empty without one). */
    get requiredExtensions() {
        return extensionSetTypes(this.extensionSet).required;
    }

    /** The extension types `extensionSet` lists as optional, in its order. */
    get optionalExtensions() {
        return extensionSetTypes(this.extensionSet).optional;
    }

    /**
     * Every well-formed PrivateToken challenge of a WWW-Authenticate value,
     * in order; other schemes are skipped, and so is a malformed
     * PrivateToken challenge when another one is usable. When none is, the
     * first one's error is thrown.
     */
    static parse(header) {
        // One call: the challenges come back packed in one byte string
        // (wasm/src/auth.rs, `challenges_packed`), read here field by field.
        const packed = raw().parseWwwAuthenticatePacked(stringArg(header, 'header'));
        const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
        let at = 0;
        const u32 = () => {
            const v = view.getUint32(at);
            at += 4;
            return v;
        };
        const field = () => {
            const n = u32();
            const b = packed.slice(at, at + n);
            at += n;
            return b;
        };
        const optional = () => (packed[at++] === 1 ? field() : undefined);
        const out = [];
        for (let count = u32(); count > 0; count--) {
            const bytes = field();
            const tokenType = view.getUint16(at);
            at += 2;
            const issuerName = field();
            const redemptionContext = field();
            const originInfo = field();
            const credentialContext = optional();
            const challenge = challengeFromParts(
                bytes,
                tokenType,
                issuerName,
                redemptionContext,
                originInfo,
                credentialContext,
            );
            const tokenKey = optional();
            const maxAge = packed[at++] === 1 ? u32() : undefined;
            const extensionSet = optional();
            const extensions = optional();
            let rateLimit;
            if (packed[at++] === 1) {
                rateLimit = uintOut(view.getBigUint64(at));
                at += 8;
            }
            out.push(new WWWAuthenticateHeader(challenge, tokenKey, maxAge, extensionSet, extensions, rateLimit));
        }
        return out;
    }

    /**
     * `PrivateToken challenge="…", token-key="…", max-age="…",
     * extension-set="…", extensions="…"` (each optional one when set),
     * padded base64url; an ARC challenge's ends with `rate-limit=N`
     * (required there, refused elsewhere and beside extensions).
     */
    toString() {
        return raw().writeWwwAuthenticate(
            challengeArg(this.challenge),
            this.tokenKey === undefined ? undefined : bytesArg(this.tokenKey, 'tokenKey'),
            this.maxAge === undefined ? undefined : intArg(this.maxAge, 0xffffffff, 'maxAge'),
            this.extensionSet === undefined ? undefined : bytesArg(this.extensionSet, 'extensionSet'),
            this.extensions === undefined ? undefined : bytesArg(this.extensions, 'extensions'),
            this.rateLimit === undefined ? undefined : u64Arg(this.rateLimit, 'rateLimit'),
        );
    }
}

/**
 * An Extensions list (draft-ietf-privacypass-auth-scheme-extensions §3;
 * the metadata of types 0xDA7A and 0xDA7B), encoded from `[{ type, data }]`
 * in the given order, which must be ascending by type ("UnsortedExtensions").
 */
export function encodeExtensions(list) {
    if (!Array.isArray(list)) throw new TypeError('extensions must be an array of { type, data }');
    const entries = list.map((e, i) => ({
        type: intArg(e?.type, 0xffff, `extensions[${i}].type`),
        data: bytesArg(e?.data, `extensions[${i}].data`),
    }));
    const total = entries.reduce((n, e) => n + 4 + e.data.length, 0);
    if (total > 0xffff) throw patError('InvalidLength', 'extensions longer than 65535 bytes');
    for (const e of entries) {
        if (e.data.length > 0xffff) throw patError('InvalidLength', 'an extension longer than 65535 bytes');
    }
    const out = new Uint8Array(2 + total);
    const view = new DataView(out.buffer);
    view.setUint16(0, total);
    let at = 2;
    for (const e of entries) {
        view.setUint16(at, e.type);
        view.setUint16(at + 2, e.data.length);
        out.set(e.data, at + 4);
        at += 4 + e.data.length;
    }
    raw().checkExtensions(out);
    return out;
}

/** The entries `[{ type, data }]` of an encoded Extensions list, checked strictly first. */
export function decodeExtensions(bytes) {
    raw().checkExtensions(bytesArg(bytes, 'extensions'));
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const out = [];
    for (let at = 2; at < bytes.length; ) {
        const length = view.getUint16(at + 2);
        out.push({ type: view.getUint16(at), data: copy(bytes.subarray(at + 4, at + 4 + length)) });
        at += 4 + length;
    }
    return out;
}

/** An encoded Extensions list from bytes or anything with serialize() (privacypass-ts's Extensions). */
function extensionsArg(extensions, what = 'extensions') {
    const bytes = extensions instanceof Uint8Array ? extensions : bytesArg(extensions?.serialize?.(), `${what}.serialize()`);
    raw().checkExtensions(bytes);
    return copy(bytes);
}

/**
 * The `Authorization: PrivateToken token="…"` credentials (RFC 9577 §2.2),
 * with the `extensions` sent along with the token when it has them
 * (draft-ietf-privacypass-auth-scheme-extensions §3; the metadata of
 * types 0xDA7A and 0xDA7B, an encoded Extensions list).
 */
export class AuthorizationHeader {
    constructor(token, extensions) {
        this.token = token;
        this.extensions = extensions === undefined ? undefined : extensionsArg(extensions);
    }

    /**
     * Parses the header; an ARC token (type 0xE5AC) becomes an `arc.Token`,
     * an ACT token (0xE5AD) an `act.Token`, an ATHM token (0xC07E) an `athm.Token`.
     */
    static parse(header) {
        return using(raw().parseAuthorizationParts(stringArg(header, 'header')), (p) => {
            let token;
            if (isArcToken(p.token)) token = arc.Token.deserialize(p.token);
            else if (isActToken(p.token)) token = act.Token.deserialize(p.token);
            else if (isAthmToken(p.token)) token = athm.Token.deserialize(p.token);
            else token = Token.deserialize(p.token);
            return new AuthorizationHeader(token, p.extensions);
        });
    }

    /** `PrivateToken token="<padded base64url>"`, then `, extensions="…"` when there are extensions. */
    toString() {
        const token = this.token.serialize();
        return this.extensions === undefined
            ? raw().writeAuthorization(token)
            : raw().writeAuthorizationWithExtensions(token, this.extensions);
    }
}

// ---- issuer directory (RFC 9578 §4) -----------------------------------------

function entryOf(e) {
    return using(e, (e) => ({
        tokenType: e.tokenType,
        tokenKey: e.tokenKey,
        tokenKeyBase64: e.tokenKeyBase64,
        keyId: e.keyId,
        notBefore: e.notBefore,
    }));
}

/** An issuer directory document, parsed. */
export class IssuerDirectory {
    #raw;

    constructor(directory) {
        this.#raw = directory;
        this.issuerRequestUri = directory.issuerRequestUri;
        this.tokenKeys = directory.tokenKeys.map(entryOf);
    }

    /** Parses the JSON text (a string or its UTF-8 bytes). */
    static parse(json) {
        const bytes = typeof json === 'string' ? utf8.encode(json) : bytesArg(json, 'json');
        return new IssuerDirectory(raw().IssuerDirectory.parse(bytes));
    }

    /**
     * The key to use for `tokenType`: the one with `keyId` (SHA-256 of the
     * token key) if given, else the newest whose not-before has passed at
     * `now` (UNIX seconds, default: the current time).
     */
    select(tokenType, { keyId, now } = {}) {
        if (keyId !== undefined && !(keyId instanceof Uint8Array && keyId.length === 32)) {
            throw new TypeError('keyId must be a Uint8Array of 32 bytes');
        }
        const when = now ?? Date.now() / 1000;
        if (typeof when !== 'number') throw new TypeError('now must be a number of seconds');
        return entryOf(this.#raw.select(intArg(tokenType, 0xffff, 'tokenType'), keyId, when));
    }
}

// ---- clients ----------------------------------------------------------------

function responseBytes(tokRes) {
    return tokRes instanceof Uint8Array ? tokRes : bytesArg(tokRes?.serialize?.(), 'tokenResponse.serialize()');
}

// Each client's request in flight (one at a time), a wasm-bindgen object
// whose secrets stay in the module's memory until it is finalized or freed.
const pending = new WeakMap();

function startRequest(client, RawClient, challenge, tokenKey) {
    const bytes = challengeArg(challenge);
    const rawClient = new RawClient(bytesArg(tokenKey, 'issuerPublicKey'));
    try {
        const request = rawClient.request(bytes);
        pending.get(client)?.free();
        pending.set(client, request);
        return request.bytes;
    } finally {
        rawClient.free();
    }
}

/** A token's bytes: a Token (or anything with serialize()) or the bytes themselves. */
function tokenBytes(token) {
    return token instanceof Uint8Array ? token : bytesArg(token?.serialize?.(), 'token.serialize()');
}

// Only the static factories below may construct an Issuer.
const internal = Symbol('pat-wasm internal');

// Each privateVerif client's amortized batch in flight (one at a time).
const pendingBatch = new WeakMap();

/** The module's array of encoded tokens (one Uint8Array each), as Token objects. */
function tokenObjects(array) {
    return Array.from(array, (t) => Token.deserialize(t));
}

function finishRequest(client, tokRes) {
    const request = pending.get(client);
    if (request === undefined) throw patError('NoTokenRequest', 'finalize called before createTokenRequest');
    return Token.deserialize(request.finalize(responseBytes(tokRes)));
}

/**
 * A TokenRequest class over the library's encoded request (type, truncated
 * key id, blinded message). Each namespace gets its own class, as in
 * privacypass-ts, so `instanceof` tells a type-2 request from a VOPRF one.
 */
function tokenRequestClass() {
    return class TokenRequest {
        #bytes;

        constructor(bytes) {
            this.#bytes = copy(bytes);
            this.tokenType = (bytes[0] << 8) | bytes[1];
            this.truncatedTokenKeyId = bytes[2];
            this.blindedMsg = this.#bytes.slice(3);
        }

        serialize() {
            return this.#bytes.slice();
        }
    };
}

/**
 * Namespace of the privately verifiable types 0x0001 and 0x0005
 * (privacypass-ts: privateVerif), and 0xDA7B (public metadata on
 * POPRF(P-384, SHA-384): `ClientWithMetadata`, `IssuerWithMetadata`).
 */
function makePrivateVerif() {
    const sizes = new Map([
        [TOKEN_TYPES.VOPRF.value, { Ne: 49, raw: () => raw().P384Client, issuer: () => raw().P384Issuer }],
        [
            TOKEN_TYPES.VOPRF_RISTRETTO255.value,
            { Ne: 32, raw: () => raw().Ristretto255Client, issuer: () => raw().Ristretto255Issuer },
        ],
    ]);
    const suite = (tokenType) => {
        const s = Number.isInteger(tokenType) ? sizes.get(tokenType) : undefined;
        if (s === undefined) throw new RangeError('tokenType must be 0x0001 or 0x0005');
        return s;
    };
    // A TokenResponse of type 0xDA7B has type 0x0001's layout.
    const DA7B = TOKEN_TYPES.PRIVATE_METADATA.value;
    const responseSuite = (tokenType) =>
        tokenType === DA7B ? { Ne: 49, raw: () => raw().PoprfClient } : suite(tokenType);

    const TokenRequest = tokenRequestClass();

    /**
     * An amortized batch request in flight (draft-ietf-privacypass-batched-tokens
     * §5.1): its bytes, and the state (every token's blind, secret) that
     * finalizes it.
     */
    class BatchTokenRequest {
        #bytes;
        #raw;

        constructor(key, rawBatch, tokenType) {
            if (key !== internal) throw new TypeError('use Client.createBatchTokenRequest');
            this.#raw = rawBatch;
            this.#bytes = rawBatch.bytes;
            this.tokenType = tokenType;
            this.truncatedTokenKeyId = this.#bytes[2];
            this.count = rawBatch.count;
        }

        /** The encoded AmortizedBatchTokenRequest (POST as MediaType.AMORTIZED_BATCHED_TOKEN_REQUEST). */
        serialize() {
            return this.#bytes.slice();
        }

        /** The state as bytes (secret), for Client.finalizeBatchExported; "StateSpent" after finalize. */
        exportState() {
            return this.#live().exportState();
        }

        /** Wipes the batch's secrets in the module's memory. */
        free() {
            this.#raw?.free();
            this.#raw = undefined;
        }

        #live() {
            if (this.#raw === undefined) throw patError('Freed', 'this BatchTokenRequest was freed');
            return this.#raw;
        }

        /** The tokens from the issuer's response (bytes, or anything with serialize()); see Client.finalizeBatch. */
        finalize(response) {
            return tokenObjects(this.#live().finalize(responseBytes(response)));
        }
    }

    class TokenResponse {
        #bytes;

        constructor(evaluateMsg, evaluateProof, tokenType = TOKEN_TYPES.VOPRF.value) {
            bytesArg(evaluateMsg, 'evaluateMsg');
            bytesArg(evaluateProof, 'evaluateProof');
            const bytes = new Uint8Array(evaluateMsg.length + evaluateProof.length);
            bytes.set(evaluateMsg);
            bytes.set(evaluateProof, evaluateMsg.length);
            responseSuite(tokenType).raw().checkResponse(bytes);
            this.#bytes = bytes;
            this.tokenType = tokenType;
            this.evaluateMsg = copy(evaluateMsg);
            this.evaluateProof = copy(evaluateProof);
        }

        static deserialize(bytes, tokenType = TOKEN_TYPES.VOPRF.value) {
            const { Ne } = responseSuite(tokenType);
            bytesArg(bytes, 'bytes');
            return new TokenResponse(bytes.subarray(0, Ne), bytes.subarray(Ne), tokenType);
        }

        serialize() {
            return this.#bytes.slice();
        }
    }

    class Client {
        #tokenType;

        /** A client of type 0x0001 (default) or 0x0005. */
        constructor(tokenType = TOKEN_TYPES.VOPRF.value) {
            suite(tokenType);
            this.#tokenType = tokenType;
        }

        get tokenType() {
            return this.#tokenType;
        }

        createTokenRequest(tokChl, issuerPublicKey) {
            return new TokenRequest(startRequest(this, suite(this.#tokenType).raw(), tokChl, issuerPublicKey));
        }

        deserializeTokenResponse(bytes) {
            return TokenResponse.deserialize(bytes, this.#tokenType);
        }

        finalize(tokRes) {
            return finishRequest(this, tokRes);
        }

        /**
         * An amortized batch request of `count` tokens (1 to 16) for one
         * challenge and key (draft-ietf-privacypass-batched-tokens §5.1);
         * the client keeps it until finalizeBatch (one batch in flight).
         */
        createBatchTokenRequest(tokChl, issuerPublicKey, count) {
            const bytes = challengeArg(tokChl);
            const client = new (suite(this.#tokenType).raw())(bytesArg(issuerPublicKey, 'issuerPublicKey'));
            try {
                const batch = new BatchTokenRequest(internal, client.requestBatch(bytes, intArg(count, 0xffff, 'count')), this.#tokenType);
                pendingBatch.get(this)?.free();
                pendingBatch.set(this, batch);
                return batch;
            } finally {
                client.free();
            }
        }

        /**
         * The batch's tokens, in request order, from the issuer's
         * AmortizedBatchTokenResponse (bytes, or anything with serialize());
         * the batched proof is checked ("Verification", the batch still
         * usable); "StateSpent" after a success.
         */
        finalizeBatch(response) {
            const batch = pendingBatch.get(this);
            if (batch === undefined) throw patError('NoTokenRequest', 'finalizeBatch called before createBatchTokenRequest');
            return batch.finalize(response);
        }

        /** The tokens of a batch from its exportState() (zeroed on success), the issuer's key and its response. */
        finalizeBatchExported(state, issuerPublicKey, response) {
            const client = new (suite(this.#tokenType).raw())(bytesArg(issuerPublicKey, 'issuerPublicKey'));
            try {
                const tokens = client.finalizeBatchExported(bytesArg(state, 'state'), responseBytes(response));
                state.fill(0);
                return tokenObjects(tokens);
            } finally {
                client.free();
            }
        }
    }

    /**
     * The issuer of one type, which is also its origin (the key is secret):
     * evaluates TokenRequests and verifies redeemed tokens. The key stays in
     * the module's memory; free() wipes it.
     */
    class Issuer {
        #raw;
        #tokenType;

        constructor(key, rawIssuer, tokenType) {
            if (key !== internal) throw new TypeError('use Issuer.derive or Issuer.generate');
            this.#raw = rawIssuer;
            this.#tokenType = tokenType;
        }

        /** The key of RFC 9497 DeriveKeyPair(seed, info); `pat issuer serve` uses info "pat-http issuer key". */
        static derive(seed, info, tokenType = TOKEN_TYPES.VOPRF.value) {
            const RawIssuer = suite(tokenType).issuer();
            return new Issuer(internal, RawIssuer.derive(bytesArg(seed, 'seed'), bytesArg(info, 'info')), tokenType);
        }

        /** A fresh key from crypto.getRandomValues. */
        static generate(tokenType = TOKEN_TYPES.VOPRF.value) {
            return new Issuer(internal, suite(tokenType).issuer().generate(), tokenType);
        }

        get tokenType() {
            return this.#tokenType;
        }

        /** The token key to publish. */
        get tokenKey() {
            return this.#live().tokenKey;
        }

        get keyId() {
            return this.#live().keyId;
        }

        /** The TokenResponse to a TokenRequest (or its bytes). */
        issue(tokReq) {
            const bytes = tokReq instanceof Uint8Array ? tokReq : bytesArg(tokReq?.serialize?.(), 'tokenRequest.serialize()');
            return TokenResponse.deserialize(this.#live().evaluate(bytes), this.#tokenType);
        }

        /**
         * The AmortizedBatchTokenResponse's bytes for an amortized batch
         * request (or its bytes) of up to 16 tokens, with one batched proof.
         */
        issueBatch(request) {
            const bytes = request instanceof Uint8Array ? request : bytesArg(request?.serialize?.(), 'request.serialize()');
            return this.#live().evaluateBatch(bytes);
        }

        /**
         * Checks a redeemed token against the challenge it answers: returns
         * nothing, or throws a PatError ("Verification", "KeyIdMismatch",
         * "ChallengeMismatch", "WrongTokenType", a parse error).
         */
        verify(token, tokChl) {
            this.#live().verify(tokenBytes(token), challengeArg(tokChl));
        }

        /** Wipes the key; the issuer is unusable afterwards. */
        free() {
            this.#raw?.free();
            this.#raw = undefined;
        }

        #live() {
            if (this.#raw === undefined) throw patError('Freed', 'this Issuer was freed');
            return this.#raw;
        }
    }

    /**
     * The request of a client with metadata: the type-0x0001 layout with
     * type 0xDA7B, followed by the extensions it is for.
     */
    class ExtendedTokenRequest {
        #bytes;

        constructor(bytes, extensions) {
            this.#bytes = copy(bytes);
            this.tokenType = (bytes[0] << 8) | bytes[1];
            this.truncatedTokenKeyId = bytes[2];
            this.blindedMsg = this.#bytes.slice(3, 3 + 49);
            this.extensions = copy(extensions);
        }

        serialize() {
            return this.#bytes.slice();
        }
    }

    /**
     * A client of type 0xDA7B (public metadata on POPRF(P-384, SHA-384)):
     * every token it requests carries `extensions` (an encoded Extensions
     * list, or privacypass-ts's Extensions), which the issuer evaluates
     * into it and needs again to verify it.
     */
    class ClientWithMetadata {
        #extensions;
        #pending;

        constructor(extensions) {
            this.#extensions = extensionsArg(extensions);
        }

        get tokenType() {
            return DA7B;
        }

        /** The encoded extensions of this client's tokens. */
        get extensions() {
            return this.#extensions.slice();
        }

        createTokenRequest(tokChl, issuerPublicKey) {
            const bytes = challengeArg(tokChl);
            const client = new (raw().PoprfClient)(bytesArg(issuerPublicKey, 'issuerPublicKey'));
            try {
                const request = client.request(bytes, this.#extensions);
                this.#pending?.free();
                this.#pending = request;
                return new ExtendedTokenRequest(request.bytes, this.#extensions);
            } finally {
                client.free();
            }
        }

        deserializeTokenResponse(bytes) {
            return TokenResponse.deserialize(bytesArg(bytes, 'bytes'), DA7B);
        }

        /** Checks the DLEQ proof under the key tweaked by the extensions and unblinds; "Verification" if it fails. */
        finalize(tokRes) {
            if (this.#pending === undefined) throw patError('NoTokenRequest', 'finalize called before createTokenRequest');
            return Token.deserialize(this.#pending.finalize(this.#extensions, responseBytes(tokRes)));
        }
    }

    /**
     * The issuer of type 0xDA7B, which is also its origin (the key is
     * secret): evaluates ExtendedTokenRequests under the key tweaked by
     * their extensions and verifies redeemed tokens with the extensions
     * sent with them. Whether extensions are acceptable is the caller's
     * policy. The key stays in the module's memory; free() wipes it.
     */
    class IssuerWithMetadata {
        #raw;

        constructor(key, rawIssuer) {
            if (key !== internal) throw new TypeError('use IssuerWithMetadata.derive, .generate or .fromSecretKey');
            this.#raw = rawIssuer;
        }

        /** The key of DeriveKeyPair(seed, "PrivacyPass-TypeDA7B") in the POPRF mode (seed: 48 random bytes). */
        static derive(seed) {
            return new IssuerWithMetadata(internal, raw().PoprfIssuer.derive(bytesArg(seed, 'seed')));
        }

        /** A fresh key from crypto.getRandomValues. */
        static generate() {
            return new IssuerWithMetadata(internal, raw().PoprfIssuer.generate());
        }

        /** The 48-byte secret scalar skS. */
        static fromSecretKey(bytes) {
            return new IssuerWithMetadata(internal, raw().PoprfIssuer.fromSecretKey(bytesArg(bytes, 'bytes')));
        }

        get tokenType() {
            return DA7B;
        }

        /** The token key to publish (the serialized P-384 public key, 49 bytes). */
        get tokenKey() {
            return this.#live().tokenKey;
        }

        get keyId() {
            return this.#live().keyId;
        }

        /** The TokenResponse to an ExtendedTokenRequest (or its bytes), under the key tweaked by its extensions. */
        issue(tokReq) {
            const bytes = tokReq instanceof Uint8Array ? tokReq : bytesArg(tokReq?.serialize?.(), 'tokenRequest.serialize()');
            return TokenResponse.deserialize(this.#live().evaluate(bytes), DA7B);
        }

        /**
         * Checks a redeemed token against the challenge it answers and the
         * extensions sent with it (an AuthorizationHeader's `extensions`):
         * returns nothing, or throws a PatError ("Verification" also for
         * other extensions than the issued ones, "KeyIdMismatch",
         * "ChallengeMismatch", "WrongTokenType", a parse error).
         */
        verify(token, tokChl, extensions) {
            this.#live().verify(tokenBytes(token), challengeArg(tokChl), extensionsArg(extensions));
        }

        /** Wipes the key; the issuer is unusable afterwards. */
        free() {
            this.#raw?.free();
            this.#raw = undefined;
        }

        #live() {
            if (this.#raw === undefined) throw patError('Freed', 'this IssuerWithMetadata was freed');
            return this.#raw;
        }
    }

    return Object.freeze({
        BatchTokenRequest,
        Client,
        ClientWithMetadata,
        ExtendedTokenRequest,
        Issuer,
        IssuerWithMetadata,
        TokenRequest,
        TokenResponse,
    });
}

/** Namespace of the publicly verifiable type 0x0002 (privacypass-ts: publicVerif). */
function makePublicVerif() {
    // RFC 9578 §6: RSABSSA-SHA384-PSS-Deterministic, salt of 48 bytes.
    const BlindRSAMode = Object.freeze({ PSS: 48 });

    const TokenRequest = tokenRequestClass();

    class TokenResponse {
        constructor(blindSig) {
            raw().BlindRsaClient.checkResponse(bytesArg(blindSig, 'blindSig'));
            this.tokenType = TOKEN_TYPES.BLIND_RSA.value;
            this.blindSig = copy(blindSig);
        }

        static deserialize(bytes) {
            return new TokenResponse(bytes);
        }

        serialize() {
            return this.blindSig.slice();
        }
    }

    class Client {
        /** A client of type 0x0002; `mode` must be BlindRSAMode.PSS (the default). */
        constructor(mode = BlindRSAMode.PSS) {
            if (mode !== BlindRSAMode.PSS) {
                throw new RangeError('token type 0x0002 is RSABSSA-SHA384-PSS-Deterministic: mode must be BlindRSAMode.PSS');
            }
        }

        createTokenRequest(tokChl, issuerPublicKey) {
            return new TokenRequest(startRequest(this, raw().BlindRsaClient, tokChl, issuerPublicKey));
        }

        deserializeTokenResponse(bytes) {
            return TokenResponse.deserialize(bytes);
        }

        finalize(tokRes) {
            return finishRequest(this, tokRes);
        }
    }

    /**
     * The request of a client with metadata: the type-0x0002 layout with
     * type 0xDA7A, followed by the extensions it is for.
     */
    class ExtendedTokenRequest {
        #bytes;

        constructor(bytes, extensions) {
            this.#bytes = copy(bytes);
            this.tokenType = (bytes[0] << 8) | bytes[1];
            this.truncatedTokenKeyId = bytes[2];
            this.blindedMsg = this.#bytes.slice(3, 3 + 256);
            this.extensions = copy(extensions);
        }

        serialize() {
            return this.#bytes.slice();
        }
    }

    /**
     * A client of type 0xDA7A (public metadata): every token it requests
     * carries `extensions` (an encoded Extensions list, or privacypass-ts's
     * Extensions), which the issuer signs into it and the origin needs to
     * verify it.
     */
    class ClientWithMetadata {
        #extensions;
        #pending;

        constructor(mode = BlindRSAMode.PSS, extensions) {
            if (mode !== BlindRSAMode.PSS) {
                throw new RangeError('token type 0xDA7A is RSAPBSSA-SHA384-PSS-Deterministic: mode must be BlindRSAMode.PSS');
            }
            this.#extensions = extensionsArg(extensions);
        }

        /** The encoded extensions of this client's tokens. */
        get extensions() {
            return this.#extensions.slice();
        }

        createTokenRequest(tokChl, issuerPublicKey) {
            const bytes = challengeArg(tokChl);
            const client = new (raw().MetadataClient)(bytesArg(issuerPublicKey, 'issuerPublicKey'));
            try {
                const request = client.request(bytes, this.#extensions);
                this.#pending?.free();
                this.#pending = request;
                return new ExtendedTokenRequest(request.bytes, this.#extensions);
            } finally {
                client.free();
            }
        }

        deserializeTokenResponse(bytes) {
            raw().MetadataClient.checkResponse(bytesArg(bytes, 'bytes'));
            return TokenResponse.deserialize(bytes);
        }

        /** Unblinds and verifies under the key derived for the extensions; "Verification" if it does not verify. */
        finalize(tokRes) {
            if (this.#pending === undefined) throw patError('NoTokenRequest', 'finalize called before createTokenRequest');
            return Token.deserialize(this.#pending.finalize(this.#extensions, responseBytes(tokRes)));
        }
    }

    /** The origin of type 0xDA7A: verifies tokens with the issuer's token key and their extensions. */
    class OriginWithMetadata {
        #raw;

        /** `tokenKey`: the issuer's RSASSA-PSS SubjectPublicKeyInfo (the directory's token-key). */
        constructor(tokenKey) {
            this.#raw = new (raw().MetadataOrigin)(bytesArg(tokenKey, 'tokenKey'));
        }

        /**
         * Checks a redeemed token against the challenge it answers and the
         * extensions sent with it (an AuthorizationHeader's `extensions`):
         * returns nothing, or throws a PatError ("Verification" also for
         * other extensions than the issued ones, "KeyIdMismatch",
         * "ChallengeMismatch", "WrongTokenType", a parse error).
         */
        verify(token, tokChl, extensions) {
            this.#raw.verify(tokenBytes(token), challengeArg(tokChl), extensionsArg(extensions));
        }
    }

    /** The origin of type 0x0002: verifies tokens with the issuer's token key. */
    class Origin {
        #raw;

        /** `tokenKey`: the issuer's RSASSA-PSS SubjectPublicKeyInfo (the directory's token-key). */
        constructor(tokenKey) {
            this.#raw = new (raw().BlindRsaOrigin)(bytesArg(tokenKey, 'tokenKey'));
        }

        get keyId() {
            return this.#raw.keyId;
        }

        /**
         * Checks a redeemed token against the challenge it answers: returns
         * nothing, or throws a PatError ("Verification", "KeyIdMismatch",
         * "ChallengeMismatch", "WrongTokenType", a parse error).
         */
        verify(token, tokChl) {
            this.#raw.verify(tokenBytes(token), challengeArg(tokChl));
        }
    }

    return Object.freeze({
        BlindRSAMode,
        Client,
        ClientWithMetadata,
        ExtendedTokenRequest,
        Origin,
        OriginWithMetadata,
        TokenRequest,
        TokenResponse,
    });
}

export const privateVerif = makePrivateVerif();
export const publicVerif = makePublicVerif();

// ---- the credential families (ARC, ACT) --------------------------------------

/**
 * The base class of a namespace's objects over a wasm-bindgen object
 * holding secrets, and `live(obj)`, that object or a "Freed" error. Only
 * the namespace's factories construct them (the `internal` key).
 */
function heldClasses(namespace) {
    // Each object's wasm-bindgen object, out of the callers' reach.
    const held = new WeakMap();
    const live = (obj) => {
        const r = held.get(obj);
        if (r === undefined) throw patError('Freed', `this ${obj.constructor.name} was freed`);
        return r;
    };

    /** Wraps a wasm-bindgen object; free() wipes it, later use throws "Freed". */
    class Held {
        constructor(key, rawObject) {
            if (key !== internal) throw new TypeError(`use the factories of ${namespace} to make a ${new.target.name}`);
            held.set(this, rawObject);
        }

        /** Wipes the secrets in the module's memory; the object is unusable afterwards. */
        free() {
            held.get(this)?.free();
            held.delete(this);
        }
    }

    return { Held, live };
}

// ---- ARC (token type 0xE5AC) ------------------------------------------------

const ARC_TYPE = 0xe5ac;
// type ‖ presentation_nonce ‖ challenge_digest ‖ issuer_key_id.
const ARC_TOKEN_HEADER = 2 + 4 + 32 + 32;

function isArcToken(bytes) {
    return bytes.length >= 2 && ((bytes[0] << 8) | bytes[1]) === ARC_TYPE;
}

/** An ARC presentation limit: 2 to 2^32, as the module takes it (a BigInt). */
function limitArg(limit) {
    const v = u64Arg(limit, 'limit');
    if (v < 2n || v > 1n << 32n) throw new RangeError('limit must be from 2 to 2^32');
    return v;
}

/**
 * Namespace of token type 0xE5AC, ARC(P-256) (draft-ietf-privacypass-arc-protocol-01):
 * a client gets one credential from the issuer, then makes up to `limit`
 * unlinkable tokens per presentation context (issuer, origin_info,
 * redemption_context) from it. The credential and the states are secret;
 * each exports as bytes to be kept between runs, and free() wipes the
 * module's copy.
 */
function makeArc() {
    const { Held, live } = heldClasses('arc');

    /** A credential (secret): the result of one issuance. */
    class Credential extends Held {
        /** The credential as bytes (secret), for Credential.import. */
        export() {
            return live(this).export();
        }

        static import(bytes) {
            return new Credential(internal, raw().ArcCredential.import(bytesArg(bytes, 'bytes')));
        }
    }

    /**
     * The presentation state of one credential for one presentation context
     * (secret): its nonce counter keeps the tokens unlinkable. Keep it (or
     * its export) after every token; a state restored from an older copy
     * repeats nonces, which links tokens and makes the origin refuse them.
     */
    class PresentationState extends Held {
        /** How many tokens are left. */
        get remaining() {
            return uintOut(live(this).remaining);
        }

        get limit() {
            return uintOut(live(this).limit);
        }

        /** The state as bytes (secret), for PresentationState.import; export again after every token. */
        export() {
            return live(this).export();
        }

        static import(bytes) {
            return new PresentationState(internal, raw().ArcPresentationState.import(bytesArg(bytes, 'bytes')));
        }
    }

    /** A credential request in flight: its bytes, and the state that finalizes it. */
    class CredentialRequest extends Held {
        #bytes;

        constructor(key, rawRequest) {
            super(key, rawRequest);
            this.#bytes = rawRequest.bytes;
            this.tokenType = ARC_TYPE;
            this.truncatedTokenKeyId = this.#bytes[2];
        }

        /** The encoded CredentialRequest (the body of the POST to the issuer). */
        serialize() {
            return this.#bytes.slice();
        }

        /** The request state as bytes (secret), for Client.finalizeExported; "StateSpent" after finalize. */
        exportState() {
            return live(this).exportState();
        }

        /**
         * The credential from the issuer's CredentialResponse (its proof
         * checked); a failure leaves the request as it was, a success wipes
         * its state ("StateSpent" after).
         */
        finalize(response) {
            return new Credential(internal, live(this).finalize(bytesArg(response, 'response')));
        }
    }

    /** An ARC token: type ‖ presentation_nonce ‖ challenge_digest ‖ issuer_key_id ‖ presentation. */
    class Token {
        #bytes;

        constructor(bytes) {
            raw().checkToken(bytesArg(bytes, 'bytes'));
            if (!isArcToken(bytes)) throw patError('WrongTokenType', 'not an ARC token (type 0xE5AC)');
            this.#bytes = copy(bytes);
            this.tokenType = ARC_TYPE;
            const view = new DataView(this.#bytes.buffer);
            /** As the client wrote it; nothing verifies it. */
            this.presentationNonce = view.getUint32(2);
            this.challengeDigest = this.#bytes.slice(6, 38);
            this.issuerKeyId = this.#bytes.slice(38, ARC_TOKEN_HEADER);
            this.presentation = this.#bytes.slice(ARC_TOKEN_HEADER);
        }

        static deserialize(bytes) {
            return new Token(bytes);
        }

        serialize() {
            return this.#bytes.slice();
        }
    }

    /** The client of one issuer key (free() releases its module memory). */
    class Client extends Held {
        /** `tokenKey`: the issuer's 99-byte ServerPublicKey (the challenge's token-key or the directory's). */
        constructor(tokenKey) {
            super(internal, new (raw().ArcClient)(bytesArg(tokenKey, 'tokenKey')));
        }

        get keyId() {
            return live(this).keyId;
        }

        /** A credential request for an ARC challenge (its issuer, origin_info and credentialContext bind the credential). */
        createCredentialRequest(tokChl) {
            return new CredentialRequest(internal, live(this).request(challengeArg(tokChl)));
        }

        /**
         * The credential from a CredentialRequest's exportState() and the
         * issuer's response; on success `state` is zeroed (one request, one
         * credential).
         */
        finalizeExported(state, response) {
            const credential = live(this).finalizeExported(bytesArg(state, 'state'), bytesArg(response, 'response'));
            state.fill(0);
            return new Credential(internal, credential);
        }

        /**
         * The presentation state of `credential` for the challenge's
         * presentation context under `limit` (its WWWAuthenticateHeader's
         * rateLimit). Make one per context and keep it.
         */
        presentationState(credential, tokChl, limit) {
            if (!(credential instanceof Credential)) throw new TypeError('credential must be an arc.Credential');
            const state = live(this).presentationState(live(credential), challengeArg(tokChl), limitArg(limit));
            return new PresentationState(internal, state);
        }

        /**
         * The next token of `state` for the challenge it was made for
         * ("ChallengeMismatch" otherwise); the state advances.
         * "PresentationLimitReached" once it is used up.
         */
        createToken(state, tokChl) {
            if (!(state instanceof PresentationState)) throw new TypeError('state must be an arc.PresentationState');
            return new Token(live(this).token(live(state), challengeArg(tokChl)));
        }
    }

    /**
     * The issuer of type 0xE5AC, which is also its origin (ARC is privately
     * verifiable). The key stays in the module's memory; free() wipes it.
     */
    class Issuer extends Held {
        /** A fresh key from crypto.getRandomValues. */
        static generate() {
            return new Issuer(internal, raw().ArcIssuer.generate());
        }

        /** The 128-byte secret key x0 ‖ x1 ‖ x2 ‖ x0Blinding. */
        static fromSecretKey(bytes) {
            return new Issuer(internal, raw().ArcIssuer.fromSecretKey(bytesArg(bytes, 'bytes')));
        }

        /** The token key to publish: the 99-byte ServerPublicKey. */
        get tokenKey() {
            return live(this).tokenKey;
        }

        get keyId() {
            return live(this).keyId;
        }

        /** The CredentialResponse's bytes for a CredentialRequest (or its bytes). */
        issue(request) {
            const bytes = request instanceof Uint8Array ? request : bytesArg(request?.serialize?.(), 'request.serialize()');
            return live(this).issue(bytes);
        }

        /**
         * Checks a redeemed token for the challenge it answers under `limit`
         * and returns its replay key (32 bytes, SHA-256 of the presentation
         * tag): accept it once only. Throws a PatError ("Verification",
         * "KeyIdMismatch", "ChallengeMismatch", "WrongTokenType", a parse error).
         */
        verify(token, tokChl, limit) {
            return live(this).verify(tokenBytes(token), challengeArg(tokChl), limitArg(limit));
        }
    }

    return Object.freeze({
        TOKEN_TYPE: ARC_TYPE,
        Client,
        Credential,
        CredentialRequest,
        Issuer,
        PresentationState,
        Token,
    });
}

export const arc = makeArc();

// ---- ACT (token type 0xE5AD) ------------------------------------------------

const ACT_TYPE = 0xe5ad;
// type ‖ challenge_digest ‖ issuer_key_id.
const ACT_TOKEN_HEADER = 2 + 32 + 32;
const ACT_BITS = Object.freeze([8, 16, 32, 64, 128]);

function isActToken(bytes) {
    return bytes.length >= 2 && ((bytes[0] << 8) | bytes[1]) === ACT_TYPE;
}

/** A deployment's domain separator: its text (UTF-8) or bytes. */
function domainSeparatorArg(value) {
    return typeof value === 'string' ? utf8.encode(value) : bytesArg(value, 'domainSeparator');
}

/** The bit length of balances: one of act.BITS. */
function bitsArg(bits) {
    if (!ACT_BITS.includes(bits)) throw new RangeError(`bits must be one of ${ACT_BITS.join(', ')}`);
    return bits;
}

/**
 * Namespace of token type 0xE5AD, ACT(ristretto255)
 * (draft-schlesinger-privacypass-act-01 on draft-schlesinger-cfrg-act-01):
 * a client gets one credential holding credits from the issuer, then spends
 * a cost at a time; each spend's token goes to the origin (the issuer
 * itself), whose refund becomes the next, unlinkable credential. A
 * deployment is its domain separator and `bits`, the bit length of
 * balances (act.BITS). The credential and the states are secret; each
 * exports as bytes to be kept between runs, and free() wipes the module's
 * copy.
 */
function makeAct() {
    const { Held, live } = heldClasses('act');

    /** A credential (secret): credits to spend, once. */
    class Credential extends Held {
        /** Its balance (a number; a BigInt only above 2^53); "StateSpent" once spent. */
        get credits() {
            return uintOut(live(this).credits());
        }

        /** The credential as bytes (secret), for Credential.import; "StateSpent" once spent. */
        export() {
            return live(this).export();
        }

        static import(bytes) {
            return new Credential(internal, raw().ActCredential.import(bytesArg(bytes, 'bytes')));
        }
    }

    /** A credential request in flight: its bytes, and the state that finalizes it. */
    class CredentialRequest extends Held {
        #bytes;

        constructor(key, rawRequest) {
            super(key, rawRequest);
            this.#bytes = rawRequest.bytes;
            this.tokenType = ACT_TYPE;
            this.truncatedTokenKeyId = this.#bytes[2];
        }

        /** The encoded TokenRequest (the body of the POST to the issuer). */
        serialize() {
            return this.#bytes.slice();
        }

        /** The request state as bytes (secret), for Client.finalizeExported; "StateSpent" after finalize. */
        exportState() {
            return live(this).exportState();
        }

        /**
         * The credential from the issuer's TokenResponse (its proof
         * checked); a failure leaves the request as it was, a success wipes
         * its state ("StateSpent" after).
         */
        finalize(response) {
            return new Credential(internal, live(this).finalize(bytesArg(response, 'response')));
        }
    }

    /** An ACT token: type ‖ challenge_digest ‖ issuer_key_id ‖ spend proof. */
    class Token {
        #bytes;

        /** Checks the type and decodes the spend proof under the bit length the length gives. */
        constructor(bytes) {
            bytesArg(bytes, 'bytes');
            if (!isActToken(bytes)) throw patError('WrongTokenType', 'not an ACT token (type 0xE5AD)');
            raw().checkToken(bytes);
            this.#bytes = copy(bytes);
            this.tokenType = ACT_TYPE;
            this.challengeDigest = this.#bytes.slice(2, 34);
            this.issuerKeyId = this.#bytes.slice(34, ACT_TOKEN_HEADER);
            this.spendProof = this.#bytes.slice(ACT_TOKEN_HEADER);
        }

        static deserialize(bytes) {
            return new Token(bytes);
        }

        serialize() {
            return this.#bytes.slice();
        }
    }

    /** A spend: the token for the origin, and the state that turns its refund into the next credential. */
    class Spend extends Held {
        constructor(key, rawSpend) {
            super(key, rawSpend);
            this.token = new Token(rawSpend.token);
        }

        /** The refund state as bytes (secret), for Client.refundExported; "StateSpent" after refund. */
        exportState() {
            return live(this).exportState();
        }

        /**
         * The next credential from the issuer's refund (its proof checked),
         * worth the balance left plus the refund; a failure leaves the
         * spend as it was, a success wipes its state ("StateSpent" after).
         */
        refund(refund) {
            return new Credential(internal, live(this).refund(bytesArg(refund, 'refund')));
        }
    }

    /** The client of one deployment and issuer key (free() releases its module memory). */
    class Client extends Held {
        /**
         * `tokenKey`: the issuer's 32-byte ristretto255 public key;
         * `domainSeparator`: the deployment's (text or bytes); `bits`: the
         * bit length of its balances, one of act.BITS.
         */
        constructor(tokenKey, domainSeparator, bits) {
            const ds = domainSeparatorArg(domainSeparator);
            super(internal, new (raw().ActClient)(ds, bytesArg(tokenKey, 'tokenKey'), bitsArg(bits)));
        }

        get keyId() {
            return live(this).keyId;
        }

        get bits() {
            return live(this).bits;
        }

        /** A credential request for an ACT challenge (its issuer, origin_info and credentialContext bind the credential). */
        createCredentialRequest(tokChl) {
            return new CredentialRequest(internal, live(this).request(challengeArg(tokChl)));
        }

        /**
         * The credential from a CredentialRequest's exportState() and the
         * issuer's response; on success `state` is zeroed (one request, one
         * credential).
         */
        finalizeExported(state, response) {
            const credential = live(this).finalizeExported(bytesArg(state, 'state'), bytesArg(response, 'response'));
            state.fill(0);
            return new Credential(internal, credential);
        }

        /**
         * Spends `cost` credits of `credential` for the challenge
         * ("ChallengeMismatch" for another request context, "ValueTooLarge"
         * above the balance): an act.Spend. A success wipes the credential
         * ("StateSpent" after; spent twice it would link both spends).
         */
        spend(credential, tokChl, cost) {
            if (!(credential instanceof Credential)) throw new TypeError('credential must be an act.Credential');
            const spent = live(this).spend(live(credential), challengeArg(tokChl), u128Arg(cost, 'cost'));
            return new Spend(internal, spent);
        }

        /**
         * The next credential from a Spend's exportState(), its token and
         * the issuer's refund; on success `state` is zeroed.
         */
        refundExported(state, token, refund) {
            const credential = live(this).refundExported(
                bytesArg(state, 'state'),
                tokenBytes(token),
                bytesArg(refund, 'refund'),
            );
            state.fill(0);
            return new Credential(internal, credential);
        }
    }

    /**
     * The issuer of type 0xE5AD, which is also its origin (ACT is privately
     * verifiable). The key stays in the module's memory; free() wipes it.
     */
    class Issuer extends Held {
        /** A fresh key from crypto.getRandomValues, for the deployment's domain separator and bit length. */
        static generate(domainSeparator, bits) {
            return new Issuer(internal, raw().ActIssuer.generate(domainSeparatorArg(domainSeparator), bitsArg(bits)));
        }

        /** The secret key's CBOR ({1: x, 2: W}, the draft's encoding). */
        static fromSecretKey(bytes, domainSeparator, bits) {
            const ds = domainSeparatorArg(domainSeparator);
            return new Issuer(internal, raw().ActIssuer.fromSecretKey(bytesArg(bytes, 'bytes'), ds, bitsArg(bits)));
        }

        /** The token key to publish: the 32-byte ristretto255 public key. */
        get tokenKey() {
            return live(this).tokenKey;
        }

        get keyId() {
            return live(this).keyId;
        }

        get bits() {
            return live(this).bits;
        }

        /** The TokenResponse's bytes granting `credits` to a CredentialRequest (or its bytes) for the challenge. */
        issue(request, credits, tokChl) {
            const bytes = request instanceof Uint8Array ? request : bytesArg(request?.serialize?.(), 'request.serialize()');
            return live(this).issue(bytes, u128Arg(credits, 'credits'), challengeArg(tokChl));
        }

        /**
         * Checks a spent token for the challenge it answers at `cost` and
         * signs the refund of `refundAmount` (default 0, at most `cost`):
         * `{ nullifier, refund }`. Refuse a nullifier seen before and record
         * it before the refund leaves. Throws a PatError
         * ("ChallengeMismatch", "KeyIdMismatch", "InvalidValue" for a charge
         * other than `cost`, "Verification", a parse error).
         */
        verify(token, tokChl, cost, refundAmount = 0) {
            const verified = live(this).verify(
                tokenBytes(token),
                challengeArg(tokChl),
                u128Arg(cost, 'cost'),
                u128Arg(refundAmount, 'refundAmount'),
            );
            return using(verified, (v) => ({ nullifier: v.nullifier, refund: v.refund }));
        }
    }

    return Object.freeze({
        TOKEN_TYPE: ACT_TYPE,
        BITS: ACT_BITS,
        Client,
        Credential,
        CredentialRequest,
        Issuer,
        Spend,
        Token,
    });
}

export const act = makeAct();

// ---- generic batches (draft-ietf-privacypass-batched-tokens §6) -------------

/**
 * Namespace of generic batches (privacypass-ts: genericBatched): one
 * request carrying token requests of types 0x0001, 0x0002 and 0x0005, each
 * for its own challenge and key; the issuer answers each entry or leaves it
 * absent.
 */
function makeGenericBatched() {
    /** A generic batch in flight: its bytes, and the state (secret) that finalizes it. */
    class BatchedTokenRequest {
        #bytes;
        #raw;

        constructor(key, rawBatch, entries) {
            if (key !== internal) throw new TypeError('use genericBatched.Client.createTokenRequest');
            this.#raw = rawBatch;
            this.#bytes = rawBatch.bytes;
            this.length = rawBatch.count;
            /** The entries' token types, in request order. */
            this.tokenTypes = entries.map((e) => e.tokenType);
        }

        /** The encoded GenericBatchTokenRequest (POST as MediaType.GENERIC_BATCHED_TOKEN_REQUEST). */
        serialize() {
            return this.#bytes.slice();
        }

        /** The state as bytes (secret), for Client.finalizeExported; "StateSpent" after finalize. */
        exportState() {
            return this.#live().exportState();
        }

        /** Wipes the batch's secrets in the module's memory. */
        free() {
            this.#raw?.free();
            this.#raw = undefined;
        }

        #live() {
            if (this.#raw === undefined) throw patError('Freed', 'this BatchedTokenRequest was freed');
            return this.#raw;
        }

        finalize(response) {
            return tokensOrNull(this.#live().finalize(responseBytes(response)));
        }
    }

    const tokensOrNull = (array) => Array.from(array, (t) => (t === undefined ? null : Token.deserialize(t)));

    /** `[{ challenge, tokenKey }]` → parallel lists of encoded challenges, keys and types. */
    function entriesArg(entries) {
        if (!Array.isArray(entries)) throw new TypeError('entries must be an array of { challenge, tokenKey }');
        return entries.map((e, i) => {
            const challenge = challengeArg(e?.challenge);
            return {
                challenge,
                tokenKey: bytesArg(e?.tokenKey, `entries[${i}].tokenKey`),
                tokenType: (challenge[0] << 8) | challenge[1],
            };
        });
    }

    /** The client of generic batches; one batch in flight at a time. */
    class Client {
        #pending;

        /**
         * A batch of one entry per `{ challenge, tokenKey }` (types 0x0001,
         * 0x0002, 0x0005, any mix; 1 to 16 entries), each for its
         * challenge with its issuer key.
         */
        createTokenRequest(entries) {
            const list = entriesArg(entries);
            const rawBatch = raw().GenericBatchRequest.create(
                list.map((e) => e.challenge),
                list.map((e) => e.tokenKey),
            );
            const batch = new BatchedTokenRequest(internal, rawBatch, list);
            this.#pending?.free();
            this.#pending = batch;
            return batch;
        }

        /**
         * The tokens from the issuer's GenericBatchTokenResponse (bytes, or
         * anything with serialize(), such as privacypass-ts's), in request
         * order: a Token per issued entry, null per absent one. A proof or
         * signature that fails is "Verification" and leaves the batch
         * usable; "StateSpent" after a success.
         */
        finalize(response) {
            if (this.#pending === undefined) throw patError('NoTokenRequest', 'finalize called before createTokenRequest');
            return this.#pending.finalize(response);
        }

        /**
         * The tokens of a batch from its exportState() (zeroed on success),
         * the keys of its entries (`[{ tokenType, tokenKey }]`, or the
         * `{ challenge, tokenKey }` entries it was made from) and the response.
         */
        finalizeExported(state, keys, response) {
            if (!Array.isArray(keys)) throw new TypeError('keys must be an array of { tokenType, tokenKey }');
            const types = Uint16Array.from(keys, (k, i) =>
                k?.tokenType === undefined
                    ? (challengeArg(k?.challenge)[0] << 8) | challengeArg(k?.challenge)[1]
                    : intArg(k.tokenType, 0xffff, `keys[${i}].tokenType`),
            );
            const tokenKeys = keys.map((k, i) => bytesArg(k?.tokenKey, `keys[${i}].tokenKey`));
            const tokens = raw().GenericBatchRequest.finalizeExported(
                bytesArg(state, 'state'),
                types,
                tokenKeys,
                responseBytes(response),
            );
            state.fill(0);
            return tokensOrNull(tokens);
        }
    }

    return Object.freeze({ BatchedTokenRequest, Client });
}

export const genericBatched = makeGenericBatched();

// ---- ATHM (token type 0xC07E) -----------------------------------------------

const ATHM_TYPE = 0xc07e;
const ATHM_BUCKETS = 4;

function isAthmToken(bytes) {
    return bytes.length >= 2 && ((bytes[0] << 8) | bytes[1]) === ATHM_TYPE;
}

/** A deployment id: its text (UTF-8) or bytes. */
function deploymentIdArg(value) {
    return typeof value === 'string' ? utf8.encode(value) : bytesArg(value, 'deploymentId');
}

/**
 * Namespace of token type 0xC07E, ATHM(P-256) (draft-yun-privacypass-athm-00):
 * the issuer hides one of the deployment's 4 buckets in each token (a
 * signal about the client it saw at issuance) and reads it back when the
 * token is redeemed; the client only learns that it is one of the 4. No
 * challenge is bound into the token: a client may fetch tokens before any
 * origin asks. The request state is secret; it exports as bytes, and
 * free() wipes the module's copy.
 */
function makeAthm() {
    const { Held, live } = heldClasses('athm');

    /** An ATHM token: type ‖ issuer_key_id ‖ t ‖ P ‖ Q. */
    class Token {
        #bytes;

        /** Checks the type, the length and the points. */
        constructor(bytes) {
            bytesArg(bytes, 'bytes');
            if (!isAthmToken(bytes)) throw patError('WrongTokenType', 'not an ATHM token (type 0xC07E)');
            raw().checkToken(bytes);
            this.#bytes = copy(bytes);
            this.tokenType = ATHM_TYPE;
            this.issuerKeyId = this.#bytes.slice(2, 34);
            /** t, the token's nonce: the origin's replay key. */
            this.nonce = this.#bytes.slice(34, 66);
        }

        static deserialize(bytes) {
            return new Token(bytes);
        }

        serialize() {
            return this.#bytes.slice();
        }
    }

    /** A token request in flight: its bytes, and the state that finalizes it. */
    class TokenRequest extends Held {
        #bytes;

        constructor(key, rawRequest) {
            super(key, rawRequest);
            this.#bytes = rawRequest.bytes;
            this.tokenType = ATHM_TYPE;
            this.truncatedTokenKeyId = this.#bytes[2];
        }

        /** The encoded TokenRequest (the body of the POST to the issuer). */
        serialize() {
            return this.#bytes.slice();
        }

        /** The request state as bytes (secret), for Client.finalizeExported; "StateSpent" after finalize. */
        exportState() {
            return live(this).exportState();
        }

        /**
         * The token from the issuer's response (its proof checked); a
         * failure leaves the request as it was, a success wipes its state
         * ("StateSpent" after).
         */
        finalize(response) {
            return new Token(live(this).finalize(bytesArg(response, 'response')));
        }
    }

    /** The client of one deployment and issuer key (free() releases its module memory). */
    class Client extends Held {
        /**
         * `tokenKey`: the issuer's public key and its proof (163 bytes),
         * checked here against the deployment named `deploymentId` (text or
         * bytes, up to 255 bytes).
         */
        constructor(tokenKey, deploymentId) {
            const id = deploymentIdArg(deploymentId);
            super(internal, new (raw().AthmClient)(id, bytesArg(tokenKey, 'tokenKey')));
        }

        get keyId() {
            return live(this).keyId;
        }

        /** A token request (POST as MediaType.PRIVATE_TOKEN_REQUEST). */
        createTokenRequest() {
            return new TokenRequest(internal, live(this).request());
        }

        /** The token from a TokenRequest's exportState() (zeroed on success) and the issuer's response. */
        finalizeExported(state, response) {
            const token = live(this).finalizeExported(bytesArg(state, 'state'), bytesArg(response, 'response'));
            state.fill(0);
            return new Token(token);
        }
    }

    /**
     * The issuer of type 0xC07E, which is also its origin (ATHM is
     * privately verifiable). The key stays in the module's memory; free()
     * wipes it.
     */
    class Issuer extends Held {
        /** A fresh key (and its proof) from crypto.getRandomValues, for the deployment named `deploymentId`. */
        static generate(deploymentId) {
            return new Issuer(internal, raw().AthmIssuer.generate(deploymentIdArg(deploymentId)));
        }

        /** The 160-byte private key x ‖ y ‖ z ‖ r_x ‖ r_y; its proof is made afresh. */
        static fromSecretKey(bytes, deploymentId) {
            const id = deploymentIdArg(deploymentId);
            return new Issuer(internal, raw().AthmIssuer.fromSecretKey(bytesArg(bytes, 'bytes'), id));
        }

        /** The token key to publish: the public key and its proof (163 bytes). */
        get tokenKey() {
            return live(this).tokenKey;
        }

        get keyId() {
            return live(this).keyId;
        }

        /** The TokenResponse's bytes hiding `metadata` (0 to 3) for a TokenRequest (or its bytes). */
        issue(request, metadata) {
            const bytes = request instanceof Uint8Array ? request : bytesArg(request?.serialize?.(), 'request.serialize()');
            return live(this).issue(bytes, intArg(metadata, 0xff, 'metadata'));
        }

        /**
         * Reads a redeemed token's hidden value: `{ metadata, nonce }`,
         * where `nonce` (t, 32 bytes) is its replay key: accept it once
         * only. Throws a PatError ("KeyIdMismatch", "Verification", a parse
         * error).
         */
        verify(token) {
            return using(live(this).verify(tokenBytes(token)), (v) => ({ metadata: v.metadata, nonce: v.nonce }));
        }
    }

    return Object.freeze({
        TOKEN_TYPE: ATHM_TYPE,
        BUCKETS: ATHM_BUCKETS,
        Client,
        Issuer,
        Token,
        TokenRequest,
    });
}

export const athm = makeAthm();
