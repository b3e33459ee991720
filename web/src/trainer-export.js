// Export of the current setup as a trainer's config file (docs/import.md "Export"): the engine's
// `export` (wasm/bindings.cpp; the same mapping as `trainmem export FORMAT`) gives
// {format, config, not_exported}; the page writes `config` as the file the framework reads (JSON, or
// YAML read back by PyYAML's YAML 1.1 rules) and lists the fields the format cannot carry. A
// strategy chosen in What fits? is exported by loading it into the inputs first.
import { t } from './i18n.js';
import { el, byId } from './dom.js';
import { reasonItem } from './reason-item.js';
import { download } from './export.js';
import { loadChunk } from './chunks.js';
import { Superseded } from './engine-client.js';
import { configEngineError, messageText } from './messages.js';

/** @typedef {import('./engine-client.js').EngineClient} EngineClient */
/** @typedef {import('./doc-paths.js').Doc} Doc */
/** @typedef {{field: string, reason: string}} NotExported */
/** @typedef {import('./messages.js').EngineMessage} EngineMessage */

/** Each format: the file it downloads as, its MIME type, and whether it is written as YAML. */
const FORMATS = {
  deepspeed: { file: 'ds_config.json', type: 'application/json', yaml: false },
  accelerate: { file: 'accelerate_config.yaml', type: 'application/yaml', yaml: true },
  axolotl: { file: 'axolotl.yaml', type: 'application/yaml', yaml: true },
  torchtune: { file: 'tune_run.sh', type: 'text/x-shellscript', yaml: false },  // config is the tune run line itself
};

export class TrainerExport {
  /**
   * @param {EngineClient} engine
   * @param {() => Doc | null} currentDoc  the document of the estimate on screen
   */
  constructor(engine, currentDoc) {
    this.engine = engine;
    this.currentDoc = currentDoc;
    /** @type {{text: string, format: keyof FORMATS} | null} the export on screen */
    this.shown = null;
  }

  wire() {
    byId('export-config').addEventListener('click', () => this.run());
    byId('export-config-download').addEventListener('click', () => {
      if (this.shown) {
        const f = FORMATS[this.shown.format];
        download(f.file, f.type, this.shown.text);
      }
    });
  }

  /** Hides an exported file the inputs have changed since (it would not be this setup's). */
  clear() {
    this.shown = null;
    byId('export-config-box').hidden = true;
    byId('export-config-download').hidden = true;
  }

  /** Asks the engine for the chosen format and shows the file and what it leaves out. */
  async run() {
    const doc = this.currentDoc();
    if (!doc) return;
    const format = /** @type {keyof FORMATS} */ (/** @type {HTMLSelectElement} */ (byId('export-format')).value);
    let out;
    try {
      ({ out } = await this.engine.config('export', [JSON.stringify(doc), format], 'export'));
    } catch (e) {
      if (e instanceof Superseded) return;
      out = { errors: [configEngineError(e)] };  // the module did not load; the next export tries again
    }
    const box = byId('export-config-box');
    box.hidden = false;
    if (out.errors) {
      this.shown = null;
      byId('export-config-text').textContent = '';
      byId('export-not-exported').replaceChildren(...out.errors.map((/** @type {EngineMessage} */ e) => el('li', { class: 'error', text: messageText(e) })));
      byId('export-config-download').hidden = true;
      return;
    }
    // The chunk the trainer-config module came in (loaded by the export call above).
    const { yamlText, exportReasonZh } = await loadChunk('config-files');
    const text = typeof out.config === 'string' ? out.config + '\n'
      : FORMATS[format].yaml ? yamlText(out.config) : JSON.stringify(out.config, null, 2) + '\n';
    this.shown = { text, format };
    byId('export-config-text').textContent = text;
    byId('export-config-download').hidden = false;
    byId('export-not-exported').replaceChildren(...(out.not_exported.length
      ? out.not_exported.map((/** @type {NotExported} */ n) => reasonItem(n.field, '', n.reason, exportReasonZh))
      : [el('li', { text: t('export_all_carried') })]));
  }
}
