// The engine worker's entry (bundled into the worker's source after Emscripten's loader, which
// defines the module's factory (createEngine or createConfigEngine) in the same function scope; see scripts/build-web.mjs).
export { start } from './engine-worker.js';
