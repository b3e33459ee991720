// The link codec: one estimate document (docs/api.md), plus the "What fits?" panel's
// `solve` options (the engine's solve document), <-> "#v4:k=v&k=v&c=<check>". Pure: no DOM.
//
// Format: "#v<version>:" then "key=value" pairs joined by "&", keys from KEYS below (never positional),
// values percent-encoded; booleans 1/0 (a flag: 1/0 or one of its words); lists comma-separated; image sizes
// "<height>x<width>" (pixels); JSON objects (a pasted config.json)
// deflated (fflate) and base64url-encoded; prices "gpu-id:usd,gpu-id:usd"; measured points
// "bytes_microbatch_seqlength_measure,..." (a field may be empty); last, "c=" and the CRC-32 of
// everything before "&c=" (from "v4:") in 8 hex digits, so a link cut short or changed is refused
// whole. A v4 link re-encoded on the way (an app percent-encoded ":", "&", "=" or ",", or any
// character the page writes as it is; appended "." or ")"; the check value in capitals) is read as
// the page wrote it when its check value says so. Links of every released version decode through the migration ladder (v1: the first
// release; v2: no solve options; v3: lz-string for JSON, no check value).
//
// Limits (docs/api.md): a link of at most MAX_LINK_CHARS characters; a JSON value decompresses to at
// most MAX_JSON_BYTES, checked while decompressing (the decompressor is fed 1 KB at a time and
// stopped past the limit); a v1-v3 JSON value is at most LEGACY_JSON_CHARS characters, as lz-string
// cannot stop early and its output can grow with the square of its input.
import LZString from 'lz-string';
import { Inflate, deflateSync } from 'fflate';
import CRC32 from 'crc-32';
import { getPath, setPath, leafPaths } from './doc-paths.js';

/** @typedef {import('./doc-paths.js').Doc} Doc */
/** @typedef {{key: string, problem: string, text: string}} EntryProblem  an object value's entry that is not of its type */
/**
 * A problem with a link: a parameter left out (the rest kept), or, with `whole`, the link refused
 * (doc null).
 * @typedef {{param: string, path: string, value: string, message: string, code?: string, params?: Record<string, string | number>, error?: import('./messages.js').EngineMessage, whole?: boolean, text?: string, invalid?: boolean, unused?: string, stored?: boolean}} LinkProblem
 *   code and params: what the page words in each language (PROBLEMS; the page's i18n table has lp_<code>);
 *   error: the engine's error for a field it rejects, worded when shown;
 *   text: the whole value as typed, for a field's value that is not of its type or not even
 *   percent-decodable (TYPED_PROBLEMS)
 *   and for a config.json value that cannot be read: the page keeps it in its field, as the form
 *   keeps text it cannot read
 */

export const VERSION = 4;
export const MAX_LINK_CHARS = 1 << 20;
export const MAX_JSON_BYTES = 1 << 20;  // the engine's document limit (engine/include/trainmem/json_api.hpp)
// The engine's nesting limit (json_api.hpp kMaxNestingDepth): a deeper value is refused before
// JSON.parse, whose result the page would otherwise walk recursively (JSON.stringify) until the
// stack overflowed.
export const MAX_JSON_DEPTH = 64;
export const LEGACY_JSON_CHARS = 4096;  // a compressed config.json is a few hundred characters
const INFLATE_STEP = 1024;              // deflate expands at most 1032:1, so about 1 MB between checks

// Short key -> document path and value type. Every input field of docs/api.md has exactly one row; the order here is the order in links.
/** @type {[string, string, string][]} */
export const KEYS = [
  ['m', 'model.preset', 'str'],
  ['mn', 'model.num_parameters', 'num'],
  ['mc', 'model.hf_config', 'json'],
  ['fw', 'framework', 'str'],
  ['me', 'method', 'str'],
  ['lr', 'lora.r', 'num'],
  ['lt', 'lora.target_modules', 'modules'],
  ['lm', 'lora.modules_to_save', 'list'],
  ['ld', 'lora.use_dora', 'bool'],
  ['lo', 'lora.lora_dropout', 'num'],
  ['la', 'lora.adapter_dtype', 'str'],
  ['lal', 'lora.lora_alpha', 'num'],
  ['lx', 'lora.exclude_modules', 'modules'],
  ['ll', 'lora.layers_to_transform', 'nums'],
  ['lrp', 'lora.rank_pattern', 'json'],
  ['qt', 'qlora.quant_type', 'str'],
  ['qd', 'qlora.double_quant', 'bool'],
  ['qs', 'qlora.saves_base_inputs', 'bool'],
  ['qm', 'qlora.quant_method', 'str'],
  ['qn', 'qlora.nbits', 'num'],
  ['qg', 'qlora.group_size', 'num'],
  ['qx', 'qlora.axis', 'num'],
  ['ft', 'freeze.trainable_layers', 'num'],
  ['ra', 'rlhf.algorithm', 'str'],
  ['rr', 'rlhf.reference.method', 'str'],
  ['rm', 'rlhf.reward.model.preset', 'str'],
  ['rmn', 'rlhf.reward.model.num_parameters', 'num'],
  ['rmc', 'rlhf.reward.model.hf_config', 'json'],
  ['cm', 'rlhf.critic.model.preset', 'str'],
  ['cmn', 'rlhf.critic.model.num_parameters', 'num'],
  ['cmc', 'rlhf.critic.model.hf_config', 'json'],
  ['cme', 'rlhf.critic.method', 'str'],
  ['rt', 'rlhf.rollout.max_new_tokens', 'num'],
  ['rg', 'rlhf.rollout.num_generations', 'num'],
  ['rc', 'rlhf.rollout.colocated', 'bool'],
  ['rv', 'rlhf.rollout.use_vllm', 'bool'],
  ['rvu', 'rlhf.rollout.vllm_gpu_memory_utilization', 'num'],
  ['rvs', 'rlhf.rollout.vllm_enable_sleep_mode', 'bool'],
  ['pd', 'precision.param_dtype', 'str'],
  ['gd', 'precision.grad_dtype', 'str'],
  ['cd', 'precision.compute_dtype', 'str'],
  ['mw', 'precision.master_weights', 'bool'],
  ['o', 'precision.optimizer', 'str'],
  ['od', 'precision.optimizer_state_dtype', 'str'],
  ['ob', 'precision.optimizer_in_backward', 'bool'],
  ['f8', 'precision.fp8_compute', 'bool'],
  ['b', 'batch.micro_batch_size', 'num'],
  ['s', 'batch.seq_length', 'num'],
  ['ga', 'batch.gradient_accumulation_steps', 'num'],
  ['ds', 'batch.decoder_seq_length', 'num'],
  ['bp', 'batch.padding', 'str'],
  ['ac', 'activation_checkpointing', 'str'],
  ['sel', 'selective_policy', 'str'],
  ['cl', 'checkpointed_layers', 'num'],
  ['ao', 'activation_offload', 'bool'],
  ['lg', 'use_liger_kernel', 'bool'],
  ['zg', 'zero_grad_set_to_none', 'bool'],
  ['li', 'loss.implementation', 'str'],
  ['lf', 'loss.logits_fp32', 'bool'],
  ['lc', 'loss.num_chunks', 'num'],
  ['lh', 'loss.held_logits', 'str'],
  ['co', 'compile', 'flag'],
  ['ml', 'model_loading', 'str'],
  ['at', 'attention', 'str'],
  ['n', 'parallel.world_size', 'num'],
  ['gpn', 'parallel.gpus_per_node', 'num'],
  ['dp', 'parallel.data_parallel_size', 'num'],
  ['z', 'parallel.zero_stage', 'num'],
  ['sg', 'parallel.sharding_group_size', 'num'],
  ['tp', 'parallel.tensor_parallel_size', 'num'],
  ['pp', 'parallel.pipeline_parallel_size', 'num'],
  ['sp', 'parallel.sequence_parallel', 'bool'],
  ['cp', 'parallel.context_parallel_size', 'num'],
  ['ep', 'parallel.expert_parallel_size', 'num'],
  ['oo', 'parallel.offload_optimizer', 'str'],
  ['op', 'parallel.offload_param', 'str'],
  ['ps', 'parallel.pipeline_schedule', 'str'],
  ['vp', 'parallel.virtual_pipeline_stages', 'num'],
  ['rf', 'parallel.reshard_after_forward', 'bool'],
  ['uo', 'parallel.use_orig_params', 'bool'],
  ['zl', 'parallel.zero3_max_live_parameters', 'num'],
  ['g', 'gpu', 'str'],
  ['gm', 'gpu.memory_bytes', 'num'],
  ['gu', 'gpu.usable_bytes', 'num'],
  ['gc', 'gpu.cuda_context_bytes', 'num'],
  ['ff', 'overhead.fragmentation_fraction', 'num'],
  ['ks', 'checkpoint.save', 'str'],
  ['kx', 'checkpoint.exclude_frozen_parameters', 'bool'],
  ['kw', 'checkpoint.weights_dtype', 'str'],
  ['kk', 'checkpoint.keep_last', 'num'],
  ['kf', 'checkpoint.free_disk_bytes', 'num'],
  ['kr', 'checkpoint.node_ram_bytes', 'num'],
  ['po', 'precision.optimizer_implementation', 'str'],
  ['se', 'parallel.sharding_engine', 'str'],
  ['gs', 'parallel.gradient_sync', 'str'],
  ['etp', 'parallel.expert_tensor_parallel_size', 'num'],
  ['vd', 'make_vocab_size_divisible_by', 'num'],
  ['gf', 'gpu.bf16_dense_flops_per_s', 'num'],
  ['g8', 'gpu.fp8_dense_flops_per_s', 'num'],
  ['gb', 'gpu.memory_bandwidth_bytes_per_s', 'num'],
  ['ni', 'network.intra_node_bytes_per_s', 'num'],
  ['ne', 'network.inter_node_bytes_per_s', 'num'],
  ['tt', 'training.total_tokens', 'num'],
  ['tpr', 'training.price_per_gpu_hour_usd', 'num'],
  ['og', 'parallel.overlap_grad_reduce', 'bool'],
  ['vt', 'multimodal.freeze_vision_tower', 'bool'],
  ['vj', 'multimodal.freeze_projector', 'bool'],
  ['vi', 'multimodal.images_per_sample', 'num'],
  ['vs', 'multimodal.image_size', 'size'],
  ['cpk', 'parallel.context_parallel_kind', 'str'],
  ['tco', 'parallel.tp_comm_overlap', 'bool'],
  ['pl', 'parallel.pipeline_layers', 'nums'],
  // v3: the "What fits?" panel (solve options; the page adds the strategy list's length)
  ['xm', 'solve.safety_margin', 'num'],
  ['xg', 'solve.target_global_batch_size', 'num'],
  ['xw', 'solve.strategies.world_size', 'num'],
  ['xo', 'solve.strategies.order', 'str'],
  ['xp', 'solve.prices', 'prices'],
  ['xc', 'solve.calibration', 'points'],
];
const POINT_FIELDS = ['measured_bytes', 'micro_batch_size', 'seq_length', 'measure'];
const BY_KEY = new Map(KEYS.map(([key, path, type]) => [key, { key, path, type }]));
const CHECK_KEY = 'c';

/**
 * The check value of a v4 link's text before "&c=": CRC-32 (of its UTF-8 bytes) in 8 hex digits.
 * @param {string} text
 */
export function checkValue(text) {
  return (CRC32.str(text) >>> 0).toString(16).padStart(8, '0');
}

/** @param {Uint8Array} bytes */
function toBase64Url(bytes) {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * @param {string} text
 * @returns {Uint8Array | null}
 */
function fromBase64Url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

// A config's link value by object: the page re-encodes the same config on every input change, and
// deflating costs about a millisecond.
/** @type {WeakMap<object, {text: string, value: string}>} */
const compressed = new WeakMap();

/**
 * A JSON object as a link value: its JSON text deflated, base64url. Throws over MAX_JSON_BYTES.
 * @param {object} v
 */
function compressedJson(v) {
  const text = JSON.stringify(v);
  const hit = compressed.get(v);
  if (hit && hit.text === text) return hit.value;
  const bytes = new TextEncoder().encode(text);
  if (bytes.length > MAX_JSON_BYTES) throw new Error('link-codec: a JSON value is over ' + MAX_JSON_BYTES + ' bytes');
  const value = toBase64Url(deflateSync(bytes));
  compressed.set(v, { text, value });
  return value;
}

/**
 * What can be wrong with a link or one of its values, by code, in English (the page words each code
 * in Chinese too: lp_<code> in i18n.js). A decoder returns {problem: code, params}.
 * @type {Record<string, (p: Record<string, any>) => string>}
 */
export const PROBLEMS = {
  too_long: (p) => 'the link is ' + p.length + ' characters long; the limit is ' + p.limit,
  not_a_link: (p) => 'not a trainmem link (expected #v' + p.version + ':...)',
  newer_version: (p) => 'link version ' + p.version + ' comes from a newer trainmem page; this page reads versions 1 to ' + p.latest,
  unknown_version: (p) => 'link version ' + p.version + ' is not a trainmem link version (this page reads 1 to ' + p.latest + ')',
  check_missing: () => 'the link is incomplete: its check value (the last parameter, c=) is missing, so it was probably cut off when it was copied',
  check_mismatch: () => 'the link does not match its check value: it was cut off or changed after it was made',
  not_page_link: () => 'not a link the page wrote',
  check_malformed: (p) => 'its check value (the last parameter, c=) is "' + p.value + '", not 8 hexadecimal digits',
  unknown_parameter: () => 'unknown parameter',
  given_twice: () => 'given twice; the first is kept',
  gpu_kept: () => 'a catalog gpu and a custom device were both given; the catalog gpu is kept',
  custom_gpu_kept: () => 'a catalog gpu and a custom device were both given; the custom device is kept',
  malformed: () => 'malformed value',
  not_bool: () => 'expected 1 or 0',
  not_number: () => 'not a number',
  not_finite: () => 'not a finite number',
  not_exact: () => 'an integer beyond ±2^53 = 9007199254740992, which a number does not hold exactly',
  not_size: () => 'expected <height>x<width>',
  not_numbers: () => 'expected numbers separated by commas',
  not_json_object: () => 'not a JSON object',
  not_page_json: () => 'not the JSON text the page writes (a repeated key?)',
  not_compressed_json: () => 'not a compressed JSON object',
  json_too_large: (p) => 'decompresses to more than ' + p.limit + ' bytes',
  json_too_deep: (p) => 'nests arrays/objects deeper than ' + p.limit + ' levels',
  legacy_json_too_long: (p) => 'longer than ' + p.limit + ' characters (the limit for a v3 link)',
  not_prices: () => 'expected gpu-id:price pairs',
  not_points: () => 'expected one or two bytes_microbatch_seqlength_measure points',
  point_not_number: (p) => p.field + ' not a number',
  point_not_finite: (p) => p.field + ' not a finite number',
};

// A form field's value that is not of the field's type ("b=abc") or cannot be percent-decoded
// ("b=%ZZ"): the form writes such text into the link as typed (controls.js), so the link's problem
// carries the text back.
const TYPED_PROBLEMS = new Set(['not_bool', 'not_number', 'not_finite', 'not_exact', 'not_size', 'not_numbers', 'malformed']);

/**
 * A problem of a link parameter (or of the whole link, `whole`), with its English message.
 * @param {string} code  a key of PROBLEMS
 * @param {Record<string, string | number>} params
 * @param {{param?: string, path?: string, value?: string, whole?: boolean}} where
 * @returns {LinkProblem}
 */
function linkProblem(code, params, { param = '', path = '', value = '', whole } = {}) {
  return { param, path, value, message: PROBLEMS[code](params), code, params, ...(whole ? { whole } : {}) };
}

/**
 * A JSON object's text from a link value, decompressed within MAX_JSON_BYTES, or the problem.
 * @param {string} raw
 * @param {boolean} legacy  a v1-v3 link (lz-string)
 * @returns {{text?: string, problem?: string, params?: Record<string, number>}}
 */
function decompressJson(raw, legacy) {
  if (legacy) {
    if (raw.length > LEGACY_JSON_CHARS) return { problem: 'legacy_json_too_long', params: { limit: LEGACY_JSON_CHARS } };
    const text = LZString.decompressFromEncodedURIComponent(raw);
    if (!text) return { problem: 'not_compressed_json' };
    if (text.length > MAX_JSON_BYTES) return { problem: 'json_too_large', params: { limit: MAX_JSON_BYTES } };
    return { text };
  }
  const bytes = fromBase64Url(raw);
  if (!bytes) return { problem: 'not_compressed_json' };
  /** @type {Uint8Array[]} */
  const parts = [];
  let total = 0;
  const inflater = new Inflate((chunk) => {
    total += chunk.length;
    if (total > MAX_JSON_BYTES) throw new RangeError('over the limit');
    parts.push(chunk);
  });
  try {
    for (let i = 0; i === 0 || i < bytes.length; i += INFLATE_STEP) {
      inflater.push(bytes.subarray(i, i + INFLATE_STEP), i + INFLATE_STEP >= bytes.length);
    }
    const all = new Uint8Array(total);
    let at = 0;
    for (const p of parts) {
      all.set(p, at);
      at += p.length;
    }
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(all) };
  } catch (e) {
    if (total > MAX_JSON_BYTES) return { problem: 'json_too_large', params: { limit: MAX_JSON_BYTES } };
    return { problem: 'not_compressed_json' };
  }
}

/**
 * @param {string} type
 * @param {any} v
 * @returns {string}
 */
function encodeValue(type, v) {
  switch (type) {
    case 'bool': return v ? '1' : '0';
    case 'flag': return typeof v === 'boolean' ? encodeValue('bool', v) : encodeURIComponent(String(v));
    case 'list': return v.map((/** @type {any} */ x) => encodeURIComponent(String(x))).join(',');
    // Module names as a list; "all-linear"; any other text is a regex (PEFT matches a string with
    // re.fullmatch), written after "~", which a list's names carry escaped.
    case 'modules':
      if (Array.isArray(v)) return v.map((x) => encodeURIComponent(String(x)).replace(/~/g, '%7E')).join(',');
      return v === 'all-linear' ? v : '~' + encodeURIComponent(String(v));
    case 'size': return Array.isArray(v) ? v.map((x) => encodeURIComponent(String(x))).join('x') : encodeURIComponent(String(v));
    case 'nums': return Array.isArray(v) ? v.map((x) => encodeURIComponent(String(x))).join(',') : encodeURIComponent(String(v));
    case 'json': return typeof v === 'string' ? encodeURIComponent(v) : compressedJson(v);  // a string: an unreadable value kept
    case 'prices': return Object.entries(v).map(([id, usd]) => encodeURIComponent(id) + ':' + encodeURIComponent(String(usd))).join(',');
    case 'points': return v.map((/** @type {any} */ p) => POINT_FIELDS.map((f) => (p && p[f] !== undefined ? encodeURIComponent(String(p[f])) : '')).join('_')).join(',');
    default: return encodeURIComponent(String(v));
  }
}

/** @param {string} raw */
const number = (raw) => decodeValue('num', raw);

/** A percent-escape that does not decode, or text that is not well-formed Unicode. */
class Malformed extends Error {}

/**
 * One percent-encoded part of a value as text.
 * @param {string} part
 * @returns {string}
 */
function unescapePart(part) {
  let text;
  try {
    text = decodeURIComponent(part);
  } catch (e) {
    throw new Malformed();
  }
  if (/\p{Cs}/u.test(text)) throw new Malformed();  // a lone surrogate: no text, and no link could be written back
  return text;
}

/**
 * The value for a link parameter from its percent-encoded text, or {problem} naming what is wrong
 * with it. Lists are split before their items are decoded, so an item may hold a comma.
 * @param {string} type
 * @param {string} raw
 * @param {boolean} [legacy]  from a v1-v3 link
 * @returns {{value?: any, problem?: string, params?: Record<string, any>, entries?: EntryProblem[]}}
 *   entries: the entries of an object value (prices) that are not of their type, left out of value
 */
function decodeValue(type, raw, legacy = false) {
  try {
    return decodeText(type, raw, legacy);
  } catch (e) {
    if (e instanceof Malformed) return { problem: 'malformed' };
    throw e;
  }
}

/**
 * @param {string} type
 * @param {string} raw
 * @param {boolean} legacy
 * @returns {{value?: any, problem?: string, params?: Record<string, any>, entries?: EntryProblem[]}}
 */
function decodeText(type, raw, legacy) {
  switch (type) {
    case 'bool': {
      const text = unescapePart(raw);
      if (text === '1' || text === 'true') return { value: true };
      if (text === '0' || text === 'false') return { value: false };
      return { problem: 'not_bool' };
    }
    case 'flag': {
      const text = unescapePart(raw);
      return text === '1' || text === '0' || text === 'true' || text === 'false' ? decodeText('bool', raw, legacy) : { value: text };
    }
    case 'num': {
      const text = unescapePart(raw);
      // One way to match each number (no nested repetition): linear time on any text.
      if (!/^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i.test(text)) return { problem: 'not_number' };
      const n = Number(text);
      if (!Number.isFinite(n)) return { problem: 'not_finite' };
      // An integer written with digits its double does not keep (9007199254740993 reads as ...992;
      // the page writes a number as String(n)) stays as written, so the field shows what the link gave.
      if (/^[+-]?\d+$/.test(text) && Math.abs(n) >= 2 ** 53 && String(n) !== text.replace(/^\+/, '')) return { problem: 'not_exact' };
      return { value: n };
    }
    case 'list': return { value: raw === '' ? [] : raw.split(',').map(unescapePart) };
    case 'modules': {
      if (raw === 'all-linear') return { value: raw };
      return { value: raw.startsWith('~') ? unescapePart(raw.slice(1)) : raw.split(',').map(unescapePart) };
    }
    case 'size': {
      const parts = raw.split('x').map(number);
      if (parts.length !== 2 || parts.some((p) => p.problem)) return { problem: 'not_size' };
      return { value: parts.map((p) => p.value) };
    }
    case 'nums': {
      const parts = raw.split(',').map(number);
      if (parts.some((p) => p.problem)) return { problem: 'not_numbers' };
      return { value: parts.map((p) => p.value) };
    }
    case 'json': {
      const { text, problem, params } = decompressJson(unescapePart(raw), legacy);
      if (text === undefined) return { problem, params };
      if (nestingDepth(text) > MAX_JSON_DEPTH) return { problem: 'json_too_deep', params: { limit: String(MAX_JSON_DEPTH) } };
      try {
        const v = JSON.parse(text);
        if (v === null || typeof v !== 'object' || Array.isArray(v)) return { problem: 'not_json_object' };
        // The page writes JSON.stringify's text: any other text (a repeated key, which JSON.parse
        // would drop silently, spaces, reordered keys) was not written by this page.
        if (JSON.stringify(v) !== text) return { problem: 'not_page_json' };
        return { value: v };
      } catch (e) {
        return { problem: 'not_compressed_json' };
      }
    }
    case 'prices': {
      /** @type {Record<string, number>} */
      const prices = {};
      /** @type {EntryProblem[]} */
      const entries = [];
      for (const item of raw === '' ? [] : raw.split(',')) {
        const colon = item.indexOf(':');
        const id = colon < 0 ? '' : unescapePart(item.slice(0, colon));
        if (!/^[a-z0-9][a-z0-9._-]*$/i.test(id)) return { problem: 'not_prices' };
        // A price that is not a number ("3,5") is named and kept as its text, the others kept.
        const usd = number(item.slice(colon + 1));
        if (usd.problem) entries.push({ key: id, problem: usd.problem, text: unescapePart(item.slice(colon + 1)) });
        else prices[id] = usd.value;
      }
      return { value: prices, entries };
    }
    case 'points': {
      /** @type {Record<string, any>[]} */
      const points = [];
      for (const item of raw.split(',')) {
        const parts = item.split('_');
        if (parts.length !== POINT_FIELDS.length || points.length === 2) return { problem: 'not_points' };
        /** @type {Record<string, any>} */
        const point = {};
        for (let i = 0; i < 3; i++) {
          if (parts[i] === '') continue;
          const n = number(parts[i]);
          if (n.problem) return { problem: 'point_' + n.problem, params: { field: POINT_FIELDS[i] } };
          point[POINT_FIELDS[i]] = n.value;
        }
        if (parts[3] !== '') point.measure = unescapePart(parts[3]);
        points.push(point);
      }
      return { value: points };
    }
    default: return { value: unescapePart(raw) };
  }
}

/**
 * The deepest nesting of arrays and objects in JSON text (brackets inside strings not counted).
 * @param {string} text
 * @returns {number}
 */
function nestingDepth(text) {
  let depth = 0, deepest = 0, inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === '[' || c === '{') {
      deepest = Math.max(deepest, ++depth);
    } else if (c === ']' || c === '}') {
      depth--;
    }
  }
  return deepest;
}

/**
 * Document -> "#v4:...&c=...". Throws on a field with no key, so a new input cannot silently drop out
 * of links, and on a JSON value over MAX_JSON_BYTES (the page refuses such a config when pasted).
 * @param {Doc} doc
 * @returns {string}
 */
export function encode(doc) {
  const paths = leafPaths(doc, '', []);
  const known = new Set(KEYS.map(([, path]) => path));
  for (const path of paths) {
    if (!known.has(path)) throw new Error('link-codec: no link key for document field ' + path);
  }
  const pairs = [];
  for (const [key, path, type] of KEYS) {
    const v = getPath(doc, path);
    if (v === undefined || v === null) continue;
    if (path === 'gpu' && typeof v !== 'string') continue;  // a custom device travels as gm/gu/gc
    pairs.push(key + '=' + encodeValue(type, v));
  }
  const text = 'v' + VERSION + ':' + pairs.join('&');
  return '#' + text + (pairs.length ? '&' : '') + CHECK_KEY + '=' + checkValue(text);
}

/**
 * "a=1&b=2" -> [[a, "1"], [b, "2"]], values still percent-encoded (decodeValue decodes them part
 * by part); '+' stays '+' (lz-string's alphabet uses it).
 * @param {string} payload
 * @returns {[string, string][]}
 */
function splitPairs(payload) {
  /** @type {[string, string][]} */
  const pairs = [];
  for (const part of payload.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    pairs.push(eq < 0 ? [part, ''] : [part.slice(0, eq), part.slice(eq + 1)]);
  }
  return pairs;
}

/**
 * A value as a problem quotes it: its first 40 characters, and an ellipsis where it goes on (a cut
 * "1e+300" must not read as "1e+3").
 * @param {string} text
 */
export function clipped(text) {
  return text.length > 40 ? text.slice(0, 40) + '…' : text;
}

/**
 * A value as shown in a problem: decoded when it decodes, clipped.
 * @param {string} raw
 */
function shown(raw) {
  try {
    return clipped(unescapePart(raw));
  } catch (e) {
    return clipped(raw);
  }
}

// The migration ladder: MIGRATIONS[v] turns version v's payload into version v+1's pairs.
// v1 (the first release) wrote the form's long element names with URLSearchParams.
// A Map, not an object literal: a link's "constructor" or "__proto__" is a name, not Object's own.
const V1_KEYS = new Map(Object.entries({
  model: 'm', method: 'me', lora_r: 'lr', optimizer: 'o', micro_batch_size: 'b', seq_length: 's',
  world_size: 'n', zero_stage: 'z', gpu: 'g',
}));
/** @type {Record<number, (payload: string) => string>} */
const MIGRATIONS = {
  3(payload) {
    return payload;  // v4 added the check value and deflate for JSON values (decoded by version)
  },
  2(payload) {
    return payload;  // v3 added the solve keys; every v2 key means the same
  },
  1(payload) {
    const params = new URLSearchParams(payload);
    const method = params.get('method');
    /** @type {[string, string][]} */
    const pairs = [];
    for (const [name, value] of params) {
      if (name === 'lora_r' && method !== 'lora' && method !== 'qlora') continue;  // v1 always wrote the rank
      pairs.push([V1_KEYS.get(name) || name, value]);
    }
    return pairs.map(([k, v]) => encodeURIComponent(k) + '=' + encodeURIComponent(v)).join('&');
  },
};

// The characters a link of this page writes as they are (encodeURIComponent leaves the first ones
// alone; ":", "&", "=" and "," are the format's own): a mail or chat app that percent-encodes one of
// them makes an equivalent link.
const WRITTEN_AS_IS = /[A-Za-z0-9\-_.!~*'():&=,]/;

/**
 * A link's text with every percent-escape of a character the page writes as it is decoded, the
 * other escapes in upper case (as encodeURIComponent writes them). An escaped ":", "&", "=" or ","
 * may also have been the page's own (inside a value), so a v4 link is read this way only when its
 * check value says so.
 * @param {string} text
 */
function asWritten(text) {
  return text.replace(/%([0-9a-f]{2})/gi, (escape, hex) => {
    const c = String.fromCharCode(parseInt(hex, 16));
    return WRITTEN_AS_IS.test(c) ? c : escape.toUpperCase();
  });
}

// What chat apps and mail put after a link they did not recognise the end of ("see <link>.",
// "(link)"): characters a v4 link never ends with (its last characters are its check value's hex digits).
const APPENDED = /[\s.,;:!?)\]}>'"]+$/;

/**
 * A v4 link's text without its check pair, or the problem: the check pair missing or cut inside
 * (the link was cut short), not hex digits, or not matching (cut short or changed). The check value's
 * hex digits may be in either case.
 * @param {string} text  "v4:...&c=xxxxxxxx"
 * @returns {{body?: string, problem?: string, params?: Record<string, string>}}  problem: a key of PROBLEMS
 */
function checked(text) {
  const at = text.lastIndexOf(CHECK_KEY + '=');
  const before = at > 0 ? text[at - 1] : '';
  const given = text.slice(at + CHECK_KEY.length + 1);
  if ((before !== '&' && before !== ':') || /^[0-9a-f]{0,7}$/i.test(given))
    return { problem: 'check_missing' };
  if (!/^[0-9a-f]{8}$/i.test(given))
    return { problem: 'check_malformed', params: { value: given.slice(0, 20) } };
  const body = before === '&' ? text.slice(0, at - 1) : text.slice(0, at);
  if (checkValue(body) !== given.toLowerCase())
    return { problem: 'check_mismatch' };
  return { body };
}

/**
 * "#v4:..." (any released version) -> {doc, problems, version}. A bad parameter is left out and
 * named in problems, the rest of the link kept. A link that cannot be trusted as a whole (too long,
 * an unknown version, cut short or changed: the check value) gives doc null and one problem with
 * `whole`.
 * @param {string} hash
 * @returns {{doc: Doc | null, problems: LinkProblem[], version: number | null}}
 */
export function decode(hash) {
  let text = String(hash || '').replace(/^#/, '');
  /** @type {LinkProblem[]} */
  const problems = [];
  if (text === '') return { doc: null, problems, version: null };
  /** @param {string} code @param {Record<string, string | number>} params @param {{param?: string, value?: string}} [where] */
  const refuse = (code, params, where = {}) => ({ doc: null, problems: [linkProblem(code, params, { ...where, whole: true })], version: null });
  if (text.length > MAX_LINK_CHARS) return refuse('too_long', { length: text.length, limit: MAX_LINK_CHARS });
  const prefix = /^v(\d+)(:|%3a)/i.exec(text);
  if (!prefix) return refuse('not_a_link', { version: VERSION }, { value: clipped(text) });
  let version = Number(prefix[1]);
  if (version < 1 || version > VERSION) {
    const r = refuse(version > VERSION ? 'newer_version' : 'unknown_version', { version, latest: VERSION }, { param: 'v' + version });
    return { ...r, version };
  }
  text = 'v' + prefix[1] + ':' + text.slice(prefix[0].length);
  let payload = text.slice(text.indexOf(':') + 1);
  if (version >= 4) {
    // The link as it came, else as the page writes it (an app percent-encoded it): whichever its
    // check value matches; a problem is named for the link as the page writes it.
    text = text.replace(APPENDED, '');
    let r = checked(text);
    if (r.body === undefined) r = checked(asWritten(text));
    // Upper-cased on the way (a QR code's alphanumeric mode, some SMS apps): the page writes
    // lower-case names, so the link in lower case is loaded when its check value matches it, and
    // named as changed (not cut short) when it does not.
    if (r.body === undefined && /[A-Z]/.test(text)) {
      const lower = checked(text.toLowerCase());
      if (lower.body !== undefined || r.problem === 'check_missing') r = lower;
    }
    if (r.body === undefined) return { ...refuse(/** @type {string} */ (r.problem), r.params || {}, { param: 'c' }), version };
    payload = r.body.slice(r.body.indexOf(':') + 1);
  }
  const fromVersion = version;
  for (; version < VERSION; version++) payload = MIGRATIONS[version](payload);

  /** @type {Doc} */
  const doc = {};
  const seen = new Set();
  for (const [rawKey, raw] of splitPairs(payload)) {
    const key = shown(rawKey);
    const spec = BY_KEY.get(rawKey);
    if (!spec) {
      problems.push(linkProblem('unknown_parameter', {}, { param: key, value: shown(raw) }));
      continue;
    }
    if (seen.has(key)) {
      problems.push(linkProblem('given_twice', {}, { param: key, path: spec.path, value: shown(raw) }));
      continue;
    }
    seen.add(key);
    const r = decodeValue(spec.type, raw, fromVersion < 4);
    if (r.problem) {
      const problem = linkProblem(r.problem, r.params || {}, { param: key, path: spec.path, value: shown(raw) });
      // A value that is not one (or cannot even be percent-decoded) stays in its field as the link
      // gave it; so does an unreadable config.json (mc=): the link named a model, and the default
      // model's estimate would answer for one it did not name.
      if (TYPED_PROBLEMS.has(r.problem) || spec.type === 'json') problem.text = r.problem === 'malformed' ? raw : unescapePart(raw);
      problems.push(problem);
      continue;
    }
    for (const entry of r.entries || []) {
      const problem = linkProblem(entry.problem, {}, { param: key, path: spec.path + '.' + entry.key, value: clipped(entry.text) });
      problem.text = entry.text;
      problems.push(problem);
    }
    if (spec.path.startsWith('gpu.') && typeof doc.gpu === 'string') {
      problems.push(linkProblem('gpu_kept', {}, { param: key, path: spec.path, value: shown(raw) }));
      continue;
    }
    if (spec.path === 'gpu' && doc.gpu && typeof doc.gpu === 'object') {
      problems.push(linkProblem('custom_gpu_kept', {}, { param: key, path: spec.path, value: shown(raw) }));
      continue;
    }
    setPath(doc, spec.path, r.value);
  }
  return { doc, problems, version: fromVersion };
}
