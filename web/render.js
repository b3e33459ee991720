// Showing the engine's output document: tables, the stacked bar chart, the comparison and the
// Markdown export. Every number shown is a field of the output (or the difference of two); text
// goes in with textContent only, never as HTML.
'use strict';

(function (root, factory) {
  if (typeof module === 'object' && module.exports) module.exports = factory(null, require('./i18n.js'));
  else root.TrainmemRender = factory(root.Chart, root.TrainmemI18n);
})(typeof self !== 'undefined' ? self : this, function (Chart, I18n) {
  const t = I18n.t;
  const UNIT_BYTES = { GiB: 2 ** 30, GB: 1e9 };

  // The stack, bottom to top: these components add up to per_gpu.peak.
  const STACK = ['parameters', 'gradients', 'optimizer_states', 'activations', 'temporary_buffers', 'fragmentation', 'cuda_context'];
  const COLORS = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#b07aa1', '#9c755f'];
  // Breakdown rows in order; subtotal rows are the engine's own sums.
  const BREAKDOWN = [
    ['parameters'], ['gradients'], ['optimizer_states'], ['model_states', 'subtotal'], ['activations'],
    ['temporary_buffers'], ['peak_allocated', 'subtotal'], ['fragmentation'], ['peak_reserved', 'subtotal'],
    ['cuda_context'], ['peak', 'total'],
  ];
  const COMPARED = ['parameters', 'gradients', 'optimizer_states', 'model_states', 'activations', 'temporary_buffers',
    'fragmentation', 'cuda_context', 'peak_allocated', 'peak_reserved', 'peak'];

  const TWO_DECIMALS = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const WHOLE = new Intl.NumberFormat('en-US', { maximumFractionDigits: 20 });

  function formatBytes(bytes, unit) {
    if (typeof bytes !== 'number' || !Number.isFinite(bytes)) return '—';
    return TWO_DECIMALS.format(bytes / UNIT_BYTES[unit]) + ' ' + unit;
  }

  function formatCount(n) {
    return typeof n === 'number' && Number.isFinite(n) ? WHOLE.format(n) : '—';
  }

  function formatMoney(x) {
    return typeof x === 'number' && Number.isFinite(x) ? TWO_DECIMALS.format(x) : '—';
  }

  function yesNo(v) {
    return v === true ? t('yes') : v === false ? t('no') : t('unknown');
  }

  function el(tag, props, children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (k === 'text') e.textContent = v;
      else if (k === 'class') e.className = v;
      else if (k.startsWith('data-')) e.setAttribute(k, v);
      else e[k] = v;
    }
    for (const c of children || []) e.append(c);
    return e;
  }

  function bytesCell(bytes, unit, testid) {
    const td = el('td', { class: 'num', text: formatBytes(bytes, unit) });
    if (typeof bytes === 'number') td.setAttribute('data-bytes', String(bytes));
    if (testid) td.setAttribute('data-testid', testid);
    return td;
  }

  // rows: [label, value cell or text, extra class]
  function fillTable(tbody, rows) {
    tbody.replaceChildren(...rows.map(([label, value, cls]) => {
      const cell = typeof value === 'string' ? el('td', { class: 'num', text: value }) : value;
      return el('tr', { class: cls || '' }, [el('th', { scope: 'row', text: label }), cell]);
    }));
  }

  // A component's row, then the engine's explanation of it (formula with this setup's numbers, source).
  function componentRows(key, bytes, unit, cls, explanations) {
    const rows = [el('tr', { class: cls || '' }, [el('th', { scope: 'row', text: t('c_' + key) }), bytesCell(bytes, unit, 'b-' + key)])];
    const x = explanations.find((e) => e.component === key);
    if (x) {
      rows.push(el('tr', { class: 'explain' }, [el('td', { colSpan: 2, 'data-testid': 'explain-' + key },
        [el('span', { text: x.formula }), el('small', { class: 'source', text: x.source })])]));
    }
    return rows;
  }

  function renderBreakdown(tbody, out, unit) {
    const g = out.per_gpu;
    const rows = BREAKDOWN.flatMap(([key, cls]) => componentRows(key, g[key], unit, cls, out.explanations));
    for (const key of ['paged_device_resident', 'paged_host_resident']) {
      if (g[key] !== null && g[key] !== undefined) rows.push(...componentRows(key, g[key], unit, '', out.explanations));
    }
    tbody.replaceChildren(...rows);
  }

  // deviceTotal: nvidia-smi's total for the chosen GPU (catalog) or the custom device's memory_bytes.
  function renderDevice(tbody, out, unit, deviceTotal) {
    const g = out.per_gpu;
    fillTable(tbody, [
      [t('c_peak_allocated'), bytesCell(g.peak_allocated, unit, 'd-peak_allocated')],
      [t('c_peak_reserved'), bytesCell(g.peak_reserved, unit, 'd-peak_reserved')],
      [t('c_peak'), bytesCell(g.peak, unit, 'd-peak')],
      [t('d_capacity'), bytesCell(out.gpu_capacity_bytes, unit, 'd-capacity')],
      [t('d_device_total'), bytesCell(deviceTotal, unit, 'd-device_total')],
    ]);
  }

  function renderPhases(tbody, out, unit) {
    const phases = out.per_gpu.phases;
    if (!phases) {
      fillTable(tbody, [[t('unknown'), '—']]);
      return;
    }
    fillTable(tbody, Object.keys(phases).map((p) => {
      const label = t('ph_' + p) + (out.per_gpu.peak_phase === p ? ' (' + t('peak_mark') + ')' : '');
      return [label, bytesCell(phases[p], unit, 'ph-' + p), out.per_gpu.peak_phase === p ? 'subtotal' : ''];
    }));
  }

  function renderFacts(tbody, out) {
    const p = out.parameters;
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

  function renderHost(tbody, out, unit) {
    fillTable(tbody, [
      [t('h_cpu'), bytesCell(out.cpu_bytes_per_node, unit, 'h-cpu')],
      [t('h_cpu_fits'), yesNo(out.cpu_ram_fits)],
      [t('h_nvme'), bytesCell(out.nvme_bytes, unit, 'h-nvme')],
    ]);
  }

  function renderDisk(tbody, out, unit) {
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

  // RLHF: the same breakdown per model, plus the rollout KV cache. Hidden when there is none.
  function renderRlhf(box, table, out, unit) {
    const models = out.per_gpu_models;
    box.hidden = !models;
    if (!models) return;
    const cols = ['parameters', 'gradients', 'optimizer_states', 'model_states', 'activations', 'transient'];
    const head = el('tr', {}, [el('th', { scope: 'col', text: t('role') }),
      ...cols.map((c) => el('th', { scope: 'col', class: 'num', text: c === 'transient' ? t('transient') : t('c_' + c) }))]);
    table.tHead.replaceChildren(head);
    const rows = Object.entries(models).map(([role, m]) =>
      el('tr', {}, [el('th', { scope: 'row', text: role }), ...cols.map((c) => bytesCell(m[c], unit))]));
    if (out.rollout_kv_cache_bytes !== null && out.rollout_kv_cache_bytes !== undefined) {
      rows.push(el('tr', {}, [el('th', { scope: 'row', text: t('rollout_kv') }), bytesCell(out.rollout_kv_cache_bytes, unit, 'rollout-kv'),
        ...cols.slice(1).map(() => el('td'))]));
    }
    table.tBodies[0].replaceChildren(...rows);
  }

  function renderWarnings(list, out) {
    const items = out.warnings.map((w) => el('li', { 'data-code': w.code }, [el('code', { text: w.code }), document.createTextNode(' ' + w.message)]));
    list.replaceChildren(...(items.length ? items : [el('li', { class: 'note', text: t('none_found') })]));
  }

  // The catalog GPU table, built once so that its price inputs keep focus while results change:
  // GPU | usable | peak at this count | fits | fewest GPUs that fit | price per GPU-hour (editable) | cost per hour.
  function gpuTableRow(gpu) {
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

  function setBytes(td, bytes, unit) {
    td.textContent = formatBytes(bytes, unit);
    if (typeof bytes === 'number') td.setAttribute('data-bytes', String(bytes));
    else td.removeAttribute('data-bytes');
  }

  // The estimate at the current GPU count: {usable, peak, fits}, {pending: true} or {error: true}.
  function fillGpuHere(tr, row, unit) {
    const [, usable, peak, fit] = tr.cells;
    if (row.pending || row.error) {
      const mark = row.pending ? '…' : '—';
      usable.textContent = peak.textContent = mark;
      usable.removeAttribute('data-bytes');
      peak.removeAttribute('data-bytes');
      fit.textContent = row.pending ? t('computing') : t('unknown');
      fit.className = '';
      return;
    }
    setBytes(usable, row.usable, unit);
    setBytes(peak, row.peak, unit);
    fit.textContent = yesNo(row.fits);
    fit.className = row.fits ? 'ok' : 'bad';
  }

  // solve's gpu_options entry ({min_gpus, price_per_gpu_hour, cost_per_hour}), {pending: true} or
  // {error: message}; maxGpus: how far the engine was asked to look.
  function fillGpuOption(tr, option, maxGpus) {
    const min = tr.cells[4];
    const cost = tr.cells[6];
    min.title = '';
    if (option.pending || option.error) {
      min.textContent = cost.textContent = option.pending ? '…' : '—';
      if (option.error) min.title = option.error;
      min.removeAttribute('data-value');
      return;
    }
    min.textContent = option.min_gpus ? formatCount(option.min_gpus.value) : t('not_within', { n: formatCount(maxGpus) });
    if (option.min_gpus) min.setAttribute('data-value', String(option.min_gpus.value));
    else min.removeAttribute('data-value');
    cost.textContent = typeof option.cost_per_hour === 'number' ? '$' + formatMoney(option.cost_per_hour) + t('per_hour') : '—';
  }

  // Catalog entries the engine rejected at load ({code, field, message}): named in a notice; the
  // page works with the valid entries.
  function renderCatalogErrors(box, list, errors) {
    box.hidden = errors.length === 0;
    list.replaceChildren(...errors.map((e) => el('li', { 'data-code': String(e.code) },
      [el('code', { text: String(e.field || e.code) }), document.createTextNode(' ' + String(e.message))])));
  }

  function renderCompare(thead, tbody, pinnedOut, currentOut, unit) {
    thead.replaceChildren(el('tr', {}, [el('th', { scope: 'col', text: t('component') }), el('th', { scope: 'col', class: 'num', text: t('pinned') }),
      el('th', { scope: 'col', class: 'num', text: t('current') }), el('th', { scope: 'col', class: 'num', text: t('difference') })]));
    const rows = COMPARED.map((key) => {
      const a = pinnedOut.per_gpu[key];
      const b = currentOut.per_gpu[key];
      const diff = typeof a === 'number' && typeof b === 'number' ? b - a : null;
      const diffText = diff === null ? '—' : (diff > 0 ? '+' : diff < 0 ? '−' : '±') + formatBytes(Math.abs(diff), unit);
      const diffCell = el('td', { class: 'num ' + (diff > 0 ? 'bad' : diff < 0 ? 'ok' : ''), text: diffText, 'data-testid': 'diff-' + key });
      if (diff !== null) diffCell.setAttribute('data-bytes', String(diff));
      return el('tr', { class: key === 'peak' || key === 'model_states' ? 'subtotal' : '' }, [
        el('th', { scope: 'row', text: t('c_' + key) }), bytesCell(a, unit), bytesCell(b, unit), diffCell]);
    });
    rows.push(el('tr', {}, [el('th', { scope: 'row', text: t('f_trainable') }), el('td', { class: 'num', text: formatCount(pinnedOut.parameters.trainable) }),
      el('td', { class: 'num', text: formatCount(currentOut.parameters.trainable) }), el('td')]));
    rows.push(el('tr', {}, [el('th', { scope: 'row', text: t('fit') }), el('td', { class: 'num', text: yesNo(pinnedOut.fits) }),
      el('td', { class: 'num', text: yesNo(currentOut.fits) }), el('td')]));
    tbody.replaceChildren(...rows);
  }

  // The theme's text and line colours for the chart (read once per theme: reading styles is slow).
  function themeColors() {
    const style = getComputedStyle(document.documentElement);
    return { fg: style.getPropertyValue('--fg').trim() || '#222', grid: style.getPropertyValue('--line').trim() || '#ddd' };
  }

  // The stacked bar chart: one bar per configuration (current, then pinned), one stack segment per component.
  function drawChart(canvas, chart, bars, unit, { fg, grid }) {
    const data = {
      labels: bars.map((b) => b.label),
      datasets: STACK.map((key, i) => ({
        label: t('c_' + key),
        data: bars.map((b) => (b.out.per_gpu[key] || 0) / UNIT_BYTES[unit]),
        backgroundColor: COLORS[i],
        stack: 'memory',
      })),
    };
    if (chart) {
      chart.data = data;
      chart.options.scales.x.title.text = unit;
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
          x: { stacked: true, title: { display: true, text: unit, color: fg }, ticks: { color: fg }, grid: { color: grid } },
          y: { stacked: true, ticks: { color: fg }, grid: { display: false } },
        },
        plugins: {
          legend: { position: 'bottom', labels: { color: fg, boxWidth: 12 } },
          tooltip: { callbacks: { label: (ctx) => ctx.dataset.label + ': ' + ctx.parsed.x.toFixed(2) + ' ' + unit } },
        },
      },
    });
  }

  function markdownCell(s) {
    return String(s).replace(/\|/g, '\\|').replace(/\n/g, ' ');
  }

  // The result as Markdown: the link, the input document, the breakdown with explanations, warnings.
  function markdown(link, doc, out, unit) {
    const g = out.per_gpu;
    const lines = ['# trainmem estimate', '', 'Link: ' + link, '', '## Input document', '', '```json', JSON.stringify(doc, null, 2), '```', '',
      '## Per-GPU memory (' + unit + ' = ' + (unit === 'GiB' ? '2^30' : '10^9') + ' bytes)', '',
      '| component | ' + unit + ' | bytes | how |', '|---|---:|---:|---|'];
    for (const [key] of BREAKDOWN) {
      const x = out.explanations.find((e) => e.component === key);
      lines.push('| ' + markdownCell(t('c_' + key)) + ' | ' + formatBytes(g[key], unit) + ' | ' + formatCount(g[key]) + ' | ' +
        (x ? markdownCell(x.formula + ' (' + x.source + ')') : '') + ' |');
    }
    lines.push('', 'Fits: ' + yesNo(out.fits) + (out.gpu_capacity_bytes ? ' (usable ' + formatBytes(out.gpu_capacity_bytes, unit) + ')' : ''),
      '', 'Trainable parameters: ' + formatCount(out.parameters.trainable) + ' of ' + formatCount(out.parameters.total), '', '## Warnings', '');
    for (const w of out.warnings) lines.push('- `' + w.code + '`: ' + w.message);
    if (out.warnings.length === 0) lines.push('- none');
    return lines.join('\n') + '\n';
  }

  return {
    UNIT_BYTES, formatBytes, formatCount, formatMoney, yesNo, el, bytesCell, renderBreakdown, renderDevice, renderPhases, renderFacts,
    renderHost, renderDisk, renderRlhf, renderWarnings, gpuTableRow, fillGpuHere, fillGpuOption, renderCatalogErrors, renderCompare,
    themeColors, drawChart, markdown,
  };
});
