// The engine's first call after the page's worker loads it: the overview of a default setup (the
// estimate and every catalog GPU's verdict) in a fresh Node process, where it pays the wasm's lazy
// compilation and whatever the engine reads on first use. Several engine folders (e.g. a build
// before and after a change, each holding engine.js and engine.wasm) alternate run by run; medians.
//   node bench/wasm-first-call.mjs [ENGINE_DIR ...]    (default build-wasm/wasm; RUNS=15)
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { cpus, loadavg } from 'node:os';

const RUNS = Number(process.env.RUNS || 15);
const dirs = process.argv.length > 2 ? process.argv.slice(2) : [fileURLToPath(new URL('../build-wasm/wasm', import.meta.url))];

// One fresh process: load the engine from `dir`, time its first overview call (ms).
const child = `
const { performance } = require('node:perf_hooks');
const { readFileSync } = require('node:fs');
const dir = process.argv[1];
require(dir + '/engine.js')({ wasmBinary: readFileSync(dir + '/engine.wasm') }).then((engine) => {
  const doc = JSON.stringify({ model: { preset: 'llama-3-8b' }, gpu: 'h100-sxm-80gb',
    parallel: { world_size: 8, zero_stage: 3 }, batch: { micro_batch_size: 1, seq_length: 8192 } });
  const t0 = performance.now();
  const out = JSON.parse(engine.overview(doc));
  if (!out.estimate || !out.estimate.per_gpu) throw new Error('no estimate: ' + JSON.stringify(out).slice(0, 200));
  process.stdout.write(String(performance.now() - t0));
});`;

const times = dirs.map(() => []);
for (let r = 0; r < RUNS; r++)
  dirs.forEach((dir, i) => times[i].push(Number(execFileSync(process.execPath, ['-e', child, resolve(dir)]))));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`first overview call in a fresh Node process, median of ${RUNS} (alternating; ${cpus().length} cores, load ${loadavg()[0].toFixed(1)} at the end):`);
dirs.forEach((dir, i) => console.log(`  ${dir}: ${median(times[i]).toFixed(1)} ms (min ${Math.min(...times[i]).toFixed(1)}, max ${Math.max(...times[i]).toFixed(1)})`));
