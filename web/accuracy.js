// The "Accuracy" section: predicted vs measured on the published measurements, as written by the
// accuracy program into accuracy-data.js (window.TRAINMEM_ACCURACY = {summary, rows}) on every build,
// so it cannot drift from the engine. Each row: the case and its source, what the source measured
// (allocated / reserved / nvidia-smi / model states ..., from the output field it is compared with),
// measured and predicted bytes, and the error. Text goes in with textContent only.
'use strict';

(function (root, factory) {
  if (typeof module === 'object' && module.exports) module.exports = factory(require('./render.js'), require('./i18n.js'));
  else root.TrainmemAccuracy = factory(root.TrainmemRender, root.TrainmemI18n);
})(typeof self !== 'undefined' ? self : this, function (R, I18n) {
  const t = I18n.t;

  // The output field a case is compared with -> what its source measured.
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

  function measureLabel(field) {
    return MEASURE[field] ? t(MEASURE[field]) : field;
  }

  function errorText(row) {
    if (typeof row.error !== 'number') return row.status;
    return (row.error > 0 ? '+' : row.error < 0 ? '−' : '±') + (Math.abs(row.error) * 100).toFixed(1) + '%';
  }

  // data: window.TRAINMEM_ACCURACY, or undefined when the build did not write it.
  function render(summaryEl, tbody, data, unit) {
    if (!data || !Array.isArray(data.rows)) {
      summaryEl.textContent = t('acc_missing');
      tbody.replaceChildren();
      return;
    }
    summaryEl.textContent = String(data.summary || '').trim();
    tbody.replaceChildren(...data.rows.map((row) => {
      const err = R.el('td', { class: typeof row.error === 'number' ? 'num' : '', text: errorText(row), 'data-testid': 'accuracy-error' });
      if (typeof row.error === 'number') err.setAttribute('data-value', String(row.error));
      return R.el('tr', { 'data-testid': 'accuracy-row', 'data-case': String(row.id) }, [
        R.el('th', { scope: 'row' }, [R.el('span', { text: String(row.id) }), R.el('small', { class: 'source', text: String(row.source || '') })]),
        R.el('td', { text: measureLabel(row.field) }),
        R.bytesCell(typeof row.measured_bytes === 'number' ? row.measured_bytes : null, unit),
        R.bytesCell(typeof row.predicted_bytes === 'number' ? row.predicted_bytes : null, unit),
        err,
      ]);
    }));
  }

  return { render, measureLabel };
});
