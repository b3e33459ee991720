// Paths into a document ("batch.seq_length", "solve.calibration.1.seq_length"): read, write and
// remove one field, and list every leaf. Pure: no DOM.

/** @typedef {Record<string, any>} Doc  a JSON document (the estimate document, a solve document) */

const INDEX = /^(0|[1-9]\d{0,2})$/;  // a list element in a path: "solve.calibration.1.seq_length"

// Object-valued fields that count as one leaf: a pasted config.json, the price table, LoRA's ranks
// by module pattern.
const OBJECT_LEAVES = new Set(['solve.prices', 'lora.rank_pattern']);

/**
 * The value at `path`, or undefined.
 * @param {any} doc
 * @param {string} path
 * @returns {any}
 */
export function getPath(doc, path) {
  let v = doc;
  for (const part of path.split('.')) {
    if (v === null || typeof v !== 'object' || (Array.isArray(v) && !INDEX.test(part))) return undefined;
    v = v[part];
  }
  return v;
}

/**
 * Sets the value at `path`, making the objects (and lists, for numeric parts) on the way.
 * @param {Doc} doc
 * @param {string} path
 * @param {any} value
 */
export function setPath(doc, path, value) {
  const parts = path.split('.');
  /** @param {any} o @param {string} part */
  const fill = (o, part) => {  // a list gets no holes: earlier elements become empty objects
    if (Array.isArray(o)) for (let i = o.length; i < Number(part); i++) o[i] = {};
  };
  /** @type {any} */
  let o = doc;
  parts.slice(0, -1).forEach((part, i) => {
    const list = INDEX.test(parts[i + 1]);
    fill(o, part);
    if (o[part] === null || typeof o[part] !== 'object' || Array.isArray(o[part]) !== list) o[part] = list ? [] : {};
    o = o[part];
  });
  fill(o, parts[parts.length - 1]);
  o[parts[parts.length - 1]] = value;
}

/**
 * Removes a field; a list element (a measured point) left in the middle becomes {}, trailing empty
 * elements go, and so do objects and lists left empty.
 * @param {any} o
 * @param {string} key
 */
function removeKey(o, key) {
  if (!Array.isArray(o)) {
    delete o[key];
    return;
  }
  if (Number(key) < o.length - 1) o[Number(key)] = {};
  else o.length = Math.min(o.length, Number(key));
  while (o.length && Object.keys(o[o.length - 1]).length === 0) o.pop();
}

/**
 * Removes the field at `path` and every object or list it leaves empty.
 * @param {Doc} doc
 * @param {string} path
 */
export function deletePath(doc, path) {
  const parts = path.split('.');
  /** @type {any[]} */
  const stack = [doc];
  for (const p of parts.slice(0, -1)) {
    const next = stack[stack.length - 1][p];
    if (!next || typeof next !== 'object') return;
    stack.push(next);
  }
  removeKey(stack[stack.length - 1], parts[parts.length - 1]);
  for (let i = stack.length - 1; i > 0; i--) {
    if (Object.keys(stack[i]).length === 0) removeKey(stack[i - 1], parts[i - 1]);
  }
}

/**
 * Every leaf path of a document (a custom gpu object's fields and a hf_config object count as
 * leaves, as the link's key table names them).
 * @param {Doc} doc
 * @param {string} [prefix]
 * @param {string[]} [out]
 * @returns {string[]}
 */
export function leafPaths(doc, prefix = '', out = []) {
  for (const [k, v] of Object.entries(doc)) {
    const path = prefix ? prefix + '.' + k : k;
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && !k.endsWith('hf_config') && !OBJECT_LEAVES.has(path)) leafPaths(v, path, out);
    else out.push(path);
  }
  return out;
}

/**
 * A deep copy of a JSON value.
 * @template T
 * @param {T} o
 * @returns {T}
 */
export function clone(o) {
  return JSON.parse(JSON.stringify(o));
}

/**
 * `patch` applied to a copy of `doc` as a JSON merge patch (RFC 7396): objects merge key by key,
 * null removes a key, anything else replaces. The engine's suggestions are such patches.
 * @param {any} doc
 * @param {any} patch
 * @returns {any}
 */
export function mergePatch(doc, patch) {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return clone(patch);
  /** @type {Record<string, any>} */
  const out = doc !== null && typeof doc === 'object' && !Array.isArray(doc) ? clone(doc) : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}
