// Exporting the setup on screen as a trainer's config file: the page's file, read back as the
// framework reads it (`trainmem parse`: JSON, or YAML by PyYAML's YAML 1.1 rules), equals
// `trainmem export FORMAT --config-only` of the same document (the CLI run here, as built); the
// fields the format cannot carry are listed as the CLI lists them; the download holds the file shown.
const { test, expect, ROOT } = require('./fixtures');
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const TRAINMEM = path.join(ROOT, 'build-native', 'trainmem');

/** `trainmem export FORMAT -` of a document: {format, config, not_exported}. */
function cliExport(doc, format) {
  return JSON.parse(execFileSync(TRAINMEM, ['export', format, '-'], { input: JSON.stringify(doc) }).toString());
}

/** A file's text as `trainmem parse` reads it (the name's extension picks JSON or YAML). */
function parsed(name, text) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trainmem-export-'));
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  try {
    return JSON.parse(execFileSync(TRAINMEM, ['parse', file]).toString());
  } finally {
    fs.rmSync(dir, { recursive: true });
  }
}

// LoRA on Llama 3.1 8B, micro-batch 2, ZeRO-2 on 8 H100s.
const SETUP = '#v3:m=llama-3.1-8b&me=lora&b=2&s=4096&n=8&z=2&g=h100-sxm-80gb';

for (const [format, file] of [['deepspeed', 'ds_config.json'], ['accelerate', 'accelerate_config.yaml'], ['axolotl', 'axolotl.yaml']]) {
  test(`the setup exported as ${format} is the CLI's file, with what it cannot carry listed`, async ({ app, page }) => {
    await app.open('http', SETUP);
    const doc = await app.inputDoc();
    const expected = cliExport(doc, format);
    await page.getByTestId('export-format').selectOption(format);
    await page.getByTestId('export-config').click();
    const text = page.getByTestId('export-config-text');
    await expect(text).not.toBeEmpty();
    const shown = await text.textContent();
    expect(parsed(file, shown)).toEqual(expected.config);
    const notExported = page.getByTestId('export-not-exported').locator('li');
    await expect(notExported).toHaveCount(Math.max(1, expected.not_exported.length));
    for (const n of expected.not_exported) await expect(page.getByTestId('export-not-exported')).toContainText(`${n.field}: ${n.reason}`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-config-download').click()]);
    expect(download.suggestedFilename()).toBe(file);
    expect(fs.readFileSync(await download.path(), 'utf8')).toBe(shown);
  });
}

test('the exported axolotl file holds the setup\'s adapter, micro-batch, sequence length and precision', async ({ app, page }) => {
  await app.open('http', SETUP);
  await page.getByTestId('export-format').selectOption('axolotl');
  await page.getByTestId('export-config').click();
  await expect(page.getByTestId('export-config-text')).not.toBeEmpty();
  const config = parsed('axolotl.yaml', await page.getByTestId('export-config-text').textContent());
  // The setup, by hand: LoRA adapter, micro-batch 2, sequence 4096, bf16 (the page's precision).
  expect(config.adapter).toBe('lora');
  expect(config.micro_batch_size).toBe(2);
  expect(config.sequence_len).toBe(4096);
  expect(config.bf16).toBe(true);
});

test('a file shown for other inputs is hidden when the inputs change', async ({ app, page }) => {
  await app.open('http', SETUP);
  await page.getByTestId('export-config').click();
  await expect(page.getByTestId('export-config-box')).toBeVisible();
  await app.set('batch.micro_batch_size', 4);
  await expect(page.getByTestId('export-config-box')).toBeHidden();
  await expect(page.getByTestId('export-config-download')).toBeHidden();
});

test('the setup exported as a torchtune line is the CLI\'s line, with what it cannot carry listed', async ({ app, page }) => {
  await app.open('http', SETUP);
  const doc = await app.inputDoc();
  const expected = cliExport(doc, 'torchtune');
  // LoRA on 8 GPUs: torchtune's distributed LoRA recipe over Llama 3.1 8B's built-in LoRA config.
  expect(expected.config).toMatch(/^tune run --nnodes 1 --nproc_per_node 8 lora_finetune_distributed --config llama3_1\/8B_lora /);
  await page.getByTestId('export-format').selectOption('torchtune');
  await page.getByTestId('export-config').click();
  const text = page.getByTestId('export-config-text');
  await expect(text).not.toBeEmpty();
  const shown = await text.textContent();
  expect(shown).toBe(expected.config + '\n');
  for (const n of expected.not_exported) await expect(page.getByTestId('export-not-exported')).toContainText(`${n.field}: ${n.reason}`);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-config-download').click()]);
  expect(download.suggestedFilename()).toBe('tune_run.sh');
  expect(fs.readFileSync(await download.path(), 'utf8')).toBe(shown);
});
