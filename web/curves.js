// The "What fits?" curves: the peak against sequence length and against micro-batch (solve's
// curves), with the GPU's capacity and the budget (capacity less the safety margin) as lines.
// Chart.js line charts on a category axis (the engine samples powers of two).
'use strict';

(function (root, factory) {
  if (typeof module === 'object' && module.exports) module.exports = factory(null, require('./render.js'), require('./i18n.js'));
  else root.TrainmemCurves = factory(root.Chart, root.TrainmemRender, root.TrainmemI18n);
})(typeof self !== 'undefined' ? self : this, function (Chart, R, I18n) {
  const t = I18n.t;
  const PEAK_COLOR = '#4e79a7';
  const CAPACITY_COLOR = '#e15759';
  const BUDGET_COLOR = '#f28e2b';

  // points: [[x, bytes], ...]; capacity and budget: bytes or null. Returns the chart (made or updated).
  function draw(canvas, chart, { points, capacity, budget, xLabel, unit, colors }) {
    const scale = R.UNIT_BYTES[unit];
    const flat = (bytes) => points.map(() => bytes / scale);
    const datasets = [{ label: t('curve_peak'), data: points.map(([, y]) => y / scale), borderColor: PEAK_COLOR, backgroundColor: PEAK_COLOR, pointRadius: 3 }];
    if (typeof capacity === 'number') datasets.push({ label: t('curve_capacity'), data: flat(capacity), borderColor: CAPACITY_COLOR, backgroundColor: CAPACITY_COLOR, pointRadius: 0 });
    if (typeof budget === 'number') datasets.push({ label: t('curve_budget'), data: flat(budget), borderColor: BUDGET_COLOR, backgroundColor: BUDGET_COLOR, borderDash: [6, 4], pointRadius: 0 });
    const data = { labels: points.map(([x]) => R.formatCount(x)), datasets };
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
          tooltip: { callbacks: { label: (ctx) => ctx.dataset.label + ': ' + ctx.parsed.y.toFixed(2) + ' ' + ctx.chart.options.scales.y.title.text } },
        },
      },
    });
  }

  return { draw };
});
