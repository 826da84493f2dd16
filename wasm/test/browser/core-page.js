// Page 2: the `pat-wasm/core` entry, loaded by the page with init() from the
// URL the bundler gives the `.wasm` it copied (esbuild's file loader);
// NotInitialized before, then the flow for types 2 and 5.
import * as pat from 'pat-wasm/core';
import wasmUrl from 'pat-wasm/pat_wasm_bg.wasm';

import { Checks, config, runFlow } from './flow.mjs';
import { throwsCode } from '../vector-cases.mjs';

const checks = new Checks('browser flow (pat-wasm/core)');
try {
    const cfg = config();
    await checks.check('before init(): NotInitialized', () => {
        throwsCode(() => pat.TokenChallenge.deserialize(new Uint8Array([0, 2, 0, 1, 0x69, 0, 0])), 'NotInitialized');
    });
    await checks.check(`init() from the bundled URL (${wasmUrl})`, () => pat.init(wasmUrl));
    await runFlow(pat, checks, cfg, [2, 5], 1);
    window.__patResult = checks.result();
} catch (e) {
    checks.failed += 1;
    checks.log(`FAIL page: ${e?.stack ?? e}`);
    window.__patResult = checks.result();
}
