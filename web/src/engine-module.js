// The engine's compiled wasm module, made once per page. On the hosted page engine-start.js (an
// async script in index.html's head) starts the compile while app.js is still being fetched and
// parsed; whichever of the two runs first compiles, and the other takes its module over through a
// `trainmem:engine-module` event on the document (no global variable), as chunks hand over their
// exports (chunks.js).

const EVENT = 'trainmem:engine-module';

/**
 * The module another script of the page already started compiling, else `compile()`'s, which is
 * then handed to whichever asks next.
 * @param {() => Promise<WebAssembly.Module>} compile
 * @returns {Promise<WebAssembly.Module>}
 */
export function engineModule(compile) {
  /** @type {{module: Promise<WebAssembly.Module> | null}} */
  const ask = { module: null };
  document.dispatchEvent(new CustomEvent(EVENT, { detail: ask }));
  if (ask.module) return ask.module;
  const module = compile();
  // A failed compile is reported by the page, which waits on it; until then it is not an unhandled rejection.
  module.catch(() => {});
  document.addEventListener(EVENT, (event) => {
    /** @type {CustomEvent} */ (event).detail.module = module;
  });
  return module;
}
