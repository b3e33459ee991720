// Step time, throughput and cost on the page: the engine's time block as the CLI computes it, the
// breakdown chart beside the memory chart, the strategies' time columns, the step-time accuracy.
const { test, expect, cli, cliSolve, ROOT } = require('./fixtures');
const fs = require('fs');
const path = require('path');

// Every published step-time case, handed and outside the handed set: one table row each.
const timeCases = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'fixtures', 'throughput_cases.json'))).cases;

test('step time, MFU, communication and cost equal the CLI\'s for the same document', async ({ app, page }) => {
  await app.open();
  await app.model('llama-3.1-8b');
  await app.set('gpu', 'h100-sxm-80gb');
  await app.set('parallel.world_size', 8);
  await app.set('parallel.zero_stage', 3);
  await app.set('batch.seq_length', 4096);
  await page.locator('#time-settings summary').click();
  await app.set('training.total_tokens', '1e9');
  const doc = await app.inputDoc();
  expect(doc.training).toEqual({ total_tokens: 1e9 });
  const expected = cli(doc).time;
  expect(expected).not.toBeNull();
  const value = async (testid) => Number(await page.getByTestId(testid).getAttribute('data-value'));
  expect(await value('t-step')).toBe(expected.step_seconds);
  expect(await value('t-mfu')).toBe(expected.mfu);
  expect(await value('t-hfu')).toBe(expected.hfu);
  expect(await value('t-tokens')).toBe(expected.tokens_per_second_per_gpu);
  expect(await value('t-comm-data_parallel')).toBe(expected.communication.bytes_per_step.data_parallel);
  expect(await value('t-to-train')).toBe(expected.time_to_train_seconds);
  await expect(page.getByTestId('t-cost')).toContainText(expected.cost.usd.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }));
  await expect(page.getByTestId('t-cost')).toContainText('AWS');
  await expect(page.getByTestId('step-time')).toContainText('MFU');
  // The breakdown chart beside the memory chart draws the engine's parts, which add up to the step.
  const parts = await page.waitForFunction(() => {
    const chart = window.__Chart && window.__Chart.getChart(document.getElementById('time-chart'));
    return chart && chart.data.datasets.length ? chart.data.datasets.map((d) => d.data[0]) : null;
  });
  const sum = (await parts.jsonValue()).reduce((a, b) => a + b, 0);
  expect(sum).toBeCloseTo(expected.step_seconds, 9);
  // The memory chart stacks what is alive at the peak (per_gpu.peak_breakdown): it reaches the
  // peak, not the sum of each component's own maximum (the gradients are freed before the forward).
  const whole = cli(doc).per_gpu;
  const segments = await page.waitForFunction(() => {
    const chart = window.__Chart && window.__Chart.getChart(document.getElementById('chart'));
    return chart && chart.data.datasets.length ? chart.data.datasets.map((d) => d.data[0]) : null;
  });
  const gib = (await segments.jsonValue()).reduce((a, b) => a + b, 0);
  expect(gib).toBeCloseTo(whole.peak / 2 ** 30, 6);
});

test('tensor-parallel traffic under the GEMMs: the control travels in the link and hides the traffic as the CLI does', async ({ app, page }) => {
  await app.open();
  await app.model('llama-3.1-70b');
  await app.set('framework', 'megatron');
  await app.set('gpu', 'h100-sxm-80gb');
  await app.set('parallel.world_size', 8);
  await app.set('parallel.tensor_parallel_size', 8);
  await app.set('parallel.sequence_parallel', 'true');
  await page.locator('#time-settings summary').click();
  const value = async (testid) => Number(await page.getByTestId(testid).getAttribute('data-value'));
  const blocking = cli(await app.inputDoc()).time;
  await expect.poll(() => value('t-step')).toBe(blocking.step_seconds);
  await app.set('parallel.tp_comm_overlap', 'true');
  const doc = await app.inputDoc();
  expect(doc.parallel.tp_comm_overlap).toBe(true);
  await expect(page).toHaveURL(/[&:]tco=/);
  const overlapped = cli(doc).time;
  expect(overlapped.step_seconds).toBeLessThan(blocking.step_seconds);
  expect(overlapped.breakdown_seconds.overlap_slowdown).toBeGreaterThan(0);
  await expect.poll(() => value('t-step')).toBe(overlapped.step_seconds);
  // Without sequence parallelism Megatron refuses the overlap: a field error, not a silent number.
  await app.set('parallel.sequence_parallel', 'false');
  await expect(app.field('parallel.tp_comm_overlap').locator('xpath=following-sibling::p[@data-testid="field-error"]'))
    .toHaveText(/parallel\.tp_comm_overlap needs tensor_parallel_size > 1 with sequence_parallel/);
});

test('attention flash3: on an H200 the CLI\'s shorter step; on an A100 a warning naming the GPU, in English and Chinese', async ({ app, page }) => {
  await app.open();
  await app.model('llama-3.1-8b');
  await app.set('gpu', 'h200-141gb');
  await app.set('parallel.world_size', 8);
  await app.set('batch.seq_length', 65536);
  await app.set('activation_checkpointing', 'full');
  await app.set('attention', 'flash');
  const fa2 = cli(await app.inputDoc()).time.step_seconds;
  await app.set('attention', 'flash3');
  const doc = await app.inputDoc();
  expect(doc.attention).toBe('flash3');
  const fa3 = cli(doc).time.step_seconds;
  expect(fa3).toBeLessThan(fa2);
  await expect.poll(async () => Number(await page.getByTestId('t-step').getAttribute('data-value'))).toBe(fa3);
  await expect(page.locator('#warnings li[data-code="flash_attention_3_unsupported"]')).toHaveCount(0);
  await app.set('gpu', 'a100-80gb');
  const warning = page.locator('#warnings li[data-code="flash_attention_3_unsupported"]');
  await expect(warning).toContainText('NVIDIA A100');
  await expect(warning).toContainText('FlashAttention-3');
  await page.getByTestId('lang').selectOption('zh');
  await expect(warning).toContainText('无法运行 FlashAttention-3');
});

test('a custom device without speeds says why there is no step time', async ({ app, page }) => {
  await app.open();
  await app.model('llama-3.1-8b');
  await app.set('gpu', '__custom');  // 24 GiB, no speeds
  await expect(page.getByTestId('t-unavailable')).toContainText('bf16_dense_flops_per_s');
  await app.set('gpu.bf16_dense_flops_per_s', '989.4e12');
  await app.set('gpu.memory_bandwidth_bytes_per_s', '3.35e12');
  const expected = cli(await app.inputDoc()).time;
  expect(Number(await page.getByTestId('t-step').getAttribute('data-value'))).toBe(expected.step_seconds);
});

test('ranked strategies show the modelled step time and MFU; tokens per dollar reorders them', async ({ app, page }) => {
  await app.open();
  await app.model('llama-3.1-8b');
  await app.set('gpu', 'h100-sxm-80gb');
  await app.set('parallel.world_size', 8);
  const solve = await app.solveDoc();
  const expected = cliSolve(solve).strategies.ranked;
  const steps = page.getByTestId('strategy-step');
  await expect(steps).toHaveCount(expected.length);
  for (let i = 0; i < expected.length; i++) {
    expect(Number(await steps.nth(i).getAttribute('data-value'))).toBe(expected[i].step_time_s);
    expect(Number(await page.getByTestId('strategy-mfu').nth(i).getAttribute('data-value'))).toBe(expected[i].mfu);
  }
  await app.set('solve.strategies.order', 'tokens_per_dollar');
  const byDollar = await app.solveDoc();
  expect(byDollar.solve.strategies.order).toBe('tokens_per_dollar');
  expect(cliSolve(byDollar).strategies.ranked.length).toBeGreaterThan(0);
});

test('the Accuracy section shows the step-time table the time accuracy program writes', async ({ app, page }) => {
  await app.open();
  await page.getByTestId('accuracy').locator('summary').click();
  await expect(page.getByTestId('time-accuracy-summary')).toContainText('step-time cases:');
  await expect(page.getByTestId('time-accuracy-row')).toHaveCount(timeCases.length);
  expect(timeCases.filter((c) => c.split === 'outside').length).toBeGreaterThan(0);
});

test('at 390 px wide the step-time table scrolls in its own box: the page does not scroll sideways', async ({ app, page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await app.open();
  await expect(page.getByTestId('t-step')).toBeVisible();
  const widths = await page.evaluate(() => {
    const table = document.getElementById('time');
    return { page: document.documentElement.scrollWidth, view: document.documentElement.clientWidth };
  });
  expect(widths.page).toBeLessThanOrEqual(widths.view);
  expect(await page.evaluate(() => getComputedStyle(document.getElementById('time').parentElement).overflowX)).toBe('auto');
});
