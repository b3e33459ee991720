// Every error and warning code the engine can emit (`trainmem codes`, from
// engine/include/trainmem/message_codes.hpp) is worded by the page (web/src/messages.js) in English
// and Simplified Chinese from its params, and the Chinese wording holds no English sentence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { WORDINGS, messageAfterField, messageText, reasonWording } from '../web/src/messages.js';
import { REASON_WORDINGS } from '../web/src/message-reasons.js';
import { importFile } from '../web/src/config-files.js';
import { EXACT_ZH, noteReasonZh } from '../web/src/import-note-reasons.js';

const cli = new URL('../build-native/trainmem', import.meta.url).pathname;
/** @type {{code: string, kind: 'error' | 'warning', params: string[], reasons: string[]}[]} */
const registry = JSON.parse(execFileSync(cli, ['codes']).toString()).codes;

// Three English words in a row: a sentence left untranslated. Field names (batch.seq_length),
// model ids and type names have no spaces, so they pass.
const ENGLISH_SENTENCE = /[A-Za-z]{4,} [a-z]{3,} [a-z]{3,}/;

// A plausible value for each params key (numbers where the engine sends numbers).
/** @type {Record<string, unknown>} */
const SAMPLE = {
  value: '0', min: 1, above: 0, max: 1000000, entries: 20000, limit: 10000, bytes: 3221225472, suggestion: 'llama-3.1-8b',
  allowed: 'adamw, adamw_8bit, sgd', expected: 'integer', got: 'string', divisor: 3, of: 'num_attention_heads',
  world_size: 12, model_parallel: 8, constraints: 'data tensor pipeline context expert', model_type: 'qwen2', fields: ['lora.r', 'rlhf'], targets: 'q_proj, v_proj',
  assumptions: 'model_type "foo" has no family layout here: read as a generic decoder', seq_length: 262144,
  max_position_embeddings: 131072, r: 4096, adapter_parameters: 9000000000, parameters: 8030261248,
  global_batch_size: 64, min_8bit_size: 4096, gpu: 'NVIDIA V100 SXM2 32GB', field: 'model.hf_config.audio_config',
  height: 448, width: 448, reason: 'no_architecture',
  framework: 'NeMo', file: 'train.yaml', evidence: 'exp_manager:', origin: 'run.sh:--max_length $SEQ',
  reason: 'no_architecture', given: 2, offset: 17, line: 3, column: 7, chunks: 8, sum: 30, layers: 32, intermediate_size: 5120,
  zero_stage: 2, algorithm: 'ppo', recipe: 'lora_finetune_single_device', component: 'torchtune.models.llama3_1.llama3_1_8b', dtype: 'bf16',
  first: 'train.yaml:micro_batch_size', first_value: '2', second: 'ds_config.json:train_micro_batch_size_per_gpu', second_value: '4',
  product: 64, key: 'learning_rate', problem: 'missing_field',
  gpus: 56, max_gpus: 4096, model_states: 16060522496, max_work: 2000000, covered_splits: 12, splits: 40,
  answer: 'max_seq_length', byte: '0xFF', cap: 16777216, context: 536870912, quant_method: 'gptq', method: 'lora',
  candidates: '"h100-nvl-94gb", "h100-sxm-80gb"', micro_batch_size: 1, peak: 24546552832, budget: 24469359821,
  parts: 'bitsandbytes 4-bit base, DeepSpeed', part_ids: 'bitsandbytes_4bit_base,deepspeed', actions: 'shorter_sequence checkpointing more_gpus', include_offload: 'true', adapters: 'true', headroom: 2147483648, share: 0.15, weights: 15231233024, checkpointing: 'full', freed: 32212254720, step_time_increase: 0.33,
  num_generations: 8, generation_batch: 3, gradient_accumulation_steps: 1, paths: 'lora.r, rlhf', can_shard: 'true', points: 1,
};

/**
 * The sample params of a registered code, with `reason` set to one of its reasons.
 * @param {{params: string[]}} c
 * @param {string} [reason]
 */
function sampleParams(c, reason) {
  /** @type {Record<string, unknown>} */
  const params = {};
  for (const key of c.params) {
    assert.ok(key in SAMPLE, 'a sample value for ' + JSON.stringify(c) + '.' + key);
    params[key] = SAMPLE[key];
  }
  if (reason) params.reason = reason;
  else delete params.reason;
  return params;
}

test('the registry lists the error and warning codes, and the solve reasons', () => {
  assert.ok(registry.filter((c) => c.kind === 'error').length >= 24);
  assert.ok(registry.filter((c) => c.kind === 'warning').length >= 20);
  assert.ok(registry.filter((c) => c.kind === 'reason').length >= 15);
});

test("a strategy's explanation gives its sizes in the page's unit and its plural right", () => {
  // 2^31 bytes = 2 GiB = 2.147483648 GB; 30 GiB = 32.21 GB; 0.33 of the step = 33.0%.
  const headroom = { code: 'strategy_without_recompute', params: { headroom: 2147483648 } };
  assert.equal(messageText(headroom, 'en', 'GiB'), 'no recompute; 2.00 GiB of headroom');
  assert.equal(messageText(headroom, 'zh', 'GB'), '不重算；余量 2.15 GB');
  const frees = { code: 'strategy_checkpointing_frees_at_cost', params: { checkpointing: 'selective', freed: 32212254720, step_time_increase: 0.33 } };
  assert.equal(messageText(frees, 'en', 'GB'), 'selective checkpointing frees 32.21 GB at +33.0% step time');
  const one = { code: 'no_factorization', params: { world_size: 1 } };
  assert.match(messageText(one, 'en'), /^no factorization of 1 GPU suits/);
});

test('a byte count out of range is said in the page\'s unit, not in bytes', () => {
  // 1e15 GiB typed into the custom device's memory: 1e15 x 2^30 B, over the engine's 1e15 B limit
  // (= 931,322.57 GiB = 1,000,000.00 GB).
  const e = { code: 'out_of_range', field: 'gpu.memory_bytes', message: 'gpu.memory_bytes = 1.073741824e+24 is out of range (1 to 1000000000000000)',
    params: { value: '1.073741824e+24', min: 1, max: 1e15 } };
  assert.equal(messageText(e, 'en', 'GiB'), '1,000,000,000,000,000.00 GiB is out of range (at most 931,322.57 GiB)');
  assert.equal(messageText(e, 'en', 'GB'), '1,073,741,824,000,000.00 GB is out of range (at most 1,000,000.00 GB)');
  // Below the range, a floor of 1 byte is said in bytes (0.00 GiB would contradict the value).
  const zero = { ...e, params: { value: '0', min: 1, max: 1e15 } };
  assert.equal(messageText(zero, 'en', 'GB'), '0.00 GB is out of range (at least 1 B)');
  // Other fields keep the engine's message.
  const other = { code: 'out_of_range', field: 'batch.micro_batch_size', message: 'batch.micro_batch_size = 0 is out of range (1 to 1000000)',
    params: { value: '0', min: 1, max: 1e6 } };
  assert.equal(messageText(other, 'en'), other.message);
});

test('a list that shows the field beside the message does not repeat its path', () => {
  const e = { code: 'wrong_type', field: 'batch.micro_batch_size', message: 'batch.micro_batch_size must be an integer, got string "two"',
    params: { expected: 'integer', got: 'string', value: '"two"' } };
  assert.equal(messageAfterField(e), 'must be an integer, got string "two"');
  // A message that does not begin with its field is shown whole.
  const other = { code: 'missing_field', field: 'hidden_size', message: 'the config needs hidden_size', params: {} };
  assert.equal(messageAfterField(other), 'the config needs hidden_size');
  // Nor after a colon ("lora.target_modules: ..."), which the list would show as the path twice.
  const colon = { code: 'invalid_value', field: 'lora.target_modules', message: 'lora.target_modules: "x_proj" is not a linear module', params: {} };
  assert.equal(messageAfterField(colon), '"x_proj" is not a linear module');
  // A field that is only a prefix of the message's first word is no field.
  const prefix = { code: 'invalid_value', field: 'lora.r', message: 'lora.rank is not a field', params: {} };
  assert.equal(messageAfterField(prefix), 'lora.rank is not a field');
});

test('the page words every registered code in English and Chinese, and no code the engine lacks', () => {
  const known = new Set(registry.map((c) => c.code));
  const missing = registry.filter((c) => !WORDINGS[c.code] || typeof WORDINGS[c.code].en !== 'function' || typeof WORDINGS[c.code].zh !== 'function');
  assert.deepEqual(missing.map((c) => c.code), [], 'codes the page cannot word');
  assert.deepEqual(Object.keys(WORDINGS).filter((c) => !known.has(c)), [], 'wordings for codes the engine never emits');
});

test('each wording is built from its params: no placeholder, undefined or English sentence in Chinese', () => {
  for (const c of registry) {
    const params = sampleParams(c, c.code === 'time_unavailable' ? 'no_architecture' : undefined);
    // With every listed param, and (an error's params are optional) with none.
    for (const p of c.kind === 'error' ? [params, {}] : [params]) {
      const m = { code: c.code, field: 'batch.micro_batch_size', message: '', params: p };
      const en = messageText(m, 'en');
      const zh = messageText(m, 'zh');
      for (const s of [en, zh]) {
        assert.ok(s.length > 0, c.code);
        assert.doesNotMatch(s, /undefined|NaN|\{|\[object/, c.code + ': ' + s);
      }
      // generic_layout's assumptions are the engine's English notes; its Chinese wording leaves them out.
      assert.doesNotMatch(zh, ENGLISH_SENTENCE, c.code + ': ' + zh);
      assert.match(zh, /[\u4e00-\u9fff]/, c.code + ' in Chinese: ' + zh);
    }
  }
});

test('each reason of each code is worded from its params in both languages, and the page words no reason the engine lacks', () => {
  let walked = 0;
  for (const c of registry) {
    for (const reason of c.reasons) {
      const wording = reasonWording(c.code, reason);
      assert.ok(wording, 'no wording for ' + c.code + ' reason ' + reason);
      // With every listed param, and with the reason alone (a check attaches its own subset).
      for (const params of [sampleParams(c, reason), { reason }]) {
        const m = { code: c.code, field: 'parallel.world_size', message: 'the English message', params };
        const en = messageText(m, 'en'), zh = messageText(m, 'zh');
        assert.equal(en, 'the English message');  // English shows the engine's own message
        // The reason's wording, not the code's generic one.
        assert.notEqual(zh, WORDINGS[c.code].zh(/** @type {any} */ (ctx(params))), c.code + ' ' + reason);
        for (const s of [wording.en(/** @type {any} */ (ctx(params))), zh]) {
          assert.ok(s.length > 0, c.code + ' ' + reason);
          assert.doesNotMatch(s, /undefined|NaN|\{|\[object/, c.code + ' ' + reason + ': ' + s);
        }
        assert.doesNotMatch(zh, ENGLISH_SENTENCE, c.code + ' ' + reason + ': ' + zh);
        assert.match(zh, /[\u4e00-\u9fff]/, c.code + ' ' + reason + ' in Chinese: ' + zh);
      }
      walked++;
    }
  }
  assert.ok(walked >= 60, 'reasons walked: ' + walked);
  for (const [code, reasons] of Object.entries(REASON_WORDINGS)) {
    const c = registry.find((r) => r.code === code);
    assert.ok(c, 'reason wordings for a code the engine lacks: ' + code);
    assert.deepEqual(Object.keys(reasons).filter((r) => !c.reasons.includes(r)), [], 'wordings of reasons ' + code + ' never has');
  }
});

/**
 * A wording's context for params, as messageText builds it.
 * @param {Record<string, unknown>} p
 */
function ctx(p) {
  const has = (/** @type {string} */ k) => p[k] !== undefined && p[k] !== null && p[k] !== '';
  return { p, field: '', has, n: (/** @type {string} */ k) => String(p[k] ?? ''), s: (/** @type {string} */ k) => String(p[k] ?? '') };
}

test('a catalog file\'s problem is worded as its own code, for every code a catalog check can raise', () => {
  for (const c of registry.filter((r) => r.kind === 'error' && r.code !== 'invalid_catalog')) {
    for (const reason of c.reasons.length ? c.reasons : [undefined]) {
      const params = { ...sampleParams(c, reason), file: 'catalog/models/llama-3.1-8b.json', problem: c.code };
      const zh = messageText({ code: 'invalid_catalog', field: 'catalog/models/llama-3.1-8b.json: hf_config', message: 'catalog/models/llama-3.1-8b.json: hf_config is missing', params }, 'zh');
      assert.match(zh, /^目录文件 catalog\/models\/llama-3\.1-8b\.json 有误：/, c.code);
      assert.doesNotMatch(zh, ENGLISH_SENTENCE, c.code + ': ' + zh);
    }
  }
});

test("the page's YAML and TOML parse errors are worded in Chinese, with the file, line and column", () => {
  // Each a different parser failure (npm yaml, the PyYAML rules applied after it, smol-toml).
  const broken = [
    ['broken.yaml', 'a: 1\nb: [1, 2\nc: 3\n'],
    ['dup.yaml', 'a: 1\na: 2\n'],
    ['merge.yaml', 'a: &x 1\nb:\n  <<: *x\n'],
    ['deep.yaml', '['.repeat(70) + ']'.repeat(70) + '\n'],
    ['nul.yaml', 'a: 1\u0000\n'],
    ['broken.toml', '[a]\nb = = 1\n'],
    ['dup.toml', 'a = 1\na = 2\n'],
  ];
  for (const [name, text] of broken) {
    const r = importFile(name, text);
    assert.ok('error' in r, name);
    const e = /** @type {any} */ (r).error;
    assert.equal(messageText(e, 'en'), e.message, name);  // English: the parser's own words
    const zh = messageText(e, 'zh');
    assert.ok(zh.startsWith(name), name + ': ' + zh);
    assert.match(zh, /[\u4e00-\u9fff]/, name + ': ' + zh);
    assert.doesNotMatch(zh, ENGLISH_SENTENCE, name + ': ' + zh);
    if (e.params.line) assert.ok(zh.includes('第 ' + e.params.line + ' 行'), name + ': ' + zh);
  }
});

test("the import notes' Chinese reasons are reasons the engine gives", () => {
  // Each worded reason is written, as a whole string, in one of the import's readers: a reason
  // reworded in the engine fails here instead of falling back to its tooltip unnoticed.
  const dir = new URL('../engine/src/import/', import.meta.url).pathname;
  const sources = readdirSync(dir).map((f) => readFileSync(dir + f, 'utf8')).join('\n');
  for (const [reason, zh] of Object.entries(EXACT_ZH)) {
    assert.ok(sources.includes(JSON.stringify(reason)), 'not a reason the engine gives: ' + reason);
    assert.equal(noteReasonZh(reason), zh);
    assert.doesNotMatch(zh, ENGLISH_SENTENCE, zh);
  }
  assert.equal(noteReasonZh('used with torch_compile only'), '仅在使用 torch_compile 时生效');
  assert.equal(noteReasonZh('a reason the page has no wording for'), null);
});

test('numbers keep their values, with thousands separators', () => {
  // The engine reads documents up to 2^20 = 1,048,576 bytes (engine/include/trainmem/json_api.hpp).
  const tooLarge = { code: 'document_too_large', field: '(document)', message: '', params: { bytes: 2000000, limit: 1048576 } };
  assert.equal(messageText(tooLarge, 'zh'), '有 2,000,000 字节，超过上限 1,048,576 字节');
  const divides = { code: 'not_divisible', field: 'parallel.tensor_parallel_size', message: '', params: { divisor: 3, of: 'num_attention_heads', value: 32 } };
  assert.equal(messageText(divides, 'zh'), '3 必须整除 num_attention_heads = 32');
  const accumulation = { code: 'global_batch_does_not_set_memory', message: '', params: { global_batch_size: 1048576 } };
  assert.match(messageText(accumulation, 'zh'), /（1,048,576）/);
});

test('a TPU warning names, in both languages, only the libraries the setup uses and why each has no TPU back end', () => {
  const w = { code: 'tpu_unsupported_software', message: '', params: { gpu: 'Google TPU v5p 95GB', parts: 'bitsandbytes 8-bit optimizer, Liger Kernel', part_ids: 'bitsandbytes_8bit_optimizer,liger_kernel' } };
  assert.equal(messageText(w, 'zh'), 'Google TPU v5p 95GB 是 TPU：bitsandbytes 8 位优化器、Liger Kernel 在其上无法运行（bitsandbytes 支持 NVIDIA、AMD、Intel 和 Gaudi 设备；Liger Kernel 支持 CUDA、ROCm、Intel XPU 和昇腾 NPU），按当前写法无法启动；本估算按 PyTorch 的 CUDA 分配器计算，而非 XLA 的');
  assert.doesNotMatch(messageText(w, 'zh'), /DeepSpeed|Megatron/);
});

test("English shows the engine's own message; a code the page does not know falls back to it", () => {
  const m = { code: 'not_divisible', field: 'parallel.tensor_parallel_size', message: 'parallel.tensor_parallel_size = 3 must divide num_attention_heads = 32', params: {} };
  assert.equal(messageText(m, 'en'), m.message);
  assert.equal(messageText({ code: 'a_future_code', message: 'as the engine says it', params: {} }, 'zh'), 'as the engine says it');
  // A problem the page found itself has no params and is already in the page's language.
  assert.equal(messageText({ code: 'document_too_large', message: '文件太大' }, 'zh'), '文件太大');
});

test("a pasted config.json's errors name their values in Chinese", () => {
  // Llama-3.1-8B's config.json (the catalog's copy) with 7 key/value heads, which do not divide its
  // 32 attention heads, and a vocabulary size written as text.
  const catalog = JSON.parse(execFileSync(cli, ['catalog', 'models']).toString());
  const config = { ...catalog.models.find((/** @type {any} */ m) => m.id === 'llama-3.1-8b').hf_config, num_key_value_heads: 7 };
  /** @param {object} hf */
  const errors = (hf) => {
    try {
      execFileSync(cli, ['estimate', '-'], { input: JSON.stringify({ model: { hf_config: hf } }) });
    } catch (e) {
      return JSON.parse(/** @type {{stdout: Buffer}} */ (e).stdout.toString()).errors;
    }
    throw new Error('estimated');
  };
  const [heads] = errors(config);
  assert.equal(messageText(heads, 'zh'), '7 必须整除 num_attention_heads = 32');
  const [vocab] = errors({ ...config, num_key_value_heads: 8, vocab_size: 'many' });
  assert.equal(messageText(vocab, 'zh'), '应为整数："many" 不是数字');
});

test('a field of the wrong type names what was typed, in both languages', () => {
  let out;
  try {
    execFileSync(cli, ['estimate', '-'], { input: JSON.stringify({ model: { preset: 'llama-3.1-8b' }, batch: { seq_length: 'abc' } }) });
  } catch (e) {
    out = JSON.parse(/** @type {{stdout: Buffer}} */ (e).stdout.toString());
  }
  const [e] = out.errors;
  assert.equal(e.field, 'batch.seq_length');
  // Text where a number belongs (a form field holding "4,096" or "abc") is said to be no number.
  assert.equal(messageText(e, 'zh'), '应为整数："abc" 不是数字');
  assert.equal(messageText(e, 'en'), 'batch.seq_length must be an integer, got string "abc"');
});

test("the engine's real errors and warnings read in Chinese without an English sentence", () => {
  /** @param {object} doc */
  const estimate = (doc) => {
    try {
      return JSON.parse(execFileSync(cli, ['estimate', '-'], { input: JSON.stringify(doc) }).toString());
    } catch (e) {
      return JSON.parse(/** @type {{stdout: Buffer}} */ (e).stdout.toString());  // exit 2: the error document
    }
  };
  const bad = [
    { model: { preset: 'llama-3.1-8b' }, parallel: { world_size: 3, tensor_parallel_size: 3 } },
    { model: { preset: 'llama-3.1-8c' } },
    { model: { preset: 'llama-3.1-8b' }, batch: { micro_batch_size: 0 } },
    { model: { preset: 'llama-3.1-8b' }, batch: { micro_batch_size: 1.5 } },
    { model: { preset: 'llama-3.1-8b' }, precision: { optimizer: 'adamw8bit' } },
    { model: { preset: 'llama-3.1-8b' }, batch: { micro_batch_size: 'two' } },
    { model: { preset: 'llama-3.1-8b' }, gpu: 'h100' },
    { model: { preset: 'llama-3.1-8b' }, parallel: { world_size: 12, tensor_parallel_size: 8 } },
    { model: { preset: 'llama-3.1-8b' }, batch: { micro_batchsize: 2 } },
    // Checks of the codes with reasons (message-reasons.js).
    { model: { preset: 'llama-3.1-8b', num_parameters: 8e9 } },
    { batch: { micro_batch_size: 1 } },
    { model: { preset: 'llama-3.1-8b' }, gpu: { memory_bytes: 1000000, usable_bytes: 2000000 } },
    { model: { preset: 'llama-3.1-8b' }, parallel: { world_size: 2, zero_stage: 2, offload_param: 'cpu' } },
    { model: { preset: 'llama-3.1-8b' }, checkpoint: { save: 'adapter' } },
    { model: { num_parameters: 7e9 }, method: 'freeze' },
    { model: { preset: 'llama-3.1-8b' }, parallel: { world_size: 2, pipeline_parallel_size: 2, pipeline_layers: [16, 15] } },
  ];
  const seen = new Set();
  for (const doc of bad) {
    const out = estimate(doc);
    assert.ok(out.error, JSON.stringify(doc));
    for (const e of out.errors) {
      seen.add(e.code);
      // A code whose checks each name their reason: this one's is worded by the page.
      const c = registry.find((r) => r.code === e.code);
      if (c && c.reasons.length && e.code !== 'out_of_range') {
        assert.ok(reasonWording(e.code, e.params.reason), e.code + ' ' + JSON.stringify(e.params));
        seen.add(e.code + ' ' + e.params.reason);
      }
      assert.doesNotMatch(messageText(e, 'zh'), ENGLISH_SENTENCE, e.code + ': ' + messageText(e, 'zh'));
    }
  }
  for (const code of ['not_divisible', 'unknown_preset', 'out_of_range', 'not_integer', 'unknown_value', 'wrong_type', 'unknown_gpu', 'unknown_field',
    'inconsistent one_model_source', 'missing_field model_required', 'inconsistent usable_above_memory', 'inconsistent offload_param_needs_zero3',
    'inconsistent adapter_save_needs_lora', 'missing_field method_needs_architecture', 'inconsistent pipeline_layers_sum'])
    assert.ok(seen.has(code), code);
  const out = estimate({ model: { preset: 'llama-3.1-8b' }, gpu: 'v100-32gb', method: 'qlora', parallel: { world_size: 2, zero_stage: 3 },
    batch: { gradient_accumulation_steps: 4 }, precision: { optimizer: 'paged_adamw_8bit' } });
  assert.ok(out.warnings.length >= 6);
  for (const w of out.warnings) assert.doesNotMatch(messageText(w, 'zh'), ENGLISH_SENTENCE, w.code);
});

test('every link problem the codec names has a Chinese wording with the same parameters', async () => {
  const { PROBLEMS } = await import('../web/src/link-codec.js');
  const { STRINGS } = await import('../web/src/i18n.js');
  const codes = Object.keys(PROBLEMS);
  assert.ok(codes.length >= 20);
  for (const code of codes) {
    const zh = STRINGS.zh['lp_' + code];
    assert.equal(typeof zh, 'string', 'lp_' + code);
    assert.match(zh, /[\u4e00-\u9fff]/, 'lp_' + code);
    // The English wording names each parameter the Chinese one does, and the other way round.
    const params = { length: 111, limit: 222, version: 333, latest: 444, field: 'micro_batch_size' };
    const en = PROBLEMS[code](params);
    for (const [k, v] of Object.entries(params)) assert.equal(zh.includes('{' + k + '}'), en.includes(String(v)), code + ' ' + k);
  }
});
