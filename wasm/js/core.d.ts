// Types of pat-wasm/core (core.js): the API of api.d.ts, which the caller
// loads with init or initSync. These two use the DOM library's names
// (Response, RequestInfo, BufferSource, WebAssembly), as wasm-bindgen's own
// declarations do; pat-wasm (index.d.ts) does not need them.

export * from './api.js';

/**
 * What `init` instantiates the WebAssembly from (as wasm-bindgen's web
 * target takes): a URL to fetch (browsers, workers; Node's fetch cannot read
 * file: URLs or paths, so Node callers pass bytes or a module), a Response,
 * the bytes, or a compiled module.
 */
export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

/**
 * Instantiates the WebAssembly. Without a source, `pat_wasm_bg.wasm` next to
 * core.js is fetched. Until it resolves, every call that needs the WebAssembly throws a
 * PatError with code "NotInitialized". A call after a success does nothing,
 * one while another is pending waits for it; after a failure it may be
 * called again. The state belongs to the glue (pat_wasm.js), so two copies
 * of core.js over one glue share it.
 */
export declare function init(
    source?: InitInput | Promise<Response | BufferSource | WebAssembly.Module>,
): Promise<void>;

/**
 * Like `init`, synchronously, from bytes or a compiled module (Cloudflare
 * Workers: the imported `.wasm`). Throws a PatError with code "InitPending"
 * while an `init` is pending.
 */
export declare function initSync(module: BufferSource | WebAssembly.Module): void;
