// The WASM import reads the same files to the same answer as the native CLI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadConfigEngine } from './engine-module.mjs';
import { importFile, yaml11PlainScalar } from '../web/src/config-files.js';

const engine = await loadConfigEngine();
const cli = new URL('../build-native/trainmem', import.meta.url).pathname;
const configs = new URL('../tests/fixtures/configs/', import.meta.url).pathname;

function run(args, cwd) {
  try {
    return JSON.parse(execFileSync(cli, args, { cwd }).toString());
  } catch (e) {
    return JSON.parse(e.stdout.toString());
  }
}

test('an accelerate YAML with the DeepSpeed JSON it names: WASM equals the CLI', () => {
  const cwd = configs + 'accelerate';
  const yaml = 'accelerate_deepspeed.yaml', json = '../deepspeed/zero_stage1_config.json';
  const request = {
    files: [
      { name: yaml, content: run(['parse', yaml], cwd) },  // the YAML as the CLI's parser reads it
      { name: json, text: readFileSync(`${cwd}/${json}`, 'utf8') },
    ],
  };
  const wasm = JSON.parse(engine.import(JSON.stringify(request)));
  assert.deepEqual(wasm, run(['import', yaml, json], cwd));
  // ZeRO-1 from the JSON, 2 GPUs from the YAML (tests/fixtures/configs/accelerate/expected.json).
  assert.equal(wasm.document.parallel.zero_stage, 1);
  assert.equal(wasm.document.parallel.world_size, 2);
});

test('a TRL command line: WASM equals the CLI, and a missing model asks for its config', () => {
  const cwd = configs + 'trl';
  const text = readFileSync(`${cwd}/trl_sft_lora.sh`, 'utf8');
  const request = { files: [{ name: 'trl_sft_lora.sh', text }], model: 'qwen2.5-0.5b' };
  assert.deepEqual(JSON.parse(engine.import(JSON.stringify(request))), run(['import', '--model', 'qwen2.5-0.5b', 'trl_sft_lora.sh'], cwd));
  // trl_dpo_lora.sh names Qwen/Qwen2-0.5B-Instruct, which the catalog lacks (it has the base Qwen/Qwen2-0.5B).
  const dpo = readFileSync(`${cwd}/trl_dpo_lora.sh`, 'utf8');
  const asked = JSON.parse(engine.import(JSON.stringify({ files: [{ name: 'trl_dpo_lora.sh', text: dpo }] })));
  assert.equal(asked.error.code, 'model_config_needed');
  assert.match(asked.error.message, /Qwen\/Qwen2-0\.5B-Instruct/);
});

for (const [label, folder, yaml, json, model] of [
  ['an axolotl', 'axolotl', 'alst_llama3_8b_deepspeed.yaml', 'zero3_bf16_cpuoffload_all.json', null],
  ['a LLaMA-Factory', 'llamafactory', 'qwen3_full_sft.yaml', 'ds_z3_config.json', 'qwen3-4b'],
]) {
  test(`${label} YAML with the DeepSpeed JSON it names: WASM equals the CLI`, () => {
    const cwd = configs + folder;
    const request = {
      files: [
        { name: yaml, content: run(['parse', yaml], cwd) },
        { name: json, text: readFileSync(`${cwd}/${json}`, 'utf8') },
      ],
    };
    const args = ['import', yaml, json];
    if (model) {
      request.model = model;
      args.splice(1, 0, '--model', model);
    }
    const wasm = JSON.parse(engine.import(JSON.stringify(request)));
    // The request's object holds a YAML's keys in name order, the CLI's reader in file order: the
    // same answer, notes in the same order (by key) included.
    assert.deepEqual(wasm, run(args, cwd));
    // ZeRO-3 from the JSON, the trainer's loop from the YAML (tests/fixtures/configs/<folder>/expected.json).
    assert.equal(wasm.document.parallel.zero_stage, 3);
    assert.equal(wasm.document.framework, 'hf_trainer');
  });
}

// Every command line and launch script among the fixtures (TRL, Megatron-LM): the page passes its
// text to the engine unchanged, and the WASM import gives the CLI's answer.
function scriptFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? scriptFiles(join(dir, e.name))
    : e.name.endsWith('.sh') ? [join(dir, e.name)] : []));
}

test('every launch-script fixture: the page\'s file, the WASM import and trainmem import agree', () => {
  const files = scriptFiles(configs);
  assert.ok(files.some((path) => path.includes('/megatron/')) && files.length >= 7, `${files.length} scripts`);
  for (const path of files) {
    const name = path.split('/').pop();
    const text = readFileSync(path, 'utf8');
    const page = importFile(name, text);
    assert.deepEqual(page, { file: { name, text } }, path);
    const wasm = JSON.parse(engine.import(JSON.stringify({ files: [page.file] })));
    assert.deepEqual(wasm, run(['import', name], dirname(path)), path);
  }
});

test('a torchtitan TOML with the launch line that overrides it: WASM equals the CLI', () => {
  const cwd = configs + 'torchtitan';
  const toml = 'llama3_8b.toml', launch = 'float8_launch.sh';
  const request = {
    files: [
      { name: toml, content: run(['parse', toml], cwd) },
      { name: launch, text: readFileSync(`${cwd}/${launch}`, 'utf8') },
    ],
  };
  const wasm = JSON.parse(engine.import(JSON.stringify(request)));
  assert.deepEqual(wasm, run(['import', toml, launch], cwd));
  // run_train.sh's default 8 GPUs; --model.converters and --compile.enable over the TOML
  // (tests/fixtures/configs/torchtitan/expected.json).
  assert.equal(wasm.document.parallel.world_size, 8);
  assert.equal(wasm.document.precision.fp8_compute, true);
  assert.equal(wasm.document.compile, 'blocks_and_loss');
});

test('bad requests come back as error documents', () => {
  assert.equal(JSON.parse(engine.import('{')).error.code, 'invalid_json');
  assert.equal(JSON.parse(engine.import('{"files": []}')).error.code, 'missing_field');
  const broken = JSON.parse(engine.import(JSON.stringify({ files: [{ name: 'ds.json', text: '{\n "a": 1,\n "b" 2}' }] })));
  assert.equal(broken.error.code, 'invalid_json');
  assert.match(broken.error.message, /line 3, column/);
});

// Every YAML and TOML file under the fixtures, as the page's parser and as `trainmem parse` read it.
function configFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? configFiles(join(dir, e.name))
    : /\.(ya?ml|toml)$/.test(e.name) ? [join(dir, e.name)] : []));
}

/** The page's JSON for a file, and the CLI's. */
function bothParsers(path) {
  const page = importFile(path.split('/').pop(), readFileSync(path, 'utf8'));
  return { page: 'file' in page ? page.file.content : page, cli: run(['parse', path], tmpdir()) };
}

test('the page reads every YAML and TOML fixture to the same JSON as trainmem parse', () => {
  const files = configFiles(configs);
  assert.ok(files.length >= 10, `${files.length} fixtures`);
  for (const path of files) {
    const { page, cli } = bothParsers(path);
    assert.deepEqual(page, cli, path);
  }
});

test('YAML 1.1 scalars as PyYAML reads them, on both sides', () => {
  // Each expectation from PyYAML 6.0 yaml/resolver.py: a float needs a dot (and a signed exponent),
  // so 5e-5 stays text; yes/no/on/off are booleans, y/n are not; a leading 0 is octal (010 = 8);
  // underscores are dropped (1_000 = 1000); a:b is base 60 (1:30 = 90); quoted and !!str are text;
  // a merge key's mapping is merged under the mapping's own keys. 0x1 and 16 zeros is 16^16 = 2^64;
  // "0x_" has no digits (PyYAML raises; both sides read 0, as for "0b_").
  const dir = mkdtempSync(join(tmpdir(), 'trainmem-yaml-'));
  const path = join(dir, 'scalars.yaml');
  writeFileSync(path, ['lr: 5e-5', 'lr_dot: 1.0e-5', 'flag: yes', 'off_: Off', 'y: y', 'octal: 010', 'under: 1_000',
    'sexagesimal: 1:30', 'hex: 0x1F', 'hex_big: 0x1_0000_0000_0000_0000', 'hex_empty: 0x_', 'quoted: "yes"', 'tagged: !!str 12', 'tilde: ~', 'empty:', 'inf: .inf',
    'base: &b {a: 1, b: 2}', 'child: {<<: *b, b: 3}', 'block: |', '  text', ''].join('\n'));
  const expected = { lr: '5e-5', lr_dot: 0.00001, flag: true, off_: false, y: 'y', octal: 8, under: 1000, sexagesimal: 90, hex: 31, hex_big: 2 ** 64, hex_empty: 0,
    quoted: 'yes', tagged: '12', tilde: null, empty: null, inf: '.inf', base: { a: 1, b: 2 }, child: { a: 1, b: 3 }, block: 'text\n' };
  const { page, cli } = bothParsers(path);
  assert.deepEqual(page, expected);
  assert.deepEqual(cli, expected);
  assert.equal(yaml11PlainScalar('2e-5'), '2e-5');
  assert.equal(yaml11PlainScalar('2.0e-5'), 0.00002);
});

test('TOML on both sides: infinities as text, dates as their TOML text', () => {
  const dir = mkdtempSync(join(tmpdir(), 'trainmem-toml-'));
  const path = join(dir, 'train.toml');
  writeFileSync(path, ['[training]', 'local_batch_size = 8', 'lr = 8e-4', 'max_norm = inf', 'compile = true',
    '[job]', 'when = 1979-05-27T07:32:00Z', 'day = 1979-05-27', 'dims = [1, 2.5, "x"]', ''].join('\n'));
  const expected = { training: { local_batch_size: 8, lr: 0.0008, max_norm: 'inf', compile: true },
    job: { when: '1979-05-27T07:32:00Z', day: '1979-05-27', dims: [1, 2.5, 'x'] } };
  const { page, cli } = bothParsers(path);
  assert.deepEqual(page, expected);
  assert.deepEqual(cli, expected);
});

test('malformed YAML and TOML: the file, line and column, as the CLI reports them', () => {
  // Line 2 opens a flow sequence that the end of the text (line 3, column 1) leaves unclosed.
  const yaml = importFile('broken.yaml', 'a: 1\nb: [1, 2\n');
  assert.equal(yaml.error.code, 'invalid_yaml');
  assert.match(yaml.error.message, /^broken\.yaml:3:1: /);
  const dup = importFile('dup.yaml', 'a: 1\na: 2\n');
  assert.equal(dup.error.code, 'duplicate_key');
  assert.match(dup.error.message, /^dup\.yaml:2:1: the key "a"/);
  const toml = importFile('broken.toml', 'a = 1\nb = = 2\n');
  assert.equal(toml.error.code, 'invalid_toml');
  assert.match(toml.error.message, /^broken\.toml:2:\d+: /);
  // JSON files and command lines go to the engine as text.
  assert.deepEqual(importFile('ds.json', '{"a": 1}'), { file: { name: 'ds.json', text: '{"a": 1}' } });
});

test('malformed YAML: the page\'s error equals trainmem parse\'s, line and column included', () => {
  // Both parsers stop on the same line; both name that line's first character that is not a blank.
  const cases = {
    'flow.yaml': 'a: 1\nb: [1, 2\nc: 3\n',        // an unclosed flow sequence: stops at line 3 ("c", column 1)
    'indent.yaml': 'a:\n  b: 1\n c: 2\n',          // a key less indented than its siblings: line 3, column 2
    'eof.yaml': 'a: [1, 2\n',                      // unclosed at the end: line 2, a line of nothing (column 1)
    'tab.yaml': '\tb: 1\n',                        // a tab as indentation: line 1, "b" at column 2
    'dup.yaml': 'a: 1\na: 2\n',                    // a repeated key: line 2, column 1
    'alias.yaml': 'a: 1\nb:\n  - 1\n  - *gc\n',       // an alias of no anchor (read as null before): line 4, "-" at column 3
  };
  const dir = mkdtempSync(join(tmpdir(), 'trainmem-yaml-'));
  for (const [name, text] of Object.entries(cases)) {
    writeFileSync(join(dir, name), text);
    const page = importFile(name, text);
    assert.ok('error' in page, name);
    const cli = run(['parse', name], dir);
    assert.equal(page.error.code, cli.error.code, name);
    const where = (/** @type {string} */ m) => m.split(': ')[0];
    assert.equal(where(page.error.message), where(cli.error.message), name);
  }
});

test('the page\'s files for an accelerate YAML and its DeepSpeed JSON: the WASM import equals the CLI', () => {
  const cwd = configs + 'accelerate';
  const yaml = 'accelerate_deepspeed.yaml', json = '../deepspeed/zero_stage1_config.json';
  const files = [yaml, json].map((name) => importFile(name, readFileSync(`${cwd}/${name}`, 'utf8')).file);
  assert.deepEqual(JSON.parse(engine.import(JSON.stringify({ files }))), run(['import', yaml, json], cwd));
});

test('YAML nested past the parser\'s own stack is named as nesting, with its line and column', () => {
  // 5000 nested flow sequences: npm yaml overflows its stack before the page's depth check runs.
  const r = importFile('deep.yaml', 'a: ' + '['.repeat(5000) + ']'.repeat(5000) + '\n');
  assert.ok('error' in r);
  assert.equal(r.error.code, 'invalid_yaml');
  assert.match(r.error.message, /^deep\.yaml:1:\d+: nests deeper than 64 levels/);
});
