// The export's reasons (docs/import.md "Export": not_exported, each field with the reason the engine
// gives in English, engine/src/export/*.cpp) in Simplified Chinese. Every reason the exporters write
// is worded here (tests-js/export-reasons.test.mjs reads them from the engine's source); one the page
// does not know shows on the Chinese page as its field alone, with the English reason as the item's
// tooltip, as the import's notes do (import-note-reasons.js).
import { wordReason } from './reason-tables.js';

/** @type {Record<string, string>} */
export const EXACT_ZH = {
  // accelerate
  "accelerate's Megatron-LM plugin is not exported": '不导出 accelerate 的 Megatron-LM 插件',
  'num_processes must be a multiple of the GPUs per node': 'num_processes 必须是每节点 GPU 数的整数倍',
  'DeepSpeed casts the weights to the mixed-precision dtype': 'DeepSpeed 会把权重转换为混合精度的 dtype',
  "FSDP's hybrid sharding groups are one node's GPUs": 'FSDP 混合分片的分组就是一个节点内的 GPU',
  'FSDP2 shards parameters, gradients and optimizer states (stage 3)': 'FSDP2 同时分片参数、梯度和优化器状态（stage 3）',
  'FSDP1 names this SHARD_GRAD_OP (zero_stage 2)': 'FSDP1 中这对应 SHARD_GRAD_OP（zero_stage 2）',
  'FSDP has no optimizer-only sharding (ZeRO-1)': 'FSDP 没有只分片优化器状态的方式（ZeRO-1）',
  'FSDP offloads parameters, gradients and the optimizer step to the CPU together': 'FSDP 会把参数、梯度和优化器步骤一起卸载到 CPU',
  'FSDP checkpoints whole layers only': 'FSDP 只对整层做激活检查点',
  'DDP does not shard': 'DDP 不做分片',
  // axolotl
  "axolotl trains with the HF Trainer's loop": 'axolotl 使用 HF Trainer 的训练循环',
  "the model has no Hugging Face id (a catalog preset's, or an hf_config's _name_or_path): axolotl requires base_model; add it to the snippet before training":
    '模型没有 Hugging Face id（目录预设的 id，或 hf_config 的 _name_or_path）：axolotl 需要 base_model，训练前请把它加到配置片段中',
  "an older bitsandbytes's kernels, which axolotl's file does not choose": '这是较旧 bitsandbytes 的内核，axolotl 的配置文件无法选择',
  "HQQ, which axolotl's file does not choose: it quantizes with bitsandbytes": 'axolotl 的配置文件无法选择 HQQ：它用 bitsandbytes 量化',
  'axolotl quantizes to nf4 with double quantization': 'axolotl 量化为 nf4 并使用双重量化',
  'axolotl needs the target modules named (or lora_target_linear)': 'axolotl 需要列出目标模块（或使用 lora_target_linear）',
  "axolotl's LoRA keys name no excluded modules and no rank pattern by module": 'axolotl 的 LoRA 键无法指定排除的模块，也无法按模块设置 rank',
  'PEFT keeps the adapters over an 8-bit base in fp32': '8 位基座上的适配器由 PEFT 保持为 fp32',
  "without the fp32 upcast, adapters take the weights' dtype": '不做 fp32 上转时，适配器使用权重的 dtype',
  'axolotl freezes by parameter patterns (unfrozen_parameters), not by a layer count': 'axolotl 按参数名模式（unfrozen_parameters）冻结，而不是按层数',
  'axolotl loads the weights in bf16, fp16 or fp32': 'axolotl 以 bf16、fp16 或 fp32 加载权重',
  'axolotl casts the weights around a quantized base to fp32 (prepare_model_for_kbit_training) outside DeepSpeed and FSDP':
    '在 DeepSpeed 和 FSDP 之外，axolotl 会把量化基座周围的权重转换为 fp32（prepare_model_for_kbit_training）',
  'axolotl computes in the dtype it loads the weights in': 'axolotl 以加载权重的 dtype 进行计算',
  'axolotl loads the weights in 16 bits and the HF Trainer keeps no fp32 master copy': 'axolotl 以 16 位加载权重，HF Trainer 不保留 fp32 主权重副本',
  "torch's optimizers keep their states in the weights' 16-bit dtype": 'torch 的优化器以权重的 16 位 dtype 保存状态',
  'under FSDP with bf16 or fp16 compute, accelerate upcasts the trained weights to fp32': '在 FSDP 下以 bf16 或 fp16 计算时，accelerate 会把训练的权重上转为 fp32',
  "torch's optimizers keep their states in the dtype of the weights, fp32 after accelerate's FSDP upcast": 'torch 的优化器以权重的 dtype 保存状态，经 accelerate 的 FSDP 上转后为 fp32',
  'no transformers or axolotl optimizer name for it': 'transformers 和 axolotl 都没有对应的优化器名称',
  "transformers' optimizer names pick fused or foreach": 'transformers 的优化器名称决定使用 fused 还是 foreach',
  "axolotl's gradient_checkpointing recomputes whole layers": 'axolotl 的 gradient_checkpointing 重计算整层',
  'axolotl offloads activations around recomputed layers only (activation_offloading requires gradient_checkpointing)':
    'axolotl 只在重计算的层周围卸载激活（activation_offloading 需要 gradient_checkpointing）',
  'FSDP1 reshards after forward under FULL_SHARD': 'FSDP1 在 FULL_SHARD 下于前向后重新分片',
  'axolotl shards with DeepSpeed or FSDP': 'axolotl 用 DeepSpeed 或 FSDP 分片',
  "not written: axolotl's dp_shard_size needs the GPU count": '未写入：axolotl 的 dp_shard_size 需要 GPU 数量',
  "TRL's DPO reference is the adapter-free base for a PEFT policy and a frozen copy otherwise": 'TRL 的 DPO 参考模型：PEFT 策略使用去掉适配器的基座，否则使用冻结的副本',
  "TRL's GRPO reference is the adapter-free base for a PEFT policy and a frozen copy otherwise": 'TRL 的 GRPO 参考模型：PEFT 策略使用去掉适配器的基座，否则使用冻结的副本',
  'axolotl has no PPO trainer': 'axolotl 没有 PPO 训练器',
  // DeepSpeed
  "a DeepSpeed config means DeepSpeed's engine shards and reduces": '使用 DeepSpeed 配置即由 DeepSpeed 引擎负责分片和归约',
  'DeepSpeed computes in the dtype it casts the weights to': 'DeepSpeed 以权重转换后的 dtype 进行计算',
  'DeepSpeed has no autocast over fp32 weights (its fp16 auto_cast aside)': 'DeepSpeed 不支持在 fp32 权重上做 autocast（fp16 的 auto_cast 除外）',
  'DeepSpeed trains in fp32, fp16 or bf16': 'DeepSpeed 以 fp32、fp16 或 bf16 训练',
  "DeepSpeed's optimizers keep fp32 master weights": 'DeepSpeed 的优化器保留 fp32 主权重',
  'DeepSpeed keeps fp32 optimizer states': 'DeepSpeed 以 fp32 保存优化器状态',
  "DeepSpeed's Adam and AdamW are its fused kernels": 'DeepSpeed 的 Adam 和 AdamW 是它自己的融合内核',
  "DeepSpeed's config names no such optimizer: the training script creates it": 'DeepSpeed 配置中没有这种优化器：由训练脚本创建',
  // torchtune
  "a torchtune line trains with torchtune's recipes": 'torchtune 命令使用 torchtune 的 recipe 训练',
  "torchtune's recipes train in full or with LoRA adapters": 'torchtune 的 recipe 只做全参数训练或 LoRA 适配器训练',
  'the model has no torchtune builder in this export (torchtune/models/*/_model_builders.py)': '本导出中该模型没有 torchtune 构建函数（torchtune/models/*/_model_builders.py）',
  'torchtune ships no built-in config for this model, method and GPU count': 'torchtune 没有针对该模型、方法和 GPU 数量的内置配置',
  'torchtune quantizes the base to NF4 with quantized scalers (torchao to_nf4)': 'torchtune 把基座量化为 NF4，缩放因子也被量化（torchao to_nf4）',
  "this model's LoRA builder has no use_dora argument": '该模型的 LoRA 构建函数没有 use_dora 参数',
  "torchtune's LoRA builders take one lora_rank for every adapted module": 'torchtune 的 LoRA 构建函数对所有适配的模块使用同一个 lora_rank',
  'torchtune adapts the chosen modules on every layer': 'torchtune 在每一层都适配所选的模块',
  'torchtune names the modules to adapt, none to leave out': 'torchtune 只能列出要适配的模块，不能列出要排除的模块',
  'torchtune trains no whole module beside the adapters': '除适配器外，torchtune 不训练任何完整模块',
  "a parameter count names no modules to adapt; torchtune's builders need them": '只给参数量无法指明要适配的模块，而 torchtune 的构建函数需要它们',
  'torchtune adapts a subset of q/k/v/output projections, the whole MLP (apply_lora_to_mlp) and the output (apply_lora_to_output), on every layer':
    'torchtune 在每一层适配 q/k/v/输出投影的子集、整个 MLP（apply_lora_to_mlp）和输出层（apply_lora_to_output）',
  "this model's output is tied to the embedding: its LoRA builder refuses apply_lora_to_output=True": '该模型的输出层与词嵌入共享权重：其 LoRA 构建函数不接受 apply_lora_to_output=True',
  "this model's LoRA builder takes no apply_lora_to_output": '该模型的 LoRA 构建函数没有 apply_lora_to_output 参数',
  'every sample at the maximum length is a packed dataset, which needs tokenizer.max_seq_len: the document leaves the length to the preset':
    '每个样本都达到最大长度即为打包数据集，需要 tokenizer.max_seq_len；而文档把长度留给了预设',
  'torchtune trains weights and compute in one dtype, bf16 or fp32': 'torchtune 的权重和计算使用同一种 dtype：bf16 或 fp32',
  'torchtune keeps no fp32 master copy': 'torchtune 不保留 fp32 主权重副本',
  "bitsandbytes' 32-bit optimizers keep fp32 states": 'bitsandbytes 的 32 位优化器以 fp32 保存状态',
  "torchtune's optimizer states are in the training dtype": 'torchtune 的优化器状态使用训练 dtype',
  'torchtune builds the adapters in the training dtype': 'torchtune 以训练 dtype 构建适配器',
  'no optimizer component of this kind in the export': '本导出中没有这种优化器组件',
  'the for-loop step is not chosen by a config key': 'for-loop 实现无法通过配置键选择',
  'the LoRA recipes have no optimizer_in_bwd': 'LoRA recipe 没有 optimizer_in_bwd',
  'selective checkpointing is ac_mode/ac_option, not written by this export': '选择性激活检查点由 ac_mode/ac_option 设置，本导出不写入',
  'the recipes offload only with activation checkpointing on': '这些 recipe 只在开启激活检查点时卸载',
  'torchtune has no fused linear cross-entropy kernel; its chunked loss is written': 'torchtune 没有融合的线性交叉熵内核；导出写入的是它的分块损失',
  "torchtune's compile: True compiles the model and the loss": 'torchtune 的 compile: True 同时编译模型和损失',
  "torchtune's attention is torch's scaled_dot_product_attention": 'torchtune 的注意力使用 torch 的 scaled_dot_product_attention',
  "torchtune's distributed recipes shard with FSDP2": 'torchtune 的分布式 recipe 用 FSDP2 分片',
  'the GPUs must fill whole nodes': 'GPU 必须占满整个节点',
  "torchtune's distributed recipes shard fully with FSDP2": 'torchtune 的分布式 recipe 用 FSDP2 完全分片',
  "FSDP2's CPU offload moves parameters, gradients and the optimizer step together": 'FSDP2 的 CPU 卸载会把参数、梯度和优化器步骤一起移到 CPU',
  'the single-device recipes do not offload states': '单卡 recipe 不卸载状态',
  'tensor and context parallelism are in full_finetune_distributed only': '只有 full_finetune_distributed 支持张量并行和上下文并行',
  'FP8 training is in full_finetune_distributed only': '只有 full_finetune_distributed 支持 FP8 训练',
  "the line is a supervised fine-tuning recipe: torchtune's DPO, PPO and GRPO recipes are not written by this export": '该命令是监督微调 recipe：本导出不写 torchtune 的 DPO、PPO 和 GRPO recipe',
};

/** @type {import('./reason-tables.js').ReasonPatterns} */
const PATTERNS_ZH = [
  // engine/src/json/export_document.cpp: a given field no key of the format carries.
  [/^the (\w+) (file|line) has no key for it$/, (m) => m[1] + (m[2] === 'line' ? ' 命令' : ' 文件') + '中没有对应的键'],
];

/**
 * A not-exported field's reason in Simplified Chinese, or null when the page has no wording for it.
 * @param {string} reason  the engine's English reason
 * @returns {string | null}
 */
export function exportReasonZh(reason) {
  return wordReason(EXACT_ZH, PATTERNS_ZH, reason);
}
