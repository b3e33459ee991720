// Which inputs apply to the document: the controls shown and the estimate document sent.
import { clone, getPath } from './doc-paths.js';

/** @typedef {import('./doc-paths.js').Doc} Doc */

/** @param {Doc} d */
const method = (d) => d.method || 'full';
/** @param {Doc} d */
const algorithm = (d) => (d.rlhf && d.rlhf.algorithm) || '';

// A group with data-show="name" is shown when SHOW[name](document).
/** @type {Record<string, (d: Doc) => boolean>} */
export const SHOW = {
  model_count: (d) => !!d.model && 'num_parameters' in d.model,
  // A PPO critic trained with LoRA takes its adapters from the lora block too (the engine's rlhf.cpp).
  lora: (d) => method(d) === 'lora' || method(d) === 'qlora' || (algorithm(d) === 'ppo' && getPath(d, 'rlhf.critic.method') === 'lora'),
  qlora: (d) => method(d) === 'qlora',
  freeze: (d) => method(d) === 'freeze',
  rlhf: (d) => algorithm(d) !== '',
  grpo: (d) => algorithm(d) === 'grpo',  // reference "none" (TRL GRPO's beta 0.0) is GRPO's only
  reward: (d) => algorithm(d) === 'ppo' || algorithm(d) === 'grpo',
  reward_count: (d) => !!getPath(d, 'rlhf.reward.model') && 'num_parameters' in getPath(d, 'rlhf.reward.model'),
  critic: (d) => algorithm(d) === 'ppo',
  critic_count: (d) => !!getPath(d, 'rlhf.critic.model') && 'num_parameters' in getPath(d, 'rlhf.critic.model'),
  rollout: (d) => algorithm(d) === 'ppo' || algorithm(d) === 'grpo',
  vllm: (d) => algorithm(d) === 'grpo' && getPath(d, 'rlhf.rollout.use_vllm') === true && getPath(d, 'rlhf.rollout.colocated') !== false,
  selective: (d) => d.activation_checkpointing === 'selective',
  pipeline: (d) => getPath(d, 'parallel.pipeline_parallel_size') > 1,
  context: (d) => getPath(d, 'parallel.context_parallel_size') > 1,
  custom_gpu: (d) => !!d.gpu && typeof d.gpu === 'object',
};

// The blocks a setup may leave out, each with the group (SHOW) that uses it; a block inside another
// (rlhf.reward inside rlhf) after it.
const BLOCKS = /** @type {const} */ ([['lora', 'lora'], ['qlora', 'qlora'], ['freeze', 'freeze'], ['rlhf', 'rlhf'],
  ['rlhf.reward', 'reward'], ['rlhf.critic', 'critic'], ['rlhf.rollout', 'rollout'], ['selective_policy', 'selective']]);

/**
 * The blocks of a document that its setup does not use (the LoRA settings under full fine-tuning,
 * a rollout without an RLHF algorithm): each block's path and the group that would use it, the
 * outermost only (rlhf, not also rlhf.rollout).
 * @param {Doc} doc
 * @returns {{path: string, group: string}[]}
 */
export function unusedBlocks(doc) {
  /** @type {{path: string, group: string}[]} */
  const out = [];
  for (const [path, group] of BLOCKS) {
    if (getPath(doc, path) === undefined || SHOW[group](doc)) continue;
    if (out.some((b) => path.startsWith(b.path + '.'))) continue;
    out.push({ path, group });
  }
  return out;
}

/**
 * The estimate document the engine sees: blocks that do not apply to the chosen method are left
 * out, and so are the panel's solve options.
 * @param {Doc} doc
 * @returns {Doc}
 */
export function effectiveDoc(doc) {
  const d = clone(doc);
  delete d.solve;
  for (const { path } of unusedBlocks(doc)) {
    const keys = path.split('.');
    const parent = keys.length > 1 ? getPath(d, keys.slice(0, -1).join('.')) : d;
    delete parent[keys[keys.length - 1]];
  }
  return d;
}

/**
 * What the link carries: the estimate document and the panel's solve options.
 * @param {Doc} doc
 * @returns {Doc}
 */
export function linkDoc(doc) {
  const d = effectiveDoc(doc);
  if (doc.solve) d.solve = clone(doc.solve);
  return d;
}
