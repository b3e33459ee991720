// The engine's side of the page: runs inside a Web Worker built from a Blob (engine-client.js), so
// the page's main thread never runs the engine. The build puts Emscripten's loader (createEngine,
// wasm/CMakeLists.txt) in front of this file in the worker's source.
//
// Messages in:  {type: 'init', module} or {type: 'init', wasmUrl} once, then
//               {type: 'call', id, fn, args} — fn one of the module's functions (wasm/bindings.cpp).
//               With `wasmUrl` (the hosted page's first worker, started by engine-start.js) the
//               worker fetches and compiles engine.wasm itself, streaming on its own thread while
//               the page's main thread is still busy setting up.
// Messages out: {type: 'module', module} once compiled from `wasmUrl` (the page's other workers
//               instantiate it); {type: 'ready'} | {type: 'failed', message} after init;
//               {id, result, ms} per call (result: the function's JSON text; ms: time in the engine),
//               or {id, failed: message} where the module has no such function or it threw.

import { errorText } from './error-text.js';
import { compileFromUrl } from './wasm-fetch.js';

/** @typedef {{type: 'init', module?: WebAssembly.Module, wasmUrl?: string} | {type: 'call', id: number, fn: string, args: unknown[]}} Request */

/**
 * Starts answering the page's messages.
 * @param {(options: object) => Promise<Record<string, Function>>} createEngine  Emscripten's factory
 */
export function start(createEngine) {
  const scope = /** @type {any} */ (self);
  /** @type {Promise<Record<string, Function>> | null} */
  let engine = null;
  scope.onmessage = (/** @type {MessageEvent<Request>} */ event) => {
    const m = event.data;
    if (m.type === 'init') {
      /** @type {Promise<WebAssembly.Module>} */
      let module;
      if (m.module) {
        module = Promise.resolve(m.module);
      } else {
        module = compileFromUrl(/** @type {string} */ (m.wasmUrl));
        module.then((compiled) => scope.postMessage({ type: 'module', module: compiled }), () => {});
      }
      const failed = (/** @type {unknown} */ e) => scope.postMessage({ type: 'failed', message: errorText(e) });
      engine = module.then((compiled) => createEngine({
        // The module is compiled once per page; each worker instantiates it. A module that is not
        // this loader's (another build's engine.wasm) fails here or while the loader sets it up: the
        // page is told, never left waiting.
        instantiateWasm(/** @type {WebAssembly.Imports} */ imports, /** @type {Function} */ receive) {
          WebAssembly.instantiate(compiled, imports).then((instance) => receive(instance, compiled)).catch(failed);
          return {};
        },
      }));
      engine.then(() => scope.postMessage({ type: 'ready' }), failed);
      return;
    }
    const { id, fn, args } = m;
    /** @type {Promise<Record<string, Function>>} */ (engine).then((mod) => {
      // The engine's functions return documents and never throw; a function that is missing or
      // throws means the module is not this build's (another build's .wasm file): said, not dropped.
      if (typeof mod[fn] !== 'function') {
        scope.postMessage({ id, failed: `the module has no function ${fn}: its .wasm file is not from this page's build` });
        return;
      }
      const t0 = performance.now();
      try {
        const result = mod[fn](...args);
        scope.postMessage({ id, result, ms: performance.now() - t0 });
      } catch (e) {
        scope.postMessage({ id, failed: errorText(e) });
      }
    });
  };
}
