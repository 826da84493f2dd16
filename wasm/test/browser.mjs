// pat-wasm in a real browser: Debian's Chromium, headless, driven by
// puppeteer-core (which downloads no browser of its own), with pages built
// from the packages by real bundlers, against pat's services on loopback.
//
// Usage: node browser.mjs PATH_TO_PAT_BINARY [CHROMIUM]   (default /usr/bin/chromium)
//
// Bundles (in $CARGO_TARGET_DIR/wasm-pkg/browser/, each in its own folder):
//   flow/      esbuild, platform browser, the `pat-wasm` entry; the `.wasm`
//              copied next to the bundle as docs/wasm.md says (esbuild
//              leaves `new URL('./pat_wasm_bg.wasm', import.meta.url)` as it
//              is) and `node:*` kept external (index.js imports
//              node:fs/promises only under a file: URL);
//   core/      esbuild, the `pat-wasm/core` entry, the `.wasm` imported
//              through esbuild's file loader and passed to init(); the
//              bundle must hold no `node:` import;
//   vectors/   esbuild, the hazmat test build's entry and glue;
//   extension/ webpack (target web, production), the `pat-wasm/core`
//              entry as a browser extension's script would use it: the
//              `.wasm` emitted by webpack, no `node:` import in the bundle.
// Pages: a static server on one port, `pat issuer serve` and one `pat origin
// serve` per type (1, 2, 5, 0xE5AC with --rate-limit 3) on others with
// `--cors-origin` naming the page's origin, and a second static server on a
// port the services do not allow.
//   flow:      types 1, 2, 5, ROUNDS rounds each, and ROUNDS ARC credentials
//              of 3 tokens each, the state in localStorage (browser/flow.mjs), timed;
//   core:      NotInitialized, init(), types 2 and 5;
//   vectors:   every vector of vector-cases.mjs (types 1, 2, 5, 0xDA7A, 0xDA7B, ARC, ACT, batches);
//   extension: the webpack bundle loads its `.wasm` and works;
//   blocked:   from the other port, every cross-origin read is refused.
//
// Prints each page's lines, `browser: N passed, M failed` and the page's
// median request/finalize times per type; exit status 0 only if all passed.

import { copyFileSync, createReadStream, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';

import * as esbuild from 'esbuild';
import puppeteer from 'puppeteer-core';
import webpack from 'webpack';

import { hazmatDir, root, shippedDir } from './harness.mjs';
import { ARC_RATE_LIMIT, cleanup, freePort, startPat } from './services.mjs';

const patBin = process.argv[2];
const chromium = process.argv[3] ?? '/usr/bin/chromium';
if (!patBin) {
    console.error('usage: node browser.mjs PATH_TO_PAT_BINARY [CHROMIUM]');
    process.exit(2);
}
const ROUNDS = Number(process.env.PAT_BROWSER_ROUNDS ?? 10);
const here = path.join(root, 'wasm/test/browser');
const out = path.join(path.dirname(shippedDir), 'browser');
rmSync(out, { recursive: true, force: true });

let failed = 0;
let passed = 0;
const fail = (what) => {
    failed += 1;
    console.log(`FAIL ${what}`);
};
const ok = (what) => {
    passed += 1;
    console.log(`ok   ${what}`);
};

// ---- bundles ----------------------------------------------------------------

const page = (name) =>
    writeFileSync(path.join(out, name, 'index.html'),
        `<!doctype html><meta charset="utf-8"><title>${name}</title><link rel="icon" href="data:,"><script type="module" src="./${name}.js"></script>\n`);

/** Every file of a bundle folder that names a `node:` module. */
function nodeImports(dir) {
    return readdirSync(dir).filter((f) => /\.m?js$/.test(f) && /["'`]node:/.test(readFileSync(path.join(dir, f), 'utf8')));
}

async function bundle(name, entry, options = {}) {
    const outdir = path.join(out, name);
    await esbuild.build({
        entryPoints: { [name]: path.join(here, entry) },
        bundle: true,
        format: 'esm',
        platform: 'browser',
        target: 'es2022',
        outdir,
        logLevel: 'warning',
        ...options,
    });
    page(name);
    return outdir;
}

const t0 = Date.now();
const flowDir = await bundle('flow', 'flow-page.js', { external: ['node:*'] });
// What docs/wasm.md tells an esbuild user of the `pat-wasm` entry to do.
copyFileSync(path.join(shippedDir, 'pat_wasm_bg.wasm'), path.join(flowDir, 'pat_wasm_bg.wasm'));
const coreDir = await bundle('core', 'core-page.js', { loader: { '.wasm': 'file' } });
const nodeInCore = nodeImports(coreDir);
if (nodeInCore.length === 0) ok('esbuild bundle of pat-wasm/core: no node: import');
else fail(`esbuild bundle of pat-wasm/core names node: modules in ${nodeInCore}`);
const vectorsDir = await bundle('vectors', 'vectors-page.js', { alias: { 'pat-hazmat': hazmatDir }, external: ['node:*'] });
copyFileSync(path.join(hazmatDir, 'pat_wasm_bg.wasm'), path.join(vectorsDir, 'pat_wasm_bg.wasm'));
await bundle('blocked', 'blocked-page.js');

const extensionDir = path.join(out, 'extension');
const stats = await new Promise((resolve, reject) =>
    webpack({
        mode: 'production',
        target: 'web',
        context: here,
        entry: { extension: './extension-background.js' },
        output: { path: extensionDir, filename: '[name].js', publicPath: '' },
        experiments: { topLevelAwait: true },
        resolve: { modules: [path.join(root, 'wasm/test/node_modules')] },
        performance: { hints: false },
    }, (err, s) => (err ? reject(err) : resolve(s))));
if (stats.hasErrors()) {
    fail(`webpack: ${stats.toString('errors-only')}`);
} else {
    page('extension');
    const wasm = readdirSync(extensionDir).filter((f) => f.endsWith('.wasm'));
    const nodeInExtension = nodeImports(extensionDir);
    if (wasm.length === 1 && nodeInExtension.length === 0) ok(`webpack bundle of pat-wasm/core: the .wasm emitted (${wasm[0]}), no node: import`);
    else fail(`webpack bundle: .wasm files ${wasm}, node: imports in ${nodeInExtension}`);
}
const sizes = ['flow', 'core', 'extension'].map((n) => {
    const dir = path.join(out, n);
    const js = readdirSync(dir).filter((f) => f.endsWith('.js')).reduce((a, f) => a + statSync(path.join(dir, f)).size, 0);
    return `${n} ${js} B of JavaScript`;
});
console.log(`bundles built in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${sizes.join(', ')}`);

// ---- servers ----------------------------------------------------------------

const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };
const vectorRoot = path.join(root, 'tests/vectors');
function serveStatic(port) {
    const server = http.createServer((req, res) => {
        const url = new URL(req.url, 'http://x');
        const [base, rel] = url.pathname.startsWith('/test-vectors/')
            ? [vectorRoot, url.pathname.slice('/test-vectors/'.length)]
            : [out, url.pathname.slice(1)];
        const file = path.resolve(base, decodeURIComponent(rel));
        if (!file.startsWith(base + path.sep) || !existsSync(file) || !statSync(file).isFile()) {
            res.writeHead(404).end();
            return;
        }
        res.writeHead(200, {
            'Content-Type': types[path.extname(file)] ?? 'application/octet-stream',
            // Cross-origin isolation: performance.now() at 5 µs instead of 100 µs.
            'Cross-Origin-Opener-Policy': 'same-origin',
            'Cross-Origin-Embedder-Policy': 'require-corp',
        });
        createReadStream(file).pipe(res);
    });
    return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}
const pagePort = await freePort();
const otherPort = await freePort();
const pageOrigin = `http://127.0.0.1:${pagePort}`;
const servers = [await serveStatic(pagePort), await serveStatic(otherPort)];
const services = await startPat(patBin, [1, 2, 5, 0xe5ac], ['--cors-origin', pageOrigin]);
const directory = await (await fetch(services.issuerUrl + '/.well-known/private-token-issuer-directory')).json();
const cfg = { ...services, rounds: ROUNDS, requestUri: directory['issuer-request-uri'], arcRateLimit: ARC_RATE_LIMIT };

// ---- the browser ------------------------------------------------------------

const browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
console.log(`browser: ${await browser.version()}`);
const results = [];
async function run(name, origin) {
    const tab = await browser.newPage();
    const errors = [];
    tab.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    tab.on('console', (m) => {
        // Chromium logs every 401 (each challenge, forgery and replay) as a
        // failed load; the checks assert those statuses themselves.
        if (m.type() === 'error' && !/status of 401/.test(m.text())) errors.push(`console error: ${m.text()}`);
        if (process.env.PAT_BROWSER_DEBUG) console.log(`  [${name} console] ${m.text()}`);
    });
    const url = `${origin}/${name}/index.html?config=${encodeURIComponent(JSON.stringify(cfg))}`;
    try {
        const response = await tab.goto(url, { waitUntil: 'load' });
        if (response?.status() !== 200) throw new Error(`${url}: HTTP ${response?.status()}`);
        await tab.waitForFunction(() => globalThis.__patResult !== undefined, { timeout: 120_000, polling: 100 });
        const result = await tab.evaluate(() => globalThis.__patResult);
        const quiet = result.failed === 0 && !process.env.PAT_BROWSER_VERBOSE;
        for (const line of result.lines) if (!(quiet && line.startsWith('ok '))) console.log(`  ${line}`);
        // The blocked page's refused reads print console errors by design.
        const unexpected = name === 'blocked' ? [] : errors;
        for (const e of unexpected) console.log(`  ${e}`);
        if (result.failed === 0 && result.passed > 0 && unexpected.length === 0) ok(`${name} page: ${result.passed} checks`);
        else fail(`${name} page: ${result.passed} passed, ${result.failed} failed, ${unexpected.length} errors`);
        results.push(result);
    } catch (e) {
        for (const err of errors) console.log(`  ${err}`);
        fail(`${name} page: ${e?.message ?? e}`);
    } finally {
        await tab.close();
    }
}
try {
    await run('vectors', pageOrigin);
    await run('core', pageOrigin);
    await run('extension', pageOrigin);
    await run('flow', pageOrigin);
    await run('blocked', `http://127.0.0.1:${otherPort}`);
} finally {
    await browser.close();
    for (const s of servers) s.close();
}

const timings = results.find((r) => r.timings)?.timings;
if (timings) {
    console.log(`\nin the page (Chromium, median of ${ROUNDS} rounds; ms):`);
    console.log('type    createTokenRequest    finalize');
    for (const [type, t] of Object.entries(timings)) {
        if (type === 'arc') continue;
        console.log(`${type.padEnd(8)}${t.request.toFixed(3).padStart(18)}${t.finalize.toFixed(3).padStart(12)}`);
    }
    const a = timings.arc;
    if (a) {
        console.log(`ARC credential request ${a.request.toFixed(3)}, finalize ${a.finalize.toFixed(3)}, createToken ${a.token.toFixed(3)} (limit ${ARC_RATE_LIMIT})`);
    }
}
console.log(`browser: ${passed} passed, ${failed} failed`);
cleanup();
process.exit(failed === 0 && passed > 0 ? 0 : 1);
