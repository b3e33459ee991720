// The link codec: one estimate document (docs/api.md), plus the "What fits?" panel's
// `solve` options (the engine's solve document), <-> "#v3:k=v&k=v". Pure: no DOM.
//
// Format: "#v<version>:" then "key=value" pairs joined by "&", keys from KEYS below (never positional),
// values percent-encoded; booleans 1/0 (a flag: 1/0 or one of its words); lists comma-separated; JSON objects (a pasted config.json)
// lz-string compressed; prices "gpu-id:usd,gpu-id:usd"; measured points
// "bytes_microbatch_seqlength_measure,..." (a field may be empty). Links of every released version
// decode through the migration ladder (v1: the first release; v2: no solve options).
import LZString from 'lz-string';
import { getPath, setPath, leafPaths } from './doc-paths.js';

/** @typedef {import('./doc-paths.js').Doc} Doc */
/** @typedef {{param: string, path: string, value: string, message: string, engine?: boolean}} LinkProblem */

export const VERSION = 3;

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
  ['qt', 'qlora.quant_type', 'str'],
  ['qd', 'qlora.double_quant', 'bool'],
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
  ['ac', 'activation_checkpointing', 'str'],
  ['sel', 'selective_policy', 'str'],
  ['cl', 'checkpointed_layers', 'num'],
  ['ao', 'activation_offload', 'bool'],
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

const MAX_VALUE_CHARS = 200000;  // a compressed config.json is a few hundred characters

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
    case 'modules': return Array.isArray(v) ? encodeValue('list', v) : encodeURIComponent(String(v));
    case 'json': return LZString.compressToEncodedURIComponent(JSON.stringify(v));
    case 'prices': return Object.entries(v).map(([id, usd]) => encodeURIComponent(id) + ':' + encodeURIComponent(String(usd))).join(',');
    case 'points': return v.map((/** @type {any} */ p) => POINT_FIELDS.map((f) => (p && p[f] !== undefined ? encodeURIComponent(String(p[f])) : '')).join('_')).join(',');
    default: return encodeURIComponent(String(v));
  }
}

/** @param {string} raw */
const number = (raw) => decodeValue('num', raw);

/**
 * The value for a link parameter, or {problem} naming what is wrong with it.
 * @param {string} type
 * @param {string} raw
 * @returns {{value?: any, problem?: string}}
 */
function decodeValue(type, raw) {
  switch (type) {
    case 'bool':
      if (raw === '1' || raw === 'true') return { value: true };
      if (raw === '0' || raw === 'false') return { value: false };
      return { problem: 'expected 1 or 0' };
    case 'flag': return raw === '1' || raw === '0' || raw === 'true' || raw === 'false' ? decodeValue('bool', raw) : { value: raw };
    case 'num': {
      if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(raw)) return { problem: 'not a number' };
      const n = Number(raw);
      return Number.isFinite(n) ? { value: n } : { problem: 'not a finite number' };
    }
    case 'list': return { value: raw === '' ? [] : raw.split(',') };
    case 'modules': return { value: raw === 'all-linear' ? raw : raw.split(',') };
    case 'json': {
      const text = LZString.decompressFromEncodedURIComponent(raw);
      if (!text) return { problem: 'not a compressed JSON object' };
      try {
        const v = JSON.parse(text);
        if (v === null || typeof v !== 'object' || Array.isArray(v)) return { problem: 'not a JSON object' };
        return { value: v };
      } catch (e) {
        return { problem: 'not a compressed JSON object' };
      }
    }
    case 'prices': {
      /** @type {Record<string, number>} */
      const prices = {};
      for (const item of raw === '' ? [] : raw.split(',')) {
        const m = /^([a-z0-9][a-z0-9._-]*):(.*)$/i.exec(item);
        const usd = m ? number(m[2]) : null;
        if (!m || !usd || usd.problem) return { problem: 'expected gpu-id:price pairs' };
        prices[m[1]] = usd.value;
      }
      return { value: prices };
    }
    case 'points': {
      /** @type {Record<string, any>[]} */
      const points = [];
      for (const item of raw.split(',')) {
        const parts = item.split('_');
        if (parts.length !== POINT_FIELDS.length || points.length === 2) return { problem: 'expected one or two bytes_microbatch_seqlength_measure points' };
        /** @type {Record<string, any>} */
        const point = {};
        for (let i = 0; i < 3; i++) {
          if (parts[i] === '') continue;
          const n = number(parts[i]);
          if (n.problem) return { problem: POINT_FIELDS[i] + ' ' + n.problem };
          point[POINT_FIELDS[i]] = n.value;
        }
        if (parts[3] !== '') point.measure = parts[3];
        points.push(point);
      }
      return { value: points };
    }
    default: return { value: raw };
  }
}

/**
 * Document -> "#v3:...". Throws on a field with no key, so a new input cannot silently drop out of links.
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
  return '#v' + VERSION + ':' + pairs.join('&');
}

/**
 * "a=1&b=2" -> [[a, "1"], [b, "2"]]; '+' stays '+' (lz-string's alphabet uses it); a malformed
 * percent-escape gives null.
 * @param {string} payload
 * @returns {[string, string | null][]}
 */
function splitPairs(payload) {
  /** @type {[string, string | null][]} */
  const pairs = [];
  for (const part of payload.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const key = eq < 0 ? part : part.slice(0, eq);
    /** @type {string | null} */
    let value = eq < 0 ? '' : part.slice(eq + 1);
    try {
      value = decodeURIComponent(value);
    } catch (e) {
      value = null;  // malformed percent-escape: reported by the caller
    }
    pairs.push([key, value]);
  }
  return pairs;
}

// The migration ladder: MIGRATIONS[v] turns version v's payload into version v+1's pairs.
// v1 (the first release) wrote the form's long element names with URLSearchParams.
/** @type {Record<string, string>} */
const V1_KEYS = {
  model: 'm', method: 'me', lora_r: 'lr', optimizer: 'o', micro_batch_size: 'b', seq_length: 's',
  world_size: 'n', zero_stage: 'z', gpu: 'g',
};
/** @type {Record<number, (payload: string) => string>} */
const MIGRATIONS = {
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
      pairs.push([V1_KEYS[name] || name, value]);
    }
    return pairs.map(([k, v]) => encodeURIComponent(k) + '=' + encodeURIComponent(v)).join('&');
  },
};

/**
 * "#v3:..." (any released version) -> {doc, problems, version}. A bad parameter is left out and
 * named in problems; the rest of the link is kept.
 * @param {string} hash
 * @returns {{doc: Doc | null, problems: LinkProblem[], version: number | null}}
 */
export function decode(hash) {
  const text = String(hash || '').replace(/^#/, '');
  /** @type {LinkProblem[]} */
  const problems = [];
  if (text === '') return { doc: null, problems, version: null };
  const match = /^v(\d+):(.*)$/s.exec(text);
  if (!match) return { doc: null, problems: [{ param: '', path: '', value: text.slice(0, 40), message: 'not a trainmem link (expected #v' + VERSION + ':...)' }], version: null };
  let version = Number(match[1]);
  let payload = match[2];
  if (version < 1 || version > VERSION) {
    return { doc: null, problems: [{ param: 'v' + version, path: '', value: '', message: 'link version ' + version + ' is not known to this page (it reads 1 to ' + VERSION + ')' }], version };
  }
  const fromVersion = version;
  for (; version < VERSION; version++) payload = MIGRATIONS[version](payload);

  /** @type {Doc} */
  const doc = {};
  const seen = new Set();
  for (const [key, raw] of splitPairs(payload)) {
    const spec = BY_KEY.get(key);
    const value = raw === null ? '' : raw;
    if (!spec) {
      problems.push({ param: key, path: '', value: value.slice(0, 40), message: 'unknown parameter' });
      continue;
    }
    if (raw === null || raw.length > MAX_VALUE_CHARS) {
      problems.push({ param: key, path: spec.path, value: '', message: 'malformed value' });
      continue;
    }
    if (seen.has(key)) {
      problems.push({ param: key, path: spec.path, value: value.slice(0, 40), message: 'given twice; the first is kept' });
      continue;
    }
    seen.add(key);
    const r = decodeValue(spec.type, value);
    if (r.problem) {
      problems.push({ param: key, path: spec.path, value: value.slice(0, 40), message: r.problem });
      continue;
    }
    if (spec.path.startsWith('gpu.') && typeof doc.gpu === 'string') {
      problems.push({ param: key, path: spec.path, value: value.slice(0, 40), message: 'a catalog gpu and a custom device were both given; the catalog gpu is kept' });
      continue;
    }
    if (spec.path === 'gpu' && doc.gpu && typeof doc.gpu === 'object') {
      problems.push({ param: key, path: spec.path, value: value.slice(0, 40), message: 'a catalog gpu and a custom device were both given; the custom device is kept' });
      continue;
    }
    setPath(doc, spec.path, r.value);
  }
  return { doc, problems, version: fromVersion };
}
