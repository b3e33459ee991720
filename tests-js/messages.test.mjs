// Every error and warning code the engine can emit (`trainmem codes`, from
// engine/include/trainmem/message_codes.hpp) is worded by the page (web/src/messages.js) in English
// and Simplified Chinese from its params, and the Chinese wording holds no English sentence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { WORDINGS, messageText } from '../web/src/messages.js';

const cli = new URL('../build-native/trainmem', import.meta.url).pathname;
/** @type {{code: string, kind: 'error' | 'warning', params: string[]}[]} */
const registry = JSON.parse(execFileSync(cli, ['codes']).toString()).codes;

// Three English words in a row: a sentence left untranslated. Field names (batch.seq_length),
// model ids and type names have no spaces, so they pass.
const ENGLISH_SENTENCE = /[A-Za-z]{4,} [a-z]{3,} [a-z]{3,}/;

// A plausible value for each params key (numbers where the engine sends numbers).
/** @type {Record<string, unknown>} */
const SAMPLE = {
  value: '0', min: 1, above: 0, max: 1000000, entries: 20000, limit: 10000, bytes: 3221225472, suggestion: 'llama-3.1-8b',
  allowed: 'adamw, adamw_8bit, sgd', expected: 'integer', got: 'string', divisor: 3, of: 'num_attention_heads',
  world_size: 12, model_parallel: 8, model_type: 'qwen2', fields: ['lora.r', 'rlhf'], targets: 'q_proj, v_proj',
  assumptions: 'model_type "foo" has no family layout here: read as a generic decoder', seq_length: 262144,
  max_position_embeddings: 131072, r: 4096, adapter_parameters: 9000000000, parameters: 8030261248,
  global_batch_size: 64, min_8bit_size: 4096, gpu: 'NVIDIA V100 SXM2 32GB', field: 'model.hf_config.audio_config',
  height: 448, width: 448, reason: 'no_architecture',
  framework: 'NeMo', file: 'train.yaml', evidence: 'exp_manager:', origin: 'run.sh:--max_length $SEQ',
};

test('the registry lists the error and warning codes', () => {
  assert.ok(registry.filter((c) => c.kind === 'error').length >= 24);
  assert.ok(registry.filter((c) => c.kind === 'warning').length >= 20);
});

test('the page words every registered code in English and Chinese, and no code the engine lacks', () => {
  const known = new Set(registry.map((c) => c.code));
  const missing = registry.filter((c) => !WORDINGS[c.code] || typeof WORDINGS[c.code].en !== 'function' || typeof WORDINGS[c.code].zh !== 'function');
  assert.deepEqual(missing.map((c) => c.code), [], 'codes the page cannot word');
  assert.deepEqual(Object.keys(WORDINGS).filter((c) => !known.has(c)), [], 'wordings for codes the engine never emits');
});

test('each wording is built from its params: no placeholder, undefined or English sentence in Chinese', () => {
  for (const c of registry) {
    /** @type {Record<string, unknown>} */
    const params = {};
    for (const key of c.params) {
      assert.ok(key in SAMPLE, 'a sample value for ' + c.code + '.' + key);
      params[key] = SAMPLE[key];
    }
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

test('numbers keep their values, with thousands separators', () => {
  // The engine reads documents up to 2^20 = 1,048,576 bytes (engine/include/trainmem/json_api.hpp).
  const tooLarge = { code: 'document_too_large', field: '(document)', message: '', params: { bytes: 2000000, limit: 1048576 } };
  assert.equal(messageText(tooLarge, 'zh'), '有 2,000,000 字节，超过上限 1,048,576 字节');
  const divides = { code: 'not_divisible', field: 'parallel.tensor_parallel_size', message: '', params: { divisor: 3, of: 'num_attention_heads', value: 32 } };
  assert.equal(messageText(divides, 'zh'), '3 必须整除 num_attention_heads = 32');
  const accumulation = { code: 'global_batch_does_not_set_memory', message: '', params: { global_batch_size: 1048576 } };
  assert.match(messageText(accumulation, 'zh'), /（1,048,576）/);
});

test("English shows the engine's own message; a code the page does not know falls back to it", () => {
  const m = { code: 'not_divisible', field: 'parallel.tensor_parallel_size', message: 'parallel.tensor_parallel_size = 3 must divide num_attention_heads = 32', params: {} };
  assert.equal(messageText(m, 'en'), m.message);
  assert.equal(messageText({ code: 'a_future_code', message: 'as the engine says it', params: {} }, 'zh'), 'as the engine says it');
  // A problem the page found itself has no params and is already in the page's language.
  assert.equal(messageText({ code: 'document_too_large', message: '文件太大' }, 'zh'), '文件太大');
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
  ];
  const seen = new Set();
  for (const doc of bad) {
    const out = estimate(doc);
    assert.ok(out.error, JSON.stringify(doc));
    for (const e of out.errors) {
      seen.add(e.code);
      assert.doesNotMatch(messageText(e, 'zh'), ENGLISH_SENTENCE, e.code + ': ' + messageText(e, 'zh'));
    }
  }
  for (const code of ['not_divisible', 'unknown_preset', 'out_of_range', 'not_integer', 'unknown_value', 'wrong_type', 'unknown_gpu', 'unknown_field'])
    assert.ok(seen.has(code), code);
  const out = estimate({ model: { preset: 'llama-3.1-8b' }, gpu: 'v100-32gb', method: 'qlora', parallel: { world_size: 2, zero_stage: 3 },
    batch: { gradient_accumulation_steps: 4 }, precision: { optimizer: 'paged_adamw_8bit' } });
  assert.ok(out.warnings.length >= 6);
  for (const w of out.warnings) assert.doesNotMatch(messageText(w, 'zh'), ENGLISH_SENTENCE, w.code);
});
