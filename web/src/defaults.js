// Every control left at its default shows the value the engine used, read from the estimate's
// `resolved` block (docs/api.md): a select's "default" option reads "default: full", an empty
// field's placeholder the number, and the origin (framework default and its source, engine
// default) is the control's tooltip. The page restates no default of its own.
import { t, language } from './i18n.js';
import { UNIT_BYTES } from './format.js';
import { setAttr, setText } from './dom.js';

/** @typedef {import('./format.js').Unit} Unit */
/** @typedef {{value: any, origin: string}} ResolvedEntry */
/** @typedef {HTMLInputElement | HTMLSelectElement} Control */

/**
 * A resolved value as a control would show it.
 * @param {any} value
 * @param {string | undefined} type  the control's data-type
 * @param {Unit} unit
 * @returns {string}
 */
export function valueText(value, type, unit) {
  if (value === null || value === undefined) return '—';
  if (type === 'bytes' && typeof value === 'number') return String(+(value / UNIT_BYTES[unit]).toFixed(4));
  if (type === 'bool' || typeof value === 'boolean') return t(value ? 'on' : 'off');
  if (Array.isArray(value)) return value.join(type === 'size' ? 'x' : ',');
  return String(value);
}

// The fixed words of an origin as the engine writes it (docs/api.md "resolved"); what follows them
// (the framework's source, a note, the catalog file) stays as written.
const ORIGIN_WORDS = [['framework default', 'origin_framework'], ['engine default', 'origin_engine'], ['catalog', 'origin_catalog'],
  ['read from', 'origin_read']];

/**
 * An origin as a tooltip in the page's language.
 * @param {string} origin
 */
export function originTitle(origin) {
  if (language() === 'en') return origin;
  for (const [words, key] of ORIGIN_WORDS) {
    if (origin.startsWith(words)) return t(key) + origin.slice(words.length);
  }
  return origin;
}

/**
 * A resolved value as a select shows it: by the label of its option for that value (a GPU by its
 * display name, not its id), else as valueText writes it.
 * @param {HTMLSelectElement} select
 * @param {any} value
 * @param {Unit} unit
 * @returns {string}
 */
function selectValueText(select, value, unit) {
  const text = valueText(value, select.dataset.type, unit);
  const option = [...select.options].find((o) => o.value !== '' && o.value === text);
  return option ? option.text : text;
}

/**
 * Shows the engine's value in every control of `root` left empty (a select at its "default" option); restores the page's own
 * placeholder where the engine resolved nothing (no estimate, or a field that does not apply).
 * @param {ParentNode} root
 * @param {Record<string, ResolvedEntry> | null} resolved
 * @param {Unit} unit
 */
export function showDefaults(root, resolved, unit) {
  for (const control of /** @type {NodeListOf<Control>} */ (root.querySelectorAll('input[data-path], select[data-path]'))) {
    const path = control.dataset.path || '';
    const entry = resolved && Object.prototype.hasOwnProperty.call(resolved, path) ? resolved[path] : null;
    if (control instanceof HTMLSelectElement) {
      // A value chosen: the engine resolved that value, not the default, so the "default" option
      // names none (choosing it lets the engine decide, which may differ from the value chosen).
      const chosen = control.value !== '' ? null : entry;
      const option = /** @type {HTMLOptionElement | null} */ (control.querySelector('option[value=""]'));
      if (!option) continue;
      setText(option, chosen ? t('default_is', { value: selectValueText(control, chosen.value, unit) }) : t('default'));
      setAttr(option, 'title', chosen ? originTitle(chosen.origin) : '');
      setAttr(option, 'data-resolved', chosen ? JSON.stringify(chosen.value) : null);
      continue;
    }
    if (!('pagePlaceholder' in control.dataset)) control.dataset.pagePlaceholder = control.getAttribute('placeholder') || '';
    if (entry && control.value === '') {
      setAttr(control, 'placeholder', valueText(entry.value, control.dataset.type, unit));
      setAttr(control, 'title', originTitle(entry.origin));
      setAttr(control, 'data-resolved', JSON.stringify(entry.value));
    } else {
      const own = control.dataset.i18nPlaceholder ? t(control.dataset.i18nPlaceholder) : control.dataset.pagePlaceholder || '';
      setAttr(control, 'placeholder', own || null);
      setAttr(control, 'title', '');
      setAttr(control, 'data-resolved', null);
    }
  }
}
