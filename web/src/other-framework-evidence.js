// Why the import took a file for another framework's (engine/src/import/other_frameworks.cpp: the
// `evidence` param of unknown_config_format, in English), in Simplified Chinese. Evidence that is a
// program or flag name alone ("--lora_dim", "litgpt/finetune/lora.py") reads the same in both
// languages and is shown as given.
import { wordReason } from './reason-tables.js';

/** @type {Record<string, string>} */
export const EVIDENCE_ZH = {
  'top-level trainer:, model: and exp_manager:': '顶层的 trainer:、model: 和 exp_manager:',
  'checkpoint_dir: with LitGPT\'s train:/lora_r: keys or class_path: litgpt.…': 'checkpoint_dir: 以及 LitGPT 的 train:/lora_r: 键，或 class_path: litgpt.…',
  'trainer: with model:/data: and seed_everything: or class_path:': 'trainer: 以及 model:/data:，再加 seed_everything: 或 class_path:',
  "MaxText's base.yml keys (base_emb_dim, per_device_batch_size, ici_*_parallelism, ...)": 'MaxText 的 base.yml 键（base_emb_dim、per_device_batch_size、ici_*_parallelism 等）',
  'model: with peft_config:, dist_config: or kernel_config: (the v1 trainer, USE_V1=1)': 'model: 以及 peft_config:、dist_config: 或 kernel_config:（v1 训练器，USE_V1=1）',
  'train_type:, tuner_type: or rlhf_type: with model:/dataset:': 'train_type:、tuner_type: 或 rlhf_type:，以及 model:/dataset:',
  'top-level general:, parallelism: and tokens: (or data_stages:)': '顶层的 general:、parallelism: 和 tokens:（或 data_stages:）',
  '--zero_stage with --data_split': '--zero_stage 和 --data_split',
  '--zero_stage with a bare --deepspeed': '--zero_stage 和不带参数的 --deepspeed',
  'Hydra overrides trainer.…= and model.…=': 'Hydra 覆盖参数 trainer.…= 和 model.…=',
  '--trainer.… flags': '--trainer.… 参数',
};

/** @type {import('./reason-tables.js').ReasonPatterns} */
const PATTERNS_ZH = [
  [/^the (\S+) (\S+) command$/, (m) => m[1] + ' ' + m[2] + ' 命令'],
  [/^the colossalai (\S+) launcher$/, (m) => 'colossalai ' + m[1] + ' 启动器'],
];

/**
 * The evidence in Simplified Chinese; a program or flag name as given.
 * @param {string} evidence
 * @returns {string}
 */
export function evidenceZh(evidence) {
  return wordReason(EVIDENCE_ZH, PATTERNS_ZH, evidence) ?? evidence;
}
