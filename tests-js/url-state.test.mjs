// The link codec (web/src/link-codec.js) and document paths (web/src/doc-paths.js): every input field has a key, links round-trip, old links migrate,
// the golden corpus decodes to its documents, and a tampered parameter is named and left out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { crc32, deflateRawSync } from 'node:zlib';
import LZString from 'lz-string';

import * as Url from '../web/src/link-codec.js';
import * as Paths from '../web/src/doc-paths.js';
import { loadEngine } from './engine-module.mjs';

const engine = await loadEngine();
// A v4 link from its body ("v4:k=v&..."): the check value worked out here with Node's own CRC-32
// (zlib), not with the codec's.
const v4 = (/** @type {string} */ body) => '#' + body + (body.endsWith(':') ? '' : '&') + 'c=' + (crc32(body) >>> 0).toString(16).padStart(8, '0');
const every = JSON.parse(readFileSync(new URL('./fixtures/every-field.json', import.meta.url))).document;
const golden = JSON.parse(readFileSync(new URL('./fixtures/golden-links.json', import.meta.url)));

test('the key table and the every-field document name the same fields, each once', () => {
  const keyPaths = Url.KEYS.map(([, path]) => path);
  assert.equal(new Set(keyPaths).size, keyPaths.length, 'a path has two keys');
  assert.equal(new Set(Url.KEYS.map(([key]) => key)).size, keyPaths.length, 'a key is used twice');
  // gpu is either a catalog id (key g) or a custom device (gm, gu, gc): the fixture has the device
  assert.deepEqual(Paths.leafPaths(every, '', []).sort(), keyPaths.filter((p) => p !== 'gpu').sort());
});

test('the engine knows every field the key table names (no typo becomes an unknown_field)', () => {
  for (const [key, path] of Url.KEYS) {
    const solve = path.startsWith('solve.');  // the panel's options go to the engine's solve
    const doc = solve ? { model: { preset: 'gpt2' }, gpu: 'h100-sxm-80gb' } : { model: { preset: 'gpt2' } };
    const value = path === 'gpu' ? 'h100-sxm-80gb' : Paths.getPath(every, path);
    if (path.startsWith('model.')) delete doc.model;
    Paths.setPath(doc, path, value);
    const out = JSON.parse(solve ? engine.solve(JSON.stringify(doc)) : engine.estimate(JSON.stringify(doc)));
    const unknown = (out.errors || []).filter((e) => e.code === 'unknown_field');
    assert.deepEqual(unknown, [], 'key ' + key + ' (' + path + ')');
  }
});

test('a regex target_modules travels as text, a list as names (a name may start with "~")', () => {
  // PEFT reads a string target_modules as a regex (re.fullmatch); a link must not split it at commas.
  for (const target of ['.*\\.(q_proj|v_proj)', 'model\\.layers\\.\\d{1,2}\\.mlp\\..*', 'all-linear', ['q_proj', 'v_proj'], ['~odd', 'x,y']]) {
    const doc = { lora: { target_modules: target, exclude_modules: target } };
    const back = Url.decode(Url.encode(doc));
    assert.deepEqual(back.problems, []);
    assert.deepEqual(back.doc, doc);
  }
});

test('every field survives a round trip through a link', () => {
  const link = Url.encode(every);
  const back = Url.decode(link);
  assert.deepEqual(back.problems, []);
  assert.deepEqual(back.doc, every);
  const withCatalogGpu = { ...every, gpu: 'a100-80gb' };
  assert.deepEqual(Url.decode(Url.encode(withCatalogGpu)).doc, withCatalogGpu);
});

test('a preset configuration is a short, readable link (exact string pinned)', () => {
  const doc = { model: { preset: 'llama-3.1-8b' }, method: 'lora', lora: { r: 16, target_modules: ['q_proj', 'v_proj'] },
    precision: { optimizer: 'adamw' }, batch: { micro_batch_size: 1, seq_length: 4096, gradient_accumulation_steps: 8 },
    activation_checkpointing: 'full', attention: 'flash', parallel: { world_size: 8, zero_stage: 3 }, gpu: 'h100-sxm-80gb' };
  const link = Url.encode(doc);
  assert.equal(link, v4('v4:m=llama-3.1-8b&me=lora&lr=16&lt=q_proj,v_proj&o=adamw&b=1&s=4096&ga=8&ac=full&at=flash&n=8&z=3&g=h100-sxm-80gb'));
  assert.ok(link.length < 200, link.length + ' characters');
});

test('a document field with no key is refused, not silently dropped', () => {
  assert.throws(() => Url.encode({ model: { preset: 'gpt2' }, batch: { seq_len: 1 } }), /batch\.seq_len/);
});

test('golden links decode to their documents; current-version links re-encode to themselves', () => {
  assert.ok(golden.some((g) => g.version === 1), 'the corpus keeps first-release links');
  for (const g of golden) {
    const r = Url.decode(g.link);
    assert.deepEqual(r.problems, [], g.link);
    assert.equal(r.version, g.version, g.link);
    assert.deepEqual(r.doc, g.document, g.link);
    if (g.version === Url.VERSION) assert.equal(Url.encode(r.doc), g.link);
    const out = JSON.parse(r.doc.solve ? engine.solve(JSON.stringify(r.doc)) : engine.estimate(JSON.stringify(r.doc)));
    assert.equal(out.error, undefined, g.link + ': ' + JSON.stringify(out.errors));
  }
  assert.ok(golden.some((g) => g.version === 2), 'the corpus keeps v2 links');
  assert.ok(golden.some((g) => g.version === 3 && g.document.solve), 'the corpus has links with solve options');
});

test('migration: a first-release link becomes the current document and link', () => {
  const r = Url.decode('#v1:model=gpt2&method=qlora&lora_r=4&world_size=2&zero_stage=1&gpu=l4-24gb');
  assert.deepEqual(r.doc, { model: { preset: 'gpt2' }, method: 'qlora', lora: { r: 4 }, parallel: { world_size: 2, zero_stage: 1 }, gpu: 'l4-24gb' });
  assert.equal(Url.encode(r.doc), v4('v4:m=gpt2&me=qlora&lr=4&n=2&z=1&g=l4-24gb'));
});

test('migration: a first-release link naming an object property is named by what it says', () => {
  // Each key is unknown to every version: named as written, not as Object.prototype's member of that name.
  const r = Url.decode('#v1:model=gpt2&constructor=1&__proto__=2&toString=3&gpu=l4-24gb');
  assert.deepEqual(r.doc, { model: { preset: 'gpt2' }, gpu: 'l4-24gb' });
  assert.deepEqual(r.problems.map((p) => [p.code, p.param]), [['unknown_parameter', 'constructor'], ['unknown_parameter', '__proto__'], ['unknown_parameter', 'toString']]);
});

test('migration: a v2 link (no solve options) keeps its document and becomes a v4 link', () => {
  const r = Url.decode('#v2:m=llama-3.1-8b&me=full&b=1&s=4096&n=8&z=3&g=h100-sxm-80gb');
  assert.equal(r.version, 2);
  assert.deepEqual(r.problems, []);
  assert.equal(Url.encode(r.doc), v4('v4:m=llama-3.1-8b&me=full&b=1&s=4096&n=8&z=3&g=h100-sxm-80gb'));
});

test('solve options: prices and measured points round-trip; tampered ones are named, a price that is not a number kept as its text', () => {
  const doc = { model: { preset: 'gpt2' }, gpu: 'a100-80gb', solve: { safety_margin: 0.1, prices: { 'a100-80gb': 1.5, 'h100-sxm-80gb': 2 },
    calibration: [{ measured_bytes: 4e10, micro_batch_size: 1, seq_length: 1024, measure: 'nvidia-smi' }, { measured_bytes: 5e10, seq_length: 2048 }] } };
  const link = Url.encode(doc);
  assert.equal(link, v4('v4:m=gpt2&g=a100-80gb&xm=0.1&xp=a100-80gb:1.5,h100-sxm-80gb:2&xc=40000000000_1_1024_nvidia-smi,50000000000__2048_'));
  assert.deepEqual(Url.decode(link).doc, doc);
  const bad = Url.decode('#v3:m=gpt2&xp=a100-80gb:cheap&xc=1_2_3_allocated,4_5_6_reserved,7_8_9_reserved&xw=8');
  assert.deepEqual(bad.doc, { model: { preset: 'gpt2' }, solve: { prices: {}, strategies: { world_size: 8 } } });
  assert.deepEqual(bad.problems.map((p) => [p.param, p.path, p.text]), [['xp', 'solve.prices.a100-80gb', 'cheap'], ['xc', 'solve.calibration', undefined]]);
  // One price that is not a number ("3,5", a decimal comma) leaves the others: each is named at its own path.
  const comma = Url.decode(v4('v4:m=gpt2&xp=a100-40gb:2.5,a100-80gb:3%2C5'));
  assert.deepEqual(comma.doc.solve.prices, { 'a100-40gb': 2.5 });
  assert.deepEqual(comma.problems.map((p) => [p.path, p.code, p.text]), [['solve.prices.a100-80gb', 'not_number', '3,5']]);
  // A GPU id that cannot be one is still the whole value's problem.
  assert.deepEqual(Url.decode(v4('v4:m=gpt2&xp=%3Cx%3E:1')).problems.map((p) => [p.path, p.code]), [['solve.prices', 'not_prices']]);
  assert.deepEqual(Url.decode('#v3:xc=1_x_3_allocated').problems.map((p) => p.message), ['micro_batch_size not a number']);
});

test('an integer with more digits than a number holds stays as the link wrote it, named', () => {
  // 2^53 + 1 = 9007199254740993 reads as 9007199254740992 in a double: kept as text, not rounded.
  const r = Url.decode(v4('v4:m=gpt2&s=9007199254740993'));
  assert.deepEqual(r.problems.map((p) => [p.path, p.code, p.text]), [['batch.seq_length', 'not_exact', '9007199254740993']]);
  assert.equal(r.doc.batch, undefined);
  // 2^53 itself and a large number written as a power of ten are numbers.
  assert.equal(Url.decode(v4('v4:m=gpt2&s=9007199254740992')).doc.batch.seq_length, 2 ** 53);
  assert.deepEqual(Url.decode(v4('v4:m=gpt2&s=1e20')).problems, []);
});

test('paths into a list: the calibration points', () => {
  const doc = {};
  Paths.setPath(doc, 'solve.calibration.1.seq_length', 2048);
  assert.deepEqual(doc, { solve: { calibration: [{}, { seq_length: 2048 }] } });
  assert.equal(Paths.getPath(doc, 'solve.calibration.1.seq_length'), 2048);
  assert.equal(Paths.getPath(doc, 'solve.calibration.x'), undefined);
  assert.equal(Paths.getPath({ lora: { target_modules: ['q_proj'] } }, 'lora.target_modules.0'), 'q_proj');
});

test('a tampered parameter is named and left out; the rest of the link is kept', () => {
  const r = Url.decode('#v2:m=gpt2&n=eight&zz=1&s=1024&sp=maybe&mc=notcompressed&b=%E0%A4%A');
  assert.deepEqual(r.doc, { model: { preset: 'gpt2' }, batch: { seq_length: 1024 } });
  assert.deepEqual(r.problems.map((p) => [p.param, p.path]), [
    ['n', 'parallel.world_size'], ['zz', ''], ['sp', 'parallel.sequence_parallel'], ['mc', 'model.hf_config'], ['b', 'batch.micro_batch_size']]);
  assert.match(r.problems[0].message, /not a number/);
  // A value that cannot be percent-decoded is quoted and kept as the link gave it, for its field.
  const b = r.problems[4];
  assert.equal(b.value, '%E0%A4%A');
  assert.equal(b.text, '%E0%A4%A');
});

test('values that are not plain numbers never become NaN or Infinity', () => {
  for (const bad of ['NaN', 'Infinity', '1e999', '0x10', '', '1,000']) {
    const r = Url.decode('#v2:s=' + encodeURIComponent(bad));
    assert.equal(r.doc.batch, undefined, bad);
    assert.equal(r.problems.length, 1, bad);
  }
});

test('unknown versions and foreign fragments are reported, not guessed', () => {
  assert.match(Url.decode('#v99:m=gpt2').problems[0].message, /version 99 comes from a newer trainmem page/);
  assert.match(Url.decode('#v0:m=gpt2').problems[0].message, /version 0 is not a trainmem link version/);
  assert.match(Url.decode('#section-2').problems[0].message, /not a trainmem link/);
  assert.equal(Url.decode('').doc, null);
});

test('a pasted config.json travels in the link, compressed', () => {
  const config = JSON.parse(engine.catalog('models')).models.find((m) => m.id === 'qwen2.5-7b').hf_config;
  const link = Url.encode({ model: { hf_config: config }, gpu: 'a100-80gb' });
  assert.ok(link.length < encodeURIComponent(JSON.stringify(config)).length, 'shorter than the percent-encoded JSON');
  assert.match(link, /^#v4:mc=[A-Za-z0-9_-]+&g=a100-80gb&c=[0-9a-f]{8}$/);
  assert.deepEqual(Url.decode(link).doc.model.hf_config, config);
});

test('text values are percent-encoded, so & = # in a value cannot add parameters', () => {
  const doc = { model: { preset: 'a&n=9#x' }, lora: { target_modules: ['q&z=1', 'v,w'] } };
  const link = Url.encode(doc);
  assert.doesNotMatch(link.slice(4), /#/);
  const back = Url.decode(link);
  assert.equal(back.doc.model.preset, 'a&n=9#x');
  assert.equal(back.doc.parallel, undefined);
});

test('v4 links carry a check value: a link cut short or changed is refused whole, named as such', () => {
  const link = Url.encode({ model: { preset: 'gpt2' }, batch: { seq_length: 1024 }, gpu: 'a100-80gb' });
  assert.equal(link, v4('v4:m=gpt2&s=1024&g=a100-80gb'));
  assert.deepEqual(Url.decode(link).problems, []);
  for (let cut = 1; cut < link.length - '#v4:'.length; cut++) {
    const r = Url.decode(link.slice(0, link.length - cut));
    assert.equal(r.doc, null, 'cut ' + cut);
    assert.equal(r.problems.length, 1);
    assert.ok(r.problems[0].whole);
    assert.match(r.problems[0].message, /incomplete|does not match/, 'cut ' + cut);
  }
  const changed = Url.decode(link.replace('s=1024', 's=2048'));
  assert.equal(changed.doc, null);
  assert.match(changed.problems[0].message, /does not match its check value/);
  assert.match(Url.decode(link.slice(0, link.indexOf('&c='))).problems[0].message, /incomplete: its check value .* is missing/);
});

test('v4: an invalid value under a good check value is named and left out, the rest kept', () => {
  const r = Url.decode(v4('v4:m=gpt2&b=two&s=512'));
  assert.deepEqual(r.doc, { model: { preset: 'gpt2' }, batch: { seq_length: 512 } });
  assert.deepEqual(r.problems.map((p) => [p.param, p.message, Boolean(p.whole)]), [['b', 'not a number', false]]);
});

test('a link over the size limit is refused before it is read', () => {
  const r = Url.decode('#v4:m=' + 'a'.repeat(Url.MAX_LINK_CHARS));
  assert.equal(r.doc, null);
  assert.match(r.problems[0].message, /characters long; the limit is 1048576/);
});

test('a compressed config that inflates past the limit is stopped while inflating', () => {
  // 64 MiB of spaces deflate to about 64 KB: a link of that size would make 64 MiB of text.
  const bomb = deflateRawSync(new Uint8Array(64 << 20).fill(32), { level: 9 });
  const value = bomb.toString('base64url');
  const r = Url.decode(v4('v4:mc=' + value));
  assert.deepEqual(r.problems.map((p) => p.message), ['decompresses to more than 1048576 bytes']);
  assert.equal(r.doc.model, undefined);
  // The limit itself: the document limit of the engine (engine/include/trainmem/json_api.hpp).
  assert.equal(Url.MAX_JSON_BYTES, 1 << 20);
});

test('a v3 config value longer than the legacy limit is refused before lz-string reads it', () => {
  // lz-string cannot stop early, and its output can grow with the square of its input: a 90 KB
  // crafted value froze the page for 40 s. 'a' x 4e6 compresses to more than 4096 characters.
  const value = LZString.compressToEncodedURIComponent('a'.repeat(4e6));
  assert.ok(value.length > Url.LEGACY_JSON_CHARS, String(value.length));
  const r = Url.decode('#v3:m=gpt2&mc=' + value);
  assert.deepEqual(r.problems.map((p) => p.message), ['longer than 4096 characters (the limit for a v3 link)']);
  assert.deepEqual(r.doc, { model: { preset: 'gpt2' } });
});

test('a config whose JSON text has a repeated key is refused, not silently cut to the last value', () => {
  const text = '{"model_type":"llama","hidden_size":8,"hidden_size":4096}';
  const value = deflateRawSync(new TextEncoder().encode(text)).toString('base64url');
  const r = Url.decode(v4('v4:mc=' + value));
  assert.match(r.problems[0].message, /repeated key/);
  assert.equal(r.doc.model, undefined);
});

test('a config over the document limit cannot be put into a link', () => {
  assert.throws(() => Url.encode({ model: { hf_config: { model_type: 'llama', pad: 'x'.repeat(1 << 20) } } }), /is over 1048576 bytes/);
});

test('v4: an equivalent encoding of a valid link (an app percent-encoded it, added punctuation, wrote the check in capitals) loads as the link', () => {
  const body = 'v4:m=llama-3.1-8b&me=lora&lt=q_proj,v_proj,o_proj&b=1';
  const link = v4(body);
  const doc = { model: { preset: 'llama-3.1-8b' }, method: 'lora', lora: { target_modules: ['q_proj', 'v_proj', 'o_proj'] }, batch: { micro_batch_size: 1 } };
  assert.deepEqual(Url.decode(link).doc, doc);
  const check = link.slice(link.lastIndexOf('=') + 1);
  for (const same of [
    link.replace('q_proj,v_proj,o_proj', 'q_proj%2Cv_proj%2Co_proj'),  // %2C is ","
    link.replace('q_proj,v_proj,o_proj', 'q_proj%2cv_proj%2co_proj'),
    link.replace('v4:', 'v4%3A'),                                        // %3A is ":"
    link.replace(/&/g, '%26').replace(/=/g, '%3D'),                       // %26 "&", %3D "="
    link.replace('me=lora', 'me=%6Cora'),                                 // %6C is "l", which the page never escapes
    link + '.', link + ')', link + ').', link + '>', link + ' ',
    link.replace(check, check.toUpperCase()),
  ]) {
    const r = Url.decode(same);
    assert.deepEqual([r.doc, r.problems], [doc, []], same);
  }
});

test('v4: a damaged check value is named for what it is', () => {
  const link = v4('v4:m=gpt2&s=512');
  const check = link.slice(link.lastIndexOf('=') + 1);
  const whole = (/** @type {string} */ hash) => Url.decode(hash).problems.map((p) => [p.code, p.message]);
  // Present but not hex: named with its text, not called missing.
  assert.deepEqual(whole(link.replace(check, 'zz' + check.slice(2))), [['check_malformed', 'its check value (the last parameter, c=) is "zz' + check.slice(2) + '", not 8 hexadecimal digits']]);
  // Cut inside it (5 of its 8 digits) or before it: the link is incomplete.
  assert.equal(whole(link.slice(0, -3))[0][0], 'check_missing');
  assert.equal(whole(link.slice(0, link.indexOf('&c=')))[0][0], 'check_missing');
  // A percent-escaped "," the page wrote itself (inside a list item) matches the check value as it
  // came: the item "a,b" stays one item.
  const own = v4('v4:lt=a%2Cb');
  assert.deepEqual(Url.decode(own).doc, { lora: { target_modules: ['a,b'] } });
  // One character changed: no re-reading makes it match.
  assert.equal(whole(link.replace('s=512', 's=513'))[0][0], 'check_mismatch');
});

test('a config.json nested deeper than the engine reads is named, not walked until the stack overflows', () => {
  // A new user's trial: mc= decompressing to {"a":[[[...5000 levels...]]]} (10 KB, under the 1 MiB
  // limit) hung the page in JSON.stringify. 65 levels is one past the engine's 64 (json_api.hpp).
  const deep = (/** @type {number} */ levels) => {
    let v = /** @type {any} */ (1);
    for (let i = 1; i < levels; i++) v = [v];
    return { a: v };
  };
  const refused = Url.decode(Url.encode({ model: { hf_config: deep(65) } }));
  assert.deepEqual(refused.problems.map((p) => [p.path, p.code, p.message]),
    [['model.hf_config', 'json_too_deep', 'nests arrays/objects deeper than 64 levels']]);
  assert.equal(refused.doc.model?.hf_config, undefined);
  const kept = Url.decode(Url.encode({ model: { hf_config: deep(64) } }));
  assert.deepEqual(kept.problems, []);
  assert.deepEqual(kept.doc.model.hf_config, deep(64));
  // Brackets inside strings are text, not nesting.
  const text = Url.decode(Url.encode({ model: { hf_config: { name: '['.repeat(200) } } }));
  assert.deepEqual(text.problems, []);
});

test('a problem quotes at most 40 characters of a value, with an ellipsis where it was cut', () => {
  // "hidden_size":1e+300 cut at 40 characters would read as 1e+3.
  assert.equal(Url.clipped('x'.repeat(40)), 'x'.repeat(40));
  assert.equal(Url.clipped('{"model_type":"llama","hidden_size":1e+300}'), '{"model_type":"llama","hidden_size":1e+3…');
  const r = Url.decode('#v3:m=gpt2&mc=' + 'a'.repeat(Url.LEGACY_JSON_CHARS + 1));
  assert.equal(r.problems.length, 1);
  assert.equal(r.problems[0].value, 'a'.repeat(40) + '…');
});

test('a link upper-cased on the way loads when its check value matches it in lower case, and is named as changed when not', () => {
  const doc = { model: { preset: 'llama-3.1-8b' }, batch: { micro_batch_size: 2 } };
  const link = Url.encode(doc);
  const upper = Url.decode(link.toUpperCase());
  assert.deepEqual(upper.doc, Url.decode(link).doc);
  assert.deepEqual(upper.problems, []);
  // A base64 config does not survive a change of case: the check value says the link was changed.
  const config = Url.encode({ model: { hf_config: { model_type: 'llama', hidden_size: 64, num_hidden_layers: 2, num_attention_heads: 4,
    intermediate_size: 128, vocab_size: 1000 } } });
  const broken = Url.decode(config.toUpperCase());
  assert.equal(broken.doc, null);
  assert.equal(broken.problems[0].code, 'check_mismatch');
});
