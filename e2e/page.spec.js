// The page over http and from file://: a preset estimate equals the CLI's for the same document.
const { test, expect } = require('@playwright/test');
const { execFileSync } = require('child_process');
const path = require('path');
const { pathToFileURL } = require('url');

const GIB = 1024 ** 3;
const cli = path.join(__dirname, '..', 'build-native', 'trainmem');

function cliEstimate(doc) {
  return JSON.parse(execFileSync(cli, ['estimate', '-'], { input: JSON.stringify(doc) }).toString());
}

async function checkPreset(page) {
  await page.selectOption('#model', 'llama-3.1-8b');
  await page.selectOption('#gpu', 'h100-sxm-80gb');
  await page.fill('#world_size', '8');
  await page.selectOption('#zero_stage', '3');
  const doc = {
    model: { preset: 'llama-3.1-8b' }, method: 'full', precision: { optimizer: 'adamw' },
    batch: { micro_batch_size: 1, seq_length: 4096 }, parallel: { world_size: 8, zero_stage: 3 }, gpu: 'h100-sxm-80gb',
  };
  const expected = cliEstimate(doc);
  await expect(page.getByTestId('model_states')).toHaveText((expected.per_gpu.model_states / GIB).toFixed(2) + ' GiB');
}

test('preset estimate over http matches the CLI', async ({ page }) => {
  await page.goto('/index.html');
  await checkPreset(page);
});

test('the folder works from file:// with no server', async ({ page }) => {
  await page.goto(pathToFileURL(path.join(__dirname, '..', 'web', 'index.html')).href);
  await checkPreset(page);
});

test('changing the LoRA rank updates the trainable parameters', async ({ page }) => {
  await page.goto('/index.html');
  await page.selectOption('#model', 'llama-2-7b');
  await page.selectOption('#method', 'lora');
  await page.fill('#lora_r', '8');
  await expect(page.getByTestId('trainable')).toHaveText('4,194,304');  // r=8 on q_proj, v_proj
  await page.fill('#lora_r', '16');
  await expect(page.getByTestId('trainable')).toHaveText('8,388,608');
});

test('a shared link restores the inputs', async ({ page }) => {
  await page.goto('/index.html#v1:model=llama-2-7b&method=full&micro_batch_size=2&seq_length=2048&world_size=4&zero_stage=2&gpu=a100-80gb&optimizer=adamw&lora_r=16');
  await expect(page.locator('#seq_length')).toHaveValue('2048');
  await expect(page.locator('#world_size')).toHaveValue('4');
  await expect(page.locator('#model')).toHaveValue('llama-2-7b');
});
