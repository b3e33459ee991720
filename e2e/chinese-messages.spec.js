// The page in Simplified Chinese words the engine's errors and warnings in Chinese (web/src/messages.js,
// from each code's params), on the form, next to the control, in a link's problems, in the
// warnings list and in the import panel (its parse errors, the engine's errors and the notes):
// no English sentence is left, and each message keeps its code in data-code.
const fs = require('fs');
const path = require('path');
const { test, expect, cli, ROOT } = require('./fixtures');
const Url = require('../web/src/link-codec.js');

// Three English words in a row: a sentence left untranslated. Field names, model ids, GPU names
// and type names have no such run, so they pass.
const ENGLISH_SENTENCE = /[A-Za-z]{4,} [a-z]{3,} [a-z]{3,}/;

// A browser set to Chinese opens the page in Chinese (web/src/main.js reads navigator.language).
test.use({ locale: 'zh-CN' });

async function expectChinese(locator) {
  const texts = await locator.allTextContents();
  expect(texts.length).toBeGreaterThan(0);
  for (const text of texts) {
    expect(text).toMatch(/[\u4e00-\u9fff]/);
    expect(text).not.toMatch(ENGLISH_SENTENCE);
  }
}

test('an error on the form is worded in Chinese in the list and beside its control', async ({ app, page }) => {
  await app.open();
  await expect(page.locator('html')).toHaveAttribute('lang', 'zh-Hans');
  await app.model('llama-3.1-8b');
  // Llama-3.1-8B has 32 attention heads (its config.json): tensor parallelism 3 does not divide them.
  await app.set('parallel.world_size', 3);
  await app.set('parallel.tensor_parallel_size', 3);
  const expected = cli(await app.inputDoc());
  expect(expected.error.code).toBe('not_divisible');
  const errors = page.locator('#errors li');
  await expect(errors.first()).toHaveAttribute('data-code', 'not_divisible');
  await expect(errors.first()).toContainText('3 必须整除 num_attention_heads = 32');
  await expectChinese(errors);
  const beside = app.field('parallel.tensor_parallel_size').locator('xpath=following-sibling::p[@data-testid="field-error"]');
  await expect(beside).toHaveText('3 必须整除 num_attention_heads = 32');
  await expect(beside).toHaveAttribute('data-code', 'not_divisible');

  // A micro-batch of 0 is out of range: the value and the bounds are named in Chinese.
  await app.set('parallel.tensor_parallel_size', 1);
  await app.set('parallel.world_size', 1);
  await app.set('batch.micro_batch_size', 0);
  await expect(errors.first()).toHaveAttribute('data-code', 'out_of_range');
  await expect(errors.first()).toContainText('取值 0 超出范围');
  await expectChinese(errors);
  await expectChinese(page.getByTestId('field-error'));

  // Back in English, the engine's own message.
  await page.getByTestId('lang').selectOption('en');
  await app.settled();
  await expect(errors.first()).toContainText('batch.micro_batch_size = 0 is out of range');
});

test("a link naming a model the catalog lacks says so in Chinese", async ({ app, page }) => {
  const link = Url.encode({ model: { preset: 'llama-3.1-8c' }, batch: { seq_length: 512 } });
  await app.open('http', link);
  const problems = page.getByTestId('link-problems');
  await expect(problems).toContainText('llama-3.1-8c');
  await expectChinese(problems.locator('li'));
  // The engine's reason follows a switch to English, and names the field once (the line names it).
  await page.getByTestId('lang').selectOption('en');
  await expect(problems.locator('li').first()).toContainText('is invalid: ');
  await expect(problems.locator('li').first()).not.toContainText('model.preset model.preset');
  await expect(problems.locator('li').first()).not.toContainText('不');
});

// Every kind of link problem the page's codec finds (link-codec.js PROBLEMS), on the Chinese page.
for (const [what, damage] of [
  ['cut short', (link) => link.slice(0, link.length - 14)],
  ['changed after it was made', (link) => link.replace('s=777', 's=778')],
  ['from a newer page', () => '#v9:m=gpt2'],
  ['not a trainmem link', () => '#hello'],
]) {
  test(`a link ${what} is refused in Chinese; English again after switching back`, async ({ app, page }) => {
    await app.open('http', damage(Url.encode({ model: { preset: 'gpt2' }, batch: { seq_length: 777 } })));
    const problems = page.getByTestId('link-problems');
    await expectChinese(problems.locator('li'));
    await page.getByTestId('lang').selectOption('en');
    await expect(problems.locator('li').first()).toContainText('This link was not loaded: ');
  });
}

test('each bad parameter of a link is named in Chinese', async ({ app, page }) => {
  // A v2 link (no check value): a value that is not a number, an unknown parameter, one given twice.
  await app.open('http', '#v2:m=gpt2&n=eight&zz=1&s=512&s=1024');
  const items = page.getByTestId('link-problems').locator('li');
  await expect(items).toHaveCount(4);  // three parameters and the line that the link is kept
  await expectChinese(items);
  await expect(items.nth(0)).toContainText('不是数字');
  await expect(items.nth(1)).toContainText('未知参数');
  await expect(items.nth(2)).toContainText('重复给出');
});

test('warnings are worded in Chinese with their values, each keeping its code', async ({ app, page }) => {
  await app.open();
  await app.model('llama-3.1-8b');
  await app.set('gpu', 'v100-32gb');
  await app.set('parallel.world_size', 2);
  await app.set('parallel.zero_stage', 3);
  await app.set('batch.gradient_accumulation_steps', 4);
  await app.set('attention', 'flash');  // FlashAttention-2 asked for on a V100 (the HF default, sdpa, needs none)
  const expected = cli(await app.inputDoc());
  const codes = expected.warnings.map((w) => w.code);
  for (const code of ['bf16_unsupported', 'flash_attention_unsupported', 'zero_does_not_shard_activations', 'global_batch_does_not_set_memory'])
    expect(codes).toContain(code);
  const items = page.locator('#warnings li');
  await expect(items).toHaveCount(expected.warnings.length);
  for (const [i, w] of expected.warnings.entries()) await expect(items.nth(i)).toHaveAttribute('data-code', w.code);
  await expect(page.locator('#warnings li[data-code="bf16_unsupported"]')).toContainText('NVIDIA V100 SXM2 32GB 不支持 bf16 运算');
  // The global batch: micro-batch x accumulation x data-parallel ranks, as the engine reports it.
  await expect(page.locator('#warnings li[data-code="global_batch_does_not_set_memory"]'))
    .toContainText('（' + expected.global_batch_size.toLocaleString('en-US') + '）');
  await expectChinese(items.locator('.message'));
});

test('fields given without effect are named by their paths in Chinese, without the engine\'s English reasons', async ({ app, page }) => {
  // HQQ's nbits under a bitsandbytes base and bitsandbytes' quant_type under HQQ: ignored_fields.
  for (const qlora of [{ nbits: 2 }, { quant_method: 'hqq', quant_type: 'nf4' }]) {
    const doc = { model: { preset: 'llama-3.1-8b' }, method: 'qlora', qlora, parallel: { world_size: 1 }, gpu: 'a100-80gb' };
    const expected = cli(doc);
    const ignored = expected.warnings.find((w) => w.code === 'ignored_fields');
    expect(ignored.params.paths).toBe(Object.keys(qlora).includes('nbits') ? 'qlora.nbits' : 'qlora.quant_type');
    await app.open('http', Url.encode(doc));
    const item = page.locator('#warnings li[data-code="ignored_fields"]');
    await expect(item).toContainText('以下字段已给出，但对此设置不起作用：' + ignored.params.paths);
    await expectChinese(item.locator('.message'));
  }
});

test("an error of a check with a reason is worded per check in Chinese; in English, the engine's own message", async ({ app, page }) => {
  // Freezing layers of a bare parameter count: missing_field, worded from its params.reason (web/src/message-reasons.js).
  const doc = { model: { num_parameters: 7000000000 }, method: 'freeze' };
  const expected = cli(doc);
  expect(expected.errors.map((e) => [e.code, e.params.reason])).toEqual([['missing_field', 'method_needs_architecture']]);
  await app.open('http', Url.encode(doc));
  const error = page.locator('#errors li');
  await expect(error).toHaveCount(1);
  await expect(error).toHaveAttribute('data-code', 'missing_field');
  await expect(error).toContainText('method 为“freeze”时需要模型结构（它按层计数）：请选择 model.preset 或提供 model.hf_config，不能只给 num_parameters');
  await expectChinese(error.locator('.message'));
  await page.getByTestId('lang').selectOption('en');
  await app.settled();
  await expect(error).toContainText(expected.error.message);
});

test("the import's errors read in Chinese: parser errors, a model the catalog lacks, a check of the import", async ({ app, page }) => {
  await app.open();
  await page.locator('#import > summary').click();
  const errors = page.locator('#import-errors li');
  /** Pastes a text, imports it, and expects every error in Chinese. */
  async function importText(text, code, words) {
    await page.getByTestId('import-text').fill(text);
    await page.getByTestId('import-run').click();
    await expect(page.locator(`#import-errors li[data-code="${code}"]`)).toContainText(words);
    await expectChinese(errors);
  }
  // YAML (npm yaml) and TOML (smol-toml), parsed on the page: the position, in Chinese.
  await importText('per_device_train_batch_size: 2\nlora_target_modules: [q_proj, v_proj\n', 'invalid_yaml', 'pasted.yaml 第 3 行第 1 列：不是有效的 YAML');
  await importText('a: 1\na: 2\n', 'duplicate_key', 'pasted.yaml 第 2 行第 1 列：键“a”在同一映射中出现了不止一次');
  await importText('[training]\nlocal_batch_size = = 8\n', 'invalid_toml', '不是有效的 TOML');
  // The engine's import: an axolotl QLoRA config without 4-bit loading (axolotl quantizes only then).
  await importText('base_model: meta-llama/Llama-3.1-8B\nadapter: qlora\nmicro_batch_size: 2\n', 'inconsistent', 'qlora 需要 load_in_4bit: true');
  // A command line naming a model the catalog lacks (tests/fixtures/configs/trl/trl_dpo_lora.sh).
  const trl = fs.readFileSync(path.join(ROOT, 'tests', 'fixtures', 'configs', 'trl', 'trl_dpo_lora.sh'), 'utf8');
  await importText(trl, 'model_config_needed', '“Qwen/Qwen2-0.5B-Instruct”不在模型目录中');
});

test("the import's notes read in Chinese: a worded reason, or the key alone with the engine's reason as its tooltip", async ({ app, page }) => {
  await app.open();
  await page.locator('#import > summary').click();
  // An axolotl QLoRA config under FSDP: keys ignored, not modelled and unresolved, each with the engine's reason.
  const yaml = fs.readFileSync(path.join(ROOT, 'tests', 'fixtures', 'configs', 'axolotl', 'qwen3_qlora_fsdp.yaml'), 'utf8');
  await page.getByTestId('import-text').fill(yaml);
  await page.getByTestId('import-run').click();
  await expect(page.getByTestId('import-result')).toBeVisible();
  const notes = page.locator('#import-unmodelled li, #import-unresolved li, #import-ignored li');
  expect(await notes.count()).toBeGreaterThan(0);
  for (const text of await notes.allTextContents()) expect(text).not.toMatch(ENGLISH_SENTENCE);
  // Each note either words its reason in Chinese or keeps the engine's in its tooltip; most are worded.
  let worded = 0;
  for (const note of await notes.all()) {
    if (/[\u4e00-\u9fff]/.test(await note.textContent())) worded++;
    else expect(await note.getAttribute('title')).toBeTruthy();
  }
  expect(worded).toBeGreaterThan((await notes.count()) / 2);
  // In English, the engine's reasons as written.
  await page.getByTestId('lang').selectOption('en');
  await app.settled();
  await expect(notes.first()).toContainText(': ');
});

test('the What fits? panel gives its reasons and strategy explanations in Chinese', async ({ app, page }) => {
  await app.open();
  // Llama-3.1-405B's bf16 weights alone (810 GB) exceed one 24 GiB RTX 4090: every question of the
  // solve has a reason, and no strategy on one GPU fits.
  await app.model('llama-3.1-405b');
  await app.set('gpu', 'rtx-4090-24gb');
  await app.set('parallel.world_size', 1);
  await app.set('parallel.zero_stage', 0);
  await app.solved();
  const reasons = page.getByTestId('solve-reason');
  await expect(reasons.first()).toHaveAttribute('data-code', 'micro_batch_one_does_not_fit');
  await expectChinese(reasons);
  await expect(page.getByTestId('solve-reasons')).toContainText('1 张 GPU 上没有放得下的策略');
  // Llama-3.2-1B on eight H100s: ranked strategies, each explained in Chinese.
  await app.model('llama-3.2-1b');
  await app.set('gpu', 'h100-sxm-80gb');
  await app.set('parallel.world_size', 8);
  await app.solved();
  await expect(page.getByTestId('strategy-explanation').first()).toBeVisible();
  await expectChinese(page.getByTestId('strategy-explanation'));
});

test('a pasted config that is not JSON is named in Chinese with its line and column', async ({ app, page }) => {
  await app.open();
  await page.locator('#custom-model > summary').click();
  await page.getByTestId('config-text').fill('{not json');
  await page.getByTestId('config-use').click();
  // "{" is character 1; "n" (character 2: line 1, column 2) is where a property name's quote belongs.
  await expect(page.getByTestId('config-note')).toHaveText('不是有效的 JSON：第 1 行第 2 列（第 2 个字符）处有语法错误');
  await page.getByTestId('config-text').fill('{\n  "a": 1,\n}');
  await page.getByTestId('config-use').click();
  // Line 3 holds only "}", where another key belongs after the comma: line 3, column 1, the 13th character
  // ("{", "\n", 2 spaces, '"a": 1,' (7), "\n" = 12 before it).
  await expect(page.getByTestId('config-note')).toHaveText('不是有效的 JSON：第 3 行第 1 列（第 13 个字符）处有语法错误');
  // A config the engine refuses names the key its Chinese wording leaves out.
  await page.getByTestId('config-text').fill(JSON.stringify({ model_type: 'llama', hidden_size: -5, intermediate_size: 128,
    num_attention_heads: 4, num_hidden_layers: 2, vocab_size: 1000 }));
  await page.getByTestId('config-use').click();
  await expect(page.getByTestId('config-note')).toContainText('model.hf_config.hidden_size');
  await expect(page.getByTestId('config-note')).toContainText('超出范围');
});

test('the defaults\' tooltips name their origin in Chinese; the source in parentheses stays as written', async ({ app, page }) => {
  await app.open();
  const titles = await page.locator('[data-path], [data-path] option').evaluateAll((els) => els.map((e) => e.title).filter(Boolean));
  expect(titles.length).toBeGreaterThan(10);
  for (const title of titles) expect(title).not.toMatch(/^(engine default|framework default|catalog|read from)/);
  expect(titles.some((title) => title.startsWith('引擎默认值'))).toBe(true);
  expect(titles.some((title) => title.startsWith('框架默认值 ('))).toBe(true);
  await page.getByTestId('lang').selectOption('en');
  await app.settled();
  const english = await page.locator('[data-path], [data-path] option').evaluateAll((els) => els.map((e) => e.title).filter(Boolean));
  expect(english.some((title) => title.startsWith('engine default'))).toBe(true);
});

test('the trainer-config formats are named in Chinese', async ({ app, page }) => {
  await app.open();
  const options = page.getByTestId('export-format').locator('option');
  await expect(options).toHaveText(['DeepSpeed JSON', 'accelerate 配置（YAML）', 'axolotl 配置（YAML）', 'torchtune（tune run 命令行）']);
});

test("an exported file's left-out fields are named with their reasons in Chinese", async ({ app, page }) => {
  // torchtitan's ZeRO-1 with selective checkpointing, compiled, exported for each format: every
  // field the file cannot carry is listed with a Chinese reason (web/src/export-reasons.js); the
  // English page lists the engine's reasons as written.
  await app.open('http', '#v3:m=llama-3.1-8b&fw=torchtitan&b=2&s=4096&n=8&z=1&g=h100-sxm-80gb');
  const items = page.getByTestId('export-not-exported').locator('li');
  const text = page.getByTestId('export-config-text');
  let previous = '';
  for (const format of ['deepspeed', 'accelerate', 'axolotl', 'torchtune']) {
    await page.getByTestId('export-format').selectOption(format);
    await page.getByTestId('export-config').click();
    await expect(text).not.toHaveText(previous);  // this format's file, not the one before
    previous = await text.textContent();
    await expectChinese(items);
  }
  await page.getByTestId('lang').selectOption('en');
  await app.settled();
  await page.getByTestId('export-config').click();
  await expect(items.first()).toContainText(': ');
  await expect(items.first()).not.toContainText('：');
});
