// Properties of the link codec (web/src/link-codec.js), checked with fast-check on generated input:
// every document made of the link's fields (each enum of docs/api.md among the values) survives a
// round trip, and decoding any text whatsoever returns an answer (never throws) from which a link
// can be written again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';

import * as Url from '../web/src/link-codec.js';
import * as Paths from '../web/src/doc-paths.js';

// The enumerated values of docs/api.md, by document path (the free-text fields, model presets and
// GPU ids, take any text).
const ENUMS = {
  framework: ['hf_trainer', 'torchtune', 'torchtitan', 'deepspeed', 'fsdp', 'megatron'],
  method: ['full', 'lora', 'qlora', 'freeze'],
  'lora.adapter_dtype': ['fp32', 'bf16', 'fp16', 'fp8'],
  'lora.modules_to_save': ['lm_head', 'embed_tokens'],
  'qlora.quant_type': ['nf4', 'fp4', 'int4'],
  'rlhf.algorithm': ['dpo', 'ppo', 'grpo'],
  'rlhf.reference.method': ['frozen', 'shared_base'],
  'rlhf.critic.method': ['full', 'lora'],
  'precision.param_dtype': ['fp32', 'bf16', 'fp16', 'fp8'],
  'precision.grad_dtype': ['fp32', 'bf16', 'fp16', 'fp8'],
  'precision.compute_dtype': ['fp32', 'bf16', 'fp16', 'fp8'],
  'precision.optimizer': ['adamw', 'adam', 'adamw_8bit', 'paged_adamw', 'paged_adamw_8bit', 'adafactor', 'sgd', 'sgd_momentum', 'lion'],
  'precision.optimizer_state_dtype': ['fp32', 'bf16', 'fp16', 'int8'],
  activation_checkpointing: ['none', 'selective', 'full'],
  selective_policy: ['attention_core', 'op_level'],
  'loss.implementation': ['full', 'chunked', 'fused'],
  model_loading: ['meta_init', 'full_copy_per_gpu'],
  attention: ['flash', 'sdpa', 'eager'],
  'parallel.offload_optimizer': ['none', 'cpu', 'nvme'],
  'parallel.offload_param': ['none', 'cpu', 'nvme'],
  'parallel.pipeline_schedule': ['1f1b', 'interleaved_1f1b', 'gpipe'],
  'parallel.context_parallel_kind': ['ring', 'ulysses'],
  'checkpoint.save': ['full_state', 'weights', 'adapter'],
  'checkpoint.weights_dtype': ['fp32', 'bf16', 'fp16', 'fp8'],
};
const MEASURES = ['allocated', 'reserved', 'nvidia-smi'];

test('every enumerated value above is one docs/api.md names', () => {
  const api = readFileSync(new URL('../docs/api.md', import.meta.url), 'utf8');
  for (const [path, values] of Object.entries(ENUMS)) {
    assert.ok(Url.KEYS.some(([, p]) => p === path), path + ' has a link key');
    for (const v of values) assert.ok(api.includes(v), path + ': ' + v + ' is not in docs/api.md');
  }
});

const text = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 });
// Numbers as a link writes them (no -0: String(-0) is "0").
const number = fc.oneof(fc.integer({ min: 0, max: 2 ** 53 }), fc.double({ noNaN: true, noDefaultInfinity: true }))
  .filter((x) => !Object.is(x, -0));
/** @type {Record<string, (path: string) => fc.Arbitrary<unknown>>} */
const BY_TYPE = {
  num: () => number,
  bool: () => fc.boolean(),
  // A flag is a boolean or one of its words (compile: true, false, "blocks", "blocks_and_loss").
  flag: (path) => {
    const words = (ENUMS[path] || []).filter((v) => typeof v === 'string' && !['true', 'false', '1', '0'].includes(v));
    return fc.oneof(fc.boolean(), words.length ? fc.constantFrom(...words) : text.filter((v) => !['true', 'false', '1', '0'].includes(v)));
  },
  str: (path) => (ENUMS[path] ? fc.constantFrom(...ENUMS[path]) : text),
  list: (path) => fc.array(ENUMS[path] ? fc.constantFrom(...ENUMS[path]) : text, { maxLength: 3 }),
  // "all-linear", names, or a regex string (any text).
  modules: () => fc.oneof(fc.constant('all-linear'), fc.array(text.filter((s) => s !== 'all-linear'), { minLength: 1, maxLength: 4 }),
    text.filter((s) => s !== 'all-linear')),
  // Canonical JSON objects (what JSON.parse gives back), as a pasted config.json becomes.
  json: () => fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 })
    .map((o) => JSON.parse(JSON.stringify(o))),
  prices: () => fc.dictionary(fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,15}$/), number, { maxKeys: 4, noNullPrototype: true }),
  // An image size [height, width] (multimodal.image_size).
  size: () => fc.tuple(number, number),
  // Layer counts per pipeline chunk (parallel.pipeline_layers).
  nums: () => fc.array(number, { minLength: 1, maxLength: 8 }),
  points: () => fc.array(fc.record({ measured_bytes: number, micro_batch_size: number, seq_length: number,
    measure: fc.constantFrom(...MEASURES) }, { requiredKeys: [], noNullPrototype: true }), { minLength: 1, maxLength: 2 }),
};

// A document made of any subset of the link's fields; a catalog gpu or a custom device, not both.
const documents = fc.subarray(Url.KEYS, { minLength: 1 }).chain((keys) => {
  const customGpu = keys.some(([, path]) => path.startsWith('gpu.'));
  const chosen = keys.filter(([, path]) => !(customGpu && path === 'gpu'));
  return fc.tuple(...chosen.map(([, path, type]) => BY_TYPE[type](path))).map((values) => {
    const doc = {};
    chosen.forEach(([, path], i) => Paths.setPath(doc, path, values[i]));
    return doc;
  });
});

test('decode(encode(doc)) is doc, without problems, for documents of every field and enum', () => {
  assert.deepEqual(Object.keys(BY_TYPE).sort(), [...new Set(Url.KEYS.map(([, , type]) => type))].sort(), 'a value type without a generator');
  fc.assert(fc.property(documents, (doc) => {
    const back = Url.decode(Url.encode(doc));
    assert.deepEqual(back.problems, []);
    assert.deepEqual(back.doc, doc);
  }), { numRuns: 400 });
});

test('pipeline layers travel as numbers; text that is not numbers is a problem that keeps the text', () => {
  const doc = { parallel: { pipeline_parallel_size: 4, pipeline_layers: [7, 8, 8, 7] } };
  const link = Url.encode(doc);
  assert.match(link, /[&:]pl=7,8,8,7&/);
  assert.deepEqual(Url.decode(link).doc, doc);
  const typed = Url.decode(Url.encode({ parallel: { pipeline_layers: '7,eight' } }));
  assert.deepEqual(typed.problems.map((p) => [p.path, p.code]), [['parallel.pipeline_layers', 'not_numbers']]);
});

// Text that looks like links: the prefixes of every version, then key=value pairs of any characters,
// and plain garbage.
const linkish = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.tuple(fc.constantFrom('#v1:', '#v2:', '#v3:', '#v4:', '#v5:', '#', ''),
    fc.array(fc.tuple(fc.constantFrom(...Url.KEYS.map(([key]) => key), 'c', 'zz'), fc.string({ unit: 'binary', maxLength: 40 })),
      { maxLength: 8 }))
    .map(([prefix, pairs]) => prefix + pairs.map(([k, v]) => k + '=' + v).join('&')),
);

/** @param {string} link */
function decodesSafely(link) {
  const r = Url.decode(link);
  assert.ok(Array.isArray(r.problems));
  if (r.doc !== null) Url.encode(r.doc);  // a link can always be written back
  return r;
}

test('decode never throws on any text, and what it returns can be written back as a link', () => {
  fc.assert(fc.property(linkish, (link) => {
    decodesSafely(link);
  }), { numRuns: 5000 });
});

test('a valid v4 link with any one character changed or cut is refused whole or decoded safely', () => {
  fc.assert(fc.property(documents, fc.nat(), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), (doc, at, ch) => {
    const link = Url.encode(doc);
    const i = 4 + (at % (link.length - 4));
    const changed = link.slice(0, i) + ch + link.slice(i + 1);
    const r = decodesSafely(changed);
    if (changed !== link) assert.equal(r.doc, null, changed);
    assert.equal(decodesSafely(link.slice(0, i)).doc, null);
  }), { numRuns: 150 });
});
