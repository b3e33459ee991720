// The "Accuracy" section: predicted vs measured on the published measurements, as the accuracy
// program (tests/accuracy) writes it on every build ({summary, figures, rows}; loaded with the
// section, see chunks.js), so it cannot drift from the engine. The figures: median |error|, p90
// |error| and median signed error side by side, for every peak, per kind of value, source and
// method (a case the engine cannot express is a miss at 100 %). Each row: the case and its source,
// what the source measured (allocated / reserved / nvidia-smi / model states ..., from the output
// field it is compared with), measured and predicted bytes, and the error.
import { verdictWord } from './verdict.js';
import { t, language } from './i18n.js';
import { el, bytesCell, numCell } from './dom.js';
import { formatBytes, formatPercent, formatSeconds } from './format.js';

/** @typedef {import('./format.js').Unit} Unit */
/** @typedef {{id: string, source?: string, field: string, measured_bytes?: number, predicted_bytes?: number, error?: number, status?: string, outcome?: string, detail?: string, fit_expected?: boolean, verdict?: string, right?: boolean, band_low_bytes?: number, band_high_bytes?: number, inside_band?: boolean, outside?: boolean}} AccuracyRow */
/** @typedef {{group: string, cases: number, misses: number, median_abs_error: number | null, p90_abs_error: number | null, median_signed_error: number | null}} AccuracyFigures */
/** @typedef {{id: string, source?: string, measured_step_seconds: number, predicted_step_seconds?: number, error?: number, mfu?: number, status?: string, outside?: boolean}} TimeAccuracyRow */
/** @typedef {{cases: number, inside: number, median_width: number | null}} BandFigures */
/** @typedef {{outside: boolean, cases: number, misses: number, within_15_percent: number, median_abs_error: number, p90_abs_error: number, median_signed_error: number}} TimeFigures */
/** @typedef {{summary: string, figures?: AccuracyFigures[], rows: AccuracyRow[], band?: BandFigures, oom_cases?: number, oom_said_to_fit?: number, fit_cases?: number, fit_not_ruled_out?: number, fit_verdict_fits?: number, time?: {summary: string, figures?: TimeFigures[], rows: TimeAccuracyRow[]}}} AccuracyData */

// The output field a case is compared with -> what its source measured.
/** @type {Record<string, string>} */
const MEASURE = {
  'per_gpu.peak_allocated': 'acc_allocated',
  'per_gpu.peak_reserved': 'acc_reserved',
  'per_gpu.peak': 'acc_device',
  'per_gpu.model_states': 'acc_model_states',
  'per_gpu.parameters': 'acc_weights',
  'per_gpu.parameters + per_gpu.cuda_context': 'acc_weights_context',
  'per_gpu.cuda_context': 'acc_context',
  'checkpoint.inference_weights_bytes': 'acc_checkpoint',
  fits: 'acc_fits',
};

/**
 * What a case's source measured, in words.
 * @param {string} field  the output field it is compared with
 */
export function measureLabel(field) {
  return MEASURE[field] ? t(MEASURE[field]) : field;
}

/** @param {number} error */
function signed(error) {
  return (error > 0 ? '+' : error < 0 ? '−' : '±') + (Math.abs(error) * 100).toFixed(1) + '%';
}

/** @param {number | null} error */
function percent(error) {
  return typeof error === 'number' ? (error * 100).toFixed(1) + '%' : '–';
}

// The accuracy program names its case groups in English ("peak_per_gpu, source pytorch/torchtune");
// other languages word them from these patterns, the source or method left as written.
/** @type {[RegExp, string][]} */
const GROUPS = [
  [/^peak_per_gpu \(handed\)$/, 'acc_g_handed'], [/^peak_per_gpu \(outside the handed set\)$/, 'acc_g_outside'],
  [/^every byte-valued case$/, 'acc_g_every'], [/^value_semantics (.+)$/, 'acc_g_semantics'],
  [/^peak_per_gpu, source (.+)$/, 'acc_g_source'], [/^peak_per_gpu, method (.+)$/, 'acc_g_method'],
];

/**
 * A case group's name in the page's language.
 * @param {string} group
 */
export function groupName(group) {
  if (language() === 'en') return group;
  for (const [pattern, key] of GROUPS) {
    const m = pattern.exec(group);
    if (m) return t(key, { x: m[1] || '' });
  }
  return group;
}

/**
 * The memory figures' summary: the program's own lines in English, else worded from its figures.
 * @param {AccuracyData} data
 */
function summaryText(data) {
  if (language() === 'en' || !Array.isArray(data.figures)) return String(data.summary || '').trim();
  const lines = [];
  for (const [group, key] of [['peak_per_gpu (handed)', 'acc_summary_handed'], ['peak_per_gpu (outside the handed set)', 'acc_summary_outside']]) {
    const f = data.figures.find((g) => g.group === group);
    if (!f) continue;
    lines.push(t(key, { cases: String(f.cases), misses: String(f.misses), median: percent(f.median_abs_error), p90: percent(f.p90_abs_error),
      signed: typeof f.median_signed_error === 'number' ? signed(f.median_signed_error) : '–' }));
  }
  if (typeof data.oom_cases === 'number') {
    lines.push(t('acc_summary_fits', { oom_fit: String(data.oom_said_to_fit), oom: String(data.oom_cases),
      right: String(data.fit_not_ruled_out), fit: String(data.fit_cases), confident: String(data.fit_verdict_fits) }));
  }
  return lines.join('\n');
}

/**
 * The step-time figures' summary, likewise.
 * @param {{summary: string, figures?: TimeFigures[]}} time
 */
function timeSummaryText(time) {
  if (language() === 'en' || !Array.isArray(time.figures)) return String(time.summary || '').trim();
  return time.figures.map((f) => t(f.outside ? 'acc_time_outside' : 'acc_time_handed', {
    cases: String(f.cases), misses: String(f.misses), within: String(f.within_15_percent),
    median: percent(f.median_abs_error), p90: percent(f.p90_abs_error), signed: signed(f.median_signed_error),
  })).join('\n');
}

/** @param {AccuracyRow | TimeAccuracyRow} row */
function errorText(row) {
  if (typeof row.error === 'number') return signed(row.error);
  // The accuracy program's status as data, worded in the page's language (a case's own detail, a
  // source's or the engine's English text, is quoted as written).
  const r = /** @type {AccuracyRow} */ (row);
  if (r.outcome === 'fit_check')
    return t('acc_fit_check', { expected: t(r.fit_expected ? 'acc_fit_ran' : 'acc_fit_oom'), verdict: verdictWord(r.verdict || null),
      judged: t(r.right ? 'acc_right' : 'acc_wrong') });
  if (r.outcome && r.outcome !== 'ok') return t('acc_outcome_' + r.outcome) + (r.detail ? ': ' + r.detail : '');
  return String(row.status);
}

/**
 * The band's coverage in words: measured peaks inside the band and its median relative width.
 * @param {BandFigures | undefined} band
 */
export function bandText(band) {
  if (!band || !band.cases) return t('acc_band_missing');
  const percent = (/** @type {number} */ v) => (v * 100).toFixed(1) + ' %';
  return t('acc_band_figures', {
    inside: String(band.inside), cases: String(band.cases), share: percent(band.inside / band.cases),
    width: typeof band.median_width === 'number' ? percent(band.median_width) : '—',
  });
}

/** @param {AccuracyRow} row @param {Unit} unit */
function bandCell(row, unit) {
  if (typeof row.band_low_bytes !== 'number' || typeof row.band_high_bytes !== 'number') return el('td', { class: 'num', 'data-testid': 'accuracy-band-cell' });
  const text = formatBytes(row.band_low_bytes, unit) + ' – ' + formatBytes(row.band_high_bytes, unit) + ' ' + t(row.inside_band ? 'acc_inside' : 'acc_outside');
  return el('td', { class: 'num ' + (row.inside_band ? 'ok' : 'bad'), text, 'data-testid': 'accuracy-band-cell', 'data-inside': String(!!row.inside_band) });
}

/**
 * @param {HTMLElement} summaryEl
 * @param {HTMLTableSectionElement} figuresBody
 * @param {HTMLElement} bandEl
 * @param {HTMLTableSectionElement} tbody
 * @param {AccuracyData | null} data  null when the build did not write it
 * @param {Unit} unit
 */
export function renderAccuracy(summaryEl, figuresBody, bandEl, tbody, data, unit) {
  if (!data || !Array.isArray(data.rows)) {
    summaryEl.textContent = t('acc_missing');
    figuresBody.replaceChildren();
    bandEl.textContent = '';
    tbody.replaceChildren();
    return;
  }
  summaryEl.textContent = summaryText(data);
  figuresBody.replaceChildren(...(Array.isArray(data.figures) ? data.figures : []).map((f) => el('tr', { 'data-testid': 'accuracy-figures-row' }, [
    el('th', { scope: 'row', text: groupName(String(f.group)) }),
    el('td', { class: 'num', text: String(f.cases) }),
    el('td', { class: 'num', text: String(f.misses) }),
    el('td', { class: 'num', text: percent(f.median_abs_error) }),
    el('td', { class: 'num', text: percent(f.p90_abs_error) }),
    el('td', { class: 'num', text: typeof f.median_signed_error === 'number' ? signed(f.median_signed_error) : '–' }),
  ])));
  bandEl.textContent = bandText(data.band);
  tbody.replaceChildren(...data.rows.map((row) => {
    const err = el('td', { class: typeof row.error === 'number' ? 'num' : '', text: errorText(row), 'data-testid': 'accuracy-error' });
    if (typeof row.error === 'number') err.setAttribute('data-value', String(row.error));
    return el('tr', { 'data-testid': 'accuracy-row', 'data-case': String(row.id) }, [
      el('th', { scope: 'row' }, [el('span', { text: String(row.id) }), el('small', { class: 'source', text: String(row.source || '') })]),
      el('td', { text: measureLabel(row.field) }),
      bytesCell(typeof row.measured_bytes === 'number' ? row.measured_bytes : null, unit),
      bytesCell(typeof row.predicted_bytes === 'number' ? row.predicted_bytes : null, unit),
      err,
      bandCell(row, unit),
    ]);
  }));
}

/**
 * The step-time table: the time accuracy program's rows (tests/accuracy/time_accuracy.cpp), seconds
 * per optimizer step measured (converted with the source's own FLOP definition) and predicted.
 * @param {HTMLElement} summaryEl
 * @param {HTMLTableSectionElement} tbody
 * @param {AccuracyData | null} data
 */
export function renderTimeAccuracy(summaryEl, tbody, data) {
  const time = data && data.time;
  if (!time || !Array.isArray(time.rows)) {
    summaryEl.textContent = t('acc_missing');
    tbody.replaceChildren();
    return;
  }
  summaryEl.textContent = timeSummaryText(time);
  tbody.replaceChildren(...time.rows.map((row) => {
    const err = el('td', { class: typeof row.error === 'number' ? 'num' : '', text: errorText(row), 'data-testid': 'time-accuracy-error' });
    if (typeof row.error === 'number') err.setAttribute('data-value', String(row.error));
    return el('tr', { 'data-testid': 'time-accuracy-row', 'data-case': String(row.id) }, [
      el('th', { scope: 'row' }, [el('span', { text: String(row.id) }), el('small', { class: 'source', text: String(row.source || '') })]),
      numCell(formatSeconds(row.measured_step_seconds)),
      numCell(formatSeconds(row.predicted_step_seconds)),
      numCell(formatPercent(row.mfu)),
      err,
    ]);
  }));
}
