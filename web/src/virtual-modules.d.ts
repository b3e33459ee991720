// Modules the build (scripts/build-web.mjs) makes up for the page's bundle.
declare module 'trainmem:worker-source' {
  /** The engine worker's JavaScript: Emscripten's loader, then engine-worker.js ('' in the hosted build's app.js: engine-start.js holds it). */
  const source: string;
  export default source;
}
declare module 'trainmem:wasm-base64' {
  /** The engine's wasm as base64 in the offline folder; '' in the hosted build (engine.wasm beside the page). */
  const base64: string;
  export default base64;
}
declare module 'trainmem:config-worker-source' {
  /** The config module's worker JavaScript (chunk-config-files.js): its Emscripten loader, then engine-worker.js. */
  const source: string;
  export default source;
}
declare module 'trainmem:config-wasm-base64' {
  /** The config module's wasm as base64 in the offline folder; '' in the hosted build (config-engine.wasm beside the page). */
  const base64: string;
  export default base64;
}
declare module 'trainmem:accuracy-data' {
  /** The accuracy program's table: {summary, rows} (accuracy.js). */
  const data: import('./accuracy.js').AccuracyData;
  export default data;
}
declare module 'trainmem:catalog' {
  /** The catalog's lists from `trainmem catalog models|gpus`: each entry with the fields ModelEntry and GpuEntry name, and the catalog's errors. */
  const catalog: {models: import('./model-search.js').ModelEntry[], gpus: import('./gpu-table.js').GpuEntry[], errors: any[]};
  export default catalog;
}
