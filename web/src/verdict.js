// The verdict at the decision boundary: the engine's three-way verdict from its uncertainty band,
// the margin in the user's unit (the band's and the point estimate's side by side), what widens
// the band, and the engine's suggestions to make a setup fit, each with its re-estimated peak.
// Everything shown is read from the estimate output (docs/api.md: verdict, deciding_term,
// margin_bytes, margin_range, compared_quantity with per_gpu.peak_range or peak_reserved_range,
// uncertainty, suggestions); nothing is computed here.
import { t } from './i18n.js';
import { el } from './dom.js';
import { formatBytes, signedBytes } from './format.js';

/** @typedef {import('./format.js').Unit} Unit */
/** @typedef {Record<string, any>} Output */

/**
 * The verdict line and the margin, e.g. "Borderline: the margin lies between −2.10 GiB and +5.30
 * GiB (estimate +1.60 GiB)".
 * @param {Output} out
 * @param {Unit} unit
 * @returns {string}
 */
export function marginText(out, unit) {
  const r = out.margin_range;
  const point = typeof out.margin_bytes === 'number' ? signedBytes(out.margin_bytes, unit) : '—';
  if (!r || typeof r.low !== 'number') return out.verdict ? t('margin_point', { point }) : '';
  const vars = { low: signedBytes(r.low, unit), high: signedBytes(r.high, unit), point, spare: formatBytes(Math.max(0, r.low), unit),
    short: formatBytes(Math.max(0, -r.high), unit) };
  if (out.verdict === 'fits') return t('margin_fits', vars);
  if (out.verdict === 'does_not_fit') return t('margin_no_fit', vars);
  // Which source the answer turns on: the engine's deciding_term.
  const deciding = Array.isArray(out.uncertainty) ? out.uncertainty.find((u) => u.source === out.deciding_term) : undefined;
  return t('margin_borderline', vars) + (deciding ? ' ' + t('margin_deciding_term', { source: termLabel(deciding) }) : '');
}

/**
 * The sources that widen the band shown (docs/api.md `uncertainty`, the engine's
 * `widens_compared_band`), widest first, so the list adds up to its width.
 * @param {Output} out
 * @returns {Record<string, any>[]}
 */
function sortedTerms(out) {
  const terms = Array.isArray(out.uncertainty) ? out.uncertainty.filter((u) => u.widens_compared_band) : [];
  return terms.sort((a, b) => b.bytes - a.bytes);
}

/**
 * A source in words, with the setting it re-estimated: "Activation checkpointing not given
 * (activation_checkpointing: full)".
 * @param {Record<string, any>} u
 */
function termLabel(u) {
  return t('u_' + u.source) + (u.alternative ? t('u_alternative', { setting: String(u.alternative) }) : '');
}

/**
 * The band's sources, largest first: "CUDA context (lazy vs eager module loading): 0.36 GiB".
 * @param {HTMLElement} list
 * @param {Output} out
 * @param {Unit} unit
 */
export function renderUncertainty(list, out, unit) {
  list.replaceChildren(...sortedTerms(out).map((u) => el('li', { 'data-testid': 'uncertainty-term', 'data-source': String(u.source) }, [
    el('span', { text: termLabel(u) + ': ' }),
    el('strong', { text: formatBytes(u.bytes, unit) }),
    el('small', { class: 'source', text: String(u.reference || '') }),
  ])));
}

/**
 * A suggestion in words, from its code and params: "Use ZeRO stage 3".
 * @param {Record<string, any>} s
 * @returns {string}
 */
export function suggestionText(s) {
  const p = s.params || {};
  /** @type {Record<string, string>} */
  const vars = {};
  for (const [k, v] of Object.entries(p)) vars[k] = typeof v === 'number' ? v.toLocaleString('en-US') : String(v);
  if (s.code === 'checkpointing') return t(p.policy === 'selective' ? 's_checkpointing_selective' : 's_checkpointing_full');
  if (s.code === 'smaller_micro_batch') return t(p.gradient_accumulation_steps === 1 ? 's_smaller_micro_batch_one' : 's_smaller_micro_batch', vars);
  return t('s_' + s.code, vars);
}

/** @type {Record<string, string>} */
const VERDICT_WORDS = { fits: 'v_fits', borderline: 'v_borderline', does_not_fit: 'v_no_fit' };
/** @type {Record<string, string>} */
const VERDICT_CLASSES = { fits: 'ok', borderline: 'warn', does_not_fit: 'bad' };

/**
 * The engine's three-way verdict (fits | borderline | does_not_fit) as a word of the page's
 * language; "—" where the engine gave none.
 * @param {unknown} verdict
 * @returns {string}
 */
export function verdictWord(verdict) {
  return t(VERDICT_WORDS[String(verdict)] || 'v_unknown');
}

/**
 * The class that colours a verdict: ok, warn or bad; '' where the engine gave none.
 * @param {unknown} verdict
 * @returns {string}
 */
export function verdictClass(verdict) {
  return VERDICT_CLASSES[String(verdict)] || '';
}

/**
 * The suggestions, best first, each with the peak it leads to and its own verdict; `apply` loads
 * its change into the inputs.
 * @param {HTMLElement} box
 * @param {HTMLElement} list
 * @param {Output} out
 * @param {Unit} unit
 * @param {(change: Record<string, any>) => void} apply
 */
export function renderSuggestions(box, list, out, unit, apply) {
  const all = Array.isArray(out.suggestions) ? out.suggestions : [];
  box.hidden = all.length === 0;
  list.replaceChildren(...all.map((s) => {
    const button = el('button', { type: 'button', text: t('s_apply'), 'data-testid': 'apply-suggestion' });
    button.addEventListener('click', () => apply(s.change));
    return el('li', { 'data-testid': 'suggestion', 'data-code': String(s.code) }, [
      el('span', { text: suggestionText(s) + ' ' }),
      el('span', { text: t('s_result', { peak: formatBytes(s.peak, unit), saved: formatBytes(s.saved_bytes, unit) }) + ' ' }),
      // A borderline change whose estimate is still over the device says so (as the headline does).
      el('strong', { class: verdictClass(s.verdict), text: s.verdict === 'borderline' && typeof out.gpu_capacity_bytes === 'number'
        && s.peak > out.gpu_capacity_bytes ? t('v_borderline_over') : verdictWord(s.verdict) }),
      ' ',
      button,
    ]);
  }));
}

/**
 * The band the verdict compares with the GPU (docs/api.md `compared_quantity`): per_gpu.peak_range,
 * or per_gpu.peak_reserved_range where the GPU's usable figure already leaves the context out.
 * @param {Output} out
 * @returns {{reserved: boolean, range: Record<string, number> | null}}
 */
export function comparedBand(out) {
  const reserved = out.compared_quantity === 'peak_reserved';
  const g = out.per_gpu || {};
  return { reserved, range: (reserved ? g.peak_reserved_range : g.peak_range) || null };
}

/**
 * The compared band: "between 20.1 and 26.3 GiB".
 * @param {Output} out
 * @param {Unit} unit
 */
export function bandText(out, unit) {
  const { range } = comparedBand(out);
  if (!range) return '—';
  return t('band_between', { low: formatBytes(range.low, unit), high: formatBytes(range.high, unit) });
}
