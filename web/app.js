// The page's controller: form controls <-> the estimate document (shared/ESTIMATE-API.md) plus the
// "What fits?" panel's solve options -> the engine (WASM, main thread) -> render.js, what-fits.js,
// curves.js. The document is the single state: the URL encodes it (url-state.js), local storage keeps
// it, and every change re-runs the engine on all of it, so a result never goes stale; the solve (and
// the catalog GPU table) runs right after the estimate is drawn, and an answer for older inputs is
// never shown. No formulas live here.
'use strict';

(function () {
  const Url = window.TrainmemUrl;
  const Search = window.TrainmemSearch;
  const I18n = window.TrainmemI18n;
  const R = window.TrainmemRender;
  const WhatFits = window.TrainmemWhatFits;
  const Curves = window.TrainmemCurves;
  const Accuracy = window.TrainmemAccuracy;
  const t = I18n.t;
  const $ = (id) => document.getElementById(id);

  const DEFAULT_HASH = '#v3:m=llama-3.1-8b&me=full&b=1&s=4096&n=8&z=3&g=h100-sxm-80gb';
  const STORE = { state: 'trainmem.state', customs: 'trainmem.customs', prefs: 'trainmem.prefs', pinned: 'trainmem.pinned' };
  const MAX_CUSTOMS = 20;
  const NEW_CUSTOM_GPU = { memory_bytes: 25769803776 };  // 24 GiB: a starting value for a custom device
  const SLOW_SOLVE_MS = 100;  // a solve slower than this shows its progress indicator
  const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

  // Which controls are in the way: a group with data-show="name" is shown when SHOW[name](document).
  const method = (d) => d.method || 'full';
  const algorithm = (d) => (d.rlhf && d.rlhf.algorithm) || '';
  const SHOW = {
    model_count: (d) => !!d.model && 'num_parameters' in d.model,
    lora: (d) => method(d) === 'lora' || method(d) === 'qlora',
    qlora: (d) => method(d) === 'qlora',
    freeze: (d) => method(d) === 'freeze',
    rlhf: (d) => algorithm(d) !== '',
    reward: (d) => algorithm(d) === 'ppo' || algorithm(d) === 'grpo',
    reward_count: (d) => !!Url.getPath(d, 'rlhf.reward.model') && 'num_parameters' in Url.getPath(d, 'rlhf.reward.model'),
    critic: (d) => algorithm(d) === 'ppo',
    critic_count: (d) => !!Url.getPath(d, 'rlhf.critic.model') && 'num_parameters' in Url.getPath(d, 'rlhf.critic.model'),
    rollout: (d) => algorithm(d) === 'ppo' || algorithm(d) === 'grpo',
    selective: (d) => d.activation_checkpointing === 'selective',
    pipeline: (d) => Url.getPath(d, 'parallel.pipeline_parallel_size') > 1,
    custom_gpu: (d) => !!d.gpu && typeof d.gpu === 'object',
  };

  let engine = null;
  let catalog = null;  // {models, gpus, gpuById}
  const state = { doc: {}, unit: 'GiB', customs: [], pinned: null, lastCustomGpu: null };
  let saveTimer = 0;
  let pendingState = null;  // the last state, written to storage shortly after typing stops
  let generation = 0;  // bumps on every update; background work for an older one stops
  let editing = false;  // inside one typing gesture: history entries are replaced, not pushed
  let chart = null;
  let chartColors = null;  // the theme's colours, read again when the theme changes
  let lastResult = null;  // {doc, out} on screen
  let pinnedCache = { hash: null, out: null };
  let firstEstimateMarked = false;
  let gpuRows = new Map();  // catalog GPU id -> its row in the GPU table (built once)
  let curveCharts = { seq: null, mbs: null };
  let lastSolveMs = 0;

  // ---- storage (never trusted: parsed defensively, shown with textContent only) ----
  function load(key) {
    try {
      return JSON.parse(localStorage.getItem(key));
    } catch (e) {
      return null;
    }
  }
  function save(key, value) {
    try {
      localStorage.setItem(key, JSON.stringify(value));
    } catch (e) {
      // storage full or disabled: the page works without it
    }
  }

  function saveState() {
    if (pendingState !== null) save(STORE.state, pendingState);
    pendingState = null;
  }

  // ---- document helpers ----
  function clone(o) {
    return JSON.parse(JSON.stringify(o));
  }
  // Removes a field; a list element (a measured point) left in the middle becomes {}, trailing
  // empty elements go, and so do objects and lists left empty.
  function removeKey(o, key) {
    if (!Array.isArray(o)) {
      delete o[key];
      return;
    }
    if (Number(key) < o.length - 1) o[key] = {};
    else o.length = Math.min(o.length, Number(key));
    while (o.length && Object.keys(o[o.length - 1]).length === 0) o.pop();
  }
  function deletePath(doc, path) {
    const parts = path.split('.');
    const stack = [doc];
    for (const p of parts.slice(0, -1)) {
      const next = stack[stack.length - 1][p];
      if (!next || typeof next !== 'object') return;
      stack.push(next);
    }
    removeKey(stack[stack.length - 1], parts[parts.length - 1]);
    for (let i = stack.length - 1; i > 0; i--) {
      if (Object.keys(stack[i]).length === 0) removeKey(stack[i - 1], parts[i - 1]);
    }
  }

  // The estimate document the engine sees: blocks that do not apply to the chosen method are left
  // out, and so are the panel's solve options.
  function effectiveDoc(doc) {
    const d = clone(doc);
    delete d.solve;
    if (!SHOW.lora(d)) delete d.lora;
    if (!SHOW.qlora(d)) delete d.qlora;
    if (!SHOW.freeze(d)) delete d.freeze;
    if (!SHOW.rlhf(d)) delete d.rlhf;
    else {
      if (!SHOW.reward(d)) delete d.rlhf.reward;
      if (!SHOW.critic(d)) delete d.rlhf.critic;
      if (!SHOW.rollout(d)) delete d.rlhf.rollout;
    }
    if (!SHOW.selective(d)) delete d.selective_policy;
    return d;
  }

  // What the link carries: the estimate document and the panel's solve options.
  function linkDoc(doc) {
    const d = effectiveDoc(doc);
    if (doc.solve) d.solve = clone(doc.solve);
    return d;
  }

  function estimate(doc) {
    return JSON.parse(engine.estimate(JSON.stringify(doc)));
  }

  // ---- controls <-> document ----
  const unitBytes = () => R.UNIT_BYTES[state.unit];
  const parseNumber = (raw) => (NUMBER.test(raw) && Number.isFinite(Number(raw)) ? Number(raw) : raw);  // text goes to the engine, which names the field

  function readControl(elem) {
    const raw = elem.value.trim();
    if (raw === '') return undefined;
    switch (elem.dataset.type) {
      case 'num': return parseNumber(raw);
      case 'bytes': {
        const n = parseNumber(raw);
        return typeof n === 'number' ? Math.round(n * unitBytes()) : n;
      }
      case 'bool': return raw === 'true';
      case 'list': return raw.split(',').map((s) => s.trim()).filter(Boolean);
      case 'modules': return raw === 'all-linear' ? raw : raw.split(',').map((s) => s.trim()).filter(Boolean);
      case 'gpu': return raw === '__custom' ? state.lastCustomGpu || { ...NEW_CUSTOM_GPU } : raw;
      default: return raw;
    }
  }

  function writeControl(elem, v) {
    let text = '';
    if (v !== undefined && v !== null) {
      switch (elem.dataset.type) {
        case 'bytes': text = typeof v === 'number' ? String(+(v / unitBytes()).toFixed(4)) : String(v); break;
        case 'bool': text = v === true ? 'true' : v === false ? 'false' : String(v); break;
        case 'list':
        case 'modules': text = Array.isArray(v) ? v.join(',') : String(v); break;
        case 'gpu': text = typeof v === 'object' ? '__custom' : String(v); break;
        default: text = typeof v === 'object' ? JSON.stringify(v) : String(v);
      }
    }
    elem.value = text;
  }

  function pickerValue(spec) {
    if (!spec || typeof spec !== 'object') return '';
    if ('preset' in spec) return 'p:' + spec.preset;
    if ('hf_config' in spec) return 'c:' + addCustom(spec.hf_config);
    if ('num_parameters' in spec) return 'n';
    return '';
  }

  function writeControls() {
    for (const elem of document.querySelectorAll('[data-path]')) {
      if (elem === document.activeElement && elem.dataset.type === 'bytes') continue;  // do not re-round what is being typed
      writeControl(elem, Url.getPath(state.doc, elem.dataset.path));
    }
    for (const sel of document.querySelectorAll('[data-picker]')) fillPicker(sel);
    showGroups();
  }

  function showGroups() {
    for (const elem of document.querySelectorAll('[data-show]')) elem.hidden = !SHOW[elem.dataset.show](state.doc);
  }

  // ---- model pickers (main model, reward, critic): presets, custom configs, parameter count ----
  function addCustom(config) {
    const text = JSON.stringify(config);
    let i = state.customs.findIndex((c) => JSON.stringify(c.config) === text);
    if (i < 0) {
      const name = String(config._name_or_path || config.name_or_path || (config.model_type || 'custom') + '-' + (config.hidden_size || '')).slice(0, 80);
      state.customs.push({ name, config });
      if (state.customs.length > MAX_CUSTOMS) state.customs.shift();
      save(STORE.customs, state.customs);
      i = state.customs.length - 1;
    }
    return i;
  }

  function fillPicker(sel, filter) {
    const path = sel.dataset.picker;
    const current = pickerValue(Url.getPath(state.doc, path));
    const models = filter || catalog.models;
    const opt = (value, text) => R.el('option', { value, text });
    const options = [];
    if (path !== 'model') options.push(opt('', t('model_none')));
    const presets = R.el('optgroup', { label: t('presets') },
      models.map((m) => opt('p:' + m.id, m.display_name + ' · ' + Search.sizeLabel(m.parameters))));
    if (current.startsWith('p:') && !models.some((m) => 'p:' + m.id === current)) {
      const m = catalog.models.find((x) => 'p:' + x.id === current);
      presets.prepend(opt(current, m ? m.display_name + ' · ' + Search.sizeLabel(m.parameters) : current.slice(2)));
    }
    options.push(presets);
    if (state.customs.length) {
      options.push(R.el('optgroup', { label: t('customs') }, state.customs.map((c, i) => opt('c:' + i, c.name))));
    }
    options.push(opt('n', t('count_only')));
    sel.replaceChildren(...options);
    sel.value = current;
  }

  function readPicker(sel) {
    const v = sel.value;
    if (v === '') return undefined;
    if (v.startsWith('p:')) return { preset: v.slice(2) };
    if (v.startsWith('c:')) return { hf_config: state.customs[Number(v.slice(2))].config };
    // parameter count: start from the chosen preset's count when there was one
    const before = Url.getPath(state.doc, sel.dataset.picker);
    const preset = before && catalog.models.find((m) => m.id === before.preset);
    return { num_parameters: preset ? preset.parameters : 1e9 };
  }

  function selectModel(spec, note) {
    state.doc.model = spec;
    fillPicker($('model-select'), currentFilter());
    $('model-note').textContent = note || '';
    update({ history: 'push' });
  }

  function currentFilter() {
    return Search.filterModels(catalog.models, $('model-search').value);
  }

  function onSearch() {
    const q = $('model-search').value;
    const ref = Search.parseHfReference(q);
    if (ref) {
      const hit = Search.presetForHfReference(catalog.models, q);
      if (hit) {
        const note = hit.exact ? t('hf_matched', { hf: ref, name: hit.model.display_name })
          : t('hf_similar', { hf: ref, name: hit.model.display_name, hf2: hit.model.hf_id });
        selectModel({ preset: hit.model.id }, note);
        return;
      }
      $('model-note').textContent = t('hf_unknown', { hf: ref });
      $('custom-model').open = true;
      return;
    }
    const found = currentFilter();
    fillPicker($('model-select'), found);
    $('model-note').textContent = q.trim() === '' ? '' : found.length ? t('matches', { n: found.length }) : t('no_match', { query: q.trim() });
  }

  function useConfigText(text) {
    let config;
    try {
      config = JSON.parse(text);
    } catch (e) {
      $('config-note').textContent = t('config_bad_json', { message: e.message });
      return;
    }
    if (config === null || typeof config !== 'object' || Array.isArray(config)) {
      $('config-note').textContent = t('config_not_object');
      return;
    }
    const i = addCustom(config);
    $('config-note').textContent = t('config_added', { name: state.customs[i].name });
    selectModel({ hf_config: config });
  }

  function readFile(file) {
    const reader = new FileReader();
    reader.onload = () => {
      $('config-text').value = String(reader.result);
      useConfigText(String(reader.result));
    };
    reader.readAsText(file);
  }

  // ---- URL and history ----
  function writeUrl(hash, mode) {
    if (mode === 'none' || location.hash === hash) return;
    try {
      if (mode === 'push') history.pushState(null, '', hash);
      else history.replaceState(null, '', hash);
    } catch (e) {
      location.replace(hash);
    }
  }

  // A link's problems: codec-level ones, then fields the engine rejects (each left out and named).
  function showLinkProblems(problems) {
    $('link-problems').replaceChildren(...problems.map((p) => R.el('li', {
      text: p.engine ? t('link_rejected', { param: p.param, path: p.path, message: p.message })
        : t('link_problem', { param: p.param, path: p.path ? ' (' + p.path + ')' : '', value: p.value, message: p.message }),
    })));
  }

  const KEY_FOR_PATH = new Map(Url.KEYS.map(([key, path]) => [path, key]));
  // The document field (a URL key's path) that an engine error names, or null.
  function linkPathFor(doc, field) {
    for (let f = field; f; f = f.includes('.') ? f.slice(0, f.lastIndexOf('.')) : '') {
      if (KEY_FOR_PATH.has(f) && Url.getPath(doc, f) !== undefined) return f;
      if (f === 'gpu' && doc.gpu !== undefined) return 'gpu';
    }
    return null;
  }

  // Leaves out of a loaded document every field the engine rejects, keeping the rest.
  function dropRejectedFields(problems) {
    for (let round = 0; round < 8; round++) {
      const out = estimate(effectiveDoc(state.doc));
      if (!out.error) return;
      const paths = new Set();
      for (const e of out.errors) {
        const path = linkPathFor(state.doc, e.field);
        if (path && !paths.has(path)) {
          paths.add(path);
          problems.push({ engine: true, param: KEY_FOR_PATH.get(path) || path, path, message: e.message });
        }
      }
      if (paths.size === 0) return;
      for (const p of paths) deletePath(state.doc, p);
      if (!state.doc.model || Object.keys(state.doc.model).length === 0) state.doc.model = Url.decode(DEFAULT_HASH).doc.model;
    }
  }

  function loadHash(hash, problems) {
    const decoded = Url.decode(hash);
    problems.push(...decoded.problems);
    state.doc = decoded.doc || Url.decode(DEFAULT_HASH).doc;
    if (!state.doc.model) state.doc.model = Url.decode(DEFAULT_HASH).doc.model;
    dropRejectedFields(problems);
  }

  // ---- errors next to their fields ----
  function controlFor(field) {
    for (const [prefix, picker] of [['rlhf.reward.model', 'rlhf.reward.model'], ['rlhf.critic.model', 'rlhf.critic.model'], ['model', 'model']]) {
      if (field === prefix + '.num_parameters') return document.querySelector('[data-path="' + field + '"]');
      if (field === prefix || field.startsWith(prefix + '.')) return document.querySelector('[data-picker="' + picker + '"]');
    }
    for (let f = field; f; f = f.includes('.') ? f.slice(0, f.lastIndexOf('.')) : '') {
      const c = document.querySelector('[data-path="' + CSS.escape(f) + '"]');
      if (c) return c;
    }
    return null;
  }

  // Errors of one source ('estimate': the form, or 'solve': the What fits? panel) in its list and
  // next to their controls; the other source's marks stay.
  function showErrors(errors, scope, list) {
    for (const e of document.querySelectorAll('.field-error[data-scope="' + scope + '"]')) e.remove();
    for (const c of document.querySelectorAll('[data-invalid="' + scope + '"]')) {
      c.removeAttribute('aria-invalid');
      c.removeAttribute('aria-describedby');
      c.removeAttribute('data-invalid');
    }
    list.replaceChildren(...errors.map((e) => R.el('li', {}, [R.el('code', { text: e.field || e.code }), document.createTextNode(' ' + e.message)])));
    errors.forEach((e, i) => {
      const field = e.field || '';
      if (scope === 'solve' && !field.startsWith('solve.')) return;  // the form's fields are the estimate's to mark
      const c = controlFor(field);
      if (!c || c.dataset.invalid) return;
      const id = 'field-error-' + scope + '-' + i;
      c.dataset.invalid = scope;
      c.setAttribute('aria-invalid', 'true');
      c.setAttribute('aria-describedby', ((c.getAttribute('aria-describedby') || '') + ' ' + id).trim());
      c.after(R.el('p', { class: 'field-error', id, text: e.message, 'data-testid': 'field-error', 'data-scope': scope }));
      for (let d = c.closest('details'); d; d = d.parentElement.closest('details')) d.open = true;
    });
  }

  // ---- results ----
  function deviceTotal(doc) {
    if (doc.gpu && typeof doc.gpu === 'object') return doc.gpu.memory_bytes;
    const g = catalog.gpuById.get(doc.gpu);
    return g ? g.device_total_bytes || g.memory.bytes : null;
  }

  function gpuName(doc) {
    if (doc.gpu && typeof doc.gpu === 'object') return t('custom_gpu');
    const g = catalog.gpuById.get(doc.gpu);
    return g ? g.display_name : String(doc.gpu);
  }

  function renderResult(doc, out) {
    const body = $('result-body');
    const mini = $('mini');
    mini.hidden = false;
    if (out.error) {
      mini.textContent = t('no_estimate');
      body.hidden = true;
      $('status').textContent = t('no_estimate');
      $('status').className = 'bad';
      $('global-batch').textContent = '';
      showErrors(out.errors, 'estimate', $('errors'));
      lastResult = null;
      return;
    }
    showErrors([], 'estimate', $('errors'));
    body.hidden = false;
    const g = out.per_gpu;
    const unit = state.unit;
    $('status').textContent = t('ready');
    $('status').className = '';
    $('peak').textContent = R.formatBytes(g.peak, unit);
    $('peak').dataset.bytes = String(g.peak);
    $('lower-bound').textContent = R.formatBytes(g.model_states, unit) + ' / ' + R.formatBytes(g.peak, unit);
    const fit = $('fit');
    fit.textContent = out.fits === null ? t('fit_unknown') : t(out.fits ? 'fits' : 'no_fit', { gpu: gpuName(doc) });
    fit.className = out.fits === true ? 'ok' : out.fits === false ? 'bad' : '';
    mini.textContent = t('peak_per_gpu') + ' ' + $('peak').textContent + ' · ' + fit.textContent + ' ↓';
    const headroom = out.gpu_capacity_bytes === null || g.peak === null ? null : out.gpu_capacity_bytes - g.peak;
    $('headroom').textContent = headroom === null ? '—' : headroom >= 0 ? R.formatBytes(headroom, unit) : t('short_by', { bytes: R.formatBytes(-headroom, unit) });
    $('global-batch').textContent = t('global_batch', { n: R.formatCount(out.global_batch_size) });
    R.renderBreakdown($('breakdown').tBodies[0], out, unit);
    R.renderDevice($('device').tBodies[0], out, unit, deviceTotal(doc));
    R.renderPhases($('phases').tBodies[0], out, unit);
    R.renderFacts($('facts').tBodies[0], out);
    R.renderRlhf($('rlhf-box'), $('rlhf-models'), out, unit);
    R.renderHost($('host').tBodies[0], out, unit);
    R.renderDisk($('disk').tBodies[0], out, unit);
    R.renderWarnings($('warnings'), out);
    lastResult = { doc, out };
  }

  function pinnedResult() {
    if (!state.pinned) return null;
    if (pinnedCache.hash !== state.pinned) {
      const decoded = Url.decode(state.pinned);
      pinnedCache = { hash: state.pinned, doc: decoded.doc, out: decoded.doc ? estimate(decoded.doc) : null };
    }
    return pinnedCache.out && !pinnedCache.out.error ? pinnedCache : null;
  }

  function renderCompareAndChart() {
    const pinned = pinnedResult();
    $('unpin').hidden = !state.pinned;
    $('compare-box').hidden = !(pinned && lastResult);
    const bars = [];
    if (lastResult) bars.push({ label: t('current'), out: lastResult.out });
    if (pinned) bars.push({ label: t('pinned'), out: pinned.out });
    if (lastResult) {
      chartColors = chartColors || R.themeColors();
      chart = R.drawChart($('chart'), chart, bars, state.unit, chartColors);
    }
    if (!(pinned && lastResult)) return;
    R.renderCompare($('compare').tHead, $('compare').tBodies[0], pinned.out, lastResult.out, state.unit);
    const a = new Map(Url.leafPaths(pinned.doc, '', []).map((p) => [p, JSON.stringify(Url.getPath(pinned.doc, p))]));
    const b = new Map(Url.leafPaths(lastResult.doc, '', []).map((p) => [p, JSON.stringify(Url.getPath(lastResult.doc, p))]));
    const changed = [...new Set([...a.keys(), ...b.keys()])].filter((p) => a.get(p) !== b.get(p))
      .map((p) => p + ': ' + (a.has(p) ? a.get(p) : '—') + ' → ' + (b.has(p) ? b.get(p) : '—'));
    $('compare-inputs').textContent = changed.length ? t('changed_inputs', { list: changed.join('; ') }) : t('same_inputs');
  }

  // ---- after the result is drawn: every catalog GPU at this count, then the engine's solve ----
  const gpuLabel = (id) => (catalog.gpuById.has(id) ? catalog.gpuById.get(id).display_name : id);

  function buildGpuTable() {
    gpuRows = new Map(catalog.gpus.map((g) => [g.id, R.gpuTableRow(g)]));
    $('gpu-table').tBodies[0].replaceChildren(...gpuRows.values());
  }

  function gpuHere(doc, gpu) {
    const d = clone(doc);
    d.gpu = gpu.id;
    const out = estimate(d);
    return out.error ? { error: true } : { usable: out.gpu_capacity_bytes, peak: out.per_gpu.peak, fits: out.fits === true };
  }

  function fillGpuOptions(res) {
    const options = new Map(res.error ? [] : res.gpu_options.map((o) => [o.gpu, o]));
    const message = res.error ? res.errors.map((e) => e.message).join('; ') : '';
    for (const [id, tr] of gpuRows) R.fillGpuOption(tr, options.get(id) || { error: message || t('unknown') }, WhatFits.MAX_GPUS);
  }

  // Marks everything the solve will redraw as pending: nothing computed for older inputs stays on screen (B36).
  function markPending() {
    $('solve-body').classList.add('stale');
    $('what-fits').setAttribute('aria-busy', 'true');
    $('gpu-table').setAttribute('aria-busy', 'true');
    for (const tr of gpuRows.values()) {
      R.fillGpuHere(tr, { pending: true }, state.unit);
      R.fillGpuOption(tr, { pending: true }, WhatFits.MAX_GPUS);
    }
  }

  function settle() {
    $('what-fits').setAttribute('aria-busy', 'false');
    $('gpu-table').setAttribute('aria-busy', 'false');
    $('solve-progress').hidden = true;
  }

  // The panel has nothing to show: the estimate failed, no GPU is chosen, or solve refused the input.
  function noAnswers(message, errors) {
    $('solve-body').hidden = true;
    showErrors(errors || [], 'solve', $('solve-errors'));
    if (message) $('solve-errors').prepend(R.el('li', { text: message }));
  }

  function runSolve(doc, options) {
    const request = WhatFits.request(doc, options, true);
    const t0 = performance.now();
    const res = JSON.parse(engine.solve(JSON.stringify(request)));
    const t1 = performance.now();
    lastSolveMs = t1 - t0;
    performance.measure('trainmem-solve', { start: t0, end: t1, detail: { candidates: res.strategies ? res.strategies.candidates : 0 } });
    return { request, res, ms: lastSolveMs };
  }

  function showSolve(doc, out, { request, res, ms }) {
    const unit = state.unit;
    if (res.error) {
      noAnswers(null, res.errors);
      return;
    }
    showErrors([], 'solve', $('solve-errors'));
    const body = $('solve-body');
    body.hidden = false;
    WhatFits.renderAnswers($('answers'), res, unit, gpuLabel);
    const measured = Url.getPath(request, 'solve.calibration.0.measured_bytes');
    WhatFits.renderCalibration($('calibration-result'), $('calibration-table').tBodies[0], res, unit, measured);
    WhatFits.renderReasons($('solve-reasons'), res);
    WhatFits.renderStrategies($('strategies'), $('strategy-summary'), res, unit, ms, loadStrategy);
    chartColors = chartColors || R.themeColors();
    const lines = { capacity: out.gpu_capacity_bytes, budget: res.budget_bytes, unit, colors: chartColors };
    curveCharts.seq = Curves.draw($('curve-seq'), curveCharts.seq, { ...lines, points: res.curves.peak_vs_seq_length, xLabel: t('seq_length') });
    curveCharts.mbs = Curves.draw($('curve-mbs'), curveCharts.mbs, { ...lines, points: res.curves.peak_vs_micro_batch, xLabel: t('micro_batch_size') });
    $('solve-json').textContent = JSON.stringify(request, null, 2);
    body.classList.remove('stale');
  }

  function background(doc, out, options, gen) {
    markPending();
    const progress = $('solve-progress');
    progress.hidden = false;  // shown only past SLOW_SOLVE_MS (style.css), at once when the last solve was slow
    progress.classList.toggle('now', lastSolveMs > SLOW_SOLVE_MS);
    requestAnimationFrame(() => setTimeout(() => {
      if (gen !== generation) return;  // the inputs changed: a newer run is on its way
      if (out.error) {
        for (const tr of gpuRows.values()) R.fillGpuHere(tr, { error: true }, state.unit);
        fillGpuOptions({ error: true, errors: [{ message: t('no_estimate') }] });
        noAnswers(t('no_estimate'));
        settle();
        return;
      }
      for (const gpu of catalog.gpus) R.fillGpuHere(gpuRows.get(gpu.id), gpuHere(doc, gpu), state.unit);
      if (doc.gpu) {
        const solved = runSolve(doc, options);
        fillGpuOptions(solved.res);
        showSolve(doc, out, solved);
      } else {
        // No GPU chosen: the panel has no question to answer; the table still gets every GPU's fewest
        // count (solve needs some GPU; its gpu_options do not depend on which).
        fillGpuOptions(JSON.parse(engine.solve(JSON.stringify(WhatFits.request({ ...doc, gpu: catalog.gpus[0].id }, options, false)))));
        noAnswers(t('solve_needs_gpu'));
      }
      settle();
    }, 0));
  }

  // A ranked strategy into the inputs: the estimate follows.
  function loadStrategy(row) {
    state.doc = WhatFits.strategyDoc(state.doc, row);
    writeControls();
    update({ history: 'push' });
    editing = false;
  }

  // ---- the update loop ----
  function update(opts) {
    const gen = ++generation;
    showGroups();
    const doc = effectiveDoc(state.doc);
    const out = estimate(doc);
    renderResult(doc, out);
    renderCompareAndChart();
    $('input-json').textContent = JSON.stringify(doc, null, 2);
    $('search-world-size').placeholder = String(Url.getPath(doc, 'parallel.world_size') || document.querySelector('[data-path="parallel.world_size"]').placeholder);
    const hash = Url.encode(linkDoc(state.doc));
    writeUrl(hash, (opts && opts.history) || 'replace');
    pendingState = hash;
    clearTimeout(saveTimer);
    saveTimer = setTimeout(saveState, 250);
    background(doc, out, state.doc.solve, gen);
    if (!firstEstimateMarked && !out.error) {
      firstEstimateMarked = true;
      performance.mark('trainmem-first-estimate');
    }
  }

  function onControlInput(event) {
    const elem = event.target;
    if (elem.dataset.path) {
      const v = readControl(elem);
      if (elem.dataset.type === 'gpu' && typeof state.doc.gpu === 'object') state.lastCustomGpu = state.doc.gpu;
      if (v === undefined) deletePath(state.doc, elem.dataset.path);
      else Url.setPath(state.doc, elem.dataset.path, v);
    } else if (elem.dataset.picker) {
      const v = readPicker(elem);
      if (v === undefined) deletePath(state.doc, elem.dataset.picker);
      else Url.setPath(state.doc, elem.dataset.picker, v);
    } else {
      return;
    }
    if (elem.dataset.type === 'gpu' || elem.dataset.picker) writeControls();
    update({ history: editing ? 'replace' : 'push' });
    editing = true;
  }

  // ---- preferences: units, language, theme ----
  function applyPrefs() {
    $('unit').value = state.unit;
    for (const u of document.querySelectorAll('.unit')) u.textContent = '(' + state.unit + ')';
    I18n.apply(document, $('lang').value);
    document.documentElement.dataset.theme = $('theme').value;
    chartColors = null;
    save(STORE.prefs, { unit: state.unit, lang: $('lang').value, theme: $('theme').value });
    Accuracy.render($('accuracy-summary'), $('accuracy-table').tBodies[0], window.TRAINMEM_ACCURACY, state.unit);
  }

  function onPrefs() {
    state.unit = $('unit').value === 'GB' ? 'GB' : 'GiB';
    applyPrefs();
    if (!engine) return;
    writeControls();
    fillPicker($('model-select'), currentFilter());
    update({ history: 'none' });
  }

  function download(name, type, text) {
    const a = R.el('a', { href: URL.createObjectURL(new Blob([text], { type })), download: name });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  }

  function wire() {
    const form = $('inputs');
    for (const area of [form, $('what-fits'), $('gpu-table')]) {  // every control with a data-path
      area.addEventListener('input', onControlInput);
      area.addEventListener('change', (e) => {
        if (e.target.id === 'config-file') {
          if (e.target.files[0]) readFile(e.target.files[0]);
          return;
        }
        editing = false;  // the gesture is committed: the next edit gets its own history entry
      });
    }
    form.addEventListener('submit', (e) => e.preventDefault());
    $('model-search').addEventListener('input', onSearch);
    $('model-search').addEventListener('keydown', (e) => {
      if (e.key !== 'Enter') return;
      e.preventDefault();
      const first = currentFilter()[0];
      if (first) selectModel({ preset: first.id });
    });
    $('config-use').addEventListener('click', () => useConfigText($('config-text').value));
    const drop = $('config-text');
    drop.addEventListener('dragover', (e) => e.preventDefault());
    drop.addEventListener('drop', (e) => {
      e.preventDefault();
      const file = e.dataTransfer.files[0];
      if (file) readFile(file);
      else useConfigText(e.dataTransfer.getData('text/plain'));
    });
    matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
      chartColors = null;
      renderCompareAndChart();
      update({ history: 'none' });  // the curves take the theme's colours
    });
    $('mini').addEventListener('click', () => $('results').scrollIntoView());
    for (const id of ['unit', 'lang', 'theme']) $(id).addEventListener('change', onPrefs);
    $('copy-link').addEventListener('click', () => {
      const done = () => { $('status').textContent = t('copied'); };
      const fail = () => { $('status').textContent = t('copy_failed'); };
      if (navigator.clipboard) navigator.clipboard.writeText(location.href).then(done, fail);
      else fail();
    });
    $('pin').addEventListener('click', () => {
      if (!lastResult) return;
      state.pinned = Url.encode(lastResult.doc);
      save(STORE.pinned, state.pinned);
      renderCompareAndChart();
    });
    $('unpin').addEventListener('click', () => {
      state.pinned = null;
      save(STORE.pinned, null);
      renderCompareAndChart();
    });
    $('export-md').addEventListener('click', () => {
      if (lastResult) download('trainmem-estimate.md', 'text/markdown', R.markdown(location.href, lastResult.doc, lastResult.out, state.unit));
    });
    $('export-json').addEventListener('click', () => {
      if (lastResult) download('trainmem-estimate.json', 'application/json', JSON.stringify({ input: lastResult.doc, output: lastResult.out }, null, 2) + '\n');
    });
    window.addEventListener('pagehide', saveState);
    window.addEventListener('popstate', () => {
      if (Url.encode(linkDoc(state.doc)) === location.hash) return;
      const problems = [];
      loadHash(location.hash, problems);
      showLinkProblems(problems);
      writeControls();
      update({ history: 'none' });
    });
  }

  // ---- start ----
  const prefs = load(STORE.prefs) || {};
  state.unit = prefs.unit === 'GB' ? 'GB' : 'GiB';
  $('lang').value = prefs.lang === 'zh' || prefs.lang === 'en' ? prefs.lang : /^zh/i.test(navigator.language) ? 'zh' : 'en';
  $('theme').value = prefs.theme === 'light' || prefs.theme === 'dark' ? prefs.theme : '';
  applyPrefs();
  $('offline-zip').hidden = location.protocol === 'file:';

  createEngine().then((module) => {
    engine = module;
    const c = JSON.parse(engine.catalog(''));
    catalog = { models: c.models, gpus: c.gpus, gpuById: new Map(c.gpus.map((g) => [g.id, g])) };
    R.renderCatalogErrors($('catalog-errors'), $('catalog-error-list'), Array.isArray(c.errors) ? c.errors : []);
    buildGpuTable();
    const gpuSelect = document.querySelector('[data-path="gpu"]');
    gpuSelect.replaceChildren(R.el('option', { value: '', text: t('model_none') }),
      ...catalog.gpus.map((g) => R.el('option', { value: g.id, text: g.display_name })),
      R.el('option', { value: '__custom', text: t('custom_gpu') }));
    const customs = load(STORE.customs);
    state.customs = Array.isArray(customs) ? customs.filter((c) => c && typeof c.name === 'string' && c.config && typeof c.config === 'object') : [];
    const pinned = load(STORE.pinned);
    state.pinned = typeof pinned === 'string' && Url.decode(pinned).doc ? pinned : null;

    const problems = [];
    const stored = load(STORE.state);
    if (location.hash.length > 1) loadHash(location.hash, problems);
    else if (typeof stored === 'string' && Url.decode(stored).doc && Url.decode(stored).problems.length === 0) loadHash(stored, []);
    else loadHash(DEFAULT_HASH, problems);
    showLinkProblems(problems);
    writeControls();
    wire();
    update({ history: 'replace' });
  }).catch((e) => {
    $('status').textContent = t('engine_failed', { message: e && e.message ? e.message : String(e) });
    $('status').className = 'bad';
  });
})();
