// Pin and compare: the pinned configuration's output beside the current one, component by
// component with the difference, and the inputs that differ.
import { t } from './i18n.js';
import { formatBytes, formatCount, formatMoney, formatSeconds } from './format.js';
import { verdictClass, verdictWord } from './verdict.js';
import { el, bytesCell } from './dom.js';
import { getPath, leafPaths } from './doc-paths.js';
import { OPTIONAL_COMPONENTS } from './results.js';

/** @typedef {import('./format.js').Unit} Unit */
/** @typedef {import('./doc-paths.js').Doc} Doc */
/** @typedef {Record<string, any>} EstimateOutput */

const COMPARED = ['parameters', 'gradients', 'optimizer_states', 'model_states', 'activations', 'temporary_buffers',
  'fragmentation', 'cuda_context', 'userbuffers', 'peak_allocated', 'peak_reserved', 'peak'];

/**
 * @param {HTMLTableElement} table
 * @param {EstimateOutput} pinnedOut
 * @param {EstimateOutput} currentOut
 * @param {Unit} unit
 */
export function renderCompare(table, pinnedOut, currentOut, unit) {
  /** @type {HTMLTableSectionElement} */ (table.tHead).replaceChildren(el('tr', {}, [el('th', { scope: 'col', text: t('component') }),
    el('th', { scope: 'col', class: 'num', text: t('pinned') }), el('th', { scope: 'col', class: 'num', text: t('current') }),
    el('th', { scope: 'col', class: 'num', text: t('difference') })]));
  const rows = COMPARED.map((key) => {
    // A component one estimate does not have (userbuffers without --tp-comm-overlap) is 0 bytes there.
    const absentIsZero = (/** @type {unknown} */ v) => (v === null && OPTIONAL_COMPONENTS.has(key) ? 0 : v);
    const a = absentIsZero(pinnedOut.per_gpu[key]);
    const b = absentIsZero(currentOut.per_gpu[key]);
    const diff = typeof a === 'number' && typeof b === 'number' ? b - a : null;
    const diffText = diff === null ? '—' : (diff > 0 ? '+' : diff < 0 ? '−' : '±') + formatBytes(Math.abs(diff), unit);
    const diffCell = el('td', { class: 'num ' + (diff === null ? '' : diff > 0 ? 'bad' : diff < 0 ? 'ok' : ''), text: diffText, 'data-testid': 'diff-' + key });
    if (diff !== null) diffCell.setAttribute('data-bytes', String(diff));
    return el('tr', { class: key === 'peak' || key === 'model_states' ? 'subtotal' : '' }, [
      el('th', { scope: 'row', text: t('c_' + key) }), bytesCell(a, unit), bytesCell(b, unit), diffCell]);
  });
  rows.push(el('tr', {}, [el('th', { scope: 'row', text: t('f_trainable') }), el('td', { class: 'num', text: formatCount(pinnedOut.parameters.trainable) }),
    el('td', { class: 'num', text: formatCount(currentOut.parameters.trainable) }), el('td')]));
  // Time and cost side by side (the engine's time block; — where a configuration has none): what
  // decides between two setups that both fit. Less is better for all but the throughput.
  /** @type {[string, string, (time: Record<string, any>) => unknown, (x: number) => string, boolean][]} */
  const timed = [
    ['t_step', 'step', (x) => x.step_seconds, formatSeconds, false],
    ['t_tokens', 'tokens', (x) => x.tokens_per_second_per_gpu, (x) => formatCount(Math.round(x)), true],
    ['t_to_train', 'to-train', (x) => x.time_to_train_seconds, formatSeconds, false],
    ['t_cost', 'cost', (x) => x.cost && x.cost.usd, (x) => '$' + formatMoney(x), false],
  ];
  for (const [label, id, pick, format, higherIsBetter] of timed) {
    const [a, b] = [pinnedOut, currentOut].map((out) => (out.time ? pick(out.time) : null));
    if (typeof a !== 'number' && typeof b !== 'number') continue;
    const cell = (/** @type {unknown} */ v, /** @type {string} */ side) =>
      el('td', { class: 'num', text: typeof v === 'number' ? format(v) : '—', 'data-testid': 'cmp-' + id + '-' + side, 'data-value': typeof v === 'number' ? String(v) : '' });
    const diff = typeof a === 'number' && typeof b === 'number' ? b - a : null;
    const better = diff === null || diff === 0 ? '' : (diff > 0) === higherIsBetter ? 'ok' : 'bad';
    rows.push(el('tr', {}, [el('th', { scope: 'row', text: t(label) }), cell(a, 'pinned'), cell(b, 'current'),
      el('td', { class: 'num ' + better, text: diff === null ? '—' : (diff > 0 ? '+' : diff < 0 ? '−' : '±') + format(Math.abs(diff)) })]));
  }
  // The engine's three-way verdict, as the headline shows it (`fits` is only its conservative reading).
  rows.push(el('tr', {}, [el('th', { scope: 'row', text: t('fit') }),
    ...[pinnedOut, currentOut].map((out) => el('td', { class: 'num ' + verdictClass(out.verdict), text: verdictWord(out.verdict), 'data-verdict': String(out.verdict || '') })),
    el('td')]));
  table.tBodies[0].replaceChildren(...rows);
}

/**
 * "path: before → after" for every input that differs between two documents.
 * @param {Doc} pinned
 * @param {Doc} current
 * @returns {string[]}
 */
export function changedInputs(pinned, current) {
  const a = new Map(leafPaths(pinned).map((p) => [p, JSON.stringify(getPath(pinned, p))]));
  const b = new Map(leafPaths(current).map((p) => [p, JSON.stringify(getPath(current, p))]));
  return [...new Set([...a.keys(), ...b.keys()])].filter((p) => a.get(p) !== b.get(p))
    .map((p) => p + ': ' + (a.has(p) ? a.get(p) : '—') + ' → ' + (b.has(p) ? b.get(p) : '—'));
}
