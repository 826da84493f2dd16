// pat-wasm: the entry that loads the WebAssembly at import (top-level await)
// and then offers the API of core.js. From disk when this file was loaded
// from a file: URL (Node, Deno, Bun), else fetched next to this file
// (browsers, web workers). Bundlers that cannot leave the `node:` import
// alone, and runtimes that bring the module themselves (Cloudflare Workers),
// import `pat-wasm/core` and call its init() or initSync(). See docs/wasm.md.

import { init } from './core.js';

const wasmUrl = new URL('./pat_wasm_bg.wasm', import.meta.url);
if (wasmUrl.protocol === 'file:') {
    const { readFile } = await import('node:fs/promises');
    await init(await readFile(wasmUrl));
} else {
    await init(wasmUrl);
}

export * from './core.js';
