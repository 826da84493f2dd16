// The API's types, shared by both entries (index.d.ts, core.d.ts): Privacy
// Pass clients for token types 0x0001, 0x0002, 0x0005, 0xDA7A and 0xDA7B
// (RFC 9577, RFC 9578 and drafts), ARC, 0xE5AC (the `arc` namespace), ACT,
// 0xE5AD (the `act` namespace) and ATHM, 0xC07E (the `athm` namespace), and
// amortized and generic batches. Every method is synchronous. No name of the DOM library here:
// a consumer with lib ES2022 and no ambient types type-checks (scripts/wasm).
// The implementation is core.js; this file has no .js of its own.

/**
 * The byte strings the package returns: fresh arrays over their own
 * ArrayBuffer (with TypeScript >= 5.7, `Uint8Array<ArrayBuffer>`, which
 * `fetch` takes as a body; with older versions, `Uint8Array`).
 */
export type Bytes = ReturnType<Uint8Array['slice']>;

/**
 * Every error the package throws for a protocol reason is an `Error` with
 * `name` "PatError" and a stable `code`: the name of the library's error
 * variant (its `message` is the library's text), "NoTokenRequest" for a
 * `finalize` before any `createTokenRequest`, "NotInitialized" and
 * "InitPending" from pat-wasm/core's loading. Bad argument types throw
 * `TypeError`/`RangeError` instead.
 */
export interface PatError extends Error {
    name: 'PatError';
    code: PatErrorCode;
    /** For code "Rng": the exception `crypto.getRandomValues` threw, if it threw. */
    cause?: unknown;
}

/**
 * The codes a client, issuer or origin can meet: the library's variants
 * this package can produce (others may follow), and the package's own
 * ("NoTokenRequest", "NotInitialized", "InitPending", "Freed"). The
 * library's variants of parts the package does not include (replay
 * stores, key sets, rate-limited tokens, 0xDA7A issuers, the self-test)
 * are not listed.
 */
export type PatErrorCode =
    | 'Truncated'
    | 'TrailingBytes'
    | 'BufferTooSmall'
    | 'InvalidLength'
    | 'NonMinimalVarint'
    | 'InvalidValue'
    | 'UnknownTokenType'
    | 'WrongTokenType'
    | 'MalformedHeader'
    | 'MissingParameter'
    | 'DuplicateParameter'
    | 'InvalidBase64'
    | 'MalformedJson'
    | 'NoMatchingKey'
    | 'KeyNotYetValid'
    | 'InvalidElement'
    | 'InvalidScalar'
    | 'InvalidKey'
    | 'Verification'
    | 'DeriveKeyPair'
    | 'KeyIdMismatch'
    | 'ChallengeMismatch'
    | 'Rng'
    | 'CapacityExceeded'
    | 'StateSpent'
    | 'UnknownStateVersion'
    | 'NoTokenRequest'
    | 'NotInitialized'
    | 'ExtensionsMismatch'
    | 'UnsortedExtensions'
    | 'InitPending'
    | 'Freed'
    | 'PresentationLimitReached'
    | 'ValueTooLarge'
    | (string & {});

/** A token type of this package. */
export interface TokenTypeEntry {
    readonly value: 0x0001 | 0x0002 | 0x0005 | 0xda7a | 0xda7b;
    readonly name: string;
    /** Authenticator length in bytes. */
    readonly Nk: number;
    /** Key id length in bytes. */
    readonly Nid: number;
    readonly publicVerifiable: boolean;
}

export declare const TOKEN_TYPES: {
    /** 0x0001, VOPRF(P-384, SHA-384), RFC 9578 §5. */
    readonly VOPRF: TokenTypeEntry & { readonly value: 0x0001 };
    /** 0x0002, blind RSA 2048, RFC 9578 §6. */
    readonly BLIND_RSA: TokenTypeEntry & { readonly value: 0x0002 };
    /** 0x0005, VOPRF(ristretto255, SHA-512), draft-ietf-privacypass-batched-tokens. */
    readonly VOPRF_RISTRETTO255: TokenTypeEntry & { readonly value: 0x0005 };
    /** 0xDA7A, partially blind RSA 2048 with public metadata, draft-ietf-privacypass-public-metadata-issuance. */
    readonly PUBLIC_METADATA: TokenTypeEntry & { readonly value: 0xda7a };
    /** 0xDA7B, POPRF(P-384, SHA-384) with public metadata, draft-ietf-privacypass-public-metadata-issuance. */
    readonly PRIVATE_METADATA: TokenTypeEntry & { readonly value: 0xda7b };
};

export declare const MediaType: {
    readonly PRIVATE_TOKEN_ISSUER_DIRECTORY: 'application/private-token-issuer-directory';
    readonly PRIVATE_TOKEN_REQUEST: 'application/private-token-request';
    readonly PRIVATE_TOKEN_RESPONSE: 'application/private-token-response';
    /** ARC (type 0xE5AC): the body of a credential request. */
    readonly PRIVATE_CREDENTIAL_REQUEST: 'application/private-credential-request';
    readonly PRIVATE_CREDENTIAL_RESPONSE: 'application/private-credential-response';
    /** Amortized batches of types 0x0001 and 0x0005 (draft-ietf-privacypass-batched-tokens §5). */
    readonly AMORTIZED_BATCHED_TOKEN_REQUEST: 'application/private-token-amortized-batch-request';
    readonly AMORTIZED_BATCHED_TOKEN_RESPONSE: 'application/private-token-amortized-batch-response';
    /** Generic batches (§6). */
    readonly GENERIC_BATCHED_TOKEN_REQUEST: 'application/private-token-generic-batch-request';
    readonly GENERIC_BATCHED_TOKEN_RESPONSE: 'application/private-token-generic-batch-response';
};

export declare const PRIVATE_TOKEN_ISSUER_DIRECTORY: '/.well-known/private-token-issuer-directory';

/**
 * TokenChallenge (RFC 9577 §2.1.1). A deserialized challenge keeps the bytes
 * it was given: `serialize()` returns them unchanged, and a token binds
 * their SHA-256. Names are shown as UTF-8 text.
 */
/** A challenge of another implementation (privacypass-ts's), taken through its encoding. */
export interface SerializableChallenge {
    serialize(): Uint8Array;
}

export declare class TokenChallenge {
    /**
     * A new challenge; names must be printable ASCII, origin names non-empty.
     * `credentialContext` (empty or 32 bytes, empty by default) only for
     * types 0xE5AC (ARC) and 0xE5AD (ACT); any other type refuses it
     * ("InvalidValue").
     */
    constructor(
        tokenType: number,
        issuerName: string,
        redemptionContext: Uint8Array,
        originInfo?: string[],
        credentialContext?: Uint8Array,
    );
    readonly tokenType: number;
    readonly issuerName: string;
    /** Empty or 32 bytes. */
    readonly redemptionContext: Bytes;
    /** The origin names, or undefined when origin_info is empty. */
    readonly originInfo?: string[];
    /** Types 0xE5AC (ARC) and 0xE5AD (ACT) only: empty or 32 bytes. Undefined on every other type. */
    readonly credentialContext?: Bytes;
    /** Parses an encoded challenge; trailing bytes are an error ("TrailingBytes"). */
    static deserialize(bytes: Uint8Array): TokenChallenge;
    serialize(): Bytes;
}

/** token_input: the authenticated part of a token. */
export declare class AuthenticatorInput {
    constructor(tokenType: number, nonce: Uint8Array, challengeDigest: Uint8Array, tokenKeyId: Uint8Array);
    tokenType: number;
    nonce: Uint8Array;
    challengeDigest: Uint8Array;
    tokenKeyId: Uint8Array;
    serialize(): Bytes;
}

/** A token (RFC 9577 §2.2); its type is read from its first two bytes. */
export declare class Token {
    constructor(authInput: AuthenticatorInput, authenticator: Uint8Array);
    authInput: AuthenticatorInput;
    authenticator: Uint8Array;
    static deserialize(bytes: Uint8Array): Token;
    serialize(): Bytes;
}

/**
 * The encoding of an ExtensionSet (draft-ietf-privacypass-auth-scheme-extensions-03
 * §4) listing `required` (as required), then `optional`: a challenge's
 * `extensionSet`.
 */
export declare function encodeExtensionSet(required: number[], optional?: number[]): Bytes;

/** One entry of an Extensions list. */
export interface ExtensionEntry {
    type: number;
    data: Uint8Array;
}

/**
 * An Extensions list (the metadata of types 0xDA7A and 0xDA7B, the `extensions`
 * parameters) encoded from its entries in the given order, which must be
 * ascending by type ("UnsortedExtensions"); "InvalidLength" past 65535 bytes.
 */
export declare function encodeExtensions(list: ExtensionEntry[]): Bytes;

/** The entries of an encoded Extensions list, checked strictly first. */
export declare function decodeExtensions(bytes: Uint8Array): ExtensionEntry[];

/** One PrivateToken challenge of a WWW-Authenticate value (RFC 9577 §2.1). */
export declare class WWWAuthenticateHeader {
    constructor(
        challenge: TokenChallenge,
        tokenKey?: Uint8Array,
        maxAge?: number,
        extensionSet?: Uint8Array,
        extensions?: Uint8Array,
        rateLimit?: number | bigint,
    );
    challenge: TokenChallenge;
    /** Absent when the origin left `token-key` out: take it from the issuer directory. */
    tokenKey?: Uint8Array;
    maxAge?: number;
    /**
     * The `extension-set` parameter (draft-ietf-privacypass-auth-scheme-extensions-03
     * §4): the encoded ExtensionSet of the extension types the origin asks
     * for. Absent when the origin does not negotiate extensions.
     */
    extensionSet?: Uint8Array;
    /** The challenge's `extensions` parameter: an encoded Extensions list the origin suggests. */
    extensions?: Uint8Array;
    /**
     * An ARC challenge's `rate-limit` (type 0xE5AC): the presentation limit
     * (a number; a BigInt only above 2^53). Undefined on other types. Required
     * by toString() on an ARC challenge, refused on others.
     */
    rateLimit?: number | bigint;
    /** The types `extensionSet` requires, in its order (empty without one). */
    readonly requiredExtensions: number[];
    /** The types `extensionSet` lists as optional, in its order. */
    readonly optionalExtensions: number[];
    /**
     * The well-formed PrivateToken challenges of the value, in order; other
     * schemes are skipped, and a malformed PrivateToken challenge is skipped
     * when another is usable, else its PatError is thrown.
     */
    static parse(header: string): WWWAuthenticateHeader[];
    /** The challenge with quoted, padded base64url values. */
    toString(): string;
}

/** Authorization: PrivateToken token="…" (RFC 9577 §2.2). */
export declare class AuthorizationHeader {
    /** `extensions`: the encoded Extensions list sent with the token (types 0xDA7A and 0xDA7B's metadata), if any. */
    constructor(token: Token | arc.Token | act.Token | athm.Token, extensions?: Uint8Array | CanSerialize);
    /** An `arc.Token` for type 0xE5AC, an `act.Token` for 0xE5AD, an `athm.Token` for 0xC07E. */
    token: Token | arc.Token | act.Token | athm.Token;
    /** The `extensions` parameter, decoded and checked; undefined without one. */
    extensions: Bytes | undefined;
    static parse(header: string): AuthorizationHeader;
    /** `PrivateToken token="…"`, with `, extensions="…"` when there are extensions. */
    toString(): string;
}

/** A key of an issuer directory. */
export interface DirectoryKey {
    tokenType: number;
    /** The decoded `token-key`; undefined if it is not base64url. */
    tokenKey?: Bytes;
    tokenKeyBase64: string;
    /** SHA-256 of the decoded key. */
    keyId?: Bytes;
    /** UNIX seconds. */
    notBefore?: number;
}

/** An issuer directory (RFC 9578 §4). */
export declare class IssuerDirectory {
    private constructor();
    readonly issuerRequestUri: string;
    readonly tokenKeys: DirectoryKey[];
    /** Parses the JSON document (text or UTF-8 bytes). */
    static parse(json: string | Uint8Array): IssuerDirectory;
    /**
     * The key for `tokenType`: the one whose key id is `keyId` if given,
     * else the newest whose not-before is at most `now` (UNIX seconds,
     * default the current time). Throws "NoMatchingKey" or "KeyNotYetValid".
     */
    select(tokenType: number, options?: { keyId?: Uint8Array; now?: number }): DirectoryKey;
}

/** Something with the wire encoding of a TokenResponse. */
export interface CanSerialize {
    serialize(): Uint8Array;
}

/**
 * The privately verifiable types: 0x0001 (VOPRF P-384) and 0x0005 (VOPRF
 * ristretto255), and 0xDA7B (public metadata on POPRF(P-384, SHA-384):
 * `ClientWithMetadata`, `IssuerWithMetadata`).
 */
export declare namespace privateVerif {
    class TokenRequest {
        private constructor();
        readonly tokenType: number;
        readonly truncatedTokenKeyId: number;
        readonly blindedMsg: Bytes;
        serialize(): Bytes;
    }

    class TokenResponse {
        /** Type 0x0001 unless `tokenType` says 0x0005 or 0xDA7B (whose layout is type 0x0001's). */
        constructor(evaluateMsg: Uint8Array, evaluateProof: Uint8Array, tokenType?: 0x0001 | 0x0005 | 0xda7b);
        readonly tokenType: number;
        readonly evaluateMsg: Bytes;
        readonly evaluateProof: Bytes;
        static deserialize(bytes: Uint8Array, tokenType?: 0x0001 | 0x0005 | 0xda7b): TokenResponse;
        serialize(): Bytes;
    }

    /**
     * A client of one type (0x0001 unless told 0x0005), with one request in
     * flight at a time: createTokenRequest replaces the previous one.
     */
    class Client {
        constructor(tokenType?: 0x0001 | 0x0005);
        readonly tokenType: 0x0001 | 0x0005;
        /** The request for a challenge of the client's type; `issuerPublicKey` is the token key. */
        /** `tokChl`: this package's TokenChallenge, or any with `serialize()` (privacypass-ts's). */
        createTokenRequest(tokChl: TokenChallenge | SerializableChallenge, issuerPublicKey: Uint8Array): TokenRequest;
        deserializeTokenResponse(bytes: Uint8Array): TokenResponse;
        /** Checks the DLEQ proof and unblinds; "Verification" if the proof fails. */
        finalize(tokRes: CanSerialize | Uint8Array): Token;
        /**
         * An amortized batch request of `count` tokens (1 to 16;
         * "InvalidLength" for 0, "CapacityExceeded" above) for one challenge
         * and key (draft-ietf-privacypass-batched-tokens §5.1).
         */
        createBatchTokenRequest(
            tokChl: TokenChallenge | SerializableChallenge,
            issuerPublicKey: Uint8Array,
            count: number,
        ): BatchTokenRequest;
        /**
         * The batch's tokens from the issuer's response (its bytes, or
         * anything with `serialize()`); "Verification" if the batched proof
         * fails, "NoTokenRequest" before any batch.
         */
        finalizeBatch(response: CanSerialize | Uint8Array): Token[];
        /** The tokens of a batch from its exported state (zeroed on success), the issuer's key and its response. */
        finalizeBatchExported(
            state: Uint8Array,
            issuerPublicKey: Uint8Array,
            response: CanSerialize | Uint8Array,
        ): Token[];
    }

    /** An amortized batch request in flight (its state is secret). */
    class BatchTokenRequest {
        private constructor();
        readonly tokenType: 0x0001 | 0x0005;
        readonly truncatedTokenKeyId: number;
        readonly count: number;
        /** The encoded AmortizedBatchTokenRequest: POST it as MediaType.AMORTIZED_BATCHED_TOKEN_REQUEST. */
        serialize(): Bytes;
        /** The state as bytes (secret), for Client.finalizeBatchExported; "StateSpent" after finalize. */
        exportState(): Bytes;
        /** The tokens from the issuer's response (bytes or anything with `serialize()`); "StateSpent" after a success. */
        finalize(response: CanSerialize | Uint8Array): Token[];
        free(): void;
    }

    /**
     * The issuer of one type, which is also its origin (the key is secret).
     * The key stays in the module's memory; `free()` wipes it, after which
     * every call throws a PatError "Freed".
     */
    class Issuer {
        private constructor();
        /** The key of RFC 9497 DeriveKeyPair(seed, info); `pat issuer serve` uses info "pat-http issuer key". */
        static derive(seed: Uint8Array, info: Uint8Array, tokenType?: 0x0001 | 0x0005): Issuer;
        /** A fresh key from crypto.getRandomValues. */
        static generate(tokenType?: 0x0001 | 0x0005): Issuer;
        readonly tokenType: 0x0001 | 0x0005;
        /** The token key to publish (the serialized public key). */
        readonly tokenKey: Bytes;
        readonly keyId: Bytes;
        /** The TokenResponse to a TokenRequest of this type and key ("KeyIdMismatch", "InvalidElement", parse errors). */
        issue(tokReq: CanSerialize | Uint8Array): TokenResponse;
        /**
         * The AmortizedBatchTokenResponse's bytes for an amortized batch
         * request of up to 16 tokens ("KeyIdMismatch", "CapacityExceeded",
         * "InvalidElement", parse errors).
         */
        issueBatch(request: CanSerialize | Uint8Array): Bytes;
        /**
         * Returns if the token verifies for `tokChl`, else throws a PatError:
         * "Verification", "KeyIdMismatch", "ChallengeMismatch", "WrongTokenType"
         * or a parse error.
         */
        verify(token: CanSerialize | Uint8Array, tokChl: TokenChallenge | SerializableChallenge): void;
        free(): void;
    }

    /** The request of a `ClientWithMetadata`: the type-0x0001 layout with type 0xDA7B, then its extensions. */
    class ExtendedTokenRequest {
        private constructor();
        readonly tokenType: number;
        readonly truncatedTokenKeyId: number;
        readonly blindedMsg: Bytes;
        /** The encoded Extensions list the token will carry. */
        readonly extensions: Bytes;
        serialize(): Bytes;
    }

    /**
     * A client of type 0xDA7B (public metadata on POPRF(P-384, SHA-384)):
     * every token it requests carries `extensions` (an encoded Extensions
     * list, or anything with `serialize()`, as privacypass-ts's Extensions),
     * which the issuer needs to verify it (send them in the
     * AuthorizationHeader). One request in flight at a time.
     */
    class ClientWithMetadata {
        constructor(extensions: Uint8Array | CanSerialize);
        readonly tokenType: 0xda7b;
        readonly extensions: Bytes;
        /** `issuerPublicKey`: the token key, the serialized P-384 public key (49 bytes). */
        createTokenRequest(tokChl: TokenChallenge | SerializableChallenge, issuerPublicKey: Uint8Array): ExtendedTokenRequest;
        deserializeTokenResponse(bytes: Uint8Array): TokenResponse;
        /** Checks the DLEQ proof under the key tweaked by the extensions and unblinds; "Verification" if it fails. */
        finalize(tokRes: CanSerialize | Uint8Array): Token;
    }

    /**
     * The issuer of type 0xDA7B, which is also its origin (the key is
     * secret). Whether a request's or a token's extensions are acceptable
     * is the caller's policy. The key stays in the module's memory;
     * `free()` wipes it, after which every call throws a PatError "Freed".
     */
    class IssuerWithMetadata {
        private constructor();
        /** The key of DeriveKeyPair(seed, "PrivacyPass-TypeDA7B") in the POPRF mode; `seed`: 48 random bytes. */
        static derive(seed: Uint8Array): IssuerWithMetadata;
        /** A fresh key from crypto.getRandomValues. */
        static generate(): IssuerWithMetadata;
        /** The 48-byte secret scalar skS ("InvalidLength", "InvalidScalar"). */
        static fromSecretKey(bytes: Uint8Array): IssuerWithMetadata;
        readonly tokenType: 0xda7b;
        /** The token key to publish (the serialized P-384 public key, 49 bytes). */
        readonly tokenKey: Bytes;
        readonly keyId: Bytes;
        /** The TokenResponse to an ExtendedTokenRequest, under the key tweaked by its extensions ("KeyIdMismatch", "InvalidElement", parse errors). */
        issue(tokReq: CanSerialize | Uint8Array): TokenResponse;
        /**
         * Returns if the token verifies for `tokChl` and `extensions`, else
         * throws a PatError: "Verification" (also for extensions other than
         * the issued ones), "KeyIdMismatch", "ChallengeMismatch",
         * "WrongTokenType" or a parse error.
         */
        verify(
            token: CanSerialize | Uint8Array,
            tokChl: TokenChallenge | SerializableChallenge,
            extensions: Uint8Array | CanSerialize,
        ): void;
        free(): void;
    }
}

/** The publicly verifiable type 0x0002 (blind RSA 2048). */
export declare namespace publicVerif {
    /** RFC 9578 §6 uses RSABSSA-SHA384-PSS-Deterministic (salt 48) only. */
    const BlindRSAMode: { readonly PSS: 48 };
    type BlindRSAMode = 48;

    class TokenRequest {
        private constructor();
        readonly tokenType: number;
        readonly truncatedTokenKeyId: number;
        readonly blindedMsg: Bytes;
        serialize(): Bytes;
    }

    class TokenResponse {
        constructor(blindSig: Uint8Array);
        readonly tokenType: number;
        readonly blindSig: Bytes;
        static deserialize(bytes: Uint8Array): TokenResponse;
        serialize(): Bytes;
    }

    /** A client with one request in flight at a time. */
    class Client {
        constructor(mode?: BlindRSAMode);
        /** `issuerPublicKey` is the token key: an RSASSA-PSS SubjectPublicKeyInfo. */
        /** `tokChl`: this package's TokenChallenge, or any with `serialize()` (privacypass-ts's). */
        createTokenRequest(tokChl: TokenChallenge | SerializableChallenge, issuerPublicKey: Uint8Array): TokenRequest;
        deserializeTokenResponse(bytes: Uint8Array): TokenResponse;
        /** Unblinds and verifies the signature; "Verification" if it does not verify. */
        finalize(tokRes: CanSerialize | Uint8Array): Token;
    }

    /** The request of a `ClientWithMetadata`: the type-0x0002 layout with type 0xDA7A, then its extensions. */
    class ExtendedTokenRequest {
        private constructor();
        readonly tokenType: number;
        readonly truncatedTokenKeyId: number;
        readonly blindedMsg: Bytes;
        /** The encoded Extensions list the token will carry. */
        readonly extensions: Bytes;
        serialize(): Bytes;
    }

    /**
     * A client of type 0xDA7A (partially blind RSA with public metadata):
     * every token it requests carries `extensions` (an encoded Extensions
     * list, or anything with `serialize()`, as privacypass-ts's Extensions),
     * which the origin needs to verify it (send them in the
     * AuthorizationHeader). One request in flight at a time.
     */
    class ClientWithMetadata {
        constructor(mode: BlindRSAMode | undefined, extensions: Uint8Array | CanSerialize);
        readonly extensions: Bytes;
        createTokenRequest(tokChl: TokenChallenge | SerializableChallenge, issuerPublicKey: Uint8Array): ExtendedTokenRequest;
        deserializeTokenResponse(bytes: Uint8Array): TokenResponse;
        /** Unblinds and verifies under the key derived for the extensions; "Verification" if it does not verify. */
        finalize(tokRes: CanSerialize | Uint8Array): Token;
    }

    /** The origin of type 0xDA7A: verifies tokens with the issuer's token key and the extensions sent with each. */
    class OriginWithMetadata {
        /** `tokenKey`: the issuer's RSASSA-PSS SubjectPublicKeyInfo. */
        constructor(tokenKey: Uint8Array);
        /**
         * Returns if the token verifies for `tokChl` and `extensions`, else
         * throws a PatError: "Verification" (also for extensions other than
         * the issued ones), "KeyIdMismatch", "ChallengeMismatch",
         * "WrongTokenType" or a parse error.
         */
        verify(
            token: CanSerialize | Uint8Array,
            tokChl: TokenChallenge | SerializableChallenge,
            extensions: Uint8Array | CanSerialize,
        ): void;
    }

    /** The origin of type 0x0002: verifies tokens with the issuer's token key. */
    class Origin {
        /** `tokenKey`: the issuer's RSASSA-PSS SubjectPublicKeyInfo (the directory's token-key). */
        constructor(tokenKey: Uint8Array);
        readonly keyId: Bytes;
        /**
         * Returns if the token verifies for `tokChl`, else throws a PatError:
         * "Verification", "KeyIdMismatch", "ChallengeMismatch", "WrongTokenType"
         * or a parse error.
         */
        verify(token: CanSerialize | Uint8Array, tokChl: TokenChallenge | SerializableChallenge): void;
    }
}

/**
 * Token type 0xE5AC, ARC(P-256) (draft-ietf-privacypass-arc-protocol-01): one
 * credential from the issuer, then up to `limit` unlinkable tokens per
 * presentation context. The credential and the states are secret: each
 * exports as bytes to keep between runs, and `free()` wipes the module's
 * copy (every later call on it throws a PatError "Freed").
 */
export declare namespace arc {
    const TOKEN_TYPE: 0xe5ac;

    /** A credential (secret), the result of one issuance. */
    class Credential {
        private constructor();
        /** The credential as bytes (secret). */
        export(): Bytes;
        static import(bytes: Uint8Array): Credential;
        free(): void;
    }

    /**
     * The presentation state of one credential for one presentation context
     * (secret). Keep it, or its export, after every token: a state restored
     * from an older copy repeats nonces, which links the tokens and makes
     * the origin refuse them.
     */
    class PresentationState {
        private constructor();
        /** Tokens left (a number; a BigInt only above 2^53). */
        readonly remaining: number | bigint;
        readonly limit: number | bigint;
        export(): Bytes;
        static import(bytes: Uint8Array): PresentationState;
        free(): void;
    }

    /** A credential request in flight (its state is secret). */
    class CredentialRequest {
        private constructor();
        readonly tokenType: 0xe5ac;
        readonly truncatedTokenKeyId: number;
        /** The encoded CredentialRequest: POST it as MediaType.PRIVATE_CREDENTIAL_REQUEST. */
        serialize(): Bytes;
        /** The state as bytes (secret), for Client.finalizeExported; "StateSpent" after finalize. */
        exportState(): Bytes;
        /** The credential from the issuer's CredentialResponse; "StateSpent" after a success. */
        finalize(response: Uint8Array): Credential;
        free(): void;
    }

    /** An ARC token. */
    class Token {
        /** Checks the type and that the length is that of some limit ("InvalidLength"). */
        constructor(bytes: Uint8Array);
        readonly tokenType: 0xe5ac;
        /** As the client wrote it: nothing verifies it. */
        readonly presentationNonce: number;
        readonly challengeDigest: Bytes;
        readonly issuerKeyId: Bytes;
        readonly presentation: Bytes;
        static deserialize(bytes: Uint8Array): Token;
        serialize(): Bytes;
    }

    /** The client of one issuer key. */
    class Client {
        /** `tokenKey`: the issuer's 99-byte ServerPublicKey. */
        constructor(tokenKey: Uint8Array);
        readonly keyId: Bytes;
        createCredentialRequest(tokChl: TokenChallenge | SerializableChallenge): CredentialRequest;
        /** The credential from an exported request state (zeroed on success) and the issuer's response. */
        finalizeExported(state: Uint8Array, response: Uint8Array): Credential;
        /** `limit`: the challenge's rateLimit, 2 to 2^32. Make one state per context and keep it. */
        presentationState(
            credential: Credential,
            tokChl: TokenChallenge | SerializableChallenge,
            limit: number | bigint,
        ): PresentationState;
        /**
         * The next token; "ChallengeMismatch" for another context, "PresentationLimitReached" when used up.
         * The nonce is spent first: a failing getRandomValues ("Rng") uses up one presentation.
         */
        createToken(state: PresentationState, tokChl: TokenChallenge | SerializableChallenge): Token;
        free(): void;
    }

    /** The issuer of type 0xE5AC, also its origin (the key is secret). */
    class Issuer {
        private constructor();
        static generate(): Issuer;
        /** The 128-byte secret key x0 ‖ x1 ‖ x2 ‖ x0Blinding ("InvalidKey", "InvalidLength"). */
        static fromSecretKey(bytes: Uint8Array): Issuer;
        /** The 99-byte ServerPublicKey to publish. */
        readonly tokenKey: Bytes;
        readonly keyId: Bytes;
        /** The CredentialResponse's bytes ("KeyIdMismatch", "Verification", parse errors). */
        issue(request: CanSerialize | Uint8Array): Bytes;
        /**
         * The token's replay key (SHA-256 of its presentation tag, 32 bytes).
         * Verified is not redeemed: keep the key and refuse a token whose key
         * was seen, or the limit means nothing (a presentation verifies
         * again and again). Throws "Verification", "KeyIdMismatch",
         * "ChallengeMismatch", "WrongTokenType" or a parse error.
         */
        verify(
            token: CanSerialize | Uint8Array,
            tokChl: TokenChallenge | SerializableChallenge,
            limit: number | bigint,
        ): Bytes;
        free(): void;
    }
}

/**
 * Token type 0xE5AD, ACT(ristretto255) (draft-schlesinger-privacypass-act-01):
 * one credential holding credits, spent a cost at a time; each spend's
 * refund becomes the next, unlinkable credential. A deployment is its
 * domain separator (`ACT-v1:<organization>:<service>:<deployment id>:<version>`)
 * and `bits`, the bit length of its balances. The credential and the states
 * are secret: each exports as bytes, and `free()` wipes the module's copy
 * ("Freed" after).
 *
 * Credits, costs and refund amounts are non-negative integers: a number
 * that is a safe integer (at most 2^53 − 1) or a BigInt below 2^128.
 * Anything else (a fraction, NaN, a number from 2^53 on, a string, a
 * negative value, a BigInt from 2^128 on) is a RangeError before the
 * module sees it; a value the bit length cannot hold, 2^bits or more, is
 * the module's "ValueTooLarge". A `bits` other than one of `BITS` is a
 * RangeError too ("InvalidLength" from the module's classes, as from the
 * C API).
 */
export declare namespace act {
    const TOKEN_TYPE: 0xe5ad;
    /** The bit lengths of balances this package serves. */
    const BITS: readonly [8, 16, 32, 64, 128];
    type Bits = 8 | 16 | 32 | 64 | 128;

    /** A credential (secret): credits to spend, once. */
    class Credential {
        private constructor();
        /** The balance (a number up to 2^53 − 1, a BigInt from 2^53 on); "StateSpent" once spent. */
        readonly credits: number | bigint;
        /** The credential as bytes (secret: its CBOR); "StateSpent" once spent. */
        export(): Bytes;
        static import(bytes: Uint8Array): Credential;
        free(): void;
    }

    /** A credential request in flight (its state is secret). */
    class CredentialRequest {
        private constructor();
        readonly tokenType: 0xe5ad;
        readonly truncatedTokenKeyId: number;
        /** The encoded TokenRequest: POST it as MediaType.PRIVATE_TOKEN_REQUEST. */
        serialize(): Bytes;
        /** The state as bytes (secret), for Client.finalizeExported; "StateSpent" after finalize. */
        exportState(): Bytes;
        /** The credential from the issuer's TokenResponse; "StateSpent" after a success. */
        finalize(response: Uint8Array): Credential;
        free(): void;
    }

    /** An ACT token. */
    class Token {
        /** Checks the type and decodes the spend proof under the bit length its length gives ("InvalidLength" for none). */
        constructor(bytes: Uint8Array);
        readonly tokenType: 0xe5ad;
        readonly challengeDigest: Bytes;
        readonly issuerKeyId: Bytes;
        readonly spendProof: Bytes;
        static deserialize(bytes: Uint8Array): Token;
        serialize(): Bytes;
    }

    /** A spend: its token, and the state (secret) that turns the issuer's refund into the next credential. */
    class Spend {
        private constructor();
        readonly token: Token;
        /** The refund state as bytes (secret), for Client.refundExported; "StateSpent" after refund. */
        exportState(): Bytes;
        /** The next credential from the issuer's refund ("Verification"); "StateSpent" after a success. */
        refund(refund: Uint8Array): Credential;
        free(): void;
    }

    /** The client of one deployment and issuer key. */
    class Client {
        /** `tokenKey`: the issuer's 32-byte ristretto255 public key; `domainSeparator` as text or bytes. */
        constructor(tokenKey: Uint8Array, domainSeparator: string | Uint8Array, bits: Bits);
        readonly keyId: Bytes;
        readonly bits: Bits;
        createCredentialRequest(tokChl: TokenChallenge | SerializableChallenge): CredentialRequest;
        /** The credential from an exported request state (zeroed on success) and the issuer's response. */
        finalizeExported(state: Uint8Array, response: Uint8Array): Credential;
        /**
         * Spends `cost` credits ("ValueTooLarge" above the balance,
         * "ChallengeMismatch" for another request context); a success wipes
         * the credential ("StateSpent" after).
         */
        spend(credential: Credential, tokChl: TokenChallenge | SerializableChallenge, cost: number | bigint): Spend;
        /** The next credential from an exported refund state (zeroed on success), the spend's token and the refund. */
        refundExported(state: Uint8Array, token: CanSerialize | Uint8Array, refund: Uint8Array): Credential;
        free(): void;
    }

    /** What `Issuer.verify` returns for a spend that verified. */
    interface Verified {
        /** 32 bytes: refuse a nullifier seen before, and record it before the refund leaves. */
        nullifier: Bytes;
        /** The signed refund, for the client's Spend.refund. */
        refund: Bytes;
    }

    /** The issuer of type 0xE5AD, also its origin (the key is secret). */
    class Issuer {
        private constructor();
        static generate(domainSeparator: string | Uint8Array, bits: Bits): Issuer;
        /**
         * The secret key's CBOR ({1: x, 2: W}): "Truncated" if cut short,
         * "TrailingBytes" if followed by more, "InvalidValue" or
         * "InvalidLength" for another CBOR shape (another item or key;
         * another count or string length), "InvalidScalar" for an x that is
         * not canonical, "InvalidElement" for a W that is not a valid
         * element, "InvalidKey" for a W that is not x·G.
         */
        static fromSecretKey(bytes: Uint8Array, domainSeparator: string | Uint8Array, bits: Bits): Issuer;
        /** The 32-byte ristretto255 public key to publish. */
        readonly tokenKey: Bytes;
        readonly keyId: Bytes;
        readonly bits: Bits;
        /**
         * The TokenResponse's bytes granting `credits`, 0 < credits < 2^bits
         * ("InvalidScalar" for 0, "ValueTooLarge" from 2^bits on;
         * "KeyIdMismatch", "Verification", parse errors).
         */
        issue(
            request: CanSerialize | Uint8Array,
            credits: number | bigint,
            tokChl: TokenChallenge | SerializableChallenge,
        ): Bytes;
        /**
         * Checks a spend at `cost` and signs the refund of `refundAmount`
         * (default 0, at most `cost`). Verified is not redeemed: refuse a
         * nullifier seen before. Throws "ChallengeMismatch",
         * "KeyIdMismatch", "InvalidValue" (another charge), "Verification",
         * "ValueTooLarge" (a `refundAmount` above `cost`) or a parse error.
         */
        verify(
            token: CanSerialize | Uint8Array,
            tokChl: TokenChallenge | SerializableChallenge,
            cost: number | bigint,
            refundAmount?: number | bigint,
        ): Verified;
        free(): void;
    }
}

/**
 * Generic batches (draft-ietf-privacypass-batched-tokens §6; privacypass-ts:
 * genericBatched): token requests of types 0x0001, 0x0002 and 0x0005, each
 * for its own challenge and key, in one request; the issuer answers each
 * entry or leaves it absent.
 */
export declare namespace genericBatched {
    /** One entry of a batch: a challenge and its issuer's token key. */
    interface Entry {
        challenge: TokenChallenge | SerializableChallenge;
        tokenKey: Uint8Array;
    }

    /** A generic batch in flight (its state is secret). */
    class BatchedTokenRequest {
        private constructor();
        /** The number of entries. */
        readonly length: number;
        /** The entries' token types, in request order. */
        readonly tokenTypes: number[];
        /** The encoded GenericBatchTokenRequest: POST it as MediaType.GENERIC_BATCHED_TOKEN_REQUEST. */
        serialize(): Bytes;
        /** The state as bytes (secret), for Client.finalizeExported; "StateSpent" after finalize. */
        exportState(): Bytes;
        /** As Client.finalize. */
        finalize(response: CanSerialize | Uint8Array): (Token | null)[];
        free(): void;
    }

    /** The client of generic batches (one batch in flight). */
    class Client {
        constructor();
        /** 1 to 16 entries ("InvalidLength", "CapacityExceeded"), types 0x0001, 0x0002, 0x0005 ("UnknownTokenType"). */
        createTokenRequest(entries: Entry[]): BatchedTokenRequest;
        /**
         * The tokens in request order, null for an absent entry
         * ("InvalidLength" for another number of entries, "WrongTokenType",
         * "Verification"; the batch stays usable after a failure).
         */
        finalize(response: CanSerialize | Uint8Array): (Token | null)[];
        /** From an exported state (zeroed on success) and the keys of its entries. */
        finalizeExported(
            state: Uint8Array,
            keys: ({ tokenType: number; tokenKey: Uint8Array } | Entry)[],
            response: CanSerialize | Uint8Array,
        ): (Token | null)[];
    }
}

/**
 * Token type 0xC07E, ATHM(P-256) (draft-yun-privacypass-athm-00): the
 * issuer hides one of 4 values in each token and reads it back at
 * redemption; no challenge is bound into the token. The request state is
 * secret: it exports as bytes, and `free()` wipes the module's copy
 * ("Freed" after).
 */
export declare namespace athm {
    const TOKEN_TYPE: 0xc07e;
    /** The buckets of every deployment (the values 0 to 3). */
    const BUCKETS: 4;

    /** An ATHM token. */
    class Token {
        /** Checks the type, the length and the points. */
        constructor(bytes: Uint8Array);
        readonly tokenType: 0xc07e;
        readonly issuerKeyId: Bytes;
        /** t, 32 bytes: the origin's replay key. */
        readonly nonce: Bytes;
        static deserialize(bytes: Uint8Array): Token;
        serialize(): Bytes;
    }

    /** A token request in flight (its state is secret). */
    class TokenRequest {
        private constructor();
        readonly tokenType: 0xc07e;
        readonly truncatedTokenKeyId: number;
        /** The encoded TokenRequest: POST it as MediaType.PRIVATE_TOKEN_REQUEST. */
        serialize(): Bytes;
        /** The state as bytes (secret), for Client.finalizeExported; "StateSpent" after finalize. */
        exportState(): Bytes;
        /** The token from the issuer's response ("Verification"); "StateSpent" after a success. */
        finalize(response: Uint8Array): Token;
        free(): void;
    }

    /** The client of one deployment and issuer key. */
    class Client {
        /** `tokenKey`: public key and proof, 163 bytes ("Verification" if the proof fails under the deployment). */
        constructor(tokenKey: Uint8Array, deploymentId: string | Uint8Array);
        readonly keyId: Bytes;
        createTokenRequest(): TokenRequest;
        /** The token from an exported state (zeroed on success) and the issuer's response. */
        finalizeExported(state: Uint8Array, response: Uint8Array): Token;
        free(): void;
    }

    /** What `Issuer.verify` returns. */
    interface Verified {
        /** The hidden value, 0 to 3. */
        metadata: number;
        /** t, 32 bytes: refuse a token whose t was seen before. */
        nonce: Bytes;
    }

    /** The issuer of type 0xC07E, also its origin (the key is secret). */
    class Issuer {
        private constructor();
        static generate(deploymentId: string | Uint8Array): Issuer;
        /**
         * The 160-byte private key x ‖ y ‖ z ‖ r_x ‖ r_y; its proof is made
         * afresh. Fewer bytes are "Truncated", more "TrailingBytes"; a
         * scalar not below the order is "InvalidScalar"; a zero y or z, or
         * x and r_x both zero, "InvalidKey"; a deployment id over 255 bytes
         * "InvalidLength".
         */
        static fromSecretKey(bytes: Uint8Array, deploymentId: string | Uint8Array): Issuer;
        /** The public key and its proof, 163 bytes, to publish. */
        readonly tokenKey: Bytes;
        readonly keyId: Bytes;
        /** The TokenResponse's bytes hiding `metadata` (0 to 3: "InvalidValue"; "KeyIdMismatch", parse errors). */
        issue(request: CanSerialize | Uint8Array, metadata: number): Bytes;
        /** The hidden value and the replay key ("KeyIdMismatch", "Verification", parse errors). */
        verify(token: CanSerialize | Uint8Array): Verified;
        free(): void;
    }
}
