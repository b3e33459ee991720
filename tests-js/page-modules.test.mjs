// The page's pure modules in Node: finding presets from Hugging Face references (fault B36),
// unit labels (fault B08), and every interface label in both languages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

const require = createRequire(import.meta.url);
const Search = require('../web/model-search.js');
const I18n = require('../web/i18n.js');
const Render = require('../web/render.js');
const engine = await require('../web/engine.js')();
const models = JSON.parse(engine.catalog('models')).models;

test('B36: every form of a Hugging Face reference maps to the preset by hf_id, with no network', () => {
  for (const ref of ['meta-llama/Llama-3.1-8B', 'https://huggingface.co/meta-llama/Llama-3.1-8B',
    'https://huggingface.co/meta-llama/Llama-3.1-8B/tree/main', 'https://huggingface.co/meta-llama/Llama-3.1-8B/blob/main/config.json',
    'huggingface.co/meta-llama/llama-3.1-8b/resolve/main/config.json', '  hf.co/meta-llama/Llama-3.1-8B  ']) {
    const hit = Search.presetForHfReference(models, ref);
    assert.equal(hit && hit.model.id, 'llama-3.1-8b', ref);
    assert.equal(hit.exact, true, ref);
  }
});

test('a fine-tune of a catalog model maps to its base preset, marked as not exact', () => {
  const hit = Search.presetForHfReference(models, 'https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct');
  assert.equal(hit.model.id, 'llama-3.1-8b');
  assert.equal(hit.exact, false);
  assert.equal(Search.presetForHfReference(models, 'someone/not-a-catalog-model'), null);
  assert.equal(Search.parseHfReference('llama 8b'), null);
});

test('preset search by name, family and size', () => {
  const ids = (q) => Search.filterModels(models, q).map((m) => m.id);
  assert.ok(ids('llama 70b').includes('llama-3.1-70b'));
  assert.ok(ids('70b').includes('llama-2-70b') && !ids('70b').includes('llama-3.1-8b'));
  assert.ok(ids('qwen').every((id) => id.startsWith('qwen')));
  assert.deepEqual(ids('mixtral 8x7'), ['mixtral-8x7b']);
  assert.deepEqual(ids('zzzz'), []);
  assert.equal(ids('').length, models.length);
});

test('B08: GiB is 2^30 bytes and GB is 10^9 bytes, each labelled as what it is', () => {
  assert.equal(Render.formatBytes(2 ** 30, 'GiB'), '1.00 GiB');
  assert.equal(Render.formatBytes(1e9, 'GB'), '1.00 GB');
  assert.equal(Render.formatBytes(80e9, 'GiB'), '74.51 GiB');
  assert.equal(Render.formatBytes(1234 * 2 ** 30, 'GiB'), '1,234.00 GiB');
  assert.equal(Render.formatBytes(null, 'GB'), '—');
  assert.equal(Render.formatBytes(NaN, 'GB'), '—');
});

test('every label of the page and of the scripts has a Simplified Chinese text', () => {
  const html = readFileSync(new URL('../web/index.html', import.meta.url), 'utf8');
  const keys = new Set([...html.matchAll(/data-i18n(?:-placeholder|-aria-label)?="([^"]+)"/g)].map((m) => m[1]));
  for (const key of Object.keys(I18n.STRINGS.en)) keys.add(key);
  const missing = [...keys].filter((k) => !(k in I18n.STRINGS.zh));
  assert.deepEqual(missing, []);
  const unused = Object.keys(I18n.STRINGS.zh).filter((k) => !keys.has(k));
  assert.deepEqual(unused, []);
});

test('every link key has a control on the page (a model field: its picker)', () => {
  const Url = require('../web/url-state.js');
  const html = readFileSync(new URL('../web/index.html', import.meta.url), 'utf8');
  const paths = new Set([...html.matchAll(/data-path="([^"]+)"/g)].map((m) => m[1]));
  const pickers = new Set([...html.matchAll(/data-picker="([^"]+)"/g)].map((m) => m[1]));
  const missing = Url.KEYS.map(([, path]) => path).filter((path) => {
    if (paths.has(path)) return false;
    const parent = path.slice(0, path.lastIndexOf('.'));
    return !(pickers.has(parent) && /\.(preset|hf_config)$/.test(path));  // presets and pasted configs are picker entries
  });
  assert.deepEqual(missing, []);
});

test('the page loads its scripts in dependency order, all classic (works from file://)', () => {
  const html = readFileSync(new URL('../web/index.html', import.meta.url), 'utf8');
  const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]);
  assert.ok(scripts.every((s) => !/type=|async|defer/.test(s)), 'classic, in order');
  const src = scripts.map((s) => /src="([^"]+)"/.exec(s)[1]);
  assert.ok(src.indexOf('vendor/lz-string.min.js') < src.indexOf('url-state.js'));
  assert.equal(src[src.length - 1], 'app.js');
});
