// Links: a shared URL restores every input and the result, old links keep working, a tampered
// parameter is named and the rest kept, back/forward steps through edits, HF references find presets.
const { crc32 } = require('zlib');
const LZString = require('lz-string');
const { test, expect, cli, interceptEngine, WHERE } = require('./fixtures');
const golden = require('../tests-js/fixtures/golden-links.json');
const Url = require('../web/src/link-codec.js');

// A v4 link from its body, the check value worked out with Node's CRC-32 (not the codec's).
const v4 = (body) => '#' + body + '&c=' + (crc32(body) >>> 0).toString(16).padStart(8, '0');

test('a copied link reproduces every input and the result in a fresh browser', async ({ app, page, browser }) => {
  await app.open();
  await app.model('qwen2.5-7b');
  await app.set('method', 'lora');
  await app.set('lora.r', 32);
  await app.set('lora.target_modules', 'all-linear');
  await app.set('precision.optimizer', 'adamw_8bit');
  await app.set('precision.param_dtype', 'bf16');
  await app.set('batch.micro_batch_size', 2);
  await app.set('batch.seq_length', 3072);
  await app.set('batch.gradient_accumulation_steps', 16);
  await app.set('activation_checkpointing', 'selective');
  await app.set('selective_policy', 'op_level');
  await app.set('attention', 'sdpa');
  await app.set('gpu', 'l40s-48gb');
  await app.set('parallel.world_size', 4);
  await app.set('parallel.zero_stage', 1);
  await app.set('parallel.tensor_parallel_size', 2);
  await app.set('parallel.offload_optimizer', 'cpu');
  await page.locator('#advanced > summary').click();
  await app.set('precision.grad_dtype', 'fp32');
  await app.set('overhead.fragmentation_fraction', 0.2);
  await page.locator('#checkpoint-settings > summary').click();
  await app.set('checkpoint.keep_last', 3);
  await app.set('checkpoint.free_disk_bytes', 500);  // GiB
  const doc = await app.inputDoc();
  expect(doc.checkpoint.free_disk_bytes).toBe(500 * 2 ** 30);
  const values = await page.locator('[data-path]').evaluateAll((els) => els.map((e) => [e.dataset.path, e.value]));
  const link = page.url();
  const peak = await page.getByTestId('peak').textContent();

  const fresh = await browser.newContext();  // no shared local storage
  const other = await fresh.newPage();
  await other.goto(link);
  await expect(other.getByTestId('input-json')).not.toBeEmpty();
  expect(JSON.parse(await other.getByTestId('input-json').textContent())).toEqual(doc);
  expect(await other.locator('[data-path]').evaluateAll((els) => els.map((e) => [e.dataset.path, e.value]))).toEqual(values);
  await expect(other.getByTestId('peak')).toHaveText(peak);
  expect(await other.getByTestId('b-peak').getAttribute('data-bytes')).toBe(String(cli(doc).per_gpu.peak));
  await fresh.close();
});

test('a preset configuration link is readable and under 200 characters', async ({ app, page }) => {
  await app.open();
  await app.model('llama-3.1-70b');
  await app.set('method', 'qlora');
  await app.set('gpu', 'a100-80gb');
  const hash = new URL(page.url()).hash;
  expect(hash).toBe(v4('v4:m=llama-3.1-70b&me=qlora&b=1&s=4096&n=8&z=3&g=a100-80gb'));
  expect(page.url().length).toBeLessThan(200);
});

for (const g of golden) {
  test(`golden link (v${g.version}) opens as its document: ${g.link.slice(0, 60)}`, async ({ app, page }) => {
    await app.open('http', g.link);
    const { solve, ...estimateDoc } = g.document;
    expect(await app.inputDoc()).toEqual(estimateDoc);
    await expect(page.getByTestId('link-problems')).toBeEmpty();
    await expect(page.locator('#result-body')).toBeVisible();
    if (!estimateDoc.gpu) return;  // the panel answers runs on a GPU
    const solveDoc = await app.solveDoc();
    expect(solveDoc.solve).toEqual({ ...solve, max_gpus: 4096, strategies: { ...(solve && solve.strategies), limit: 10 } });
    expect(new URL(page.url()).hash).toBe(Url.encode(g.document));
  });
}

test('the first-release link opens from file:// too, and is rewritten to the current version', async ({ app, page }) => {
  await app.open('offline', golden[0].link);
  expect(await app.inputDoc()).toEqual(golden[0].document);
  expect(new URL(page.url()).hash).toBe(v4('v4:m=llama-2-7b&me=full&o=adamw&b=2&s=2048&n=4&z=2&g=a100-80gb'));
});

// An old link (v1-v3) has no check value: cut short at a parameter's end, it loads as if whole, so
// the page says that old links carry no check, until the user changes an input.
for (const [lang, words] of [['en', 'old links carry no check value'], ['zh', '旧链接没有校验值']]) {
  test(`an old link loads with a note that it carries no check value and may be incomplete (${lang})`, async ({ app, page }) => {
    if (lang === 'zh') {
      await app.open();
      await page.getByTestId('lang').selectOption('zh');
    }
    await page.goto('about:blank');
    await app.open('http', '#v2:m=mixtral-8x7b&fw=megatron&me=full');
    const note = page.getByTestId('link-legacy');
    await expect(note).toBeVisible();
    await expect(note).toContainText(words);
    await expect(note).toContainText(lang === 'en' ? '(version 2)' : '（版本 2）');
    expect(new URL(page.url()).hash).toBe(v4('v4:m=mixtral-8x7b&fw=megatron&me=full'));  // rewritten in the current version
    await app.set('batch.seq_length', 1024);
    await expect(note).toBeHidden();
    // A v4 link has its check value: no such note.
    await page.goto('about:blank');
    await app.open('http', v4('v4:m=gpt2&s=512'));
    await expect(note).toBeHidden();
  });
}

test('a tampered link names each bad parameter: an invalid value stays in its field, with no estimate', async ({ app, page }) => {
  const link = '#v2:m=gpt2&n=eight&g=h100-sxm-99gb&s=512&zz=1&me=sideways';
  await app.open('http', link);
  const problems = page.getByTestId('link-problems');
  await expect(problems).toContainText('The link\'s value "n" (parallel.world_size) = "eight" is invalid: not a number');
  await expect(problems).toContainText('"zz" = "1" was ignored: unknown parameter');
  await expect(problems).toContainText('"g" (gpu) = "h100-sxm-99gb" is invalid: "h100-sxm-99gb" is not in the GPU catalog');
  await expect(problems).toContainText('"me" (method) = "sideways" is invalid');
  // Invalid values are errors that keep the link, not silent fallbacks: no estimate of another setup.
  expect(await app.inputDoc()).toEqual({ model: { preset: 'gpt2' }, method: 'sideways', batch: { seq_length: 512 },
    parallel: { world_size: 'eight' }, gpu: 'h100-sxm-99gb' });
  await expect(page.locator('#result-body')).toBeHidden();
  await expect(app.field('parallel.world_size')).toHaveValue('eight');
  await expect(app.field('batch.seq_length')).toHaveValue('512');
  await expect(app.field('gpu')).toHaveValue('h100-sxm-99gb');
  await expect(app.field('method')).toHaveValue('sideways');
  await expect(app.field('method').locator('option', { hasText: 'sideways' })).toHaveCount(1);
  // The link stays as it came until the user changes an input.
  await expect(page.getByTestId('link-kept')).toBeVisible();
  expect(new URL(page.url()).hash).toBe(link);
  await app.set('parallel.world_size', 2);
  await app.set('method', 'full');
  await expect(app.field('method').locator('option', { hasText: 'sideways' })).toHaveCount(0);
  await app.set('gpu', 'a100-80gb');
  await expect(app.field('gpu').locator('option', { hasText: 'h100-sxm-99gb' })).toHaveCount(0);
  await app.set('batch.seq_length', 1024);
  expect(new URL(page.url()).hash).toBe(v4('v4:m=gpt2&me=full&s=1024&n=2&g=a100-80gb'));
  await expect(page.locator('#result-body')).toBeVisible();
  // The problems spoke of the link that came; the address bar now holds this setup's link.
  await expect(page.getByTestId('link-problems')).toBeEmpty();
});

// A value typed that is not valid travels in the link as typed; whoever opens the link sees it in its
// field with the engine's error and a note naming it, never an estimate of some other setup.
for (const [typed, message] of [
  ['abc', 'not a number'],
  ['-5', 'is invalid: -5 is out of range'],
  ['2.5', 'batch.micro_batch_size'],
]) {
  test(`a link carrying micro-batch "${typed}" opens with that value named as invalid, no estimate, the link kept`, async ({ app, page }) => {
    await app.open();
    await app.set('batch.micro_batch_size', typed);
    await expect(page.locator('#result-body')).toBeHidden();
    const link = v4('v4:m=llama-3.1-8b&me=full&b=' + typed + '&s=4096&n=8&z=3&g=h100-sxm-80gb');
    expect(new URL(page.url()).hash).toBe(link);
    await page.goto('about:blank');
    await app.open('http', link);
    await expect(app.field('batch.micro_batch_size')).toHaveValue(typed);
    const problems = page.getByTestId('link-problems');
    await expect(problems).toContainText(`The link's value "b" (batch.micro_batch_size) = "${typed}" is invalid: `);
    await expect(problems).toContainText(message);
    await expect(page.locator('#result-body')).toBeHidden();
    await expect(page.getByTestId('status')).toHaveText('No estimate: the engine rejected the input (fields marked below).');
    expect(new URL(page.url()).hash).toBe(link);
  });
}

// A link cut short (a chat app broke it) or changed after it was made loads nothing: the page says
// so, shows the default setup as the default, and leaves the link in the address bar.
for (const [what, damage, message] of [
  ['cut short', (link) => link.slice(0, link.length - 14), 'its check value (the last parameter, c=) is missing'],
  ['cut inside its check value', (link) => link.slice(0, link.length - 3), 'its check value (the last parameter, c=) is missing'],
  ['changed after it was made', (link) => link.replace('s=777', 's=778'), 'does not match its check value'],
]) {
  test(`a v4 link ${what} loads nothing and is kept in the address bar`, async ({ app, page }) => {
    const link = v4('v4:m=gpt2&me=lora&s=777&n=2&g=a100-80gb');
    expect(Url.encode({ model: { preset: 'gpt2' }, method: 'lora', batch: { seq_length: 777 }, parallel: { world_size: 2 }, gpu: 'a100-80gb' })).toBe(link);
    const damaged = damage(link);
    await app.open('http', damaged);
    const problems = page.getByTestId('link-problems');
    await expect(problems).toContainText('This link was not loaded: ');
    await expect(problems).toContainText(message);
    await expect(problems).toContainText('The page shows the default setup, not the link\'s.');
    await expect(page.getByTestId('link-kept')).toBeVisible();
    const shown = await app.inputDoc();  // the default setup (web/src/app.js DEFAULT_HASH), not the link's
    expect(shown.model).toEqual({ preset: 'llama-3.1-8b' });
    expect(shown.batch.seq_length).toBe(4096);
    expect(new URL(page.url()).hash).toBe(damaged);
  });
}

test('a link whose config.json value cannot be read names it as invalid, estimates no other model and stores nothing', async ({ app, page }) => {
  // 16 "A"s are 12 zero bytes in base64url: no deflate stream, so no config.json; the check value is right.
  const link = '#v4:mc=AAAAAAAAAAAAAAAA&b=1&s=1024&n=1&g=h100-sxm-80gb&c=2dd41054';
  expect(link).toBe(v4('v4:mc=AAAAAAAAAAAAAAAA&b=1&s=1024&n=1&g=h100-sxm-80gb'));
  await app.open('http', link);
  const problems = page.getByTestId('link-problems');
  await expect(problems).toContainText('The link\'s value "mc" (model.hf_config) = "AAAAAAAAAAAAAAAA" is invalid: not a compressed JSON object');
  await expect(problems).not.toContainText('was ignored');
  // The value stays in the document as the link gave it: the engine rejects it, no estimate of the default model.
  expect((await app.inputDoc()).model).toEqual({ hf_config: 'AAAAAAAAAAAAAAAA' });
  await expect(page.locator('#result-body')).toBeHidden();
  expect(new URL(page.url()).hash).toBe(link);
  expect(await page.evaluate(() => [localStorage.getItem('trainmem.state'), localStorage.getItem('trainmem.customs')])).toEqual([null, null]);
  await page.getByTestId('lang').selectOption('zh');
  await expect(problems).toContainText('不是压缩的 JSON 对象');
});

test('a link that names no model loads without one: the engine asks for a model, no default model answers', async ({ app, page }) => {
  // What the page writes once "parameter count only" is chosen and its count cleared.
  const link = v4('v4:me=full&b=1&s=4096&n=8&z=3&g=h100-sxm-80gb');
  await app.open('http', link);
  expect((await app.inputDoc()).model).toBeUndefined();
  await expect(page.locator('#result-body')).toBeHidden();
  await expect(page.getByTestId('status')).toHaveText(/No estimate/);
  await expect(page.locator('body')).toContainText('model is required');
  expect(new URL(page.url()).hash).toBe(link);
});

test('a price in the link that is not a number is named and kept in its field; the other prices stay', async ({ app, page }) => {
  const link = v4('v4:m=gpt2&b=1&s=1024&n=1&g=a100-80gb&xp=a100-40gb:2.5,a100-80gb:3%2C5');
  await app.open('http', link);
  await expect(page.getByTestId('link-problems')).toContainText('The link\'s value "xp" (solve.prices.a100-80gb) = "3,5" is invalid');
  // A What fits? value: the estimate does not use it and is shown; the note says so.
  await expect(page.getByTestId('link-problems')).toContainText('the estimate does not use it');
  await expect(page.getByTestId('status')).toHaveText(/up to date/);
  await expect(page.locator('tr[data-gpu="a100-40gb"] [data-testid="price"]')).toHaveValue('2.5');
  await expect(page.locator('tr[data-gpu="a100-80gb"] [data-testid="price"]')).toHaveValue('3,5');
  expect(new URL(page.url()).hash).toBe(link);
});

test('a link of an unknown version is named as such and kept', async ({ app, page }) => {
  await app.open('http', '#v9:m=gpt2&s=777');
  await expect(page.getByTestId('link-problems')).toContainText('link version 9 comes from a newer trainmem page; this page reads versions 1 to 4');
  expect(new URL(page.url()).hash).toBe('#v9:m=gpt2&s=777');
});

test('a v3 link with an oversized compressed config is refused before decompressing and kept as invalid', async ({ app, page }) => {
  // lz-string cannot stop early and its output grows with the square of its input: a 90 KB
  // crafted value froze the page for 40 s. 8000 pseudo-random letters (a linear congruential
  // generator, so the test is the same each run) compress to 7755 characters, over the 4096 limit;
  // compressing them takes milliseconds, so the test's time is the page's, not its own set-up's.
  let x = 1;
  let letters = '';
  for (let i = 0; i < 8000; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    letters += String.fromCharCode(97 + ((x >> 16) % 26));
  }
  const value = LZString.compressToEncodedURIComponent(letters);
  expect(value.length).toBeGreaterThan(4096);
  await app.open('http', '#v3:m=gpt2&s=512&mc=' + value);
  await expect(page.getByTestId('link-problems')).toContainText('"mc" (model.hf_config) = "' + value.slice(0, 40) + '…" is invalid: longer than 4096 characters (the limit for a v3 link)');
  // Kept as the link gave it, as every invalid value is: no estimate of a model the link does not name.
  expect(await app.inputDoc()).toEqual({ model: { preset: 'gpt2', hf_config: value }, batch: { seq_length: 512 } });
  await expect(page.locator('#result-body')).toBeHidden();
});

test('back and forward step through committed edits, one entry per edit', async ({ app, page }) => {
  await app.open();
  const start = await page.evaluate(() => history.length);
  await app.field('batch.seq_length').fill('');
  await app.field('batch.seq_length').pressSequentially('2048');  // four input events, one edit
  await app.field('batch.seq_length').blur();
  await app.set('method', 'lora');
  expect(await page.evaluate(() => history.length)).toBe(start + 2);
  await page.goBack();
  await expect(app.field('method')).toHaveValue('full');
  await expect(app.field('batch.seq_length')).toHaveValue('2048');
  await page.goBack();
  await expect(app.field('batch.seq_length')).toHaveValue('4096');
  expect(await app.bytes('b-peak')).toBe(cli(await app.inputDoc()).per_gpu.peak);
  await page.goForward();
  await page.goForward();
  await expect(app.field('method')).toHaveValue('lora');
  const doc = await app.inputDoc();
  expect(doc.batch.seq_length).toBe(2048);
  expect(await app.bytes('b-peak')).toBe(cli(doc).per_gpu.peak);
});

test('Hugging Face references in the search box select the preset by hf_id', async ({ app, page }) => {
  await app.open();
  for (const ref of ['Qwen/Qwen2.5-7B', 'https://huggingface.co/Qwen/Qwen2.5-7B', 'https://huggingface.co/Qwen/Qwen2.5-7B/tree/main',
    'https://huggingface.co/Qwen/Qwen2.5-7B/blob/main/config.json']) {
    await page.getByTestId('model-search').fill('');
    await app.model('gpt2');
    await page.getByTestId('model-search').fill(ref);
    await expect(page.getByTestId('model')).toHaveValue('p:qwen2.5-7b');
    await expect(page.getByTestId('model-note')).toHaveText('Qwen/Qwen2.5-7B is the preset Qwen2.5 7B.');
    expect((await app.inputDoc()).model).toEqual({ preset: 'qwen2.5-7b' });
  }
  await page.getByTestId('model-search').fill('https://huggingface.co/someone/unknown-model/blob/main/config.json');
  await expect(page.getByTestId('model-note')).toContainText('someone/unknown-model is not in the catalog');
  await expect(page.locator('#custom-model')).toHaveAttribute('open', '');
  await page.getByTestId('model-search').fill('mixtral');
  // The matches first (Enter picks the first); the selected model stays listed after them, in a group of its own.
  await expect(page.getByTestId('model').locator('optgroup option')).toHaveText([/Mixtral 8x22B/, /Mixtral 8x7B/, /Qwen2.5 7B/]);
  await expect(page.getByTestId('model').locator('optgroup').last()).toHaveAttribute('label', 'Current');
  await expect(page.getByTestId('model-note')).toHaveText('2 presets match.');
  await page.getByTestId('model-search').fill('8x22');
  await expect(page.getByTestId('model-note')).toHaveText('1 preset matches.');
  await page.getByTestId('model-search').fill('');
  // A fine-tune of a preset is not guessed: the selected model stays, the base is only named.
  await app.model('gpt2');
  await page.getByTestId('model-search').fill('meta-llama/Llama-3.1-8B-Instruct');
  await expect(page.getByTestId('model-note')).toContainText('meta-llama/Llama-3.1-8B-Instruct is not in the catalog');
  await expect(page.getByTestId('model-note')).toContainText('(meta-llama/Llama-3.1-8B)');
  expect((await app.inputDoc()).model).toEqual({ preset: 'gpt2' });
});

test('Enter in an empty (or blank) preset search changes nothing', async ({ app, page }) => {
  await app.open();
  const hash = new URL(page.url()).hash;
  for (const text of ['', '  ']) {
    await page.getByTestId('model-search').fill(text);
    await page.getByTestId('model-search').press('Enter');
    await app.settled();
    await expect(page.getByTestId('model')).toHaveValue('p:llama-3.1-8b');  // the default setup's model (app.js DEFAULT_HASH)
    expect((await app.inputDoc()).model).toEqual({ preset: 'llama-3.1-8b' });
    expect(new URL(page.url()).hash).toBe(hash);
  }
  // A search with words still picks its first match.
  await page.getByTestId('model-search').fill('mixtral 8x7b');
  await page.getByTestId('model-search').press('Enter');
  await expect(page.getByTestId('model')).toHaveValue('p:mixtral-8x7b');
});

test('local storage keeps the last state and custom models', async ({ app, page }) => {
  await app.open();
  await page.locator('#custom-model > summary').click();
  await page.getByTestId('config-text').fill('{"_name_or_path": "tiny", "model_type": "llama", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 1000}');
  await page.getByTestId('config-use').click();
  await app.model('gpt2');
  await app.set('batch.seq_length', 777);
  await page.goto('/index.html');
  await expect(page.getByTestId('input-json')).not.toBeEmpty();
  await expect(app.field('batch.seq_length')).toHaveValue('777');
  await expect(page.getByTestId('model').locator('optgroup[label="Custom models"] option')).toHaveText(['tiny']);
});

// A link the page cannot load (or loads only in part) is not the user's setup: the setup saved in
// local storage stays until an input changes. Leaving the page flushes the page's delayed save
// (pagehide), so a reload after about:blank shows what storage holds.
for (const [what, hash] of [
  ['a v4 link changed after it was made', v4('v4:m=gpt2&s=777').replace('s=777', 's=778')],
  ['a v4 link cut short', v4('v4:m=gpt2&s=777').slice(0, -14)],
  ['a link of a newer version', '#v5:m=gpt2&s=777'],
  ['a link with a bad parameter', v4('v4:m=gpt2&s=777&zz=1')],
  ['a link whose config.json cannot be read', v4('v4:mc=AAAAAAAAAAAAAAAA&s=777')],
]) {
  test(`${what} leaves the saved setup in local storage until an input changes`, async ({ app, page }) => {
    await app.open();
    await app.set('batch.seq_length', 1234);
    await page.goto('about:blank');
    await app.open('http', hash);
    await expect(page.getByTestId('link-kept')).toBeVisible();
    await page.goto('about:blank');
    await app.open();
    await expect(app.field('batch.seq_length')).toHaveValue('1234');
    // An edit on the link's page is the user's setup: stored.
    await page.goto('about:blank');
    await app.open('http', hash);
    await app.set('batch.seq_length', 555);  // gpt2 takes at most 1024 positions
    await page.goto('about:blank');
    await app.open();
    await expect(app.field('batch.seq_length')).toHaveValue('555');
  });
}

test('an in-page anchor (#accuracy) is no link: the saved setup loads, the section opens, nothing is refused', async ({ app, page }) => {
  await app.open();
  await app.set('batch.seq_length', 1234);
  await page.goto('about:blank');
  await app.open('http', '#accuracy');
  await expect(app.field('batch.seq_length')).toHaveValue('1234');
  await expect(page.getByTestId('link-problems')).toBeEmpty();
  await expect(page.getByTestId('accuracy')).toHaveAttribute('open', '');
  expect(new URL(page.url()).hash).toBe('#accuracy');
  await page.goto('about:blank');
  await app.open();
  await expect(app.field('batch.seq_length')).toHaveValue('1234');
});

test('a pasted config over the document limit is refused before it is parsed or put into the link', async ({ app, page }) => {
  await app.open();
  const before = page.url();
  await page.locator('#custom-model > summary').click();
  // 1 MiB (the engine's document limit, engine/include/trainmem/json_api.hpp) and a few bytes more.
  const text = '{"model_type": "llama", "pad": "' + 'x'.repeat(1 << 20) + '"}';
  await page.getByTestId('config-text').fill(text);
  await page.getByTestId('config-use').click();
  await expect(page.getByTestId('config-note')).toHaveText(
    `This text is ${(1 << 20) + 34} bytes; a config.json over 1048576 bytes is refused (a real one is a few KB).`);
  expect(page.url()).toBe(before);
  await expect(page.getByTestId('model').locator('optgroup[label="Custom models"] option')).toHaveCount(0);
});

// A pasted config the engine refuses is named in the note and not added to the custom models. JSON.parse
// would keep the last of two hidden_size keys silently: the page hands the raw text to the engine.
const TINY = '"model_type": "llama", "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 1000';
for (const [what, text, note] of [
  ['a repeated key, which the engine names', '{' + TINY + ', "hidden_size": 64, "hidden_size": 4096}',
    'Not used: model.hf_config.hidden_size appears more than once in its object'],
  ['a value out of range', '{' + TINY + ', "hidden_size": -64}',
    'Not used: model.hf_config.hidden_size = -64 is out of range (1 to 100000000)'],
]) {
  test(`a pasted config with ${what} is refused, not added to the custom models`, async ({ app, page }) => {
    await app.open();
    await page.locator('#custom-model > summary').click();
    await page.getByTestId('config-text').fill(text);
    await page.getByTestId('config-use').click();
    await expect(page.getByTestId('config-note')).toHaveText(note);
    await expect(page.getByTestId('model').locator('optgroup[label="Custom models"] option')).toHaveCount(0);
    expect((await app.inputDoc()).model).toEqual({ preset: 'llama-3.1-8b' });
  });
}

// The page's first estimate answers while the test holds it: what happens in between is the user's.
async function holdFirstEstimate(page) {
  await interceptEngine(page, () => {
    window.__held = [];
    window.__engineHook = (call, reply, deliver) => {
      if (call.fn === 'overview' && !window.__released) window.__held.push(() => deliver(reply));
      else deliver(reply);
    };
  });
}

async function releaseEstimates(page) {
  await page.evaluate(() => {
    window.__released = true;
    for (const deliver of window.__held.splice(0)) deliver();
  });
}

test('an input changed while the first estimate computes is the setup shown and linked', async ({ app, page }) => {
  await holdFirstEstimate(page);
  await page.goto(WHERE.http + v4('v4:m=llama-3.1-8b&me=full&b=1&s=2048&n=8&z=3&g=h100-sxm-80gb'));
  await page.waitForFunction(() => window.__held.length === 1);
  await app.field('batch.seq_length').fill('4096');
  await releaseEstimates(page);
  await expect(page.getByTestId('input-json')).toContainText('"seq_length": 4096');
  const doc = await app.inputDoc();
  expect(doc.batch.seq_length).toBe(4096);
  expect(await app.bytes('b-peak')).toBe(cli(doc).per_gpu.peak);
  expect(page.url()).toContain('s=4096');
  await expect(page.locator('#link-problems li')).toHaveCount(0);
});

test('a link opened while the first estimate computes replaces the first one', async ({ app, page }) => {
  await holdFirstEstimate(page);
  await page.goto(WHERE.http + v4('v4:m=llama-3.1-8b&me=full&b=1&s=2048&n=8&z=3&g=h100-sxm-80gb'));
  await page.waitForFunction(() => window.__held.length === 1);
  const second = v4('v4:m=llama-3.1-70b&me=lora&b=1&s=1000&n=8&z=3&g=a100-80gb');
  await page.evaluate((hash) => { location.hash = hash; }, second);
  await releaseEstimates(page);
  await expect(page.getByTestId('input-json')).toContainText('"seq_length": 1000');
  const doc = await app.inputDoc();
  expect(doc).toEqual({ model: { preset: 'llama-3.1-70b' }, method: 'lora', batch: { micro_batch_size: 1, seq_length: 1000 },
    parallel: { world_size: 8, zero_stage: 3 }, gpu: 'a100-80gb' });
  expect(await app.bytes('b-peak')).toBe(cli(doc).per_gpu.peak);
  expect(new URL(page.url()).hash).toBe(second);
});

test('a value that cannot be percent-decoded stays in its field as the link gave it, and nothing is estimated', async ({ app, page }) => {
  const link = v4('v4:m=llama-3.1-8b&me=full&b=%ZZ%&s=4096&n=8&z=3&g=h100-sxm-80gb');
  await app.open('http', link);
  await expect(app.field('batch.micro_batch_size')).toHaveValue('%ZZ%');
  await expect(page.getByTestId('link-problems')).toContainText('The link\'s value "b" (batch.micro_batch_size) = "%ZZ%" is invalid: ');
  await expect(page.locator('#result-body')).toBeHidden();
  await expect(page.getByTestId('status')).toHaveText('No estimate: the engine rejected the input (fields marked below).');
  expect(new URL(page.url()).hash).toBe(link);
});

test('a link value for a setting its setup does not use is named, and the estimate of the setup shown is the CLI\'s', async ({ app, page }) => {
  // lr (lora.r) 0 and an empty ll (lora.layers_to_transform) under full fine-tuning; rg (a
  // rollout's num_generations) with no RLHF algorithm: the estimate leaves all three out.
  const hash = v4('v4:m=llama-3.1-8b&me=full&lr=0&ll=&rg=64&g=h100-sxm-80gb');
  await app.open('http', hash);
  const problems = page.getByTestId('link-problems');
  await expect(problems).toContainText('"lr" (lora.r) = "0" is for LoRA (method lora or qlora, or a PPO critic trained with LoRA), which this setup does not use');
  await expect(problems).toContainText('"ll" (lora.layers_to_transform) = "" is for LoRA');
  await expect(problems).toContainText('"rg" (rlhf.rollout.num_generations) = "64" is for RLHF (no RLHF algorithm chosen)');
  await expect(problems).not.toContainText('no estimate is shown');
  const doc = await app.inputDoc();
  expect(doc).toEqual({ model: { preset: 'llama-3.1-8b' }, method: 'full', gpu: 'h100-sxm-80gb' });
  await expect(page.locator('#result-body')).toBeVisible();
  expect(await app.bytes('b-peak')).toBe(cli(doc).per_gpu.peak);
  expect(await page.evaluate(() => location.hash)).toBe(hash);  // kept as it came until an input changes
});

test('a PPO critic trained with LoRA shows the LoRA settings and is estimated with them, as the CLI does', async ({ app, page }) => {
  await app.open('http', v4('v4:m=llama-3.1-8b&me=full&lr=64&ra=ppo&cme=lora&g=h100-sxm-80gb'));
  await expect(app.field('lora.r')).toBeVisible();
  await expect(app.field('lora.r')).toHaveValue('64');
  await expect(page.getByTestId('link-problems')).toBeEmpty();
  const doc = await app.inputDoc();
  expect(doc.lora).toEqual({ r: 64 });
  expect(await app.bytes('b-peak')).toBe(cli(doc).per_gpu.peak);
  // The rank moves the critic's states: r 8 is a smaller estimate.
  await app.set('lora.r', 8);
  expect(await app.bytes('b-peak')).toBeLessThan(cli(doc).per_gpu.peak);
});

test('a LoRA rank typed before switching to full fine-tuning is still there after a reload', async ({ app, page }) => {
  await app.open();
  await app.set('method', 'lora');
  await app.set('lora.r', 48);
  await app.set('method', 'full');
  expect((await app.inputDoc()).lora).toBeUndefined();  // not estimated, not in the link
  expect(await page.evaluate(() => location.hash)).not.toContain('lr=');
  await page.reload();
  await expect(page.getByTestId('input-json')).not.toBeEmpty();
  await app.settled();
  await expect(page.getByTestId('link-problems')).toBeEmpty();
  await app.set('method', 'lora');
  await expect(app.field('lora.r')).toHaveValue('48');
  expect((await app.inputDoc()).lora.r).toBe(48);
});

test('a link\'s config.json that the engine rejects names the key inside it, not only the link value', async ({ app, page }) => {
  // hidden_size 250 over 3 heads: the engine names model.hf_config.num_attention_heads; the line
  // names the link value mc (model.hf_config) and, inside it, num_attention_heads.
  const config = { model_type: 'llama', hidden_size: 250, intermediate_size: 512, num_attention_heads: 3, num_hidden_layers: 2, vocab_size: 1000 };
  const mc = Buffer.from(require('zlib').deflateRawSync(new TextEncoder().encode(JSON.stringify(config)))).toString('base64url');
  await app.open('http', v4('v4:mc=' + mc + '&g=h100-sxm-80gb'));
  const doc = await app.inputDoc();
  const answer = cli(doc);
  const heads = answer.errors.find((e) => e.field === 'model.hf_config.num_attention_heads');
  expect(heads).toBeDefined();
  const after = heads.message.slice('model.hf_config.num_attention_heads'.length).replace(/^:? /, '');
  await expect(page.getByTestId('link-problems')).toContainText('(model.hf_config) = ');
  await expect(page.getByTestId('link-problems')).toContainText('is invalid: num_attention_heads ' + after);
});

test('a link whose config.json makes the document too large names that value', async ({ app, page }) => {
  // The config alone is 10 bytes under the engine's 1 MiB document limit; with the document around
  // it ({"model": {"hf_config": ...}, "gpu": ...}) the whole is over it.
  const config = { model_type: 'llama', hidden_size: 64, intermediate_size: 128, num_attention_heads: 4, num_hidden_layers: 2, vocab_size: 1000, padding: '' };
  config.padding = 'x'.repeat(1048576 - 10 - JSON.stringify(config).length);
  const mc = Buffer.from(require('zlib').deflateRawSync(new TextEncoder().encode(JSON.stringify(config)))).toString('base64url');
  await app.open('http', v4('v4:mc=' + mc + '&g=h100-sxm-80gb'));
  const problems = page.getByTestId('link-problems');
  await expect(problems).toContainText('The link\'s value "mc" (model.hf_config) = ');
  await expect(problems).toContainText('is invalid: the document it makes is ');
  await expect(problems).toContainText('the engine reads at most 1,048,576');
});

test('a saved setup that no longer decodes is said to be lost, never swapped for the default in silence', async ({ app, page }) => {
  // A stored link whose check value does not match its body (changed outside the page).
  await app.open();
  await page.evaluate(() => localStorage.setItem('trainmem.state', JSON.stringify('#v4:m=llama-3.1-70b&b=2&c=deadbeef')));
  await app.open();
  const problems = page.getByTestId('link-problems');
  await expect(problems).toContainText('The setup saved in this browser (kept as a link) could not be restored');
  await expect(problems).not.toContainText('stays in the address bar');
  await expect(page.getByTestId('status')).toHaveText(/up to date/);
  await page.getByTestId('lang').selectOption('zh');
  await expect(problems).toContainText('无法恢复此浏览器中保存的设置');
});

test('a saved setup that is not JSON, is JSON null, or has a part the page cannot read is named, and stays saved until an input changes', async ({ app, page }) => {
  await app.open();
  const problems = page.getByTestId('link-problems');
  for (const raw of ['{{{', '', 'null']) {
    await page.evaluate((v) => localStorage.setItem('trainmem.state', v), raw);
    await app.open();
    await expect(problems).toContainText('The setup saved in this browser (kept as a link) could not be restored');
    expect(await page.evaluate(() => localStorage.getItem('trainmem.state'))).toBe(raw);
  }
  // An old version's link whose only parameter the page does not know: named, not dropped unsaid.
  await page.evaluate(() => localStorage.setItem('trainmem.state', JSON.stringify('#v1:zzzz')));
  await app.open();
  await expect(problems).toContainText('The setup saved in this browser has a part the page cannot read, left out: "zzzz"');
  await page.getByTestId('lang').selectOption('zh');
  await expect(problems).toContainText('此浏览器中保存的设置有页面无法读取的部分');
});
