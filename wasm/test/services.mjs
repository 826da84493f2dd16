// Child processes for the live tests (interop.mjs, browser.mjs,
// worker.mjs): `pat issuer serve` / `pat origin serve` and other servers on
// loopback, started on free ports and stopped when the test exits.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const children = [];
const folders = [];
let cleaned = false;

/** Stops every child and removes the temporary folders (KEEP_LOGS=1 keeps them). */
export function cleanup() {
    if (cleaned) return;
    cleaned = true;
    for (const c of children) c.kill('SIGTERM');
    for (const dir of folders) {
        if (!process.env.KEEP_LOGS) rmSync(dir, { recursive: true, force: true });
        else console.log(`logs in ${dir}`);
    }
}
// Also on an uncaught error; the services' pipes would keep Node alive otherwise.
process.on('exit', cleanup);
for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
        cleanup();
        process.exit(1);
    });
}

/** A temporary folder, removed at exit. */
export function tempDir(prefix) {
    const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
    folders.push(dir);
    return dir;
}

/** A port on 127.0.0.1 that was free a moment ago. */
export function freePort() {
    return new Promise((resolve, reject) => {
        const s = net.createServer();
        s.once('error', reject);
        s.listen(0, '127.0.0.1', () => {
            const { port } = s.address();
            s.close(() => resolve(port));
        });
    });
}

/**
 * Starts `command ARGS...` and resolves once its output matches `ready`
 * (default: `listening`; null: as soon as it runs); rejects if it exits
 * first or after 300 s.
 */
export function start(name, command, args, { ready = /listening/, env } = {}) {
    return new Promise((resolve, reject) => {
        const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: env ?? process.env });
        children.push(child);
        let out = '';
        const timer = setTimeout(() => reject(new Error(`${name} did not start in 300 s:\n${out}`)), 300_000);
        const read = (d) => {
            out += d;
            if (ready === null || ready.test(out)) {
                clearTimeout(timer);
                resolve(child);
            }
        };
        if (ready === null) child.once('spawn', () => read(''));
        child.stdout.on('data', read);
        child.stderr.on('data', read);
        child.on('exit', (code) => {
            clearTimeout(timer);
            reject(new Error(`${name} exited with ${code}:\n${out}`));
        });
    });
}

/** ARC's presentation limit at the origins startPat starts (`--rate-limit`). */
export const ARC_RATE_LIMIT = 3;

/**
 * One `pat issuer serve` for `types` and one `pat origin serve` per type
 * (types 1, 5 and 0xE5AC read the issuer's state folder, the others its
 * directory; 0xE5AC's with `--rate-limit` ARC_RATE_LIMIT), all on loopback.
 * `extra` is added to every command line (e.g. --cors-origin). Returns
 * { issuerName, issuerUrl, state, origins: {type: url} }.
 */
export async function startPat(patBin, types, extra = []) {
    const tmp = tempDir('pat-wasm-live-');
    const issuerName = `127.0.0.1:${await freePort()}`;
    const issuerUrl = `http://${issuerName}`;
    const state = path.join(tmp, 'issuer');
    const t0 = Date.now();
    await start('issuer', patBin, [
        'issuer', 'serve', '--listen', issuerName, '--name', issuerName, '--token-types', types.join(','),
        '--state', state, ...extra,
    ]);
    console.log(`issuer up in ${((Date.now() - t0) / 1000).toFixed(1)} s (keys of types ${types.join(', ')} made on first start)`);
    const origins = {};
    for (const type of types) {
        const port = await freePort();
        const keys = [1, 5, 0xe5ac].includes(type) ? ['--issuer-state', state] : [];
        if (type === 0xe5ac) keys.push('--rate-limit', String(ARC_RATE_LIMIT));
        await start(`origin ${type}`, patBin, [
            'origin', 'serve', '--listen', `127.0.0.1:${port}`, '--issuer', issuerName, '--issuer-url', issuerUrl,
            '--token-type', String(type), ...keys, ...extra,
        ]);
        origins[type] = `http://127.0.0.1:${port}/resource`;
    }
    return { issuerName, issuerUrl, state, origins };
}
