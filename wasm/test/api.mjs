// The shipped pat-wasm package under Node: its shape (no hazmat entry
// points), its classes against privacypass-ts 0.9.0's own, issuance in
// process with privacypass-ts's Issuer classes (types 1 and 2) and with
// voprf-ts as a type-5 issuer, pat's own issuers (types 1, 5) and type-2
// origin against privacypass-ts and voprf-ts, type 0xDA7B's client and
// issuer (no peer has it: pat's own vectors), ARC (type 0xE5AC: challenges,
// issuance, tokens, exported states), ACT (type 0xE5AD: issuance, spends,
// refunds, exported states, every bit length), amortized batches of types 1
// and 5 (answered by voprf-ts with privacypass-ts's key too) and generic
// batches (answered by privacypass-ts's genericBatched.Issuer), ATHM (type
// 0xC07E: hidden values, exported states), thrown errors with stable codes, and
// randomness from crypto.getRandomValues (a failing source is an error,
// never a trap).
//
// Prints one line per check and `api: N passed, M failed`.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';

import {
    AuthorizationHeader as TsAuthorizationHeader,
    TOKEN_TYPES as TS_TOKEN_TYPES,
    Token as TsToken,
    TokenChallenge as TsTokenChallenge,
    Extensions as TsExtensions,
    WWWAuthenticateHeader as TsWWWAuthenticateHeader,
    genericBatched as tsBatched,
    privateVerif as tsPrivate,
    publicVerif as tsPublic,
} from '@cloudflare/privacypass-ts';
import { EvaluationRequest, Oprf, VOPRFServer, deriveKeyPair, generateKeyPair } from '@cloudflare/voprf-ts';
import { CryptoNoble } from '@cloudflare/voprf-ts/crypto-noble';

import { Checks, hazmatDir, hex, importFrom, root, shippedDir, throwsPat } from './harness.mjs';

const pat = await importFrom(shippedDir);
const {
    AuthorizationHeader,
    IssuerDirectory,
    Token,
    TokenChallenge,
    WWWAuthenticateHeader,
    act,
    arc,
    athm,
    decodeExtensions,
    encodeExtensions,
    genericBatched,
    privateVerif,
    publicVerif,
} = pat;
const checks = new Checks('api');
const ctx = () => crypto.getRandomValues(new Uint8Array(32));

// ---- the package ------------------------------------------------------------

// What the hazmat build exports beyond the shipped one: its deterministic
// functions, and the two classes two of them return (the runs of ARC and
// ACT, whose fields the vectors compare).
const HAZMAT_FUNCTIONS = [
    'hazmatActRun',
    'hazmatArcRun',
    'hazmatAthmFinalize',
    'hazmatAthmIssue',
    'hazmatAthmIssuer',
    'hazmatAthmRequest',
    'hazmatEvaluatePoprf',
    'hazmatGenericBatch',
    'hazmatRequestBatchP384',
    'hazmatRequestBatchRistretto255',
    'hazmatRequestBlindRsa',
    'hazmatRequestMetadata',
    'hazmatRequestP384',
    'hazmatRequestPoprf',
    'hazmatRequestRistretto255',
];
const HAZMAT_CLASSES = {
    ActRun: [
        'charge',
        'context',
        'credential',
        'nullifier',
        'preIssuance',
        'preRefund',
        'publicKey',
        'refund',
        'refundCredential',
        'refundNullifier',
        'request',
        'response',
        'secretKey',
        'spendProof',
    ],
    ArcRun: ['credential', 'nonces', 'presentations', 'publicKey', 'request', 'requestState', 'response', 'secretKey'],
};

await checks.check('the shipped package exports no hazmat function; the hazmat build exactly its 15 functions and 2 classes more', async () => {
    const names = (dir) => {
        const module = new WebAssembly.Module(readFileSync(path.join(dir, 'pat_wasm_bg.wasm')));
        return WebAssembly.Module.exports(module).map((e) => e.name);
    };
    const shipped = names(shippedDir);
    const hazmat = names(hazmatDir);
    assert.ok(shipped.length > 10, 'the module has exports');
    assert.equal(HAZMAT_FUNCTIONS.length, 15);
    // The hazmat module: the shipped one's exports, and these.
    assert.deepEqual(shipped.filter((n) => !hazmat.includes(n)), []);
    const classExports = Object.entries(HAZMAT_CLASSES).flatMap(([name, fields]) => {
        const c = name.toLowerCase();
        return [`__wbg_${c}_free`, ...fields.flatMap((f) => [`__wbg_get_${c}_${f}`, `__wbg_set_${c}_${f}`])];
    });
    assert.deepEqual(hazmat.filter((n) => !shipped.includes(n)).sort(), [...HAZMAT_FUNCTIONS, ...classExports].sort());
    // The glue of each: the same difference, by name.
    const glue = await importFrom(shippedDir, 'pat_wasm.js');
    const hazmatGlue = await importFrom(hazmatDir, 'pat_wasm.js');
    assert.deepEqual(Object.keys(glue).filter((n) => !(n in hazmatGlue)), []);
    assert.deepEqual(
        Object.keys(hazmatGlue).filter((n) => !(n in glue)).sort(),
        [...HAZMAT_FUNCTIONS, ...Object.keys(HAZMAT_CLASSES)].sort(),
    );
});

await checks.check("PatErrorCode (api.d.ts): every code the library's error can take in this package, and the package's own", () => {
    const rust = readFileSync(path.join(root, 'src/error/mod.rs'), 'utf8');
    const body = rust.slice(rust.indexOf('pub enum Error {'), rust.indexOf('\n}\n', rust.indexOf('pub enum Error {')));
    const variants = [...body.matchAll(/^ {4}([A-Z][A-Za-z0-9]*)\b/gm)].map((m) => m[1]);
    assert.ok(variants.length > 30, `${variants.length} variants read from src/error/mod.rs`);
    const dts = readFileSync(path.join(root, 'wasm/js/api.d.ts'), 'utf8');
    const union = dts.slice(dts.indexOf('export type PatErrorCode ='), dts.indexOf('(string & {});'));
    const codes = [...union.matchAll(/\| '([A-Za-z0-9]+)'/g)].map((m) => m[1]);
    // The library's variants of parts this package does not include.
    const unreachable = [
        'KeyIdCollision', // key sets (deploy::keyset, the batched issuer)
        'Replayed', // replay stores and redeem
        'ReplayStoreFull',
        'ReplayWindowExpired',
        'NotSafePrime', // the 0xDA7A issuer
        'RequestKeyMismatch', // rate-limited tokens (type 3)
        'UnknownOrigin',
        'RateLimited',
        'OriginIdConflict',
        'SelfTest', // the power-on self-test
    ];
    const own = ['NoTokenRequest', 'NotInitialized', 'InitPending', 'Freed'];
    for (const name of unreachable) assert.ok(variants.includes(name), `${name} is a variant of the library`);
    assert.deepEqual(codes.filter((c) => !variants.includes(c)).sort(), [...own].sort());
    assert.deepEqual(variants.filter((v) => !codes.includes(v)).sort(), [...unreachable].sort());
    assert.equal(new Set(codes).size, codes.length, 'a code listed twice');
});

await checks.check('exports: privacypass-ts names and the token types', () => {
    for (const name of ['TokenChallenge', 'WWWAuthenticateHeader', 'AuthorizationHeader', 'Token', 'IssuerDirectory']) {
        assert.equal(typeof pat[name], 'function', name);
    }
    assert.equal(typeof privateVerif.Client, 'function');
    assert.equal(typeof publicVerif.Client, 'function');
    // One class per namespace, as in privacypass-ts.
    assert.notEqual(privateVerif.TokenRequest, publicVerif.TokenRequest);
    assert.deepEqual(
        Object.values(pat.TOKEN_TYPES).map((t) => t.value),
        [1, 2, 5, 0xda7a, 0xda7b],
    );
    for (const name of ['ClientWithMetadata', 'IssuerWithMetadata', 'ExtendedTokenRequest']) {
        assert.equal(typeof privateVerif[name], 'function', `privateVerif.${name}`);
    }
    assert.notEqual(privateVerif.ExtendedTokenRequest, publicVerif.ExtendedTokenRequest);
    assert.equal(arc.TOKEN_TYPE, 0xe5ac);
    for (const name of ['Client', 'Issuer', 'Credential', 'CredentialRequest', 'PresentationState', 'Token']) {
        assert.equal(typeof arc[name], 'function', `arc.${name}`);
    }
    assert.equal(typeof privateVerif.BatchTokenRequest, 'function');
    assert.equal(typeof genericBatched.Client, 'function');
    assert.equal(typeof genericBatched.BatchedTokenRequest, 'function');
    assert.equal(pat.MediaType.GENERIC_BATCHED_TOKEN_REQUEST, 'application/private-token-generic-batch-request');
    assert.equal(pat.MediaType.AMORTIZED_BATCHED_TOKEN_RESPONSE, 'application/private-token-amortized-batch-response');
    assert.equal(athm.TOKEN_TYPE, 0xc07e);
    assert.equal(athm.BUCKETS, 4);
    for (const name of ['Client', 'Issuer', 'Token', 'TokenRequest']) {
        assert.equal(typeof athm[name], 'function', `athm.${name}`);
    }
    assert.equal(act.TOKEN_TYPE, 0xe5ad);
    assert.deepEqual(act.BITS, [8, 16, 32, 64, 128]);
    for (const name of ['Client', 'Issuer', 'Credential', 'CredentialRequest', 'Spend', 'Token']) {
        assert.equal(typeof act[name], 'function', `act.${name}`);
    }
    assert.equal(pat.TOKEN_TYPES.VOPRF.Nk, TS_TOKEN_TYPES.VOPRF.Nk);
    assert.equal(pat.TOKEN_TYPES.BLIND_RSA.Nk, TS_TOKEN_TYPES.BLIND_RSA.Nk);
});

// ---- TokenChallenge and headers against privacypass-ts ----------------------

await checks.check('TokenChallenge: the same bytes as privacypass-ts, both ways', () => {
    for (const [type, context, origins] of [
        [1, ctx(), ['origin.example']],
        [2, new Uint8Array(0), undefined],
        [2, ctx(), ['a.example', 'b.example']],
    ]) {
        const ours = new TokenChallenge(type, 'issuer.example', context, origins);
        const theirs = new TsTokenChallenge(type, 'issuer.example', context, origins);
        assert.equal(hex(ours.serialize()), hex(theirs.serialize()));
        const back = TokenChallenge.deserialize(theirs.serialize());
        assert.equal(back.tokenType, type);
        assert.equal(back.issuerName, 'issuer.example');
        assert.equal(hex(back.redemptionContext), hex(context));
        assert.deepEqual(back.originInfo, origins);
        assert.ok(back instanceof TokenChallenge);
    }
});

await checks.check('TokenChallenge: structure errors carry the library codes', () => {
    const bytes = new TokenChallenge(1, 'i', new Uint8Array(0)).serialize();
    throwsPat(() => TokenChallenge.deserialize(new Uint8Array([...bytes, 0])), 'TrailingBytes');
    throwsPat(() => TokenChallenge.deserialize(bytes.subarray(0, bytes.length - 1)), 'Truncated');
    throwsPat(() => new TokenChallenge(1, 'i', new Uint8Array(5)), 'InvalidLength');
    throwsPat(() => new TokenChallenge(1, '', new Uint8Array(0)), 'InvalidLength');
    throwsPat(() => new TokenChallenge(1, 'bad\nname', new Uint8Array(0)), 'InvalidValue');
    assert.throws(() => new TokenChallenge(0x10000, 'i', new Uint8Array(0)), RangeError);
    assert.throws(() => TokenChallenge.deserialize('not bytes'), TypeError);
});

await checks.check('TokenChallenge: a received UTF-8 name is kept byte for byte', () => {
    const theirs = new TsTokenChallenge(2, 'émetteur.example', new Uint8Array(0), ['origine.example']);
    const ours = TokenChallenge.deserialize(theirs.serialize());
    assert.equal(ours.issuerName, 'émetteur.example');
    assert.equal(hex(ours.serialize()), hex(theirs.serialize()));
});

await checks.check('WWW-Authenticate: privacypass-ts writes, the package parses, and back', () => {
    const key = crypto.getRandomValues(new Uint8Array(49));
    const challenge = new TsTokenChallenge(1, 'issuer.example', ctx(), ['origin.example']);
    const written = new TsWWWAuthenticateHeader(challenge, key, 60);
    for (const value of [written.toString(), written.toString(true), `Basic realm="x", ${written.toString(true)}`]) {
        const [h, ...rest] = WWWAuthenticateHeader.parse(value);
        assert.equal(rest.length, 0, value);
        assert.equal(hex(h.challenge.serialize()), hex(challenge.serialize()));
        assert.equal(hex(h.tokenKey), hex(key));
        assert.equal(h.maxAge, 60);
        const [again] = TsWWWAuthenticateHeader.parse(h.toString());
        assert.equal(hex(again.challenge.serialize()), hex(challenge.serialize()));
        assert.equal(hex(again.tokenKey), hex(key));
        assert.equal(again.maxAge, 60);
    }
    // Two challenges, the second without a key.
    const two = `${written.toString(true)}, ${new WWWAuthenticateHeader(TokenChallenge.deserialize(challenge.serialize())).toString()}`;
    const parsed = WWWAuthenticateHeader.parse(two);
    assert.equal(parsed.length, 2);
    assert.equal(parsed[1].tokenKey, undefined);
    assert.deepEqual(WWWAuthenticateHeader.parse('Basic realm="x"'), []);
});

await checks.check('WWW-Authenticate: malformed PrivateToken challenges throw with a code', () => {
    throwsPat(() => WWWAuthenticateHeader.parse('PrivateToken token-key="AAAA"'), 'MissingParameter');
    throwsPat(() => WWWAuthenticateHeader.parse('PrivateToken challenge="A"'), 'InvalidBase64');
    throwsPat(() => WWWAuthenticateHeader.parse('PrivateToken challenge="AAAA", challenge="AAAA"'), 'DuplicateParameter');
    throwsPat(() => WWWAuthenticateHeader.parse('PrivateToken challenge="AAAA"'), 'Truncated');
    throwsPat(() => WWWAuthenticateHeader.parse('PrivateToken challenge='), 'MalformedHeader');
});

await checks.check('WWW-Authenticate: a bad challenge beside a good one is skipped', () => {
    const good = new WWWAuthenticateHeader(TokenChallenge.deserialize(
        new TsTokenChallenge(2, 'issuer.example', new Uint8Array(0), undefined).serialize()), undefined, 7).toString();
    for (const value of [
        `PrivateToken challenge="AAAA", ${good}`,
        `${good}, PrivateToken challenge="AA", max-age="4294967296"`,
        `${good}, PrivateToken challenge="unterminated`,
    ]) {
        const parsed = WWWAuthenticateHeader.parse(value);
        assert.equal(parsed.length, 1, value);
        assert.equal(parsed[0].maxAge, 7, value);
        assert.equal(parsed[0].challenge.tokenType, 2, value);
    }
});

await checks.check('WWW-Authenticate: extension-set and extensions round-trip (auth-scheme-extensions-03 §4)', () => {
    const challenge = TokenChallenge.deserialize(
        new TsTokenChallenge(0xda7a, 'issuer.example', ctx(), ['origin.example']).serialize(),
    );
    const set = pat.encodeExtensionSet([2], [1]);
    assert.equal(hex(set), '000601000200' + '0001');
    // Extensions: one entry of type 2 with data "US" (its length prefix 0x0006).
    const suggested = new Uint8Array([0, 6, 0, 2, 0, 2, 0x55, 0x53]);
    const written = new WWWAuthenticateHeader(challenge, new Uint8Array([9, 9]), 30, set, suggested).toString();
    assert.match(written, /, extension-set="AAYBAAIAAAE=", extensions="AAYAAgACVVM="$/);
    const [h, ...rest] = WWWAuthenticateHeader.parse(written);
    assert.equal(rest.length, 0);
    assert.equal(hex(h.extensionSet), hex(set));
    assert.equal(hex(h.extensions), hex(suggested));
    assert.deepEqual(h.requiredExtensions, [2]);
    assert.deepEqual(h.optionalExtensions, [1]);
    assert.equal(h.toString(), written);
    // privacypass-ts reads the same challenge and key, ignoring what it does not know.
    const [theirs] = TsWWWAuthenticateHeader.parse(written);
    assert.equal(hex(theirs.challenge.serialize()), hex(challenge.serialize()));
    // Without negotiation: undefined, and no types.
    const [plain] = WWWAuthenticateHeader.parse(new WWWAuthenticateHeader(challenge).toString());
    assert.equal(plain.extensionSet, undefined);
    assert.equal(plain.extensions, undefined);
    assert.deepEqual(plain.requiredExtensions, []);
    // Malformed values carry the library's codes, when parsed and when written.
    const base = new WWWAuthenticateHeader(challenge).toString();
    throwsPat(() => WWWAuthenticateHeader.parse(`${base}, extension-set="AAMCAAE="`), 'InvalidValue');
    throwsPat(() => WWWAuthenticateHeader.parse(`${base}, extension-set="AAA=", Extension-Set="AAA="`), 'DuplicateParameter');
    throwsPat(() => WWWAuthenticateHeader.parse(`${base}, extension-set="AAIBAA=="`), 'InvalidLength');
    throwsPat(() => WWWAuthenticateHeader.parse(`${base}, extensions="AA"`), 'Truncated');
    throwsPat(() => new WWWAuthenticateHeader(challenge, undefined, undefined, new Uint8Array([0, 1])).toString(), 'Truncated');
    assert.throws(() => pat.encodeExtensionSet([0x10000]), RangeError);
    assert.throws(() => pat.encodeExtensionSet('2'), TypeError);
});

await checks.check('bytes: Node Buffers are copied, never kept as views of shared memory', () => {
    const theirs = new TsTokenChallenge(1, 'issuer.example', new Uint8Array(0), ['origin.example']);
    const buf = Buffer.from(theirs.serialize());
    const ours = TokenChallenge.deserialize(buf);
    buf.fill(0);
    assert.equal(hex(ours.serialize()), hex(theirs.serialize()));
    const out = ours.serialize();
    assert.equal(out.constructor, Uint8Array);
    assert.equal(out.buffer.byteLength, out.length, 'its own ArrayBuffer');
});

await checks.check("createTokenRequest takes privacypass-ts's TokenChallenge (through its encoding)", async () => {
    const theirs = new TsTokenChallenge(5, 'issuer.example', ctx(), ['origin.example']);
    const { publicKey: key } = await generateKeyPair(Oprf.Suite.RISTRETTO255_SHA512, CryptoNoble);
    const request = new privateVerif.Client(5).createTokenRequest(theirs, key);
    assert.equal(request.tokenType, 5);
    assert.throws(() => new privateVerif.Client(5).createTokenRequest({ serialize: () => 'nope' }, key), TypeError);
    throwsPat(() => new privateVerif.Client(5).createTokenRequest({ serialize: () => new Uint8Array(3) }, key), 'Truncated');
    assert.throws(() => new privateVerif.Client('5'), RangeError);
    assert.throws(() => new privateVerif.Client('constructor'), RangeError);
});

await checks.check('Authorization: a malformed token is not written', () => {
    const t = new Uint8Array(2 + 96 + 64);
    t[1] = 5;
    const token = Token.deserialize(t);
    token.authenticator = token.authenticator.subarray(1);
    throwsPat(() => new AuthorizationHeader(token).toString(), 'Truncated');
});

// ---- issuance in process -----------------------------------------------------

async function type1Issuer() {
    const { privateKey, publicKey } = await tsPrivate.keyGen();
    return { issuer: new tsPrivate.Issuer('issuer.example', privateKey, publicKey), privateKey, publicKey };
}

async function type2Issuer() {
    const { privateKey, publicKey } = await tsPublic.Issuer.generateKey(tsPublic.BlindRSAMode.PSS, {
        modulusLength: 2048,
        publicExponent: new Uint8Array([1, 0, 1]),
    });
    const issuer = new tsPublic.Issuer(tsPublic.BlindRSAMode.PSS, 'issuer.example', privateKey, publicKey);
    return { issuer, publicKey, tokenKey: await tsPublic.getPublicKeyBytes(publicKey) };
}

const t1 = await type1Issuer();
const t2 = await type2Issuer();

// A type-5 issuer from voprf-ts (ristretto255-SHA512 over @noble/curves), the
// VOPRF library privacypass-ts builds its type-1 issuer on.
const R255 = Oprf.Suite.RISTRETTO255_SHA512;
const t5 = await (async () => {
    const { privateKey, publicKey } = await generateKeyPair(R255, CryptoNoble);
    const server = new VOPRFServer(R255, privateKey, CryptoNoble);
    const group = Oprf.getGroup(R255, CryptoNoble);
    return {
        publicKey,
        server,
        async issue(request) {
            const evaluation = await server.blindEvaluate(new EvaluationRequest([group.desElt(request.blindedMsg)]));
            const msg = evaluation.evaluated[0].serialize();
            const proof = evaluation.proof.serialize();
            const out = new Uint8Array(msg.length + proof.length);
            out.set(msg);
            out.set(proof, msg.length);
            return out;
        },
    };
})();

/** privacypass-ts's view of one of our tokens, read from our Authorization value. */
function theirToken(entry, token) {
    const parsed = TsAuthorizationHeader.parse(entry, new AuthorizationHeader(token).toString());
    assert.equal(parsed.length, 1);
    return parsed[0].token;
}

await checks.check('type 1: 5 tokens from privacypass-ts privateVerif.Issuer, verified by its Issuer and Origin', async () => {
    const origin = new tsPrivate.Origin(['origin.example']);
    for (let i = 0; i < 5; i++) {
        const challenge = TokenChallenge.deserialize(origin.createTokenChallenge('issuer.example', ctx()).serialize());
        const client = new privateVerif.Client();
        const request = client.createTokenRequest(challenge, t1.publicKey);
        assert.equal(request.tokenType, 1);
        assert.ok(request instanceof privateVerif.TokenRequest);
        const response = await t1.issuer.issue(tsPrivate.TokenRequest.deserialize(request.serialize()));
        const token = client.finalize(client.deserializeTokenResponse(response.serialize()));
        assert.equal(token.authInput.tokenType, 1);
        const theirs = theirToken(TS_TOKEN_TYPES.VOPRF, token);
        assert.equal(await origin.verify(theirs, t1.privateKey), true, 'Origin.verify');
        assert.equal(await t1.issuer.verify(theirs), true, 'Issuer.verify');
        // A forged authenticator does not verify (the check can fail).
        const forged = TsToken.deserialize(TS_TOKEN_TYPES.VOPRF, token.serialize());
        forged.authenticator[0] ^= 1;
        assert.equal(await origin.verify(forged, t1.privateKey), false);
    }
});

await checks.check('type 2: 5 tokens from privacypass-ts publicVerif.Issuer, verified by its Origin', async () => {
    const origin = new tsPublic.Origin(tsPublic.BlindRSAMode.PSS, ['origin.example']);
    for (let i = 0; i < 5; i++) {
        const challenge = TokenChallenge.deserialize(origin.createTokenChallenge('issuer.example', ctx()).serialize());
        const client = new publicVerif.Client(publicVerif.BlindRSAMode.PSS);
        const request = client.createTokenRequest(challenge, t2.tokenKey);
        assert.ok(request instanceof publicVerif.TokenRequest && !(request instanceof privateVerif.TokenRequest));
        const parsed = tsPublic.TokenRequest.deserialize(TS_TOKEN_TYPES.BLIND_RSA, request.serialize());
        const response = await t2.issuer.issue(parsed);
        const token = client.finalize(response);
        const theirs = theirToken(TS_TOKEN_TYPES.BLIND_RSA, token);
        assert.equal(await origin.verify(theirs, t2.publicKey), true, 'Origin.verify');
        theirs.authenticator[7] ^= 1;
        assert.equal(await origin.verify(theirs, t2.publicKey), false);
    }
});

await checks.check('type 5: 5 tokens from a voprf-ts ristretto255 issuer, verified by voprf-ts', async () => {
    for (let i = 0; i < 5; i++) {
        const challenge = new TokenChallenge(5, 'issuer.example', ctx(), ['origin.example']);
        const client = new privateVerif.Client(5);
        const request = client.createTokenRequest(challenge, t5.publicKey);
        assert.equal(request.tokenType, 5);
        assert.equal(request.blindedMsg.length, 32);
        const token = client.finalize(client.deserializeTokenResponse(await t5.issue(request)));
        assert.equal(token.authenticator.length, 64);
        const input = token.authInput.serialize();
        assert.equal(await t5.server.verifyFinalize(input, token.authenticator), true);
        token.authenticator[0] ^= 1;
        assert.equal(await t5.server.verifyFinalize(input, token.authenticator), false);
    }
});

await checks.check('a token binds the challenge digest and the key id', async () => {
    const challenge = new TokenChallenge(1, 'issuer.example', ctx(), ['origin.example']);
    const client = new privateVerif.Client();
    client.createTokenRequest(challenge, t1.publicKey);
    const response = await t1.issuer.issue(
        tsPrivate.TokenRequest.deserialize(client.createTokenRequest(challenge, t1.publicKey).serialize()),
    );
    const token = client.finalize(response);
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', challenge.serialize()));
    const keyId = new Uint8Array(await crypto.subtle.digest('SHA-256', t1.publicKey));
    assert.equal(hex(token.authInput.challengeDigest), hex(digest));
    assert.equal(hex(token.authInput.tokenKeyId), hex(keyId));
});

// ---- issuer and origin roles ------------------------------------------------

const DERIVE_INFO = new TextEncoder().encode('pat-http issuer key');

await checks.check('privateVerif.Issuer type 1: privacypass-ts requests issued by pat, tokens verified by pat and privacypass-ts', async () => {
    const seed = crypto.getRandomValues(new Uint8Array(32));
    const issuer = privateVerif.Issuer.derive(seed, DERIVE_INFO);
    assert.equal(issuer.tokenType, 1);
    // voprf-ts derives the same key from the same seed and info.
    const theirs = await deriveKeyPair(Oprf.Mode.VOPRF, Oprf.Suite.P384_SHA384, seed, DERIVE_INFO);
    assert.equal(hex(issuer.tokenKey), hex(theirs.publicKey));
    assert.equal(hex(issuer.keyId), hex(new Uint8Array(await crypto.subtle.digest('SHA-256', issuer.tokenKey))));
    const origin = new tsPrivate.Origin(['origin.example']);
    for (let i = 0; i < 3; i++) {
        const tsChallenge = origin.createTokenChallenge('issuer.example', ctx());
        const client = new tsPrivate.Client();
        const request = await client.createTokenRequest(tsChallenge, issuer.tokenKey);
        const response = issuer.issue(request.serialize());
        assert.ok(response instanceof privateVerif.TokenResponse);
        const token = await client.finalize(tsPrivate.TokenResponse.deserialize(response.serialize()));
        const challenge = TokenChallenge.deserialize(tsChallenge.serialize());
        issuer.verify(token.serialize(), challenge);
        issuer.verify(Token.deserialize(token.serialize()), tsChallenge);
        assert.equal(await origin.verify(token, theirs.privateKey), true, 'privacypass-ts Origin.verify');
        const forged = token.serialize();
        forged[forged.length - 1] ^= 1;
        throwsPat(() => issuer.verify(forged, challenge), 'Verification');
        throwsPat(() => issuer.verify(token.serialize(), new TokenChallenge(1, 'issuer.example', ctx(), ['origin.example'])), 'ChallengeMismatch');
        throwsPat(() => issuer.verify(token.serialize().subarray(1), challenge), 'UnknownTokenType');
    }
    // A request for another key, and truncated bytes.
    const other = privateVerif.Issuer.generate();
    const request = new privateVerif.Client().createTokenRequest(new TokenChallenge(1, 'i', new Uint8Array(0)), other.tokenKey);
    if (request.truncatedTokenKeyId !== issuer.keyId[31]) throwsPat(() => issuer.issue(request), 'KeyIdMismatch');
    throwsPat(() => issuer.issue(request.serialize().subarray(0, 10)), 'Truncated');
    issuer.free();
    throwsPat(() => issuer.tokenKey, 'Freed');
    throwsPat(() => issuer.issue(request), 'Freed');
    assert.throws(() => new privateVerif.Issuer(), TypeError);
});

await checks.check('privateVerif.Issuer type 5: pat clients issued and verified, voprf-ts verifies with the derived key', async () => {
    const seed = crypto.getRandomValues(new Uint8Array(32));
    const issuer = privateVerif.Issuer.derive(seed, DERIVE_INFO, 5);
    const theirs = await deriveKeyPair(Oprf.Mode.VOPRF, R255, seed, DERIVE_INFO, CryptoNoble);
    assert.equal(hex(issuer.tokenKey), hex(theirs.publicKey));
    const server = new VOPRFServer(R255, theirs.privateKey, CryptoNoble);
    for (let i = 0; i < 3; i++) {
        const challenge = new TokenChallenge(5, 'issuer.example', ctx(), ['origin.example']);
        const client = new privateVerif.Client(5);
        const response = issuer.issue(client.createTokenRequest(challenge, issuer.tokenKey));
        assert.equal(response.tokenType, 5);
        const token = client.finalize(response);
        issuer.verify(token, challenge);
        assert.equal(await server.verifyFinalize(token.authInput.serialize(), token.authenticator), true);
        token.authenticator[0] ^= 1;
        throwsPat(() => issuer.verify(token, challenge), 'Verification');
    }
    // A type-1 request is not a type-5 one.
    const t1Request = new privateVerif.Client().createTokenRequest(new TokenChallenge(1, 'i', new Uint8Array(0)), t1.publicKey);
    throwsPat(() => issuer.issue(t1Request), 'WrongTokenType');
    assert.throws(() => privateVerif.Issuer.derive(seed, DERIVE_INFO, 2), RangeError);
    issuer.free();
});

await checks.check('publicVerif.Origin: tokens of privacypass-ts\'s type-2 issuer verify; forgeries and other challenges throw', async () => {
    const origin = new publicVerif.Origin(t2.tokenKey);
    assert.equal(hex(origin.keyId), hex(new Uint8Array(await crypto.subtle.digest('SHA-256', t2.tokenKey))));
    for (let i = 0; i < 3; i++) {
        const challenge = new TokenChallenge(2, 'issuer.example', ctx(), ['origin.example']);
        const client = new publicVerif.Client();
        const request = client.createTokenRequest(challenge, t2.tokenKey);
        const parsed = tsPublic.TokenRequest.deserialize(TS_TOKEN_TYPES.BLIND_RSA, request.serialize());
        const token = client.finalize(await t2.issuer.issue(parsed));
        origin.verify(token, challenge);
        origin.verify(token.serialize(), challenge);
        throwsPat(() => origin.verify(token, new TokenChallenge(2, 'issuer.example', ctx(), ['origin.example'])), 'ChallengeMismatch');
        const bytes = token.serialize();
        bytes[bytes.length - 1] ^= 1;
        throwsPat(() => origin.verify(bytes, challenge), 'Verification');
        throwsPat(() => origin.verify(token.serialize().subarray(0, 100), challenge), 'Truncated');
    }
    throwsPat(() => new publicVerif.Origin(new Uint8Array(10)), 'InvalidValue');
});

await checks.check('0xDA7A: publicVerif.ClientWithMetadata answered by privacypass-ts IssuerWithMetadata, verified by both origins', async () => {
    const v = JSON.parse(readFileSync(path.join(root, 'tests/vectors/privacypass-ts/pub_verif_with_metadata_v3.json'), 'utf8'))[0];
    const pem = Buffer.from(v.skS, 'hex').toString('utf8');
    const der = Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
    const alg = { name: 'RSA-PSS', hash: 'SHA-384' };
    const privateKey = await crypto.subtle.importKey('pkcs8', der, alg, true, ['sign']);
    const tokenKey = new Uint8Array(Buffer.from(v.pkS, 'hex'));
    const publicKey = await crypto.subtle.importKey('spki', tsPublic.convertRSASSAPSSToEnc(tokenKey), alg, true, ['verify']);
    const issuer = new tsPublic.IssuerWithMetadata(tsPublic.PartiallyBlindRSAMode.PSS, 'issuer.example', privateKey, publicKey);
    const extensions = encodeExtensions([
        { type: 1, data: new Uint8Array([1, 2, 3]) },
        { type: 7, data: new Uint8Array([9]) },
    ]);
    assert.deepEqual(decodeExtensions(extensions), [
        { type: 1, data: new Uint8Array([1, 2, 3]) },
        { type: 7, data: new Uint8Array([9]) },
    ]);
    const theirExtensions = TsExtensions.deserialize(extensions);
    assert.equal(hex(theirExtensions.serialize()), hex(extensions));
    const other = encodeExtensions([{ type: 1, data: new Uint8Array([1, 2, 4]) }]);
    const ours = new publicVerif.OriginWithMetadata(tokenKey);
    const theirs = new tsPublic.OriginWithMetadata(tsPublic.PartiallyBlindRSAMode.PSS, theirExtensions, ['origin.example']);
    for (let i = 0; i < 2; i++) {
        const challenge = new TokenChallenge(0xda7a, 'issuer.example', ctx(), ['origin.example']);
        // privacypass-ts's Extensions object is taken as well as bytes.
        const client = new publicVerif.ClientWithMetadata(publicVerif.BlindRSAMode.PSS, i === 0 ? extensions : theirExtensions);
        const request = client.createTokenRequest(challenge, tokenKey);
        assert.ok(request instanceof publicVerif.ExtendedTokenRequest);
        assert.equal(request.tokenType, 0xda7a);
        assert.equal(hex(request.extensions), hex(extensions));
        const response = await issuer.issue(tsPublic.ExtendedTokenRequest.deserialize(request.serialize()));
        const token = client.finalize(response.serialize());
        assert.equal(token.authInput.tokenType, 0xda7a);
        ours.verify(token, challenge, extensions);
        const theirToken = TsToken.deserialize(tsPublic.PARTIALLY_BLIND_RSA, token.serialize());
        assert.equal(await theirs.verify(theirToken, publicKey), true, 'privacypass-ts OriginWithMetadata.verify');
        throwsPat(() => ours.verify(token, challenge, other), 'Verification');
        throwsPat(() => ours.verify(token, new TokenChallenge(0xda7a, 'issuer.example', ctx(), ['origin.example']), extensions), 'ChallengeMismatch');
        const forged = token.serialize();
        forged[forged.length - 1] ^= 1;
        throwsPat(() => ours.verify(forged, challenge, extensions), 'Verification');
        // The Authorization value carries the extensions, both ways.
        const header = new AuthorizationHeader(token, extensions);
        const back = AuthorizationHeader.parse(header.toString());
        assert.equal(hex(back.token.serialize()), hex(token.serialize()));
        assert.equal(hex(back.extensions), hex(extensions));
        assert.equal(AuthorizationHeader.parse(new AuthorizationHeader(token).toString()).extensions, undefined);
        // Finalizing again: spent.
        throwsPat(() => client.finalize(response.serialize()), 'StateSpent');
    }
    // Unsorted and malformed extensions are refused where they enter.
    throwsPat(() => encodeExtensions([{ type: 7, data: new Uint8Array(0) }, { type: 1, data: new Uint8Array(0) }]), 'UnsortedExtensions');
    throwsPat(() => new publicVerif.ClientWithMetadata(undefined, new Uint8Array([0, 9, 0])), 'Truncated');
    throwsPat(() => decodeExtensions(new Uint8Array([0, 4, 0, 1, 0])), 'Truncated');
    assert.throws(() => new publicVerif.ClientWithMetadata(undefined, 'x'), TypeError);
});

// ---- type 0xDA7B: public metadata on POPRF(P-384, SHA-384) -------------------

const sha256 = async (bytes) => new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
const da7bVectors = JSON.parse(readFileSync(path.join(root, 'tests/vectors/pat/type-da7b-issuance-test-vectors.json'), 'utf8'));
// The module's own classes (the shipped glue, loaded by index.js above), for
// what the namespace's classes do not let a caller do: finalize with other
// extensions than the request's.
const glue = await importFrom(shippedDir, 'pat_wasm.js');

await checks.check('0xDA7B: privateVerif.IssuerWithMetadata keys: derived from a seed and imported from skS as the vectors say', () => {
    for (const v of da7bVectors) {
        const derived = privateVerif.IssuerWithMetadata.derive(new Uint8Array(Buffer.from(v.seed, 'hex')));
        const imported = privateVerif.IssuerWithMetadata.fromSecretKey(new Uint8Array(Buffer.from(v.skS, 'hex')));
        assert.equal(hex(derived.tokenKey), v.pkS);
        assert.equal(hex(imported.tokenKey), v.pkS);
        assert.equal(hex(derived.keyId), v.token_key_id);
        assert.equal(derived.tokenType, 0xda7b);
        derived.free();
        imported.free();
    }
    throwsPat(() => privateVerif.IssuerWithMetadata.fromSecretKey(new Uint8Array(48)), 'InvalidScalar');
    throwsPat(() => privateVerif.IssuerWithMetadata.fromSecretKey(new Uint8Array(48).fill(0xff)), 'InvalidScalar');
    throwsPat(() => privateVerif.IssuerWithMetadata.fromSecretKey(new Uint8Array(47).fill(1)), 'InvalidLength');
    assert.throws(() => privateVerif.IssuerWithMetadata.derive('seed'), TypeError);
    assert.throws(() => new privateVerif.IssuerWithMetadata(), TypeError);
});

await checks.check('0xDA7B: privateVerif.ClientWithMetadata and IssuerWithMetadata, 3 tokens, each bound to its extensions and challenge', async () => {
    const issuer = privateVerif.IssuerWithMetadata.generate();
    assert.equal(issuer.tokenKey.length, 49);
    const keyId = await sha256(issuer.tokenKey);
    assert.equal(hex(issuer.keyId), hex(keyId));
    const extensions = encodeExtensions([
        { type: 1, data: new Uint8Array([1, 2, 3]) },
        { type: 7, data: new Uint8Array([9]) },
    ]);
    const other = encodeExtensions([{ type: 1, data: new Uint8Array([1, 2, 4]) }]);
    for (let i = 0; i < 3; i++) {
        const challenge = new TokenChallenge(0xda7b, 'issuer.example', ctx(), ['origin.example']);
        // privacypass-ts's Extensions object is taken as well as bytes.
        const client = new privateVerif.ClientWithMetadata(i === 0 ? extensions : TsExtensions.deserialize(extensions));
        assert.equal(client.tokenType, 0xda7b);
        assert.equal(hex(client.extensions), hex(extensions));
        const request = client.createTokenRequest(challenge, issuer.tokenKey);
        assert.ok(request instanceof privateVerif.ExtendedTokenRequest);
        assert.ok(!(request instanceof publicVerif.ExtendedTokenRequest));
        assert.equal(request.tokenType, 0xda7b);
        assert.equal(request.truncatedTokenKeyId, keyId[31]);
        assert.equal(request.blindedMsg.length, 49);
        assert.equal(hex(request.extensions), hex(extensions));
        assert.equal(hex(request.serialize()), hex(request.serialize().subarray(0, 52)) + hex(extensions));
        const response = issuer.issue(request);
        assert.ok(response instanceof privateVerif.TokenResponse);
        assert.equal(response.tokenType, 0xda7b);
        assert.equal(response.evaluateMsg.length, 49);
        assert.equal(response.evaluateProof.length, 96);
        const token = client.finalize(client.deserializeTokenResponse(response.serialize()));
        assert.equal(token.authInput.tokenType, 0xda7b);
        assert.equal(token.authenticator.length, 48);
        assert.equal(hex(token.authInput.tokenKeyId), hex(keyId));
        assert.equal(hex(token.authInput.challengeDigest), hex(await sha256(challenge.serialize())));
        issuer.verify(token, challenge, extensions);
        issuer.verify(token.serialize(), { serialize: () => challenge.serialize() }, TsExtensions.deserialize(extensions));
        throwsPat(() => issuer.verify(token, challenge, other), 'Verification');
        throwsPat(() => issuer.verify(token, new TokenChallenge(0xda7b, 'issuer.example', ctx(), ['origin.example']), extensions), 'ChallengeMismatch');
        const forged = token.serialize();
        forged[forged.length - 1] ^= 1;
        throwsPat(() => issuer.verify(forged, challenge, extensions), 'Verification');
        throwsPat(() => issuer.verify(token.serialize().subarray(0, 100), challenge, extensions), 'Truncated');
        // The Authorization value carries the extensions, both ways, and what it carries verifies.
        const value = new AuthorizationHeader(token, extensions).toString();
        assert.match(value, /^PrivateToken token="[A-Za-z0-9_-]+={0,2}", extensions="[A-Za-z0-9_-]+={0,2}"$/);
        const back = AuthorizationHeader.parse(value);
        assert.equal(hex(back.token.serialize()), hex(token.serialize()));
        assert.equal(back.token.authInput.tokenType, 0xda7b);
        assert.equal(hex(back.extensions), hex(extensions));
        issuer.verify(back.token, challenge, back.extensions);
        // Finalizing again: spent.
        throwsPat(() => client.finalize(response), 'StateSpent');
    }
    // Another issuer's answer does not verify, and leaves the request usable.
    const challenge = new TokenChallenge(0xda7b, 'issuer.example', ctx(), ['origin.example']);
    const client = new privateVerif.ClientWithMetadata(extensions);
    const request = client.createTokenRequest(challenge, issuer.tokenKey);
    const otherIssuer = privateVerif.IssuerWithMetadata.fromSecretKey(new Uint8Array(Buffer.from(da7bVectors[0].skS, 'hex')));
    if (request.truncatedTokenKeyId !== otherIssuer.keyId[31]) throwsPat(() => otherIssuer.issue(request), 'KeyIdMismatch');
    const wrong = glue.PoprfIssuer.fromSecretKey(new Uint8Array(Buffer.from(da7bVectors[1].skS, 'hex')));
    const wrongResponse = (() => {
        // The other key's evaluation of this very request: the key id check skipped by a request re-addressed to it.
        const bytes = request.serialize();
        bytes[2] = wrong.keyId[31];
        return wrong.evaluate(bytes);
    })();
    throwsPat(() => client.finalize(wrongResponse), 'Verification');
    client.finalize(issuer.issue(request));
    wrong.free();
    otherIssuer.free();
    // Unsorted and malformed extensions are refused where they enter.
    throwsPat(() => new privateVerif.ClientWithMetadata(new Uint8Array([0, 9, 0])), 'Truncated');
    assert.throws(() => new privateVerif.ClientWithMetadata('x'), TypeError);
    issuer.free();
    throwsPat(() => issuer.tokenKey, 'Freed');
    throwsPat(() => issuer.issue(request), 'Freed');
});

await checks.check('0xDA7B: other types, truncated and trailing bytes, ExtensionsMismatch (module classes), state kept until a success', () => {
    const issuer = privateVerif.IssuerWithMetadata.generate();
    const extensions = encodeExtensions([{ type: 2, data: new Uint8Array([0x55, 0x53]) }]);
    const other = encodeExtensions([{ type: 2, data: new Uint8Array([0x55, 0x4b]) }]);
    const c1 = new TokenChallenge(1, 'issuer.example', ctx());
    const c7b = new TokenChallenge(0xda7b, 'issuer.example', ctx(), ['origin.example']);
    // A challenge of another type, at either client; a request of another type at either issuer.
    throwsPat(() => new privateVerif.ClientWithMetadata(extensions).createTokenRequest(c1, issuer.tokenKey), 'WrongTokenType');
    throwsPat(() => new privateVerif.Client().createTokenRequest(c7b, issuer.tokenKey), 'WrongTokenType');
    const t1Request = new privateVerif.Client().createTokenRequest(c1, t1.publicKey);
    throwsPat(() => issuer.issue(t1Request), 'WrongTokenType');
    const client = new privateVerif.ClientWithMetadata(extensions);
    const request = client.createTokenRequest(c7b, issuer.tokenKey);
    const type1Issuer = privateVerif.Issuer.generate();
    throwsPat(() => type1Issuer.issue(request), 'WrongTokenType');
    type1Issuer.free();
    // Requests cut short or with a byte more.
    const bytes = request.serialize();
    throwsPat(() => issuer.issue(bytes.subarray(0, bytes.length - 1)), 'Truncated');
    throwsPat(() => issuer.issue(new Uint8Array([...bytes, 0])), 'TrailingBytes');
    // Responses cut short or with a byte more, to the namespace's client.
    const response = issuer.issue(request).serialize();
    assert.equal(response.length, 145);
    throwsPat(() => client.deserializeTokenResponse(response.subarray(0, 144)), 'Truncated');
    throwsPat(() => client.deserializeTokenResponse(new Uint8Array([...response, 0])), 'TrailingBytes');
    throwsPat(() => client.finalize(response.subarray(0, 144)), 'Truncated');
    throwsPat(() => client.finalize(new Uint8Array([...response, 0])), 'TrailingBytes');
    throwsPat(() => new privateVerif.ClientWithMetadata(extensions).finalize(response), 'NoTokenRequest');

    // The module's classes: a finalize with other extensions than the request's.
    const raw = new glue.PoprfClient(issuer.tokenKey);
    assert.equal(hex(raw.keyId), hex(issuer.keyId));
    const pending = raw.request(c7b.serialize(), extensions);
    const answer = issuer.issue(pending.bytes).serialize();
    throwsPat(() => pending.finalize(other, answer), 'ExtensionsMismatch');
    throwsPat(() => pending.finalize(new Uint8Array([0, 0]), answer), 'ExtensionsMismatch');
    throwsPat(() => pending.finalize(extensions, answer.subarray(1)), 'Truncated');
    throwsPat(() => pending.finalize(extensions, new Uint8Array([...answer, 0])), 'TrailingBytes');
    throwsPat(() => glue.PoprfClient.checkResponse(answer.subarray(1)), 'Truncated');
    // None of those spent the state; the right extensions do, once.
    const token = pending.finalize(extensions, answer);
    issuer.verify(token, c7b, extensions);
    throwsPat(() => pending.finalize(extensions, answer), 'StateSpent');
    throwsPat(() => raw.request(c1.serialize(), extensions), 'WrongTokenType');
    throwsPat(() => new glue.PoprfClient(issuer.tokenKey.subarray(1)), 'InvalidLength');
    const notOnCurve = issuer.tokenKey;
    notOnCurve[0] = 5;
    throwsPat(() => new glue.PoprfClient(notOnCurve), 'InvalidElement');
    pending.free();
    raw.free();
    issuer.free();
});

// ---- ARC (type 0xE5AC) ----------------------------------------------------------

await checks.check('ARC: the challenge carries credentialContext, WWW-Authenticate its rate-limit, both ways', () => {
    const cc = ctx();
    const challenge = new TokenChallenge(arc.TOKEN_TYPE, 'issuer.example', ctx(), ['origin.example'], cc);
    assert.equal(hex(challenge.credentialContext), hex(cc));
    const again = TokenChallenge.deserialize(challenge.serialize());
    assert.equal(hex(again.credentialContext), hex(cc));
    assert.equal(again.tokenType, 0xe5ac);
    // Empty by default; absent on other types, which refuse one.
    const plain = new TokenChallenge(arc.TOKEN_TYPE, 'issuer.example', new Uint8Array(0));
    assert.equal(plain.credentialContext.length, 0);
    assert.equal('credentialContext' in new TokenChallenge(2, 'issuer.example', ctx()), false);
    throwsPat(() => new TokenChallenge(2, 'issuer.example', ctx(), undefined, cc), 'InvalidValue');
    throwsPat(() => new TokenChallenge(arc.TOKEN_TYPE, 'i', ctx(), undefined, cc.subarray(1)), 'InvalidLength');
    // The ARC encoding is one byte longer than RFC 9577's: each read as the other fails.
    const bytes = plain.serialize();
    throwsPat(() => TokenChallenge.deserialize(bytes.subarray(0, bytes.length - 1)), 'Truncated');

    const key = new Uint8Array(99).fill(3);
    const header = new WWWAuthenticateHeader(challenge, key, 60, undefined, undefined, 100).toString();
    assert.match(header, /, rate-limit=100$/);
    const [parsed] = WWWAuthenticateHeader.parse(`Basic realm="x", ${header}`);
    assert.equal(parsed.rateLimit, 100);
    assert.equal(hex(parsed.challenge.credentialContext), hex(cc));
    assert.equal(hex(parsed.challenge.serialize()), hex(challenge.serialize()));
    assert.equal(parsed.maxAge, 60);
    // A limit is required on an ARC challenge, refused on others and beside extensions.
    throwsPat(() => new WWWAuthenticateHeader(challenge, key).toString(), 'MissingParameter');
    throwsPat(() => new WWWAuthenticateHeader(challenge, key, 60, undefined, undefined, 1).toString(), 'InvalidValue');
    throwsPat(() => new WWWAuthenticateHeader(new TokenChallenge(2, 'i', ctx()), key, 1, undefined, undefined, 5).toString(), 'InvalidValue');
    assert.throws(() => new WWWAuthenticateHeader(challenge, key, 60, undefined, undefined, -1).toString(), RangeError);
    // Ignored on other types, as the library does; malformed on ARC's, the challenge is unusable.
    const other = `${new WWWAuthenticateHeader(new TokenChallenge(2, 'i', ctx()), key).toString()}, rate-limit=x`;
    assert.equal(WWWAuthenticateHeader.parse(other)[0].rateLimit, undefined);
    throwsPat(() => WWWAuthenticateHeader.parse(header.replace('rate-limit=100', 'rate-limit=-1')), 'InvalidValue');
});

await checks.check('ARC: a credential, 3 tokens under limit 3 through exported states, replays told apart, then the limit', () => {
    const issuer = arc.Issuer.generate();
    const challenge = new TokenChallenge(arc.TOKEN_TYPE, 'issuer.example', ctx(), ['origin.example']);
    const client = new arc.Client(issuer.tokenKey);
    assert.equal(hex(client.keyId), hex(issuer.keyId));
    const request = client.createCredentialRequest(challenge);
    assert.equal(request.serialize().length, 2 + 1 + 226);
    assert.equal(request.truncatedTokenKeyId, issuer.keyId[31]);
    // The request state exported, then finalized by a fresh client.
    const state = request.exportState();
    const response = issuer.issue(request);
    assert.equal(response.length, 454);
    const bad = response.slice();
    bad[300] ^= 1;
    assert.throws(() => request.finalize(bad), (e) => e.name === 'PatError');
    const credential = new arc.Client(issuer.tokenKey).finalizeExported(state, response);
    assert.ok(state.every((b) => b === 0), 'the exported request state is zeroed once finalized');
    request.finalize(response).free();
    throwsPat(() => request.finalize(response), 'StateSpent');
    throwsPat(() => request.exportState(), 'StateSpent');

    const kept = arc.Credential.import(credential.export());
    let saved = client.presentationState(kept, challenge, 3).export();
    const tags = new Set();
    for (let i = 0; i < 3; i++) {
        // Each token from the state of the previous run, as a page would keep it.
        const pstate = arc.PresentationState.import(saved);
        assert.equal(pstate.remaining, 3 - i);
        assert.equal(pstate.limit, 3);
        const token = client.createToken(pstate, challenge);
        saved = pstate.export();
        pstate.free();
        assert.equal(token.tokenType, 0xe5ac);
        const header = new AuthorizationHeader(token).toString();
        const received = AuthorizationHeader.parse(header).token;
        assert.ok(received instanceof arc.Token);
        assert.equal(hex(received.serialize()), hex(token.serialize()));
        assert.equal(hex(received.issuerKeyId), hex(issuer.keyId));
        const tag = hex(issuer.verify(received, challenge, 3));
        assert.equal(tag.length, 64);
        assert.equal(tags.has(tag), false, 'a tag repeats');
        tags.add(tag);
        // The same token verified again gives the same replay key.
        assert.equal(hex(issuer.verify(token.serialize(), challenge, 3)), tag);
        throwsPat(() => issuer.verify(token, new TokenChallenge(arc.TOKEN_TYPE, 'issuer.example', ctx()), 3), 'ChallengeMismatch');
        throwsPat(() => issuer.verify(token, challenge, 1 << 20), 'Truncated');
        const forged = token.serialize();
        forged[forged.length - 1] ^= 1;
        assert.throws(() => issuer.verify(forged, challenge, 3), (e) => e.name === 'PatError');
    }
    const spent = arc.PresentationState.import(saved);
    throwsPat(() => client.createToken(spent, challenge), 'PresentationLimitReached');
    // Another challenge (another presentation context) with the same state.
    const fresh = client.presentationState(kept, challenge, 3);
    throwsPat(() => client.createToken(fresh, new TokenChallenge(arc.TOKEN_TYPE, 'issuer.example', ctx())), 'ChallengeMismatch');
    // Another issuer's key; secret keys round-trip; freed objects throw.
    throwsPat(() => arc.Issuer.generate().issue(client.createCredentialRequest(challenge)), 'KeyIdMismatch');
    throwsPat(() => arc.Issuer.fromSecretKey(new Uint8Array(128)), 'InvalidKey');
    throwsPat(() => arc.Issuer.fromSecretKey(new Uint8Array(127)), 'InvalidLength');
    issuer.free();
    throwsPat(() => issuer.tokenKey, 'Freed');
    kept.free();
    throwsPat(() => kept.export(), 'Freed');
    assert.throws(() => client.presentationState(credential, challenge, 1), RangeError);
    assert.throws(() => client.presentationState(credential, challenge, 2 ** 32 + 1), RangeError);
    assert.throws(() => client.createToken(saved, challenge), TypeError);
    throwsPat(() => arc.PresentationState.import(saved.subarray(1)), 'InvalidLength');
    throwsPat(() => new arc.Client(client.keyId), 'Truncated');
    throwsPat(() => arc.Token.deserialize(new Uint8Array([0xe5, 0xac, 1, 2, 3])), 'InvalidLength');
    // A type-2 challenge for an ARC client.
    throwsPat(() => client.createCredentialRequest(new TokenChallenge(2, 'i', ctx())), 'WrongTokenType');
});

// ---- batches (draft-ietf-privacypass-batched-tokens §5, §6) --------------------

/** A QUIC varint (RFC 9000 §16), shortest form. */
function varint(n) {
    if (n < 64) return [n];
    if (n < 16384) return [0x40 | (n >> 8), n & 0xff];
    return [0x80 | (n >>> 24), (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
}

/** The value and end of the varint at `at`. */
function readVarint(bytes, at) {
    const len = 1 << (bytes[at] >> 6);
    let v = bytes[at] & 0x3f;
    for (let i = 1; i < len; i++) v = v * 256 + bytes[at + i];
    return [v, at + len];
}

const concat = (...parts) => {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
        out.set(p, at);
        at += p.length;
    }
    return out;
};

/** An amortized response from a voprf-ts server: its batched evaluation of the request's elements. */
async function voprfBatchResponse(server, group, request, Ne) {
    const [len, at] = readVarint(request, 3);
    const elements = [];
    for (let i = 0; i < len / Ne; i++) elements.push(group.desElt(request.subarray(at + i * Ne, at + (i + 1) * Ne)));
    const evaluation = await server.blindEvaluate(new EvaluationRequest(elements));
    return concat(
        new Uint8Array(varint(len)),
        ...evaluation.evaluated.map((e) => e.serialize()),
        evaluation.proof.serialize(),
    );
}

await checks.check('amortized: 5-token batches of types 1 and 5 from privateVerif.Issuer.issueBatch, finalized live and from the exported state', () => {
    for (const [type, Ne] of [[1, 49], [5, 32]]) {
        const issuer = privateVerif.Issuer.generate(type);
        const challenge = new TokenChallenge(type, 'issuer.example', ctx(), ['origin.example']);
        const client = new privateVerif.Client(type);
        const batch = client.createBatchTokenRequest(challenge, issuer.tokenKey, 5);
        assert.ok(batch instanceof privateVerif.BatchTokenRequest);
        assert.equal(batch.count, 5);
        assert.equal(batch.tokenType, type);
        assert.equal(batch.truncatedTokenKeyId, issuer.keyId[31]);
        const bytes = batch.serialize();
        assert.equal(bytes.length, 3 + varint(5 * Ne).length + 5 * Ne);
        const state = batch.exportState();
        // The library's fixed length whatever the count: version, shape,
        // type (2), key id (32), count (2), then 16 slots of nonce (32),
        // challenge digest (32), blind and blinded element (P-384: 48 and
        // 49; ristretto255: 32 and 32).
        const stateLength = type === 1 ? 2 + 2 + 32 + 2 + 16 * (32 + 32 + 48 + 49) : 2 + 2 + 32 + 2 + 16 * (32 + 32 + 32 + 32);
        assert.equal(stateLength, type === 1 ? 2614 : 2086);
        assert.equal(state.length, stateLength);
        const RawClient = type === 1 ? glue.P384Client : glue.Ristretto255Client;
        assert.equal(RawClient.batchStateLength(), stateLength);
        const response = issuer.issueBatch(batch);
        // The response as bytes, or as anything with serialize().
        const tokens = client.finalizeBatch({ serialize: () => response });
        assert.equal(tokens.length, 5);
        const nonces = new Set();
        for (const token of tokens) {
            assert.equal(token.authInput.tokenType, type);
            issuer.verify(token, challenge);
            nonces.add(hex(token.authInput.nonce));
            const parsed = AuthorizationHeader.parse(new AuthorizationHeader(token).toString()).token;
            assert.equal(hex(parsed.serialize()), hex(token.serialize()));
        }
        assert.equal(nonces.size, 5, 'nonces repeat');
        throwsPat(() => client.finalizeBatch(response), 'StateSpent');
        throwsPat(() => batch.exportState(), 'StateSpent');
        // The exported state, by a fresh client: the same tokens; the state zeroed.
        const again = new privateVerif.Client(type).finalizeBatchExported(state, issuer.tokenKey, response);
        assert.deepEqual(again.map((t) => hex(t.serialize())), tokens.map((t) => hex(t.serialize())));
        assert.ok(state.every((b) => b === 0), 'the exported state is zeroed once finalized');
        // One token, and the most a batch holds.
        const one = client.createBatchTokenRequest(challenge, issuer.tokenKey, 1);
        assert.equal(client.finalizeBatch(issuer.issueBatch(one)).length, 1);
        const most = client.createBatchTokenRequest(challenge, issuer.tokenKey, 16);
        assert.equal(client.finalizeBatch(issuer.issueBatch(most)).length, 16);
        issuer.free();
    }
});

await checks.check("amortized: voprf-ts answers batches with privacypass-ts's type-1 key and a type-5 key; tokens verified by privacypass-ts and voprf-ts", async () => {
    const p384 = new VOPRFServer(Oprf.Suite.P384_SHA384, t1.privateKey);
    const challenge = new TokenChallenge(1, 'issuer.example', ctx(), ['origin.example']);
    const client = new privateVerif.Client();
    const batch = client.createBatchTokenRequest(challenge, t1.publicKey, 4);
    const response = await voprfBatchResponse(p384, Oprf.getGroup(Oprf.Suite.P384_SHA384), batch.serialize(), 49);
    for (const token of client.finalizeBatch(response)) {
        assert.equal(await t1.issuer.verify(theirToken(TS_TOKEN_TYPES.VOPRF, token)), true);
    }
    const c5 = new TokenChallenge(5, 'issuer.example', ctx(), ['origin.example']);
    const client5 = new privateVerif.Client(5);
    const batch5 = client5.createBatchTokenRequest(c5, t5.publicKey, 3);
    const response5 = await voprfBatchResponse(t5.server, Oprf.getGroup(R255, CryptoNoble), batch5.serialize(), 32);
    for (const token of client5.finalizeBatch(response5)) {
        assert.equal(await t5.server.verifyFinalize(token.authInput.serialize(), token.authenticator), true);
    }
});

await checks.check('amortized: counts, truncated and trailing bytes, other types and keys, wrong-length states, forgeries, by code', () => {
    const issuer = privateVerif.Issuer.generate(1);
    const challenge = new TokenChallenge(1, 'issuer.example', ctx());
    const client = new privateVerif.Client();
    throwsPat(() => client.createBatchTokenRequest(challenge, issuer.tokenKey, 0), 'InvalidLength');
    throwsPat(() => client.createBatchTokenRequest(challenge, issuer.tokenKey, 17), 'CapacityExceeded');
    throwsPat(() => client.createBatchTokenRequest(new TokenChallenge(5, 'i', ctx()), issuer.tokenKey, 2), 'WrongTokenType');
    throwsPat(() => client.finalizeBatch(new Uint8Array(10)), 'NoTokenRequest');
    const batch = client.createBatchTokenRequest(challenge, issuer.tokenKey, 3);
    const bytes = batch.serialize();
    throwsPat(() => issuer.issueBatch(bytes.subarray(0, bytes.length - 1)), 'Truncated');
    throwsPat(() => issuer.issueBatch(concat(bytes, [0])), 'TrailingBytes');
    throwsPat(() => issuer.issueBatch(concat([0, 5], bytes.subarray(2))), 'WrongTokenType');
    throwsPat(() => privateVerif.Issuer.generate(1).issueBatch(bytes), 'KeyIdMismatch');
    const seventeen = concat(bytes.subarray(0, 3), varint(17 * 49), ...Array(17).fill(bytes.subarray(bytes.length - 49)));
    throwsPat(() => issuer.issueBatch(seventeen), 'CapacityExceeded');
    const response = issuer.issueBatch(bytes);
    const state = batch.exportState();
    throwsPat(() => client.finalizeBatch(response.subarray(0, response.length - 1)), 'Truncated');
    throwsPat(() => client.finalizeBatch(concat(response, [0])), 'TrailingBytes');
    const other = client.finalizeBatchExported.bind(new privateVerif.Client());
    // Another batch's response (4 tokens), another key's (its proof fails).
    const four = new privateVerif.Client().createBatchTokenRequest(challenge, issuer.tokenKey, 4);
    throwsPat(() => batch.finalize(issuer.issueBatch(four)), 'InvalidLength');
    const stranger = privateVerif.Issuer.generate(1);
    const theirs = new privateVerif.Client().createBatchTokenRequest(challenge, stranger.tokenKey, 3);
    const foreign = concat(bytes.subarray(0, 2), [theirs.serialize()[2]], bytes.subarray(3));
    throwsPat(() => batch.finalize(stranger.issueBatch(foreign)), 'Verification');
    // States: one byte short or long, another key's client, a type-5 client.
    throwsPat(() => other(state.subarray(1), issuer.tokenKey, response), 'InvalidLength');
    throwsPat(() => other(concat(state, [0]), issuer.tokenKey, response), 'InvalidLength');
    throwsPat(() => other(state, stranger.tokenKey, response), 'KeyIdMismatch');
    // The header: version 1, shape 2 (an amortized batch). Another version,
    // or a zeroed state, is "UnknownStateVersion"; another shape (one
    // token's, a generic batch's, ATHM's) "InvalidValue".
    assert.deepEqual([state[0], state[1]], [1, 2]);
    const edited = (at, value) => {
        const copy = state.slice();
        copy[at] = value;
        return copy;
    };
    for (const version of [0, 2, 0xff]) {
        throwsPat(() => other(edited(0, version), issuer.tokenKey, response), 'UnknownStateVersion');
    }
    throwsPat(() => other(new Uint8Array(state.length), issuer.tokenKey, response), 'UnknownStateVersion');
    for (const shape of [0, 1, 3, 4]) {
        throwsPat(() => other(edited(1, shape), issuer.tokenKey, response), 'InvalidValue');
    }
    const five = privateVerif.Issuer.generate(5);
    throwsPat(() => new privateVerif.Client(5).finalizeBatchExported(state, five.tokenKey, response), 'InvalidLength');
    assert.ok(state.some((b) => b !== 0), 'a refused state is left as it was');
    // None of that spent the batch; the exported state finalizes from an
    // object with serialize() too.
    assert.equal(other(state, issuer.tokenKey, { serialize: () => response }).length, 3);
    assert.equal(batch.finalize({ serialize: () => response }).length, 3);
    batch.free();
    throwsPat(() => batch.exportState(), 'Freed');
    for (const o of [issuer, stranger, five]) o.free();
});

/** Answers a generic batch request entry by entry: `answer[type](requestBytes)` gives a TokenResponse, or absent. */
async function genericResponse(request, answer, absent = new Set()) {
    const lengths = { 1: 3 + 49, 2: 3 + 256, 5: 3 + 32 };
    const [total, start] = readVarint(request, 0);
    assert.equal(start + total, request.length);
    const parts = [];
    for (let at = start, i = 0; at < request.length; i++) {
        const type = (request[at] << 8) | request[at + 1];
        const entry = request.subarray(at, at + lengths[type]);
        at += lengths[type];
        if (absent.has(i)) {
            parts.push(new Uint8Array([0]));
        } else {
            parts.push(new Uint8Array([1, 0, type]), await answer[type](entry));
        }
    }
    const body = concat(...parts);
    return concat(varint(body.length), body);
}

await checks.check("generic: a batch of types 1, 2, 1, 2 answered by privacypass-ts's genericBatched.Issuer, tokens verified by privacypass-ts", async () => {
    const c1 = new TokenChallenge(1, 'issuer.example', ctx(), ['origin.example']);
    const c2 = new TokenChallenge(2, 'issuer.example', ctx(), ['origin.example']);
    const entries = [
        { challenge: c1, tokenKey: t1.publicKey },
        { challenge: c2, tokenKey: t2.tokenKey },
        { challenge: c1, tokenKey: t1.publicKey },
        { challenge: c2, tokenKey: t2.tokenKey },
    ];
    const client = new genericBatched.Client();
    const batch = client.createTokenRequest(entries);
    assert.equal(batch.length, 4);
    assert.deepEqual(batch.tokenTypes, [1, 2, 1, 2]);
    // privacypass-ts reads our request as its own and answers it.
    const theirs = tsBatched.BatchedTokenRequest.deserialize(batch.serialize());
    assert.equal(hex(theirs.serialize()), hex(batch.serialize()));
    const state = batch.exportState();
    const response = await new tsBatched.Issuer(t1.issuer, t2.issuer).issue(theirs);
    const tokens = client.finalize(response);
    assert.equal(tokens.length, 4);
    const origin = new tsPublic.Origin(tsPublic.BlindRSAMode.PSS);
    for (const [i, token] of tokens.entries()) {
        assert.equal(token.authInput.tokenType, entries[i].challenge.tokenType);
        if (token.authInput.tokenType === 1) {
            assert.equal(await t1.issuer.verify(theirToken(TS_TOKEN_TYPES.VOPRF, token)), true);
        } else {
            assert.equal(await origin.verify(theirToken(TS_TOKEN_TYPES.BLIND_RSA, token), t2.publicKey), true);
        }
    }
    throwsPat(() => client.finalize(response), 'StateSpent');
    // The exported state with the entries' keys, by a fresh client.
    const again = new genericBatched.Client().finalizeExported(state, entries, response.serialize());
    assert.deepEqual(again.map((t) => hex(t.serialize())), tokens.map((t) => hex(t.serialize())));
    assert.ok(state.every((b) => b === 0), 'the exported state is zeroed once finalized');
});

await checks.check('generic: types 1, 5, 2 and an absent entry; counts, framing, types, keys and states refused by code', async () => {
    const i1 = privateVerif.Issuer.generate(1);
    const i5 = privateVerif.Issuer.generate(5);
    const c1 = new TokenChallenge(1, 'issuer.example', ctx());
    const c5 = new TokenChallenge(5, 'issuer.example', ctx());
    const c2 = new TokenChallenge(2, 'issuer.example', ctx());
    const entries = [
        { challenge: c1, tokenKey: i1.tokenKey },
        { challenge: c5, tokenKey: i5.tokenKey },
        { challenge: c2, tokenKey: t2.tokenKey },
        { challenge: c5, tokenKey: i5.tokenKey },
    ];
    const answer = {
        1: (entry) => i1.issue(entry).serialize(),
        5: (entry) => i5.issue(entry).serialize(),
        2: async (entry) => (await t2.issuer.issue(tsPublic.TokenRequest.deserialize(TS_TOKEN_TYPES.BLIND_RSA, entry))).serialize(),
    };
    const client = new genericBatched.Client();
    const batch = client.createTokenRequest(entries);
    const state = batch.exportState();
    // Version, shape, count (2), then 16 slots of 610 bytes: the largest
    // entry, type 2's token input (98), blind inverse (256) and blinded
    // message (256).
    assert.equal(state.length, 2 + 2 + 16 * (98 + 256 + 256));
    assert.equal(state.length, 9764);
    assert.equal(glue.GenericBatchRequest.stateLength(), 9764);
    const response = await genericResponse(batch.serialize(), answer, new Set([3]));
    // Framing first, then the batch is still usable.
    throwsPat(() => client.finalize(response.subarray(0, response.length - 1)), 'Truncated');
    throwsPat(() => client.finalize(concat(response, [0])), 'TrailingBytes');
    const three = await genericResponse(new genericBatched.Client().createTokenRequest(entries.slice(0, 3)).serialize(), answer);
    throwsPat(() => client.finalize(three), 'InvalidLength');
    // A well-framed response whose first two entries are of each other's types.
    const reversed = new genericBatched.Client().createTokenRequest([entries[1], entries[0], entries[2], entries[3]]);
    const crossed = await genericResponse(reversed.serialize(), answer);
    throwsPat(() => client.finalize(crossed), 'WrongTokenType');
    // An element that does not decode (entry 0's, tag 5); a proof that does not verify (the last byte of its s).
    const bad = response.slice();
    bad[readVarint(response, 0)[1] + 3] = 5;
    throwsPat(() => client.finalize(bad), 'InvalidElement');
    const forged = response.slice();
    forged[readVarint(response, 0)[1] + 3 + 145 - 1] ^= 1;
    throwsPat(() => client.finalize(forged), 'Verification');
    const tokens = client.finalize(response);
    assert.equal(tokens.length, 4);
    assert.equal(tokens[3], null);
    i1.verify(tokens[0], c1);
    i5.verify(tokens[1], c5);
    assert.equal(tokens[2].authInput.tokenType, 2);
    new publicVerif.Origin(t2.tokenKey).verify(tokens[2], c2);
    // The exported state: without the type-5 key, one byte short or long.
    const keys = [{ tokenType: 1, tokenKey: i1.tokenKey }, { tokenType: 2, tokenKey: t2.tokenKey }];
    throwsPat(() => client.finalizeExported(state, keys, response), 'KeyIdMismatch');
    throwsPat(() => client.finalizeExported(state.subarray(1), entries, response), 'InvalidLength');
    throwsPat(() => client.finalizeExported(concat(state, [0]), entries, response), 'InvalidLength');
    // The header: version 1, shape 3 (a generic batch); another version or
    // a zeroed state "UnknownStateVersion", another shape "InvalidValue".
    assert.deepEqual([state[0], state[1]], [1, 3]);
    const edited = (at, value) => {
        const copy = state.slice();
        copy[at] = value;
        return copy;
    };
    for (const version of [0, 2, 0xff]) {
        throwsPat(() => client.finalizeExported(edited(0, version), entries, response), 'UnknownStateVersion');
    }
    throwsPat(() => client.finalizeExported(new Uint8Array(state.length), entries, response), 'UnknownStateVersion');
    for (const shape of [0, 1, 2, 4]) {
        throwsPat(() => client.finalizeExported(edited(1, shape), entries, response), 'InvalidValue');
    }
    assert.equal(client.finalizeExported(state, entries, response).length, 4);
    // Batches that cannot be made.
    throwsPat(() => client.createTokenRequest([]), 'InvalidLength');
    throwsPat(() => client.createTokenRequest(Array(17).fill(entries[0])), 'CapacityExceeded');
    throwsPat(() => client.createTokenRequest([{ challenge: new TokenChallenge(0xda7b, 'i', ctx()), tokenKey: i1.tokenKey }]), 'UnknownTokenType');
    throwsPat(() => client.createTokenRequest([{ challenge: c1, tokenKey: i1.tokenKey.subarray(1) }]), 'InvalidLength');
    assert.throws(() => client.createTokenRequest([{ challenge: c1 }]), TypeError);
    i1.free();
    i5.free();
});

await checks.check('generic: 16 entries (the most), types 1, 5 and 2 in turn, answered entry by entry and verified', async () => {
    const i1 = privateVerif.Issuer.generate(1);
    const i5 = privateVerif.Issuer.generate(5);
    const types = Array.from({ length: 16 }, (_, i) => [1, 5, 2][i % 3]);
    const keys = { 1: i1.tokenKey, 5: i5.tokenKey, 2: t2.tokenKey };
    const entries = types.map((type) => ({ challenge: new TokenChallenge(type, 'issuer.example', ctx(), ['origin.example']), tokenKey: keys[type] }));
    const answer = {
        1: (entry) => i1.issue(entry).serialize(),
        5: (entry) => i5.issue(entry).serialize(),
        2: async (entry) => (await t2.issuer.issue(tsPublic.TokenRequest.deserialize(TS_TOKEN_TYPES.BLIND_RSA, entry))).serialize(),
    };
    const client = new genericBatched.Client();
    const batch = client.createTokenRequest(entries);
    assert.equal(batch.length, 16);
    assert.deepEqual(batch.tokenTypes, types);
    const state = batch.exportState();
    assert.equal(state.length, 9764);
    assert.equal(state[3], 16, 'the count in the state');
    const response = await genericResponse(batch.serialize(), answer);
    // The response as anything with serialize(), as privacypass-ts's.
    const tokens = client.finalize({ serialize: () => response });
    assert.equal(tokens.length, 16);
    const origin = new publicVerif.Origin(t2.tokenKey);
    for (const [i, token] of tokens.entries()) {
        assert.equal(token.authInput.tokenType, types[i]);
        if (types[i] === 2) origin.verify(token, entries[i].challenge);
        else (types[i] === 1 ? i1 : i5).verify(token, entries[i].challenge);
    }
    const again = new genericBatched.Client().finalizeExported(state, entries, { serialize: () => response });
    assert.deepEqual(again.map((t) => hex(t.serialize())), tokens.map((t) => hex(t.serialize())));
    i1.free();
    i5.free();
});

// ---- ACT (type 0xE5AD) ----------------------------------------------------------

const ACT_DS = 'ACT-v1:pat:wasm-test:1:2026-01-01';

await checks.check('ACT: a credential of 100, spends through exported states, refunds, Authorization, nullifiers told apart', () => {
    const issuer = act.Issuer.generate(ACT_DS, 16);
    assert.equal(issuer.bits, 16);
    assert.equal(issuer.tokenKey.length, 32);
    const cc = ctx();
    const challenge = new TokenChallenge(act.TOKEN_TYPE, 'issuer.example', ctx(), ['origin.example'], cc);
    assert.equal(hex(TokenChallenge.deserialize(challenge.serialize()).credentialContext), hex(cc));
    // The challenge's WWW-Authenticate round trip keeps the credential context; no rate-limit on ACT.
    const www = new WWWAuthenticateHeader(challenge, issuer.tokenKey, 60).toString();
    assert.equal(hex(WWWAuthenticateHeader.parse(www)[0].challenge.credentialContext), hex(cc));
    throwsPat(() => new WWWAuthenticateHeader(challenge, issuer.tokenKey, 60, undefined, undefined, 5).toString(), 'InvalidValue');

    const client = new act.Client(issuer.tokenKey, ACT_DS, 16);
    assert.equal(hex(client.keyId), hex(issuer.keyId));
    assert.equal(client.bits, 16);
    const request = client.createCredentialRequest(challenge);
    assert.equal(request.serialize().length, 2 + 1 + 141);
    assert.equal(request.tokenType, 0xe5ad);
    assert.equal(request.truncatedTokenKeyId, issuer.keyId[31]);
    // The request state exported, then finalized by a fresh client.
    const state = request.exportState();
    const response = issuer.issue(request, 100, challenge);
    assert.equal(response.length, 211);
    const credential = new act.Client(issuer.tokenKey, new TextEncoder().encode(ACT_DS), 16).finalizeExported(state, response);
    assert.ok(state.every((b) => b === 0), 'the exported request state is zeroed once finalized');
    assert.equal(credential.credits, 100);
    request.finalize(response).free();
    throwsPat(() => request.finalize(response), 'StateSpent');
    throwsPat(() => request.exportState(), 'StateSpent');

    // Three spends of 30 (5 back each), each from the credential of the previous run.
    let saved = credential.export();
    credential.free();
    let balance = 100;
    const nullifiers = new Set();
    for (let i = 0; i < 3; i++) {
        const held = act.Credential.import(saved);
        assert.equal(held.credits, balance);
        const spend = client.spend(held, challenge, 30n);
        throwsPat(() => held.export(), 'StateSpent');
        throwsPat(() => client.spend(held, challenge, 1), 'StateSpent');
        const refundState = spend.exportState();
        const value = new AuthorizationHeader(spend.token).toString();
        const received = AuthorizationHeader.parse(value).token;
        assert.ok(received instanceof act.Token);
        assert.equal(hex(received.serialize()), hex(spend.token.serialize()));
        assert.equal(hex(received.issuerKeyId), hex(issuer.keyId));
        assert.equal(received.spendProof.length, received.serialize().length - 66);
        throwsPat(() => issuer.verify(received, challenge, 31, 5), 'InvalidValue');
        throwsPat(() => issuer.verify(received, new TokenChallenge(act.TOKEN_TYPE, 'issuer.example', ctx()), 30, 5), 'ChallengeMismatch');
        const { nullifier, refund } = issuer.verify(received, challenge, 30, 5);
        assert.equal(nullifier.length, 32);
        assert.equal(nullifiers.has(hex(nullifier)), false, 'a nullifier repeats');
        nullifiers.add(hex(nullifier));
        // Verifying again gives the same nullifier: refusing it is the caller's store.
        assert.equal(hex(issuer.verify(spend.token, challenge, 30, 0).nullifier), hex(nullifier));
        balance += -30 + 5;
        let next;
        if (i % 2 === 0) {
            next = spend.refund(refund);
            throwsPat(() => spend.refund(refund), 'StateSpent');
            throwsPat(() => spend.exportState(), 'StateSpent');
        } else {
            next = new act.Client(issuer.tokenKey, ACT_DS, 16).refundExported(refundState, spend.token, refund);
            assert.ok(refundState.every((b) => b === 0), 'the exported refund state is zeroed once used');
        }
        assert.equal(next.credits, balance);
        saved = next.export();
        next.free();
        spend.free();
    }
    const last = act.Credential.import(saved);
    throwsPat(() => client.spend(last, challenge, balance + 1), 'ValueTooLarge');
    // A failed spend leaves the credential; all of it can be spent.
    const all = client.spend(last, challenge, balance);
    assert.equal(all.refund(issuer.verify(all.token, challenge, balance).refund).credits, 0);
    issuer.free();
    throwsPat(() => issuer.tokenKey, 'Freed');
    throwsPat(() => last.credits, 'StateSpent');
    last.free();
    throwsPat(() => last.credits, 'Freed');
});

await checks.check('ACT: every bit length (8, 32, 64, 128): the most credits it holds (2^L - 1), a spend, a refund; 2^L refused', () => {
    for (const bits of [8, 32, 64, 128]) {
        const issuer = act.Issuer.generate(ACT_DS, bits);
        const client = new act.Client(issuer.tokenKey, ACT_DS, bits);
        const challenge = new TokenChallenge(act.TOKEN_TYPE, 'issuer.example', new Uint8Array(0), ['origin.example']);
        const request = client.createCredentialRequest(challenge);
        // 2^L - 1: a number for L = 8 and 32, a BigInt (it is above 2^53) for 64 and 128.
        const most = (1n << BigInt(bits)) - 1n;
        const grant = bits <= 32 ? Number(most) : most;
        // 2^L itself: "ValueTooLarge" from the module, but for L = 128,
        // where 2^128 is a RangeError before it (credits are u128).
        if (bits < 128) {
            throwsPat(() => issuer.issue(request, 1n << BigInt(bits), challenge), 'ValueTooLarge');
        } else {
            assert.throws(() => issuer.issue(request, 1n << 128n, challenge), RangeError);
        }
        const credential = request.finalize(issuer.issue(request, grant, challenge));
        assert.equal(credential.credits, grant, `L=${bits}`);
        assert.equal(typeof credential.credits, bits <= 32 ? 'number' : 'bigint', `L=${bits}`);
        if (bits < 128) throwsPat(() => client.spend(credential, challenge, 1n << BigInt(bits)), 'ValueTooLarge');
        const spend = client.spend(credential, challenge, 7);
        const token = AuthorizationHeader.parse(new AuthorizationHeader(spend.token).toString()).token;
        assert.ok(token instanceof act.Token);
        const next = spend.refund(issuer.verify(token, challenge, 7, 2).refund);
        const left = typeof grant === 'bigint' ? grant - 5n : grant - 5;
        assert.equal(next.credits, left, `L=${bits}`);
        // Another L's issuer cannot read the token.
        const other = act.Issuer.generate(ACT_DS, bits === 8 ? 16 : 8);
        throwsPat(() => other.verify(token, challenge, 7), bits === 8 ? 'Truncated' : 'InvalidLength');
        for (const o of [issuer, client, request, credential, spend, next, other]) o.free();
    }
});

await checks.check('ACT: credits, costs and refunds cross as safe-integer numbers or BigInts below 2^128; 0 credits, a refund above the cost and bad bit lengths by code', () => {
    const issuer = act.Issuer.generate(ACT_DS, 128);
    const client = new act.Client(issuer.tokenKey, ACT_DS, 128);
    const challenge = new TokenChallenge(act.TOKEN_TYPE, 'issuer.example', new Uint8Array(0), ['origin.example']);
    const request = client.createCredentialRequest(challenge);
    // Refused in JavaScript before the module, each a RangeError naming the argument.
    const refused = [1n << 128n, 2 ** 53, 2 ** 128, 1.5, NaN, Infinity, '5', -1n, -1, -0.5, null, undefined, true, {}];
    const rangeError = (name) => (e) => e instanceof RangeError && e.message.startsWith(`${name} must be a non-negative integer`);
    for (const bad of refused) {
        assert.throws(() => issuer.issue(request, bad, challenge), rangeError('credits'), `credits ${String(bad)}`);
    }
    // Accepted: the largest safe integer, 2^53 as a BigInt, the largest u128.
    for (const [credits, back] of [
        [2 ** 53 - 1, 2 ** 53 - 1],
        [1n << 53n, 1n << 53n],
        [5n, 5],
        [(1n << 128n) - 1n, (1n << 128n) - 1n],
    ]) {
        const r = client.createCredentialRequest(challenge);
        const credential = r.finalize(issuer.issue(r, credits, challenge));
        // Read back as a number up to 2^53 - 1, as a BigInt from 2^53 on.
        assert.equal(credential.credits, back, `credits ${credits}`);
        credential.free();
        r.free();
    }
    // 0 credits: a zero scalar, which the issuer refuses.
    throwsPat(() => issuer.issue(request, 0, challenge), 'InvalidScalar');
    throwsPat(() => issuer.issue(request, 0n, challenge), 'InvalidScalar');
    const credential = request.finalize(issuer.issue(request, 100, challenge));
    for (const bad of refused) {
        assert.throws(() => client.spend(credential, challenge, bad), rangeError('cost'), `cost ${String(bad)}`);
    }
    throwsPat(() => client.spend(credential, challenge, 101n), 'ValueTooLarge');
    assert.equal(credential.credits, 100, 'the refused spends left the credential');
    const spend = client.spend(credential, challenge, 10n);
    for (const bad of refused) {
        assert.throws(() => issuer.verify(spend.token, challenge, bad), rangeError('cost'), `cost ${String(bad)}`);
        assert.throws(() => issuer.verify(spend.token, challenge, 10, bad === undefined ? -1 : bad), rangeError('refundAmount'));
    }
    // A refund above the cost; then all of it back.
    throwsPat(() => issuer.verify(spend.token, challenge, 10, 11), 'ValueTooLarge');
    assert.equal(spend.refund(issuer.verify(spend.token, challenge, 10n, 10n).refund).credits, 100);
    // Bit lengths: one of act.BITS, else a RangeError; the module's classes
    // say "InvalidLength", as the C API and the library do.
    const ds = new TextEncoder().encode(ACT_DS);
    const sk = new Uint8Array(Buffer.from(JSON.parse(readFileSync(path.join(root, 'tests/vectors/act/draft-schlesinger-cfrg-act-01.json'), 'utf8'))[0].sk_cbor, 'hex'));
    for (const bits of [0, 1, 7, 12, 129, 256, 1.5, NaN, '16', 16n, undefined]) {
        assert.throws(() => new act.Client(issuer.tokenKey, ACT_DS, bits), RangeError, `bits ${String(bits)}`);
        assert.throws(() => act.Issuer.generate(ACT_DS, bits), RangeError, `bits ${String(bits)}`);
        assert.throws(() => act.Issuer.fromSecretKey(sk, ACT_DS, bits), RangeError, `bits ${String(bits)}`);
    }
    for (const bits of [0, 1, 7, 12, 129, 256]) {
        throwsPat(() => new glue.ActClient(ds, issuer.tokenKey, bits), 'InvalidLength');
        throwsPat(() => glue.ActIssuer.generate(ds, bits), 'InvalidLength');
        throwsPat(() => glue.ActIssuer.fromSecretKey(sk, ds, bits), 'InvalidLength');
    }
    for (const o of [issuer, client, request, spend]) o.free();
});

await checks.check('ACT: truncated, trailing and other-type input, wrong-length states, other keys, refused by code', () => {
    const issuer = act.Issuer.generate(ACT_DS, 16);
    const challenge = new TokenChallenge(act.TOKEN_TYPE, 'issuer.example', ctx(), ['origin.example']);
    const client = new act.Client(issuer.tokenKey, ACT_DS, 16);
    const request = client.createCredentialRequest(challenge);
    const bytes = request.serialize();
    throwsPat(() => issuer.issue(bytes.subarray(0, bytes.length - 1), 10, challenge), 'Truncated');
    throwsPat(() => issuer.issue(new Uint8Array([...bytes, 0]), 10, challenge), 'TrailingBytes');
    throwsPat(() => issuer.issue(new Uint8Array([0, 1, ...bytes.subarray(2)]), 10, challenge), 'WrongTokenType');
    throwsPat(() => issuer.issue(bytes, 10, new TokenChallenge(2, 'issuer.example', ctx())), 'WrongTokenType');
    throwsPat(() => act.Issuer.generate(ACT_DS, 16).issue(bytes, 10, challenge), 'KeyIdMismatch');
    const response = issuer.issue(bytes, 10, challenge);
    const state = request.exportState();
    throwsPat(() => request.finalize(response.subarray(1)), 'Truncated');
    throwsPat(() => request.finalize(new Uint8Array([...response, 0])), 'TrailingBytes');
    throwsPat(() => client.finalizeExported(state.subarray(1), response), 'InvalidLength');
    throwsPat(() => client.finalizeExported(new Uint8Array([...state, 0]), response), 'InvalidLength');
    assert.ok(state.some((b) => b !== 0), 'a refused state is left as it was');
    // A response for another challenge's request context.
    const elsewhere = new TokenChallenge(act.TOKEN_TYPE, 'issuer.example', ctx(), ['other.example']);
    throwsPat(() => request.finalize(issuer.issue(bytes, 10, elsewhere)), 'ChallengeMismatch');
    // The state survived all of that.
    const credential = request.finalize(response);
    const exported = credential.export();
    throwsPat(() => act.Credential.import(exported.subarray(1)), 'InvalidValue');
    throwsPat(() => act.Credential.import(exported.subarray(0, exported.length - 1)), 'Truncated');
    throwsPat(() => act.Credential.import(new Uint8Array([...exported, 0])), 'TrailingBytes');
    throwsPat(() => client.spend(credential, elsewhere, 1), 'ChallengeMismatch');
    throwsPat(() => client.spend(credential, new TokenChallenge(2, 'issuer.example', ctx()), 1), 'WrongTokenType');
    const spend = client.spend(credential, challenge, 4);
    const refundState = spend.exportState();
    const token = spend.token.serialize();
    throwsPat(() => act.Token.deserialize(token.subarray(0, token.length - 1)), 'InvalidLength');
    throwsPat(() => act.Token.deserialize(new Uint8Array([...token, 0])), 'InvalidLength');
    throwsPat(() => act.Token.deserialize(new Uint8Array([0, 2, ...token.subarray(2)])), 'WrongTokenType');
    throwsPat(() => new AuthorizationHeader(spend.token, new Uint8Array([0, 0])).toString(), 'InvalidValue');
    throwsPat(() => issuer.verify(token.subarray(0, token.length - 1), challenge, 4), 'Truncated');
    throwsPat(() => issuer.verify(new Uint8Array([...token, 0]), challenge, 4), 'TrailingBytes');
    throwsPat(() => act.Issuer.generate(ACT_DS, 16).verify(token, challenge, 4), 'KeyIdMismatch');
    const { refund } = issuer.verify(token, challenge, 4, 1);
    // Another spend's refund does not verify against this one.
    const second = client.spend(spend.refund(refund), challenge, 1);
    const otherRefund = issuer.verify(second.token, challenge, 1, 1).refund;
    throwsPat(() => client.refundExported(refundState, token, otherRefund), 'Verification');
    throwsPat(() => client.refundExported(refundState.subarray(1), token, refund), 'InvalidValue');
    throwsPat(() => client.refundExported(new Uint8Array([...refundState, 0]), token, refund), 'TrailingBytes');
    throwsPat(() => client.refundExported(refundState, token, refund.subarray(1)), 'InvalidValue');
    assert.equal(client.refundExported(refundState, token, refund).credits, 7);
    // Keys and deployments.
    throwsPat(() => new act.Client(issuer.tokenKey.subarray(1), ACT_DS, 16), 'Truncated');
    throwsPat(() => new glue.ActClient(new TextEncoder().encode(ACT_DS), issuer.tokenKey, 12), 'InvalidLength');
    throwsPat(() => glue.ActIssuer.generate(new TextEncoder().encode(ACT_DS), 0), 'InvalidLength');
    assert.throws(() => new act.Client(issuer.tokenKey, ACT_DS, 12), RangeError);
    assert.throws(() => client.spend(credential, challenge, -1), RangeError);
    assert.throws(() => client.spend(exported, challenge, 1), TypeError);
    // Another deployment's client: its proofs do not verify.
    const stranger = new act.Client(issuer.tokenKey, 'ACT-v1:pat:other:1:2026-01-01', 16);
    const foreign = stranger.createCredentialRequest(challenge);
    throwsPat(() => issuer.issue(foreign, 10, challenge), 'Verification');
    // The appendix vectors' key: its public key, then cut, lengthened and mismatched.
    const [run] = JSON.parse(readFileSync(path.join(root, 'tests/vectors/act/draft-schlesinger-cfrg-act-01.json'), 'utf8'));
    const sk = new Uint8Array(Buffer.from(run.sk_cbor, 'hex'));
    const imported = act.Issuer.fromSecretKey(sk, run.domain_separator, run.L);
    assert.equal(hex(imported.tokenKey), run.pk_cbor.slice(4));
    imported.free();
    throwsPat(() => act.Issuer.fromSecretKey(new Uint8Array(71), ACT_DS, 16), 'InvalidValue');
    throwsPat(() => act.Issuer.fromSecretKey(sk.subarray(0, sk.length - 1), ACT_DS, 16), 'Truncated');
    throwsPat(() => act.Issuer.fromSecretKey(new Uint8Array([...sk, 0]), ACT_DS, 16), 'TrailingBytes');
    const mismatched = sk.slice();
    mismatched.set(issuer.tokenKey, sk.length - 32);
    throwsPat(() => act.Issuer.fromSecretKey(mismatched, ACT_DS, 16), 'InvalidKey');
    // {1: x, 2: W}: a2 01 5820 x[32] 02 5820 W[32]. An x not below the
    // order, a W that decodes to no element, a map of three pairs, a string
    // of 33 bytes.
    const edited = (from, to, value) => {
        const copy = sk.slice();
        copy.fill(value, from, to);
        return copy;
    };
    throwsPat(() => act.Issuer.fromSecretKey(edited(4, 36, 0xff), ACT_DS, 16), 'InvalidScalar');
    throwsPat(() => act.Issuer.fromSecretKey(edited(39, 71, 0xff), ACT_DS, 16), 'InvalidElement');
    throwsPat(() => act.Issuer.fromSecretKey(edited(0, 1, 0xa3), ACT_DS, 16), 'InvalidLength');
    throwsPat(() => act.Issuer.fromSecretKey(edited(3, 4, 0x21), ACT_DS, 16), 'InvalidLength');
    throwsPat(() => act.Issuer.fromSecretKey(edited(1, 2, 0x03), ACT_DS, 16), 'InvalidValue');
    throwsPat(() => client.createCredentialRequest(new TokenChallenge(2, 'i', ctx())), 'WrongTokenType');
    for (const o of [issuer, client, request, spend, second, stranger, foreign]) o.free();
});

// ---- ATHM (type 0xC07E) ---------------------------------------------------------

const ATHM_DEPLOYMENT = 'pat-wasm test deployment';

await checks.check('ATHM: tokens hiding each of the 4 values, live and through exported states, Authorization, read back once each', () => {
    const issuer = athm.Issuer.generate(ATHM_DEPLOYMENT);
    assert.equal(issuer.tokenKey.length, 163);
    const client = new athm.Client(issuer.tokenKey, new TextEncoder().encode(ATHM_DEPLOYMENT));
    assert.equal(hex(client.keyId), hex(issuer.keyId));
    const nonces = new Set();
    for (let value = 0; value < athm.BUCKETS; value++) {
        const request = client.createTokenRequest();
        assert.equal(request.serialize().length, 36);
        assert.equal(request.tokenType, 0xc07e);
        assert.equal(request.truncatedTokenKeyId, issuer.keyId[31]);
        const state = request.exportState();
        // Version, shape, type (2), r and tc (32 each), T (33), key id (32).
        assert.equal(state.length, 2 + 2 + 32 + 32 + 33 + 32);
        assert.equal(state.length, 133);
        assert.equal(glue.AthmClient.stateLength(), 133, "the library's RequestState::LEN");
        const response = issuer.issue(request, value);
        assert.equal(response.length, 483);
        let token;
        if (value % 2 === 0) {
            token = request.finalize(response);
            throwsPat(() => request.finalize(response), 'StateSpent');
            throwsPat(() => request.exportState(), 'StateSpent');
        } else {
            token = new athm.Client(issuer.tokenKey, ATHM_DEPLOYMENT).finalizeExported(state, response);
            assert.ok(state.every((b) => b === 0), 'the exported state is zeroed once finalized');
        }
        assert.equal(token.serialize().length, 132);
        const received = AuthorizationHeader.parse(new AuthorizationHeader(token).toString()).token;
        assert.ok(received instanceof athm.Token);
        assert.equal(hex(received.serialize()), hex(token.serialize()));
        assert.equal(hex(received.issuerKeyId), hex(issuer.keyId));
        const { metadata, nonce } = issuer.verify(received);
        assert.equal(metadata, value);
        assert.equal(hex(nonce), hex(token.nonce));
        assert.equal(nonces.has(hex(nonce)), false, 'a nonce repeats');
        nonces.add(hex(nonce));
        // Verified again, the same replay key: refusing it is the caller's store.
        assert.equal(hex(issuer.verify(token.serialize()).nonce), hex(nonce));
        request.free();
    }
    // The reference's private key: its public key and key id.
    const vectors = JSON.parse(readFileSync(path.join(root, 'tests/vectors/athm/test_vectors.json'), 'utf8'));
    const keyGen = vectors.find((v) => v.procedure === 'key_gen').output;
    const deployment = vectors.find((v) => v.procedure === 'params').output.deployment_id;
    const imported = athm.Issuer.fromSecretKey(new Uint8Array(Buffer.from(keyGen.private_key, 'hex')), deployment);
    assert.equal(hex(imported.tokenKey.subarray(0, 99)), keyGen.public_key);
    assert.equal(hex(imported.keyId), keyGen.key_id);
    // Its fresh proof verifies for a client of that deployment.
    new athm.Client(imported.tokenKey, deployment).free();
    imported.free();
    issuer.free();
    throwsPat(() => issuer.tokenKey, 'Freed');
});

await checks.check('ATHM: truncated, trailing and other-type input, wrong-length states, other keys and deployments, by code', () => {
    const issuer = athm.Issuer.generate(ATHM_DEPLOYMENT);
    const client = new athm.Client(issuer.tokenKey, ATHM_DEPLOYMENT);
    const request = client.createTokenRequest();
    const bytes = request.serialize();
    throwsPat(() => issuer.issue(bytes.subarray(0, bytes.length - 1), 1), 'Truncated');
    throwsPat(() => issuer.issue(concat(bytes, [0]), 1), 'TrailingBytes');
    throwsPat(() => issuer.issue(concat([0, 1], bytes.subarray(2)), 1), 'WrongTokenType');
    throwsPat(() => issuer.issue(bytes, 4), 'InvalidValue');
    assert.throws(() => issuer.issue(bytes, -1), RangeError);
    const stranger = athm.Issuer.generate(ATHM_DEPLOYMENT);
    throwsPat(() => stranger.issue(bytes, 1), 'KeyIdMismatch');
    const response = issuer.issue(bytes, 1);
    const state = request.exportState();
    throwsPat(() => request.finalize(response.subarray(0, response.length - 1)), 'Truncated');
    throwsPat(() => request.finalize(concat(response, [0])), 'TrailingBytes');
    // Another key's response to the same T (its truncated key id set to the stranger's).
    const foreign = concat(bytes.subarray(0, 2), [stranger.keyId[31]], bytes.subarray(3));
    throwsPat(() => request.finalize(stranger.issue(foreign, 1)), 'Verification');
    throwsPat(() => client.finalizeExported(state.subarray(1), response), 'InvalidLength');
    throwsPat(() => client.finalizeExported(concat(state, [0]), response), 'InvalidLength');
    // The header: version 1, shape 4 (ATHM), then the type.
    assert.deepEqual([state[0], state[1], state[2], state[3]], [1, 4, 0xc0, 0x7e]);
    throwsPat(() => client.finalizeExported(new Uint8Array(state.length), response), 'UnknownStateVersion');
    throwsPat(() => client.finalizeExported(concat([2], state.subarray(1)), response), 'UnknownStateVersion');
    throwsPat(() => client.finalizeExported(concat([state[0], 1], state.subarray(2)), response), 'InvalidValue');
    throwsPat(() => client.finalizeExported(concat([state[0], 2], state.subarray(2)), response), 'InvalidValue');
    throwsPat(() => client.finalizeExported(concat(state.subarray(0, 2), [0xda, 0x7b], state.subarray(4)), response), 'WrongTokenType');
    throwsPat(() => new athm.Client(stranger.tokenKey, ATHM_DEPLOYMENT).finalizeExported(state, response), 'KeyIdMismatch');
    assert.ok(state.some((b) => b !== 0), 'a refused state is left as it was');
    // None of that spent the request.
    const token = request.finalize(response);
    const t = token.serialize();
    throwsPat(() => athm.Token.deserialize(t.subarray(0, t.length - 1)), 'Truncated');
    throwsPat(() => athm.Token.deserialize(concat(t, [0])), 'TrailingBytes');
    throwsPat(() => athm.Token.deserialize(concat([0, 2], t.subarray(2))), 'WrongTokenType');
    throwsPat(() => new AuthorizationHeader(token, new Uint8Array([0, 0])).toString(), 'InvalidValue');
    throwsPat(() => stranger.verify(token), 'KeyIdMismatch');
    const forged = t.slice();
    forged[65] ^= 1;
    throwsPat(() => issuer.verify(forged), 'Verification');
    assert.equal(issuer.verify(t).metadata, 1);
    // Keys and deployments.
    throwsPat(() => new athm.Client(issuer.tokenKey, 'another deployment'), 'Verification');
    throwsPat(() => new athm.Client(issuer.tokenKey.subarray(1), ATHM_DEPLOYMENT), 'InvalidLength');
    throwsPat(() => new athm.Client(issuer.tokenKey, new Uint8Array(256)), 'InvalidLength');
    // Secret keys: 160 bytes, five scalars below the order, y and z not
    // zero, x and r_x not both zero.
    const secretKey = new Uint8Array(160);
    secretKey.fill(1);
    athm.Issuer.fromSecretKey(secretKey, ATHM_DEPLOYMENT).free();
    throwsPat(() => athm.Issuer.fromSecretKey(secretKey.subarray(1), ATHM_DEPLOYMENT), 'Truncated');
    throwsPat(() => athm.Issuer.fromSecretKey(concat(secretKey, [1]), ATHM_DEPLOYMENT), 'TrailingBytes');
    throwsPat(() => athm.Issuer.fromSecretKey(new Uint8Array(159), ATHM_DEPLOYMENT), 'Truncated');
    throwsPat(() => athm.Issuer.fromSecretKey(new Uint8Array(161), ATHM_DEPLOYMENT), 'TrailingBytes');
    throwsPat(() => athm.Issuer.fromSecretKey(new Uint8Array(160).fill(0xff), ATHM_DEPLOYMENT), 'InvalidScalar');
    throwsPat(() => athm.Issuer.fromSecretKey(new Uint8Array(160), ATHM_DEPLOYMENT), 'InvalidKey');
    throwsPat(() => athm.Issuer.fromSecretKey(secretKey, new Uint8Array(256)), 'InvalidLength');
    for (const o of [issuer, stranger, client, request]) o.free();
    throwsPat(() => client.createTokenRequest(), 'Freed');
});

// ---- errors -----------------------------------------------------------------

await checks.check('finalize: another issuer\'s answer is "Verification", the state survives, then "StateSpent"', async () => {
    const other = await type1Issuer();
    const challenge = new TokenChallenge(1, 'issuer.example', ctx());
    const client = new privateVerif.Client();
    const request = client.createTokenRequest(challenge, t1.publicKey);
    // The other issuer evaluates the same blinded element with its key.
    const req = tsPrivate.TokenRequest.deserialize(request.serialize());
    const wrong = await other.issuer.issue(req);
    throwsPat(() => client.finalize(wrong), 'Verification');
    const right = await t1.issuer.issue(req);
    const token = client.finalize(right);
    assert.equal(await t1.issuer.verify(theirToken(TS_TOKEN_TYPES.VOPRF, token)), true);
    throwsPat(() => client.finalize(right), 'StateSpent');

    const rsa = new publicVerif.Client();
    const r2 = rsa.createTokenRequest(new TokenChallenge(2, 'issuer.example', ctx()), t2.tokenKey);
    const sig = (await t2.issuer.issue(tsPublic.TokenRequest.deserialize(TS_TOKEN_TYPES.BLIND_RSA, r2.serialize())))
        .serialize();
    const bad = sig.slice();
    bad[100] ^= 1;
    throwsPat(() => rsa.finalize(bad), 'Verification');
    rsa.finalize(sig);
});

await checks.check('clients: wrong type, bad keys and short responses carry the library codes', () => {
    const c1 = new TokenChallenge(1, 'issuer.example', ctx());
    const c2 = new TokenChallenge(2, 'issuer.example', ctx());
    throwsPat(() => new privateVerif.Client().createTokenRequest(c2, t1.publicKey), 'WrongTokenType');
    throwsPat(() => new publicVerif.Client().createTokenRequest(c1, t2.tokenKey), 'WrongTokenType');
    throwsPat(() => new privateVerif.Client(5).createTokenRequest(c1, t5.publicKey), 'WrongTokenType');
    throwsPat(() => new privateVerif.Client().createTokenRequest(c1, t1.publicKey.subarray(1)), 'InvalidLength');
    const notOnCurve = t1.publicKey.slice();
    notOnCurve[0] = 5;
    throwsPat(() => new privateVerif.Client().createTokenRequest(c1, notOnCurve), 'InvalidElement');
    // A P-384 point is no SubjectPublicKeyInfo.
    throwsPat(() => new publicVerif.Client().createTokenRequest(c2, t1.publicKey), 'InvalidValue');
    throwsPat(() => new privateVerif.Client().finalize(new Uint8Array(145)), 'NoTokenRequest');
    const client = new privateVerif.Client();
    client.createTokenRequest(c1, t1.publicKey);
    throwsPat(() => client.finalize(new Uint8Array(144)), 'Truncated');
    throwsPat(() => client.deserializeTokenResponse(new Uint8Array(146)), 'TrailingBytes');
    throwsPat(() => publicVerif.TokenResponse.deserialize(new Uint8Array(255)), 'Truncated');
    assert.throws(() => new publicVerif.Client(0), RangeError);
    assert.throws(() => new privateVerif.Client(2), RangeError);
});

await checks.check('Authorization: round trip, privacypass-ts\'s unquoted form, bad values', () => {
    const token = Token.deserialize(new Uint8Array([0, 2, ...new Uint8Array(96).fill(7), ...new Uint8Array(256).fill(9)]));
    const value = new AuthorizationHeader(token).toString();
    assert.match(value, /^PrivateToken token="[A-Za-z0-9_-]+={0,2}"$/);
    assert.equal(hex(AuthorizationHeader.parse(value).token.serialize()), hex(token.serialize()));
    const theirs = new TsAuthorizationHeader(TsToken.deserialize(TS_TOKEN_TYPES.BLIND_RSA, token.serialize())).toString();
    assert.equal(hex(AuthorizationHeader.parse(theirs).token.authenticator), hex(token.authenticator));
    throwsPat(() => AuthorizationHeader.parse('Bearer abc'), 'MalformedHeader');
    throwsPat(() => AuthorizationHeader.parse('PrivateToken token="AAAA"'), 'Truncated');
    throwsPat(() => Token.deserialize(new Uint8Array([0, 9, ...new Uint8Array(200)])), 'UnknownTokenType');
});

await checks.check('IssuerDirectory: keys and the library\'s key choice', () => {
    const b64 = (b) => {
        const s = Buffer.from(b).toString('base64url');
        return s + '='.repeat((4 - (s.length % 4)) % 4);
    };
    const json = JSON.stringify({
        'issuer-request-uri': 'https://issuer.example/token-request',
        'token-keys': [
            { 'token-type': 2, 'token-key': b64(t2.tokenKey), 'not-before': 1000 },
            { 'token-type': 1, 'token-key': b64(t1.publicKey), 'not-before': 1000 },
            { 'token-type': 1, 'token-key': b64(crypto.getRandomValues(new Uint8Array(49))), 'not-before': 2000 },
        ],
    });
    const d = IssuerDirectory.parse(json);
    assert.equal(d.issuerRequestUri, 'https://issuer.example/token-request');
    assert.equal(d.tokenKeys.length, 3);
    assert.equal(hex(d.tokenKeys[0].tokenKey), hex(t2.tokenKey));
    assert.equal(d.select(1, { now: 1500 }).notBefore, 1000);
    assert.equal(d.select(1, { now: 2500 }).notBefore, 2000);
    const keyId = d.tokenKeys[1].keyId;
    assert.equal(hex(d.select(1, { keyId, now: 2500 }).tokenKey), hex(t1.publicKey));
    throwsPat(() => d.select(5), 'NoMatchingKey');
    throwsPat(() => d.select(1, { now: 10 }), 'KeyNotYetValid');
    throwsPat(() => IssuerDirectory.parse('{"token-keys": []'), 'Truncated');
    throwsPat(() => IssuerDirectory.parse('{"token-keys": []}'), 'MissingParameter');
});

// ---- randomness -------------------------------------------------------------

/** Runs f with crypto.getRandomValues replaced by `impl`. */
function withRandom(impl, f) {
    const original = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(crypto), 'getRandomValues');
    Object.defineProperty(crypto, 'getRandomValues', { value: impl, configurable: true, writable: true });
    try {
        return f();
    } finally {
        delete crypto.getRandomValues;
        assert.equal(crypto.getRandomValues, original.value);
    }
}

const clients = [
    ['type 1', () => new privateVerif.Client(), () => new TokenChallenge(1, 'i', new Uint8Array(0)), () => t1.publicKey],
    ['type 2', () => new publicVerif.Client(), () => new TokenChallenge(2, 'i', new Uint8Array(0)), () => t2.tokenKey],
    ['type 5', () => new privateVerif.Client(5), () => new TokenChallenge(5, 'i', new Uint8Array(0)), () => t5.publicKey],
    [
        'type 0xDA7B',
        () => new privateVerif.ClientWithMetadata(new Uint8Array([0, 0])),
        () => new TokenChallenge(0xda7b, 'i', new Uint8Array(0)),
        () => da7bKey,
    ],
    [
        'ARC',
        () => ({ createTokenRequest: (c, key) => new arc.Client(key).createCredentialRequest(c) }),
        () => new TokenChallenge(arc.TOKEN_TYPE, 'i', new Uint8Array(0)),
        () => arcKey,
    ],
    [
        'ACT',
        () => ({ createTokenRequest: (c, key) => new act.Client(key, ACT_DS, 16).createCredentialRequest(c) }),
        () => new TokenChallenge(act.TOKEN_TYPE, 'i', new Uint8Array(0)),
        () => actKey,
    ],
    [
        'ATHM',
        () => ({ createTokenRequest: (_c, key) => new athm.Client(key, ATHM_DEPLOYMENT).createTokenRequest() }),
        () => undefined,
        () => athmKey,
    ],
    [
        'amortized type 1',
        () => ({ createTokenRequest: (c, key) => new privateVerif.Client().createBatchTokenRequest(c, key, 2) }),
        () => new TokenChallenge(1, 'i', new Uint8Array(0)),
        () => t1.publicKey,
    ],
    [
        'generic batch',
        () => ({ createTokenRequest: (c, key) => new genericBatched.Client().createTokenRequest([{ challenge: c, tokenKey: key }]) }),
        () => new TokenChallenge(5, 'i', new Uint8Array(0)),
        () => t5.publicKey,
    ],
];
const athmKey = athm.Issuer.generate(ATHM_DEPLOYMENT).tokenKey;
const arcKey = arc.Issuer.generate().tokenKey;
const actKey = act.Issuer.generate(ACT_DS, 16).tokenKey;
const da7bKey = privateVerif.IssuerWithMetadata.generate().tokenKey;

await checks.check('randomness comes from crypto.getRandomValues, every request differs', () => {
    for (const [what, make, challenge, key] of clients) {
        let calls = 0;
        const seen = new Set();
        withRandom(
            function (array) {
                calls += 1;
                return globalThis.crypto.constructor.prototype.getRandomValues.call(globalThis.crypto, array);
            },
            () => {
                for (let i = 0; i < 4; i++) seen.add(hex(make().createTokenRequest(challenge(), key()).serialize()));
            },
        );
        assert.ok(calls >= 8, `${what}: ${calls} calls to getRandomValues for 4 requests`);
        assert.equal(seen.size, 4, `${what}: requests repeat`);
    }
});

await checks.check('a throwing getRandomValues is code "Rng" with the exception as cause; the module keeps working', () => {
    for (const [what, make, challenge, key] of clients) {
        const boom = new Error(`no entropy for ${what}`);
        const e = withRandom(
            () => {
                throw boom;
            },
            () => throwsPat(() => make().createTokenRequest(challenge(), key()), 'Rng'),
        );
        assert.equal(e.cause, boom, what);
        assert.match(e.message, /random number generator failed/);
        assert.equal(make().createTokenRequest(challenge(), key()).serialize().length > 0, true);
    }
});

await checks.check('getRandomValues stuck at zero: every type refuses ("Rng", RngCode::EXHAUSTED)', () => {
    const stuck = (a) => a.fill(0);
    // The library refuses an all-zero token nonce, the first draw of every
    // request: before it did, type 1 reduced the zeros to the blind 1.
    for (const [what, make, challenge, key] of clients) {
        if (what === 'ATHM') {
            // ATHM draws its blind r as the reference's RandomScalar does,
            // zero allowed; from zeros its T is the identity, which the
            // library refuses to send.
            withRandom(stuck, () => throwsPat(() => make().createTokenRequest(challenge(), key()), 'InvalidElement'));
            continue;
        }
        const e = withRandom(stuck, () => throwsPat(() => make().createTokenRequest(challenge(), key()), 'Rng'));
        assert.equal(e.cause, undefined, what);
        assert.match(e.message, /0xfffffffe/, `${what}: RngCode::EXHAUSTED`);
    }
});

checks.finish();
