// A consumer of the entry `pat-wasm` with no DOM library and no ambient
// types (lib ES2022, `types: []`): scripts/wasm runs `tsc --noEmit` on it, so
// the API's declarations (api.d.ts) must name nothing outside ECMAScript.
// Type-checked only, never run.

import { AuthorizationHeader, type PatErrorCode, Token, WWWAuthenticateHeader, privateVerif } from 'pat-wasm';

/** The Authorization value for a token, or the code of what was wrong with the challenge. */
export function tokenRequestFor(wwwAuthenticate: string, tokenKey: Uint8Array): Uint8Array | PatErrorCode {
    const header = WWWAuthenticateHeader.parse(wwwAuthenticate)[0];
    if (header === undefined) return 'MissingParameter';
    return new privateVerif.Client(0x0005).createTokenRequest(header.challenge, header.tokenKey ?? tokenKey).serialize();
}

export function authorization(token: Uint8Array): string {
    return new AuthorizationHeader(Token.deserialize(token)).toString();
}
