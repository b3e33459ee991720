// The WASM import reads the same files to the same answer as the native CLI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadEngine } from './engine-module.mjs';

const engine = await loadEngine();
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

// The request's object holds a YAML's keys in name order, the CLI in file order: the notes may come
// in another order; every answer is the same.
function sortedNotes(answer) {
  for (const list of ['ignored', 'unmodelled', 'unresolved'])
    answer[list] = [...answer[list]].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  return answer;
}

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
    assert.deepEqual(sortedNotes(wasm), sortedNotes(run(args, cwd)));
    // ZeRO-3 from the JSON, the trainer's loop from the YAML (tests/fixtures/configs/<folder>/expected.json).
    assert.equal(wasm.document.parallel.zero_stage, 3);
    assert.equal(wasm.document.framework, 'hf_trainer');
  });
}

test('bad requests come back as error documents', () => {
  assert.equal(JSON.parse(engine.import('{')).error.code, 'invalid_json');
  assert.equal(JSON.parse(engine.import('{"files": []}')).error.code, 'missing_field');
  const broken = JSON.parse(engine.import(JSON.stringify({ files: [{ name: 'ds.json', text: '{\n "a": 1,\n "b" 2}' }] })));
  assert.equal(broken.error.code, 'invalid_json');
  assert.match(broken.error.message, /line 3, column/);
});
