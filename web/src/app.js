// The page's controller: form controls -> the document (store.js) -> the engine (engine-client.js,
// in Web Workers) -> the views. Every change re-runs the engine on the whole document, so a result
// never goes stale: the estimate first, then the GPU table and the What fits? solve; an answer for
// older inputs is never shown. No formulas live here.
import { errorText } from './error-text.js';
import { t, apply as applyLanguage, language } from './i18n.js';
import { formatBytes, formatCount, formatPercent, formatSeconds } from './format.js';
import { el, byId } from './dom.js';
import { clone, deletePath, getPath, setPath } from './doc-paths.js';
import { KEYS, MAX_JSON_BYTES, PROBLEMS, VERSION, clipped, decode, encode } from './link-codec.js';
import { STORE, DelayedSave, load, loadStored, save } from './storage.js';
import { readControl, writeControl, writeControls, showGroups } from './controls.js';
import { SHOW, effectiveDoc, linkDoc, unusedBlocks } from './page-rules.js';
import { showErrors } from './field-errors.js';
import { messageAfterField, messageText } from './messages.js';
import { ModelPicker } from './model-picker.js';
import { GpuTable } from './gpu-table.js';
import { renderBreakdown, renderCatalogErrors, renderDevice, renderDisk, renderFacts, renderHost, renderPhases, renderRlhf, renderTime, renderVision, renderWarnings } from './results.js';
import * as WhatFits from './what-fits.js';
import { LazyChart, memoryBars, peakCurve, themeColors, timeBars } from './charts.js';
import { Pictures } from './pictures.js';
import { keepFocusClear } from './headline.js';
import { changedInputs, renderCompare } from './compare.js';
import { download, markdown } from './export.js';
import { renderAccuracy, renderTimeAccuracy } from './accuracy.js';
import { marginText, bandText, comparedBand, renderUncertainty, renderSuggestions, verdictClass } from './verdict.js';
import { showDefaults } from './defaults.js';
import { mergePatch } from './doc-paths.js';
import { loadChunk } from './chunks.js';
import { afterPaint } from './after-paint.js';
import { Superseded } from './engine-client.js';
import { ImportPanel, keptFromForm } from './import-panel.js';
import { TrainerExport } from './trainer-export.js';

/** @typedef {import('./engine-client.js').EngineClient} EngineClient */
/** @typedef {import('./store.js').Store} Store */
/** @typedef {import('./doc-paths.js').Doc} Doc */
/** @typedef {import('./link-codec.js').LinkProblem} LinkProblem */
/** @typedef {import('./gpu-table.js').GpuEntry} GpuEntry */
/** @typedef {import('./model-search.js').ModelEntry} ModelEntry */
/** @typedef {{models: ModelEntry[], gpus: GpuEntry[], errors: any[]}} Catalog */
/** @typedef {Record<string, any>} Output */
/** @typedef {'push' | 'replace' | 'none'} HistoryMode */
/** @typedef {{text: string, answer: Promise<{out: Output, ms: number}>}} Overview  an overview call: the document's JSON text and the engine's answer */

export const DEFAULT_HASH = '#v3:m=llama-3.1-8b&me=full&b=1&s=4096&n=8&z=3&g=h100-sxm-80gb';

const KEY_FOR_PATH = new Map(KEYS.map(([key, path]) => [path, key]));

/** @param {unknown} e */
const superseded = (e) => e instanceof Superseded;

/**
 * The engine's objection to a link's value, after the value's own path (which the line names): "is
 * out of range" for the field itself; the size of the whole document for the value that made it too large; for a key inside the value (a config.json's
 * num_attention_heads inside mc=) that key and its objection, "num_attention_heads = 3 must divide ...".
 * @param {import('./messages.js').EngineMessage} error
 * @param {string} path  the link value's document path
 */
function rejectedText(error, path) {
  const field = error.field || '';
  const p = /** @type {Record<string, unknown>} */ (error.params || {});
  if (error.code === 'document_too_large' && typeof p.bytes === 'number' && typeof p.limit === 'number') {
    return t('link_document_too_large', { bytes: formatCount(p.bytes), limit: formatCount(p.limit) });
  }
  if (field.startsWith(path + '.')) return field.slice(path.length + 1) + ' ' + messageAfterField(error);
  return messageAfterField(error).replace(/^= /, '');
}

/**
 * The other values the band's low end takes for one kind of uncertainty term that lowers the
 * peak (`unstated_`: a setting the document leaves unset; `data_dependent_`: what the data
 * decides), largest first, at most two, and only those that move the low end by at least a tenth
 * of the largest term does (a setting worth 25 MB beside one worth 75 GiB decides nothing).
 * @param {Record<string, any>} out
 * @param {string} prefix
 * @returns {string[]}
 */
function lowEndSettings(out, prefix) {
  const terms = out.uncertainty || [];
  const largest = Math.max(0, ...terms.map((/** @type {any} */ u) => u.below_bytes || 0));
  return terms
    .filter((/** @type {any} */ u) => u.below_bytes > 0 && u.below_bytes >= largest / 10 && u.alternative && u.source.startsWith(prefix))
    .sort((/** @type {any} */ a, /** @type {any} */ b) => b.below_bytes - a.below_bytes)
    .slice(0, 2).map((/** @type {any} */ u) => u.alternative);
}

export class App {
  /**
   * @param {EngineClient} engine
   * @param {Catalog} catalog
   * @param {Store} store
   */
  constructor(engine, catalog, store) {
    this.engine = engine;
    this.catalog = catalog;
    this.store = store;
    this.gpuById = new Map(catalog.gpus.map((g) => [g.id, g]));
    this.pickers = new ModelPicker(store, catalog.models, (spec, note) => this.selectModel(spec, note),
      () => save(STORE.customs, store.customs), (text) => this.configTextProblem(text));
    this.gpuTable = new GpuTable(byId('gpu-table'), catalog.gpus);
    this.importer = new ImportPanel(engine, (answer) => this.applyImport(answer), catalog.models);
    this.trainerExport = new TrainerExport(engine, () => (this.result ? this.result.doc : null));
    this.stateSave = new DelayedSave(STORE.state, 250);
    this.generation = 0;  // bumps on every update; answers for an older one are dropped
    this.historyStep = 0;  // bumps on every back/forward step; an older step's late link check is dropped
    this.editing = false;  // inside one typing gesture: history entries are replaced, not pushed
    this.configChecks = 0;  // pasted configs checked by the engine (each its own queue key)
    /** @type {Map<string, string>} each field the last import wrote (a provenance path) -> its value's JSON text */
    this.lastImport = new Map();
    /** @type {LinkProblem[]} the problems of the link as it came, shown until the setup's own link replaces it */
    this.linkProblems = [];
    /** @type {number | null} the version of an old link (no check value) that was loaded, named until an input changes */
    this.legacyVersion = null;
    /** @type {{doc: Doc, out: Output} | null} the result on screen */
    this.result = null;
    /** @type {{hash: string | null, doc: Doc | null, out: Output | null}} */
    this.pinnedCache = { hash: null, doc: null, out: null };
    this.firstEstimateMarked = false;
    /** @type {string | null} the model spec just picked, until its first answer (fitSequenceToPickedModel) */
    this.pickedModel = null;
    /** whether the note beside the model says the sequence length was fitted to it (fitSequenceToPickedModel) */
    this.fittedNote = false;
    /** @type {import('./charts.js').Colors | null} */
    this.colors = null;
    this.charts = { memory: new LazyChart(byId('chart')), time: new LazyChart(byId('time-chart')), seq: new LazyChart(byId('curve-seq')),
      mbs: new LazyChart(byId('curve-mbs')) };
    this.pictures = new Pictures(byId('pictures'));
  }

  get unit() {
    return this.store.unit;
  }

  themeColors() {
    this.colors = this.colors || themeColors();
    return this.colors;
  }

  // ---- start ----

  /** Fills the GPU list, reads the link (or the stored state), wires the controls, estimates. */
  async start() {
    this.showCatalogErrors();
    byId('gpu-select').replaceChildren(el('option', { value: '', 'data-i18n': 'model_none', text: t('model_none') }),
      ...this.catalog.gpus.map((g) => el('option', { value: g.id, text: g.display_name })),
      el('option', { value: '__custom', 'data-i18n': 'custom_gpu', text: t('custom_gpu') }));
    const customs = load(STORE.customs);
    this.store.customs = Array.isArray(customs) ? customs.filter((c) => c && typeof c.name === 'string' && c.config && typeof c.config === 'object'
      && new TextEncoder().encode(JSON.stringify(c.config)).length <= MAX_JSON_BYTES) : [];
    const pinned = load(STORE.pinned);
    this.store.pinned = typeof pinned === 'string' && decode(pinned).doc ? pinned : null;

    /** @type {LinkProblem[]} */
    const problems = [];
    const stored = loadStored(STORE.state);
    const anchor = anchorTarget(location.hash);
    // The page's own stored setup holds what the link leaves out (the LoRA rank typed before switching
    // to full fine-tuning): a link that is the stored setup's (a reload) loads it whole.
    const kept = typeof stored === 'string' ? decode(stored).doc : null;
    if (location.hash.length > 1 && !anchor && !(kept && encode(linkDoc(kept)) === location.hash)) this.readHash(location.hash, problems);
    // The page's own stored link: a value typed that is not valid comes back into its field, unnamed;
    // a part the page cannot read (changed outside the page, an old version's) is named.
    else if (typeof stored === 'string' && kept) {
      /** @type {LinkProblem[]} */
      const found = [];
      this.readHash(stored, found);
      // The page's own setup keeps inputs the current method leaves unused (the LoRA rank under full
      // fine-tuning): not problems either.
      problems.push(...found.filter((p) => !p.invalid && !p.unused).map((p) => ({ ...p, stored: true })));
    } else {
      // A stored setup that does not decode (changed outside the page, cut short, not JSON, or
      // JSON null) is said to be lost, never replaced by the default in silence.
      if (stored !== undefined) problems.push(...App.storedProblems(stored));
      this.readHash(DEFAULT_HASH, problems);
    }
    if (location.hash.length <= 1 || anchor) this.legacyVersion = null;  // the page's own setup, not an old link
    // The first estimate starts at once, the controls are written and wired while the engine
    // computes it, and its answer names the fields the engine rejects before anything is shown.
    const started = this.overview();
    this.writeControls();
    this.wire();
    // The controls hold the setup now: typing into them from here on is the user's (index.html).
    /** @type {HTMLElement} */ (document.querySelector('main')).inert = false;
    let current;
    try {
      await this.nameRejectedFields(problems, started);
      current = started.text === JSON.stringify(effectiveDoc(this.store.doc));
    } catch (e) {
      if (!superseded(e)) throw e;
      current = false;
    }
    // An input or a step back or forward while it computed replaced the link's setup (and started
    // its own estimate): the link's problems and its estimate are then no longer the page's.
    if (current) {
      this.showLinkProblems(problems);
      // A link with problems stays in the address bar as it came until the user changes an input; so
      // does an anchor (#accuracy), which opens its section over the stored setup.
      this.update(problems.length || anchor ? 'none' : 'replace', started);
    }
    if (anchor) {
      if (anchor instanceof HTMLDetailsElement) anchor.open = true;
      anchor.scrollIntoView();
    }
  }

  // ---- links ----

  /**
   * Why the setup stored in this browser cannot be restored: its link's refusal, or not a link.
   * @param {unknown} stored
   * @returns {LinkProblem[]}
   */
  static storedProblems(stored) {
    const whole = typeof stored === 'string' ? decode(stored).problems.filter((p) => p.whole) : [];
    const found = whole.length ? whole : [{ param: '', path: '', value: '', message: PROBLEMS.not_page_link({}), code: 'not_page_link', whole: true }];
    return found.map((p) => ({ ...p, stored: true }));
  }

  /**
   * The document of a link. An invalid value (b=abc, b=-5) is an error that keeps the link, never a
   * silent fallback to a default: it stays in its field as the link gave it, so the engine names it
   * there and no estimate is shown, and it is named in problems (`invalid`; the fields the engine
   * rejects are named from the first estimate's answer, nameRejectedFields).
   * @param {string} hash
   * @param {LinkProblem[]} problems
   */
  readHash(hash, problems) {
    this.clearFittedNote();
    const decoded = decode(hash);
    this.legacyVersion = decoded.doc && decoded.version !== null && decoded.version < VERSION ? decoded.version : null;
    for (const p of decoded.problems) {
      if (p.text === undefined || !decoded.doc) continue;
      setPath(decoded.doc, p.path, p.text);
      p.invalid = true;
    }
    problems.push(...decoded.problems);
    if (decoded.doc) problems.push(...App.unusedValues(decoded.doc, problems));
    // A link that names no model (the page writes one when the parameter count was cleared) loads
    // without one: the engine then says a model is required, rather than the default model's
    // estimate answering for a link that did not name it.
    this.store.doc = decoded.doc || /** @type {Doc} */ (decode(DEFAULT_HASH).doc);
  }

  /**
   * The link's values for settings its setup does not use (the LoRA rank under full fine-tuning, a
   * rollout without an RLHF algorithm): the estimate leaves them out, so each is named rather than
   * dropped unsaid. A value the codec named already (an invalid one) is marked `unused` instead:
   * it does not keep the estimate from being shown.
   * @param {Doc} doc
   * @param {LinkProblem[]} named  the problems found so far
   * @returns {LinkProblem[]} the problems to add
   */
  static unusedValues(doc, named) {
    const blocks = unusedBlocks(doc);
    /** @type {LinkProblem[]} */
    const out = [];
    for (const [path, key] of KEY_FOR_PATH) {
      const block = blocks.find((b) => path === b.path || path.startsWith(b.path + '.'));
      const v = getPath(doc, path);
      if (!block || v === undefined) continue;
      const earlier = named.find((p) => p.path === path || (p.path && p.path.startsWith(path + '.')));
      if (earlier) {
        earlier.unused = block.group;
        continue;
      }
      out.push({ param: key, path, value: clipped(typeof v === 'string' ? v : JSON.stringify(v)), message: '', unused: block.group });
    }
    return out;
  }

  /**
   * Starts the engine's overview of the current document (the estimate and every catalog GPU's verdict).
   * @returns {Overview}
   */
  overview() {
    const text = JSON.stringify(effectiveDoc(this.store.doc));
    return { text, answer: this.engine.estimate('overview', [text]) };
  }

  /**
   * The document field (a link key's path) that an engine error names, or null.
   * @param {Doc} doc
   * @param {string} field
   * @returns {string | null}
   */
  static linkPathFor(doc, field) {
    for (let f = field; f; f = f.includes('.') ? f.slice(0, f.lastIndexOf('.')) : '') {
      if (KEY_FOR_PATH.has(f) && getPath(doc, f) !== undefined) return f;
      if (f === 'gpu' && doc.gpu !== undefined) return 'gpu';
    }
    return null;
  }

  /**
   * The document field of a link key whose value is the longest, or null.
   * @param {Doc} doc
   * @returns {string | null}
   */
  static longestLinkPath(doc) {
    let best = null, longest = -1;
    for (const path of KEY_FOR_PATH.keys()) {
      const v = getPath(doc, path);
      const length = v === undefined ? -1 : JSON.stringify(v).length;
      if (length > longest) best = path, longest = length;
    }
    return best;
  }

  /**
   * Names in problems every field of a loaded document that the engine rejects, keeping each as
   * the link gave it (one problem per field: a value the codec already named is not named again).
   * @param {LinkProblem[]} problems
   * @param {Overview} started  the overview of the loaded document
   */
  async nameRejectedFields(problems, started) {
    const doc = this.store.doc;
    const { out } = await started.answer;
    if (!out.error) return;
    const paths = new Set(problems.filter((p) => p.invalid).map((p) => p.path));
    for (const e of out.errors) {
      // A document over the engine's limit is the link's longest value's doing (a config.json in mc=).
      const path = e.code === 'document_too_large' ? App.longestLinkPath(doc) : App.linkPathFor(doc, e.field);
      if (!path || paths.has(path)) continue;
      paths.add(path);
      const v = getPath(doc, path);
      const value = clipped(typeof v === 'string' ? v : JSON.stringify(v));
      problems.push({ invalid: true, param: KEY_FOR_PATH.get(path) || path, path, value, message: messageText(e), error: e });
    }
  }

  /**
   * A link's problems: codec-level ones, then fields the engine rejects (each kept and named).
   * @param {LinkProblem[]} problems
   */
  showLinkProblems(problems) {
    // The codec's problems in the page's language (lp_<code>); the engine's from its error, in the
    // page's language and without the field's path, which the line names already.
    /** @param {LinkProblem} p */
    const message = (p) => (p.code && language() !== 'en' ? t('lp_' + p.code, p.params) : p.message);
    this.linkProblems = problems;
    // A message that ends in a question ("did you mean "hqq"?") takes no full stop after it.
    /** @param {string} s */
    const tidy = (s) => s.replace(/([?？])[.。]/g, '$1');
    const items = problems.map((p) => el('li', {
      text: tidy(p.stored ? (p.whole ? t('stored_refused', { message: message(p) }) : t('stored_problem', { param: p.param, path: p.path ? ' (' + p.path + ')' : '', value: p.value, message: message(p) }))
        : p.whole ? t('link_refused', { message: message(p) })
        : p.unused ? t('link_unused', { param: p.param, path: p.path, value: p.value, setting: t('unused_' + p.unused) })
        // After the field the engine's message reads "= -5 is out of range": without its "= ".
        : p.invalid ? t(p.path.startsWith('solve.') ? 'link_invalid_solve' : 'link_invalid', { param: p.param, path: p.path, value: p.value, message: p.error ? rejectedText(p.error, p.path) : message(p) })
          : t('link_problem', { param: p.param, path: p.path ? ' (' + p.path + ')' : '', value: p.value, message: message(p) })),
    }));
    if (problems.some((p) => !p.stored)) items.push(el('li', { text: t('link_kept'), 'data-testid': 'link-kept' }));
    byId('link-problems').replaceChildren(...items);
    this.showLegacyNote();
  }

  /** An old link (v1-v3) carries no check value: one cut short loads as if whole, so the page says so. */
  showLegacyNote() {
    const note = byId('link-legacy');
    note.hidden = this.legacyVersion === null;
    note.textContent = this.legacyVersion === null ? '' : t('link_legacy', { version: this.legacyVersion });
  }

  /**
   * @param {string} hash
   * @param {HistoryMode} mode
   */
  writeUrl(hash, mode) {
    if (mode === 'none' || location.hash === hash) return;
    // The link's problems spoke of the link as it came, which this setup's link now replaces; an old
    // link, rewritten in the current version as it loads ('replace'), is named until the user acts.
    if (mode === 'push') this.legacyVersion = null;
    this.showLinkProblems([]);
    try {
      if (mode === 'push') history.pushState(null, '', hash);
      else history.replaceState(null, '', hash);
    } catch (e) {
      location.replace(hash);
    }
  }

  // ---- controls ----

  /** @param {boolean} [unitChanged]  bytes fields are rewritten in the new unit, the focused one too */
  writeControls(unitChanged = false) {
    writeControls(this.store, unitChanged);
    this.pickers.fillAll();
    showGroups((name) => SHOW[name](this.store.doc));
  }

  /**
   * What the engine finds wrong with a pasted config.json's raw text, in the page's language, or
   * null: a repeated key (JSON.parse keeps the last of two equal keys silently; the engine names
   * them), a value out of range, a model_type without the keys its layout needs. The document holds
   * the config alone, so each of its errors is the config's.
   * @param {string} text
   * @returns {Promise<string | null>}
   */
  async configTextProblem(text) {
    // Its own queue key: a later paste must not replace (and reject) this check.
    this.configChecks += 1;
    const { out } = await this.engine.estimate('estimate', ['{"model": {"hf_config": ' + text + '\n}}'], 'config:' + this.configChecks);
    const found = (out.errors || [])[0];
    if (!found) return null;
    // The key it names (model.hf_config.hidden_size), where the wording leaves it out.
    const said = messageText(found);
    return found.field && !said.includes(found.field) ? found.field + ': ' + said : said;
  }

  /**
   * @param {Record<string, any>} spec
   * @param {string} [note]
   */
  selectModel(spec, note) {
    this.store.doc.model = spec;
    this.pickers.fill(byId('model-select'), this.pickers.filtered());
    byId('model-note').textContent = note || '';
    this.fittedNote = false;
    this.pickedModel = JSON.stringify(spec);
    this.update('push');
  }

  /**
   * A model just picked whose learned position table is shorter than the sequence length the
   * setup carries (BERT's 512 against the default 4096): the sequence length becomes the table's,
   * said beside the model, instead of an error for a length the user did not choose for it.
   * Once per pick: a length typed afterwards is the user's and is judged as such.
   * @param {Doc} doc
   * @param {Output} out
   * @returns {boolean} whether the setup was changed (and estimated again)
   */
  fitSequenceToPickedModel(doc, out) {
    const picked = this.pickedModel;
    this.pickedModel = null;
    if (!picked || picked !== JSON.stringify(doc.model) || !out.error) return false;
    const over = (out.errors || []).find((/** @type {any} */ e) => e.field === 'batch.seq_length' && e.code === 'out_of_range'
      && e.params && typeof e.params.limit === 'number');
    if (!over) return false;
    setPath(this.store.doc, 'batch.seq_length', over.params.limit);
    byId('model-note').textContent = t('seq_fitted_to_model', { n: formatCount(over.params.limit) });
    this.fittedNote = true;
    this.writeControls();
    this.update('replace');
    return true;
  }

  /** The note that the sequence length was fitted to a picked model goes with the next change. */
  clearFittedNote() {
    if (this.fittedNote) byId('model-note').textContent = '';
    this.fittedNote = false;
  }

  /** @param {Event} event */
  onControlInput(event) {
    const elem = /** @type {HTMLInputElement} */ (event.target);
    const doc = this.store.doc;
    if (elem.dataset.path || elem.dataset.picker) this.clearFittedNote();
    if (elem.dataset.path) {
      const v = readControl(elem, this.store);
      if (elem.dataset.type === 'gpu' && typeof doc.gpu === 'object') this.store.lastCustomGpu = doc.gpu;
      if (v === undefined) deletePath(doc, elem.dataset.path);
      else setPath(doc, elem.dataset.path, v);
      // A list drops the option it kept for a value no option had, once another value is picked.
      if (elem instanceof HTMLSelectElement) writeControl(elem, getPath(doc, elem.dataset.path), this.store);
    } else if (elem.dataset.picker) {
      const v = this.pickers.read(/** @type {HTMLSelectElement} */ (/** @type {unknown} */ (elem)));
      if (v === undefined) deletePath(doc, elem.dataset.picker);
      else setPath(doc, elem.dataset.picker, v);
      if (elem.dataset.picker === 'model' && v !== undefined) this.pickedModel = JSON.stringify(v);
    } else {
      return;
    }
    if (elem.dataset.type === 'gpu' || elem.dataset.picker) this.writeControls();
    this.update(this.editing ? 'replace' : 'push');
    this.editing = true;
  }

  // ---- the update loop ----

  /**
   * Re-runs everything for the current document: the link, the estimate, then the GPU table and
   * the What fits? panel.
   * @param {HistoryMode} history
   * @param {Overview | null} started  an overview a caller started, used when it is of the current document
   */
  async update(history, started = null) {
    const gen = ++this.generation;
    const doc = effectiveDoc(this.store.doc);
    // The engine starts on the document at once; the page's own bookkeeping (groups, link, history,
    // pending marks) runs while the worker computes.
    const answer = started && started.text === JSON.stringify(doc) ? started.answer : this.overview().answer;
    showGroups((name) => SHOW[name](this.store.doc));
    byId('input-json').textContent = JSON.stringify(doc, null, 2);
    byId('search-world-size').placeholder = String(getPath(doc, 'parallel.world_size') || byId('world-size').placeholder);
    const hash = encode(linkDoc(this.store.doc));
    this.writeUrl(hash, history);
    // A link that came with problems is not the user's setup (a link the page could not load shows
    // the default): the stored setup stays until an input changes, which replaces the link. The
    // stored setup keeps every input, those the link leaves out (unusedBlocks) too.
    if (this.linkProblems.length === 0) this.stateSave.set(encode(this.store.doc));
    byId('results').setAttribute('aria-busy', 'true');
    // The shown estimate is of the previous input until the answer comes: the status line says so.
    const status = byId('status');
    status.textContent = t('estimating');
    status.className = '';
    this.markPending();
    /** @type {Output} the overview: {estimate, gpus}, or the estimate's error document */
    let overview;
    let engineMs = 0;
    try {
      ({ out: overview, ms: engineMs } = await answer);
    } catch (e) {
      if (superseded(e)) return;
      // The engine could not run (its module failed to load): said in the page's language on every
      // update (a language change re-words it), never left as "estimating" or thrown unhandled.
      status.textContent = t('engine_failed', { message: errorText(e) });
      status.className = 'bad';
      return;
    }
    if (gen !== this.generation) return;
    const arrived = performance.now();
    const out = overview.error ? overview : overview.estimate;
    if (this.fitSequenceToPickedModel(doc, out)) return;
    this.renderResult(doc, out);
    byId('results').setAttribute('aria-busy', 'false');
    if (!this.firstEstimateMarked && !out.error) {
      this.firstEstimateMarked = true;
      // When the first answer arrived, with the engine's own time for it in its worker (bench/page-bench.js prints both).
      performance.mark('trainmem-first-answer', { startTime: arrived, detail: { engine_ms: engineMs } });
      performance.mark('trainmem-first-estimate');
    }
    this.renderCompareAndChart();
    // The GPU table's column for this setup and the What fits? solve wait for the estimate's frame
    // to be painted: the solve's worker would otherwise take a core from that frame.
    await afterPaint();
    if (gen !== this.generation) return;
    await this.background(doc, out, overview.error ? [] : overview.gpus, this.store.doc.solve, gen);
  }

  // ---- results ----

  /** @param {Doc} doc */
  deviceTotal(doc) {
    if (doc.gpu && typeof doc.gpu === 'object') return doc.gpu.memory_bytes;
    const g = this.gpuById.get(doc.gpu);
    return g ? g.device_total_bytes || g.memory.bytes : null;
  }

  /** @param {Doc} doc */
  gpuName(doc) {
    if (doc.gpu && typeof doc.gpu === 'object') return t('custom_gpu');
    const g = this.gpuById.get(doc.gpu);
    return g ? g.display_name : String(doc.gpu);
  }

  /**
   * @param {Doc} doc
   * @param {Output} out
   */
  renderResult(doc, out) {
    const body = byId('result-body');
    const mini = byId('mini');
    const status = byId('status');
    mini.hidden = false;
    if (out.error) {
      mini.textContent = t('no_estimate');
      body.hidden = true;
      byId('headline').hidden = true;
      this.pictures.show(null, this.unit, () => this.themeColors());
      status.textContent = t('no_estimate');
      status.className = 'bad';
      byId('global-batch').textContent = '';
      showErrors(out.errors, 'estimate', byId('errors'), this.unit);
      showDefaults(document, null, this.unit);
      this.importer.showResolved(null);
      this.result = null;
      this.exportable(false);
      return;
    }
    showErrors([], 'estimate', byId('errors'));
    body.hidden = false;
    byId('headline').hidden = false;
    const g = out.per_gpu;
    const unit = this.unit;
    status.textContent = t('ready');
    status.className = '';
    const peak = byId('peak');
    peak.textContent = formatBytes(g.peak, unit);
    peak.dataset.bytes = String(g.peak);
    byId('lower-bound').textContent = formatBytes(g.model_states, unit) + ' / ' + formatBytes(g.peak, unit);
    const fit = byId('fit');
    // The three-way verdict from the uncertainty band; fits is its conservative reading.
    // A borderline verdict says on which side of the memory the point estimate lies.
    const over = typeof out.margin_bytes === 'number' && out.margin_bytes < 0;
    const verdict = out.verdict === 'fits' ? 'fits' : out.verdict === 'borderline' ? (over ? 'borderline_over' : 'borderline')
      : out.verdict === 'does_not_fit' ? 'no_fit' : null;
    fit.textContent = verdict !== null ? t(verdict, { gpu: this.gpuName(doc) }) : !doc.gpu ? t('fit_unknown')
      : out.warnings.some((/** @type {{code: string}} */ w) => w.code === 'model_states_only') ? t('fit_needs_architecture') : t('fit_none');
    // Over, but for settings the document leaves unset (the user's to decide) or the data decides:
    // name them.
    if (verdict === 'borderline_over') {
      const unset = lowEndSettings(out, 'unstated_'), data = lowEndSettings(out, 'data_dependent_');
      if (unset.length) fit.textContent += ' · ' + t('borderline_unset', { settings: unset.join('; ') });
      if (data.length) fit.textContent += ' · ' + t('borderline_data', { settings: data.join('; ') });
    }
    // A device that cannot run the setup as written (the engine's cannot_run): memory's verdict
    // stays, with the reasons beside it, never a green "fits".
    const cannot = Array.isArray(out.cannot_run) ? out.cannot_run : [];
    if (cannot.length) fit.textContent += ' · ' + t('cannot_run_here', { reasons: cannot.map((/** @type {string} */ c) => t('cr_' + c)).join('; ') });
    fit.className = cannot.length && out.verdict === 'fits' ? verdictClass('borderline') : verdictClass(out.verdict);
    fit.dataset.verdict = out.verdict || '';
    fit.dataset.cannotRun = cannot.join(' ');
    mini.textContent = t('peak_per_gpu') + ' ' + peak.textContent + ' · ' + fit.textContent + ' ↓';
    // Headroom: the GPU's capacity minus the quantity the verdict compares (the engine's margin).
    const headroom = typeof out.margin_bytes === 'number' ? out.margin_bytes : null;
    byId('headroom').textContent = headroom === null ? '—' : headroom >= 0 ? formatBytes(headroom, unit) : t('short_by', { bytes: formatBytes(-headroom, unit) });
    byId('peak-band').textContent = bandText(out, unit);
    const bandLabel = byId('peak-band-label');
    bandLabel.dataset.i18n = comparedBand(out).reserved ? 'reserved_band' : 'peak_band';
    bandLabel.textContent = t(bandLabel.dataset.i18n);
    byId('margin').textContent = marginText(out, unit);
    renderUncertainty(byId('uncertainty'), out, unit);
    renderSuggestions(byId('suggestions-box'), byId('suggestions'), out, unit, (change) => this.applyChange(change));
    showDefaults(document, out.resolved || null, unit);
    this.importer.showResolved(out.resolved || null);
    byId('global-batch').textContent = t(out.global_batch_size === 1 ? 'global_batch_one' : 'global_batch', { n: formatCount(out.global_batch_size) });
    byId('step-time').textContent = out.time ? formatSeconds(out.time.step_seconds) + ' · MFU ' + formatPercent(out.time.mfu) : '—';
    renderTime(byId('time').tBodies[0], out, unit);
    renderBreakdown(byId('breakdown').tBodies[0], out, unit);
    renderDevice(byId('device').tBodies[0], out, unit, this.deviceTotal(doc));
    renderPhases(byId('phases').tBodies[0], out, unit);
    renderFacts(byId('facts').tBodies[0], out);
    renderVision(byId('vision-box'), byId('vision').tBodies[0], out, unit);
    renderRlhf(byId('rlhf-box'), byId('rlhf-models'), out, unit);
    renderHost(byId('host').tBodies[0], out, unit);
    renderDisk(byId('disk').tBodies[0], out, unit);
    renderWarnings(byId('warnings'), out);
    this.pictures.show(out, unit, () => this.themeColors());
    if (!this.result || JSON.stringify(this.result.doc) !== JSON.stringify(doc)) this.trainerExport.clear();
    this.result = { doc, out };
    this.exportable(true);
  }

  /** The downloads offer only an estimate: without one (invalid input) they are off. @param {boolean} on */
  exportable(on) {
    for (const id of ['export-md', 'export-json']) /** @type {HTMLButtonElement} */ (byId(id)).disabled = !on;
  }

  /** The pinned configuration's result, estimated once per pin. */
  async pinnedResult() {
    const pinned = this.store.pinned;
    if (!pinned) return null;
    if (this.pinnedCache.hash !== pinned) {
      const doc = decode(pinned).doc;
      const out = doc ? (await this.engine.estimate('estimate', [JSON.stringify(doc)], 'pinned')).out : null;
      this.pinnedCache = { hash: pinned, doc, out };
    }
    const c = this.pinnedCache;
    return c.out && !c.out.error && this.store.pinned === pinned ? { doc: /** @type {Doc} */ (c.doc), out: c.out } : null;
  }

  async renderCompareAndChart() {
    const gen = this.generation;
    const pinned = await this.pinnedResult().catch(() => null);
    if (gen !== this.generation) return;
    const current = this.result;
    byId('unpin').hidden = !this.store.pinned;
    byId('compare-box').hidden = !(pinned && current);
    /** @type {{label: string, out: Output}[]} */
    const bars = [];
    if (current) bars.push({ label: t('current'), out: current.out });
    if (pinned) bars.push({ label: t('pinned'), out: pinned.out });
    if (current) {
      this.charts.memory.draw(memoryBars(bars, this.unit, this.themeColors()));
      this.charts.time.draw(timeBars(bars, this.themeColors()));
    }
    if (!(pinned && current)) return;
    renderCompare(byId('compare'), pinned.out, current.out, this.unit);
    const changed = changedInputs(pinned.doc, current.doc);
    byId('compare-inputs').textContent = changed.length ? t('changed_inputs', { list: changed.join('; ') }) : t('same_inputs');
  }

  // ---- after the result is drawn: every catalog GPU at this count, then the engine's solve ----

  /** @param {string} id */
  gpuLabel(id) {
    const g = this.gpuById.get(id);
    return g ? g.display_name : id;
  }

  /** Marks everything the solve will redraw as pending: nothing computed for older inputs stays on screen. */
  markPending() {
    byId('solve-body').classList.add('stale');
    byId('what-fits').setAttribute('aria-busy', 'true');
    this.gpuTable.setBusy(true);
    this.gpuTable.fillHere(() => ({ pending: true }), this.unit);
    this.gpuTable.fillOptions(() => ({ pending: true }), WhatFits.MAX_GPUS);
    byId('solve-progress').hidden = false;  // shown only past 100 ms (style.css): a quick answer never flashes it
  }

  settle() {
    byId('what-fits').setAttribute('aria-busy', 'false');
    this.gpuTable.setBusy(false);
    byId('solve-progress').hidden = true;
  }

  /**
   * The panel has nothing to show: the estimate failed, no GPU is chosen, or solve refused the input.
   * @param {string | null} message
   * @param {any[]} [errors]
   */
  noAnswers(message, errors) {
    byId('solve-body').hidden = true;
    showErrors(errors || [], 'solve', byId('solve-errors'), this.unit);
    if (message) byId('solve-errors').prepend(el('li', { text: message }));
  }

  /**
   * @param {Output} res  solve's output or error document
   */
  fillGpuOptions(res) {
    const options = new Map(res.error ? [] : res.gpu_options.map((/** @type {any} */ o) => [o.gpu, o]));
    const message = res.error ? res.errors.map((/** @type {any} */ e) => messageText(e)).join('; ') : '';
    this.gpuTable.fillOptions((id) => options.get(id) || { error: message || t('unknown') }, WhatFits.MAX_GPUS);
  }

  /**
   * Every catalog GPU at this count (from the overview the estimate came with), then the panel's
   * solve (or the GPU table's fewest counts alone when no GPU is chosen).
   * @param {Doc} doc
   * @param {Output} out
   * @param {{gpu: string, gpu_capacity_bytes?: number | null, peak?: number | null, verdict?: string | null, error?: object}[]} gpus
   *   the overview's row per catalog GPU
   * @param {Doc | undefined} options
   * @param {number} gen
   */
  async background(doc, out, gpus, options, gen) {
    try {
      if (out.error) {
        this.gpuTable.fillHere(() => ({ error: true }), this.unit);
        this.fillGpuOptions({ error: true, errors: [{ message: t('no_estimate') }] });
        this.noAnswers(t('no_estimate'));
        this.settle();
        return;
      }
      const byGpu = new Map(gpus.map((g) => [g.gpu, g]));
      this.gpuTable.fillHere((id) => {
        const g = byGpu.get(id);
        return !g || g.error ? { error: true } : { usable: g.gpu_capacity_bytes ?? null, peak: g.peak ?? null, verdict: g.verdict || null };
      }, this.unit);
      if (doc.gpu) {
        const request = WhatFits.request(doc, options, true);
        const t0 = performance.now();
        const { out: res } = await this.engine.search('solve', [JSON.stringify(request)]);
        const t1 = performance.now();
        if (gen !== this.generation) return;
        performance.measure('trainmem-solve', { start: t0, end: t1, detail: { candidates: res.strategies ? res.strategies.candidates : 0 } });
        this.fillGpuOptions(res);
        await this.showSolve(doc, out, request, res, t1 - t0);
      } else {
        // No GPU chosen: the panel has no question to answer; the table still gets every GPU's fewest
        // count (solve needs some GPU; its gpu_options do not depend on which).
        const request = WhatFits.request({ ...doc, gpu: this.catalog.gpus[0].id }, options, false);
        const { out: res } = await this.engine.search('solve', [JSON.stringify(request)]);
        if (gen !== this.generation) return;
        this.fillGpuOptions(res);
        this.noAnswers(t('solve_needs_gpu'));
      }
      if (gen === this.generation) this.settle();
    } catch (e) {
      if (!superseded(e)) throw e;
    }
  }

  /**
   * @param {Doc} doc
   * @param {Output} out  the estimate
   * @param {Doc} request  the solve document
   * @param {Output} res  its answer
   * @param {number} ms
   */
  async showSolve(doc, out, request, res, ms) {
    const unit = this.unit;
    if (res.error) {
      this.noAnswers(null, res.errors);
      return;
    }
    showErrors([], 'solve', byId('solve-errors'));
    const body = byId('solve-body');
    body.hidden = false;
    WhatFits.renderAnswers(byId('answers'), res, unit, (id) => this.gpuLabel(id));
    const measured = getPath(request, 'solve.calibration.0.measured_bytes');
    WhatFits.renderCalibration(byId('calibration-result'), byId('calibration-table').tBodies[0], res, unit, measured);
    WhatFits.renderReasons(byId('solve-reasons'), res);
    WhatFits.renderStrategies(byId('strategies'), byId('strategy-summary'), res, unit, ms, (row) => this.loadStrategy(row));
    byId('solve-json').textContent = JSON.stringify(request, null, 2);
    const colors = this.themeColors();
    const lines = { capacity: out.gpu_capacity_bytes, budget: res.budget_bytes, unit, colors };
    body.classList.remove('stale');
    await Promise.all([
      this.charts.seq.draw(peakCurve({ ...lines, points: res.curves.peak_vs_seq_length, xLabel: t('seq_length') })),
      this.charts.mbs.draw(peakCurve({ ...lines, points: res.curves.peak_vs_micro_batch, xLabel: t('micro_batch_size') })),
    ]);
  }

  /**
   * A suggestion's change (a JSON merge patch of the document) into the inputs: the estimate follows.
   * @param {Record<string, any>} change
   */
  applyChange(change) {
    this.store.doc = mergePatch(this.store.doc, change);
    this.writeControls();
    this.update('push');
    this.editing = false;
  }

  /**
   * An imported setup into the inputs, as a loaded link would: a new history entry (Back restores
   * the previous setup), and every input of the previous setup it changes is listed. The model and
   * the GPU stay when no file gives them (no trainer file names a GPU); so do the What fits? options,
   * and every input the import leaves to the engine's default.
   * @param {import('./import-panel.js').ImportAnswer} answer
   * @returns {import('./import-panel.js').Applied}
   */
  applyImport(answer) {
    const before = this.store.doc;
    const next = clone(answer.document);
    /** @type {[string, unknown][]} */
    const kept = [];
    for (const field of ['model', 'gpu']) {
      if (next[field] === undefined && before[field] !== undefined) {
        next[field] = clone(before[field]);
        kept.push([field, next[field]]);
      }
    }
    // A field only the engine's default gives (no file, no framework default) keeps the value the
    // user had: a partial import (a DeepSpeed JSON alone) states nothing about it. So does a field
    // the files leave to a variable the script does not set ("unresolved: run.sh:--max_length $SEQ").
    // Not the training method nor the parallel layout beyond the GPU count: a trainer file that
    // names no adapter, no DeepSpeed/FSDP config and no model parallelism runs full fine-tuning
    // under DDP, as the CLI estimates it; the form's ZeRO-3 or QLoRA kept beside it would price
    // another run, far smaller. A value the previous import wrote, unchanged since, is that import's,
    // not the user's: it goes back to the form's default, so the same files give the same estimate
    // whatever was imported before.
    /** @type {[string, unknown][]} */
    const keptInputs = [];
    for (const [field, origin] of Object.entries(answer.provenance)) {
      if (!(origin.startsWith('engine default') || origin.startsWith('unresolved: ')) || getPath(next, field) !== undefined) continue;
      if (origin.startsWith('engine default') && !keptFromForm(field)) continue;
      const mine = getPath(before, field);
      if (mine === undefined || this.lastImport.get(field) === JSON.stringify(mine)) continue;
      setPath(next, field, clone(mine));
      keptInputs.push([field, mine]);
    }
    this.lastImport = new Map(Object.keys(answer.provenance).filter((field) => getPath(answer.document, field) !== undefined)
      .map((field) => [field, JSON.stringify(getPath(answer.document, field))]));
    if (before.solve) next.solve = clone(before.solve);
    const replaced = changedInputs(effectiveDoc(before), effectiveDoc(next));
    this.store.doc = next;
    this.writeControls();
    this.editing = false;
    this.update('push');
    return { replaced, kept, keptInputs };
  }

  /**
   * A ranked strategy into the inputs: the estimate follows.
   * @param {Record<string, any>} row
   */
  loadStrategy(row) {
    this.store.doc = WhatFits.strategyDoc(this.store.doc, row);
    this.writeControls();
    this.update('push');
    this.editing = false;
  }

  // ---- preferences: units, language, theme ----

  /** The catalog entries the engine rejected at load, in the page's language. */
  showCatalogErrors() {
    renderCatalogErrors(byId('catalog-errors'), byId('catalog-error-list'), Array.isArray(this.catalog.errors) ? this.catalog.errors : []);
  }

  applyPrefs() {
    applyPreferences(this.store);
    this.colors = null;
    if (byId('accuracy').open) this.showAccuracy();
  }

  onPrefs() {
    const unitChanged = this.store.unit !== (byId('unit').value === 'GB' ? 'GB' : 'GiB');
    this.store.unit = byId('unit').value === 'GB' ? 'GB' : 'GiB';
    this.applyPrefs();
    this.showCatalogErrors();
    this.showLinkProblems(this.linkProblems);
    this.importer.render();
    this.writeControls(unitChanged);
    this.pickers.fill(byId('model-select'), this.pickers.filtered());
    this.update('none');
  }

  async showAccuracy() {
    const data = await loadChunk('accuracy').catch(() => null);
    renderAccuracy(byId('accuracy-summary'), byId('accuracy-figures').tBodies[0], byId('accuracy-band'), byId('accuracy-table').tBodies[0], data, this.unit);
    renderTimeAccuracy(byId('time-accuracy-summary'), byId('time-accuracy-table').tBodies[0], data);
  }

  // ---- events ----

  wire() {
    for (const area of [byId('inputs'), byId('what-fits'), byId('gpu-table')]) {  // every control with a data-path
      area.addEventListener('input', (/** @type {Event} */ e) => this.onControlInput(e));
      area.addEventListener('change', () => {
        this.editing = false;  // the gesture is committed: the next edit gets its own history entry
      });
    }
    byId('inputs').addEventListener('submit', (/** @type {Event} */ e) => e.preventDefault());
    this.pickers.wire();
    this.importer.wire();
    this.trainerExport.wire();
    matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
      this.colors = null;
      this.update('none');  // the charts take the theme's colours
    });
    byId('mini').addEventListener('click', () => byId('results').scrollIntoView());
    keepFocusClear(byId('headline'));
    for (const id of ['unit', 'lang', 'theme']) byId(id).addEventListener('change', () => this.onPrefs());
    byId('copy-link').addEventListener('click', () => {
      const done = () => { byId('status').textContent = t('copied'); };
      const fail = () => { byId('status').textContent = t('copy_failed'); };
      if (navigator.clipboard) navigator.clipboard.writeText(location.href).then(done, fail);
      else fail();
    });
    byId('pin').addEventListener('click', () => {
      if (!this.result) return;
      this.store.pinned = encode(this.result.doc);
      save(STORE.pinned, this.store.pinned);
      this.renderCompareAndChart();
    });
    byId('unpin').addEventListener('click', () => {
      this.store.pinned = null;
      save(STORE.pinned, null);
      this.renderCompareAndChart();
    });
    byId('export-md').addEventListener('click', () => {
      const r = this.result;
      if (r) download('trainmem-estimate.md', 'text/markdown', markdown(location.href, r.doc, r.out, this.unit));
    });
    byId('export-json').addEventListener('click', () => {
      const r = this.result;
      if (r) download('trainmem-estimate.json', 'application/json', JSON.stringify({ input: r.doc, output: r.out }, null, 2) + '\n');
    });
    byId('accuracy').addEventListener('toggle', () => {
      if (byId('accuracy').open) this.showAccuracy();
    });
    window.addEventListener('pagehide', () => this.stateSave.flush());
    window.addEventListener('popstate', async () => {
      if (encode(linkDoc(this.store.doc)) === location.hash || anchorTarget(location.hash)) return;
      // A newer step back or forward replaces this one: its link check may be superseded in the
      // engine's queue, and a check that finishes late must not load its document over the newer one.
      const step = ++this.historyStep;
      /** @type {LinkProblem[]} */
      const problems = [];
      this.readHash(location.hash, problems);
      const answer = this.overview();
      try {
        await this.nameRejectedFields(problems, answer);
      } catch (e) {
        if (superseded(e)) return;
        throw e;
      }
      if (step !== this.historyStep) return;
      this.showLinkProblems(problems);
      this.writeControls();
      this.update('none', answer);
    });
  }
}

/**
 * The element a hash names when it is an in-page anchor ("#accuracy"), not a link ("#v4:..."), or null.
 * @param {string} hash
 * @returns {HTMLElement | null}
 */
function anchorTarget(hash) {
  const id = hash.replace(/^#/, '');
  if (id === '' || /^v\d/i.test(id)) return null;
  try {
    return document.getElementById(decodeURIComponent(id));
  } catch (e) {
    return null;
  }
}

/**
 * Units, language and theme from the store and the toolbar, applied to the page and stored.
 * @param {Store} store
 */
export function applyPreferences(store) {
  byId('unit').value = store.unit;
  for (const u of document.querySelectorAll('.unit')) u.textContent = '(' + store.unit + ')';
  applyLanguage(document, byId('lang').value);
  document.documentElement.dataset.theme = byId('theme').value;
  save(STORE.prefs, { unit: store.unit, lang: byId('lang').value, theme: byId('theme').value });
}
