// The page: inputs -> estimate document -> engine (WASM) -> breakdown. No formulas live here:
// every number comes from the engine's output document (shared/ESTIMATE-API.md).
'use strict';

(function () {
  const GIB = 1024 ** 3;
  const $ = (id) => document.getElementById(id);
  const fields = ['model', 'method', 'lora_r', 'optimizer', 'micro_batch_size', 'seq_length', 'world_size', 'zero_stage', 'gpu'];
  let engine = null;

  function option(value, label) {
    const o = document.createElement('option');
    o.value = value;
    o.textContent = label;
    return o;
  }

  function documentFromInputs() {
    const method = $('method').value;
    const doc = {
      model: { preset: $('model').value },
      method,
      precision: { optimizer: $('optimizer').value },
      batch: { micro_batch_size: Number($('micro_batch_size').value), seq_length: Number($('seq_length').value) },
      parallel: { world_size: Number($('world_size').value), zero_stage: Number($('zero_stage').value) },
      gpu: $('gpu').value,
    };
    if (method === 'lora' || method === 'qlora') doc.lora = { r: Number($('lora_r').value) };
    return doc;
  }

  function row(tbody, label, bytes, testid) {
    const tr = document.createElement('tr');
    const name = document.createElement('td');
    name.textContent = label;
    const value = document.createElement('td');
    value.className = 'num';
    value.dataset.testid = testid;
    value.textContent = bytes === null || bytes === undefined ? 'n/a' : (bytes / GIB).toFixed(2) + ' GiB';
    tr.append(name, value);
    tbody.append(tr);
  }

  function render() {
    if (!engine) return;
    const doc = documentFromInputs();
    const out = JSON.parse(engine.estimate(JSON.stringify(doc)));
    const tbody = $('breakdown').querySelector('tbody');
    tbody.replaceChildren();
    $('warnings').replaceChildren();
    if (out.error) {
      $('status').className = 'error';
      $('status').textContent = out.errors.map((e) => e.message).join('; ');
      return;
    }
    const g = out.per_gpu;
    $('status').className = '';
    $('status').textContent = out.fits === null ? 'Fit unknown' : out.fits ? 'Fits' : 'Does not fit';
    const p = document.createElement('tr');
    const pl = document.createElement('td');
    pl.textContent = 'Trainable parameters';
    const pv = document.createElement('td');
    pv.className = 'num';
    pv.dataset.testid = 'trainable';
    pv.textContent = out.parameters.trainable.toLocaleString('en-US');
    p.append(pl, pv);
    tbody.append(p);
    row(tbody, 'Parameters', g.parameters, 'parameters');
    row(tbody, 'Gradients', g.gradients, 'gradients');
    row(tbody, 'Optimizer states', g.optimizer_states, 'optimizer_states');
    row(tbody, 'Model states (lower bound)', g.model_states, 'model_states');
    row(tbody, 'Activations', g.activations, 'activations');
    row(tbody, 'Temporary buffers', g.temporary_buffers, 'temporary_buffers');
    row(tbody, 'Peak', g.peak, 'peak');
    for (const w of out.warnings) {
      const li = document.createElement('li');
      li.textContent = w.message;
      $('warnings').append(li);
    }
    const state = new URLSearchParams();
    for (const f of fields) state.set(f, $(f).value);
    history.replaceState(null, '', '#v1:' + state.toString());
  }

  function restoreFromUrl() {
    const hash = location.hash;
    if (!hash.startsWith('#v1:')) return;
    const state = new URLSearchParams(hash.slice(4));
    for (const f of fields) if (state.has(f)) $(f).value = state.get(f);
  }

  createEngine().then((module) => {
    engine = module;
    const catalog = JSON.parse(engine.catalog(''));
    for (const m of catalog.models) $('model').append(option(m.id, m.display_name));
    for (const g of catalog.gpus) $('gpu').append(option(g.id, g.display_name));
    $('model').value = 'llama-3.1-8b';
    $('gpu').value = 'h100-sxm-80gb';
    restoreFromUrl();
    $('inputs').addEventListener('input', render);
    render();
  });
})();
