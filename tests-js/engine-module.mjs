// The WASM engine in Node, as built (build-wasm/wasm/engine.js and engine.wasm): the page's worker
// runs the same loader. The wasm is passed in as bytes (Node's fetch cannot read a path).
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

const require = createRequire(import.meta.url);
const createEngine = require('../build-wasm/wasm/engine.js');

/** The engine module: estimate(json), solve(json), catalog(which), ... (wasm/bindings.cpp). */
export async function loadEngine() {
  return createEngine({ wasmBinary: readFileSync(new URL('../build-wasm/wasm/engine.wasm', import.meta.url)) });
}
