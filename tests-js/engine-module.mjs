// The WASM modules in Node, as built (wasm/CMakeLists.txt): the page's workers run the same loaders.
// The wasm is passed in as bytes (Node's fetch cannot read a path).
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

const require = createRequire(import.meta.url);

/**
 * One module: its loader's factory called with the wasm's bytes.
 * @param {string} name  the file name without its extension, in build-wasm/wasm/
 */
function load(name) {
  const factory = require(`../build-wasm/wasm/${name}.js`);
  return factory({ wasmBinary: readFileSync(new URL(`../build-wasm/wasm/${name}.wasm`, import.meta.url)) });
}

/** The estimating engine: estimate(json), solve(json), catalog(which), ... (wasm/bindings.cpp). */
export function loadEngine() {
  return load('engine');
}

/** The trainer-config module: import(request), export(json, format) (wasm/config_bindings.cpp). */
export function loadConfigEngine() {
  return load('config-engine');
}
