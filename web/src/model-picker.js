// Choosing models: the model list (presets, custom configs pasted or dropped by the user, or a bare
// parameter count) for the main model and the RLHF reward and critic models (data-picker="path"),
// the preset search box (words, or a Hugging Face reference), and the config.json paste area.
import { t, language } from './i18n.js';
import { el, byId } from './dom.js';
import { MAX_JSON_BYTES } from './link-codec.js';
import { getPath } from './doc-paths.js';
import { filterModels, parseHfReference, presetForHfReference, relatedPreset, sizeLabel } from './model-search.js';

/** @typedef {import('./store.js').Store} Store */
/** @typedef {import('./model-search.js').ModelEntry} ModelEntry */
/** @typedef {Record<string, any>} ModelSpec  {preset} | {hf_config} | {num_parameters} */

// Python's json module writes NaN, Infinity and -Infinity (transformers' config.json can hold them),
// which JSON.parse refuses; inside hf_config the engine reads them as null (docs/api.md), and so does
// the page. A string is matched whole first, so a token inside one stays as written.
const NONFINITE = /"(?:[^"\\]|\\.)*"|-?\bInfinity\b|\bNaN\b/g;

/**
 * A pasted config.json's value, its non-finite tokens read as null.
 * @param {string} text
 * @returns {any}
 */
function parseConfigJson(text) {
  try {
    return JSON.parse(text);
  } catch (e) {
    if (!/NaN|Infinity/.test(text)) throw e;
    try {
      return JSON.parse(text.replace(NONFINITE, (m) => (m.startsWith('"') ? m : 'null')));
    } catch {
      throw e;  // the text's own error, not the rewritten text's
    }
  }
}

/**
 * A pasted config that is not used, styled as an error (the estimate on screen stays that of the
 * model picked before it).
 * @param {string} message
 */
function refused(message) {
  const note = byId('config-note');
  note.textContent = message;
  note.className = 'note bad';
}

export class ModelPicker {
  /**
   * @param {Store} store
   * @param {ModelEntry[]} models  the catalog's presets
   * @param {(spec: ModelSpec, note?: string) => void} select  puts a main-model choice into the document
   * @param {(config: Record<string, any>) => void} remember  a custom model was added (to be stored)
   * @param {(text: string) => Promise<string | null>} checkText  the engine's objection to a config's raw text
   */
  constructor(store, models, select, remember, checkText) {
    this.store = store;
    this.models = models;
    this.select = select;
    this.remember = remember;
    this.checkText = checkText;
  }

  /**
   * The picker's option value for a model spec: "p:<preset>", "c:<custom index>", "n", or "" (none,
   * or a link's config.json value that could not be read: kept in the document, never a custom model).
   * @param {unknown} spec
   */
  value(spec) {
    if (!spec || typeof spec !== 'object') return '';
    if ('preset' in spec) return 'p:' + /** @type {any} */ (spec).preset;
    if ('hf_config' in spec) {
      const config = /** @type {any} */ (spec).hf_config;
      return config && typeof config === 'object' ? 'c:' + this.addCustom(config) : '';
    }
    if ('num_parameters' in spec) return 'n';
    return '';
  }

  /**
   * @param {Record<string, any>} config
   * @returns {number}
   */
  addCustom(config) {
    const { index, added } = this.store.addCustom(config);
    if (added) this.remember(config);
    return index;
  }

  /**
   * Fills a picker: presets (those matching the search for the main model; the chosen one stays
   * listed, first), custom models, "parameter count only".
   * @param {HTMLSelectElement} sel
   * @param {ModelEntry[]} [filter]
   */
  fill(sel, filter) {
    const path = sel.dataset.picker || '';
    const current = this.value(getPath(this.store.doc, path));
    const models = filter || this.models;
    /** @param {string} value @param {string} text */
    const opt = (value, text) => el('option', { value, text });
    /** @type {HTMLElement[]} */
    const options = [];
    if (path !== 'model') options.push(opt('', t('model_none')));
    const presets = el('optgroup', { label: t('presets') },
      models.map((m) => opt('p:' + m.id, m.display_name + ' · ' + sizeLabel(m.parameters))));
    options.push(presets);
    // The selected preset when the search leaves it out: kept selectable in a group of its own
    // after the matches, never listed first as if it were the best match.
    if (current.startsWith('p:') && !models.some((m) => 'p:' + m.id === current)) {
      const m = this.models.find((x) => 'p:' + x.id === current);
      options.push(el('optgroup', { label: t('current') }, [opt(current, m ? m.display_name + ' · ' + sizeLabel(m.parameters) : current.slice(2))]));
    }
    if (this.store.customs.length) {
      options.push(el('optgroup', { label: t('customs') }, this.store.customs.map((c, i) => opt('c:' + i, c.name))));
    }
    options.push(opt('n', t('count_only')));
    sel.replaceChildren(...options);
    sel.value = current;
  }

  /** Every picker from the document (the main model's list filtered by the search box). */
  fillAll() {
    for (const sel of /** @type {NodeListOf<HTMLSelectElement>} */ (document.querySelectorAll('[data-picker]'))) {
      this.fill(sel, sel.dataset.picker === 'model' ? this.filtered() : undefined);
    }
  }

  /**
   * The model spec a picker's choice stands for, or undefined for "none".
   * @param {HTMLSelectElement} sel
   * @returns {ModelSpec | undefined}
   */
  read(sel) {
    const v = sel.value;
    if (v === '') return undefined;
    if (v.startsWith('p:')) return { preset: v.slice(2) };
    if (v.startsWith('c:')) return { hf_config: this.store.customs[Number(v.slice(2))].config };
    // parameter count: start from the chosen preset's count when there was one
    const before = getPath(this.store.doc, sel.dataset.picker || '');
    const preset = before && this.models.find((m) => m.id === before.preset);
    return { num_parameters: preset ? preset.parameters : 1e9 };
  }

  /** The presets matching the search box. */
  filtered() {
    return filterModels(this.models, byId('model-search').value);
  }

  /** The search box changed: a Hugging Face reference selects its preset; words filter the list. */
  onSearch() {
    const q = byId('model-search').value;
    const ref = parseHfReference(q);
    if (ref) {
      const hit = presetForHfReference(this.models, q);
      if (hit) {
        this.select({ preset: hit.id }, t('hf_matched', { hf: ref, name: hit.display_name }));
        return;
      }
      const related = relatedPreset(this.models, q);
      byId('model-note').textContent = t('hf_unknown', { hf: ref })
        + (related ? ' ' + t('hf_related', { name: related.display_name, hf2: related.hf_id }) : '');
      byId('custom-model').open = true;
      return;
    }
    const found = this.filtered();
    this.fill(byId('model-select'), found);
    byId('model-note').textContent = q.trim() === '' ? '' : found.length ? t(found.length === 1 ? 'matches_one' : 'matches', { n: found.length }) : t('no_match', { query: q.trim() });
  }

  /**
   * A pasted or dropped config.json: added as a custom model and selected, or the reason it is not one.
   * A text over the engine's document limit is refused before anything parses or compresses it.
   * @param {string} pasted  its text; a leading byte-order mark (files saved on Windows) is not part of the JSON
   */
  async useConfigText(pasted) {
    const text = pasted.charCodeAt(0) === 0xfeff ? pasted.slice(1) : pasted;
    const bytes = new TextEncoder().encode(text).length;
    if (bytes > MAX_JSON_BYTES) return refused(t('config_too_large', { bytes, limit: MAX_JSON_BYTES }));
    let config;
    try {
      config = parseConfigJson(text);
    } catch (e) {
      return refused(jsonErrorText(/** @type {Error} */ (e).message, text));
    }
    if (config === null || typeof config !== 'object' || Array.isArray(config)) return refused(t('config_not_object'));
    const problem = await this.checkText(text);
    if (problem) return refused(t('config_refused', { message: problem }));
    const i = this.addCustom(config);
    const note = byId('config-note');
    note.textContent = t('config_added', { name: this.store.customs[i].name });
    note.className = 'note';
    this.select({ hf_config: config });
  }

  /** @param {File} file */
  readFile(file) {
    const reader = new FileReader();
    reader.onload = () => {
      byId('config-text').value = String(reader.result);
      this.useConfigText(String(reader.result));
    };
    reader.readAsText(file);
  }

  /** Wires the search box and the config.json area. */
  wire() {
    const search = byId('model-search');
    search.addEventListener('input', () => this.onSearch());
    search.addEventListener('keydown', (/** @type {KeyboardEvent} */ e) => {
      if (e.key !== 'Enter') return;
      e.preventDefault();
      if (search.value.trim() === '') return;  // no search: the full list's first entry is no choice of the user's
      const first = this.filtered()[0];
      if (first) this.select({ preset: first.id });
    });
    byId('config-use').addEventListener('click', () => this.useConfigText(byId('config-text').value));
    byId('config-file').addEventListener('change', (/** @type {Event} */ e) => {
      const input = /** @type {HTMLInputElement} */ (e.target);
      if (input.files && input.files[0]) this.readFile(input.files[0]);
    });
    const drop = byId('config-text');
    drop.addEventListener('dragover', (/** @type {DragEvent} */ e) => e.preventDefault());
    drop.addEventListener('drop', (/** @type {DragEvent} */ e) => {
      e.preventDefault();
      const file = e.dataTransfer && e.dataTransfer.files[0];
      if (file) this.readFile(file);
      else if (e.dataTransfer) this.useConfigText(e.dataTransfer.getData('text/plain'));
    });
  }
}

/**
 * JSON.parse's error in the page's language: the browser's own (English) message on the English
 * page; elsewhere its position, as "line, column" counted in the text (Chrome names "position N",
 * Firefox "line L column C").
 * @param {string} message
 * @param {string} text
 * @returns {string}
 */
export function jsonErrorText(message, text) {
  if (language() === 'en') return t('config_bad_json', { message });
  const at = /position (\d+)/.exec(message);
  const lineColumn = /line (\d+) column (\d+)/.exec(message);
  if (at) {
    const position = Number(at[1]);
    const before = text.slice(0, position).split('\n');
    return t('config_bad_json_at', { line: before.length, column: before[before.length - 1].length + 1, position: position + 1 });
  }
  if (lineColumn) {
    const [line, column] = [Number(lineColumn[1]), Number(lineColumn[2])];
    const lines = text.split('\n');
    const position = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0) + column;
    return t('config_bad_json_at', { line, column, position });
  }
  return t('config_bad_json_somewhere');
}
