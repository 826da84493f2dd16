// Page 1: the `pat-wasm` entry (instantiates its WebAssembly at import,
// fetched next to the bundle), the whole flow for types 1, 2, 5 and ARC
// (0xE5AC) against pat's services on other ports, with the page's timings.
import * as pat from 'pat-wasm';

import { Checks, config, runArcFlow, runFlow } from './flow.mjs';

const checks = new Checks('browser flow (pat-wasm)');
try {
    const cfg = config();
    const timings = await runFlow(pat, checks, cfg, [1, 2, 5], cfg.rounds);
    timings.arc = await runArcFlow(pat, checks, cfg, cfg.rounds);
    window.__patResult = checks.result({ timings });
} catch (e) {
    checks.failed += 1;
    checks.log(`FAIL page: ${e?.stack ?? e}`);
    window.__patResult = checks.result();
}
