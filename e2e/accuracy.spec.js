// The Accuracy section: the accuracy program's table (built into chunk-accuracy.js on every build,
// loaded when the section opens) with one row per published case, what each source measured, and the error.
const { test, expect, ROOT } = require('./fixtures');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const Render = require('../web/src/format.js');

const cases = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'fixtures', 'measured_cases.json'))).cases;

// The accuracy program's table for the engine as built.
function accuracyData() {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'trainmem-accuracy-')), 'accuracy-data.js');
  execFileSync(path.join(ROOT, 'build-native', 'tests', 'accuracy'), [path.join(ROOT, 'tests', 'fixtures', 'measured_cases.json'), '--js', file], { stdio: 'ignore' });
  const sandbox = {};
  new Function('window', fs.readFileSync(file, 'utf8'))(sandbox);
  return sandbox.TRAINMEM_ACCURACY;
}

for (const where of ['http', 'offline']) {
  test(`the accuracy table has a row per published case, with source, measure and error (${where})`, async ({ app, page }) => {
    test.setTimeout(90000);  // four checks on each of the ~80 published cases
    const data = accuracyData();
    expect(data.rows.map((r) => r.id)).toEqual(cases.map((c) => c.id));
    await app.open(where);
    const section = page.getByTestId('accuracy');
    await expect(page.getByTestId('accuracy-table')).toBeHidden();  // collapsed until opened
    await section.locator('summary').click();
    await expect(page.getByTestId('accuracy-row')).toHaveCount(cases.length);
    expect(await page.getByTestId('accuracy-summary').textContent()).toBe(data.summary.trim());
    // The figures side by side: median |error|, p90 |error| and median signed error per group.
    await expect(page.getByTestId('accuracy-figures-row')).toHaveCount(data.figures.length);
    const headline = data.figures[0];
    const first = page.getByTestId('accuracy-figures-row').first();
    await expect(first.locator('th')).toHaveText(headline.group);
    await expect(first.locator('td').nth(2)).toHaveText((headline.median_abs_error * 100).toFixed(1) + '%');
    await expect(first.locator('td').nth(3)).toHaveText((headline.p90_abs_error * 100).toFixed(1) + '%');
    const s = headline.median_signed_error;
    await expect(first.locator('td').nth(4)).toHaveText((s > 0 ? '+' : s < 0 ? '−' : '±') + (Math.abs(s) * 100).toFixed(1) + '%');
    expect(data.figures.some((f) => f.group.startsWith('peak_per_gpu, source '))).toBe(true);
    expect(data.figures.some((f) => f.group.startsWith('peak_per_gpu, method '))).toBe(true);
    // The band's coverage of the handed peaks, counted here from the rows the program wrote.
    const peaks = data.rows.filter((r) => r.measure === 'peak_per_gpu' && !r.outside);
    expect(data.rows.filter((r) => r.outside).length).toBeGreaterThan(0);
    const inside = peaks.filter((r) => r.inside_band === true).length;
    expect(data.band).toMatchObject({ cases: peaks.length, inside });
    await expect(page.getByTestId('accuracy-band')).toContainText(`${inside} of ${peaks.length} measured peaks inside it`);
    for (const row of data.rows) {
      const tr = page.locator(`[data-testid="accuracy-row"][data-case="${row.id}"]`);
      await expect(tr.locator('th .source')).toHaveText(row.source);
      if (typeof row.band_low_bytes === 'number') {
        const inBand = row.band_low_bytes <= row.measured_bytes && row.measured_bytes <= row.band_high_bytes;
        expect(row.inside_band).toBe(inBand);
        await expect(tr.getByTestId('accuracy-band-cell')).toHaveAttribute('data-inside', String(inBand));
        await expect(tr.getByTestId('accuracy-band-cell')).toContainText(Render.formatBytes(row.band_low_bytes, 'GiB') + ' – ' + Render.formatBytes(row.band_high_bytes, 'GiB'));
      }
      if (typeof row.error === 'number') {
        await expect(tr.getByTestId('accuracy-error')).toHaveAttribute('data-value', String(row.error));
        await expect(tr.locator('td').nth(1)).toHaveText(Render.formatBytes(row.measured_bytes, 'GiB'));
        await expect(tr.locator('td').nth(2)).toHaveText(Render.formatBytes(row.predicted_bytes, 'GiB'));
      } else if (row.outcome === 'fit_check') {
        // The program's status as data, worded by the page: "fits expected true, verdict borderline (right)".
        const verdict = { fits: 'fits', borderline: 'borderline', does_not_fit: 'does not fit' }[row.verdict] || '—';
        await expect(tr.getByTestId('accuracy-error')).toHaveText((row.fit_expected ? 'the run fit' : 'the run ran out of memory')
          + '; verdict ' + verdict + ': ' + (row.right ? 'right' : 'WRONG'));
        expect(row.status).toBe('fits expected ' + row.fit_expected + ', verdict ' + row.verdict + (row.right ? ' (right)' : ' (WRONG)'));
      } else {
        const outcome = { not_expressible: 'not expressible (miss)', rejected: 'rejected by the engine (miss)',
          no_measured_bytes: 'no measured bytes (miss)', prediction_null: 'no prediction (miss)' }[row.outcome];
        await expect(tr.getByTestId('accuracy-error')).toHaveText(outcome + (row.detail ? ': ' + row.detail : ''));
      }
    }
    const measure = (id) => page.locator(`[data-testid="accuracy-row"][data-case="${id}"] td`).first();
    for (const [field, label] of [['per_gpu.peak_allocated', 'allocated (max_memory_allocated)'], ['per_gpu.peak_reserved', 'reserved (max_memory_reserved)'],
      ['per_gpu.peak', 'nvidia-smi'], ['per_gpu.model_states', 'model states']]) {
      const row = data.rows.find((r) => r.field === field);
      expect(row, field).toBeTruthy();
      await expect(measure(row.id)).toHaveText(label);
    }
  });
}

test('a chunk whose load failed is loaded again on the next use: the table appears when the section reopens', async ({ app, page, guard }) => {
  // The first request for the chunk is dropped (a lost connection); later ones reach the server.
  guard.allow(/console: Failed to load resource: net::ERR_CONNECTION_RESET/);
  let dropped = 0;
  await page.route('**/chunk-accuracy.js', (route) => (dropped++ === 0 ? route.abort('connectionreset') : route.continue()));
  await app.open('http');
  const summary = page.getByTestId('accuracy').locator('summary');
  await summary.click();
  await expect(page.getByTestId('accuracy-summary')).toHaveText('The accuracy table could not be loaded (chunk-accuracy.js, written by scripts/build-web.sh).');
  await expect(page.getByTestId('accuracy-row')).toHaveCount(0);
  await summary.click();  // closed
  await summary.click();  // opened again
  await expect(page.getByTestId('accuracy-row')).toHaveCount(cases.length);
  expect(dropped).toBe(2);
});

test('on the Chinese page the summaries and case groups are worded in Chinese from the programs\' figures', async ({ app, page }) => {
  const data = accuracyData();
  await app.open('http');
  await page.getByTestId('lang').selectOption('zh');
  await page.getByTestId('accuracy').locator('summary').click();
  await expect(page.getByTestId('accuracy-row')).toHaveCount(cases.length);
  const handed = data.figures.find((f) => f.group === 'peak_per_gpu (handed)');
  const summary = page.getByTestId('accuracy-summary');
  await expect(summary).toContainText(`给定案例的每卡峰值（${handed.cases} 例，未覆盖 ${handed.misses} 例）：|误差| 中位数 ${(handed.median_abs_error * 100).toFixed(1)}%`);
  await expect(summary).toContainText(`实际 OOM 的运行被判为放得下：${data.oom_cases} 例中 ${data.oom_said_to_fit} 例`);
  await expect(summary).not.toContainText('handed figures');
  await expect(page.getByTestId('accuracy-figures-row').first().locator('th')).toHaveText('每卡峰值（给定案例）');
  const time = page.getByTestId('time-accuracy-summary');
  await expect(time).toContainText('每步时间，给定案例：');
  await expect(time).not.toContainText('step-time cases');
  // A fit check's verdict in Chinese, not the program's English status.
  const fit = data.rows.find((r) => r.outcome === 'fit_check' && !r.fit_expected);
  const cell = page.locator(`[data-testid="accuracy-row"][data-case="${fit.id}"]`).getByTestId('accuracy-error');
  await expect(cell).toContainText('实际显存溢出；判断为');
  await expect(cell).not.toContainText('fits expected');
});
