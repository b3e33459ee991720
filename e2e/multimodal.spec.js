// Vision-language models on the page: the vision tower, projector and image tokens shown beside the
// breakdown, the image settings (freeze options, images per sample, image size) sent to the engine
// and carried by the link.
const { test, expect, cli } = require('./fixtures');

// Published figures (catalog/models/llava-1.5-7b.json, tests/multimodal_test.cpp): llava-hf/llava-1.5-7b-hf's
// CLIP ViT-L/14-336 tower with post_layernorm has 303,507,456 parameters, its two-layer projector
// 1024*4096 + 4096 + 4096*4096 + 4096 = 20,979,712; a 336 x 336 image is (336/14)^2 = 576 patches,
// the class token dropped ("default" feature selection): 576 image tokens.
const TOWER = 303507456;
const PROJECTOR = 20979712;

test('a LLaVA preset shows its vision tower, projector and image tokens; freezing moves the trainable count', async ({ app, page }) => {
  await app.open();
  await app.model('llava-1.5-7b');
  await app.set('gpu', 'h100-sxm-80gb');
  await expect(page.getByTestId('vision')).toBeVisible();
  const value = async (testid) => Number(await page.getByTestId(testid).getAttribute('data-value'));
  expect(await value('v-tower')).toBe(TOWER);
  await expect(page.getByTestId('v-tower')).toContainText('303,507,456 (frozen)');
  expect(await value('v-projector')).toBe(PROJECTOR);
  await expect(page.getByTestId('v-projector')).toContainText('(trained)');
  expect(await value('v-tokens-image')).toBe(576);
  expect(await value('v-tokens-sample')).toBe(576);
  await expect(page.getByTestId('v-image-size')).toHaveText('336 × 336 → 336 × 336');
  // The image controls left empty show what the engine used (resolved): the size the config states.
  await expect(app.field('multimodal.image_size')).toHaveAttribute('placeholder', '336x336');
  await expect(app.field('multimodal.image_size')).toHaveAttribute('title', 'read from config.json:vision_config.image_size');
  await expect(app.field('multimodal.freeze_vision_tower').locator('option[value=""]')).toHaveText('default: on');
  // A frozen tower records no graph: no activations of its own; the breakdown's share says so.
  expect(await app.bytes('v-act-tower')).toBe(0);
  expect(await app.bytes('b-vision_tower')).toBe(0);
  const frozen = cli(await app.inputDoc());

  await page.locator('#vision-settings summary').click();
  await app.set('multimodal.freeze_vision_tower', 'false');
  const doc = await app.inputDoc();
  expect(doc.multimodal).toEqual({ freeze_vision_tower: false });
  const trained = cli(doc);
  expect(trained.parameters.trainable - frozen.parameters.trainable).toBe(TOWER);
  await expect(page.getByTestId('trainable')).toHaveText(trained.parameters.trainable.toLocaleString('en-US'));
  await expect(page.getByTestId('v-tower')).toContainText('(trained)');
  const saved = await app.bytes('v-act-tower');
  expect(saved).toBeGreaterThan(0);
  expect(saved).toBe(trained.multimodal.activations.vision_tower);
  expect(await app.bytes('b-vision_tower')).toBe(saved);
  expect(await app.bytes('b-peak')).toBe(trained.per_gpu.peak);

  // Two images per sample: twice the image tokens in the sequence.
  await app.set('multimodal.images_per_sample', 2);
  expect(await value('v-tokens-sample')).toBe(1152);
});

test('Qwen2.5-VL prices the image size given; the image settings travel in the link', async ({ app, page }) => {
  await app.open();
  await app.model('qwen2.5-vl-7b');
  await page.locator('#vision-settings summary').click();
  await app.set('multimodal.image_size', '672x448');
  await app.set('multimodal.freeze_projector', 'true');
  await app.set('multimodal.images_per_sample', 3);
  // smart_resize keeps 672 x 448 (multiples of 28, inside min/max pixels): 48 x 32 patches of 14,
  // merged 2 x 2 -> 24 x 16 = 384 tokens per image, 1152 for three.
  const value = async (testid) => Number(await page.getByTestId(testid).getAttribute('data-value'));
  expect(await value('v-tokens-image')).toBe(384);
  expect(await value('v-tokens-sample')).toBe(1152);
  await expect(page.getByTestId('v-projector')).toContainText('(frozen)');
  const doc = await app.inputDoc();
  expect(doc.multimodal).toEqual({ image_size: [672, 448], freeze_projector: true, images_per_sample: 3 });
  const hash = new URL(page.url()).hash;
  expect(hash).toContain('vj=1');
  expect(hash).toContain('vi=3');
  expect(hash).toContain('vs=672x448');

  // The link opens as the same document, with the controls showing it (a fresh load, not a hash change).
  await page.goto('about:blank');
  await app.open('http', hash);
  expect((await app.inputDoc()).multimodal).toEqual(doc.multimodal);
  await expect(app.field('multimodal.image_size')).toHaveValue('672x448');
  await expect(app.field('multimodal.images_per_sample')).toHaveValue('3');
  await expect(page.getByTestId('link-problems')).toBeEmpty();
  expect(await value('v-tokens-sample')).toBe(1152);
});

test('a text-only model hides the vision table; a malformed image size is named at its field', async ({ app, page }) => {
  await app.open();
  await app.model('llama-3.1-8b');
  await expect(page.getByTestId('vision')).toBeHidden();
  await app.model('llava-1.5-7b');
  await page.locator('#vision-settings summary').click();
  await app.set('multimodal.image_size', 'big');
  await expect(page.getByTestId('errors')).toContainText('multimodal.image_size');
  await expect(page.getByTestId('field-error')).toBeVisible();
  // A side out of range is named at its index, and marked at the image-size control.
  await app.set('multimodal.image_size', '0x224');
  await expect(page.getByTestId('errors')).toContainText('multimodal.image_size[0]');
  await expect(page.getByTestId('field-error')).toContainText('the height');
  // "672X448" as "672x448".
  await app.set('multimodal.image_size', '672X448');
  expect((await app.inputDoc()).multimodal.image_size).toEqual([672, 448]);
  await app.set('multimodal.image_size', '');
  await expect(page.getByTestId('vision')).toBeVisible();
});
