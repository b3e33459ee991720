// The verdict at the decision boundary: the band's verdict and margin in the user's unit beside the
// point estimate's, the engine's suggestions (each applied gives the CLI's estimate of the changed
// document), and every default shown from the engine's `resolved` block.
const { crc32 } = require('zlib');
const { test, expect, cli, ROOT } = require('./fixtures');
const Render = require('../web/src/format.js');

const signed = (x, unit) => Render.signedBytes(x, unit);

test('the verdict shows the margin band and the point estimate in the chosen unit', async ({ app, page }) => {
  await app.open();
  await app.model('llama-3.1-8b');
  await app.set('gpu', 'rtx-4090-24gb');
  await app.set('method', 'qlora');
  await app.set('batch.seq_length', 2048);
  const expected = cli(await app.inputDoc());
  expect(expected.verdict).toBeTruthy();
  await expect(page.getByTestId('fit')).toHaveAttribute('data-verdict', expected.verdict);
  for (const unit of ['GiB', 'GB']) {
    await page.getByTestId('unit').selectOption(unit);
    const margin = page.getByTestId('margin');
    await expect(margin).toContainText(`between ${signed(expected.margin_range.low, unit)} and ${signed(expected.margin_range.high, unit)}`);
    await expect(margin).toContainText(`point estimate ${signed(expected.margin_bytes, unit)}`);
    await expect(page.getByTestId('peak-band')).toHaveText(
      `between ${Render.formatBytes(expected.per_gpu.peak_range.low, unit)} and ${Render.formatBytes(expected.per_gpu.peak_range.high, unit)}`);
    // Headroom is the same margin everywhere: capacity minus what the verdict compares.
    const headroom = expected.margin_bytes >= 0 ? Render.formatBytes(expected.margin_bytes, unit) : `short by ${Render.formatBytes(-expected.margin_bytes, unit)}`;
    await expect(page.getByTestId('headroom')).toHaveText(headroom);
  }
  // Each source that widens the band is listed with its bytes.
  await page.getByTestId('uncertainty-box').locator('summary').click();
  await expect(page.getByTestId('uncertainty-term')).toHaveCount(expected.uncertainty.length);
  for (const u of expected.uncertainty) {
    await expect(page.locator(`[data-testid="uncertainty-term"][data-source="${u.source}"]`).first()).toContainText(Render.formatBytes(u.bytes, 'GB'));
  }
});

test('a GPU with a usable figure: the band shown is the reserved peak the verdict compares with it', async ({ app, page }) => {
  // The RTX 6000 Ada's catalog entry gives what a framework can allocate (the context already left
  // out), so the verdict compares peak_reserved with it: the band beside the margin is that one.
  await app.open();
  await app.model('llama-3.1-8b');
  await app.set('gpu', 'rtx-6000-ada-48gb');
  await app.set('parallel.world_size', 1);
  await app.set('parallel.zero_stage', 0);
  await app.set('method', 'lora');
  await app.set('batch.seq_length', 2400);
  const expected = cli(await app.inputDoc());
  expect(expected.compared_quantity).toBe('peak_reserved');
  const r = expected.per_gpu.peak_reserved_range;
  expect(r.high).not.toBe(expected.per_gpu.peak_range.high);
  await expect(page.locator('#peak-band-label')).toHaveText('Reserved peak (compared with the usable memory), uncertainty band');
  await expect(page.getByTestId('peak-band')).toHaveText(`between ${Render.formatBytes(r.low, 'GiB')} and ${Render.formatBytes(r.high, 'GiB')}`);
  // The margin band is the capacity minus that band, and the verdict agrees with its ends.
  expect(expected.margin_range.low).toBe(expected.gpu_capacity_bytes - r.high);
  expect(expected.verdict).toBe(r.high <= expected.gpu_capacity_bytes ? 'fits' : r.low > expected.gpu_capacity_bytes ? 'does_not_fit' : 'borderline');
  // Back on a GPU without one, the label is the peak's again.
  await app.set('gpu', 'a100-80gb');
  await expect(page.locator('#peak-band-label')).toHaveText('Peak, uncertainty band');
});

test('batches padded to their longest sample: the band reaches down, the term is named, the link keeps the choice', async ({ app, page }) => {
  await app.open();
  await app.model('llama-3.1-8b');
  await app.set('gpu', 'a100-80gb');
  await app.set('method', 'lora');
  await app.set('batch.seq_length', 8192);
  await app.set('activation_checkpointing', 'none');
  const packed = cli(await app.inputDoc());
  await page.locator('#advanced > summary').click();
  await app.set('batch.padding', 'longest');
  const doc = await app.inputDoc();
  expect(doc.batch.padding).toBe('longest');
  const expected = cli(doc);
  // The point stays the batch at seq_length, allocated; its reserve also holds a shorter batch's
  // cached blocks, which the longest batch's loss blocks do not fit (docs/memory-model.md).
  expect(expected.per_gpu.peak_allocated).toBe(packed.per_gpu.peak_allocated);
  expect(expected.per_gpu.peak_reserved).toBeGreaterThan(packed.per_gpu.peak_reserved);
  expect(expected.per_gpu.peak_range.low).toBeLessThan(packed.per_gpu.peak_range.low);
  const term = expected.uncertainty.find((u) => u.source === 'data_dependent_seq_length');
  expect(term.alternative).toBe('batch.seq_length: 2 (a batch of short samples)');
  await page.getByTestId('uncertainty-box').locator('summary').click();
  const row = page.locator('[data-testid="uncertainty-term"][data-source="data_dependent_seq_length"]');
  await expect(row).toContainText('Batches padded to their longest sample');
  await expect(row).toContainText(Render.formatBytes(term.bytes, 'GiB'));
  await page.reload();
  await expect(app.field('batch.padding')).toHaveValue('longest');
});

test('a borderline verdict names the source the answer turns on', async ({ app, page }) => {
  // A new user's case: Qwen2.5-7B LoRA at 2 x 8192 tokens on an A100 80GB, checkpointing and
  // attention left unstated: the point estimate is about twice the GPU, the band's low end fits.
  await app.open();
  await app.model('qwen2.5-7b');
  await app.set('method', 'lora');
  await app.set('batch.micro_batch_size', 2);
  await app.set('batch.seq_length', 8192);
  await app.set('gpu', 'a100-80gb');
  const expected = cli(await app.inputDoc());
  expect(expected.verdict).toBe('borderline');
  // The point estimate is over the memory, so the answer turns on what lowers the peak most.
  expect(expected.margin_bytes).toBeLessThan(0);
  const lowering = [...expected.uncertainty].sort((a, b) => b.below_bytes - a.below_bytes)[0];
  expect(lowering.source).toMatch(/^unstated_/);  // a setting the document left to a default
  expect(expected.deciding_term).toBe(lowering.source);
  await expect(page.getByTestId('margin')).toContainText(`What could take it across the GPU most: `);
  await expect(page.getByTestId('margin')).toContainText(`(${lowering.alternative}).`);
  // And names the unset settings that low end takes, the largest first: the user's to decide.
  // Only settings that move the low end by a tenth of the largest term or more: lora.r (tens of
  // MB here) decides nothing beside checkpointing (tens of GiB).
  const largest = Math.max(...expected.uncertainty.map((u) => u.below_bytes));
  const lowEnd = (prefix) => expected.uncertainty.filter((u) => u.below_bytes > 0 && u.below_bytes >= largest / 10 && u.alternative && u.source.startsWith(prefix))
    .sort((a, b) => b.below_bytes - a.below_bytes).slice(0, 2).map((u) => u.alternative);
  const unset = lowEnd('unstated_');
  expect(unset.length).toBeGreaterThan(0);
  const lora = expected.uncertainty.find((u) => u.source === 'unstated_lora');
  expect(lora.below_bytes).toBeLessThan(largest / 10);
  expect(unset).not.toContain(lora.alternative);
  expect(lowEnd('data_dependent_')).toEqual([]);  // padding is not "longest" here
  const headline = 'borderline on NVIDIA A100 SXM4 80GB: the estimate does not fit; only the low end of its uncertainty band does'
    + ' · that low end takes ' + unset.join('; ') + ', which this setup leaves unset: set it to decide';
  await expect(page.getByTestId('fit')).toHaveText(headline);
  // Padding to the longest sample adds what the data decides, worded as such (the sequence length
  // itself is set).
  await page.locator('#advanced > summary').click();
  await app.set('batch.padding', 'longest');
  const padded = cli(await app.inputDoc());
  expect(padded.verdict).toBe('borderline');
  const shortBatch = padded.uncertainty.find((u) => u.source === 'data_dependent_seq_length');
  expect(shortBatch.below_bytes).toBeGreaterThan(0);
  await expect(page.getByTestId('fit')).toContainText(`that low end takes ${shortBatch.alternative}, which the data decides: batches are padded to their longest sample`);
  await expect(page.getByTestId('fit')).not.toContainText(`${shortBatch.alternative}, which this setup leaves unset`);
});

test('a borderline verdict whose estimate fits names what raises the peak, not what lowers it', async ({ app, page }) => {
  // A new user's case: Llama-3.1-8B LoRA at 2,048 tokens on one A100 40GB fits at its point
  // estimate; only the band's high end does not, so checkpointing left unstated (which only lowers
  // the peak) is not what the answer turns on.
  await app.open();
  await app.model('llama-3.1-8b');
  await app.set('method', 'lora');
  await app.set('batch.seq_length', 2048);
  await app.set('gpu', 'a100-40gb');
  await app.set('parallel.world_size', 1);
  await app.set('parallel.zero_stage', 0);
  const expected = cli(await app.inputDoc());
  expect(expected.verdict).toBe('borderline');
  expect(expected.margin_bytes).toBeGreaterThanOrEqual(0);
  const raising = [...expected.uncertainty].sort((a, b) => b.above_bytes - a.above_bytes)[0];
  expect(raising.above_bytes).toBeGreaterThan(0);
  expect(expected.deciding_term).toBe(raising.source);
  const widest = [...expected.uncertainty].sort((a, b) => b.bytes - a.bytes)[0];
  expect(widest.above_bytes).toBe(0);  // the widest term only lowers the peak here
  await expect(page.getByTestId('margin')).not.toContainText(widest.alternative);
  const words = { estimator_error: 'The engine\'s own error', allocator_fragmentation: 'Allocator fragmentation' }[raising.source];
  expect(words, raising.source).toBeTruthy();
  await expect(page.getByTestId('margin')).toContainText(`What could take it across the GPU most: ${words}`);
});

test('a setup that does not fit lists suggestions; applying one gives the estimate of the changed document', async ({ app, page }) => {
  await app.open();
  await app.model('llama-3.1-8b');
  await app.set('gpu', 'rtx-4090-24gb');
  await app.set('method', 'full');
  await app.set('parallel.world_size', 1);
  await app.set('batch.micro_batch_size', 4);
  await app.set('batch.seq_length', 4096);
  const doc = await app.inputDoc();
  const expected = cli(doc);
  expect(expected.verdict).toBe('does_not_fit');
  await expect(page.getByTestId('fit')).toHaveText(/^does not fit on/);
  const items = page.getByTestId('suggestion');
  await expect(items).toHaveCount(expected.suggestions.length);
  for (const [i, s] of expected.suggestions.entries()) {
    await expect(items.nth(i)).toHaveAttribute('data-code', s.code);
    await expect(items.nth(i)).toContainText(`peak ${Render.formatBytes(s.peak, 'GiB')}, saves ${Render.formatBytes(s.saved_bytes, 'GiB')}`);
    // A borderline change whose estimate is over the GPU's usable memory says the estimate is over.
    const over = s.verdict === 'borderline' && s.peak > expected.gpu_capacity_bytes;
    await expect(items.nth(i).locator('strong')).toHaveText(over ? "borderline: the estimate is over, only the band's low end fits"
      : { fits: 'fits', borderline: 'borderline', does_not_fit: 'does not fit' }[s.verdict]);
  }
  // No suggestion that is already on, none impossible on one GPU.
  const codes = expected.suggestions.map((s) => s.code);
  expect(codes).not.toContain('zero_stage');
  expect(codes).not.toContain('more_gpus');
  const qlora = expected.suggestions.findIndex((s) => s.code === 'qlora');
  expect(qlora).toBeGreaterThanOrEqual(0);
  await items.nth(qlora).getByTestId('apply-suggestion').click();
  const changed = await app.inputDoc();
  expect(changed.method).toBe('qlora');
  const again = cli(changed);
  expect(await app.bytes('b-peak')).toBe(again.per_gpu.peak);
  expect(again.per_gpu.peak).toBe(expected.suggestions[qlora].peak);
  await expect(page.getByTestId('fit')).toHaveAttribute('data-verdict', again.verdict);
});

test('GRPO with colocated vLLM: the vLLM suggestions apply to the page\'s controls and give the CLI\'s estimate', async ({ app, page }) => {
  await app.open();
  await app.model('llama-3.1-8b');
  await app.set('gpu', 'h100-sxm-80gb');
  await app.set('method', 'lora');
  await app.set('batch.micro_batch_size', 8);
  await app.set('batch.seq_length', 1024);
  await app.set('batch.gradient_accumulation_steps', 4);
  await app.set('rlhf.algorithm', 'grpo');
  await app.set('rlhf.rollout.max_new_tokens', 1024);
  await app.set('rlhf.rollout.use_vllm', 'true');
  await app.set('rlhf.rollout.vllm_gpu_memory_utilization', '0.9');
  const expected = cli(await app.inputDoc());
  expect(expected.verdict).toBe('does_not_fit');
  const items = page.getByTestId('suggestion');
  await expect(items).toHaveCount(expected.suggestions.length);
  // (16,060,522,496 B of bf16 weights + 8,589,934,592 B of KV cache for 32 sequences of 2,048
  // tokens) / 85,520,809,984 B = 0.288 -> 0.29 (tests/suggestions_test.cpp).
  const share = page.locator('[data-testid="suggestion"][data-code="vllm_memory_share"]');
  await expect(share).toContainText('Give vLLM 0.29 of the GPU');
  await share.getByTestId('apply-suggestion').click();
  await expect(page.locator('[data-path="rlhf.rollout.vllm_gpu_memory_utilization"]')).toHaveValue('0.29');
  const shared = cli(await app.inputDoc());
  expect(await app.bytes('b-peak')).toBe(shared.per_gpu.peak);
  expect(shared.per_gpu.peak).toBe(expected.suggestions.find((s) => s.code === 'vllm_memory_share').peak);
  // A vLLM server: generation leaves the training GPUs, and so does the share's row.
  await page.locator('[data-testid="suggestion"][data-code="vllm_server"]').getByTestId('apply-suggestion').click();
  const served = await app.inputDoc();
  expect(served.rlhf.rollout.colocated).toBe(false);
  expect(await app.bytes('b-peak')).toBe(cli(served).per_gpu.peak);
});

test('controls left at default show the value the engine used, from resolved', async ({ app, page }) => {
  await app.open();
  await app.model('llama-3.1-8b');
  await app.set('method', 'qlora');
  await app.set('activation_checkpointing', '');
  await app.field('batch.seq_length').fill('');
  await app.settled();
  const expected = cli(await app.inputDoc());
  // HF QLoRA: PEFT's prepare_model_for_kbit_training turns checkpointing on; Llama-3.1 trains at 8,192.
  expect(expected.resolved.activation_checkpointing.value).toBe('full');
  expect(expected.resolved['batch.seq_length'].value).toBe(8192);
  const ckpt = app.field('activation_checkpointing').locator('option[value=""]');
  await expect(ckpt).toHaveText('default: full');
  await expect(ckpt).toHaveAttribute('title', expected.resolved.activation_checkpointing.origin);
  await expect(app.field('batch.seq_length')).toHaveAttribute('placeholder', '8192');
  // DeepSpeed keeps gradients in the model dtype (with an fp32 partition in the step): bf16 shown.
  await app.set('framework', 'deepspeed');
  const ds = cli(await app.inputDoc());
  await expect(app.field('precision.grad_dtype').locator('option[value=""]')).toHaveText('default: ' + ds.resolved['precision.grad_dtype'].value);
  // In Chinese too.
  await page.getByTestId('lang').selectOption('zh');
  await app.settled();
  // A select names the engine's value by its option's label: "none" is the option 无.
  expect(ds.resolved.activation_checkpointing.value).toBe('none');
  await expect(app.field('activation_checkpointing').locator('option[value=""]')).toHaveText('默认：无');
  await expect(app.field('batch.seq_length')).toHaveAttribute('placeholder', '8192');
  // An input the engine rejects resolves nothing: the empty field says "default", never a number the
  // engine did not give.
  await app.set('batch.micro_batch_size', '0');
  await expect(app.field('batch.seq_length')).toHaveAttribute('placeholder', '默认');
  await page.getByTestId('lang').selectOption('en');
  await app.settled();
  await expect(app.field('batch.seq_length')).toHaveAttribute('placeholder', 'default');
});

test('a select with a value chosen names no default value; left at its default, it names the engine\'s by its option\'s label', async ({ app, page }) => {
  await app.open();  // the default page chooses ZeRO-3 and an H100
  // The value chosen is what the engine resolved: "default: 3" would echo it, and choosing that
  // option would let the HF Trainer's default, no sharding, take over.
  const zero = app.field('parallel.zero_stage').locator('option[value=""]');
  await expect(zero).toHaveText('default');
  await expect(app.field('gpu').locator('option[value=""]')).toHaveText('default');
  await app.set('parallel.zero_stage', '');
  const expected = cli(await app.inputDoc());
  expect(expected.resolved['parallel.zero_stage'].value).toBe(0);
  const label = await app.field('parallel.zero_stage').locator('option[value="0"]').textContent();
  await expect(zero).toHaveText('default: ' + label);
  await expect(zero).toHaveAttribute('title', expected.resolved['parallel.zero_stage'].origin);
});

// A parameter count alone gives model states but no peak (the engine's model_states_only warning): the
// verdict line says the verdict needs an architecture, not that no GPU is chosen (one is).
test('with a parameter count only and a GPU chosen, the verdict line asks for an architecture, in English and Chinese', async ({ app, page }) => {
  const body = 'v4:mn=7000000000&me=full&b=1&s=4096&n=8&z=3&g=h100-sxm-80gb';
  await app.open('http', '#' + body + '&c=' + (crc32(body) >>> 0).toString(16).padStart(8, '0'));
  await expect(page.getByTestId('gpu')).toHaveValue('h100-sxm-80gb');
  await expect(page.getByTestId('fit')).toHaveText('no verdict: the peak needs an architecture (a preset or a config.json), not a parameter count alone');
  await page.getByTestId('lang').selectOption('zh');
  await expect(page.getByTestId('fit')).toHaveText('无结论：峰值需要模型结构（预设或 config.json），仅有参数量不够');
  // No GPU chosen is still said so.
  await page.getByTestId('lang').selectOption('en');
  await app.set('gpu', '');
  await expect(page.getByTestId('fit')).toHaveText('no GPU chosen');
});

test('a borderline setup reads borderline in the headline, the Compare table and the Markdown export, in English and Chinese', async ({ app, page }) => {
  // A new user's link: Llama 3.1 8B full fine-tuning, 3 x 4608 tokens, ZeRO-3 on 8 H100 80GB, context parallel 2.
  await app.open('http', '#v4:m=llama-3.1-8b&me=full&b=3&s=4608&ac=none&n=8&z=3&tp=1&pp=1&sp=0&cp=2&oo=none&op=none&g=h100-sxm-80gb&c=99421e6c');
  const doc = await app.inputDoc();
  const expected = cli(doc);
  expect(expected.verdict).toBe('borderline');
  expect(expected.fits).toBe(false);  // `fits` is the conservative reading: a yes/no from it said "no" here
  await expect(page.getByTestId('fit')).toHaveAttribute('data-verdict', 'borderline');
  const [md] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-md').click()]);
  const text = require('fs').readFileSync(await md.path(), 'utf8');
  expect(text).toContain(`Fit: borderline (usable ${Render.formatBytes(expected.gpu_capacity_bytes, 'GiB')})`);
  // Pinned, then one sequence per micro-batch: the current setup's verdict is the CLI's for that document.
  await page.getByTestId('pin').click();
  await app.set('batch.micro_batch_size', 1);
  const current = cli({ ...doc, batch: { ...doc.batch, micro_batch_size: 1 } });
  const verdicts = page.getByTestId('compare').locator('td[data-verdict]');
  await expect(verdicts).toHaveText(['borderline', { fits: 'fits', borderline: 'borderline', does_not_fit: 'does not fit' }[current.verdict]]);
  await page.getByTestId('lang').selectOption('zh');
  await expect(verdicts.first()).toHaveText('临界');
});
