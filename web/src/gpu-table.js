// The catalog GPU table: every catalog GPU at the current GPU count (usable memory, peak, fits),
// the fewest of it that fit (from the engine's solve) and what they cost at an editable price per
// GPU-hour. Its rows are built once, so that a price being typed keeps focus while results change.
import { t } from './i18n.js';
import { formatCount, formatMoney } from './format.js';
import { el, setBytes } from './dom.js';
import { verdictClass, verdictWord } from './verdict.js';

/** @typedef {import('./format.js').Unit} Unit */
/** @typedef {{id: string, display_name: string, price_per_gpu_hour_usd?: number | null, memory: {bytes: number}, device_total_bytes?: number | null}} GpuEntry */
/** @typedef {{usable: number | null, peak: number | null, verdict: string | null} | {pending: true} | {error: true}} GpuHere  verdict: the engine's fits | borderline | does_not_fit */
/** @typedef {{value: number, peak: number, verdict: string | null}} FitPoint  verdict: the engine's fits | borderline at that count */
/** @typedef {{min_gpus: FitPoint | null, min_gpus_whole_band: FitPoint | null, cost_per_hour: number | null, cannot_run?: string[]} | {pending: true} | {error: string}} GpuOption */

export class GpuTable {
  /**
   * @param {HTMLTableElement} table
   * @param {GpuEntry[]} gpus
   */
  constructor(table, gpus) {
    this.table = table;
    /** @type {Map<string, HTMLTableRowElement>} */
    this.rows = new Map(gpus.map((g) => [g.id, row(g)]));
    table.tBodies[0].replaceChildren(...this.rows.values());
  }

  /** @param {boolean} busy */
  setBusy(busy) {
    this.table.setAttribute('aria-busy', String(busy));
  }

  /**
   * Every row's estimate at this count: gpu id -> verdict, or one state for all.
   * @param {(id: string) => GpuHere} verdict
   * @param {Unit} unit
   */
  fillHere(verdict, unit) {
    for (const [id, tr] of this.rows) fillHere(tr, verdict(id), unit);
  }

  /**
   * Every row's fewest GPUs and cost.
   * @param {(id: string) => GpuOption} option
   * @param {number} maxGpus  how far the engine was asked to look
   */
  fillOptions(option, maxGpus) {
    for (const [id, tr] of this.rows) fillOption(tr, option(id), maxGpus);
  }
}

/**
 * GPU | usable | peak at this count | fits | fewest GPUs that fit | price per GPU-hour (editable) | cost per hour.
 * @param {GpuEntry} gpu
 */
function row(gpu) {
  const price = el('input', { type: 'text', inputMode: 'decimal', spellcheck: false,
    placeholder: typeof gpu.price_per_gpu_hour_usd === 'number' ? String(gpu.price_per_gpu_hour_usd) : '—' });
  price.setAttribute('data-path', 'solve.prices.' + gpu.id);
  price.setAttribute('data-type', 'num');
  price.setAttribute('data-testid', 'price');
  price.setAttribute('aria-label', t('price_label', { gpu: gpu.display_name }));
  return el('tr', { 'data-gpu': gpu.id }, [el('th', { scope: 'row', text: gpu.display_name }), el('td', { class: 'num' }),
    el('td', { class: 'num', 'data-testid': 'peak-here' }), el('td'), el('td', { class: 'num', 'data-testid': 'min-gpus' }),
    el('td', { class: 'price' }, [price]), el('td', { class: 'num', 'data-testid': 'cost' })]);
}

/**
 * @param {HTMLTableRowElement} tr
 * @param {GpuHere} here
 * @param {Unit} unit
 */
function fillHere(tr, here, unit) {
  const [, usable, peak, fit] = tr.cells;
  if ('pending' in here || 'error' in here) {
    const mark = 'pending' in here ? '…' : '—';
    usable.textContent = peak.textContent = mark;
    usable.removeAttribute('data-bytes');
    peak.removeAttribute('data-bytes');
    fit.textContent = 'pending' in here ? t('computing') : t('unknown');
    fit.className = '';
    return;
  }
  setBytes(usable, here.usable, unit);
  setBytes(peak, here.peak, unit);
  fit.textContent = verdictWord(here.verdict);
  fit.className = verdictClass(here.verdict);
  fit.dataset.verdict = here.verdict || '';
}

/**
 * @param {HTMLTableRowElement} tr
 * @param {GpuOption} option
 * @param {number} maxGpus
 */
function fillOption(tr, option, maxGpus) {
  const min = tr.cells[4];
  const cost = tr.cells[6];
  cost.title = '';
  cost.removeAttribute('data-cannot-run');
  min.title = '';
  min.className = 'num';
  min.removeAttribute('data-min-verdict');
  if ('pending' in option || 'error' in option) {
    min.textContent = cost.textContent = 'pending' in option ? '…' : '—';
    if ('error' in option) min.title = option.error;
    min.removeAttribute('data-value');
    return;
  }
  const fewest = option.min_gpus;
  min.textContent = fewest ? minGpusText(fewest, option.min_gpus_whole_band) : t('not_within', { n: formatCount(maxGpus) });
  if (fewest) {
    min.setAttribute('data-value', String(fewest.value));
    min.setAttribute('data-min-verdict', fewest.verdict || '');
    if (fewest.verdict === 'borderline') {
      min.classList.add('warn');
      min.title = t(option.min_gpus_whole_band ? 'min_gpus_borderline_title' : 'min_gpus_borderline_none_title',
        { n: formatCount(fewest.value), max: formatCount(maxGpus) });
    }
  } else {
    min.removeAttribute('data-value');
    min.title = t('not_within_title', { n: formatCount(maxGpus) });
  }
  cost.textContent = typeof option.cost_per_hour === 'number' ? '$' + formatMoney(option.cost_per_hour) + t('per_hour') : '—';
  // The engine's reasons the setup cannot run there as written (solve's cannot_run): never the cheapest.
  const cannot = option.cannot_run || [];
  if (cannot.length) {
    cost.textContent += ' · ' + t('cannot_run');
    cost.title = t('cannot_run_title', { reasons: cannot.map((c) => t('cr_' + c)).join('; ') });
    cost.setAttribute('data-cannot-run', cannot.join(' '));
  }
}

/**
 * "4" when the fewest count fits with its whole band; "4 · borderline (5 clear)" when only its point
 * estimate does, with the count whose whole band fits where there is one.
 * @param {FitPoint} fewest
 * @param {FitPoint | null | undefined} wholeBand
 */
function minGpusText(fewest, wholeBand) {
  const n = formatCount(fewest.value);
  if (fewest.verdict !== 'borderline') return n;
  return wholeBand ? t('min_gpus_borderline_clear', { n, clear: formatCount(wholeBand.value) }) : t('min_gpus_borderline', { n });
}
