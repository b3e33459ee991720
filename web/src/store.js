// The page's state, in one place: the document being edited (the estimate document plus the
// What fits? panel's `solve` options), the display unit, custom models pasted by the user, the
// pinned configuration and the last custom device. Everything else on screen is derived from it
// and from the engine's answers.

/** @typedef {import('./doc-paths.js').Doc} Doc */
/** @typedef {import('./format.js').Unit} Unit */
/** @typedef {{name: string, config: Record<string, any>}} CustomModel */

export const MAX_CUSTOMS = 20;

export class Store {
  constructor() {
    /** @type {Doc} the document as edited; the link and local storage carry it */
    this.doc = {};
    /** @type {Unit} */
    this.unit = 'GiB';
    /** @type {CustomModel[]} pasted config.json files, newest last */
    this.customs = [];
    /** @type {string | null} the pinned configuration's link */
    this.pinned = null;
    /** @type {Doc | null} the custom device last edited, restored when "custom device" is chosen again */
    this.lastCustomGpu = null;
  }

  /**
   * The index of the custom model with this config; added (as the newest) when new.
   * @param {Record<string, any>} config
   * @returns {{index: number, added: boolean}}
   */
  addCustom(config) {
    const text = JSON.stringify(config);
    const found = this.customs.findIndex((c) => JSON.stringify(c.config) === text);
    if (found >= 0) return { index: found, added: false };
    const name = String(config._name_or_path || config.name_or_path || customName(config)).slice(0, 80);
    this.customs.push({ name, config });
    if (this.customs.length > MAX_CUSTOMS) this.customs.shift();
    return { index: this.customs.length - 1, added: true };
  }
}

/**
 * The name of a pasted config.json without a name of its own: its model_type (or "custom"), with
 * its hidden size and layer count where they are positive integers ("llama, hidden 4096, 32 layers").
 * @param {Record<string, any>} config
 * @returns {string}
 */
export function customName(config) {
  /** @param {unknown} v */
  const positive = (v) => typeof v === 'number' && Number.isInteger(v) && v > 0;
  const type = typeof config.model_type === 'string' && config.model_type.trim() !== '' ? config.model_type.trim() : 'custom';
  const parts = [type];
  if (positive(config.hidden_size)) parts.push('hidden ' + config.hidden_size);
  if (positive(config.num_hidden_layers)) parts.push(config.num_hidden_layers + ' layers');
  return parts.join(', ');
}
