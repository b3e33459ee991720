// The page computes what the CLI computes, keeps results fresh, and shows bad input as field errors.
const { test, expect, cli, cliSolve, interceptEngine } = require('./fixtures');
const Render = require('../web/src/format.js');

// Every catalog GPU, as the CLI lists them.
const CATALOG_GPUS = JSON.parse(require('child_process').execFileSync(require('path').join(__dirname, '..', 'build-native', 'trainmem'),
  ['catalog', 'gpus'])).gpus.length;

const COMPONENTS = ['parameters', 'gradients', 'optimizer_states', 'model_states', 'activations', 'temporary_buffers',
  'peak_allocated', 'fragmentation', 'peak_reserved', 'cuda_context', 'peak'];

async function chooseSetup(app) {
  await app.model('llama-3-8b');
  await app.set('gpu', 'a100-80gb');
  await app.set('parallel.world_size', 4);
  await app.set('parallel.zero_stage', 2);
  await app.set('batch.seq_length', 2048);
  await app.set('activation_checkpointing', 'full');
}

for (const where of ['http', 'subpath', 'offline']) {
  test(`preset and GPU: every number equals the CLI's for the same document (${where})`, async ({ app, page }) => {
    await app.open(where);
    await chooseSetup(app);
    const doc = await app.inputDoc();
    expect(doc).toEqual({ model: { preset: 'llama-3-8b' }, method: 'full', batch: { micro_batch_size: 1, seq_length: 2048 },
      activation_checkpointing: 'full', parallel: { world_size: 4, zero_stage: 2 }, gpu: 'a100-80gb' });
    const expected = cli(doc);
    for (const c of COMPONENTS) expect(await app.bytes('b-' + c), c).toBe(expected.per_gpu[c]);
    await expect(page.getByTestId('peak')).toHaveText(Render.formatBytes(expected.per_gpu.peak, 'GiB'));
    await expect(page.getByTestId('trainable')).toHaveText(expected.parameters.trainable.toLocaleString('en-US'));
    await expect(page.getByTestId('global-batch-size')).toHaveText(String(expected.global_batch_size));
    expect(await app.bytes('k-training_state')).toBe(expected.checkpoint.training_state_bytes);
    expect(await app.bytes('d-capacity')).toBe(expected.gpu_capacity_bytes);
    const words = { fits: /^fits on NVIDIA A100/, borderline: /^borderline on NVIDIA A100/, does_not_fit: /^does not fit on NVIDIA A100/ };
    await expect(page.getByTestId('fit')).toHaveText(words[expected.verdict]);
    await expect(page.getByTestId('fit')).toHaveAttribute('data-verdict', expected.verdict);
    for (const x of expected.explanations) await expect(page.getByTestId('explain-' + x.component)).toContainText(x.formula);
    for (const w of expected.warnings) await expect(page.getByTestId('warnings')).toContainText(w.message);
  });
}

test('each input change is one engine call for everything shown, plus one solve in its own worker; typing supersedes', async ({ app, page }) => {
  await interceptEngine(page, () => {});
  await app.open();
  await app.solved();
  await app.gpuTableDone();
  // Loading the page is one input change too: its first overview also checks the link's fields.
  expect(await page.evaluate(() => window.__engineCalls.map((c) => c.fn))).toEqual(['overview', 'solve']);
  await app.set('gpu', 'a100-80gb');
  await app.solved();
  await app.gpuTableDone();
  const count = () => page.evaluate(() => window.__engineCalls.length);
  const since = (n) => page.evaluate((from) => window.__engineCalls.slice(from), n);
  for (const [path, value] of [['batch.seq_length', 2048], ['parallel.world_size', 16], ['method', 'lora'], ['gpu', 'h100-sxm-80gb'],
    ['activation_checkpointing', 'full']]) {
    const before = await count();
    await app.set(path, value);
    await app.solved();
    await app.gpuTableDone();
    const calls = await since(before);
    expect(calls.map((c) => c.fn), path).toEqual(['overview', 'solve']);
    expect(calls[0].lane, path).not.toBe(calls[1].lane);  // the solve runs in its own worker
    const doc = await app.inputDoc();
    expect(JSON.parse(calls[0].args[0]), path).toEqual(doc);
    // The GPU table from that one call: a row's numbers are the CLI's estimate with that GPU.
    for (const gpu of ['t4-16gb', 'h100-sxm-80gb', 'mi300x-192gb']) {
      const expected = cli({ ...doc, gpu });
      const row = page.locator(`#gpu-table tr[data-gpu="${gpu}"]`);
      expect(Number(await row.getByTestId('peak-here').getAttribute('data-bytes')), path + ' ' + gpu).toBe(expected.per_gpu.peak);
      expect(Number(await row.locator('td').nth(0).getAttribute('data-bytes')), path + ' ' + gpu).toBe(expected.gpu_capacity_bytes);
      await expect(row.locator('[data-verdict]'), path + ' ' + gpu).toHaveAttribute('data-verdict', expected.verdict);
    }
  }
  // Typing: at most one overview and one solve per keystroke (a newer one supersedes the older),
  // nothing else, and the last of each is for the last keystroke.
  const before = await count();
  await app.field('batch.seq_length').fill('');
  await app.field('batch.seq_length').pressSequentially('8192');
  await app.settled();
  await app.solved();
  await app.gpuTableDone();
  const calls = await since(before);
  const of = (fn) => calls.filter((c) => c.fn === fn).map((c) => JSON.parse(c.args[0]));
  expect(calls.filter((c) => c.fn !== 'overview' && c.fn !== 'solve')).toEqual([]);
  expect(of('overview').length).toBeLessThanOrEqual(5);  // cleared, then four keystrokes
  expect(of('solve').length).toBeLessThanOrEqual(5);
  expect(of('overview').pop().batch.seq_length).toBe(8192);
  expect(of('solve').pop().batch.seq_length).toBe(8192);
  expect(await app.bytes('b-peak')).toBe(cli(await app.inputDoc()).per_gpu.peak);
});

test('a LoRA rank change updates the trainable parameters', async ({ app, page }) => {
  await app.open();
  await app.model('llama-2-7b');
  await app.set('method', 'lora');
  for (const r of [8, 16, 64]) {
    await app.set('lora.r', r);
    const expected = cli(await app.inputDoc());
    await expect(page.getByTestId('trainable')).toHaveText(expected.parameters.trainable.toLocaleString('en-US'));
  }
  await expect(page.getByTestId('trainable')).not.toHaveText('4,194,304');
});

test('changing only the model changes the result, and every table follows', async ({ app, page }) => {
  await app.open();
  await app.model('llama-2-7b');
  await app.gpuTableDone();
  const before = await page.getByTestId('peak').textContent();
  const rowBefore = await page.locator('#gpu-table tr[data-gpu="h100-sxm-80gb"]').textContent();
  await app.model('mistral-7b-v0.1');  // same size class, same numeric fields
  const expected = cli(await app.inputDoc());
  await expect(page.getByTestId('peak')).toHaveText(Render.formatBytes(expected.per_gpu.peak, 'GiB'));
  expect(await page.getByTestId('peak').textContent()).not.toBe(before);
  await app.gpuTableDone();
  const rowAfter = page.locator('#gpu-table tr[data-gpu="h100-sxm-80gb"]');
  await expect(rowAfter).toContainText(Render.formatBytes(expected.per_gpu.peak, 'GiB'));
  expect(await rowAfter.textContent()).not.toBe(rowBefore);
});

test('the GPU table: every GPU at this count (CLI estimate), the fewest that fit and their cost (CLI solve)', async ({ app, page }) => {
  await app.open();
  await app.model('llama-3.1-70b');
  await app.set('parallel.zero_stage', 3);
  await app.set('activation_checkpointing', 'full');
  await app.gpuTableDone();
  const doc = await app.inputDoc();
  await expect(page.locator('#gpu-table tbody tr')).toHaveCount(CATALOG_GPUS);
  const solved = cliSolve({ ...doc, solve: { max_gpus: 4096 } });
  expect(solved.gpu_options).toHaveLength(CATALOG_GPUS);
  for (const o of solved.gpu_options) {
    const row = page.locator(`#gpu-table tr[data-gpu="${o.gpu}"]`);
    expect(Number(await row.getByTestId('peak-here').getAttribute('data-bytes')), o.gpu).toBe(cli({ ...doc, gpu: o.gpu }).per_gpu.peak);
    if (o.min_gpus) {
      // the fewest count with its own verdict: a borderline one says so, with the count that clears the band
      const n = o.min_gpus.value.toLocaleString('en-US');
      const clear = o.min_gpus_whole_band && o.min_gpus_whole_band.value.toLocaleString('en-US');
      const text = o.min_gpus.verdict !== 'borderline' ? n : clear ? `${n} · borderline (${clear} clear)` : `${n} · borderline`;
      await expect(row.getByTestId('min-gpus'), o.gpu).toHaveText(text);
      await expect(row.getByTestId('min-gpus'), o.gpu).toHaveAttribute('data-min-verdict', o.min_gpus.verdict || '');
    } else {
      await expect(row.getByTestId('min-gpus'), o.gpu).toHaveText('> 4,096');
      // Why more GPUs did not help is said on hover: only what the setup shards shrinks.
      await expect(row.getByTestId('min-gpus'), o.gpu).toHaveAttribute('title', /^No count up to 4,096 fits: more GPUs add data-parallel ranks/);
    }
    const cost = o.cost_per_hour === null ? '—' : '$' + Render.formatMoney(o.cost_per_hour) + '/h';
    await expect(row.getByTestId('cost'), o.gpu).toHaveText(o.cannot_run.length ? cost + ' · cannot run this setup' : cost);
  }
  // the fewest found fits with the margin kept free, one data-parallel step fewer does not
  for (const gpu of ['a100-40gb', 'h100-sxm-80gb', 'mi300x-192gb']) {
    const n = solved.gpu_options.find((o) => o.gpu === gpu).min_gpus.value;
    const at = (k) => cliSolve({ ...doc, gpu, parallel: { ...doc.parallel, world_size: k }, solve: {} });
    expect(at(n).max_micro_batch_size, gpu + ' at ' + n).not.toBeNull();
    if (n > 1) expect(at(n - 1).max_micro_batch_size, gpu + ' at ' + (n - 1)).toBeNull();
  }
});

test('bad input shows field errors and never NaN or Infinity', async ({ app, page }) => {
  await app.open();
  const noNaN = async () => {
    const text = await page.locator('body').innerText();
    expect(text).not.toMatch(/NaN|Infinity/);
  };
  for (const [p, value, code] of [['batch.seq_length', 'abc', /batch\.seq_length must be an integer/],
    ['parallel.world_size', '0', /parallel\.world_size = 0 is out of range/],
    ['batch.micro_batch_size', '1e999', /batch\.micro_batch_size/],
    ['overhead.fragmentation_fraction', '-1', /overhead\.fragmentation_fraction/]]) {
    if (p.startsWith('overhead')) await page.locator('#advanced > summary').click();
    await app.set(p, value);
    const err = app.field(p).locator('xpath=following-sibling::p[@data-testid="field-error"]');
    await expect(err).toHaveText(code);
    await expect(app.field(p)).toHaveAttribute('aria-invalid', 'true');
    await expect(page.locator('#result-body')).toBeHidden();
    await expect(page.getByTestId('status')).toHaveText(/No estimate/);
    await noNaN();
    await app.set(p, '');
    await expect(page.locator('#result-body')).toBeVisible();
    await expect(page.getByTestId('field-error')).toHaveCount(0);
  }
  await noNaN();
});

test('a pasted config.json becomes a custom model; a bad one is named', async ({ app, page }) => {
  const config = JSON.parse(require('child_process').execFileSync(require('path').join(__dirname, '..', 'build-native', 'trainmem'), ['catalog', 'models']))
    .models.find((m) => m.id === 'qwen2.5-0.5b').hf_config;
  await app.open();
  await page.locator('#custom-model > summary').click();
  await page.getByTestId('config-text').fill('{"hidden_size": 8,');
  await page.getByTestId('config-use').click();
  await expect(page.getByTestId('config-note')).toHaveText(/Not valid JSON/);
  // Saved with a byte-order mark (Notepad's UTF-8): the mark is not part of the JSON.
  await page.getByTestId('config-text').fill('\ufeff' + JSON.stringify({ ...config, _name_or_path: 'my-org/tiny-qwen' }));
  await page.getByTestId('config-use').click();
  await expect(page.getByTestId('config-note')).toHaveText('Custom model "my-org/tiny-qwen" added and selected.');
  await expect(page.getByTestId('model').locator('option:checked')).toHaveText('my-org/tiny-qwen');
  const doc = await app.inputDoc();
  expect(doc.model.hf_config.hidden_size).toBe(896);
  const expected = cli(doc);
  await expect(page.getByTestId('trainable')).toHaveText(expected.parameters.trainable.toLocaleString('en-US'));
  expect(await app.bytes('b-peak')).toBe(expected.per_gpu.peak);
  expect(page.url()).toMatch(/#v4:mc=/);

  // A config the engine refuses is not added: the note names the field, the custom model stays selected.
  await page.getByTestId('config-text').fill(JSON.stringify({ ...config, hidden_size: -5 }));
  await page.getByTestId('config-use').click();
  await expect(page.getByTestId('config-note')).toHaveText('Not used: model.hf_config.hidden_size = -5 is out of range (1 to 100000000)');
  await expect(page.getByTestId('config-note')).toHaveClass(/\bbad\b/);  // styled as the error it is
  await expect(page.getByTestId('model').locator('option:checked')).toHaveText('my-org/tiny-qwen');

  // Python's json writes NaN and Infinity: read as null inside hf_config, as the CLI reads them
  // (docs/api.md); a token inside a string stays text.
  const text = JSON.stringify({ ...config, _name_or_path: 'NaN-org/Infinity', rope_scaling: 'X' }).replace('"X"', 'NaN');
  await page.getByTestId('config-text').fill(text);
  await page.getByTestId('config-use').click();
  await expect(page.getByTestId('config-note')).toHaveText('Custom model "NaN-org/Infinity" added and selected.');
  await expect(page.getByTestId('config-note')).not.toHaveClass(/\bbad\b/);
  const nan = await app.inputDoc();
  expect(nan.model.hf_config.rope_scaling).toBe(null);
  expect(await app.bytes('b-peak')).toBe(cli(nan).per_gpu.peak);
});

test('DPO, PPO and GRPO: the fields that matter appear, and the per-model budget is shown', async ({ app, page }) => {
  await app.open();
  await app.model('qwen2.5-1.5b');
  await expect(page.getByTestId('reward-model')).toBeHidden();
  await app.set('rlhf.algorithm', 'dpo');
  await expect(page.getByTestId('reward-model')).toBeHidden();
  await expect(page.getByTestId('rlhf-models')).toBeVisible();
  await app.set('rlhf.algorithm', 'ppo');
  await expect(page.getByTestId('critic-model')).toBeVisible();
  await page.getByTestId('reward-model').selectOption('p:qwen2.5-0.5b');
  await page.getByTestId('critic-model').selectOption('p:qwen2.5-0.5b');
  const doc = await app.inputDoc();
  expect(doc.rlhf).toEqual({ algorithm: 'ppo', reward: { model: { preset: 'qwen2.5-0.5b' } }, critic: { model: { preset: 'qwen2.5-0.5b' } } });
  const expected = cli(doc);
  for (const role of Object.keys(expected.per_gpu_models)) await expect(page.getByTestId('rlhf-models')).toContainText(role);
  expect(await app.bytes('b-peak')).toBe(expected.per_gpu.peak);
  // Reference "none" is GRPO's alone (TRL's beta 0.0): not offered under PPO.
  const noneOption = page.locator('select[data-path="rlhf.reference.method"] option[value="none"]');
  expect(await noneOption.evaluate((o) => /** @type {HTMLOptionElement} */ (o).hidden)).toBe(true);
  await app.set('rlhf.algorithm', 'grpo');
  expect(await noneOption.evaluate((o) => /** @type {HTMLOptionElement} */ (o).hidden)).toBe(false);
  await expect(page.getByTestId('critic-model')).toBeHidden();
  expect((await app.inputDoc()).rlhf.critic).toBeUndefined();
  // GRPO without a reference model (TRL's beta 0.0): the budget lists none, as the CLI's does.
  await expect(page.getByTestId('rlhf-models')).toContainText('reference');
  await app.set('rlhf.reference.method', 'none');
  const grpo = cli(await app.inputDoc());
  expect(Object.keys(grpo.per_gpu_models)).not.toContain('reference');
  expect(await app.bytes('b-peak')).toBe(grpo.per_gpu.peak);
  await expect(page.getByTestId('rlhf-models')).not.toContainText('reference');
  // Colocated vLLM (TRL use_vllm): its share of the GPU is a row of the budget, priced as the CLI prices it.
  await expect(page.locator('[data-path="rlhf.rollout.vllm_gpu_memory_utilization"]')).toBeHidden();
  await app.set('rlhf.rollout.use_vllm', 'true');
  await app.set('rlhf.rollout.vllm_gpu_memory_utilization', '0.4');
  const vllm = cli(await app.inputDoc());
  expect(vllm.rollout_vllm_bytes).toBeGreaterThan(0);
  expect(await app.bytes('rollout-vllm')).toBe(vllm.rollout_vllm_bytes);
  expect(await app.bytes('b-peak')).toBe(vllm.per_gpu.peak);
});

test('GiB and GB are labelled as what they are, in both languages and themes', async ({ app, page }) => {
  await app.open();
  const peak = await app.bytes('b-peak');
  await expect(page.getByTestId('peak')).toHaveText(Render.formatBytes(peak, 'GiB'));
  await page.getByTestId('unit').selectOption('GB');
  await expect(page.getByTestId('peak')).toHaveText(Render.formatBytes(peak, 'GB'));
  expect(Render.formatBytes(peak, 'GB')).toMatch(/ GB$/);
  await page.getByTestId('lang').selectOption('zh');
  await expect(page.locator('html')).toHaveAttribute('lang', 'zh-Hans');
  await expect(page.locator('legend').first()).toHaveText('模型');
  await expect(page.getByTestId('peak')).toHaveText(Render.formatBytes(peak, 'GB'));
  await page.getByTestId('theme').selectOption('dark');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  expect(bg).toBe('rgb(21, 23, 26)');
  await page.reload();  // preferences are kept
  await expect(page.locator('legend').first()).toHaveText('模型');
  await expect(page.getByTestId('peak')).toHaveText(/ GB$/);
});

test('compare a pinned configuration, then export Markdown and JSON', async ({ app, page }) => {
  await app.open();
  await page.getByTestId('pin').click();
  await app.set('batch.micro_batch_size', 2);
  await expect(page.getByTestId('compare')).toBeVisible();
  await expect(page.getByTestId('compare-inputs')).toContainText('batch.micro_batch_size: 1 → 2');
  const doc = await app.inputDoc();
  const pinned = cli({ ...doc, batch: { ...doc.batch, micro_batch_size: 1 } });
  const current = cli(doc);
  expect(await app.bytes('diff-activations')).toBe(current.per_gpu.activations - pinned.per_gpu.activations);
  expect(await app.bytes('diff-peak')).toBe(current.per_gpu.peak - pinned.per_gpu.peak);
  // Step time and throughput side by side, the CLI's for each document.
  expect(Number(await page.getByTestId('cmp-step-pinned').getAttribute('data-value'))).toBe(pinned.time.step_seconds);
  expect(Number(await page.getByTestId('cmp-step-current').getAttribute('data-value'))).toBe(current.time.step_seconds);
  expect(Number(await page.getByTestId('cmp-tokens-current').getAttribute('data-value'))).toBe(current.time.tokens_per_second_per_gpu);

  const [md] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-md').click()]);
  const text = require('fs').readFileSync(await md.path(), 'utf8');
  expect(text).toContain('# trainmem estimate');
  expect(text).toContain(Render.formatBytes(current.per_gpu.peak, 'GiB'));
  const [js] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-json').click()]);
  const exported = JSON.parse(require('fs').readFileSync(await js.path(), 'utf8'));
  expect(exported.input).toEqual(doc);
  expect(exported.output).toEqual(current);
  await page.getByTestId('unpin').click();
  await expect(page.getByTestId('compare')).toBeHidden();
});

test('malformed catalog entries are named in a notice; the page works with the valid ones', async ({ app, page }) => {
  // The catalog's lists are built into app.js as the JSON text `trainmem catalog` writes
  // (scripts/build-web.mjs), with "errors": [] for this catalog; the page is served an app.js whose
  // lists name two malformed entries, as the engine names them (one with markup in its file name).
  const errors = [{ code: 'out_of_range', field: 'catalog/gpus/l4-24gb.json: memory.value', message: 'catalog/gpus/l4-24gb.json: memory.value = -24 must be positive' },
    { code: 'missing_field', field: 'catalog/models/<img src=x onerror=window.__pwned=1>.json: hidden_size', message: 'hidden_size is required' }];
  await page.route('**/app.js', async (route) => {
    const response = await route.fetch();
    const script = await response.text();
    // The JSON text sits in a '…' or `…` literal (esbuild picks the quote); the errors hold neither.
    const stubbed = script.replace(/"errors":\[\]\}(['`])/, (_, quote) => '"errors":' + JSON.stringify(errors) + '}' + quote);
    expect(stubbed).not.toBe(script);
    await route.fulfill({ response, body: stubbed });
  });
  await app.open();
  const notice = page.getByTestId('catalog-errors');
  await expect(notice).toBeVisible();
  await expect(notice).toContainText('Some catalog entries are malformed');
  // The field is shown once: the engine's message begins with it, and the list names it beside.
  await expect(notice.locator('li')).toHaveText(['catalog/gpus/l4-24gb.json: memory.value = -24 must be positive',
    'catalog/models/<img src=x onerror=window.__pwned=1>.json: hidden_size hidden_size is required']);
  expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
  await expect(page.locator('#result-body')).toBeVisible();
  await expect(page.locator('#gpu-table tbody tr')).toHaveCount(CATALOG_GPUS);
  expect(await app.bytes('b-peak')).toBe(cli(await app.inputDoc()).per_gpu.peak);
});

test('without catalog errors there is no notice', async ({ app, page }) => {
  await app.open();
  await expect(page.getByTestId('catalog-errors')).toBeHidden();
});

test('a custom device\'s memory field follows a unit change, and the memory stays exact to the byte', async ({ app, page }) => {
  await app.open();
  await app.set('gpu', '__custom');
  const memory = app.field('gpu.memory_bytes');
  await memory.fill('80');  // GiB, the page's default unit
  await app.settled();
  // 80 GiB = 80 x 2^30 = 85,899,345,920 bytes.
  expect((await app.inputDoc()).gpu.memory_bytes).toBe(85899345920);
  await page.getByTestId('unit').selectOption('GB');  // the memory field may still have the focus
  await app.settled();
  // 85,899,345,920 / 10^9 = 85.89934592 GB, shown to 4 decimals.
  await expect(memory).toHaveValue('85.8993');
  expect((await app.inputDoc()).gpu.memory_bytes).toBe(85899345920);
  expect(new URL(page.url()).hash).toContain('gm=85899345920');
  await page.getByTestId('unit').selectOption('GiB');
  await app.settled();
  await expect(memory).toHaveValue('80');
  expect((await app.inputDoc()).gpu.memory_bytes).toBe(85899345920);
});

test('the Markdown export shows text from the input as text: markup in a config\'s model_type is escaped', async ({ app, page }) => {
  await app.open();
  const config = { architectures: ['LlamaForCausalLM'], model_type: '<img src=x onerror=alert(1)>', hidden_size: 4096, intermediate_size: 14336,
    num_attention_heads: 32, num_key_value_heads: 8, num_hidden_layers: 32, vocab_size: 128256, max_position_embeddings: 8192,
    rms_norm_eps: 1e-05, tie_word_embeddings: false, torch_dtype: 'bfloat16', head_dim: 128 };
  await page.locator('#custom-model > summary').click();
  await page.getByTestId('config-text').fill(JSON.stringify(config));
  await page.getByTestId('config-use').click();
  await app.settled();
  await expect(page.locator('#warnings li[data-code="generic_layout"]')).toBeVisible();
  const [md] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-md').click()]);
  const text = require('fs').readFileSync(await md.path(), 'utf8');
  // The engine's generic_layout warning names the model_type: outside the input's code block it is
  // "<" as &lt;, ">" as &gt;, "(" and ")" backslash-escaped.
  const warning = text.split('\n').find((line) => line.startsWith('- `generic_layout`: '));
  expect(warning).toContain('model\\_type "&lt;img src=x onerror=alert\\(1\\)&gt;" has no family layout here');
  const outsideCode = text.replace(/^```json\n[\s\S]*?\n```$/m, '');
  expect(outsideCode).not.toContain('<img');
  // The input document keeps the value as written, inside its code block.
  expect(text).toContain('"model_type": "<img src=x onerror=alert(1)>"');
});

test('QLoRA on bitsandbytes up to 0.43.1: the control shows the engine default, travels in the link and prices the kept inputs as the CLI does', async ({ app, page }) => {
  await app.open();
  await app.model('llama-3.1-8b');
  await app.set('framework', 'hf_trainer');
  await app.set('method', 'qlora');
  await app.set('gpu', 'a100-80gb');
  await app.set('activation_checkpointing', 'none');
  const control = app.field('qlora.saves_base_inputs');
  await expect(control).toBeVisible();
  await expect(control.locator('option[value=""]')).toHaveText('default: off');
  const current = cli(await app.inputDoc());
  await expect.poll(async () => Number(await page.getByTestId('peak').getAttribute('data-bytes'))).toBe(current.per_gpu.peak);
  await app.set('qlora.saves_base_inputs', 'true');
  const doc = await app.inputDoc();
  expect(doc.qlora.saves_base_inputs).toBe(true);
  await expect(page).toHaveURL(/[&:]qs=1(&|$)/);
  const older = cli(doc);
  expect(older.per_gpu.activations).toBeGreaterThan(current.per_gpu.activations);
  await expect.poll(async () => Number(await page.getByTestId('peak').getAttribute('data-bytes'))).toBe(older.per_gpu.peak);
});

test('an 8-bit base: int8 travels in the link, is refused under ZeRO-3 as the CLI refuses it, prices one byte per linear weight, and the peak is the CLI\'s', async ({ app, page }) => {
  await app.open();
  await app.model('llama-2-7b');
  await app.set('framework', 'hf_trainer');
  await app.set('method', 'qlora');
  await app.set('gpu', 'a100-80gb');
  await app.set('qlora.quant_type', 'int8');
  await expect(page).toHaveURL(/[&:]qt=int8(&|$)/);
  // The page's default layout shards with ZeRO-3 over 8 GPUs, which an int8 base cannot join: the
  // field says so, as the CLI does.
  expect((await app.inputDoc()).parallel.zero_stage).toBe(3);
  await expect(app.field('qlora.quant_type').locator('xpath=following-sibling::p[@data-testid="field-error"]')).toContainText('cannot be sharded');
  await app.set('parallel.zero_stage', '0');
  const doc = await app.inputDoc();
  expect(doc.qlora.quant_type).toBe('int8');
  const int8 = cli(doc);
  // One byte per linear weight: Llama-2-7B's 6,476,005,376 linear weights at 1 B and the other
  // 262,410,240 parameters at 2 B, plus the adapters (fp32, PEFT's autocast_adapter_dtype).
  expect(int8.per_gpu.parameters - int8.parameters.adapter * 4).toBe(7000825856);
  await expect.poll(async () => Number(await page.getByTestId('peak').getAttribute('data-bytes'))).toBe(int8.per_gpu.peak);
  // The same page on a 4-bit base: the peak follows.
  await app.set('qlora.quant_type', 'nf4');
  const nf4 = cli(await app.inputDoc());
  expect(nf4.per_gpu.parameters).toBeLessThan(int8.per_gpu.parameters);
  await expect.poll(async () => Number(await page.getByTestId('peak').getAttribute('data-bytes'))).toBe(nf4.per_gpu.peak);
});

test('an HQQ base: quantizer, bits and group size travel in the link, HQQ is refused under ZeRO-3 as the CLI refuses it, and the parameters are the hand-worked bytes', async ({ app, page }) => {
  await app.open();
  await app.model('llama-2-7b');
  await app.set('framework', 'hf_trainer');
  await app.set('method', 'qlora');
  await app.set('gpu', 'a100-80gb');
  await app.set('qlora.quant_method', 'hqq');
  // The page's default layout shards with ZeRO-3 over 8 GPUs, which HQQ cannot join.
  expect((await app.inputDoc()).parallel.zero_stage).toBe(3);
  await expect(app.field('qlora.quant_method').locator('xpath=following-sibling::p[@data-testid="field-error"]')).toContainText('cannot be sharded');
  await app.set('parallel.zero_stage', '0');
  await expect(app.field('qlora.nbits').locator('option[value=""]')).toHaveText('default: 4');
  await app.set('qlora.nbits', '2');
  await app.set('qlora.group_size', '128');
  await expect(page).toHaveURL(/[&:]qm=hqq(&|$)/);
  await expect(page).toHaveURL(/[&:]qn=2(&|$)/);
  await expect(page).toHaveURL(/[&:]qg=128(&|$)/);
  const doc = await app.inputDoc();
  expect(doc.qlora).toEqual({ quant_method: 'hqq', nbits: 2, group_size: 128 });
  const out = cli(doc);
  // Llama-2-7B's 6,476,005,376 linear weights at 2 bits packed (0.25 B) plus a bf16 scale and zero
  // per 128 weights (0.03125 B): 0.28125 B each, 1,821,376,512 B; the other 262,410,240 parameters
  // at 2 B: 524,820,480 B; the adapters in fp32 (PEFT's autocast_adapter_dtype).
  expect(out.per_gpu.parameters - out.parameters.adapter * 4).toBe(6476005376 * 0.28125 + 524820480);
  await expect.poll(async () => Number(await page.getByTestId('peak').getAttribute('data-bytes'))).toBe(out.per_gpu.peak);
});

test('a device that cannot run the setup as written never reads as a plain "fits": the headline names why, as the CLI\'s cannot_run', async ({ app, page }) => {
  await app.open();
  await app.model('llama-3.1-8b');
  await app.set('framework', 'hf_trainer');
  await app.set('method', 'qlora');
  await app.set('parallel.zero_stage', '0');
  await app.set('gpu', 'tpu-v5p-95gb');
  const out = cli(await app.inputDoc());
  // bitsandbytes has no TPU back end (its installation guide): the CLI says so beside memory's verdict.
  expect(out.cannot_run).toEqual(['tpu_unsupported_software']);
  const fit = page.getByTestId('fit');
  await expect(fit).toHaveAttribute('data-cannot-run', 'tpu_unsupported_software');
  await expect(fit).toContainText('cannot run as written here');
  if (out.verdict === 'fits') await expect(fit).not.toHaveClass(/\bok\b/);
  await app.set('method', 'lora');
  await expect(fit).toHaveAttribute('data-cannot-run', '');
  await expect(fit).not.toContainText('cannot run');
});

test('a model picked with a learned position table shorter than the sequence length gets the table\'s length, not an error', async ({ app, page }) => {
  // The default setup carries 4,096 tokens; BERT Base's position table has 512 (its config.json's
  // max_position_embeddings, absolute positions): the engine refuses 4,096 for it.
  await app.open();
  await app.model('bert-base-uncased');
  expect((await app.inputDoc()).batch.seq_length).toBe(512);
  await expect(app.field('batch.seq_length')).toHaveValue('512');
  await expect(page.locator('#model-note')).toHaveText('Sequence length set to 512, the length of this model\'s learned position table.');
  await expect(page.locator('#result-body')).toBeVisible();
  // A length typed afterwards is the user's: beyond the table it is refused, not changed.
  await app.set('batch.seq_length', 1024);
  await expect(page.getByTestId('field-error')).toContainText('exceeds the model\'s learned position table of 512 positions');
  expect((await app.inputDoc()).batch.seq_length).toBe(1024);
  // ...and the note about the fitted length goes with that change: it would contradict the field.
  await expect(page.locator('#model-note')).toHaveText('');
  // RoBERTa's position ids start after its padding index: its 514-row table holds 512 tokens.
  await app.set('batch.seq_length', 4096);
  await app.model('roberta-base');
  await expect(app.field('batch.seq_length')).toHaveValue('512');
  await expect(page.locator('#model-note')).toHaveText('Sequence length set to 512, the length of this model\'s learned position table.');
});
