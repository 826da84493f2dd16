// Types of pat-wasm (index.js): the API of api.d.ts, with the WebAssembly
// loaded at import. (index.js also re-exports core.js's init and initSync,
// which do nothing once it has loaded; they are declared in core.d.ts only,
// so that this entry's types need no DOM library.)
export * from './api.js';
