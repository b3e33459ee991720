// The estimate's output document as tables: the breakdown with the engine's explanation of each
// component, the device view, the phases, parameters and batch, a vision-language model's vision
// side, RLHF models, host memory, the
// checkpoint disk budget, step time and cost, warnings. Every number shown is a field of the output (or the
// difference of two).
import { t } from './i18n.js';
import { formatBytes, formatCount, formatMoney, formatPercent, formatScientific, formatSeconds, yesNo } from './format.js';
import { el, bytesCell, fillTable, numCell } from './dom.js';
import { messageAfterField, messageText } from './messages.js';

/** @typedef {import('./format.js').Unit} Unit */
/** @typedef {Record<string, any>} EstimateOutput  the estimate output document (docs/api.md) */

// Breakdown rows in order; subtotal rows are the engine's own sums.
/** @type {[string, string?][]} */
export const BREAKDOWN = [
  ['parameters'], ['gradients'], ['optimizer_states'], ['model_states', 'subtotal'], ['activations'],
  ['temporary_buffers'], ['peak_allocated', 'subtotal'], ['fragmentation'], ['peak_reserved', 'subtotal'],
  ['cuda_context'], ['userbuffers'], ['peak', 'total'],
];
// Components an estimate may lack (null): Megatron's userbuffers exist only under --tp-comm-overlap.
// Their rows are shown only where given; compared, an absent one is 0 bytes.
export const OPTIONAL_COMPONENTS = new Set(['userbuffers']);

/**
 * The breakdown rows this estimate has, in order.
 * @param {Record<string, any>} g  the estimate's per_gpu
 */
export function breakdownRows(g) {
  return BREAKDOWN.filter(([key]) => !OPTIONAL_COMPONENTS.has(key) || (g[key] !== null && g[key] !== undefined));
}

/**
 * A component's row, then the engine's explanation of it (formula with this setup's numbers, source).
 * @param {string} key
 * @param {unknown} bytes
 * @param {Unit} unit
 * @param {string | undefined} cls
 * @param {{component: string, formula: string, source: string}[]} explanations
 */
function componentRows(key, bytes, unit, cls, explanations) {
  const rows = [el('tr', { class: cls || '' }, [el('th', { scope: 'row', text: t('c_' + key) }), bytesCell(bytes, unit, 'b-' + key)])];
  const x = explanations.find((e) => e.component === key);
  if (x) {
    rows.push(el('tr', { class: 'explain' }, [el('td', { colSpan: 2, 'data-testid': 'explain-' + key },
      [el('span', { text: x.formula }), el('small', { class: 'source', text: x.source })])]));
  }
  return rows;
}

/**
 * @param {HTMLTableSectionElement} tbody
 * @param {EstimateOutput} out
 * @param {Unit} unit
 */
export function renderBreakdown(tbody, out, unit) {
  const g = out.per_gpu;
  const rows = breakdownRows(g).flatMap(([key, cls]) => {
    const own = componentRows(key, g[key], unit, cls, out.explanations);
    if (key !== 'activations' || !out.multimodal) return own;
    // A vision-language model: the vision side's share of the activations (multimodal.activations).
    const parts = out.multimodal.activations;
    return [...own, ...['vision_tower', 'projector'].map((part) => el('tr', { class: 'part' },
      [el('th', { scope: 'row', text: t('c_' + part) }), bytesCell(parts[part], unit, 'b-' + part)]))];
  });
  for (const key of ['paged_device_resident', 'paged_host_resident']) {
    if (g[key] !== null && g[key] !== undefined) rows.push(...componentRows(key, g[key], unit, '', out.explanations));
  }
  tbody.replaceChildren(...rows);
}

/**
 * @param {HTMLTableSectionElement} tbody
 * @param {EstimateOutput} out
 * @param {Unit} unit
 * @param {number | null} deviceTotal  nvidia-smi's total for the chosen GPU (catalog) or the custom device's memory_bytes
 */
export function renderDevice(tbody, out, unit, deviceTotal) {
  const g = out.per_gpu;
  fillTable(tbody, [
    [t('c_peak_allocated'), bytesCell(g.peak_allocated, unit, 'd-peak_allocated')],
    [t('c_peak_reserved'), bytesCell(g.peak_reserved, unit, 'd-peak_reserved')],
    [t('c_peak'), bytesCell(g.peak, unit, 'd-peak')],
    [t('d_capacity'), bytesCell(out.gpu_capacity_bytes, unit, 'd-capacity')],
    [t('d_device_total'), bytesCell(deviceTotal, unit, 'd-device_total')],
  ]);
}

/**
 * @param {HTMLTableSectionElement} tbody
 * @param {EstimateOutput} out
 * @param {Unit} unit
 */
export function renderPhases(tbody, out, unit) {
  const phases = out.per_gpu.phases;
  if (!phases) {
    // An RLHF job names only its largest phase (policy training, rollout, a model's scoring).
    const peak = out.per_gpu.peak_phase;
    fillTable(tbody, peak ? [[t('ph_' + peak) + ' (' + t('peak_mark') + ')', bytesCell(out.per_gpu.peak_allocated, unit, 'ph-' + peak), 'subtotal']]
      : [[t('unknown'), '—']]);
    return;
  }
  fillTable(tbody, Object.keys(phases).map((p) => {
    const label = t('ph_' + p) + (out.per_gpu.peak_phase === p ? ' (' + t('peak_mark') + ')' : '');
    return [label, bytesCell(phases[p], unit, 'ph-' + p), out.per_gpu.peak_phase === p ? 'subtotal' : ''];
  }));
}

/**
 * @param {HTMLTableSectionElement} tbody
 * @param {EstimateOutput} out
 */
export function renderFacts(tbody, out) {
  const p = out.parameters;
  /** @type {[string, HTMLElement | string, string?][]} */
  const rows = [
    [t('f_total'), formatCount(p.total)],
    [t('f_trainable'), el('td', { class: 'num', text: formatCount(p.trainable), 'data-testid': 'trainable' })],
    [t('f_active'), formatCount(p.active)],
  ];
  if (p.adapter !== undefined) rows.push([t('f_adapter'), formatCount(p.adapter)]);
  const b = out.bytes_per_param;
  rows.push(
    [t('f_global_batch'), el('td', { class: 'num', text: formatCount(out.global_batch_size), 'data-testid': 'global-batch-size' })],
    [t('f_dp'), formatCount(out.data_parallel_size)],
    [t('f_bytes_per_param'), [b.param, b.grad, b.optimizer].map((x) => formatCount(x)).join(' / ')],
    [t('f_precision'), el('td', { text: Object.entries(out.precision).map(([k, v]) => k + ' ' + v).join(', ') })],
  );
  fillTable(tbody, rows);
}

/**
 * A vision-language model's vision side (multimodal): the parameters of each part and whether it
 * trains, the image size priced, the image tokens the language model sees, what the encoder runs,
 * and the activations it keeps. Hidden for a model without a vision tower.
 * @param {HTMLElement} box
 * @param {HTMLTableSectionElement} tbody
 * @param {EstimateOutput} out
 * @param {Unit} unit
 */
export function renderVision(box, tbody, out, unit) {
  const m = out.multimodal;
  box.hidden = !m;
  if (!m) return;
  /** @param {number} n @param {string} state @param {string} testid */
  const part = (n, state, testid) => numCell(formatCount(n) + ' (' + t('v_' + state) + ')', testid, n);
  /** @param {number[]} s */
  const size = (s) => s[0] + ' × ' + s[1];
  /** @type {[string, HTMLElement | string, string?][]} */
  const rows = [
    [t('v_model_type'), el('td', { text: m.vision_model_type })],
    [t('v_language_model'), numCell(formatCount(m.parameters.language_model), 'v-language-model', m.parameters.language_model)],
    [t('v_tower'), part(m.parameters.vision_tower, m.trainable.vision_tower, 'v-tower')],
    [t('v_projector'), part(m.parameters.projector, m.trainable.projector, 'v-projector')],
    [t('v_image_size'), numCell(size(m.image_size) + ' → ' + size(m.processed_image_size), 'v-image-size')],
    [t('v_images_per_sample'), numCell(formatCount(m.images_per_sample), 'v-images', m.images_per_sample)],
    [t('v_tokens_per_image'), numCell(formatCount(m.image_tokens_per_image), 'v-tokens-image', m.image_tokens_per_image)],
    [t('v_tokens_per_sample'), numCell(formatCount(m.image_tokens_per_sample), 'v-tokens-sample', m.image_tokens_per_sample), 'subtotal'],
    [t('v_encoder'), numCell(formatCount(m.encoder_sequences_per_image) + ' × ' + formatCount(m.encoder_positions_per_sequence), 'v-encoder')],
  ];
  if (m.cross_attention_states_per_image > 0) rows.push([t('v_cross_states'), formatCount(m.cross_attention_states_per_image)]);
  rows.push([t('v_act_tower'), bytesCell(m.activations.vision_tower, unit, 'v-act-tower')],
    [t('v_act_projector'), bytesCell(m.activations.projector, unit, 'v-act-projector')]);
  fillTable(tbody, rows);
}

/**
 * @param {HTMLTableSectionElement} tbody
 * @param {EstimateOutput} out
 * @param {Unit} unit
 */
export function renderHost(tbody, out, unit) {
  fillTable(tbody, [
    [t('h_cpu'), bytesCell(out.cpu_bytes_per_node, unit, 'h-cpu')],
    [t('h_cpu_fits'), yesNo(out.cpu_ram_fits)],
    [t('h_nvme'), bytesCell(out.nvme_bytes, unit, 'h-nvme')],
  ]);
}

/**
 * @param {HTMLTableSectionElement} tbody
 * @param {EstimateOutput} out
 * @param {Unit} unit
 */
export function renderDisk(tbody, out, unit) {
  const c = out.checkpoint;
  fillTable(tbody, [
    [t('k_training_state'), bytesCell(c.training_state_bytes, unit, 'k-training_state')],
    [t('k_largest_rank'), bytesCell(c.largest_rank_bytes, unit)],
    [t('k_inference_weights'), bytesCell(c.inference_weights_bytes, unit)],
    [t('k_adapter'), bytesCell(c.adapter_bytes, unit)],
    [t('k_per_checkpoint'), bytesCell(c.bytes_per_checkpoint, unit, 'k-per_checkpoint')],
    [t('k_keep_last'), bytesCell(c.keep_last_bytes, unit)],
    [t('k_fit_count'), c.checkpoints_that_fit === null ? t('unknown') : formatCount(c.checkpoints_that_fit)],
  ]);
}

/**
 * An RLHF model's role in words (policy, reference, reward, critic); an unknown one as given.
 * @param {string} role
 */
function roleName(role) {
  const key = 'rlhf_role_' + role;
  const text = t(key);
  return text === key ? role : text;
}

/**
 * RLHF: the same breakdown per model, plus the rollout KV cache. Hidden when there is none.
 * @param {HTMLElement} box
 * @param {HTMLTableElement} table
 * @param {EstimateOutput} out
 * @param {Unit} unit
 */
export function renderRlhf(box, table, out, unit) {
  const models = out.per_gpu_models;
  box.hidden = !models;
  if (!models) return;
  const cols = ['parameters', 'gradients', 'optimizer_states', 'model_states', 'activations', 'transient'];
  const head = el('tr', {}, [el('th', { scope: 'col', text: t('role') }),
    ...cols.map((c) => el('th', { scope: 'col', class: 'num', text: c === 'transient' ? t('transient') : t('c_' + c) }))]);
  /** @type {HTMLTableSectionElement} */ (table.tHead).replaceChildren(head);
  const rows = Object.entries(models).map(([role, m]) =>
    el('tr', {}, [el('th', { scope: 'row', 'data-role': role, text: roleName(role) }), ...cols.map((c) => bytesCell(/** @type {any} */ (m)[c], unit))]));
  if (out.rollout_kv_cache_bytes !== null && out.rollout_kv_cache_bytes !== undefined) {
    rows.push(el('tr', {}, [el('th', { scope: 'row', text: t('rollout_kv') }), bytesCell(out.rollout_kv_cache_bytes, unit, 'rollout-kv'),
      ...cols.slice(1).map(() => el('td'))]));
  }
  if (out.rollout_vllm_bytes !== null && out.rollout_vllm_bytes !== undefined) {
    rows.push(el('tr', {}, [el('th', { scope: 'row', text: t('rollout_vllm') }), bytesCell(out.rollout_vllm_bytes, unit, 'rollout-vllm'),
      ...cols.slice(1).map(() => el('td'))]));
  }
  table.tBodies[0].replaceChildren(...rows);
}

// Communication kinds of time.communication, in the engine's order.
export const COMMUNICATION = ['data_parallel', 'tensor_parallel', 'pipeline', 'context', 'expert'];

/**
 * The step time block (time): seconds per step, throughput, MFU/HFU, FLOPs, communication per kind
 * (bus bytes per GPU and link time), and the run's time, GPU-hours and cost. Without a time (no
 * architecture, a GPU without speeds, RLHF) one row gives the engine's reason.
 * @param {HTMLTableSectionElement} tbody
 * @param {EstimateOutput} out
 * @param {Unit} unit
 */
export function renderTime(tbody, out, unit) {
  const time = out.time;
  if (!time) {
    const why = out.warnings.find((/** @type {{code: string}} */ w) => w.code === 'time_unavailable');
    fillTable(tbody, [[t('time_unavailable'), el('td', { text: why ? messageText(why) : t('fit_unknown'), 'data-testid': 't-unavailable' })]]);
    return;
  }
  const comm = time.communication;
  /** @type {[string, HTMLElement | string, string?][]} */
  const rows = [
    [t('t_step'), numCell(formatSeconds(time.step_seconds), 't-step', time.step_seconds), 'subtotal'],
    [t('t_tokens'), numCell(formatCount(Math.round(time.tokens_per_second_per_gpu)), 't-tokens', time.tokens_per_second_per_gpu)],
    [t('t_mfu'), numCell(formatPercent(time.mfu), 't-mfu', time.mfu)],
    [t('t_hfu'), numCell(formatPercent(time.hfu), 't-hfu', time.hfu)],
    [t('t_flops'), formatScientific(time.flops_per_step)],
    [t('t_model_flops'), formatScientific(time.model_flops_per_step)],
    ...COMMUNICATION.map((k) => /** @type {[string, HTMLElement]} */ ([t('t_comm', { kind: t('comm_' + k) }),
      numCell(formatBytes(comm.bytes_per_step[k], unit) + ' · ' + formatSeconds(comm.seconds_per_step[k]), 't-comm-' + k, comm.bytes_per_step[k])])),
    [t('t_exposed'), numCell(formatSeconds(comm.exposed_seconds), 't-exposed', comm.exposed_seconds)],
    [t('t_to_train'), numCell(formatSeconds(time.time_to_train_seconds), 't-to-train', time.time_to_train_seconds)],
    [t('t_gpu_hours'), formatCount(time.gpu_hours === null ? null : Math.round(time.gpu_hours))],
  ];
  const cost = time.cost;
  rows.push([t('t_cost'), el('td', { class: 'num', 'data-testid': 't-cost' }, cost
    ? ['$' + formatMoney(cost.usd) + ' ($' + formatMoney(cost.price_per_gpu_hour_usd) + t('per_gpu_hour') + ') ',
       el('small', { class: 'source', text: cost.source })]
    : [time.gpu_hours === null ? t('t_needs_tokens') : t('t_needs_price')])]);
  fillTable(tbody, rows);
}

/**
 * @param {HTMLElement} list
 * @param {EstimateOutput} out
 */
export function renderWarnings(list, out) {
  const items = out.warnings.map((/** @type {{code: string, message: string}} */ w) =>
    el('li', { 'data-code': w.code }, [el('code', { text: w.code }), el('span', { class: 'message', text: ' ' + messageText(w) })]));
  list.replaceChildren(...(items.length ? items : [el('li', { class: 'note', text: t('none_found') })]));
}

/**
 * Catalog entries the engine rejected at load ({code, field, message, params}): named in a notice, in
 * the page's language (messages.js); the page works with the valid entries.
 * @param {HTMLElement} box
 * @param {HTMLElement} list
 * @param {import("./messages.js").EngineMessage[]} errors
 */
export function renderCatalogErrors(box, list, errors) {
  box.hidden = errors.length === 0;
  list.replaceChildren(...errors.map((e) => el('li', { 'data-code': String(e.code) },
    [el('code', { text: String(e.field || e.code) }), document.createTextNode(' ' + messageAfterField(e))])));
}
