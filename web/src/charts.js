// The page's charts (Chart.js, loaded on first use): the stacked bar of the per-GPU peak by
// component (current and pinned configurations), beside it the stacked bar of the step time by part
// (compute, recompute, exposed communication, pipeline bubble, optimizer, offload), and the What
// fits? curves, the peak against
// sequence length and against micro-batch with the GPU's capacity and the budget (capacity less the
// safety margin) as lines. Every value drawn is a field of the engine's output.
import { t } from './i18n.js';
import { formatCount, formatSeconds, UNIT_BYTES } from './format.js';
import { loadChunk } from './chunks.js';
import { afterPaint } from './after-paint.js';

/** @typedef {import('./format.js').Unit} Unit */
/** @typedef {{fg: string, grid: string}} Colors */
/** @typedef {(Chart: any, chart: any, canvas: HTMLCanvasElement) => any} Draw  makes or updates a chart */

// The stack, bottom to top: what is alive at the peak (per_gpu.peak_breakdown's eight components,
// which add up to per_gpu.peak). Components peak at different moments (gradients are freed before
// the forward that holds the most activations), so their own maxima would add up to more.
const STACK = ['parameters', 'gradients', 'optimizer_states', 'activations', 'temporary_buffers', 'allocator', 'cuda_context', 'userbuffers'];
const COLORS = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#b07aa1', '#9c755f', '#edc948'];
const PEAK_COLOR = '#4e79a7';
const CAPACITY_COLOR = '#e15759';
const BUDGET_COLOR = '#f28e2b';

/**
 * The theme's text and line colours (read once per theme: reading styles is slow).
 * @returns {Colors}
 */
export function themeColors() {
  const style = getComputedStyle(document.documentElement);
  return { fg: style.getPropertyValue('--fg').trim() || '#222', grid: style.getPropertyValue('--line').trim() || '#ddd' };
}

/**
 * A chart on a canvas, drawn once Chart.js has loaded and the frame that shows the numbers it goes
 * with has been painted (a chart costs several ms to draw); only the latest drawing is made.
 */
export class LazyChart {
  /** @param {HTMLCanvasElement} canvas */
  constructor(canvas) {
    this.canvas = canvas;
    /** @type {any} the Chart.js chart, once made */
    this.chart = null;
    /** @type {Draw | null} */
    this.latest = null;
  }

  /**
   * Draws (or updates) the chart; resolves once drawn, or once a newer drawing took its place.
   * @param {Draw} draw
   * @returns {Promise<void>}
   */
  async draw(draw) {
    this.latest = draw;
    const [{ Chart }] = await Promise.all([loadChunk('charts'), afterPaint()]);
    if (this.latest !== draw) return;
    this.chart = draw(Chart, this.chart, this.canvas);
  }
}

/**
 * A horizontal stacked bar chart: one bar per label, one segment per dataset, the x axis titled.
 * @param {{labels: string[], datasets: Record<string, any>[], axis: string, format: (x: number) => string}} bars
 * @param {Colors} colors
 * @returns {Draw}
 */
function stackedBars({ labels, datasets, axis, format }, { fg, grid }) {
  return (Chart, chart, canvas) => {
    const data = { labels, datasets };
    if (chart) {
      chart.data = data;
      chart.options.scales.x.title.text = axis;
      chart.options.scales.x.ticks.color = chart.options.scales.y.ticks.color = chart.options.plugins.legend.labels.color = fg;
      chart.options.scales.x.grid.color = grid;
      chart.update('none');
      return chart;
    }
    return new Chart(canvas, {
      type: 'bar',
      data,
      options: {
        indexAxis: 'y',
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: {
          x: { stacked: true, title: { display: true, text: axis, color: fg }, ticks: { color: fg }, grid: { color: grid } },
          y: { stacked: true, ticks: { color: fg }, grid: { display: false } },
        },
        plugins: {
          legend: { position: 'bottom', labels: { color: fg, boxWidth: 12 } },
          tooltip: { callbacks: { label: (/** @type {any} */ ctx) => ctx.dataset.label + ': ' + format(ctx.parsed.x) } },
        },
      },
    });
  };
}

/**
 * A component's bytes alive at the peak (per_gpu.peak_breakdown); without a breakdown (a parameter
 * count alone, RLHF), the component's own figure, which per_gpu.peak then adds up from.
 * @param {Record<string, any>} out
 * @param {string} key
 * @returns {number}
 */
function atPeak(out, key) {
  const parts = out.per_gpu.peak_breakdown;
  if (Array.isArray(parts)) {
    const part = parts.find((p) => p && p.component === key);
    return part && typeof part.bytes === 'number' ? part.bytes : 0;
  }
  return out.per_gpu[key === 'allocator' ? 'fragmentation' : key] || 0;
}

/**
 * The memory chart: one bar per configuration (current, then pinned), one stack segment per component.
 * @param {{label: string, out: Record<string, any>}[]} bars
 * @param {Unit} unit
 * @param {Colors} colors
 * @returns {Draw}
 */
export function memoryBars(bars, unit, colors) {
  return stackedBars({
    labels: bars.map((b) => b.label),
    datasets: STACK.map((key, i) => ({
      label: t('pb_' + key),
      data: bars.map((b) => atPeak(b.out, key) / UNIT_BYTES[unit]),
      backgroundColor: COLORS[i],
      stack: 'memory',
    })),
    axis: unit,
    format: (x) => x.toFixed(2) + ' ' + unit,
  }, colors);
}

// The step time's parts, bottom to top: they add up to time.step_seconds.
const TIME_STACK = ['compute', 'recompute', 'exposed_communication', 'overlap_slowdown', 'pipeline_bubble', 'optimizer', 'offload'];

/**
 * The step-time chart: one bar per configuration with a time (current, then pinned), one segment
 * per part of time.breakdown_seconds.
 * @param {{label: string, out: Record<string, any>}[]} bars
 * @param {Colors} colors
 * @returns {Draw}
 */
export function timeBars(bars, colors) {
  const timed = bars.filter((b) => b.out.time);
  return stackedBars({
    labels: timed.map((b) => b.label),
    datasets: TIME_STACK.map((key, i) => ({
      label: t('tb_' + key),
      data: timed.map((b) => b.out.time.breakdown_seconds[key]),
      backgroundColor: COLORS[i],
      stack: 'time',
    })),
    axis: 's',
    format: formatSeconds,
  }, colors);
}

/**
 * A What fits? curve: points [[x, bytes], ...] with capacity and budget lines (bytes or null).
 * @param {{points: [number, number][], capacity: number | null, budget: number | null, xLabel: string, unit: Unit, colors: Colors}} curve
 * @returns {Draw}
 */
export function peakCurve({ points, capacity, budget, xLabel, unit, colors }) {
  return (Chart, chart, canvas) => {
    const scale = UNIT_BYTES[unit];
    /** @param {number} bytes */
    const flat = (bytes) => points.map(() => bytes / scale);
    /** @type {Record<string, any>[]} */
    const datasets = [{ label: t('curve_peak'), data: points.map(([, y]) => y / scale), borderColor: PEAK_COLOR, backgroundColor: PEAK_COLOR, pointRadius: 3 }];
    if (typeof capacity === 'number') datasets.push({ label: t('curve_capacity'), data: flat(capacity), borderColor: CAPACITY_COLOR, backgroundColor: CAPACITY_COLOR, pointRadius: 0 });
    if (typeof budget === 'number') datasets.push({ label: t('curve_budget'), data: flat(budget), borderColor: BUDGET_COLOR, backgroundColor: BUDGET_COLOR, borderDash: [6, 4], pointRadius: 0 });
    const data = { labels: points.map(([x]) => formatCount(x)), datasets };
    if (chart) {
      chart.data = data;
      chart.options.scales.x.title.text = xLabel;
      chart.options.scales.y.title.text = unit;
      for (const axis of ['x', 'y']) {
        chart.options.scales[axis].ticks.color = chart.options.scales[axis].title.color = colors.fg;
        chart.options.scales[axis].grid.color = colors.grid;
      }
      chart.options.plugins.legend.labels.color = colors.fg;
      chart.update('none');
      return chart;
    }
    return new Chart(canvas, {
      type: 'line',
      data,
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: {
          x: { title: { display: true, text: xLabel, color: colors.fg }, ticks: { color: colors.fg }, grid: { color: colors.grid } },
          y: { title: { display: true, text: unit, color: colors.fg }, ticks: { color: colors.fg }, grid: { color: colors.grid }, beginAtZero: true },
        },
        plugins: {
          legend: { position: 'bottom', labels: { color: colors.fg, boxWidth: 12 } },
          tooltip: { callbacks: { label: (/** @type {any} */ ctx) => ctx.dataset.label + ': ' + ctx.parsed.y.toFixed(2) + ' ' + ctx.chart.options.scales.y.title.text } },
        },
      },
    });
  };
}
