// What the Pictures views draw, read from the estimate output (docs/api.md): the memory timeline
// of one training step (per_gpu.timeline), the per-pipeline-stage breakdown (pipeline_stages) or,
// with one stage, the forward layer by layer (the timeline's forward points), and the peak by
// component (per_gpu.peak_breakdown). Pure: no DOM, no Chart.js; every value is a field of the
// output, or the difference of two, in bytes (the views convert to the user's unit).
import { t } from './i18n.js';

/** @typedef {Record<string, any>} Output  the estimate output document */
/**
 * One point of per_gpu.timeline: bytes allocated and reserved by the caching allocator once the
 * phase (and layer) has run.
 * @typedef {{phase: string, layer?: number, allocated: number, reserved: number}} TimelinePoint
 */
/** @typedef {{labels: string[], allocated: number[], reserved: number[], capacity: number | null}} Timeline */
/**
 * Stacked bars: one bar per label, one array of bytes per component (keys), and a marker per bar.
 * @typedef {{kind: 'stages' | 'layers', labels: string[], keys: string[], values: Record<string, number[]>, marker: number[] | null}} Bars
 */
/** @typedef {{component: string, label: string, bytes: number}} Cell */

// The per-stage stack, bottom to top (pipeline_stages fields).
export const STAGE_STACK = ['parameters', 'gradients', 'optimizer_states', 'activations'];
// The per-layer stack (one pipeline stage): held once layer 1 has run, added by the layers since.
export const LAYER_STACK = ['layer_base', 'layer_growth'];
// The peak's components as per_gpu.peak_breakdown names them, in its order.
export const PEAK_COMPONENTS = ['parameters', 'gradients', 'optimizer_states', 'activations', 'temporary_buffers', 'allocator', 'cuda_context', 'userbuffers'];

/** @param {unknown} x */
const isBytes = (x) => typeof x === 'number' && Number.isFinite(x);

/**
 * A timeline point's name on the x axis: "load", "forward L3", "loss (forward)", "backward L3",
 * "optimizer step".
 * @param {TimelinePoint} p
 * @returns {string}
 */
export function pointLabel(p) {
  if (p.phase === 'forward' || p.phase === 'backward') return t('tl_' + p.phase, { k: String(p.layer) });
  return t('tl_' + p.phase);
}

/**
 * The timeline's points, or null when the engine gave none (no architecture: a parameter count).
 * @param {Output} out
 * @returns {TimelinePoint[] | null}
 */
export function timelinePoints(out) {
  const points = out.per_gpu && out.per_gpu.timeline;
  if (!Array.isArray(points) || points.length === 0) return null;
  return points.every((p) => p && typeof p.phase === 'string' && isBytes(p.allocated) && isBytes(p.reserved)) ? points : null;
}

/**
 * The timeline of one step: allocated and reserved bytes per point, and the device's capacity
 * (gpu_capacity_bytes, null without a GPU) as the line to stay under.
 * @param {Output} out
 * @returns {Timeline | null}
 */
export function timeline(out) {
  const points = timelinePoints(out);
  if (!points) return null;
  return {
    labels: points.map(pointLabel),
    allocated: points.map((p) => p.allocated),
    reserved: points.map((p) => p.reserved),
    capacity: isBytes(out.gpu_capacity_bytes) ? out.gpu_capacity_bytes : null,
  };
}

/**
 * A stage's name: "stage 0 (16 layers)"; `layers` is the stage's transformer block count (null
 * without an architecture).
 * @param {Record<string, any>} s
 * @returns {string}
 */
function stageLabel(s) {
  const layers = s.layers;
  if (typeof layers === 'number') return t(layers === 1 ? 'stage_layers_one' : 'stage_layers', { stage: String(s.stage), n: String(layers) });
  return t('stage', { stage: String(s.stage) });
}

/**
 * The per-stage breakdown: with pipeline parallelism, one bar per stage of pipeline_stages stacked
 * by STAGE_STACK with the stage's peak as the marker. With one stage that bar would repeat the
 * per-GPU breakdown; the view shows instead the forward layer by layer: at each layer's forward
 * point of the timeline, what was allocated once layer 1 had run (model states, buffers, the
 * activations kept before and by layer 1) and what the layers since have added (the point less
 * layer 1's point), so the last bar is the forward's peak and its upper part the share that grows
 * with depth. Null when the output has neither.
 * @param {Output} out
 * @returns {Bars | null}
 */
export function stageBars(out) {
  const stages = Array.isArray(out.pipeline_stages) ? out.pipeline_stages : [];
  if (stages.length > 1) {
    /** @type {Record<string, number[]>} */
    const values = {};
    for (const key of STAGE_STACK) values[key] = stages.map((s) => (isBytes(s[key]) ? s[key] : 0));
    return { kind: 'stages', labels: stages.map(stageLabel), keys: STAGE_STACK, values, marker: stages.every((s) => isBytes(s.peak)) ? stages.map((s) => s.peak) : null };
  }
  const forward = (timelinePoints(out) || []).filter((p) => p.phase === 'forward');
  if (forward.length === 0) return null;
  const first = forward[0].allocated;
  return {
    kind: 'layers',
    labels: forward.map((p) => t('layer', { k: String(p.layer) })),
    keys: LAYER_STACK,
    values: { layer_base: forward.map(() => first), layer_growth: forward.map((p) => p.allocated - first) },
    marker: null,
  };
}

/**
 * The peak by component (per_gpu.peak_breakdown), largest first, components of zero bytes left
 * out; the cells add up to per_gpu.peak. Null when the engine gave no breakdown.
 * @param {Output} out
 * @returns {Cell[] | null}
 */
export function peakCells(out) {
  const parts = out.per_gpu && out.per_gpu.peak_breakdown;
  if (!Array.isArray(parts) || parts.length === 0) return null;
  return parts.filter((p) => p && isBytes(p.bytes) && p.bytes > 0)
    .map((p) => ({ component: String(p.component), label: t('pb_' + p.component), bytes: p.bytes }))
    .sort((a, b) => b.bytes - a.bytes);
}
