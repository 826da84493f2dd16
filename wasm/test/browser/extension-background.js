// A browser extension's script as webpack builds it (target web): the
// `pat-wasm/core` entry, whose default init() fetches the `.wasm` webpack
// emitted as an asset (from the glue's `new URL(..., import.meta.url)`).
// browser.mjs checks the bundle for `node:` imports and runs it in a page.
import { TokenChallenge, WWWAuthenticateHeader, init } from 'pat-wasm/core';

const checks = { lines: [], passed: 0, failed: 0 };
const check = async (desc, f) => {
    try {
        await f();
        checks.passed += 1;
        checks.lines.push(`ok   ${desc}`);
    } catch (e) {
        checks.failed += 1;
        checks.lines.push(`FAIL ${desc}: ${e?.stack ?? e}`);
    }
};
await check('init() with no argument fetches the emitted .wasm', () => init());
await check('a challenge round-trips through WWW-Authenticate', () => {
    const challenge = new TokenChallenge(2, 'issuer.example', new Uint8Array(0));
    const b64 = btoa(String.fromCharCode(...challenge.serialize())).replace(/\+/g, '-').replace(/\//g, '_');
    const [header] = WWWAuthenticateHeader.parse(`PrivateToken challenge="${b64}", token-key="AAAA"`);
    if (header.challenge.issuerName !== 'issuer.example') throw new Error(header.challenge.issuerName);
});
checks.lines.push(`browser extension (webpack): ${checks.passed} passed, ${checks.failed} failed`);
globalThis.__patResult = { name: 'browser extension (webpack)', ...checks };
