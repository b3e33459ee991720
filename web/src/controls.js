// Form controls <-> the document. A control names its field with data-path="batch.seq_length" and
// how its text maps to a value with data-type (num, bytes, bool, flag: a boolean or a word, list,
// modules: a comma list of names, all-linear, or a regex, json: an object, gpu, size: "<height>x<width>"
// pixels or one side of a square, str); a group
// of controls with data-show="name" is shown only when the name's rule holds for the document.
import { getPath } from './doc-paths.js';
import { UNIT_BYTES } from './format.js';
import { el } from './dom.js';

/** @typedef {import('./store.js').Store} Store */
/** @typedef {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement} Control */

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const NEW_CUSTOM_GPU = { memory_bytes: 25769803776 };  // 24 GiB: a starting value for a custom device

// A number when the text is one; otherwise the text itself, which the engine rejects naming the field.
/** @param {string} raw */
const parseNumber = (raw) => (NUMBER.test(raw) && Number.isFinite(Number(raw)) ? Number(raw) : raw);

/**
 * The value a control holds for the document, or undefined when empty (the engine's default applies).
 * @param {Control} elem
 * @param {Store} store
 * @returns {any}
 */
export function readControl(elem, store) {
  const raw = elem.value.trim();
  if (raw === '') return undefined;
  switch (elem.dataset.type) {
    case 'num': return parseNumber(raw);
    case 'bytes': {
      const n = parseNumber(raw);
      return typeof n === 'number' ? Math.round(n * UNIT_BYTES[store.unit]) : n;
    }
    case 'bool': return raw === 'true';
    case 'flag': return raw === 'true' ? true : raw === 'false' ? false : raw;
    case 'list': return raw.split(',').map((s) => s.trim()).filter(Boolean);
    case 'nums': {
      const items = raw.split(',').map((s) => parseNumber(s.trim()));
      return items.every((x) => typeof x === 'number') ? items : raw;  // text the engine refuses, kept as typed
    }
    // A regex (PEFT's re.fullmatch of a string) when the text has a metacharacter module names lack.
    case 'modules':
      if (raw === 'all-linear' || /[*+?()[\]{}|^$\\]/.test(raw)) return raw;
      return raw.split(',').map((s) => s.trim()).filter(Boolean);
    case 'json':
      try {
        return JSON.parse(raw);
      } catch {
        return raw;  // text the engine refuses, naming the field, kept as typed
      }
    case 'gpu': return raw === '__custom' ? store.lastCustomGpu || { ...NEW_CUSTOM_GPU } : raw;
    case 'size': {
      const sides = raw.split(/\s*[xX×,]\s*/).map(parseNumber);
      if (sides.length === 1 && typeof sides[0] === 'number') return [sides[0], sides[0]];
      return sides.length === 2 && sides.every((x) => typeof x === 'number') ? sides : raw;
    }
    default: return raw;
  }
}

/**
 * Shows a document value in a control.
 * @param {Control} elem
 * @param {any} v
 * @param {Store} store
 */
export function writeControl(elem, v, store) {
  let text = '';
  if (v !== undefined && v !== null) {
    switch (elem.dataset.type) {
      case 'bytes': text = typeof v === 'number' ? String(+(v / UNIT_BYTES[store.unit]).toFixed(4)) : String(v); break;
      case 'bool':
      case 'flag': text = v === true ? 'true' : v === false ? 'false' : String(v); break;
      case 'list':
      case 'nums':
      case 'modules': text = Array.isArray(v) ? v.join(',') : String(v); break;
      case 'gpu': text = typeof v === 'object' ? '__custom' : String(v); break;
      case 'size': text = Array.isArray(v) ? v.join('x') : String(v); break;
      default: text = typeof v === 'object' ? JSON.stringify(v) : String(v);
    }
  }
  // A value no option of a list has (a link's invalid gpu or method) is kept in the field as an
  // option of its own, shown as given, until the document no longer holds it.
  if (elem instanceof HTMLSelectElement) {
    for (const kept of Array.from(elem.querySelectorAll('option[data-kept]'))) if (/** @type {HTMLOptionElement} */ (kept).value !== text) kept.remove();
    if (text && !Array.from(elem.options).some((o) => o.value === text)) elem.append(el('option', { value: text, text, 'data-kept': '' }));
  }
  elem.value = text;
}

/**
 * Every data-path control from the document (a bytes field being typed keeps its text, unless the
 * unit changed: then its text is the same bytes in the new unit).
 * @param {Store} store
 * @param {boolean} [unitChanged]
 */
export function writeControls(store, unitChanged = false) {
  for (const elem of /** @type {NodeListOf<Control>} */ (document.querySelectorAll('[data-path]'))) {
    if (!unitChanged && elem === document.activeElement && elem.dataset.type === 'bytes') continue;  // do not re-round what is being typed
    writeControl(elem, getPath(store.doc, elem.dataset.path || ''), store);
  }
}

/**
 * Shows each data-show group whose rule holds.
 * @param {(name: string) => boolean} shown
 */
export function showGroups(shown) {
  for (const elem of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-show]'))) elem.hidden = !shown(elem.dataset.show || '');
}
