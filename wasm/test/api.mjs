// The shipped pat-wasm package under Node: its shape (no hazmat entry
// points), its classes against privacypass-ts 0.9.0's own, issuance in
// process with privacypass-ts's Issuer classes (types 1 and 2) and with
// voprf-ts as a type-5 issuer, pat's own issuers (types 1, 5) and type-2
// origin against privacypass-ts and voprf-ts, type 0xDA7B's client and
// issuer (no peer has it: pat's own vectors), ARC (type 0xE5AC: challenges,
// issuance, tokens, exported states), thrown errors with stable codes, and
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
    arc,
    decodeExtensions,
    encodeExtensions,
    privateVerif,
    publicVerif,
} = pat;
const checks = new Checks('api');
const ctx = () => crypto.getRandomValues(new Uint8Array(32));

// ---- the package ------------------------------------------------------------

await checks.check('the shipped package exports no hazmat function; the hazmat build does', async () => {
    const names = (dir) => {
        const module = new WebAssembly.Module(readFileSync(path.join(dir, 'pat_wasm_bg.wasm')));
        return WebAssembly.Module.exports(module).map((e) => e.name);
    };
    const shipped = names(shippedDir);
    const hazmat = names(hazmatDir);
    assert.ok(shipped.length > 10, 'the module has exports');
    assert.deepEqual(shipped.filter((n) => /hazmat/i.test(n)), []);
    assert.equal(hazmat.filter((n) => /hazmat/i.test(n)).length, 7);
    const glue = await importFrom(shippedDir, 'pat_wasm.js');
    assert.deepEqual(Object.keys(glue).filter((n) => /hazmat/i.test(n)), []);
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
];
const arcKey = arc.Issuer.generate().tokenKey;
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
        const e = withRandom(stuck, () => throwsPat(() => make().createTokenRequest(challenge(), key()), 'Rng'));
        assert.equal(e.cause, undefined, what);
        assert.match(e.message, /0xfffffffe/, `${what}: RngCode::EXHAUSTED`);
    }
});

checks.finish();
