// Importing a trainer config on the page: files dropped together, read by the engine in its worker,
// give the same document and estimate as `trainmem import` then `trainmem estimate` (the CLI run
// here, as built); the provenance table, parse errors with line and column, a model the catalog
// lacks asking for its config.json, and the offline folder from file://.
const { test, expect, cli, ROOT, WHERE } = require('./fixtures');
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const CONFIGS = path.join(ROOT, 'tests', 'fixtures', 'configs');
const TRAINMEM = path.join(ROOT, 'build-native', 'trainmem');
const YAML = 'accelerate_deepspeed.yaml';
const JSON_FILE = '../deepspeed/zero_stage1_config.json';

/** `trainmem import --document-only FILE...` run where the files are. */
function cliImport(cwd, files) {
  return JSON.parse(execFileSync(TRAINMEM, ['import', '--document-only', ...files], { cwd }).toString());
}

/** Drops files (paths under tests/fixtures/configs) on the import box, as a file manager would. */
async function drop(page, files) {
  const contents = files.map((f) => ({ name: path.basename(f), text: fs.readFileSync(path.join(CONFIGS, f), 'utf8') }));
  await page.locator('#import > summary').click();
  await page.locator('#import').evaluate((box, list) => {
    const dt = new DataTransfer();
    for (const f of list) dt.items.add(new File([f.text], f.name));
    box.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, contents);
}

for (const where of ['http', 'offline']) {
  test(`an accelerate YAML dropped with its DeepSpeed JSON gives the CLI's document and estimate (${where})`, async ({ app, page }) => {
    await app.open(where);
    const before = await app.inputDoc();
    await drop(page, ['accelerate/' + YAML, 'accelerate/' + JSON_FILE]);
    await expect(page.getByTestId('import-result')).toBeVisible();
    // The CLI's import of the same files; the files name no model and no GPU, so the page keeps the
    // ones it had (and says so).
    const expected = { ...cliImport(path.join(CONFIGS, 'accelerate'), [YAML, JSON_FILE]), model: before.model, gpu: before.gpu };
    const doc = await app.inputDoc();
    expect(doc).toEqual(expected);
    expect(doc.parallel.zero_stage).toBe(1);  // ZeRO-1 from the DeepSpeed JSON (tests/fixtures/configs/accelerate/expected.json)
    expect(doc.parallel.world_size).toBe(2);  // num_processes: 2 in the accelerate YAML
    expect(await app.bytes('b-peak')).toBe(cli(expected).per_gpu.peak);
    await expect(page.getByTestId('import-summary')).toContainText('model, gpu');

    // Provenance: the ZeRO stage read from the JSON's key, the GPU count from the YAML's.
    const stage = page.locator('#provenance tr[data-field="parallel.zero_stage"]');
    await expect(stage).toHaveAttribute('data-origin', 'read');
    await expect(stage).toContainText('read from zero_stage1_config.json:zero_optimization.stage');
    await expect(stage.locator('td').first()).toHaveText('1');
    await expect(page.locator('#provenance tr[data-field="parallel.world_size"]')).toContainText(`read from ${YAML}:num_processes`);
    // A field no file gives: the engine's default, its value from the estimate.
    await expect(page.locator('#provenance tr[data-field="batch.seq_length"]')).toHaveAttribute('data-origin', 'engine');
    // DeepSpeed bucket sizes affect memory but have no estimate field: listed as warnings.
    await expect(page.getByTestId('import-unmodelled')).toContainText('zero_stage1_config.json:zero_optimization.allgather_bucket_size');
    // What the previous setup had and the import changed is listed: the sequence length typed before.
    await expect(page.getByTestId('import-replaced')).toContainText(`batch.seq_length: ${before.batch.seq_length} → —`);

    // The link carries the imported setup; Back restores the previous one.
    const link = page.url();
    expect(link).toMatch(/#v4:/);
    await page.goBack();
    await expect.poll(() => app.inputDoc()).toEqual(before);
    await page.goto('about:blank');
    await page.goto(link);
    await expect(page.getByTestId('input-json')).not.toBeEmpty();
    expect(await app.inputDoc()).toEqual(expected);
  });
}

test('a malformed YAML shows its line and column; a TOML too', async ({ app, page }) => {
  await app.open();
  await page.locator('#import > summary').click();
  // Line 2 opens a flow sequence the text never closes: the parser stops at line 3, column 1.
  await page.getByTestId('import-text').fill('per_device_train_batch_size: 2\nlora_target_modules: [q_proj, v_proj\n');
  await page.getByTestId('import-run').click();
  await expect(page.getByTestId('import-errors')).toContainText('pasted.yaml:3:1:');
  await expect(page.getByTestId('import-result')).toBeHidden();
  await page.getByTestId('import-text').fill('[training]\nlocal_batch_size = = 8\n');
  await page.getByTestId('import-run').click();
  await expect(page.getByTestId('import-errors')).toContainText(/pasted\.toml:2:\d+:/);
});

test('a command line naming a model the catalog lacks asks for its config.json, then imports with it', async ({ app, page }) => {
  await app.open();
  await drop(page, ['trl/trl_dpo_lora.sh']);
  await expect(page.getByTestId('import-errors')).toContainText('Qwen/Qwen2-0.5B-Instruct');
  await expect(page.getByTestId('import-model')).toBeVisible();
  // The instruct model's config.json is the base model's (the same architecture): the catalog's copy.
  const config = JSON.parse(execFileSync(TRAINMEM, ['catalog', 'models'])).models.find((m) => m.id === 'qwen2-0.5b').hf_config;
  fs.mkdirSync(path.join(ROOT, 'build-native', 'e2e-import'), { recursive: true });
  const configPath = path.join(ROOT, 'build-native', 'e2e-import', 'config.json');
  fs.writeFileSync(configPath, JSON.stringify(config));
  await page.getByTestId('import-model-config').fill(JSON.stringify(config));
  await page.getByTestId('import-model-use').click();
  await expect(page.getByTestId('import-result')).toBeVisible();
  const expected = { ...cliImport(path.join(CONFIGS, 'trl'), ['trl_dpo_lora.sh', configPath]), gpu: 'h100-sxm-80gb' };
  expect(await app.inputDoc()).toEqual(expected);
  expect((await app.inputDoc()).model.hf_config.hidden_size).toBe(896);
  await expect(page.locator('#provenance tr[data-field="model"]')).toContainText('read from');
});

test('the import panel in Chinese', async ({ app, page }) => {
  await app.open();
  await page.getByTestId('lang').selectOption('zh');
  await drop(page, ['accelerate/' + YAML, 'accelerate/' + JSON_FILE]);
  await expect(page.locator('#import > summary')).toHaveText('导入训练框架配置');
  await expect(page.locator('#provenance tr[data-field="parallel.zero_stage"]')).toContainText('读取自 zero_stage1_config.json:zero_optimization.stage');
  await expect(page.getByTestId('import-summary')).toContainText('已导入');
});

for (const theme of ['light', 'dark']) {
  test(`axe-core finds no serious or critical violation in the panel after an import (${theme})`, async ({ browser }) => {
    const context = await browser.newContext({ bypassCSP: true });  // to inject axe; the page itself is unchanged
    const page = await context.newPage();
    await page.goto(WHERE.http);
    await expect(page.getByTestId('input-json')).not.toBeEmpty();
    await page.getByTestId('theme').selectOption(theme);
    await drop(page, ['accelerate/' + YAML, 'accelerate/' + JSON_FILE]);
    await expect(page.getByTestId('import-result')).toBeVisible();
    await page.locator('#import-ignored-box > summary').click();
    await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
    const result = await page.evaluate(() => window.axe.run('#import', { resultTypes: ['violations'] }));
    const serious = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => v.id + ': ' + v.help + ' — ' + v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', '));
    expect(serious).toEqual([]);
    await context.close();
  });
}
