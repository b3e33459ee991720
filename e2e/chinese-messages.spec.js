// The page in Simplified Chinese words the engine's errors and warnings in Chinese (web/src/messages.js,
// from each code's params), on the form, next to the control, in a link's problems and in the
// warnings list: no English sentence is left, and each message keeps its code in data-code.
const { test, expect, cli } = require('./fixtures');
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
});

test('warnings are worded in Chinese with their values, each keeping its code', async ({ app, page }) => {
  await app.open();
  await app.model('llama-3.1-8b');
  await app.set('gpu', 'v100-32gb');
  await app.set('parallel.world_size', 2);
  await app.set('parallel.zero_stage', 3);
  await app.set('batch.gradient_accumulation_steps', 4);
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
