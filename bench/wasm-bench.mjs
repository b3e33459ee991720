// Engine speed in WebAssembly (Node): nanoseconds per engine-only estimate, and the strategy
// search over 1,024 GPUs through the solve document, as the page calls it.
//   node bench/wasm-bench.mjs        (after scripts/build.sh)
import { performance } from 'node:perf_hooks';
import { loadEngine } from '../tests-js/engine-module.mjs';

const engine = await loadEngine();

const estimateDoc = JSON.stringify({
  model: { preset: 'llama-3-8b' }, gpu: 'h100-sxm-80gb', parallel: { world_size: 8, zero_stage: 3 },
  batch: { micro_batch_size: 1, seq_length: 8192 }, activation_checkpointing: 'full',
});
engine.estimate_nanoseconds(estimateDoc, 10000);  // warm-up
const ns = engine.estimate_nanoseconds(estimateDoc, 200000);
console.log(`wasm engine-only estimate: ${ns.toFixed(0)} ns`);

const solveDoc = JSON.stringify({
  model: { preset: 'llama-3.1-70b' }, gpu: 'h100-sxm-80gb', batch: { seq_length: 4096, gradient_accumulation_steps: 16 },
  solve: { strategies: { world_size: 1024, limit: 10 } },
});
engine.solve(solveDoc);  // warm-up
const runs = 5;
let best = Infinity, candidates = 0;
for (let i = 0; i < runs; i++) {
  const t0 = performance.now();
  const out = JSON.parse(engine.solve(solveDoc));
  best = Math.min(best, performance.now() - t0);
  candidates = out.strategies.candidates;
}
console.log(`wasm solve with strategy search, 1024 GPUs: ${candidates} candidates in ${best.toFixed(1)} ms ` +
            `(${(candidates / best * 1000 / 1e6).toFixed(2)} M candidates/s, includes every inverse query)`);
