// The page's pure modules in Node: finding presets from Hugging Face references (oobabooga/text-generation-webui#7068),
// unit labels (microsoft/DeepSpeed#4527), every interface label in both languages, the solve request and a loaded
// strategy, and the accuracy table as built, and the words of a thrown value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, mkdtempSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as Search from '../web/src/model-search.js';
import * as I18n from '../web/src/i18n.js';
import * as Format from '../web/src/format.js';
import * as WhatFits from '../web/src/what-fits.js';
import * as Accuracy from '../web/src/accuracy.js';
import * as Export from '../web/src/export.js';
import * as Url from '../web/src/link-codec.js';
import { suggestionText } from '../web/src/verdict.js';
import { errorText } from '../web/src/error-text.js';
import { Store } from '../web/src/store.js';
import { loadEngine } from './engine-module.mjs';

const engine = await loadEngine();
const models = JSON.parse(engine.catalog('models')).models;

test('every form of a Hugging Face reference maps to the preset by hf_id, with no network', () => {
  for (const ref of ['meta-llama/Llama-3.1-8B', 'https://huggingface.co/meta-llama/Llama-3.1-8B',
    'https://huggingface.co/meta-llama/Llama-3.1-8B/tree/main', 'https://huggingface.co/meta-llama/Llama-3.1-8B/blob/main/config.json',
    'huggingface.co/meta-llama/llama-3.1-8b/resolve/main/config.json', '  hf.co/meta-llama/Llama-3.1-8B  ',
    // the repository's name before Meta's rename, which the Hub redirects (the preset's hf_aliases)
    'https://huggingface.co/meta-llama/Meta-Llama-3.1-8B', 'meta-llama/meta-llama-3.1-8b']) {
    const hit = Search.presetForHfReference(models, ref);
    assert.equal(hit && hit.id, 'llama-3.1-8b', ref);
  }
});

test('a fine-tune of a catalog model is never guessed: no preset, its base named as a hint', () => {
  const ref = 'https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct';
  assert.equal(Search.presetForHfReference(models, ref), null);
  assert.equal(Search.relatedPreset(models, ref).id, 'llama-3.1-8b');
  assert.equal(Search.presetForHfReference(models, 'someone/not-a-catalog-model'), null);
  assert.equal(Search.relatedPreset(models, 'someone/not-a-catalog-model'), null);
  assert.equal(Search.parseHfReference('llama 8b'), null);
});

test('a preset\'s size label: a count that rounds to 1000M reads 1.0B', () => {
  // Gemma 3 1B counts 999,885,952 parameters (`trainmem catalog models`): 999.886M rounds to 1000M,
  // which is 1.0B (999,885,952 / 1e9 = 0.99989, one decimal: 1.0).
  assert.equal(models.find((m) => m.id === 'gemma-3-1b').parameters, 999885952);
  assert.equal(Search.sizeLabel(999885952), '1.0B');
  assert.equal(Search.sizeLabel(999_400_000), '999M');  // 999.4M rounds to 999M
  assert.equal(Search.sizeLabel(494_032_768), '494M');
  assert.equal(Search.sizeLabel(8_030_261_248), '8.0B');
});

test('preset search by name, family and size', () => {
  const ids = (q) => Search.filterModels(models, q).map((m) => m.id);
  assert.ok(ids('llama 70b').includes('llama-3.1-70b'));
  assert.ok(ids('70b').includes('llama-2-70b') && !ids('70b').includes('llama-3.1-8b'));
  assert.ok(ids('qwen').every((id) => id.startsWith('qwen')));
  assert.deepEqual(ids('mixtral 8x7'), ['mixtral-8x7b']);
  assert.deepEqual(ids('zzzz'), []);
  assert.equal(ids('').length, models.length);
});

test('the best match comes first: whole words before pieces of words, separators optional', () => {
  const ids = (q) => Search.filterModels(models, q).map((m) => m.id);
  // "7b" is the size word of Qwen2.5-7B; in Qwen2.5-72B (72.7B parameters) it is only a piece.
  assert.equal(ids('qwen2.5 7b')[0], 'qwen2.5-7b');
  assert.ok(ids('qwen2.5 7b').includes('qwen2.5-72b'));
  // "llama3" is Llama 3 written without its separator.
  assert.match(ids('llama3')[0], /^llama-3/);
  assert.ok(ids('llama3').includes('llama-3-8b'));
  assert.equal(ids('llama 70b')[0].startsWith('llama-'), true);
  // A bare number is a size in billions: "70" puts the 70B presets first, not Baichuan 7B, whose
  // "7.0B" label reads "70" once its dot is dropped.
  assert.match(ids('70')[0], /70b$/);
  assert.ok(ids('70').slice(0, ids('70').indexOf('baichuan-7b')).every((id) => /70b$/.test(id)));
  // and still a version beside a name: "llama 3" finds Llama 3.
  assert.match(ids('llama 3')[0], /^llama-3/);
});

test('GiB is 2^30 bytes and GB is 10^9 bytes, each labelled as what it is', () => {
  assert.equal(Format.formatBytes(2 ** 30, 'GiB'), '1.00 GiB');
  assert.equal(Format.formatBytes(1e9, 'GB'), '1.00 GB');
  assert.equal(Format.formatBytes(80e9, 'GiB'), '74.51 GiB');
  assert.equal(Format.formatBytes(1234 * 2 ** 30, 'GiB'), '1,234.00 GiB');
  assert.equal(Format.formatBytes(null, 'GB'), '—');
  assert.equal(Format.formatBytes(NaN, 'GB'), '—');
});

test('every label of the page and of the scripts has a Simplified Chinese text', () => {
  const html = readFileSync(new URL('../web/index.html', import.meta.url), 'utf8');
  const keys = new Set([...html.matchAll(/data-i18n(?:-placeholder|-aria-label)?="([^"]+)"/g)].map((m) => m[1]));
  for (const key of Object.keys(I18n.STRINGS.en)) keys.add(key);
  // A link's problems: English in the codec (link-codec.js PROBLEMS), Chinese as lp_<code>.
  for (const code of Object.keys(Url.PROBLEMS)) keys.add('lp_' + code);
  const missing = [...keys].filter((k) => !(k in I18n.STRINGS.zh));
  assert.deepEqual(missing, []);
  const unused = Object.keys(I18n.STRINGS.zh).filter((k) => !keys.has(k));
  assert.deepEqual(unused, []);
});

test('every uncertainty source docs/api.md lists has words (and so, by the test above, Chinese words too)', () => {
  const api = readFileSync(new URL('../docs/api.md', import.meta.url), 'utf8');
  const list = api.match(/`source` is a stable code \(([^)]*)\)/);
  assert.ok(list, 'docs/api.md lists the uncertainty sources');
  const codes = [...list[1].matchAll(/`([a-z_0-9]+)`/g)].map((m) => m[1]);
  assert.ok(codes.includes('framework_version_bitsandbytes') && codes.includes('allocator_fragmentation'), codes.join(' '));
  assert.deepEqual(codes.filter((code) => !('u_' + code in I18n.STRINGS.en)), []);
});

test('every suggestion the engine makes has words (and so, by the test above, Chinese words too)', () => {
  // Setups that do not fit, one per family of changes: one GPU, DeepSpeed on 8, FSDP on 8,
  // torchtune, GRPO with colocated vLLM, QLoRA under FSDP1.
  const docs = [
    { model: { preset: 'llama-3.1-8b' }, gpu: 'rtx-4090-24gb', batch: { micro_batch_size: 4, seq_length: 4096 } },
    { model: { preset: 'llama-3.1-8b' }, framework: 'deepspeed', gpu: 'a100-40gb', parallel: { world_size: 8, zero_stage: 1 },
      activation_checkpointing: 'none', batch: { micro_batch_size: 2, seq_length: 4096, gradient_accumulation_steps: 4 } },
    { model: { preset: 'llama-3.1-8b' }, framework: 'fsdp', gpu: 'a100-40gb', parallel: { world_size: 8, zero_stage: 1 },
      activation_checkpointing: 'none', batch: { micro_batch_size: 4, seq_length: 4096, gradient_accumulation_steps: 2 } },
    { model: { preset: 'llama-3.1-8b' }, framework: 'torchtune', gpu: 'rtx-4090-24gb', loss: { implementation: 'full' },
      batch: { micro_batch_size: 4, seq_length: 4096 } },
    { model: { preset: 'llama-3.1-8b' }, method: 'lora', gpu: 'h100-sxm-80gb', batch: { micro_batch_size: 8, seq_length: 1024, gradient_accumulation_steps: 4 },
      rlhf: { algorithm: 'grpo', rollout: { max_new_tokens: 1024, use_vllm: true, vllm_gpu_memory_utilization: 0.9 } } },
    { model: { preset: 'llama-3.1-70b' }, method: 'qlora', framework: 'fsdp', gpu: 'rtx-4090-24gb', parallel: { world_size: 2, zero_stage: 3 },
      activation_checkpointing: 'full', batch: { micro_batch_size: 1, seq_length: 2048 } },
  ];
  const seen = new Set();
  for (const doc of docs) {
    const out = JSON.parse(engine.estimate(JSON.stringify(doc)));
    assert.notEqual(out.suggestions.length, 0, JSON.stringify(doc));
    for (const s of out.suggestions) {
      seen.add(s.code);
      const text = suggestionText(s);
      assert.ok(!text.startsWith('s_') && !/[{}]/.test(text), s.code + ': ' + text);
    }
  }
  for (const code of ['checkpointing', 'chunked_loss', 'fused_loss', 'liger_kernel', 'zero_stage', 'more_gpus', 'offload_optimizer', 'offload_fsdp',
    'activation_offload', 'vllm_sleep_mode', 'vllm_memory_share', 'vllm_server', 'adapter_units']) assert.ok(seen.has(code), code);
});

test('every link key has a control on the page (a model field: its picker)', () => {
  const html = readFileSync(new URL('../web/index.html', import.meta.url), 'utf8');
  const paths = new Set([...html.matchAll(/data-path="([^"]+)"/g)].map((m) => m[1]));
  const pickers = new Set([...html.matchAll(/data-picker="([^"]+)"/g)].map((m) => m[1]));
  const missing = Url.KEYS.map(([, path]) => path).filter((path) => {
    if (paths.has(path)) return false;
    if (path === 'solve.calibration') return ![0, 1].every((i) => paths.has('solve.calibration.' + i + '.measured_bytes'));  // one control per point field
    if (path === 'solve.prices') return false;  // a price input per catalog GPU, in the GPU table (render.js gpuTableRow)
    const parent = path.slice(0, path.lastIndexOf('.'));
    return !(pickers.has(parent) && /\.(preset|hf_config)$/.test(path));  // presets and pasted configs are picker entries
  });
  assert.deepEqual(missing, []);
});

test('the page is one classic script (works from file://); its modules share nothing through globals', () => {
  const html = readFileSync(new URL('../web/index.html', import.meta.url), 'utf8');
  const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]);
  assert.deepEqual(scripts, [' src="app.js"'], 'one classic script: no type, async or defer');
  const dir = new URL('../web/src/', import.meta.url);
  const sources = readdirSync(dir).filter((f) => f.endsWith('.js'));
  assert.ok(sources.length >= 20, sources.join(' '));
  for (const file of sources) {
    const text = readFileSync(new URL(file, dir), 'utf8');
    assert.doesNotMatch(text, /\b(window|self|globalThis)\s*(\.\s*\w+|\[[^\]]+\])\s*=[^=]/, file + ' sets a global');
    assert.doesNotMatch(text, /\bwindow\.Trainmem|\brequire\(/, file + ' reaches another file outside import');
  }
});

test('the accuracy tables on the page are what the accuracy programs write for the engine as built (no drift)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'trainmem-accuracy-'));
  const root = new URL('..', import.meta.url).pathname;
  const sandbox = {};
  for (const [program, fixture] of [['accuracy', 'measured_cases.json'], ['time_accuracy', 'throughput_cases.json']]) {
    const out = join(dir, program + '.js');
    execFileSync(join(root, 'build-native/tests', program), [join(root, 'tests/fixtures', fixture), '--js', out], { stdio: 'ignore' });
    new Function('window', readFileSync(out, 'utf8'))(sandbox);
  }
  const expected = { ...sandbox.TRAINMEM_ACCURACY, time: sandbox.TRAINMEM_TIME_ACCURACY };
  const throughput = JSON.parse(readFileSync(new URL('../tests/fixtures/throughput_cases.json', import.meta.url))).cases;
  assert.equal(sandbox.TRAINMEM_TIME_ACCURACY.rows.length, throughput.length);
  for (const folder of ['site', 'trainmem-web']) {  // the chunk hands its data over with an event (web/src/chunks.js)
    let shown = null;
    const document = { dispatchEvent: (e) => { shown = e.detail; } };
    class CustomEvent { constructor(type, init) { this.type = type; this.detail = init.detail; } }
    new Function('document', 'CustomEvent', readFileSync(join(root, 'dist', folder, 'chunk-accuracy.js'), 'utf8'))(document, CustomEvent);
    assert.equal(shown.name, 'accuracy');
    assert.deepEqual(shown.exports, expected, folder);
  }
  const cases = JSON.parse(readFileSync(new URL('../tests/fixtures/measured_cases.json', import.meta.url))).cases;
  assert.equal(sandbox.TRAINMEM_ACCURACY.rows.length, cases.length);
  for (const row of sandbox.TRAINMEM_ACCURACY.rows) {
    assert.notEqual(Accuracy.measureLabel(row.field), row.field, 'a measure label for ' + row.field);
  }
});

test('the solve request: the panel options, the length of the strategy list and how far the GPU counts are searched', () => {
  const doc = { model: { preset: 'gpt2' }, gpu: 'a100-80gb', parallel: { world_size: 8 } };
  assert.deepEqual(WhatFits.request(doc, { safety_margin: 0.1, strategies: { world_size: 64 } }, true).solve,
    { safety_margin: 0.1, max_gpus: 4096, strategies: { world_size: 64, limit: 10 } });
  assert.deepEqual(WhatFits.request(doc, undefined, false), { ...doc, solve: { max_gpus: 4096 } });
});

test('a ranked strategy loads as the settings the search changed, the rest kept', () => {
  // torchtitan offers tensor, pipeline and context parallelism (engine/include/trainmem/framework_parallelism.hpp).
  const doc = { model: { preset: 'gpt2' }, framework: 'torchtitan', method: 'full', batch: { micro_batch_size: 1, seq_length: 1024 }, gpu: 'a100-80gb',
    parallel: { world_size: 8, pipeline_parallel_size: 2, data_parallel_size: 4, zero_stage: 3, sharding_group_size: 2, offload_param: 'cpu',
      pipeline_schedule: 'interleaved_1f1b', virtual_pipeline_stages: 2 } };
  assert.equal(JSON.parse(engine.estimate(JSON.stringify(doc))).error, undefined);
  const search = JSON.parse(engine.solve(JSON.stringify({ ...doc, solve: { strategies: { world_size: 16, limit: 1000 } } })));
  const row = search.strategies.ranked.find((r) => r.pipeline_parallel_size === 2 && r.tensor_parallel_size === 2 && r.context_parallel_size === 2 &&
    r.activation_checkpointing === 'selective' && r.offload_optimizer === 'none' && r.zero_stage === 2);
  assert.deepEqual(WhatFits.strategyDoc(doc, row), { model: { preset: 'gpt2' }, framework: 'torchtitan', method: 'full',
    batch: { micro_batch_size: row.micro_batch_size, gradient_accumulation_steps: 1, seq_length: 1024 },
    gpu: 'a100-80gb', activation_checkpointing: 'selective',
    parallel: { world_size: 16, tensor_parallel_size: 2, pipeline_parallel_size: 2, context_parallel_size: 2, context_parallel_kind: 'ring',
      sequence_parallel: true, zero_stage: 2, offload_optimizer: 'none', offload_param: 'none', pipeline_schedule: '1f1b', virtual_pipeline_stages: 1 } });
  assert.equal(doc.parallel.world_size, 8, 'the input document is not changed');
  // every ranked strategy, loaded, prices as the search did (a100-80gb has no usable figure: the peak is compared)
  assert.ok(search.strategies.ranked.length > 100);
  for (const r of search.strategies.ranked) {
    const loaded = JSON.parse(engine.estimate(JSON.stringify(WhatFits.strategyDoc(doc, r))));
    assert.equal(loaded.error, undefined, JSON.stringify(loaded.errors));
    assert.equal(loaded.per_gpu.peak, r.peak, JSON.stringify(r));
  }
  // With a global batch (32 sequences) every loaded strategy keeps it and prices as the search did.
  const kept = JSON.parse(engine.solve(JSON.stringify({ ...doc, solve: { target_global_batch_size: 32, strategies: { world_size: 16, limit: 1000 } } })));
  assert.ok(kept.strategies.ranked.length > 20);
  for (const r of kept.strategies.ranked) {
    const loaded = WhatFits.strategyDoc(doc, r);
    assert.equal(loaded.batch.micro_batch_size * loaded.batch.gradient_accumulation_steps * r.data_parallel_size, 32, JSON.stringify(r));
    assert.equal(JSON.parse(engine.estimate(JSON.stringify(loaded))).per_gpu.peak, r.peak, JSON.stringify(r));
  }
});

test('a thrown value\'s words: an error\'s message, an object\'s message, anything else as a string', () => {
  assert.equal(errorText(new TypeError('Failed to fetch')), 'Failed to fetch');
  assert.equal(errorText(new WebAssembly.CompileError('expected magic word')), 'expected magic word');
  assert.equal(errorText({ message: 'the module has no function overview' }), 'the module has no function overview');
  assert.equal(errorText('abort(OOM)'), 'abort(OOM)');
  assert.equal(errorText(null), 'null');
  assert.equal(errorText(undefined), 'undefined');
  assert.equal(errorText({ message: '' }), '[object Object]');
  assert.equal(errorText(new Error('')), 'Error');
});

test('a pasted config.json without a name is named from its type, hidden size and layers, never "llama-"', () => {
  const store = new Store();
  const name = (/** @type {Record<string, any>} */ config) => store.customs[store.addCustom(config).index].name;
  assert.equal(name({ model_type: 'llama', hidden_size: 4096, num_hidden_layers: 32 }), 'llama, hidden 4096, 32 layers');
  assert.equal(name({ model_type: 'llama', hidden_size: 0 }), 'llama');
  assert.equal(name({}), 'custom');
  assert.equal(name({ model_type: ' ', hidden_size: '4096', num_hidden_layers: 2.5 }), 'custom');
  assert.equal(name({ _name_or_path: 'org/model', model_type: 'qwen2' }), 'org/model');
  // The same config again is the same entry.
  assert.equal(store.addCustom({}).added, false);
});

test('the Markdown report carries the band, the step time and cost, the checkpoint disk and the changes that make it fit', () => {
  // Llama-3.1-70B under FSDP on 16 H100s at 8,192 tokens, 1e9 tokens to train: the engine's answer
  // has all four; the report states each of their numbers as the engine gave them.
  const doc = { model: { preset: 'llama-3.1-70b' }, framework: 'fsdp', batch: { seq_length: 8192 }, activation_checkpointing: 'full',
    parallel: { world_size: 16, zero_stage: 3 }, gpu: 'h100-sxm-80gb', training: { total_tokens: 1e9 } };
  const out = JSON.parse(engine.estimate(JSON.stringify(doc)));
  assert.equal(out.error, undefined);
  const md = Export.markdown('https://example.org/#v4:x', doc, out, 'GiB');
  const range = out.per_gpu.peak_range;
  // formatBytes writes the unit ("35.59 GiB"): once, not again after it.
  assert.ok(md.includes('## Uncertainty band of the peak\n\nPeak ' + Format.formatBytes(range.expected, 'GiB') + ', between '
    + Format.formatBytes(range.low, 'GiB') + ' and ' + Format.formatBytes(range.high, 'GiB') + '.'), md);
  assert.doesNotMatch(md, /GiB GiB/);
  for (const u of out.uncertainty) assert.ok(md.includes('- `' + u.source + '`: '), u.source);
  assert.ok(md.includes('- step: ' + out.time.step_seconds.toFixed(3) + ' s\n'), md);
  assert.ok(md.includes('- cost: $' + out.time.cost.usd.toFixed(2) + ' at $6.88 per GPU-hour'), md);
  assert.ok(md.includes('- one checkpoint (`bytes_per_checkpoint`): ' + Format.formatBytes(out.checkpoint.bytes_per_checkpoint, 'GiB') + '\n'), md);
  assert.ok(out.suggestions.length > 0);
  const table = md.slice(md.indexOf('## Make it fit'), md.indexOf('## Warnings')).trim().split('\n');
  assert.equal(table.length, 4 + out.suggestions.length);  // heading, blank line, header and rule, one row each
  // In Chinese the report's headings and labels are Chinese; the numbers are the same.
  const page = { querySelectorAll: () => [], documentElement: {} };
  I18n.apply(/** @type {any} */ (page), 'zh');
  try {
    const zh = Export.markdown('https://example.org/#v4:x', doc, out, 'GiB');
    assert.ok(zh.includes('## 峰值的不确定区间\n\n峰值 ' + Format.formatBytes(range.expected, 'GiB') + '，介于 '), zh);
    assert.ok(zh.includes('## 警告'), zh);
    assert.ok(zh.includes('- 单个检查点 (`bytes_per_checkpoint`): '), zh);
    assert.doesNotMatch(zh, /## (Uncertainty band|Step time|Warnings|Make it fit|Checkpoint disk|Input document)/);
  } finally {
    I18n.apply(/** @type {any} */ (page), 'en');
  }
});
