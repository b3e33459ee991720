// The "What fits?" panel: the engine's solve (an estimate document plus a "solve" object, see the
// README's "Inverse queries") for the current inputs, shown as answers (largest micro-batch, longest
// sequence, fewest GPUs, cheapest GPU, global batch plan) with the calibrated answers beside the
// analytic ones, the reasons a question has no answer, and the ranked strategy list whose rows load
// a strategy into the inputs. Every number shown is a field of solve's output (or the difference of
// two); text goes in with textContent only. The DOM parts need a document; request() and
// strategyDoc() are pure (Node tests).
'use strict';

(function (root, factory) {
  if (typeof module === 'object' && module.exports) module.exports = factory(require('./render.js'), require('./i18n.js'));
  else root.TrainmemWhatFits = factory(root.TrainmemRender, root.TrainmemI18n);
})(typeof self !== 'undefined' ? self : this, function (R, I18n) {
  const t = I18n.t;
  const STRATEGY_LIMIT = 10;  // ranked strategies shown
  const MAX_GPUS = 4096;      // the fewest-GPU searches look this far

  function clone(o) {
    return JSON.parse(JSON.stringify(o));
  }

  // The solve document for an estimate document and the panel's options (the state's "solve"
  // object), with or without the strategy search.
  function request(doc, options, withStrategies) {
    const solve = clone(options || {});
    solve.max_gpus = MAX_GPUS;
    if (withStrategies) solve.strategies = { ...(solve.strategies || {}), limit: STRATEGY_LIMIT };
    else delete solve.strategies;
    return { ...clone(doc), solve };
  }

  // The estimate document with a ranked strategy loaded: the settings the strategy search changes
  // (apply_candidate in engine/src/strategy_search.cpp) from the row's fields, everything else kept.
  // The world size is the row's data x tensor x pipeline x context split.
  function strategyDoc(doc, row) {
    const d = clone(doc);
    const p = { ...(d.parallel || {}) };
    p.world_size = row.data_parallel_size * row.tensor_parallel_size * row.pipeline_parallel_size * row.context_parallel_size;
    delete p.data_parallel_size;
    delete p.sharding_group_size;
    p.tensor_parallel_size = row.tensor_parallel_size;
    p.pipeline_parallel_size = row.pipeline_parallel_size;
    p.context_parallel_size = row.context_parallel_size;
    p.sequence_parallel = row.sequence_parallel;
    p.zero_stage = row.zero_stage;
    p.offload_optimizer = row.offload_optimizer;
    p.offload_param = row.offload_param;
    if (p.virtual_pipeline_stages !== undefined) p.virtual_pipeline_stages = 1;
    if (p.pipeline_schedule === 'interleaved_1f1b') p.pipeline_schedule = '1f1b';
    d.parallel = p;
    d.activation_checkpointing = row.activation_checkpointing;
    d.batch = { ...(d.batch || {}), micro_batch_size: row.micro_batch_size };
    return d;
  }

  const cell = (text, testid, value) => {
    const td = R.el('td', { class: 'num', text });
    if (testid) td.setAttribute('data-testid', testid);
    if (value !== undefined && value !== null) td.setAttribute('data-value', String(value));
    return td;
  };
  const fitText = (p, unit) => (p ? R.formatCount(p.value) + ' (' + t('peak_is', { bytes: R.formatBytes(p.peak, unit) }) + ')' : t('no_answer'));
  const signed = (n) => (n > 0 ? '+' : n < 0 ? '−' : '±') + R.formatCount(Math.abs(n));
  const usd = (x) => '$' + R.formatMoney(x);

  // The answers table: question | answer | calibrated | calibrated − answer (the last two only with a
  // calibration, and only for the questions it answers).
  function renderAnswers(table, out, unit, gpuName) {
    const c = out.calibrated;
    table.classList.toggle('no-calibration', !c);
    const diff = (a, b) => (typeof a === 'number' && typeof b === 'number' ? signed(b - a) : '—');
    const row = (label, answer, calibrated) => {
      if (!c || !calibrated) answer.colSpan = c ? 3 : 1;
      return R.el('tr', {}, [R.el('th', { scope: 'row', text: label }), answer, ...(c && calibrated ? calibrated : [])]);
    };
    const calibratedCells = (key, analytic) => [
      cell(c[key] === null ? t('no_answer') : R.formatCount(c[key]), 'c-' + key, c[key]),
      cell(diff(analytic && analytic.value, c[key]), 'd-' + key)];
    const mbs = out.max_micro_batch_size;
    const seq = out.max_seq_length;
    const rows = [
      row(t('q_max_micro_batch'), cell(fitText(mbs, unit), 'a-max_micro_batch_size', mbs && mbs.value), c && calibratedCells('max_micro_batch_size', mbs)),
      row(t('q_max_seq_length'), cell(fitText(seq, unit), 'a-max_seq_length', seq && seq.value), c && calibratedCells('max_seq_length', seq)),
      row(t('q_min_gpus'), cell(fitText(out.min_gpus, unit), 'a-min_gpus', out.min_gpus && out.min_gpus.value)),
    ];
    const cheap = out.cheapest;
    rows.push(row(t('q_cheapest'), cell(cheap ? t('cheapest_is', { gpu: gpuName(cheap.gpu), n: R.formatCount(cheap.gpus), cost: usd(cheap.cost_per_hour) })
      : t('no_cheapest'), 'a-cheapest', cheap && cheap.gpu)));
    const plan = out.global_batch;
    rows.push(row(t('q_global_batch'), cell(plan ? t(plan.exact ? 'plan_exact' : 'plan_nearest', { m: R.formatCount(plan.micro_batch_size),
      ga: R.formatCount(plan.gradient_accumulation_steps), n: R.formatCount(plan.global_batch_size) }) : t('plan_none'), 'a-global_batch',
    plan && plan.gradient_accumulation_steps)));
    rows.push(row(t('q_budget'), cell(R.formatBytes(out.budget_bytes, unit), 'a-budget', out.budget_bytes)));
    table.tBodies[0].replaceChildren(...rows);
  }

  // The fitted parts beside the analytic ones, and the measured peak against the analytic estimate
  // at the (first) measured point, in the measurement's terms. measuredBytes: that point's input.
  function renderCalibration(box, tbody, out, unit, measuredBytes) {
    const c = out.calibrated;
    box.hidden = !c;
    if (!c) return;
    const pct = (x) => (x > 0 ? '+' : x < 0 ? '−' : '±') + (Math.abs(x) * 100).toFixed(1) + '%';
    const signedBytes = (x) => (x > 0 ? '+' : x < 0 ? '−' : '±') + R.formatBytes(Math.abs(x), unit);
    const perToken = (b) => R.formatCount(Math.round(b)) + ' ' + t('bytes_per_token');
    const line = (label, calibrated, analytic, difference, testid) => R.el('tr', {}, [R.el('th', { scope: 'row', text: label }),
      cell(calibrated), cell(analytic), cell(difference, testid)]);
    tbody.replaceChildren(
      line(t('cal_at_measurement'), R.formatBytes(measuredBytes, unit), R.formatBytes(c.analytic_at_measurement, unit), pct(c.relative_difference), 'cal-difference'),
      line(t('cal_fixed'), R.formatBytes(c.fixed_bytes, unit), R.formatBytes(c.analytic_fixed_bytes, unit), signedBytes(c.fixed_bytes - c.analytic_fixed_bytes), 'cal-fixed'),
      line(t('cal_per_token'), perToken(c.bytes_per_token), perToken(c.analytic_bytes_per_token),
        (c.bytes_per_token >= c.analytic_bytes_per_token ? '+' : '−') + perToken(Math.abs(c.bytes_per_token - c.analytic_bytes_per_token)), 'cal-per-token'),
    );
  }

  // Why a question has no answer: the engine's reasons, and the page's note for a missing price or target.
  function renderReasons(list, out) {
    const reasons = [...out.reasons];
    if (out.strategies) reasons.push(...out.strategies.reasons);
    list.replaceChildren(...reasons.map((r) => R.el('li', { text: r, 'data-testid': 'solve-reason' })));
  }

  const STRATEGY_COLUMNS = ['st_layout', 'st_zero', 'st_ckpt', 'st_offload', 'st_mbs', 'st_peak', 'st_headroom', 'st_throughput'];

  // The ranked strategies, best first, each with the engine's explanation and a button that loads it.
  function renderStrategies(table, summary, out, unit, elapsedMs, onLoad) {
    const s = out.strategies;
    table.tHead.replaceChildren(R.el('tr', {}, [R.el('th', { scope: 'col', text: '#' }),
      ...STRATEGY_COLUMNS.map((k) => R.el('th', { scope: 'col', text: t(k) })), R.el('th', { scope: 'col', text: t('st_action') })]));
    if (!s) {
      summary.textContent = '';
      table.tBodies[0].replaceChildren();
      return;
    }
    summary.textContent = t('st_summary', { candidates: R.formatCount(s.candidates), feasible: R.formatCount(s.feasible),
      estimates: R.formatCount(s.estimates), ms: R.formatCount(Math.round(elapsedMs)) });
    const rows = s.ranked.flatMap((r, i) => {
      const button = R.el('button', { type: 'button', text: t('st_load'), 'data-testid': 'load-strategy' });
      button.setAttribute('aria-label', t('st_load_label', { n: i + 1 }));
      button.addEventListener('click', (e) => {
        e.stopPropagation();
        onLoad(r);
      });
      const main = R.el('tr', { class: 'strategy', 'data-testid': 'strategy' }, [
        R.el('th', { scope: 'row', text: String(i + 1) }),
        R.el('td', { text: [r.data_parallel_size, r.tensor_parallel_size, r.pipeline_parallel_size, r.context_parallel_size].join(' × ') }),
        R.el('td', { text: String(r.zero_stage) }),
        R.el('td', { text: r.activation_checkpointing === 'none' ? t('none') : t('ckpt_' + r.activation_checkpointing) }),
        R.el('td', { text: r.offload_optimizer === 'none' ? t('none') : 'CPU' }),
        cell(R.formatCount(r.micro_batch_size)),
        R.bytesCell(r.peak, unit, 'strategy-peak'),
        R.bytesCell(r.headroom, unit),
        cell(R.formatCount(Math.round(r.tokens_per_gpu_per_s))),
        R.el('td', {}, [button]),
      ]);
      main.addEventListener('click', () => onLoad(r));
      const why = R.el('tr', { class: 'explain' }, [R.el('td', { colSpan: STRATEGY_COLUMNS.length + 2, text: r.explanation, 'data-testid': 'strategy-explanation' })]);
      return [main, why];
    });
    table.tBodies[0].replaceChildren(...rows);
  }

  return { STRATEGY_LIMIT, MAX_GPUS, request, strategyDoc, renderAnswers, renderCalibration, renderReasons, renderStrategies };
});
