// The export's not_exported reasons in Simplified Chinese (web/src/export-reasons.js): every reason
// an exporter writes (engine/src/export/*.cpp, read here from the source; export_formats.hpp's
// note_joint_offload passes on the reason each call gives it) has a Chinese wording
// without an English sentence, every wording is a reason the engine still writes, and the CLI's
// real export of a setup reads in Chinese.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXACT_ZH, exportReasonZh } from '../web/src/export-reasons.js';

const ENGLISH_SENTENCE = /[A-Za-z]{4,} [a-z]{3,} [a-z]{3,}/;

/**
 * The reasons written by each `not_expressible.emplace_back(field, reason)` and
 * `note_joint_offload(out, parallel, written, reason)` call: the call's string literals grouped by
 * adjacency (C++ joins "a" "b"), the field's group left out; a ternary's two literals are two
 * reasons. A call whose reason is no literal (a variable) is returned with none, so that the test
 * below fails on it rather than skip it.
 * @param {string} source
 * @returns {string[][]} each call's reasons
 */
function writtenReasons(source) {
  const calls = [];
  for (const call of source.matchAll(/(not_expressible\.emplace_back|note_joint_offload)\(/g)) {
    let depth = 1, i = /** @type {number} */ (call.index) + call[0].length;
    const start = i;
    while (depth > 0 && i < source.length) {
      const c = source[i];
      if (c === '"') {
        for (i++; i < source.length && source[i] !== '"'; i++) if (source[i] === '\\') i++;
      } else if (c === '(') depth++;
      else if (c === ')') depth--;
      i++;
    }
    const args = source.slice(start, i - 1);
    const groups = [...args.matchAll(/"(?:[^"\\]|\\.)*"(?:\s*"(?:[^"\\]|\\.)*")*/g)]
      .map((m) => [...m[0].matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((l) => JSON.parse('"' + l[1] + '"')).join(''));
    calls.push(call[1] === 'note_joint_offload' ? groups : groups.slice(1));
  }
  return calls;
}

const dir = new URL('../engine/src/export/', import.meta.url).pathname;
const sources = readdirSync(dir).filter((f) => f.endsWith('.cpp')).map((f) => readFileSync(dir + f, 'utf8')).join('\n');
const calls = writtenReasons(sources);
const written = calls.flat();

test('every exporter call writes its reason as a literal the reading finds', () => {
  // The exporters make some 80 calls (engine/src/export/*.cpp); each gives one reason, a ternary two.
  assert.ok(calls.length > 60, String(calls.length));
  for (const reasons of calls) assert.ok(reasons.length === 1 || reasons.length === 2, JSON.stringify(reasons));
  assert.ok(written.includes("the model has no Hugging Face id (a catalog preset's, or an hf_config's _name_or_path): axolotl requires base_model; add it to the snippet before training"));
});

test('every reason an exporter writes has a Chinese wording without an English sentence', () => {
  for (const reason of written) {
    const zh = exportReasonZh(reason);
    assert.notEqual(zh, null, 'no Chinese wording: ' + reason);
    assert.doesNotMatch(/** @type {string} */ (zh), ENGLISH_SENTENCE, reason);
  }
  for (const format of ['deepspeed', 'accelerate', 'axolotl']) assert.equal(exportReasonZh(`the ${format} file has no key for it`), format + ' 文件中没有对应的键');
  assert.equal(exportReasonZh('the torchtune line has no key for it'), 'torchtune 命令中没有对应的键');
  assert.equal(exportReasonZh('a reason the page has no wording for'), null);
});

test('every Chinese wording is of a reason an exporter still writes', () => {
  for (const reason of Object.keys(EXACT_ZH)) assert.ok(written.includes(reason), 'no exporter writes: ' + reason);
});

test("the CLI's export of a setup gives only reasons the page words in Chinese", () => {
  const cli = new URL('../build-native/trainmem', import.meta.url).pathname;
  const file = join(mkdtempSync(join(tmpdir(), 'export-reasons-')), 'doc.json');
  writeFileSync(file, JSON.stringify({
    model: { preset: 'llama-3.1-8b' }, framework: 'torchtitan', method: 'full', compile: true, attention: 'flash',
    precision: { param_dtype: 'fp32', compute_dtype: 'bf16' }, activation_checkpointing: 'selective',
    parallel: { world_size: 8, zero_stage: 1 }, gpu: 'h100-sxm-80gb',
  }));
  for (const format of ['deepspeed', 'accelerate', 'axolotl', 'torchtune']) {
    const out = JSON.parse(execFileSync(cli, ['export', format, file]).toString());
    assert.ok(out.not_exported.length > 0, format);
    for (const n of out.not_exported) assert.notEqual(exportReasonZh(n.reason), null, format + ': ' + n.field + ': ' + n.reason);
  }
});
