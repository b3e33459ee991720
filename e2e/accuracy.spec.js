// The Accuracy section: the accuracy program's table (web/accuracy-data.js, written on every build)
// with one row per published case, what each source measured, and the error.
const { test, expect, ROOT } = require('./fixtures');
const fs = require('fs');
const path = require('path');
const Render = require('../web/render.js');

const cases = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'fixtures', 'measured_cases.json'))).cases;

function accuracyData() {
  const sandbox = {};
  new Function('window', fs.readFileSync(path.join(ROOT, 'web', 'accuracy-data.js'), 'utf8'))(sandbox);
  return sandbox.TRAINMEM_ACCURACY;
}

for (const where of ['http', 'offline']) {
  test(`the accuracy table has a row per published case, with source, measure and error (${where})`, async ({ app, page }) => {
    const data = accuracyData();
    expect(data.rows.map((r) => r.id)).toEqual(cases.map((c) => c.id));
    await app.open(where);
    const section = page.getByTestId('accuracy');
    await expect(page.getByTestId('accuracy-table')).toBeHidden();  // collapsed until opened
    await section.locator('summary').click();
    await expect(page.getByTestId('accuracy-row')).toHaveCount(cases.length);
    expect(await page.getByTestId('accuracy-summary').textContent()).toBe(data.summary.trim());
    for (const row of data.rows) {
      const tr = page.locator(`[data-testid="accuracy-row"][data-case="${row.id}"]`);
      await expect(tr.locator('th .source')).toHaveText(row.source);
      if (typeof row.error === 'number') {
        await expect(tr.getByTestId('accuracy-error')).toHaveAttribute('data-value', String(row.error));
        await expect(tr.locator('td').nth(1)).toHaveText(Render.formatBytes(row.measured_bytes, 'GiB'));
        await expect(tr.locator('td').nth(2)).toHaveText(Render.formatBytes(row.predicted_bytes, 'GiB'));
      } else {
        await expect(tr.getByTestId('accuracy-error')).toHaveText(row.status);
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
