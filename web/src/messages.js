// The engine's errors, warnings and solve reasons ({code, field, message, params}) in the page's language. Every
// code the engine can emit (engine/include/trainmem/message_codes.hpp; `trainmem codes` lists them)
// is worded here in English and Simplified Chinese from its params and field alone. In English the
// page shows the engine's own message, written where the problem was found (it names details a
// code's params may not carry); the English wording stands in where a message is empty. Numbers
// keep thousands separators; memory sizes (a strategy's headroom, what checkpointing frees) are in
// the unit the page shows (GiB or GB), a document's size a count of bytes, as the
// import panel words it. tests-js/messages.test.mjs checks that every registered
// code has both wordings.
import { STRINGS, language, t } from './i18n.js';
import { formatBytes, formatCount, formatPercent } from './format.js';
import { REASON_WORDINGS } from './message-reasons.js';
import { errorText } from './error-text.js';
import { evidenceZh } from './other-framework-evidence.js';

/** @typedef {{code: string, field?: string, message?: string, params?: Record<string, unknown>}} EngineMessage */
/** @typedef {import('./format.js').Unit} Unit */

/**
 * What a wording reads: the params as given, the field, and formatters (n a count, s a string,
 * b bytes in the page's unit, pct a fraction as a percentage).
 * @typedef {{p: Record<string, any>, field: string, n: (key: string) => string, s: (key: string) => string,
 *   b: (key: string) => string, pct: (key: string) => string, has: (key: string) => boolean}} Ctx
 */
/** @typedef {{en: (c: Ctx) => string, zh: (c: Ctx) => string}} Wording */

/** JSON type names (nlohmann's type_name) and the engine's expected kinds in Chinese. */
/** A string given where a number or an integer belongs, with its text. @param {Ctx} c */
const textForNumber = (c) => c.has('value') && c.s('got') === 'string' && (c.s('expected') === 'number' || c.s('expected') === 'integer');
/** @type {Record<string, string>} */
const TYPE_ZH = { number: '数字', integer: '整数', boolean: '布尔值（true 或 false）', string: '字符串', object: '对象', array: '数组', null: 'null' };

/** What of a setup has no TPU back end (tpu_unsupported_software's params.part_ids), and why, by library. */
/** @type {Record<string, {en: string, zh: string, library: string}>} */
const TPU_PARTS = {
  bitsandbytes_4bit_base: { en: 'bitsandbytes 4-bit base', zh: 'bitsandbytes 4 位量化基座', library: 'bitsandbytes' },
  bitsandbytes_8bit_base: { en: 'bitsandbytes 8-bit base', zh: 'bitsandbytes 8 位量化基座', library: 'bitsandbytes' },
  hqq_base: { en: 'HQQ base', zh: 'HQQ 量化基座', library: 'hqq' },
  bitsandbytes_paged_optimizer: { en: 'bitsandbytes paged optimizer', zh: 'bitsandbytes 分页优化器', library: 'bitsandbytes' },
  bitsandbytes_8bit_optimizer: { en: 'bitsandbytes 8-bit optimizer', zh: 'bitsandbytes 8 位优化器', library: 'bitsandbytes' },
  liger_kernel: { en: 'Liger Kernel', zh: 'Liger Kernel', library: 'liger' },
  deepspeed: { en: 'DeepSpeed', zh: 'DeepSpeed', library: 'deepspeed' },
  megatron: { en: 'Megatron-LM', zh: 'Megatron-LM', library: 'megatron' },
};
/** @type {Record<string, {en: string, zh: string}>} */
const TPU_WHY = {
  bitsandbytes: { en: 'bitsandbytes: NVIDIA, AMD, Intel and Gaudi devices', zh: 'bitsandbytes 支持 NVIDIA、AMD、Intel 和 Gaudi 设备' },
  hqq: { en: 'transformers\' HQQ quantizer: CUDA', zh: 'transformers 的 HQQ 量化器需要 CUDA' },
  liger: { en: 'Liger Kernel: CUDA, ROCm, Intel XPU and Ascend NPU', zh: 'Liger Kernel 支持 CUDA、ROCm、Intel XPU 和昇腾 NPU' },
  deepspeed: { en: 'DeepSpeed: no XLA accelerator', zh: 'DeepSpeed 没有 XLA 加速器' },
  megatron: { en: 'Megatron-LM: CUDA', zh: 'Megatron-LM 需要 CUDA' },
};
/** The known part ids of the message, in its order. @param {Ctx} c */
const tpuIds = (c) => String(c.p.part_ids || '').split(',').filter((id) => id in TPU_PARTS);
/** The parts named in a language; the engine's English names where it gave no ids. @param {Ctx} c @param {'en' | 'zh'} lang */
const tpuParts = (c, lang) => (tpuIds(c).length ? tpuIds(c).map((id) => TPU_PARTS[id][lang]).join(lang === 'zh' ? '、' : ', ') : c.s('parts'));
/** Why each library of the parts has no TPU back end. @param {Ctx} c @param {'en' | 'zh'} lang */
const tpuWhy = (c, lang) => [...new Set(tpuIds(c).map((id) => TPU_PARTS[id].library))].map((l) => TPU_WHY[l][lang]).join(lang === 'zh' ? '；' : '; ');

/** @type {Record<string, string>} */
const TIME_REASON_EN = {
  no_architecture: 'the step time needs an architecture: give model.preset or model.hf_config',
  no_gpu: 'the step time needs a gpu',
  rlhf: 'PPO and GRPO jobs are not timed yet (their rollout generation)',
  no_gpu_speeds: "the step time needs the GPU's dense bf16 FLOP/s and memory bandwidth",
  not_finite: 'the step time of this setup is out of range',
};
/** @type {Record<string, string>} */
const TIME_REASON_ZH = {
  no_architecture: '计算步时需要模型结构：请选择 model.preset 或提供 model.hf_config',
  no_gpu: '计算步时需要选择 GPU',
  rlhf: 'PPO 与 GRPO 任务暂不计算步时（其 rollout 生成）',
  no_gpu_speeds: '计算步时需要该 GPU 的 bf16 稠密算力（FLOP/s）和显存带宽',
  not_finite: '此设置的步时超出可计算的范围',
};

/**
 * "; did you mean "x"?" in each language, when the engine found a near match, or the catalog ids a
 * name could mean, when it names several.
 * @param {Ctx} c
 */
const didYouMean = {
  en: (/** @type {Ctx} */ c) => (c.has('suggestion') ? '; did you mean "' + c.s('suggestion') + '"?'
    : c.has('candidates') ? '; it names several: ' + c.s('candidates') : ''),
  zh: (/** @type {Ctx} */ c) => (c.has('suggestion') ? '；是否想输入“' + c.s('suggestion') + '”？'
    : c.has('candidates') ? '；它可指多个条目：' + c.s('candidates') : ''),
};

/** What can still lower the peak where micro-batch 1 does not fit (the solver's params.actions). */
const MB1_ACTIONS = {
  en: { shorter_sequence: 'shorten the sequence', checkpointing: 'checkpoint activations', zero_1: 'shard the optimizer states (ZeRO-1)',
    zero_2: 'shard the optimizer states and gradients (ZeRO-2)', zero_3: 'shard more (ZeRO-3)', more_gpus: 'add GPUs',
    offload: 'offload the optimizer to the CPU', lora: 'train LoRA/QLoRA adapters', larger_gpu: 'use a GPU with more memory' },
  zh: { shorter_sequence: '缩短序列', checkpointing: '开启激活检查点', zero_1: '切分优化器状态（ZeRO-1）', zero_2: '切分优化器状态与梯度（ZeRO-2）',
    zero_3: '加大切分（ZeRO-3）', more_gpus: '增加 GPU',
    offload: '将优化器卸载到 CPU', lora: '改用 LoRA/QLoRA 适配器', larger_gpu: '换用显存更大的 GPU' },
};
/** What no_gpu_count_fits' params.actions leaves to try, as words. */
const LEFT_TO_TRY = {
  en: { offload: 'offload', lora: 'LoRA/QLoRA', checkpointing: 'checkpointing', shorter_sequence: 'a shorter sequence' },
  zh: { offload: '卸载', lora: 'LoRA/QLoRA', checkpointing: '激活检查点', shorter_sequence: '缩短序列' },
};
/**
 * params.actions' codes in words, the last joined by `last`; an unknown code as written.
 * @param {Ctx} c @param {Record<string, string>} words @param {string} sep @param {string} last
 */
function joinActions(c, words, sep, last) {
  const parts = c.s('actions').split(' ').filter(Boolean).map((a) => words[a] || a);
  return parts.length < 2 ? parts.join('') : parts.slice(0, -1).join(sep) + last + parts[parts.length - 1];
}
/** @type {Record<string, Wording>} */
export const WORDINGS = {
  // ---- errors: documents and fields ----
  invalid_json: { en: () => 'not valid JSON', zh: () => '不是有效的 JSON（请检查语法）' },
  duplicate_key: {
    en: (c) => (c.has('key') ? position(c, 'en') + 'the key "' + c.s('key') + '" appears more than once in its mapping' : 'appears more than once in its object'),
    zh: (c) => (c.has('key') ? position(c, 'zh') + '键“' + c.s('key') + '”在同一映射中出现了不止一次' : '在同一对象中出现了不止一次'),
  },
  document_too_large: {
    en: (c) => (!c.has('limit') ? 'is too large' : c.has('bytes') ? 'is ' + c.n('bytes') + ' bytes; the limit is ' + c.n('limit') + ' bytes'
      : 'is larger than the limit of ' + c.n('limit') + ' bytes'),
    zh: (c) => (!c.has('limit') ? '文件过大' : c.has('bytes') ? '有 ' + c.n('bytes') + ' 字节，超过上限 ' + c.n('limit') + ' 字节'
      : '超过大小上限 ' + c.n('limit') + ' 字节'),
  },
  unknown_field: { en: (c) => 'unknown field' + didYouMean.en(c), zh: (c) => '未知字段' + didYouMean.zh(c) },
  missing_field: { en: () => 'a required field is missing', zh: () => '缺少必填项' },
  wrong_type: {
    // Text where a number belongs (what a form field holds when its text is not a number: "4,096"):
    // said so, with the text, rather than as a JSON type.
    en: (c) => (textForNumber(c) ? 'expected ' + c.s('expected') + ': ' + c.s('value') + ' is not a number'
      : 'has the wrong type' + (c.has('expected') ? ': expected ' + c.s('expected') : '') + (c.has('got') ? ', got ' + c.s('got') : '')
        + (c.has('entries') ? ' of ' + c.n('entries') + ' entries' : '') + (c.has('value') ? ' ' + c.s('value') : '')),
    zh: (c) => (textForNumber(c) ? '应为' + TYPE_ZH[c.s('expected')] + '：' + c.s('value') + ' 不是数字'
      : '类型不对' + (c.has('expected') ? '：应为' + (TYPE_ZH[c.s('expected')] || c.s('expected')) : '')
        + (c.has('got') ? '，实际为' + (TYPE_ZH[c.s('got')] || c.s('got')) : '') + (c.has('entries') ? '（' + c.n('entries') + ' 项）' : '')
        + (c.has('value') ? ' ' + c.s('value') : '')),
  },
  not_integer: {
    en: (c) => (c.has('value') ? c.s('value') + ' is not a whole number' : 'must be a whole number'),
    zh: (c) => '必须是整数' + (c.has('value') ? '（收到 ' + c.s('value') + '）' : ''),
  },
  out_of_range: {
    en: (c) => (c.has('entries') ? 'has ' + c.n('entries') + ' entries; the limit is ' + c.n('limit')
      : bytesRange(c) ? c.b('value') + ' is out of range (' + (Number(c.p.value) > Number(c.p.max) ? 'at most ' + c.b('max') : 'at least ' + bytesFloor(c)) + ')'
      : (c.has('value') ? c.s('value') + ' is out of range' : 'is out of range') + range(c, 'en')
        + (c.has('limit') ? ' (the limit is ' + c.n('limit') + ')' : '')),
    zh: (c) => (c.has('entries') ? '有 ' + c.n('entries') + ' 项，上限为 ' + c.n('limit') + ' 项'
      : bytesRange(c) ? '取值 ' + c.b('value') + ' 超出范围（' + (Number(c.p.value) > Number(c.p.max) ? '至多 ' + c.b('max') : '至少 ' + bytesFloor(c)) + '）'
      : (c.has('value') ? '取值 ' + c.s('value') + ' 超出范围' : '取值超出范围') + range(c, 'zh')
        + (c.has('limit') ? '（上限为 ' + c.n('limit') + '）' : '')),
  },
  // A number given (qlora.nbits = 7) is named as a number, a name in quotes.
  unknown_value: {
    en: (c) => (c.has('value') ? (typeof c.p.value === 'number' ? '= ' + c.n('value') : '"' + c.s('value') + '"') + ' is not one of: ' + c.s('allowed') + didYouMean.en(c) : 'is not one of the allowed values'),
    zh: (c) => (c.has('value') ? (typeof c.p.value === 'number' ? '= ' + c.n('value') + ' ' : '“' + c.s('value') + '”') + '不是可选值之一，可选：' + c.s('allowed') + didYouMean.zh(c) : '不是可选值之一'),
  },
  // ---- errors: cross-field checks and catalogs ----
  not_divisible: {
    en: (c) => (c.has('world_size') ? 'world_size = ' + c.n('world_size') + ' is not a multiple of tensor x pipeline x context parallel = ' + c.n('model_parallel')
      : c.has('divisor') ? c.n('divisor') + ' must divide ' + c.s('of') + ' = ' + c.n('value') : 'does not divide evenly'),
    zh: (c) => (c.has('world_size') ? 'world_size = ' + c.n('world_size') + ' 不是张量 × 流水线 × 上下文并行规模 = ' + c.n('model_parallel') + ' 的倍数'
      : c.has('divisor') ? c.n('divisor') + ' 必须整除 ' + c.s('of') + ' = ' + c.n('value') : '取值之间不能整除（并行规模或尺寸须整除相应的维度）'),
  },
  inconsistent: { en: () => 'conflicts with other settings', zh: () => '与其他设置相互矛盾，请检查相关设置' },
  unknown_preset: {
    en: (c) => (c.has('value') ? '"' + c.s('value') + '" is not in the model catalog' + didYouMean.en(c) : 'not in the model catalog'),
    zh: (c) => (c.has('value') ? '模型目录中没有“' + c.s('value') + '”' + didYouMean.zh(c) : '模型目录中没有这个模型'),
  },
  unknown_gpu: {
    en: (c) => (c.has('value') ? '"' + c.s('value') + '" is not in the GPU catalog' + didYouMean.en(c) : 'not in the GPU catalog'),
    zh: (c) => (c.has('value') ? 'GPU 目录中没有“' + c.s('value') + '”' + didYouMean.zh(c) : 'GPU 目录中没有这个 GPU'),
  },
  unsupported_model_type: {
    en: (c) => 'this model_type has no family layout here' + (c.has('model_type') ? ': "' + c.s('model_type') + '"' : '') + (c.has('suggestion') ? ' (closest: "' + c.s('suggestion') + '")' : ''),
    zh: (c) => '此 model_type 在这里没有对应的模型结构' + (c.has('model_type') ? '：“' + c.s('model_type') + '”' : '') + (c.has('suggestion') ? '（最接近的是“' + c.s('suggestion') + '”）' : ''),
  },
  unsupported: { en: () => 'this setup is not supported', zh: () => '不支持此设置' },
  invalid_catalog: {
    en: (c) => (c.has('file') ? 'the catalog file ' + c.s('file') + ' is invalid' : 'an invalid catalog entry') + catalogProblem(c, 'en'),
    zh: (c) => (c.has('file') ? '目录文件 ' + c.s('file') + ' 有误' : '目录条目无效') + catalogProblem(c, 'zh'),
  },
  internal: { en: () => 'an internal error of the engine (a defect: please report it)', zh: () => '引擎内部错误（这是程序缺陷，请报告）' },
  // ---- errors: trainer configuration import ----
  unknown_config_format: {
    en: (c) => (c.has('framework') ? otherFramework('en', c) : 'not a configuration format the import reads'),
    zh: (c) => (c.has('framework') ? otherFramework('zh', c) : '无法识别的配置文件格式'),
  },
  conflicting_values: { en: () => 'the files give this setting different values', zh: () => '多个文件对同一设置给出了不同的值' },
  model_config_needed: {
    en: (c) => (c.has('value') ? '"' + c.s('value') + '" is not in the model catalog' + (c.has('suggestion') ? ' (nearest: "' + c.s('suggestion') + '")' : '') + ': give its config.json beside the other files, or choose a catalog model for it'
      : "the files describe a model the import cannot build: give the model's config.json"),
    zh: (c) => (c.has('value') ? '“' + c.s('value') + '”不在模型目录中' + (c.has('suggestion') ? '（最接近的是“' + c.s('suggestion') + '”）' : '') + '：请同时提供它的 config.json，或为它选择目录中的模型'
      : '这些文件描述的模型无法由导入构建：请提供模型的 config.json'),
  },
  invalid_yaml: { en: (c) => position(c, 'en') + 'not valid YAML', zh: (c) => position(c, 'zh') + '不是有效的 YAML' },
  invalid_toml: { en: (c) => position(c, 'en') + 'not valid TOML', zh: (c) => position(c, 'zh') + '不是有效的 TOML' },
  invalid_encoding: {
    en: (c) => position(c, 'en') + (c.has('byte') ? 'byte ' + c.s('byte') + ' is not UTF-8; save the file as UTF-8' : 'not UTF-8 text'),
    zh: (c) => position(c, 'zh') + (c.has('byte') ? '字节 ' + c.s('byte') + ' 不是 UTF-8 编码；请将文件另存为 UTF-8' : '不是 UTF-8 编码的文本'),
  },
  unresolved_value: {
    en: (c) => 'set from a variable the script does not set' + (c.has('origin') ? ' (' + c.s('origin') + ')' : ''),
    zh: (c) => '取决于脚本中未设置的变量，无法确定' + (c.has('origin') ? '（' + c.s('origin') + '）' : ''),
  },
  // ---- warnings ----
  ignored_fields: {
    en: (c) => 'given but without effect for this setup: ' + c.s('fields'),
    zh: (c) => '以下字段已给出，但对此设置不起作用：' + (c.has('paths') ? c.s('paths') : c.s('fields')),
  },
  lora_targets_assumed: {
    en: (c) => 'PEFT has no default target_modules for model_type "' + c.s('model_type') + '" and refuses a LoraConfig without them; this estimate assumed [' + c.s('targets') + ']: give lora.target_modules',
    zh: (c) => 'PEFT 没有为 model_type“' + c.s('model_type') + '”提供默认的 target_modules，缺少它们时会拒绝 LoraConfig；本估算假定为 [' + c.s('targets') + ']：请设置 lora.target_modules',
  },
  generic_layout: {
    en: (c) => c.s('assumptions'),
    zh: (c) => 'model_type“' + c.s('model_type') + '”的部分结构未在配置中给出或在此没有专门定义：按通用 Transformer 结构推定' +
      (c.has('parameters') ? '；按此结构共 ' + c.n('parameters') + ' 个参数，请与模型卡给出的参数量比对' : ''),
  },
  beyond_context: {
    en: (c) => 'seq_length ' + c.n('seq_length') + ' exceeds max_position_embeddings ' + c.n('max_position_embeddings') + ': the model needs context extension (e.g. RoPE scaling)',
    zh: (c) => 'seq_length ' + c.n('seq_length') + ' 超过 max_position_embeddings ' + c.n('max_position_embeddings') + '：模型需要上下文扩展（例如 RoPE 缩放）',
  },
  flash_unsupported: {
    en: (c) => c.s('model_type') + ' adds a relative position bias to the attention scores, which FlashAttention kernels do not take: expect eager or sdpa attention (choose attention "eager")',
    zh: (c) => c.s('model_type') + ' 在注意力分数上加相对位置偏置，FlashAttention 内核不支持：实际会使用 eager 或 sdpa 注意力（请将 attention 设为“eager”）',
  },
  lora_rank_exceeds_model: {
    en: (c) => 'lora.r = ' + c.n('r') + ' gives ' + c.n('adapter_parameters') + " adapter parameters, more than the model's " + c.n('parameters') + ': a rank this high trains more than full fine-tuning (typical ranks are 8 to 256)',
    zh: (c) => 'lora.r = ' + c.n('r') + ' 产生 ' + c.n('adapter_parameters') + ' 个适配器参数，多于模型本身的 ' + c.n('parameters') + ' 个：秩这么高，训练的参数比全量微调还多（常用的秩为 8 到 256）',
  },
  model_states_only: {
    en: () => 'only a parameter count was given: activations, buffers and the peak need an architecture (model.preset or model.hf_config); the figures are the model-state lower bound',
    zh: () => '只给出了参数量：激活、临时缓冲区和峰值需要模型结构（model.preset 或 model.hf_config）；这些数字是模型状态的下限',
  },
  adapters_need_architecture: {
    en: () => 'LoRA on a parameter count: the adapters, their gradients and optimizer states are not counted (their size needs the architecture); under QLoRA every weight is priced at the quantized width, although embeddings, norms and the output head stay 16-bit',
    zh: () => '只给参数量时的 LoRA：适配器及其梯度和优化器状态未计入（其大小需要模型结构）；QLoRA 下所有权重都按量化宽度计价，但实际训练中嵌入层、归一化层和输出头仍为 16 位',
  },
  zero_does_not_shard_activations: {
    en: () => 'ZeRO/FSDP shard parameters, gradients and optimizer states, not activations: activations shrink only with micro-batch, sequence length, checkpointing or sequence/context parallelism',
    zh: () => 'ZeRO/FSDP 切分参数、梯度和优化器状态，但不切分激活：激活只随微批大小、序列长度、激活检查点或序列/上下文并行而减小',
  },
  global_batch_does_not_set_memory: {
    en: (c) => 'gradient accumulation raises the global batch (' + c.n('global_batch_size') + ') without raising activations: memory follows the micro-batch',
    zh: (c) => '梯度累积增大了全局批大小（' + c.n('global_batch_size') + '），但不增加激活：显存取决于微批大小',
  },
  paged_optimizer: {
    en: () => "paged optimizer states live in CUDA unified memory, outside the allocator's counts: they page out to host RAM under pressure instead of failing, so they are not in peak_allocated",
    zh: () => '分页优化器状态位于 CUDA 统一内存中，不计入分配器的统计：显存紧张时换出到主机内存而不是报错，因此不包含在 peak_allocated 中',
  },
  eight_bit_small_tensors: {
    en: (c) => 'bitsandbytes keeps 32-bit state for tensors under ' + c.n('min_8bit_size') + ' elements (min_8bit_size)',
    zh: (c) => 'bitsandbytes 对少于 ' + c.n('min_8bit_size') + ' 个元素的张量保留 32 位状态（min_8bit_size）',
  },
  fp8_not_a_saving: {
    en: () => 'FP8 training keeps weights, gradients and optimizer states in higher precision and adds FP8 copies: it does not shrink memory (TransformerEngine#1429)',
    zh: () => 'FP8 训练仍以更高精度保存权重、梯度和优化器状态，并额外保存 FP8 副本：它不会减少显存（TransformerEngine#1429）',
  },
  fp8_weights_bf16_gradients: {
    en: () => 'precision.param_dtype fp8 prices FP8-only weights (Transformer Engine fp8_model_init) with bf16 gradients: FP8 training computes gradients in 16 or 32 bits (set precision.grad_dtype to change them); for FP8 matmuls over 16-bit weights set precision.fp8_compute instead',
    zh: () => 'precision.param_dtype 为 fp8 时按仅保存 FP8 权重（Transformer Engine 的 fp8_model_init）并使用 bf16 梯度估算：FP8 训练以 16 位或 32 位计算梯度（可通过 precision.grad_dtype 修改）；若要在 16 位权重上做 FP8 矩阵乘，请改为设置 precision.fp8_compute',
  },
  sharded_checkpoint_resume: {
    en: () => 'ZeRO/FSDP checkpoints are sharded per rank: resuming on a different GPU count needs a conversion (e.g. DeepSpeed zero_to_fp32, torch.distributed.checkpoint resharding)',
    zh: () => 'ZeRO/FSDP 检查点按 rank 分片保存：换成不同数量的 GPU 恢复训练需要先转换（例如 DeepSpeed 的 zero_to_fp32，或 torch.distributed.checkpoint 重新分片）',
  },
  bf16_unsupported: {
    en: (c) => c.s('gpu') + ' has no bf16 arithmetic (compute capability below 8.0): train in fp16 (precision.param_dtype / compute_dtype "fp16", with loss scaling) or fp32',
    zh: (c) => c.s('gpu') + ' 不支持 bf16 运算（计算能力低于 8.0）：PyTorch 的 torch.cuda.is_bf16_supported() 在此为 False，HF Trainer 会拒绝 --bf16；请改用 fp16（precision.param_dtype / compute_dtype 设为“fp16”，并使用损失缩放）或 fp32',
  },
  flash_attention_unsupported: {
    en: (c) => c.s('gpu') + ' cannot run FlashAttention-2 (Ampere, Ada and Hopper only): the run uses SDPA\'s memory-efficient kernel or eager attention instead; set attention "sdpa" (or "eager") to estimate what it will keep',
    zh: (c) => c.s('gpu') + ' 无法运行 FlashAttention-2（仅支持 Ampere、Ada 和 Hopper）：实际会使用 SDPA 的省显存内核或 eager 注意力；请将 attention 设为“sdpa”（或“eager”）以估算实际占用',
  },
  fp8_unsupported: {
    en: (c) => c.s('gpu') + ' has no FP8 tensor cores (compute capability 8.9 and above: Ada, Hopper, Blackwell' + (c.p.field === 'precision.fp8_compute' || !c.has('field')
      ? '; Transformer Engine refuses FP8 below it): the activations are priced in 16 bits and the step time without FP8 matmuls; switch precision.fp8_compute off to estimate what the run will do'
      : '): ' + c.s('field') + ' fp8 has no matmul there (torch._scaled_mm needs them); set it to bf16 or fp16 to estimate what the run will do'),
    zh: (c) => c.s('gpu') + ' 没有 FP8 张量核心（需要计算能力 8.9 及以上：Ada、Hopper、Blackwell' + (c.p.field === 'precision.fp8_compute' || !c.has('field')
      ? '；Transformer Engine 在更低的设备上拒绝 FP8）：激活按 16 位估算，步时不计 FP8 矩阵乘；请关闭 precision.fp8_compute 以估算实际运行'
      : '）：' + c.s('field') + ' 为 fp8 时在该设备上没有矩阵乘（torch._scaled_mm 需要 FP8 张量核心）；请改为 bf16 或 fp16 以估算实际运行'),
  },
  flash_attention_3_unsupported: {
    en: (c) => c.s('gpu') + ' cannot run FlashAttention-3 (H100 / H800, Hopper only): the step time is priced with FlashAttention-2\'s rates, which keep the same tensors; set attention "flash" (or "sdpa") for what the run will use',
    zh: (c) => c.s('gpu') + ' 无法运行 FlashAttention-3（仅支持 Hopper：H100 / H800）：步时按 FlashAttention-2 的速率估算（两者保存的张量相同）；请将 attention 设为“flash”（或“sdpa”）以反映实际使用的内核',
  },
  tpu_unsupported_software: {
    en: (c) => c.s('gpu') + ' is a TPU: ' + tpuParts(c, 'en') + ' cannot run there (' + tpuWhy(c, 'en') + '), so the run cannot start as written; this estimate prices PyTorch\'s CUDA allocator, not XLA\'s',
    zh: (c) => c.s('gpu') + ' 是 TPU：' + tpuParts(c, 'zh') + ' 在其上无法运行（' + tpuWhy(c, 'zh') + '），按当前写法无法启动；本估算按 PyTorch 的 CUDA 分配器计算，而非 XLA 的',
  },
  unpriced_part: {
    en: (c) => c.s('field') + ' has no layout here and is left out of every figure' + (Number(c.p.parameters) > 0 ? ': about ' + c.n('parameters') + ' parameters as a generic transformer encoder of its sizes' : ': its parameters cannot be counted from its keys'),
    zh: (c) => c.s('field') + ' 在此没有结构定义，未计入任何数字' + (Number(c.p.parameters) > 0 ? '：按同尺寸的通用 Transformer 编码器估计约 ' + c.n('parameters') + ' 个参数' : '：无法从其配置键计算参数量'),
  },
  image_size_assumed: {
    en: (c) => 'vision_config gives no image_size (' + c.s('model_type') + ' takes any resolution): images priced at ' + c.n('height') + ' x ' + c.n('width') + ' pixels; set multimodal.image_size',
    zh: (c) => 'vision_config 未给出 image_size（' + c.s('model_type') + ' 接受任意分辨率）：图像按 ' + c.n('height') + ' × ' + c.n('width') + ' 像素计算；请设置 multimodal.image_size',
  },
  ssm_fused_kernels: {
    en: () => 'Mamba layers are priced as the mamba-ssm and causal-conv1d kernels save them; without those packages transformers takes a sequential path that keeps [batch, d_inner, seq, state] fp32 tensors per layer and needs far more memory',
    zh: () => 'Mamba 层按 mamba-ssm 和 causal-conv1d 内核保存的张量计算；没有这两个包时 transformers 走逐步计算的路径，每层保存 [batch, d_inner, seq, state] 的 fp32 张量，需要多得多的显存',
  },
  time_unavailable: {
    en: (c) => TIME_REASON_EN[c.s('reason')] || 'the step time cannot be computed for this setup',
    zh: (c) => TIME_REASON_ZH[c.s('reason')] || '无法为此设置计算步时',
  },
  grpo_partial_prompt_groups: {
    en: (c) => 'TRL refuses this GRPO run: its generation batch (TRL\'s default steps_per_generation, the accumulation steps), micro_batch_size x world_size x gradient_accumulation_steps = ' + c.n('micro_batch_size') + ' x ' + c.n('world_size') + ' x ' + c.n('gradient_accumulation_steps') + ' = ' + c.n('generation_batch') + ' completions, must hold whole groups of rlhf.rollout.num_generations = ' + c.n('num_generations'),
    zh: (c) => 'TRL 会拒绝此 GRPO 运行：其生成批次（按 TRL 默认 steps_per_generation 等于累积步数）micro_batch_size × world_size × gradient_accumulation_steps = ' + c.n('micro_batch_size') + ' × ' + c.n('world_size') + ' × ' + c.n('gradient_accumulation_steps') + ' = ' + c.n('generation_batch') + ' 条补全，必须包含完整的 rlhf.rollout.num_generations = ' + c.n('num_generations') + ' 条一组',
  },
  vllm_share_below_weights: {
    en: (c) => 'rlhf.rollout.vllm_gpu_memory_utilization ' + c.s('share') + ' gives vLLM ' + c.b('bytes') + ', less than the policy\'s ' + c.b('weights') + ' of weights: vLLM cannot load the model (raise the share, or run vLLM as a server)',
    zh: (c) => 'rlhf.rollout.vllm_gpu_memory_utilization 为 ' + c.s('share') + '，vLLM 只得到 ' + c.b('bytes') + '，少于策略模型权重的 ' + c.b('weights') + '：vLLM 无法加载模型（请提高比例，或把 vLLM 作为服务器运行）',
  },
  quantized_checkpoint: {
    en: (c) => 'the checkpoint is stored quantized (quantization_config.quant_method "' + c.s('quant_method') + '"); its weights are priced in the training dtype'
      + (c.s('method') === 'lora' ? ' though LoRA keeps the quantized base as stored (method "qlora" prices a 4-bit base)' : ', as a de-quantized copy'),
    zh: (c) => '该检查点以量化形式存储（quantization_config.quant_method "' + c.s('quant_method') + '"）；其权重按训练数据类型估算'
      + (c.s('method') === 'lora' ? '，但 LoRA 会保持基座为量化存储（method "qlora" 按 4 位基座估算）' : '，即反量化后的副本'),
  },
  layout_beyond_framework: {
    en: (c) => c.s('field') + ': the framework\'s own code does not offer this for the setup; it is priced as stated',
    zh: (c) => c.s('field') + '：该框架自身的代码不支持这种设置；按所给设置估算',
  },
  above_2_53: {
    en: (c) => c.s('fields') + ' exceed 2^53 = 9007199254740992: JavaScript shows them rounded',
    zh: (c) => c.s('fields') + ' 超过 2^53 = 9007199254740992：JavaScript 显示的是舍入后的值',
  },
  // ---- solve reasons and strategy explanations ----
  answer_needs_architecture: {
    en: () => 'this answer needs an architecture: give model.preset or model.hf_config',
    zh: () => '此问题需要模型结构才能回答：请选择 model.preset 或提供 model.hf_config',
  },
  answer_at_search_cap: {
    en: (c) => c.s('answer') + ' stops at the search\'s cap of ' + c.n('cap') + ': the setup fits at least that much',
    zh: (c) => c.s('answer') + ' 达到了搜索上限 ' + c.n('cap') + '：该设置至少能容纳这么多',
  },
  micro_batch_one_does_not_fit: {
    en: (c) => 'micro-batch 1 does not fit at seq_length ' + c.n('seq_length') + ': ' + joinActions(c, MB1_ACTIONS.en, ', ', ' or '),
    zh: (c) => '序列长度为 ' + c.n('seq_length') + ' 时，微批为 1 也放不下：请' + joinActions(c, MB1_ACTIONS.zh, '、', '或'),
  },
  model_states_exceed_budget: {
    en: () => 'even the shortest sequence does not fit: the model states alone exceed the budget',
    zh: () => '即使最短的序列也放不下：仅模型状态就已超出预算',
  },
  no_sequence_length_fits: {
    en: (c) => 'no sequence length fits at micro-batch ' + c.n('micro_batch_size') + ': the model states fit the budget, but at ' + c.n('seq_length')
      + ' token(s) the peak is already ' + c.b('peak') + ' against ' + c.b('budget'),
    zh: (c) => '微批为 ' + c.n('micro_batch_size') + ' 时没有放得下的序列长度：模型状态在预算之内，但序列长度为 ' + c.n('seq_length')
      + ' 时峰值已达 ' + c.b('peak') + '，预算为 ' + c.b('budget'),
  },
  band_past_gpu_at_every_count: {
    en: (c) => 'at ' + gpuCount(c, 'gpus') + ' the estimate fits the budget but its band reaches past the GPU, and no count up to ' + c.n('max_gpus') +
      ' fits with the whole band' + (Number(c.p.zero_stage) < 3 ? ' (below ZeRO-3 data parallelism does not shard the parameters: more GPUs do not shrink them)' : '') +
      '; try checkpointing, a shorter sequence, offload, LoRA/QLoRA or a larger GPU',
    zh: (c) => '在 ' + c.n('gpus') + ' 张 GPU 时估算值在预算之内，但其区间上限超出 GPU 显存；直到 ' + c.n('max_gpus') + ' 张也没有整个区间都放得下的数量' +
      (Number(c.p.zero_stage) < 3 ? '（ZeRO-3 以下数据并行不切分参数：增加 GPU 不会使其变小）' : '') +
      '；可尝试激活检查点、更短的序列、卸载、LoRA/QLoRA 或更大显存的 GPU',
  },
  no_gpu_count_fits: {
    en: (c) => 'no GPU count up to ' + c.n('max_gpus') + ' fits with this strategy' +
      (c.p.can_shard === 'true' ? ' (ZeRO stage 0 replicates everything: shard with ZeRO/FSDP)' : '') + '; try ' + joinActions(c, LEFT_TO_TRY.en, ', ', ' or '),
    zh: (c) => '在此策略下，直到 ' + c.n('max_gpus') + ' 张 GPU 都放不下' +
      (c.p.can_shard === 'true' ? '（ZeRO 阶段 0 在每张卡上复制全部状态：请用 ZeRO/FSDP 切分）' : '') + '；可尝试' + joinActions(c, LEFT_TO_TRY.zh, '、', '或'),
  },
  calibration_below_model_states: {
    en: (c) => 'calibration: the measured peak is below the model states alone (' + c.n('model_states') + ' bytes): check the measure and the setup',
    zh: (c) => '校准：实测峰值低于仅模型状态的大小（' + c.n('model_states') + ' 字节）：请检查测量口径和配置',
  },
  calibration_per_token_not_positive: {
    en: () => 'calibration: the fitted per-token part is not positive: the two points do not grow with tokens',
    zh: () => '校准：拟合出的每 token 部分不为正：两个测量点没有随 token 数增长',
  },
  calibration_fixed_part_negative: {
    en: (c) => 'calibration: the fit leaves a negative fixed part: the measurement grows with tokens at another rate than ' +
      (c.p.points === 2 ? 'its two points give' : 'the engine prices') + '; check the measure and the setup' + (c.p.points === 2 ? '' : ', or give a second point'),
    zh: (c) => '校准：拟合出的固定部分为负：测量值随 token 数增长的速率' + (c.p.points === 2 ? '与两个测量点给出的不一致' : '与引擎估算的不一致') +
      '；请检查测量口径和配置' + (c.p.points === 2 ? '' : '，或再提供一个测量点'),
  },
  calibration_fixed_part_fills_budget: {
    en: () => 'calibration: the fitted fixed part alone fills the budget',
    zh: () => '校准：仅拟合出的固定部分就已占满预算',
  },
  strategy_search_truncated: {
    en: (c) => 'the search stopped at its work budget (' + c.n('max_work') + ' pipeline stages estimated) after ' + c.n('covered_splits') + ' of ' +
      c.n('splits') + ' tensor x pipeline x context splits, up to ' + c.n('model_parallel') +
      '-way model parallelism; fewer GPUs (solve.strategies.world_size), a smaller max_micro_batch_size or include_offload false narrow it',
    zh: (c) => '搜索达到工作量上限（已估算 ' + c.n('max_work') + ' 个流水线阶段）后停止：覆盖了 ' + c.n('splits') + ' 种张量 × 流水线 × 上下文切分中的 ' +
      c.n('covered_splits') + ' 种，最高 ' + c.n('model_parallel') + ' 路模型并行；减少 GPU 数（solve.strategies.world_size）、减小 max_micro_batch_size 或将 include_offload 设为 false 可缩小搜索范围',
  },
  no_covered_strategy_fits: {
    en: () => 'no strategy covered before the search stopped fits',
    zh: () => '搜索停止前覆盖到的策略都放不下',
  },
  no_factorization: {
    en: (c) => 'no factorization of ' + gpuCount(c, 'world_size') + ' suits this model' + splitRules(c, 'en'),
    zh: (c) => c.n('world_size') + ' 张 GPU 没有适合此模型的切分方式' + splitRules(c, 'zh'),
  },
  no_factorization_keeping_global_batch: {
    en: (c) => 'no factorization of ' + gpuCount(c, 'world_size') + ' suits this model and keeps the global batch of ' + c.n('global_batch_size') +
      (Number(c.p.global_batch_size) === 1 ? ' sequence' : ' sequences') + splitRules(c, 'en'),
    zh: (c) => c.n('world_size') + ' 张 GPU 没有既适合此模型又保持全局批量 ' + c.n('global_batch_size') + ' 条序列的切分方式' + splitRules(c, 'zh'),
  },
  no_strategy_fits: {
    en: (c) => 'no strategy on ' + gpuCount(c, 'world_size') + ' fits, down to micro-batch 1 with ZeRO-' + (c.has('zero_stage') ? c.n('zero_stage') : '3') +
      (c.p.include_offload === 'true' ? ', full checkpointing and optimizer offload' : ' and full checkpointing') +
      (c.p.adapters === 'false' ? ': add GPUs or shorten the sequence' : ': add GPUs, shorten the sequence, or train fewer parameters (LoRA/QLoRA)'),
    zh: (c) => c.n('world_size') + ' 张 GPU 上没有放得下的策略，即使微批为 1 并使用 ZeRO-' + (c.has('zero_stage') ? c.n('zero_stage') : '3') +
      (c.p.include_offload === 'true' ? '、完整激活检查点和优化器卸载' : ' 和完整激活检查点') +
      (c.p.adapters === 'false' ? '：请增加 GPU 或缩短序列' : '：请增加 GPU、缩短序列或减少可训练参数（LoRA/QLoRA）'),
  },
  strategy_without_recompute: {
    en: (c) => 'no recompute; ' + c.b('headroom') + ' of headroom',
    zh: (c) => '不重算；余量 ' + c.b('headroom'),
  },
  strategy_checkpointing_frees: {
    en: (c) => (c.p.checkpointing === 'full' ? 'full' : 'selective') + ' checkpointing frees ' + c.b('freed'),
    zh: (c) => (c.p.checkpointing === 'full' ? '完整' : '选择性') + '激活检查点节省 ' + c.b('freed'),
  },
  strategies_untimed: {
    en: (c) => 'strategies are ranked by headroom: ' + (TIME_REASON_EN[c.s('reason')] || 'the step time cannot be computed for this setup'),
    zh: (c) => '策略按余量排序：' + (TIME_REASON_ZH[c.s('reason')] || '无法为此设置计算步时'),
  },
  strategy_checkpointing_frees_at_cost: {
    en: (c) => (c.p.checkpointing === 'full' ? 'full' : 'selective') + ' checkpointing frees ' + c.b('freed') + ' at +' + c.pct('step_time_increase') + ' step time',
    zh: (c) => (c.p.checkpointing === 'full' ? '完整' : '选择性') + '激活检查点节省 ' + c.b('freed') + '，步时增加 ' + c.pct('step_time_increase'),
  },
};

const SPLIT_RULES = {
  data: { en: 'data parallel must divide it', zh: '数据并行须整除全局批量' },
  tensor: { en: 'tensor parallel must divide the heads', zh: '张量并行须整除注意力头数' },
  pipeline: { en: 'pipeline parallel must split the layers as the framework does (Megatron: the layers or the layers + 2 divide; torchtitan: every stage keeps a layer)',
    zh: '流水线并行须按框架的规则切分层（Megatron：层数或层数 + 2 可被整除；torchtitan：每个阶段至少保留一层）' },
  context: { en: 'context parallel must divide the sequence', zh: '上下文并行须整除序列长度' },
  expert: { en: 'expert parallel must divide the data x context group', zh: '专家并行须整除数据 × 上下文并行组' },
};

/**
 * " (tensor parallel must divide the heads and ...)" from the params' constraints: the rules the
 * search's splits had to meet, as the engine lists them ("data tensor pipeline context expert").
 * @param {Ctx} c
 * @param {'en' | 'zh'} lang
 */
function splitRules(c, lang) {
  const rules = String(c.p.constraints ?? '').split(' ').filter((r) => Object.prototype.hasOwnProperty.call(SPLIT_RULES, r))
    .map((r) => SPLIT_RULES[/** @type {keyof typeof SPLIT_RULES} */ (r)][lang]);
  if (!rules.length) return '';
  if (lang === 'zh') return '（' + rules.join('，') + '）';
  return ' (' + (rules.length === 1 ? rules[0] : rules.slice(0, -1).join(', ') + ' and ' + rules[rules.length - 1]) + ')';
}

/**
 * "1 GPU", "8 GPUs": a count of GPUs in English.
 * @param {Ctx} c
 * @param {string} key
 */
function gpuCount(c, key) {
  return c.n(key) + (Number(c.p[key]) === 1 ? ' GPU' : ' GPUs');
}

/**
 * Whether a field holds a byte count (gpu.memory_bytes), which the page says in its own unit.
 * @param {string} field
 */
function isBytesField(field) {
  return /_bytes$/.test(field);
}

/**
 * A byte count out of its range, said in the page's unit rather than in bytes.
 * @param {Ctx} c
 */
function bytesRange(c) {
  return isBytesField(c.field) && c.has('value') && c.has('min') && c.has('max') && Number.isFinite(Number(c.p.value));
}

/**
 * A byte range's floor: in the page's unit, or in bytes where the unit would round it to 0.00.
 * @param {Ctx} c
 */
function bytesFloor(c) {
  return Number(c.p.min) < 2 ** 20 ? c.n('min') + ' B' : c.b('min');
}

/**
 * ", allowed 1 to 1,000,000" from the params min/above and max, in each language.
 * @param {Ctx} c
 * @param {'en' | 'zh'} lang
 */
function range(c, lang) {
  if (!c.has('max')) return '';
  if (c.has('above')) return lang === 'zh' ? '（须大于 ' + c.n('above') + ' 且不超过 ' + c.n('max') + '）' : ' (> ' + c.n('above') + ' and <= ' + c.n('max') + ')';
  if (!c.has('min')) return '';
  return lang === 'zh' ? '（允许 ' + c.n('min') + ' 至 ' + c.n('max') + '）' : ' (' + c.n('min') + ' to ' + c.n('max') + ')';
}

/**
 * "train.yaml:3:7: " / "train.yaml 第 3 行第 7 列：", where a parser stopped in a file.
 * @param {Ctx} c
 * @param {'en' | 'zh'} lang
 */
function position(c, lang) {
  if (!c.has('line')) return c.has('file') ? c.s('file') + (lang === 'zh' ? '：' : ': ') : '';
  if (lang === 'zh') return (c.has('file') ? c.s('file') + ' ' : '') + '第 ' + c.n('line') + ' 行' + (c.has('column') ? '第 ' + c.n('column') + ' 列' : '') + '：';
  return (c.has('file') ? c.s('file') + ':' : 'line ') + c.n('line') + (c.has('column') ? ':' + c.n('column') : '') + ': ';
}

/**
 * ": " and the problem found in a catalog file (its code in params.problem, its own params beside
 * it), worded as that code is; nothing when the problem is not given.
 * @param {Ctx} c
 * @param {'en' | 'zh'} lang
 */
function catalogProblem(c, lang) {
  const code = c.s('problem');
  if (!code || code === 'invalid_catalog' || !WORDINGS[code]) return '';
  /** @type {Record<string, unknown>} */
  const params = {};
  for (const [k, v] of Object.entries(c.p)) if (k !== 'file' && k !== 'problem') params[k] = v;
  return (lang === 'zh' ? '：' : ': ') + messageText({ code, field: c.field, message: '', params }, lang);
}

/**
 * A file of a framework the import does not read, as the import panel words it.
 * @param {'en' | 'zh'} lang
 * @param {Ctx} c
 */
function otherFramework(lang, c) {
  let out = STRINGS[lang].import_other_framework;
  for (const k of ['file', 'framework']) out = out.split('{' + k + '}').join(c.s(k));
  return out.split('{evidence}').join(lang === 'zh' ? evidenceZh(c.s('evidence')) : c.s('evidence'));
}

/**
 * A param as text: a list joined with commas, a number with thousands separators.
 * @param {unknown} v
 * @returns {string}
 */
function text(v) {
  if (Array.isArray(v)) return v.map(text).join(', ');
  if (typeof v === 'number') return formatCount(v);
  return v === undefined || v === null ? '' : String(v);
}

/**
 * The wording of the check that raised an error (message-reasons.js), if the page has one.
 * @param {string} code
 * @param {unknown} reason  params.reason
 * @returns {Wording | undefined}
 */
export function reasonWording(code, reason) {
  const own = (/** @type {object} */ o, /** @type {string} */ k) => Object.prototype.hasOwnProperty.call(o, k);
  const reasons = own(REASON_WORDINGS, code) ? REASON_WORDINGS[code] : undefined;
  return reasons && typeof reason === 'string' && own(reasons, reason) ? reasons[reason] : undefined;
}

/**
 * An error, warning or reason of the engine in the given language (the page's by default). The
 * engine's always carry params (an empty object where a message names no value); a problem without
 * params is the page's own, already in the page's language, and is shown as it is. Without its
 * English message, a message is worded from its params in both languages, sizes in `unit`.
 * @param {EngineMessage} m
 * @param {'en' | 'zh'} [lang]
 * @param {Unit} [unit]
 * @returns {string}
 */
export function messageText(m, lang = language() === 'zh' ? 'zh' : 'en', unit = 'GiB') {
  // English is the engine's message, but for a byte count out of range, which the page says in its unit.
  const inUnit = m.code === 'out_of_range' && isBytesField(m.field || '');
  if ((lang === 'en' || !m.params) && m.message && !inUnit) return m.message;
  const p = m.params && typeof m.params === 'object' ? m.params : {};
  const wording = reasonWording(m.code, p.reason) || WORDINGS[m.code];
  if (!wording) return m.message || m.code;  // a code this page does not know (tests-js forbids one)
  /** @type {Ctx} */
  const c = {
    p,
    field: m.field || '',
    has: (k) => p[k] !== undefined && p[k] !== null && p[k] !== '',
    n: (k) => text(p[k]),
    s: (k) => text(p[k]),
    b: (k) => formatBytes(Number(p[k]), unit),
    pct: (k) => formatPercent(p[k]),
  };
  return wording[lang === 'zh' ? 'zh' : 'en'](c);
}

/**
 * messageText for a list that shows the message's field beside it: the engine's English messages
 * begin with the field's path, which the list would otherwise show twice.
 * @param {EngineMessage} m
 * @param {Unit} [unit]  the unit byte counts are said in
 * @returns {string}
 */
export function messageAfterField(m, unit = /** @type {Unit} */ ('GiB')) {
  const text = messageText(m, undefined, unit);
  const field = m.field || '';
  const after = field && text.startsWith(field) ? /^:? (.*)$/s.exec(text.slice(field.length)) : null;
  return after ? after[1] : text;
}

/**
 * The error an import or export shows when the trainer-config module could not be loaded (its
 * wasm unreachable or not this build's), in the page's language; the next call loads it again.
 * @param {unknown} e  why the call failed
 * @returns {EngineMessage}
 */
export function configEngineError(e) {
  return { code: 'internal', message: t('config_engine_failed', { message: errorText(e) }) };
}
