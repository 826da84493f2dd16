// Page 3: the issuance vectors of types 1, 2, 5 (pat-go's), 0xDA7A
// (privacypass-ts's), 0xDA7B (pat's own), ARC's, ACT's and the batches' in the browser,
// through the test build with the `hazmat` feature (its `pat-wasm` entry,
// aliased as pat-hazmat by browser.mjs); the files are fetched from the
// page's own server (/test-vectors/ is tests/vectors/).
import * as pkg from 'pat-hazmat/index.js';
import * as raw from 'pat-hazmat/pat_wasm.js';

import { Checks } from './flow.mjs';
import { runFiles } from '../vector-cases.mjs';

const checks = new Checks('browser vectors (hazmat build)');
try {
    const load = async (file) => {
        const r = await fetch(`/test-vectors/${file}`);
        if (r.status !== 200) throw new Error(`${file}: HTTP ${r.status}`);
        return r.json();
    };
    const result = await runFiles(pkg, raw, load, (line) => checks.log(line));
    checks.passed = result.passed;
    checks.failed = result.ok ? 0 : Math.max(1, result.failures);
    window.__patResult = checks.result();
} catch (e) {
    checks.failed += 1;
    checks.log(`FAIL page: ${e?.stack ?? e}`);
    window.__patResult = checks.result();
}
