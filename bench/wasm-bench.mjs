// Engine speed in WebAssembly (Node): nanoseconds per engine-only estimate, the page's estimate
// work per input change (one overview call against the estimate plus one estimate per catalog GPU it
// replaced, JSON in and out, median of interleaved runs), and the strategy search over 1,024 GPUs
// through the solve document, as the page calls it.
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

// Per input change: the overview (estimate + every catalog GPU's verdict) against the calls it
// replaced, interleaved so that both see the same machine load; medians of the runs.
const gpuIds = JSON.parse(engine.catalog('gpus')).gpus.map((g) => g.id);
const parsed = JSON.parse(estimateDoc);
const perGpuDocs = gpuIds.map((gpu) => JSON.stringify({ ...parsed, gpu }));
const timeMs = (work) => {
  const t0 = performance.now();
  work();
  return performance.now() - t0;
};
const overviewCall = () => JSON.parse(engine.overview(estimateDoc));
const separateCalls = () => {
  JSON.parse(engine.estimate(estimateDoc));
  for (const d of perGpuDocs) JSON.parse(engine.estimate(d));
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
overviewCall();
separateCalls();
const overviewMs = [], separateMs = [];
for (let i = 0; i < 41; i++) {
  overviewMs.push(timeMs(overviewCall));
  separateMs.push(timeMs(separateCalls));
}
console.log(`wasm per input change, ${gpuIds.length} catalog GPUs: overview (1 call) ${median(overviewMs).toFixed(2)} ms, ` +
            `estimate + one per GPU (${gpuIds.length + 1} calls) ${median(separateMs).toFixed(2)} ms, ` +
            `ratio ${(median(separateMs) / median(overviewMs)).toFixed(1)}x (medians of 41 interleaved runs)`);

const solveDoc = JSON.stringify({
  model: { preset: 'llama-3.1-70b' }, framework: 'torchtitan', gpu: 'h100-sxm-80gb', batch: { seq_length: 4096, gradient_accumulation_steps: 16 },
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
