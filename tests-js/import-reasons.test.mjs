// The import's most common notes and its "another framework's file" errors in Simplified Chinese:
// unset script variables, DeepSpeed's "auto" values, a key no dataclass defines, the sequence
// length no file gives, DeepSpeed's bucket settings (web/src/import-note-reasons.js), and the
// evidence that names another framework (web/src/other-framework-evidence.js), each read from the
// CLI's real output or the engine's source.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { noteReasonZh } from '../web/src/import-note-reasons.js';
import { EVIDENCE_ZH, evidenceZh } from '../web/src/other-framework-evidence.js';
import { messageText } from '../web/src/messages.js';

const ENGLISH_SENTENCE = /[A-Za-z]{4,} [a-z]{3,} [a-z]{3,}/;
const cli = new URL('../build-native/trainmem', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'import-reasons-'));

/** `trainmem import [--model ID] FILE` of a file written with `text`: the CLI's answer. */
function imported(name, text, model) {
  const file = join(dir, name);
  writeFileSync(file, text);
  try {
    return JSON.parse(execFileSync(cli, ['import', ...(model ? ['--model', model] : []), file]).toString());
  } catch (e) {
    return JSON.parse(/** @type {{stdout: Buffer}} */ (e).stdout.toString());  // exit 2 with the error document
  }
}

test("a launch line's unset variables and unknown keys, and a DeepSpeed JSON's \"auto\" values, read in Chinese", () => {
  const line = imported('run.sh', 'torchrun --nproc_per_node $GPUS train.py --model_name_or_path meta-llama/Llama-3.1-8B ' +
    '--per_device_train_batch_size $BS --max_length $SEQ --per_device_train_batchsize 4\n');
  const ds = imported('ds.json', JSON.stringify({
    train_micro_batch_size_per_gpu: 'auto', gradient_accumulation_steps: 'auto', bf16: { enabled: 'auto' },
    zero_optimization: { stage: 2, stage3_prefetch_bucket_size: 'auto' },
  }), 'llama-3.1-8b');
  const notes = [line, ds].flatMap((r) => [...r.ignored, ...r.unmodelled, ...r.unresolved]);
  /** @param {RegExp} english */
  const worded = (english) => {
    const matching = notes.filter((n) => english.test(n.reason));
    assert.ok(matching.length > 0, 'no note ' + english);
    for (const n of matching) {
      const zh = noteReasonZh(n.reason);
      assert.ok(zh && /[\u4e00-\u9fff]/.test(zh), n.reason);
      assert.doesNotMatch(zh, ENGLISH_SENTENCE, zh);
    }
    return matching.map((n) => /** @type {string} */ (noteReasonZh(n.reason)));
  };
  const variables = worded(/is a variable the script does not set/);
  assert.equal(variables.length, 4);  // $GPUS for the GPUs per node and the world size, $BS, $SEQ
  assert.ok(variables.some((zh) => zh.includes('--max_length $SEQ：$SEQ 是脚本中没有设置的变量：不做猜测')), variables.join('\n'));
  const unknown = worded(/^not a field of /);
  assert.ok(unknown[0].includes('是否想写 per_device_train_batch_size？'), unknown[0]);
  assert.ok(unknown[0].endsWith('未读取：per_device_train_batch_size 保持默认值'), unknown[0]);
  worded(/^"auto": the HF Trainer fills it/);
  assert.deepEqual(worded(/^"auto": the HF Trainer sets it/), ['"auto"：由 HF Trainer 根据它的 bf16 参数设置（transformers integrations/deepspeed.py）；给出的文件都没有说明 bf16 是否开启']);
  worded(/^no given file sets the sequence length/);
  worded(/^communication buckets \/ partitioning detail/);
  // ZeRO-2 in a DeepSpeed JSON, and a torchtune config alone: no file gives the GPU count.
  assert.deepEqual(worded(/shards over the data-parallel GPUs and no file gives their number/).map((zh) => zh.slice(0, 12)), ['ZeRO stage 2']);
  const recipe = JSON.parse(execFileSync(cli, ['import', new URL('fixtures/configs/torchtune/1.5B_lora.yaml', new URL('../tests/', import.meta.url)).pathname]).toString());
  const count = recipe.unresolved.find((n) => n.key === 'parallel.world_size');
  const zh = noteReasonZh(count.reason);
  assert.ok(zh && zh.startsWith('torchtune 配置中没有 GPU 数量') && zh.includes('这次运行至少需要 1 个 GPU'), String(zh));
  assert.doesNotMatch(zh, ENGLISH_SENTENCE, zh);
});

test("another framework's file is named in Chinese with its evidence", () => {
  const nemo = imported('nemo.yaml', 'trainer:\n  devices: 8\nmodel:\n  micro_batch_size: 1\nexp_manager:\n  name: x\n');
  const lightning = imported('run.sh', 'python train.py fit --trainer.devices 8 --model.lr 1e-4\n');
  for (const r of [nemo, lightning]) {
    assert.equal(r.error.code, 'unknown_config_format');
    const zh = messageText(r.error, 'zh');
    assert.doesNotMatch(zh, ENGLISH_SENTENCE, zh);
    assert.ok(zh.includes(evidenceZh(r.error.params.evidence)), zh);
  }
  assert.ok(messageText(nemo.error, 'zh').includes('顶层的 trainer:、model: 和 exp_manager:'));
  assert.equal(evidenceZh('the swift sft command'), 'swift sft 命令');
  assert.equal(evidenceZh('--lora_dim'), '--lora_dim');  // a flag reads the same in both languages
});

test('every evidence the engine writes reads without an English sentence in Chinese, and every wording is one it writes', () => {
  const source = readFileSync(new URL('../engine/src/import/other_frameworks.cpp', import.meta.url), 'utf8');
  // The marker table's evidence ({"Framework", "evidence", ...}) and OtherFramework{...}'s literal
  // evidence; the ones built around a word are worded by pattern (checked above).
  const written = [
    ...[...source.matchAll(/^\s*\{"[^"]+", "((?:[^"\\]|\\.)+)",/gm)].map((m) => m[1]),
    ...[...source.matchAll(/OtherFramework\{"[^"]+", ((?:"[^"]*"(?: : )?|[^"{}]+?)+)\}/g)]
      .flatMap((m) => m[1].includes('+') ? [] : [...m[1].matchAll(/"([^"]*)"/g)].map((l) => l[1])),
  ];
  assert.ok(written.length >= 8 + 4, String(written.length));
  // A program or flag name ("--lora_dim", "run_train.py --config-file") or a key and its value
  // ("_target_: nemo.…") reads the same in Chinese; any other evidence has a Chinese wording.
  const nameLike = /^(?:[\w.\/-]+ )?--[\w.\-]+$|^\w+: [\w.…]+$/;
  for (const e of written) {
    if (nameLike.test(e)) assert.equal(evidenceZh(e), e);
    else assert.notEqual(evidenceZh(e), e, 'no Chinese wording: ' + e);
    assert.doesNotMatch(evidenceZh(e), ENGLISH_SENTENCE, e);
  }
  for (const e of Object.keys(EVIDENCE_ZH)) assert.ok(written.includes(e), 'not evidence the engine writes: ' + e);
});
