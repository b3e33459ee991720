// The "Import a trainer config" panel: files chosen, dropped or pasted (one or several together),
// YAML and TOML parsed here (config-files.js), then one `import` call to the engine in its worker
// (docs/import.md). The engine's answer {document, provenance, ignored, unmodelled, unresolved} is
// handed to the controller, which puts the document into the form, and shown as a table: each
// field, its value and where it came from. The page renders what the engine returns: which key
// means what, and every default, is the engine's.
import { t } from './i18n.js';
import { el, byId } from './dom.js';
import { reasonItem } from './reason-item.js';
import { getPath } from './doc-paths.js';
import { MAX_JSON_BYTES } from './link-codec.js';
import { loadChunk } from './chunks.js';
import { Superseded } from './engine-client.js';
import { configEngineError, messageAfterField, messageText } from './messages.js';

/** @typedef {import('./doc-paths.js').Doc} Doc */
/** @typedef {import('./config-files.js').ImportFile} ImportFile */
/** @typedef {{code: string, field?: string, message: string, params?: Record<string, unknown>}} EngineError */
/** @typedef {{key: string, reason: string, value: unknown}} ImportNote */
/** @typedef {{document: Doc, provenance: Record<string, string>, ignored: ImportNote[], unmodelled: ImportNote[], unresolved: ImportNote[], formats: Record<string, string>}} ImportAnswer */
/** @typedef {{replaced: string[], kept: [string, unknown][], keptInputs: [string, unknown][]}} Applied  the form's inputs the import changed ("path: before → after"), the model and GPU it kept (no file gives them), and the inputs kept where the import had only the engine's default */
/** @typedef {{name: string, text: string, askedBy?: string}} SourceFile  askedBy: for a model's config.json pasted when asked, the file that named the model */

/**
 * A name no listed file has: the name itself, else "stem (2).ext", "stem (3).ext"... (the engine
 * reads files by name, and knows a format by its content and extension, which stays).
 * @param {string} name
 * @param {SourceFile[]} files
 */
export function distinctName(name, files) {
  const taken = new Set(files.map((f) => f.name));
  if (!taken.has(name)) return name;
  const [stem, ext] = stemAndExtension(name);
  let k = 2;
  while (taken.has(`${stem} (${k})${ext}`)) ++k;
  return `${stem} (${k})${ext}`;
}

/** @param {string} name  "config.yaml" -> ["config", ".yaml"] */
function stemAndExtension(name) {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
}

/**
 * Whether `listed` is a name distinctName gave to a file named `name` ("config (2).yaml" for "config.yaml").
 * @param {string} name
 * @param {string} listed
 */
function listedAs(name, listed) {
  const [stem, ext] = stemAndExtension(name);
  return listed.startsWith(stem + ' (') && listed.endsWith(')' + ext) && /^\d+$/.test(listed.slice(stem.length + 2, listed.length - ext.length - 1));
}

// Provenance as the engine writes it (docs/api.md "resolved", "Import"): "read from FILE:key",
// "framework default (source)", "engine default ...", "unresolved: FILE:--flag $VARIABLE".
// "given with --model" is the catalog model chosen on the page for files naming one the catalog lacks.
const ORIGINS = /** @type {const} */ ([['read', 'read from '], ['framework', 'framework default'], ['engine', 'engine default'], ['unresolved', 'unresolved: '], ['given', 'given with --model']]);

/**
 * An import error in the page's language: a config of a framework the engine names (its params)
 * is worded here; other errors by their code (messages.js).
 * @param {EngineError & {params?: Record<string, unknown>}} e
 */
export function importErrorText(e) {
  const p = e.params || {};
  // Worded from its params in both languages (messages.js), the evidence in Chinese too.
  if (e.code === 'unknown_config_format' && typeof p.framework === 'string') return messageText({ code: e.code, field: e.field, params: p });
  // A file the page could not read as UTF-8 (ImportPanel.addFiles): a byte-order mark names UTF-16.
  if (e.code === 'invalid_encoding' && typeof p.file === 'string') return t(p.utf16 ? 'import_utf16' : 'import_not_utf8', { name: p.file });
  return messageAfterField(e);
}

/**
 * The kind of a provenance entry and the rest of its text (the file and key, or the source).
 * @param {string} origin
 * @returns {{kind: string, detail: string}}
 */
export function originParts(origin) {
  for (const [kind, prefix] of ORIGINS) {
    if (origin.startsWith(prefix)) return { kind, detail: origin.slice(prefix.length).trim().replace(/^\((.*)\)$/, '$1') };
  }
  return { kind: 'other', detail: origin };
}

/**
 * A value as the table shows it.
 * @param {unknown} v
 * @returns {string}
 */
function valueText(v) {
  if (v === undefined) return '—';
  if (typeof v === 'boolean') return t(v ? 'on' : 'off');
  if (Array.isArray(v) && v.every((e) => typeof e !== 'object')) return v.join(', ');
  if (v !== null && typeof v === 'object') {
    const o = /** @type {Record<string, unknown>} */ (v);
    if (typeof o.preset === 'string') return o.preset;
    if (o.hf_config && typeof o.hf_config === 'object') return t('import_hf_config', { type: String(/** @type {any} */ (o.hf_config).model_type || '?') });
    const s = JSON.stringify(v);
    return s.length > 80 ? s.slice(0, 79) + '…' : s;
  }
  return String(v);
}

/**
 * Whether a field the import leaves to the engine's default keeps the form's value: every field but
 * the training method and the parallel layout (the GPU count aside). A trainer file that names no
 * adapter, no DeepSpeed/FSDP config and no model parallelism runs full fine-tuning under DDP, as the
 * CLI estimates it (docs/import.md); the form's ZeRO-3 or QLoRA kept beside it would price another,
 * smaller run.
 * @param {string} field  a document path, e.g. "parallel.zero_stage"
 */
export function keptFromForm(field) {
  if (field === 'method') return false;
  if (field.startsWith('parallel.')) return field === 'parallel.world_size' || field === 'parallel.gpus_per_node';
  return true;
}

/**
 * The files describe a model the import could not build (a Megatron-LM script without its vocabulary
 * size: "FILE:(architecture)" unresolved): the form's model must not stand in for it. Asked for as a
 * model named by id but not in the catalog is (the same error code, so its config.json can be given).
 * @param {ImportAnswer} answer
 * @returns {EngineError | null}
 */
function unbuiltModel(answer) {
  if (answer.document.model !== undefined) return null;
  const note = answer.unresolved.find((n) => n.key.endsWith(':(architecture)'));
  // params: the engine's problem (the note's reason is its English wording): messages.js words it.
  return note ? { code: 'model_config_needed', field: note.key, message: note.reason, params: {} } : null;
}

export class ImportPanel {
  /**
   * @param {{config: (fn: string, args: unknown[], key?: string) => Promise<{out: any}>}} engine  the import call (EngineClient.config)
   * @param {(answer: ImportAnswer) => Applied} apply  puts the imported document into the form
   * @param {{id: string, display_name: string, hf_id: string}[]} models  the catalog's presets, offered for files naming a model it lacks
   */
  constructor(engine, apply, models) {
    this.engine = engine;
    this.apply = apply;
    this.models = models;
    /** @type {string | null} the catalog model chosen for files naming one the catalog lacks (the import's `model`) */
    this.modelPreset = null;
    /** @type {SourceFile[]} the files chosen or dropped, in order */
    this.files = [];
    /** @type {EngineError[]} the files of the last choice or drop that could not be read: named on every import until cleared or another choice */
    this.refused = [];
    /** @type {{answer: ImportAnswer, applied: Applied, sources: string} | null} the import on screen (sources: its files' names and texts) */
    this.shown = null;
    /** @type {EngineError[] | null} the import's errors on screen */
    this.errors = null;
    /** @type {(reason: string) => string | null} the notes' Chinese reasons, from the chunk the import loads */
    this.noteReasonZh = () => null;
    /** @type {Record<string, {value: any}> | null} the estimate's resolved inputs (values of engine defaults) */
    this.resolved = null;
    this.runs = 0;  // an older import's late answer is dropped
  }

  wire() {
    const box = byId('import');
    byId('import-files').addEventListener('change', (/** @type {Event} */ e) => {
      const input = /** @type {HTMLInputElement} */ (e.target);
      if (input.files) this.addFiles([...input.files]);
      input.value = '';
    });
    box.addEventListener('dragover', (/** @type {DragEvent} */ e) => e.preventDefault());
    box.addEventListener('drop', (/** @type {DragEvent} */ e) => {
      e.preventDefault();
      const dt = e.dataTransfer;
      if (!dt) return;
      if (dt.files.length) this.addFiles([...dt.files]);
      else if (dt.getData('text/plain')) {
        byId('import-text').value = dt.getData('text/plain');
        this.run();
      }
    });
    byId('import-run').addEventListener('click', () => this.run());
    byId('import-clear').addEventListener('click', () => {
      this.files = [];
      this.refused = [];
      byId('import-text').value = '';
      byId('import-model-config').value = '';
      this.modelPreset = null;
      this.shown = null;
      this.errors = null;
      this.render();
    });
    byId('import-model-use').addEventListener('click', () => {
      const text = byId('import-model-config').value;
      if (text.trim() === '') return;
      // Listed with the files (removable), and tied to the file that named the model: removing
      // that file removes it too.
      const needed = (this.errors || []).find((e) => e.code === 'model_config_needed');
      const key = needed && needed.field || '';
      const asker = this.files.find((f) => key.startsWith(f.name + ':'));
      this.files.push({ name: distinctName('config.json', this.files), text, ...(asker ? { askedBy: asker.name } : {}) });
      byId('import-model-config').value = '';
      this.run();
    });
    byId('import-model-preset-use').addEventListener('click', () => {
      this.modelPreset = /** @type {HTMLSelectElement} */ (byId('import-model-preset')).value || null;
      this.run();
    });
  }

  /**
   * Reads files (each at most the engine's document limit) and imports them with those already given.
   * @param {File[]} list
   */
  async addFiles(list) {
    /** @type {EngineError[]} */
    const refused = [];
    for (const f of list) {
      if (f.size > MAX_JSON_BYTES) {
        refused.push({ code: 'document_too_large', field: f.name, message: t('import_too_large', { name: f.name, bytes: f.size, limit: MAX_JSON_BYTES }) });
        continue;
      }
      // UTF-8 only, as the CLI reads files (cli/config_files.cpp): a UTF-16 file (Windows editors
      // write one) is named as such, not parsed as replacement characters.
      const bytes = new Uint8Array(await f.arrayBuffer());
      let text;
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      } catch {
        const utf16 = bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff));
        refused.push({ code: 'invalid_encoding', field: f.name, message: t(utf16 ? 'import_utf16' : 'import_not_utf8', { name: f.name }), params: { file: f.name, utf16 } });
        continue;
      }
      if (this.files.some((x) => x.text === text && (x.name === f.name || listedAs(f.name, x.name)))) continue;  // the same file again
      // Another file of the same name (two config.yaml from two folders): both kept, the second
      // under a name of its own, shown in the list and in the provenance.
      this.files.push({ name: distinctName(f.name, this.files), text });
    }
    this.refused = refused;
    await this.run();
  }

  /**
   * The files of the import: those given (a model's config.json pasted when asked among them), then the pasted text (named by its kind).
   * @param {(text: string) => string} pastedName
   * @returns {SourceFile[]}
   */
  sources(pastedName) {
    const all = [...this.files];
    const pasted = byId('import-text').value;
    if (pasted.trim() !== '') {
      const kind = byId('import-kind').value;
      all.push({ name: distinctName(kind ? 'pasted.' + kind : pastedName(pasted), all), text: pasted });
    }
    return all.map(({ name, text }) => ({ name, text }));
  }

  /** Parses the files, asks the engine, and applies its document (or shows why not). */
  async run() {
    const run = ++this.runs;
    const previous = this.shown;
    this.shown = null;
    /** @type {typeof import('./config-files.js') & {noteReasonZh: typeof import('./import-note-reasons.js').noteReasonZh}} the parsers, loaded on the first import */
    let parsers;
    try {
      parsers = await loadChunk('config-files');
    } catch (e) {
      this.errors = [{ code: 'internal', message: String(/** @type {Error} */ (e).message) }];
      this.render();
      return;
    }
    const { importFile, pastedName } = parsers;
    this.noteReasonZh = parsers.noteReasonZh;
    if (run !== this.runs) return;
    // A file chosen that could not be read is named again (Import clicked after it), not imported without.
    if (this.refused.length) {
      this.errors = this.refused;
      this.render();
      return;
    }
    const sources = this.sources(pastedName);
    if (sources.length === 0) {
      this.errors = [{ code: 'missing_field', message: t('import_nothing') }];
      this.render();
      return;
    }
    /** @type {ImportFile[]} */
    const files = [];
    /** @type {EngineError[]} */
    const errors = [];
    for (const s of sources) {
      const r = importFile(s.name, s.text);
      if ('error' in r) errors.push(r.error);
      else files.push(r.file);
    }
    if (errors.length === 0) {
      const request = JSON.stringify(this.modelPreset ? { files, model: this.modelPreset } : { files });
      const bytes = new TextEncoder().encode(request).length;
      if (bytes > MAX_JSON_BYTES) {
        errors.push({ code: 'document_too_large', message: t('import_request_too_large', { names: sources.map((s) => s.name).join(', '), bytes, limit: MAX_JSON_BYTES }) });
      } else {
        byId('import').setAttribute('aria-busy', 'true');
        let out;
        try {
          ({ out } = await this.engine.config('import', [request], 'import'));
        } catch (e) {
          if (e instanceof Superseded) return;  // a newer import replaced this one in the queue
          // The trainer-config module did not load (config-engine.wasm unreachable or not this
          // build's): said where the import's errors go; the next import tries the load again.
          out = { error: true, errors: [configEngineError(e)] };
        } finally {
          if (run === this.runs) byId('import').setAttribute('aria-busy', 'false');
        }
        if (run !== this.runs) return;
        const unbuilt = out.error ? null : unbuiltModel(out);
        if (out.error) errors.push(...out.errors);
        else if (unbuilt) errors.push(unbuilt);
        else {
          const applied = this.apply(out);
          const imported = JSON.stringify(sources);
          // The same files imported again (Import clicked after choosing them, which imported them)
          // change nothing: the summary of what their import changed stays on screen.
          this.shown = applied.replaced.length === 0 && previous && previous.sources === imported ? previous : { answer: out, applied, sources: imported };
        }
      }
    }
    this.errors = errors.length ? errors : null;
    // A failed import changes nothing: the result of an earlier one is no longer shown as this one's.
    if (this.errors) this.shown = null;
    this.render();
  }

  /**
   * The estimate's resolved inputs: the values of fields the import left to the engine's defaults.
   * @param {Record<string, {value: any}> | null} resolved
   */
  showResolved(resolved) {
    this.resolved = resolved;
    for (const cell of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('#provenance td[data-default-of]'))) {
      const entry = resolved && resolved[cell.dataset.defaultOf || ''];
      cell.textContent = entry ? valueText(entry.value) : '—';
    }
  }

  /** Draws the panel from its state (again after a change of language). */
  render() {
    byId('import-file-list').replaceChildren(...this.files.map((f) => el('li', {}, [
      el('code', { text: f.name }),
      ...(f.askedBy ? [document.createTextNode(' ' + t('import_model_for', { name: f.askedBy }))] : []),
      el('button', { type: 'button', class: 'link', text: t('import_remove'), 'aria-label': t('import_remove_file', { name: f.name }),
        onclick: () => {
          this.files = this.files.filter((x) => x !== f && x.askedBy !== f.name);
          // No file left: nothing is imported, so no import's summary or errors stay on screen.
          if (this.files.length === 0) this.shown = this.errors = null;
          this.render();
        } }),
    ])));
    /** @type {EngineError[]} */
    const errors = this.errors || [];
    byId('import-errors').replaceChildren(...(errors.length ? [el('li', { text: t('import_nothing_applied') })] : []),
      ...errors.map((e) => el('li', { 'data-code': e.code }, [
        ...(e.field ? [el('code', { text: e.field }), ' '] : []), importErrorText(e)])));
    const needed = errors.find((e) => e.code === 'model_config_needed');
    byId('import-model').hidden = !needed;
    byId('import-model-note').textContent = needed ? t('import_model_needed') : '';
    if (needed) {
      // The catalog's presets, the engine's nearest one chosen (params.suggestion, a catalog model's
      // Hugging Face id, when it found one).
      const nearest = needed.params && typeof needed.params.suggestion === 'string' ? needed.params.suggestion : '';
      byId('import-model-preset').replaceChildren(...this.models.map((m) => {
        const option = el('option', { value: m.id, text: m.display_name + ' (' + m.id + ')' });
        if (nearest !== '' && (m.hf_id === nearest || m.id === nearest)) option.setAttribute('selected', '');
        return option;
      }));
    }
    const box = byId('import-result');
    box.hidden = !this.shown;
    if (!this.shown) return;
    const { answer, applied } = this.shown;
    // Each file with the framework the engine read it as (a launcher without a name of its own, as written).
    const formats = Object.entries(answer.formats || {}).map(([file, format]) => file + ' (' + t('format_' + format).replace(/^format_/, '') + ')').join(', ');
    byId('import-summary').textContent = t('import_done', { files: formats })
      // Every input kept from the form: the model and GPU no file gives, and the inputs the files
      // leave to the engine's default (listed below with their values).
      + (applied.kept.length + applied.keptInputs.length
        ? ' ' + t('import_kept', { fields: [...applied.kept, ...applied.keptInputs].map(([f]) => f).join(', ') }) : '')
      + ' ' + (applied.replaced.length ? t(applied.replaced.length === 1 ? 'import_replaced_one' : 'import_replaced', { n: applied.replaced.length }) : t('import_nothing_replaced'));
    byId('import-replaced').replaceChildren(...applied.replaced.map((r) => el('li', { text: r })),
      ...applied.keptInputs.map(([field, v]) => el('li', { 'data-kept': field, text: field + ': ' + valueText(v) + ' (' + t('origin_kept_input') + ')' })));
    const keptInputs = new Map(applied.keptInputs);
    const rows = Object.entries(answer.provenance).map(([field, origin]) => {
      if (keptInputs.has(field)) {
        const why = origin.startsWith('unresolved: ') ? t('import_not_guessed', { detail: originParts(origin).detail }) : t('import_not_engine_default');
        return el('tr', { 'data-field': field, 'data-origin': 'kept', 'data-testid': 'provenance-row' }, [
          el('th', { scope: 'row' }, [el('code', { text: field })]), el('td', { text: valueText(keptInputs.get(field)) }),
          el('td', { text: t('origin_kept_input') + ' (' + why + ')' })]);
      }
      const { kind, detail } = originParts(origin);
      const v = getPath(answer.document, field);
      const value = el('td', { text: valueText(v) });
      if (v === undefined) {
        value.dataset.defaultOf = field;
        const entry = this.resolved && this.resolved[field];
        if (entry) value.textContent = valueText(entry.value);
      }
      return el('tr', { 'data-field': field, 'data-origin': kind, 'data-testid': 'provenance-row' }, [
        el('th', { scope: 'row' }, [el('code', { text: field })]), value,
        el('td', {}, [el('span', { class: 'origin-' + kind, text: t('origin_' + kind) }), document.createTextNode(detail ? ' ' + detail : '')]),
      ]);
    });
    for (const [field, v] of applied.kept) {
      rows.push(el('tr', { 'data-field': field, 'data-origin': 'kept', 'data-testid': 'provenance-row' }, [
        el('th', { scope: 'row' }, [el('code', { text: field })]), el('td', { text: valueText(v) }), el('td', { text: t('origin_kept') })]));
    }
    byId('provenance').tBodies[0].replaceChildren(...rows);
    /** @type {[string, ImportNote[]][]} */
    const lists = [['import-unmodelled', answer.unmodelled], ['import-unresolved', answer.unresolved], ['import-ignored', answer.ignored]];
    for (const [id, notes] of lists) {
      byId(id).replaceChildren(...notes.map((n) => {
        const value = n.value === null || n.value === undefined ? '' : ' = ' + JSON.stringify(n.value);
        return reasonItem(n.key, value, n.reason, this.noteReasonZh);
      }));
      byId(id + '-box').hidden = notes.length === 0;
    }
    byId('import-ignored-count').textContent = String(answer.ignored.length);
  }
}
