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
  lora: (d) => method(d) === 'lora' || method(d) === 'qlora',
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

/**
 * The estimate document the engine sees: blocks that do not apply to the chosen method are left
 * out, and so are the panel's solve options.
 * @param {Doc} doc
 * @returns {Doc}
 */
export function effectiveDoc(doc) {
  const d = clone(doc);
  delete d.solve;
  if (!SHOW.lora(d)) delete d.lora;
  if (!SHOW.qlora(d)) delete d.qlora;
  if (!SHOW.freeze(d)) delete d.freeze;
  if (!SHOW.rlhf(d)) delete d.rlhf;
  else {
    if (!SHOW.reward(d)) delete d.rlhf.reward;
    if (!SHOW.critic(d)) delete d.rlhf.critic;
    if (!SHOW.rollout(d)) delete d.rlhf.rollout;
  }
  if (!SHOW.selective(d)) delete d.selective_policy;
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
