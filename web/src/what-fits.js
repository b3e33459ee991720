// The "What fits?" panel: the engine's solve (an estimate document plus a "solve" object, see the
// README's "Inverse queries") for the current inputs, shown as answers (largest micro-batch, longest
// sequence, fewest GPUs, cheapest GPU, global batch plan) with the calibrated answers beside the
// analytic ones, the reasons a question has no answer, and the ranked strategy list whose rows load
// a strategy into the inputs. Every number shown is a field of solve's output (or the difference of
// two). request() and strategyDoc() are pure (Node tests).
import { t } from './i18n.js';
import { messageText } from './messages.js';
import { formatBytes, formatCount, formatMoney, formatPercent, formatSeconds, signedCount, signedPercent, signedBytes } from './format.js';
import { el, bytesCell, numCell } from './dom.js';
import { clone } from './doc-paths.js';

/** @typedef {import('./format.js').Unit} Unit */
/** @typedef {import('./doc-paths.js').Doc} Doc */
/** @typedef {Record<string, any>} SolveOutput  solve's output document (docs/api.md) */
/** @typedef {Record<string, any>} RankedStrategy  one of solve's strategies.ranked */
/** @typedef {import('./messages.js').EngineMessage} EngineMessage */

export const STRATEGY_LIMIT = 10;  // ranked strategies shown
export const MAX_GPUS = 4096;      // the fewest-GPU searches look this far

/**
 * The solve document for an estimate document and the panel's options (the state's "solve"
 * object), with or without the strategy search.
 * @param {Doc} doc
 * @param {Doc | undefined} options
 * @param {boolean} withStrategies
 * @returns {Doc}
 */
export function request(doc, options, withStrategies) {
  const solve = clone(options || {});
  solve.max_gpus = MAX_GPUS;
  if (withStrategies) solve.strategies = { ...(solve.strategies || {}), limit: STRATEGY_LIMIT };
  else delete solve.strategies;
  return { ...clone(doc), solve };
}

/**
 * The estimate document with a ranked strategy loaded: the settings the strategy search changes
 * (apply_candidate in engine/src/strategy_search.cpp) from the row's fields, everything else kept.
 * The world size is the row's data x tensor x pipeline x context split.
 * @param {Doc} doc
 * @param {RankedStrategy} row
 * @returns {Doc}
 */
export function strategyDoc(doc, row) {
  const d = clone(doc);
  const p = { ...(d.parallel || {}) };
  p.world_size = row.data_parallel_size * row.tensor_parallel_size * row.pipeline_parallel_size * row.context_parallel_size;
  delete p.data_parallel_size;
  delete p.sharding_group_size;
  p.tensor_parallel_size = row.tensor_parallel_size;
  p.pipeline_parallel_size = row.pipeline_parallel_size;
  p.context_parallel_size = row.context_parallel_size;
  if (row.context_parallel_size > 1) p.context_parallel_kind = row.context_parallel_kind;
  p.sequence_parallel = row.sequence_parallel;
  if (p.tp_comm_overlap !== undefined) p.tp_comm_overlap = row.tp_comm_overlap;
  if (Array.isArray(row.pipeline_layers)) p.pipeline_layers = row.pipeline_layers;
  else delete p.pipeline_layers;
  p.zero_stage = row.zero_stage;
  p.offload_optimizer = row.offload_optimizer;
  p.offload_param = row.offload_param;
  if (p.virtual_pipeline_stages !== undefined) p.virtual_pipeline_stages = 1;
  if (p.pipeline_schedule === 'interleaved_1f1b') p.pipeline_schedule = '1f1b';
  d.parallel = p;
  d.activation_checkpointing = row.activation_checkpointing;
  d.batch = { ...(d.batch || {}), micro_batch_size: row.micro_batch_size, gradient_accumulation_steps: row.gradient_accumulation_steps };
  return d;
}

/**
 * "8 (peak 71.20 GiB)" for a fit point, "8 (peak 71.20 GiB, borderline)" when its band reaches past
 * the GPU, "none" without one.
 * @param {{value: number, peak: number, verdict?: string | null} | null} p
 * @param {Unit} unit
 */
const fitText = (p, unit) => (p ? formatCount(p.value) + ' (' + t(p.verdict === 'borderline' ? 'peak_is_borderline' : 'peak_is',
  { bytes: formatBytes(p.peak, unit) }) + ')' : t('no_answer'));
/**
 * The fewest-GPUs answer, with the count whose whole band fits when the fewest is borderline.
 * @param {SolveOutput} out
 * @param {Unit} unit
 */
const minGpusAnswer = (out, unit) => {
  const p = out.min_gpus, clear = out.min_gpus_whole_band;
  const text = fitText(p, unit);
  if (!p || p.verdict !== 'borderline') return text;
  return text + (clear ? t('whole_band_from', { n: formatCount(clear.value) }) : t('whole_band_none', { max: formatCount(MAX_GPUS) }));
};
/** @param {number} x */
const usd = (x) => '$' + formatMoney(x);
/**
 * A strategy's headroom, marked when the engine judges the strategy borderline (its band reaches
 * past the GPU although its point estimate fits the budget).
 * @param {RankedStrategy} r
 * @param {Unit} unit
 */
const headroomCell = (r, unit) => {
  const td = bytesCell(r.headroom, unit, 'strategy-headroom');
  td.setAttribute('data-verdict', r.verdict || '');
  if (r.verdict === 'borderline') {
    td.classList.add('warn');
    td.title = t('strategy_borderline');
  }
  return td;
};

/**
 * The answers table: question | answer | calibrated | calibrated − answer (the last two only with a
 * calibration, and only for the questions it answers).
 * @param {HTMLTableElement} table
 * @param {SolveOutput} out
 * @param {Unit} unit
 * @param {(id: string) => string} gpuName
 */
export function renderAnswers(table, out, unit, gpuName) {
  const c = out.calibrated;
  table.classList.toggle('no-calibration', !c);
  /** @param {unknown} a @param {unknown} b */
  const diff = (a, b) => (typeof a === 'number' && typeof b === 'number' ? signedCount(b - a) : '—');
  /** @param {string} label @param {HTMLTableCellElement} answer @param {HTMLTableCellElement[] | null} [calibrated] */
  const row = (label, answer, calibrated) => {
    if (!c || !calibrated) answer.colSpan = c ? 3 : 1;
    return el('tr', {}, [el('th', { scope: 'row', text: label }), answer, ...(c && calibrated ? calibrated : [])]);
  };
  /** @param {string} key @param {{value: number} | null} analytic */
  const calibratedCells = (key, analytic) => [
    numCell(c[key] === null ? t('no_answer') : formatCount(c[key]), 'c-' + key, c[key]),
    numCell(diff(analytic && analytic.value, c[key]), 'd-' + key)];
  const mbs = out.max_micro_batch_size;
  const seq = out.max_seq_length;
  const rows = [
    row(t('q_max_micro_batch'), numCell(fitText(mbs, unit), 'a-max_micro_batch_size', mbs && mbs.value), c && calibratedCells('max_micro_batch_size', mbs)),
    row(t('q_max_seq_length'), numCell(fitText(seq, unit), 'a-max_seq_length', seq && seq.value), c && calibratedCells('max_seq_length', seq)),
    row(t('q_min_gpus'), numCell(minGpusAnswer(out, unit), 'a-min_gpus', out.min_gpus && out.min_gpus.value)),
  ];
  const cheap = out.cheapest;
  rows.push(row(t('q_cheapest'), numCell(cheap ? t(cheap.verdict === 'borderline' ? 'cheapest_is_borderline' : 'cheapest_is', { gpu: gpuName(cheap.gpu), n: formatCount(cheap.gpus), cost: usd(cheap.cost_per_hour) })
    : t('no_cheapest'), 'a-cheapest', cheap && cheap.gpu)));
  const perToken = out.cheapest_per_token;
  rows.push(row(t('q_cheapest_per_token'), numCell(perToken ? t(perToken.verdict === 'borderline' ? 'per_token_is_borderline' : 'per_token_is', {
    gpu: gpuName(perToken.gpu), n: formatCount(perToken.gpus), cost: usd(perToken.usd_per_million_tokens), hour: usd(perToken.cost_per_hour) })
    // No priced GPU fits at all: the same answer as the cheapest per hour, not a missing step time.
    : t(cheap ? 'no_per_token' : 'no_cheapest'), 'a-cheapest_per_token', perToken && perToken.gpu)));
  const plan = out.global_batch;
  rows.push(row(t('q_global_batch'), numCell(plan ? t(plan.exact ? 'plan_exact' : 'plan_nearest', { m: formatCount(plan.micro_batch_size),
    ga: formatCount(plan.gradient_accumulation_steps), n: formatCount(plan.global_batch_size) }) : t('plan_none'), 'a-global_batch',
  plan && plan.gradient_accumulation_steps)));
  rows.push(row(t('q_budget'), numCell(formatBytes(out.budget_bytes, unit), 'a-budget', out.budget_bytes)));
  table.tBodies[0].replaceChildren(...rows);
}

/**
 * The fitted parts beside the analytic ones, and the measured peak against the analytic estimate
 * at the (first) measured point, in the measurement's terms.
 * @param {HTMLElement} box
 * @param {HTMLTableSectionElement} tbody
 * @param {SolveOutput} out
 * @param {Unit} unit
 * @param {number | undefined} measuredBytes  that point's input
 */
export function renderCalibration(box, tbody, out, unit, measuredBytes) {
  const c = out.calibrated;
  box.hidden = !c;
  if (!c) return;
  /** @param {number | null} b  null: no fit */
  const perToken = (b) => (b === null ? '—' : formatCount(Math.round(b)) + ' ' + t('bytes_per_token'));
  /** @param {string} label @param {string} calibrated @param {string} analytic @param {string} difference @param {string} testid */
  const line = (label, calibrated, analytic, difference, testid) => el('tr', {}, [el('th', { scope: 'row', text: label }),
    numCell(calibrated), numCell(analytic), numCell(difference, testid)]);
  tbody.replaceChildren(
    line(t('cal_at_measurement'), formatBytes(measuredBytes, unit), formatBytes(c.analytic_at_measurement, unit), signedPercent(c.relative_difference), 'cal-difference'),
    line(t('cal_fixed'), formatBytes(c.fixed_bytes, unit), formatBytes(c.analytic_fixed_bytes, unit),
      c.fixed_bytes === null ? '—' : signedBytes(c.fixed_bytes - c.analytic_fixed_bytes, unit), 'cal-fixed'),
    line(t('cal_per_token'), perToken(c.bytes_per_token), perToken(c.analytic_bytes_per_token),
      c.bytes_per_token === null ? '—' : (c.bytes_per_token >= c.analytic_bytes_per_token ? '+' : '−') + perToken(Math.abs(c.bytes_per_token - c.analytic_bytes_per_token)), 'cal-per-token'),
  );
}

/**
 * Why a question has no answer: the engine's reasons, in the page's language (messages.js).
 * @param {HTMLElement} list
 * @param {SolveOutput} out
 */
export function renderReasons(list, out) {
  const reasons = [...out.reason_messages];
  if (out.strategies) reasons.push(...out.strategies.reason_messages);
  list.replaceChildren(...reasons.map((r) => el('li', { text: messageText(r), 'data-testid': 'solve-reason', 'data-code': r.code })));
}

const STRATEGY_COLUMNS = ['st_layout', 'st_zero', 'st_ckpt', 'st_offload', 'st_mbs', 'st_peak', 'st_headroom', 'st_step',
  'st_throughput', 'st_mfu', 'st_exposed', 'st_per_dollar'];

/**
 * The ranked strategies, best first, each with the engine's explanation and a button that loads it.
 * @param {HTMLTableElement} table
 * @param {HTMLElement} summary
 * @param {SolveOutput} out
 * @param {Unit} unit
 * @param {number} elapsedMs  how long the solve took in this page
 * @param {(row: RankedStrategy) => void} onLoad
 */
export function renderStrategies(table, summary, out, unit, elapsedMs, onLoad) {
  const s = out.strategies;
  /** @type {HTMLTableSectionElement} */ (table.tHead).replaceChildren(el('tr', {}, [el('th', { scope: 'col', text: '#' }),
    ...STRATEGY_COLUMNS.map((k) => el('th', { scope: 'col', text: t(k) })), el('th', { scope: 'col', text: t('st_action') })]));
  if (!s) {
    summary.textContent = '';
    table.tBodies[0].replaceChildren();
    return;
  }
  summary.textContent = t('st_summary', { candidates: formatCount(s.candidates), feasible: formatCount(s.feasible),
    estimates: formatCount(s.estimates), ms: formatCount(Math.round(elapsedMs)) });
  const rows = s.ranked.flatMap((/** @type {RankedStrategy} */ r, /** @type {number} */ i) => {
    const button = el('button', { type: 'button', text: t('st_load'), 'data-testid': 'load-strategy' });
    button.setAttribute('aria-label', t('st_load_label', { n: i + 1 }));
    button.addEventListener('click', (e) => {
      e.stopPropagation();
      onLoad(r);
    });
    const main = el('tr', { class: 'strategy', 'data-testid': 'strategy' }, [
      el('th', { scope: 'row', text: String(i + 1) }),
      el('td', { text: [r.data_parallel_size, r.tensor_parallel_size, r.pipeline_parallel_size, r.context_parallel_size].join(' × ') }),
      el('td', { text: String(r.zero_stage) }),
      el('td', { text: r.activation_checkpointing === 'none' ? t('none') : t('ckpt_' + r.activation_checkpointing) }),
      el('td', { text: r.offload_optimizer === 'none' ? t('none') : 'CPU' }),
      numCell(formatCount(r.micro_batch_size) + ' × ' + formatCount(r.gradient_accumulation_steps), 'strategy-batch'),
      bytesCell(r.peak, unit, 'strategy-peak'),
      headroomCell(r, unit),
      numCell(formatSeconds(r.step_time_s), 'strategy-step', r.step_time_s),
      numCell(r.tokens_per_gpu_per_s === null ? '—' : formatCount(Math.round(r.tokens_per_gpu_per_s)), 'strategy-throughput', r.tokens_per_gpu_per_s),
      numCell(formatPercent(r.mfu), 'strategy-mfu', r.mfu),
      numCell(formatSeconds(r.exposed_communication_s)),
      numCell(r.tokens_per_dollar === null ? '—' : formatCount(Math.round(r.tokens_per_dollar))),
      el('td', {}, [button]),
    ]);
    main.addEventListener('click', () => onLoad(r));
    // Worded from its params in both languages, so that its sizes are in the page's unit.
    const explanation = messageText({ code: r.explanation_message.code, params: r.explanation_message.params }, undefined, unit);
    const said = r.verdict === 'borderline' ? t('strategy_borderline') + ' ' + explanation : explanation;
    const why = el('tr', { class: 'explain' }, [el('td', { colSpan: STRATEGY_COLUMNS.length + 2, text: said, 'data-testid': 'strategy-explanation' })]);
    return [main, why];
  });
  if (rows.length === 0) {
    // An empty table says why: the engine's reasons, or that no strategy fit the budget.
    const reasons = s.reason_messages.length ? s.reason_messages.map((/** @type {EngineMessage} */ m) => messageText(m)).join('; ') : t('st_none_reason');
    rows.push(el('tr', { class: 'explain' }, [el('td', { colSpan: STRATEGY_COLUMNS.length + 2, text: t('st_none', { reasons }),
      'data-testid': 'strategy-none' })]));
  }
  table.tBodies[0].replaceChildren(...rows);
}
