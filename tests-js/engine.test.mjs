// The WASM engine in Node gives the same documents as the native CLI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';

import { loadConfigEngine, loadEngine } from './engine-module.mjs';

const engine = await loadEngine();
const cli = new URL('../build-native/trainmem', import.meta.url).pathname;

function native(doc) {
  try {
    return execFileSync(cli, ['estimate', '-'], { input: JSON.stringify(doc) }).toString();
  } catch (e) {
    return e.stdout.toString();  // exit status 2 with the error document
  }
}

test('wasm and native agree on a preset estimate', () => {
  const doc = { model: { preset: 'llama-3.1-8b' }, parallel: { world_size: 8, zero_stage: 3 }, gpu: 'h100-sxm-80gb' };
  assert.deepEqual(JSON.parse(engine.estimate(JSON.stringify(doc))), JSON.parse(native(doc)));
});

test('the 7B ZeRO-3 example: 14e9 bytes of model states per GPU under ZeRO-3 on 8 GPUs', () => {
  const out = JSON.parse(engine.estimate(JSON.stringify({ model: { num_parameters: 7e9 }, parallel: { world_size: 8, zero_stage: 3 } })));
  assert.equal(out.per_gpu.model_states, 14e9);
});

test('bad input returns the error document, never throws', () => {
  const out = JSON.parse(engine.estimate('{"model": {"num_parameters": -1}}'));
  assert.equal(out.error.code, 'out_of_range');
  assert.equal(out.error.field, 'model.num_parameters');
  const broken = JSON.parse(engine.estimate('{'));
  assert.equal(broken.error.code, 'invalid_json');
});

test('the catalog lists models and GPUs', () => {
  const c = JSON.parse(engine.catalog(''));
  assert.ok(c.models.length >= 40);
  assert.ok(c.gpus.length >= 25);
});

test('the overview in wasm: the estimate and each catalog GPU row as the native CLI estimates them', () => {
  const doc = { model: { preset: 'llama-3.1-8b' }, parallel: { world_size: 8, zero_stage: 3 }, gpu: 'h100-sxm-80gb' };
  const out = JSON.parse(engine.overview(JSON.stringify(doc)));
  assert.deepEqual(out.estimate, JSON.parse(native(doc)));
  assert.deepEqual(out.gpus.map((g) => g.gpu), JSON.parse(engine.catalog('gpus')).gpus.map((g) => g.id));
  for (const gpu of ['l4-24gb', 'a100-40gb', 'mi300x-192gb']) {
    const want = JSON.parse(native({ ...doc, gpu }));
    assert.deepEqual(out.gpus.find((g) => g.gpu === gpu),
      { gpu, gpu_capacity_bytes: want.gpu_capacity_bytes, peak: want.per_gpu.peak, verdict: want.verdict });
  }
  const bad = { model: { preset: 'llama-3.1-8b' }, batch: { micro_batch_size: 0 } };
  assert.deepEqual(JSON.parse(engine.overview(JSON.stringify(bad))), JSON.parse(native(bad)));
});

test('the estimating module leaves the trainer-config import and export to the config module', async () => {
  // The page downloads engine.wasm before its first estimate and config-engine.wasm only on the
  // first import or export (wasm/CMakeLists.txt): the readers must not ride along in the first.
  const config = await loadConfigEngine();
  assert.equal(engine.import, undefined);
  assert.equal(engine.export, undefined);
  assert.equal(typeof config.import, 'function');
  assert.equal(typeof config.export, 'function');
  assert.equal(config.estimate, undefined);
});
