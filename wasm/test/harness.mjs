// Shared by the Node tests of pat-wasm: where the built packages are, and
// the pass/fail count every test file prints.
//
// Packages: $PAT_WASM_PKG (shipped) and $PAT_WASM_HAZMAT_PKG (built with the
// hazmat feature), as scripts/wasm sets them; by default
// $CARGO_TARGET_DIR/wasm-pkg/... or target/wasm-pkg/... of the workspace.

import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = fileURLToPath(new URL('../../', import.meta.url));

function packageDir(env, name) {
    const target = path.resolve(root, process.env.CARGO_TARGET_DIR ?? 'target');
    return path.resolve(process.env[env] ?? path.join(target, 'wasm-pkg', name));
}

export const shippedDir = packageDir('PAT_WASM_PKG', 'pat-wasm');
export const hazmatDir = packageDir('PAT_WASM_HAZMAT_PKG', 'pat-wasm-hazmat');

/** Imports a file of a package directory (index.js runs the module's start-up). */
export function importFrom(dir, file = 'index.js') {
    return import(pathToFileURL(path.join(dir, file)).href);
}

export const hex = (b) => Buffer.from(b).toString('hex');
export const fromHex = (s) => new Uint8Array(Buffer.from(s, 'hex'));

/**
 * Asserts that `f` throws a PatError with `code` (an Error, not a
 * WebAssembly trap), and returns it.
 */
export function throwsPat(f, code) {
    let error;
    try {
        f();
    } catch (e) {
        error = e;
    }
    assert.ok(error instanceof Error, `expected a thrown Error with code ${code}, got ${error}`);
    assert.ok(!(error instanceof WebAssembly.RuntimeError), `a WebAssembly trap: ${error}`);
    assert.equal(error.name, 'PatError', `error name (${error.message})`);
    assert.equal(error.code, code, `error code (${error.message})`);
    assert.ok(error.message.length > 0);
    return error;
}

/** Counts checks; each prints `ok  DESC` or `FAIL DESC: REASON`. */
export class Checks {
    constructor(name) {
        this.name = name;
        this.passed = 0;
        this.failed = 0;
    }

    async check(desc, f) {
        try {
            await f();
            this.passed += 1;
            console.log(`ok   ${desc}`);
        } catch (e) {
            this.failed += 1;
            console.log(`FAIL ${desc}: ${e?.stack ?? e}`);
        }
    }

    /** Prints `NAME: N passed, M failed`; exits non-zero on a failure or on no checks at all. */
    finish() {
        console.log(`${this.name}: ${this.passed} passed, ${this.failed} failed`);
        process.exitCode = this.failed === 0 && this.passed > 0 ? 0 : 1;
    }
}
