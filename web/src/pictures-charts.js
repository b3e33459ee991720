// The Pictures views as Chart.js drawings (charts.js's LazyChart draws them once the charts chunk
// has loaded): the memory timeline of one step as lines of allocated and reserved with the
// device's capacity as a line, the per-stage (or per-layer) stacked bars, and the treemap of the
// peak by component (chartjs-chart-treemap). Values arrive in bytes (pictures-data.js) and are
// drawn in the user's unit.
import { t } from './i18n.js';
import { formatBytes, UNIT_BYTES } from './format.js';

/** @typedef {import('./format.js').Unit} Unit */
/** @typedef {import('./charts.js').Colors} Colors */
/** @typedef {import('./charts.js').Draw} Draw */
/** @typedef {import('./pictures-data.js').Timeline} Timeline */
/** @typedef {import('./pictures-data.js').Bars} Bars */
/** @typedef {import('./pictures-data.js').Cell} Cell */

const ALLOCATED_COLOR = '#4e79a7';
const RESERVED_COLOR = '#76b7b2';
const CAPACITY_COLOR = '#e15759';
const PEAK_MARK_COLOR = '#b07aa1';
// One colour per component, the same in the stage bars and the treemap.
/** @type {Record<string, string>} */
export const COMPONENT_COLORS = {
  parameters: '#4e79a7', gradients: '#f28e2b', optimizer_states: '#e15759', activations: '#76b7b2',
  temporary_buffers: '#59a14f', allocator: '#b07aa1', cuda_context: '#9c755f', userbuffers: '#edc948', layer_base: '#bab0ac', layer_growth: '#76b7b2',
};

/**
 * Makes the chart, or updates the one there with new data and options (no animation).
 * @param {any} Chart
 * @param {any} chart
 * @param {HTMLCanvasElement} canvas
 * @param {Record<string, any>} config
 */
function makeOrUpdate(Chart, chart, canvas, config) {
  if (chart && chart.config.type === config.type) {
    chart.data = config.data;
    chart.options = config.options;
    chart.update('none');
    return chart;
  }
  if (chart) chart.destroy();
  return new Chart(canvas, config);
}

/**
 * An axis with a title, in the theme's colours.
 * @param {string} title
 * @param {Colors} colors
 * @param {Record<string, any>} [more]
 */
function axis(title, { fg, grid }, more) {
  return { title: { display: true, text: title, color: fg }, ticks: { color: fg }, grid: { color: grid }, ...more };
}

/**
 * The legend under a chart and a tooltip that gives each value in the unit.
 * @param {Unit} unit
 * @param {Colors} colors
 */
function legendAndTooltip(unit, colors) {
  return {
    legend: { position: 'bottom', labels: { color: colors.fg, boxWidth: 12 } },
    tooltip: { callbacks: { label: (/** @type {any} */ ctx) => ctx.dataset.label + ': ' + ctx.parsed.y.toFixed(2) + ' ' + unit } },
  };
}

/**
 * The timeline: allocated and reserved per point (load, forward L1..Ln, loss, backward Ln..L1,
 * optimizer step) and the device's capacity as a flat line, in the unit.
 * @param {Timeline} line
 * @param {Unit} unit
 * @param {Colors} colors
 * @returns {Draw}
 */
export function timelineChart(line, unit, colors) {
  return (Chart, chart, canvas) => {
    const scale = UNIT_BYTES[unit];
    /** @type {Record<string, any>[]} */
    const datasets = [
      { label: t('tl_allocated'), data: line.allocated.map((b) => b / scale), borderColor: ALLOCATED_COLOR, backgroundColor: ALLOCATED_COLOR, pointRadius: 2 },
      { label: t('tl_reserved'), data: line.reserved.map((b) => b / scale), borderColor: RESERVED_COLOR, backgroundColor: RESERVED_COLOR, borderDash: [6, 4], pointRadius: 0 },
    ];
    const capacity = line.capacity;
    if (capacity !== null) {
      datasets.push({ label: t('curve_capacity'), data: line.labels.map(() => capacity / scale), borderColor: CAPACITY_COLOR, backgroundColor: CAPACITY_COLOR, pointRadius: 0 });
    }
    return makeOrUpdate(Chart, chart, canvas, {
      type: 'line',
      data: { labels: line.labels, datasets },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        interaction: { mode: 'index', intersect: false },
        scales: { x: axis(t('tl_axis'), colors, { ticks: { color: colors.fg, autoSkip: true, maxRotation: 60 } }), y: axis(unit, colors, { beginAtZero: true }) },
        plugins: legendAndTooltip(unit, colors),
      },
    });
  };
}

/**
 * Stacked bars per stage (parameters, gradients, optimizer states, activations) with the stage's
 * peak as a mark, or one bar per layer (held once layer 1 has run, added since), in the unit.
 * @param {Bars} bars
 * @param {Unit} unit
 * @param {Colors} colors
 * @returns {Draw}
 */
export function stageChart(bars, unit, colors) {
  return (Chart, chart, canvas) => {
    const scale = UNIT_BYTES[unit];
    /** @type {Record<string, any>[]} */
    const datasets = bars.keys.map((key) => ({
      type: 'bar', label: t(bars.kind === 'layers' ? key : 'c_' + key), data: bars.values[key].map((b) => b / scale),
      backgroundColor: COMPONENT_COLORS[key], stack: 'memory',
    }));
    if (bars.marker) {
      datasets.push({ type: 'line', label: t('stage_peak'), data: bars.marker.map((b) => b / scale), showLine: false, stack: 'peak',
        pointStyle: 'line', pointRadius: 18, pointBorderWidth: 3, borderColor: PEAK_MARK_COLOR, backgroundColor: PEAK_MARK_COLOR });
    }
    return makeOrUpdate(Chart, chart, canvas, {
      type: 'bar',
      data: { labels: bars.labels, datasets },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: { x: axis(t(bars.kind === 'layers' ? 'layer_axis' : 'stage_axis'), colors, { stacked: true, grid: { display: false } }),
          y: axis(unit, colors, { stacked: true, beginAtZero: true }) },
        plugins: legendAndTooltip(unit, colors),
      },
    });
  };
}

/**
 * The treemap of the peak: one cell per component, its area its bytes, labelled with its name and
 * size in the unit.
 * @param {Cell[]} cells
 * @param {Unit} unit
 * @param {Colors} colors
 * @returns {Draw}
 */
export function peakTreemap(cells, unit, colors) {
  return (Chart, chart, canvas) => {
    const scale = UNIT_BYTES[unit];
    const tree = cells.map((c) => ({ ...c, value: c.bytes / scale }));
    /** @param {any} ctx */
    const cell = (ctx) => (ctx.type === 'data' && ctx.raw && ctx.raw._data ? ctx.raw._data : null);
    return makeOrUpdate(Chart, chart, canvas, {
      type: 'treemap',
      data: {
        datasets: [{
          label: t('pictures_peak'),
          tree,
          key: 'value',
          borderWidth: 1,
          borderColor: colors.grid,
          spacing: 1,
          backgroundColor: (/** @type {any} */ ctx) => {
            const c = cell(ctx);
            return c ? COMPONENT_COLORS[c.component] || '#bab0ac' : 'transparent';
          },
          labels: {
            display: true,
            color: '#ffffff',
            overflow: 'hidden',
            formatter: (/** @type {any} */ ctx) => {
              const c = cell(ctx);
              return c ? [c.label, formatBytes(c.bytes, unit)] : '';
            },
          },
        }],
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        plugins: {
          legend: { display: false },
          tooltip: { callbacks: {
            title: () => '',
            label: (/** @type {any} */ ctx) => {
              const c = cell(ctx);
              return c ? c.label + ': ' + formatBytes(c.bytes, unit) : '';
            },
          } },
        },
      },
    });
  };
}
