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

/** `trainmem import FILE...`: the document with its provenance. */
function cliImportFull(cwd, files) {
  return JSON.parse(execFileSync(TRAINMEM, ['import', ...files], { cwd }).toString());
}

const getPath = (doc, p) => p.split('.').reduce((o, k) => (o && typeof o === 'object' ? o[k] : undefined), doc);
function setPath(doc, p, v) {
  const keys = p.split('.');
  let o = doc;
  for (const k of keys.slice(0, -1)) o = o[k] = o[k] || {};
  o[keys[keys.length - 1]] = v;
}

/** `trainmem import NAME` of a text written to a fresh temporary folder: the document with its provenance. */
function cliImportText(name, text) {
  const dir = fs.mkdtempSync(path.join(require('os').tmpdir(), 'trainmem-'));
  fs.writeFileSync(path.join(dir, name), text);
  return cliImportFull(dir, [name]);
}

/**
 * The page's document after an import, by the rule the page states: the CLI's document, the model
 * and GPU kept when no file gives them, and every field the CLI's provenance gives as "engine
 * default" (no file, no framework default; the method and the parallel layout but the GPU count
 * excepted) or "unresolved: ..." (a variable the script does not set) kept from the inputs before,
 * where they state it.
 */
function importedDoc(answer, before) {
  const doc = JSON.parse(JSON.stringify(answer.document));
  for (const [field, origin] of Object.entries(answer.provenance)) {
    // Not the method nor the parallel layout other than the GPU count (docs/import.md).
    const layout = field === 'method' || (field.startsWith('parallel.') && field !== 'parallel.world_size' && field !== 'parallel.gpus_per_node');
    const kept = origin.startsWith('unresolved: ') || (origin.startsWith('engine default') && !layout);
    if (kept && getPath(doc, field) === undefined && getPath(before, field) !== undefined) setPath(doc, field, getPath(before, field));
  }
  for (const f of ['model', 'gpu']) if (doc[f] === undefined) doc[f] = before[f];
  return doc;
}

/** Drops files (paths under tests/fixtures/configs, or {name, text}) on the import box, as a file manager would. */
async function drop(page, files) {
  const contents = files.map((f) => (typeof f === 'string' ? { name: path.basename(f), text: fs.readFileSync(path.join(CONFIGS, f), 'utf8') } : f));
  if (!(await page.locator('#import').evaluate((d) => d.open))) await page.locator('#import > summary').click();
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
    // ones it had (and says so), and the inputs the CLI leaves to the engine's default.
    const answer = cliImportFull(path.join(CONFIGS, 'accelerate'), [YAML, JSON_FILE]);
    // --document-only refuses them (exit status 2): the JSON's micro-batch is DeepSpeed's "auto" and
    // no trainer's file fills it, and no file sets the sequence length (the training script does), so
    // a document alone would take the engine's defaults.
    let refused = null;
    try {
      cliImport(path.join(CONFIGS, 'accelerate'), [YAML, JSON_FILE]);
    } catch (err) {
      refused = JSON.parse(err.stdout.toString());
    }
    expect(refused && refused.errors.map((e) => [e.code, e.field])).toEqual([['unresolved_value', 'batch.micro_batch_size'],
      ['unresolved_value', 'batch.seq_length']]);
    const expected = importedDoc(answer, before);
    expect(answer.provenance['batch.seq_length']).toMatch(/^engine default/);  // no file gives the sequence length
    expect(expected.batch.seq_length).toBe(before.batch.seq_length);
    const doc = await app.inputDoc();
    expect(doc).toEqual(expected);
    expect(doc.parallel.zero_stage).toBe(1);  // ZeRO-1 from the DeepSpeed JSON (tests/fixtures/configs/accelerate/expected.json)
    expect(doc.parallel.world_size).toBe(2);  // num_processes: 2 in the accelerate YAML
    expect(await app.bytes('b-peak')).toBe(cli(expected).per_gpu.peak);
    await expect(page.getByTestId('import-summary')).toContainText('model, gpu');
    // Each file with the framework it was read as, by its name (not the engine's format id).
    await expect(page.getByTestId('import-summary')).toContainText(`${YAML} (accelerate config), zero_stage1_config.json (DeepSpeed config)`);

    // Provenance: the ZeRO stage read from the JSON's key, the GPU count from the YAML's.
    const stage = page.locator('#provenance tr[data-field="parallel.zero_stage"]');
    await expect(stage).toHaveAttribute('data-origin', 'read');
    await expect(stage).toContainText('read from zero_stage1_config.json:zero_optimization.stage');
    await expect(stage.locator('td').first()).toHaveText('1');
    await expect(page.locator('#provenance tr[data-field="parallel.world_size"]')).toContainText(`read from ${YAML}:num_processes`);
    // A field no file gives, which the inputs before stated: kept from them, and said so.
    const seq = page.locator('#provenance tr[data-field="batch.seq_length"]');
    await expect(seq).toHaveAttribute('data-origin', 'kept');
    await expect(seq).toContainText('kept from the form');
    await expect(page.getByTestId('import-replaced')).toContainText(`batch.seq_length: ${before.batch.seq_length} (kept from the form)`);
    // A field neither a file nor the inputs before state: the engine's default.
    const engineOnly = Object.keys(answer.provenance).find((f) => /^engine default/.test(answer.provenance[f]) && getPath(before, f) === undefined);
    expect(engineOnly).toBeDefined();
    await expect(page.locator(`#provenance tr[data-field="${engineOnly}"]`)).toHaveAttribute('data-origin', 'engine');
    // DeepSpeed bucket sizes affect memory but have no estimate field: listed as warnings.
    await expect(page.getByTestId('import-unmodelled')).toContainText('zero_stage1_config.json:zero_optimization.allgather_bucket_size');

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

test('LoRA on chosen layers and a regex target list imported from axolotl: priced as the CLI prices them, and the link reproduces them', async ({ app, page }) => {
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await app.open();
  const before = await app.inputDoc();
  const text = 'base_model: meta-llama/Llama-3.1-8B\nadapter: lora\nlora_r: 16\nlora_target_modules: ".*\\\\.(q_proj|v_proj)"\n' +
    'peft_layers_to_transform: [0, 1]\nmicro_batch_size: 1\nsequence_len: 2048\n';
  await drop(page, [{ name: 'lora.yaml', text }]);
  await expect(page.getByTestId('import-result')).toBeVisible();
  const expected = importedDoc(cliImportText('lora.yaml', text), before);
  expect(expected.lora.target_modules).toBe('.*\\.(q_proj|v_proj)');
  expect(expected.lora.layers_to_transform).toEqual([0, 1]);
  await expect.poll(() => app.inputDoc()).toEqual(expected);
  await expect.poll(() => app.bytes('b-peak')).toBe(cli(expected).per_gpu.peak);
  const link = page.url();
  expect(link).toMatch(/&lt=~/);
  expect(link).toMatch(/&ll=0,1&/);
  const fresh = await page.context().browser().newContext();
  const other = await fresh.newPage();
  await other.goto(link);
  await expect(other.getByTestId('input-json')).not.toBeEmpty();
  expect(JSON.parse(await other.getByTestId('input-json').textContent())).toEqual(expected);
  await fresh.close();
  expect(errors).toEqual([]);
});

test('a torchtune recipe config dropped with its tune run line gives the CLI\'s document and estimate', async ({ app, page }) => {
  await app.open('http');
  const before = await app.inputDoc();
  // torchtune's llama3_1/8B_full.yaml with the launch line of its header (tests/fixtures/configs/torchtune/expected.json).
  const files = ['8B_full.yaml', '8B_full.sh'];
  await drop(page, files.map((f) => 'torchtune/' + f));
  await expect(page.getByTestId('import-result')).toBeVisible();
  const answer = cliImportFull(path.join(CONFIGS, 'torchtune'), files);
  const expected = importedDoc(answer, before);
  const doc = await app.inputDoc();
  expect(doc).toEqual(expected);
  expect(doc.framework).toBe('torchtune');
  expect(doc.model).toEqual({ preset: 'llama-3.1-8b' });  // model: torchtune.models.llama3_1.llama3_1_8b
  expect(doc.parallel.world_size).toBe(4);  // tune run --nproc_per_node 4
  expect(await app.bytes('b-peak')).toBe(cli(expected).per_gpu.peak);
  await expect(page.locator('#provenance tr[data-field="parallel.world_size"]')).toContainText('read from 8B_full.sh:--nproc_per_node');
  await expect(page.getByTestId('import-unmodelled')).toContainText('8B_full.yaml:custom_sharded_layers');
});

test('an import replaces what the previous one set: the same files give the same estimate, and what is kept from the form is listed', async ({ app, page }) => {
  // A new user's launch line: Qwen2.5-7B LoRA r 16 on 4 GPUs, 8 x 1024 tokens, bf16, checkpointing.
  const line = 'accelerate launch --num_processes 4 train.py --model_name_or_path Qwen/Qwen2.5-7B --per_device_train_batch_size 8 '
    + '--max_seq_length 1024 --bf16 --gradient_checkpointing --use_peft --lora_r 16';
  await app.open();
  const fresh = await app.inputDoc();
  const answer = cliImportText('accelerate_launch.sh', line);
  const expected = importedDoc(answer, fresh);
  const importLine = async () => {
    await page.getByTestId('import-text').fill(line);
    await page.getByTestId('import-run').click();
    await expect(page.getByTestId('import-result')).toBeVisible({ timeout: 15000 });  // the first import loads the config module
  };
  await page.locator('#import > summary').click();
  await importLine();
  expect(await app.inputDoc()).toEqual(expected);
  const peak = cli(expected).per_gpu.peak;
  expect(await app.bytes('b-peak')).toBe(peak);
  // A torchtune LoRA recipe with its tune run line states what the launch line leaves to the engine
  // (lora.target_modules, precision.master_weights, loss.implementation, ...).
  await page.getByTestId('import-clear').click();
  const torchtune = cliImportFull(path.join(CONFIGS, 'torchtune'), ['8B_lora_single_device.yaml', '8B_lora_single_device.sh']);
  const leftToEngine = Object.keys(answer.provenance).filter((f) => /^engine default/.test(answer.provenance[f]) && getPath(torchtune.document, f) !== undefined);
  expect(leftToEngine).toContain('lora.target_modules');
  await drop(page, ['torchtune/8B_lora_single_device.yaml', 'torchtune/8B_lora_single_device.sh']);
  await expect(page.getByTestId('import-result')).toBeVisible();
  expect((await app.inputDoc()).lora.target_modules).toEqual(torchtune.document.lora.target_modules);
  // The same launch line again: the torchtune import's values are reset, not kept.
  await page.getByTestId('import-clear').click();
  await importLine();
  expect(await app.inputDoc()).toEqual(expected);
  expect(await app.bytes('b-peak')).toBe(peak);
  // A value the user sets after an import is the user's: the next import that leaves it to the
  // engine keeps it, and lists it as kept from the form.
  expect(answer.provenance['loss.implementation']).toMatch(/^engine default/);
  await page.locator('#advanced > summary').click();
  await app.set('loss.implementation', 'fused');
  await page.getByTestId('import-clear').click();
  await importLine();
  expect(await app.inputDoc()).toEqual({ ...expected, loss: { implementation: 'fused' } });
  await expect(page.locator('#import-replaced li[data-kept="loss.implementation"]')).toHaveText('loss.implementation: fused (kept from the form)');
  await expect(page.locator('#provenance tr[data-field="loss.implementation"]')).toHaveAttribute('data-origin', 'kept');
  await expect(page.locator('#import-replaced li[data-kept]')).toHaveCount(1);
});

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

test('a UTF-16 file is named as such; files too large together are refused with their size as sent', async ({ app, page }) => {
  await app.open();
  await page.locator('#import > summary').click();
  // "{}" as UTF-16LE with its byte-order mark, as Windows editors save "Unicode" text.
  await page.locator('#import').evaluate((box) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00])], 'ds_config.json'));
    box.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  await expect(page.getByTestId('import-errors')).toContainText('ds_config.json is UTF-16 text (by its byte-order mark); save it as UTF-8');
  // Two DeepSpeed JSONs of 600,000 bytes each: each under the 1 MiB (1,048,576-byte) limit, together over it.
  const big = (n) => '{"train_micro_batch_size_per_gpu": 1, "comment": "' + 'x'.repeat(600000 - 53 - String(n).length) + String(n) + '"}';
  await page.locator('#import').evaluate((box, texts) => {
    const dt = new DataTransfer();
    texts.forEach((text, i) => dt.items.add(new File([text], `part${i}.json`)));
    box.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, [big(1), big(2)]);
  await expect(page.getByTestId('import-errors')).toContainText(/part0\.json, part1\.json together make an import of 1,?2\d\d,?\d\d\d bytes/);
  await expect(page.getByTestId('import-errors')).toContainText('at most 1048576 bytes per import');
});

test('a binary file chosen is named as not UTF-8 text, also when Import is clicked after it, in English and Chinese', async ({ app, page }) => {
  await app.open();
  const before = await app.inputDoc();
  await page.locator('#import > summary').click();
  // Byte 0xC5 opens a two-byte UTF-8 sequence; 0x01 cannot continue one (RFC 3629, section 4).
  // `trainmem import` names it: "model.bin:1:3: byte 0xC5 is not UTF-8".
  const bytes = [0x61, 0x62, 0xc5, 0x01, 0x02, 0x00, 0xff];
  const answer = (() => {
    const dir = fs.mkdtempSync(path.join(require('os').tmpdir(), 'trainmem-'));
    fs.writeFileSync(path.join(dir, 'model.bin'), Buffer.from(bytes));
    try {
      execFileSync(TRAINMEM, ['import', 'model.bin'], { cwd: dir });
    } catch (e) {
      return JSON.parse(e.stdout.toString());
    }
    return null;
  })();
  expect(answer.error.code).toBe('invalid_encoding');
  await page.getByTestId('import-files').setInputFiles({ name: 'model.bin', mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) });
  const errors = page.getByTestId('import-errors');
  await expect(errors.locator('li[data-code="invalid_encoding"]')).toHaveText('model.bin model.bin is not UTF-8 text; save it as UTF-8, as the frameworks and trainmem import read it.');
  await page.getByTestId('import-run').click();
  await expect(errors.locator('li[data-code="invalid_encoding"]')).toContainText('model.bin is not UTF-8 text');
  await expect(errors).not.toContainText('missing_field');
  await expect(errors).not.toContainText('Nothing to import');
  await page.getByTestId('lang').selectOption('zh');
  await expect(errors.locator('li[data-code="invalid_encoding"]')).toContainText('model.bin 不是 UTF-8 文本');
  expect(await app.inputDoc()).toEqual(before);
  // Clear forgets the file: Import then has nothing to import, said without a code.
  await page.getByTestId('import-clear').click();
  await page.getByTestId('import-run').click();
  await expect(errors.locator('li[data-code="missing_field"]')).toHaveText('没有可导入的内容：请选择或拖入文件，或粘贴文件内容或命令行。');
});

test('a failed import after a good one shows nothing of the earlier result and says the form is unchanged', async ({ app, page }) => {
  await app.open();
  await drop(page, ['accelerate/' + YAML, 'accelerate/' + JSON_FILE]);
  await expect(page.getByTestId('import-result')).toBeVisible();
  const after = await app.inputDoc();
  await page.getByTestId('import-clear').click();
  await page.getByTestId('import-text').fill('per_device_train_batch_size: 2\nlora_target_modules: [q_proj, v_proj\n');
  await page.getByTestId('import-run').click();
  await expect(page.getByTestId('import-errors')).toContainText('Nothing was imported: the form is unchanged.');
  await expect(page.getByTestId('import-result')).toBeHidden();
  expect(await app.inputDoc()).toEqual(after);
});

test('a command line naming a model the catalog lacks asks for its config.json, then imports with it', async ({ app, page }) => {
  await app.open();
  const before = await app.inputDoc();
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
  const expected = importedDoc(cliImportFull(path.join(CONFIGS, 'trl'), ['trl_dpo_lora.sh', configPath]), before);
  expect(expected.gpu).toBe('h100-sxm-80gb');  // the page's GPU: no trainer file names one
  expect(await app.inputDoc()).toEqual(expected);
  expect((await app.inputDoc()).model.hf_config.hidden_size).toBe(896);
  await expect(page.locator('#provenance tr[data-field="model"]')).toContainText('read from');
});

test('a command line naming a model the catalog lacks imports with a catalog model chosen for it, the nearest offered first', async ({ app, page }) => {
  await app.open();
  const before = await app.inputDoc();
  await drop(page, ['trl/trl_dpo_lora.sh']);
  await expect(page.getByTestId('import-model')).toBeVisible();
  // The engine's nearest catalog model to Qwen/Qwen2-0.5B-Instruct is its base, Qwen/Qwen2-0.5B.
  await expect(page.getByTestId('import-model-preset')).toHaveValue('qwen2-0.5b');
  await page.getByTestId('import-model-preset-use').click();
  await expect(page.getByTestId('import-result')).toBeVisible();
  // As `trainmem import --model qwen2-0.5b` reads the same file.
  const answer = JSON.parse(execFileSync(TRAINMEM, ['import', '--model', 'qwen2-0.5b', 'trl_dpo_lora.sh'], { cwd: path.join(CONFIGS, 'trl') }).toString());
  expect(answer.document.model).toEqual({ preset: 'qwen2-0.5b' });
  expect(await app.inputDoc()).toEqual(importedDoc(answer, before));
  await expect(page.locator('#provenance tr[data-field="model"]')).toHaveAttribute('data-origin', 'given');
  await expect(page.locator('#provenance tr[data-field="model"]')).toContainText('chosen by you');
  // Clear forgets the choice: the same file asks again.
  await page.getByTestId('import-clear').click();
  await drop(page, ['trl/trl_dpo_lora.sh']);
  await expect(page.getByTestId('import-model')).toBeVisible();
});

test('a pasted config.json is listed with the file that asked for it, and goes with it', async ({ app, page }) => {
  await app.open();
  const before = await app.inputDoc();
  // Qwen/Qwen2-0.5B-Instruct is not in the catalog: the import asks for its config.json.
  await drop(page, [{ name: 'runA.yaml', text: 'model_name_or_path: Qwen/Qwen2-0.5B-Instruct\nper_device_train_batch_size: 1\nmax_length: 512\n' }]);
  await expect(page.getByTestId('import-model')).toBeVisible();
  const config = JSON.parse(execFileSync(TRAINMEM, ['catalog', 'models'])).models.find((m) => m.id === 'qwen2-0.5b').hf_config;
  await page.getByTestId('import-model-config').fill(JSON.stringify(config));
  await page.getByTestId('import-model-use').click();
  await expect(page.getByTestId('import-result')).toBeVisible();
  const list = page.getByTestId('import-file-list');
  await expect(list.locator('li')).toHaveCount(2);
  await expect(list.locator('li').nth(1)).toContainText('config.json (the model of runA.yaml)');
  await expect(list.getByRole('button', { name: 'Remove config.json' })).toBeVisible();
  expect((await app.inputDoc()).model.hf_config.hidden_size).toBe(896);  // qwen2-0.5b's config.json
  // Removing runA.yaml removes the config.json it asked for.
  await page.getByRole('button', { name: 'Remove runA.yaml' }).click();
  await expect(list.locator('li')).toHaveCount(0);
  await expect(page.getByTestId('import-result')).toBeHidden();  // no file, no import's summary
  // runB.yaml names a catalog model: that model is estimated (no hidden config.json overrides it).
  const runB = 'model_name_or_path: meta-llama/Llama-3.2-1B\nper_device_train_batch_size: 2\nmax_length: 1024\n';
  await drop(page, [{ name: 'runB.yaml', text: runB }]);
  await expect(page.getByTestId('import-result')).toBeVisible();
  await expect(list.locator('li')).toHaveCount(1);
  await expect(list).toContainText('runB.yaml');
  const dir = path.join(ROOT, 'build-native', 'e2e-import');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'runB.yaml'), runB);
  const answer = cliImportFull(dir, ['runB.yaml']);
  expect(answer.document.model).toEqual({ preset: 'llama-3.2-1b' });  // meta-llama/Llama-3.2-1B is the catalog's llama-3.2-1b
  expect(await app.inputDoc()).toEqual(importedDoc(answer, before));
});

test('two different files of the same name are both kept, the second under a name of its own', async ({ app, page }) => {
  await app.open();
  const accelerate = fs.readFileSync(path.join(CONFIGS, 'accelerate', YAML), 'utf8');
  const trainer = 'per_device_train_batch_size: 3\nmax_length: 768\n';
  await drop(page, [{ name: 'config.yaml', text: accelerate }]);
  await drop(page, [{ name: 'config.yaml', text: trainer }]);
  const list = page.getByTestId('import-file-list');
  await expect(list.locator('li code')).toHaveText(['config.yaml', 'config (2).yaml']);
  await expect(page.getByTestId('import-result')).toBeVisible();
  // Both are read: the GPU count from the first (num_processes: 2), the batch from the second.
  const doc = await app.inputDoc();
  expect(doc.parallel.world_size).toBe(2);
  expect(doc.batch.micro_batch_size).toBe(3);
  expect(doc.batch.seq_length).toBe(768);
  await expect(page.locator('#provenance tr[data-field="batch.micro_batch_size"]')).toContainText('read from config (2).yaml:per_device_train_batch_size');
  // The same file dropped again is not listed twice.
  await drop(page, [{ name: 'config.yaml', text: trainer }]);
  await expect(list.locator('li')).toHaveCount(2);
});

test('a partial import keeps the inputs it leaves to the engine default; Back restores the setup', async ({ app, page }) => {
  await app.open();
  await app.set('batch.seq_length', 4096);
  await app.set('parallel.world_size', 8);
  const before = await app.inputDoc();
  expect(before.batch.seq_length).toBe(4096);
  expect(before.parallel.world_size).toBe(8);
  await drop(page, ['deepspeed/zero_stage1_config.json']);
  await expect(page.getByTestId('import-result')).toBeVisible();
  const answer = cliImportFull(path.join(CONFIGS, 'deepspeed'), ['zero_stage1_config.json']);
  // The DeepSpeed JSON states neither (tests/fixtures/configs/deepspeed/zero_stage1_config.json).
  expect(answer.provenance['batch.seq_length']).toBe('engine default');
  expect(answer.provenance['parallel.world_size']).toBe('engine default');
  const doc = await app.inputDoc();
  expect(doc.batch.seq_length).toBe(4096);
  expect(doc.parallel.world_size).toBe(8);
  expect(doc.parallel.zero_stage).toBe(1);  // read from the file: applied
  expect(doc).toEqual(importedDoc(answer, before));
  await expect(page.locator('#provenance tr[data-field="parallel.world_size"]')).toHaveAttribute('data-origin', 'kept');
  await expect(page.locator('#provenance tr[data-field="parallel.world_size"]')).toContainText('kept from the form');
  await expect(page.getByTestId('import-replaced')).toContainText('parallel.world_size: 8 (kept from the form)');
  await expect(page.getByTestId('import-replaced')).toContainText('batch.seq_length: 4096 (kept from the form)');
  await page.goBack();
  await expect.poll(() => app.inputDoc()).toEqual(before);
});

test('a flag given an unset variable keeps the form\'s value, as the CLI reports it unresolved; another framework\'s config is named', async ({ app, page }) => {
  await app.open();
  await app.set('batch.seq_length', 4096);
  const before = await app.inputDoc();
  const text = 'accelerate launch --num_processes 8 trl/scripts/sft.py --model_name_or_path Qwen/Qwen2.5-7B --max_length $SEQ --bf16\n';
  await drop(page, [{ name: 'run.sh', text }]);
  await expect(page.getByTestId('import-result')).toBeVisible();
  const answer = cliImportText('run.sh', text);
  expect(answer.provenance['batch.seq_length']).toBe('unresolved: run.sh:--max_length $SEQ');
  const doc = await app.inputDoc();
  expect(doc).toEqual(importedDoc(answer, before));
  expect(doc.batch.seq_length).toBe(4096);  // not TRL's default 1024
  const row = page.locator('#provenance tr[data-field="batch.seq_length"]');
  await expect(row).toHaveAttribute('data-origin', 'kept');
  await expect(row).toContainText('run.sh:--max_length $SEQ');
  // A NeMo config: named, in the page's words, and nothing is imported.
  await drop(page, [{ name: 'megatron_gpt_config.yaml', text: 'trainer:\n  devices: 8\nexp_manager: {}\nmodel:\n  micro_batch_size: 4\n' }]);
  await expect(page.locator('#import-errors li[data-code="unknown_config_format"]')).toContainText('this is a NeMo configuration');
});

test('a Megatron-LM launch script dropped on the page builds its model and gives the CLI\'s document and estimate', async ({ app, page }) => {
  await app.open();
  const before = await app.inputDoc();
  await drop(page, ['megatron/pretrain_gpt_distributed_with_mp.sh']);
  await expect(page.getByTestId('import-result')).toBeVisible();
  // The script names no GPU type: the page keeps its own; the model is the one the script builds.
  const expected = importedDoc(cliImportFull(path.join(CONFIGS, 'megatron'), ['pretrain_gpt_distributed_with_mp.sh']), before);
  expect(expected.gpu).toBe(before.gpu);
  const doc = await app.inputDoc();
  expect(doc).toEqual(expected);
  // GPT-2 345M's layout, TP 2 x PP 2 on 8 GPUs (tests/fixtures/configs/megatron/expected.json).
  expect(doc.model.hf_config.model_type).toBe('gpt2');
  expect(doc.parallel.tensor_parallel_size).toBe(2);
  expect(await app.bytes('b-peak')).toBe(cli(expected).per_gpu.peak);
  await expect(page.locator('#provenance tr[data-field="model"]')).toContainText('read from pretrain_gpt_distributed_with_mp.sh:--num-layers');
  // $CHECKPOINT_PATH is never set in the script: listed, not guessed.
  await expect(page.getByTestId('import-unresolved')).toContainText('pretrain_gpt_distributed_with_mp.sh:--save');
});

test('the import panel in Chinese', async ({ app, page }) => {
  await app.open();
  await page.getByTestId('lang').selectOption('zh');
  await drop(page, ['accelerate/' + YAML, 'accelerate/' + JSON_FILE]);
  await expect(page.locator('#import > summary')).toHaveText('导入训练框架配置');
  await expect(page.locator('#provenance tr[data-field="parallel.zero_stage"]')).toContainText('读取自 zero_stage1_config.json:zero_optimization.stage');
  await expect(page.getByTestId('import-summary')).toContainText('已导入');
  await expect(page.locator('#provenance tr[data-field="batch.seq_length"]')).toContainText('沿用表单中的值');
  await expect(page.getByTestId('import-replaced')).toContainText('沿用表单中的值');
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

test('a trainer file without DeepSpeed, FSDP or an adapter runs full fine-tuning under DDP: the form\'s ZeRO-3 and method are not kept', async ({ app, page }) => {
  await app.open('http');
  const before = await app.inputDoc();
  expect(before.parallel.zero_stage).toBe(3);  // the page's starting setup shards with ZeRO-3
  // A TrainingArguments YAML as HfArgumentParser.parse_yaml_file reads it: no deepspeed, no fsdp, no PEFT.
  const text = 'model_name_or_path: meta-llama/Meta-Llama-3-8B\nper_device_train_batch_size: 2\nbf16: true\nmax_length: 2048\n';
  await drop(page, [{ name: 'sft.yaml', text }]);
  await expect(page.getByTestId('import-result')).toBeVisible();
  const answer = cliImportText('sft.yaml', text);
  expect(answer.provenance['parallel.zero_stage']).toMatch(/^engine default/);
  const doc = await app.inputDoc();
  expect(doc).toEqual(importedDoc(answer, before));
  expect(doc.parallel.zero_stage).toBeUndefined();  // the engine's default: no sharding (DDP), as the CLI estimates
  expect(doc.method).toBeUndefined();
  expect(doc.parallel.world_size).toBe(before.parallel.world_size);  // the GPU count stays the form's
  await expect(page.locator('#provenance tr[data-field="parallel.zero_stage"]')).toHaveAttribute('data-origin', 'engine');
  expect(await app.bytes('b-peak')).toBe(cli(doc).per_gpu.peak);
});

test('a Megatron-LM script whose model cannot be built imports nothing and asks for its config.json; the form\'s model is not used', async ({ app, page }) => {
  await app.open('http');
  const before = await app.inputDoc();
  // The vocabulary comes from a Hugging Face tokenizer the import cannot open (no --vocab-size).
  const text = 'torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 24 --hidden-size 2048 --num-attention-heads 16 ' +
    '--seq-length 2048 --max-position-embeddings 2048 --micro-batch-size 2 --global-batch-size 64 --bf16 ' +
    '--tokenizer-type HuggingFaceTokenizer --tokenizer-model meta-llama/Llama-2-7b-hf\n';
  await drop(page, [{ name: 'train.sh', text }]);
  const error = page.locator('#import-errors li[data-code="model_config_needed"]');
  await expect(error).toContainText('train.sh:(architecture)');
  await expect(page.locator('#import-model')).toBeVisible();
  await expect(page.getByTestId('import-result')).toBeHidden();
  expect(await app.inputDoc()).toEqual(before);
});

test('Import clicked again after the chosen files were imported keeps the summary of what they changed', async ({ app, page }) => {
  await app.open();
  await drop(page, ['accelerate/' + YAML, 'accelerate/' + JSON_FILE]);
  await expect(page.getByTestId('import-result')).toBeVisible();
  const summary = await page.getByTestId('import-summary').textContent();
  const replaced = await page.getByTestId('import-replaced').locator('li').allTextContents();
  expect(summary).toContain('inputs of your previous setup changed');
  expect(replaced.length).toBeGreaterThan(0);
  const doc = await app.inputDoc();
  await page.getByTestId('import-run').click();
  await app.settled();
  await expect(page.getByTestId('import-summary')).toHaveText(summary);
  await expect(page.getByTestId('import-replaced').locator('li')).toHaveText(replaced);
  expect(await app.inputDoc()).toEqual(doc);
  // After an edit, importing the same files again changes that input back, and says so.
  // (zero_stage 1 is read from tests/fixtures/configs/deepspeed/zero_stage1_config.json.)
  await app.set('parallel.zero_stage', 3);
  await page.getByTestId('import-run').click();
  await app.settled();
  await expect(page.getByTestId('import-replaced').locator('li').first()).toHaveText('parallel.zero_stage: 3 → 1');
  await expect(page.getByTestId('import-replaced').locator('li')).not.toHaveText(replaced);
  expect(await app.inputDoc()).toEqual(doc);
});

test('a Megatron-LM launch line with an uneven pipeline split imports its layers per stage, which travel in the link', async ({ app, page }) => {
  // 30 layers on 4 stages: --decoder-first/last-pipeline-num-layers 6 leave 18 for the 2 middle
  // stages (transformer_block.py get_num_layers_to_build): 6, 9, 9, 6.
  const text = 'torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 30 --hidden-size 2048 --num-attention-heads 16 ' +
    '--seq-length 2048 --max-position-embeddings 2048 --micro-batch-size 2 --global-batch-size 64 --bf16 ' +
    '--vocab-size 32000 --tokenizer-type NullTokenizer --pipeline-model-parallel-size 4 ' +
    '--decoder-first-pipeline-num-layers 6 --decoder-last-pipeline-num-layers 6\n';
  await app.open('http');
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  const before = await app.inputDoc();
  const answer = cliImportText('train.sh', text);
  expect(answer.document.parallel.pipeline_layers).toEqual([6, 9, 9, 6]);
  await drop(page, [{ name: 'train.sh', text }]);
  await expect(page.getByTestId('import-result')).toBeVisible({ timeout: 15000 });
  const doc = await app.inputDoc();
  expect(doc).toEqual(importedDoc(answer, before));
  await expect(app.field('parallel.pipeline_layers')).toHaveValue('6,9,9,6');
  await expect(page).toHaveURL(/[&:]pl=6,9,9,6(&|$)/);
  expect(await app.bytes('b-peak')).toBe(cli(doc).per_gpu.peak);
  expect(errors).toEqual([]);
});
