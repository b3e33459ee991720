// The import's notes (docs/api.md "Import": ignored, unmodelled and unresolved keys, each with the
// reason the engine gives in English) in Simplified Chinese. The engine writes each reason where
// the key is read, some 280 of them; the ones many keys share are worded here. A note whose reason
// is not shows on the Chinese page its key and value under the list's Chinese heading (which says
// why such keys are listed), with the engine's English reason as the item's tooltip: no English
// sentence in the list itself (e2e/chinese-messages.spec.js).
import { wordReason } from './reason-tables.js';

/** @type {Record<string, string>} */
export const EXACT_ZH = {
  'off': '已关闭',
  'the default': '使用默认值',
  'no memory effect': '不影响显存',
  'no memory effect during the training step': '不影响训练步的显存',
  'backend choice: no memory effect modelled': '后端选择：不影响显存估算',
  'null: the default applies': 'null：使用默认值',
  'null: passed to the trainer as None': 'null：以 None 传给训练器',
  'null: no truncation, the longest sample sets the length; set batch.seq_length': 'null：不截断，由最长样本决定长度；请设置 batch.seq_length',
  "null: the recipe's default applies": 'null：使用 recipe 的默认值',
  'pipeline parallelism is off': '未开启流水线并行',
  'tensor parallelism is off': '未开启张量并行',
  'not a freeze run': '不是冻结训练（freeze）',
  'not a LoRA run: LoRA settings do not apply': '不是 LoRA 训练：LoRA 设置不适用',
  'no 4-bit quantization': '未使用 4 位量化',
  'no quantization': '未使用量化',
  "bitsandbytes' setting: quantization_method is hqq": 'bitsandbytes 的设置：quantization_method 为 hqq',
  'launcher setting without memory effect': '启动器设置，不影响显存',
  'tokenizer setting without memory effect': '分词器设置，不影响显存',
  'optimizer hyper-parameter without memory effect': '优化器超参数，不影响显存',
  'an elastic node range: the world size is not fixed': '弹性节点范围：GPU 总数不固定',
  'a single-device recipe: no FSDP': '单卡 recipe：不使用 FSDP',
  'LoRA on parameters (MoE experts) is not modelled': '对参数（MoE 专家）施加 LoRA 尚未建模',
  'off (see batch.padding)': '已关闭（见 batch.padding）',
  'every sequence at cutoff_len tokens, packed': '每个序列都是 cutoff_len 个 token（打包）',
  'off: samples are not packed (see batch.padding)': '已关闭：样本不打包（见 batch.padding）',
  'every sequence at sequence_len tokens, packed or padded': '每个序列都是 sequence_len 个 token（打包或填充）',
  'off (batch.padding follows sample_packing, pad_to_sequence_len and reward_model)': '已关闭（batch.padding 取决于 sample_packing、pad_to_sequence_len 和 reward_model）',
  'the data: no memory effect beyond the sequence length': '数据设置：除序列长度外不影响显存',
  'training on the CPU': '在 CPU 上训练',
  'one machine: all GPUs on one node': '单机：所有 GPU 在同一节点上',
  'without num_processes the GPUs per node are unknown': '没有 num_processes，无法确定每个节点的 GPU 数',
  'read with the model': '随模型一起读取',
  'where NVMe offload writes': 'NVMe 卸载的写入位置',
  'only rank 0 reads the checkpoint: no extra host copies': '只有 rank 0 读取检查点：没有额外的主机内存副本',
  'no optimizer type: the training script\'s optimizer is used': '未指定优化器类型：使用训练脚本自己的优化器',
  'the LoRA recipes do not read optimizer_in_bwd': 'LoRA recipe 不读取 optimizer_in_bwd',
  'supervised or pre-training: one model, one sequence per sample': '监督微调或预训练：一个模型，每个样本一条序列',
  "scales the adapter's output: no memory effect": '缩放适配器的输出：不影响显存',
  'shards across every data-parallel GPU, as without it': '与不设置时相同，在所有数据并行 GPU 上分片',
  'the estimate takes one transformer block as the FSDP unit': '估算以一个 Transformer 块作为 FSDP 单元',
  'recomputing modules other than core attention is not modelled': '重计算核心注意力以外的模块尚未建模',
  'this quantization converter is not modelled': '此量化转换器尚未建模',
  'truncates prompts within max_length': '在 max_length 内截断提示',
  'truncates completions within max_length': '在 max_length 内截断回复',
  "transformers' choice: sdpa": '由 transformers 选择：sdpa',
  'checkpoint format / start-up broadcast: no effect on the training step': '检查点格式 / 启动时广播：不影响训练步',
  'prefetching keeps one more gathered FSDP unit alive; the estimate assumes one unit in flight': '预取会多保留一个已聚合的 FSDP 单元；估算假定同时只有一个单元在处理',
  'dataset setting without memory effect': '数据集设置，不影响显存',
  'GPU training': '在 GPU 上训练',
  'no file names the model: give its config.json beside the other files, or choose a catalog model (--model on the command line, the model picker on the page)': '没有文件指明模型：请同时提供它的 config.json，或选择目录中的模型（命令行用 --model，页面上用模型选择器）',
  "padded to the batch's longest sample, at most tokenizer.max_seq_len (batch.padding longest)": '按批内最长的样本填充，最多 tokenizer.max_seq_len（batch.padding longest）',
  'the embedding and output layers sharded as FSDP units of their own: their gathers are not counted apart': '嵌入层和输出层各自作为 FSDP 单元分片：它们的聚合不单独计算',
  "null: samples are not truncated, so the sequence length is the dataset's longest sample (padded per batch), which the config does not say": 'null：样本不截断，序列长度为数据集中最长样本的长度（按批填充），配置中没有给出',
  "FSDP does not wrap layers for checkpointing; the trainer's gradient_checkpointing decides": 'FSDP 不为激活检查点包装层；由训练器的 gradient_checkpointing 决定',
  "the logits are computed chunk by chunk from the hidden states; the estimate's chunked loss also counts the full 16-bit logits (over-estimates by 2 bytes per logit)": 'logits 按块从隐藏状态计算；估算的分块损失还计入了完整的 16 位 logits（每个 logit 多估 2 字节）',
};

/** @type {import('./reason-tables.js').ReasonPatterns} */
const PATTERNS_ZH = [
  [/^used (?:with|by) ([\w.\-]+) only$/, (m) => '仅在使用 ' + m[1] + ' 时生效'],
  [/^used by mode "([\w.\-]+)" only$/, (m) => '仅在 mode 为“' + m[1] + '”时生效'],
  [/^read by ([\w.\-]+) only, which plugins does not list$/, (m) => '仅由 ' + m[1] + ' 读取，而 plugins 中没有列出它'],
  [/^overridden by (\S+) \(torchtitan\/config\/manager\.py: the command line over the file\)$/, (m) => '被 ' + m[1] + ' 覆盖（torchtitan 的命令行参数优先于配置文件）'],
  // The notes most imports carry (import_configs.cpp, deepspeed_reader.cpp, hf_trainer_reader.cpp).
  [/^(.+): (\S+) is a variable the script does not set: not guessed, and no default stands in for it; set the variable in the script or give the value \(the page keeps the form's\)$/,
    (m) => m[1] + '：' + m[2] + ' 是脚本中没有设置的变量：不做猜测，也没有默认值代替；请在脚本中设置它或直接给出数值（页面保留表单中的值）'],
  [/^(.+): (\S+) is a variable the script does not set; (\S+) states (.+), which is used$/,
    (m) => m[1] + '：' + m[2] + ' 是脚本中没有设置的变量；使用 ' + m[3] + ' 给出的 ' + m[4]],
  [/^"auto": the HF Trainer fills it from its own arguments \(transformers integrations\/deepspeed\.py\); no file given says (\S+)$/,
    (m) => '"auto"：由 HF Trainer 根据它自己的参数填写（transformers integrations/deepspeed.py）；给出的文件都没有说明 ' + m[1]],
  [/^"auto": the HF Trainer sets it from its (\w+) argument \(transformers integrations\/deepspeed\.py\); no file given says whether \w+ is on$/,
    (m) => '"auto"：由 HF Trainer 根据它的 ' + m[1] + ' 参数设置（transformers integrations/deepspeed.py）；给出的文件都没有说明 ' + m[1] + ' 是否开启'],
  [/^no given file sets the sequence length \(a DeepSpeed JSON, an accelerate config or a launcher command carries none: the training script's data code does\); set batch\.seq_length$/,
    () => '给出的文件都没有设置序列长度（DeepSpeed JSON、accelerate 配置和启动命令都不含它：由训练脚本的数据代码决定）；请设置 batch.seq_length'],
  [/^communication buckets \/ partitioning detail: the estimate assumes (.+) zero\/config\.py defaults \(reduce and all-gather buckets 5e8 elements, prefetch 5e7\), or under the HF Trainer its "auto" fill \(reduce hidden_size\^2, ZeRO-3 prefetch 0\.9 hidden_size\^2\)$/,
    (m) => '通信桶/分区细节：估算采用 ' + m[1] + ' zero/config.py 的默认值（reduce 和 all-gather 桶 5e8 个元素，预取 5e7），在 HF Trainer 下则采用它的 "auto" 填充（reduce 为 hidden_size^2，ZeRO-3 预取为 0.9 hidden_size^2）'],
  // A run sharded or split over GPUs no file counts (values.cpp gpu_count_not_given, after why).
  [/^(.+?)(: |; )the run needs at least (\d+) GPUs? ?(?:\(([^)]*)\))?; an estimate of this document alone takes \d+ \(one data-parallel rank, so nothing is sharded across ranks\), and the page keeps the GPU count its form holds: give the launch line or the GPU count for the run's own$/,
    (m) => {
      const why = gpuCountWhyZh(m[1]);
      const degrees = (m[4] || '').replace(/\b(tensor|pipeline|context|replicate)\b/g, (d) => DEGREE_ZH[d]);
      return why === null ? null
        : why + '：这次运行至少需要 ' + m[3] + ' 个 GPU' + (degrees ? '（' + degrees + '）' : '') +
          '；只按此文档估算时取 ' + m[3] + ' 个（一个数据并行 rank，不跨 rank 分片），页面保留表单中的 GPU 数量：请给出启动命令或这次运行自己的 GPU 数量';
    }],
  [/^not a field of (.+?) \((.+?)\)(?:; did you mean (\S+)\?)?; (.+); not read: (?:(its value is lost)|(\S+) keeps its default)$/,
    (m) => {
      const refusal = unknownKeyRefusalZh(m[4]);
      return refusal === null ? null
        : '不是 ' + m[1] + ' 的字段（' + m[2] + '）' + (m[3] ? '；是否想写 ' + m[3] + '？' : '；') + refusal + '；未读取：' + (m[5] ? '其值丢失' : m[6] + ' 保持默认值');
    }],
];

/** @type {Record<string, string>} */
const DEGREE_ZH = { tensor: '张量', pipeline: '流水线', context: '上下文', replicate: '复制' };

/**
 * Why the GPU count matters where no file gives it (import_configs.cpp, megatron_reader.cpp,
 * torchtitan_reader.cpp, torchtune_reader.cpp), in Chinese; null for a wording the page does not know.
 * @param {string} why
 * @returns {string | null}
 */
function gpuCountWhyZh(why) {
  const zero = /^ZeRO stage (\d+) \((.+)\) shards over the data-parallel GPUs and no file gives their number$/.exec(why);
  if (zero) return 'ZeRO stage ' + zero[1] + '（' + zero[2] + '）在数据并行的 GPU 上分片，但没有文件给出它们的数量';
  if (why === 'global batch = micro-batch x accumulation x data-parallel GPUs, and the file gives no GPU count') {
    return '全局 batch = 微批次 x 梯度累积 x 数据并行 GPU 数，而文件没有给出 GPU 数量';
  }
  if (why.startsWith('-1: the GPUs the other degrees leave, and the TOML holds no GPU count')) {
    return '-1：其余并行度之外剩下的 GPU，而 TOML 中没有 GPU 数量（它在启动命令中：NGPU=8 ./run_train.sh ... 或 torchrun --nproc_per_node 8 ...）';
  }
  if (why.startsWith('a torchtune config does not hold the GPU count')) {
    return 'torchtune 配置中没有 GPU 数量：它在启动命令中（tune run --nproc_per_node K --nnodes N RECIPE --config FILE）';
  }
  return null;
}

/**
 * Why an unknown key of a TRL or HF TrainingArguments file is not read (hf_trainer_reader.cpp), in
 * Chinese; null for a refusal worded otherwise (the note then keeps its English reason as tooltip).
 * @param {string} refusal
 * @returns {string | null}
 */
function unknownKeyRefusalZh(refusal) {
  if (refusal.startsWith('HfArgumentParser refuses keys no dataclass of the script defines')) return 'HfArgumentParser 会拒绝脚本中任何 dataclass 都没有定义的键（transformers hf_argparser.py parse_dict）';
  if (refusal.startsWith("TRL's CLI passes what no dataclass defines to accelerate launch")) return 'TRL 的命令行把没有 dataclass 定义的参数交给 accelerate launch，而它会拒绝此参数；旧版本可能定义了它';
  const trl = /^`trl (sft|dpo|grpo) --config FILE` passes it to accelerate launch .* and a script run directly ignores it .*, as here$/.exec(refusal);
  return trl ? '`trl ' + trl[1] + ' --config FILE` 会把它交给 accelerate launch，而直接运行脚本会忽略它（本例即如此）' : null;
}

/**
 * A note's reason in Simplified Chinese, or null when the page has no wording for it.
 * @param {string} reason  the engine's English reason
 * @returns {string | null}
 */
export function noteReasonZh(reason) {
  return wordReason(EXACT_ZH, PATTERNS_ZH, reason);
}
