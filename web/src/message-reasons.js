// The engine's errors of one code raised by many different checks (inconsistent, missing_field,
// ...), worded per check: each such error carries params.reason, the check that found it
// (`trainmem codes` lists each code's reasons, engine/include/trainmem/message_codes.hpp), and the
// values its English message names. messages.js picks the wording here before the code's own;
// tests-js/messages.test.mjs checks that every registered reason of every code is worded here in
// English and Simplified Chinese.

/** @typedef {import('./messages.js').Ctx} Ctx */
/** @typedef {import('./messages.js').Wording} Wording */

/** @type {Wording} */
const oneModelSource = {
  en: (c) => 'needs exactly one of preset, hf_config or num_parameters' + (c.has('given') ? ' (got ' + c.n('given') + ')' : ''),
  zh: (c) => '须给出 preset、hf_config、num_parameters 三者之一，且只能给一个' + (c.has('given') ? '（收到 ' + c.n('given') + ' 个）' : ''),
};

/** @type {Record<string, Record<string, Wording>>} */
export const REASON_WORDINGS = {
  inconsistent: {
    one_model_source: oneModelSource,
    policy_not_language_model: {
      en: () => 'PPO/GRPO generate completions: the policy must be a language model with a vocabulary head',
      zh: () => 'PPO/GRPO 需要生成回复：策略模型必须是带词表输出头的语言模型',
    },
    data_parallel_mismatch: {
      en: (c) => 'parallel.data_parallel_size = ' + c.n('value') + ' but world_size / (tp x pp x cp) = ' + c.n('world_size') + ' / ' + c.n('model_parallel'),
      zh: (c) => 'parallel.data_parallel_size = ' + c.n('value') + '，但 world_size / (张量 × 流水线 × 上下文并行) = ' + c.n('world_size') + ' / ' + c.n('model_parallel'),
    },
    hybrid_shard_needs_zero: {
      en: () => 'parallel.sharding_group_size (HYBRID_SHARD) needs parallel.zero_stage 1, 2 or 3, got 0',
      zh: () => 'parallel.sharding_group_size（HYBRID_SHARD）需要 parallel.zero_stage 为 1、2 或 3，当前为 0',
    },
    offload_param_needs_zero3: {
      en: (c) => 'parameter offload needs parallel.zero_stage 3 (ZeRO-Infinity / FSDP CPU offload), got ' + c.n('zero_stage'),
      zh: (c) => '参数卸载需要 parallel.zero_stage 为 3（ZeRO-Infinity / FSDP CPU 卸载），当前为 ' + c.n('zero_stage'),
    },
    tp_comm_overlap_needs_sequence_parallel: {
      en: () => 'parallel.tp_comm_overlap needs tensor_parallel_size > 1 with sequence_parallel',
      zh: () => 'parallel.tp_comm_overlap 需要 tensor_parallel_size > 1 并开启 sequence_parallel',
    },
    virtual_stages_need_interleaved: {
      en: () => 'parallel.virtual_pipeline_stages > 1 needs pipeline_schedule "interleaved_1f1b"',
      zh: () => 'parallel.virtual_pipeline_stages > 1 时，pipeline_schedule 须为“interleaved_1f1b”',
    },
    adapter_save_needs_lora: {
      en: () => 'checkpoint.save "adapter" needs method "lora" or "qlora"',
      zh: () => 'checkpoint.save 为“adapter”时，method 须为“lora”或“qlora”',
    },
    int8_needs_bitsandbytes: {
      en: () => '"int8" is bitsandbytes\' LLM.int8() base (transformers\' load_in_8bit): it needs framework hf_trainer, fsdp or deepspeed',
      zh: () => '“int8”是 bitsandbytes 的 LLM.int8() 基座（transformers 的 load_in_8bit）：需要 framework 为 hf_trainer、fsdp 或 deepspeed',
    },
    qlora_fp8: {
      en: (c) => '"fp8" cannot go with method "qlora": ' + (c.field === 'precision.param_dtype'
        ? 'the weights QLoRA leaves unquantized (embeddings, norms, head) and the adapters train in 16 or 32 bits'
        : 'the quantized base is dequantized to 16 or 32 bits for every matmul (bitsandbytes\' compute dtype, HQQ\'s compute dtype, torchao\'s NF4 linear)'),
      zh: (c) => '“fp8”不能与 method“qlora”同用：' + (c.field === 'precision.param_dtype'
        ? 'QLoRA 未量化的权重（嵌入层、归一化层、输出头）和适配器以 16 或 32 位训练'
        : '量化基座在每次矩阵乘法前都被反量化为 16 或 32 位（bitsandbytes 的计算精度、HQQ 的计算精度、torchao 的 NF4 线性层）'),
    },
    int8_not_sharded: {
      en: () => '"int8" cannot be sharded: FSDP and ZeRO-3 take 4-bit bases only (bitsandbytes\' quant_storage); use zero_stage 0-2 under DeepSpeed, or DDP',
      zh: () => '“int8”基座无法分片：FSDP 与 ZeRO-3 只支持 4 位基座（bitsandbytes 的 quant_storage）；请在 DeepSpeed 下使用 zero_stage 0-2，或使用 DDP',
    },
    hqq_needs_transformers: {
      en: () => '"hqq" quantizes through transformers\' HqqConfig: it needs framework hf_trainer, fsdp or deepspeed (the other frameworks build their own models, which HQQ does not load)',
      zh: () => '“hqq”通过 transformers 的 HqqConfig 量化：需要 framework 为 hf_trainer、fsdp 或 deepspeed（其他框架使用自己构建的模型，HQQ 无法加载）',
    },
    dora_needs_bitsandbytes: {
      en: () => 'DoRA cannot go with quantization_method hqq: LLaMA-Factory refuses DoRA over a base quantized other than by bitsandbytes (model/adapter.py)',
      zh: () => 'DoRA 不能与 quantization_method hqq 同用：LLaMA-Factory 只允许在 bitsandbytes 量化的基座上使用 DoRA（model/adapter.py）',
    },
    quantization_needs_lora: {
      en: (c) => 'quantization needs finetuning_type lora or oft: LLaMA-Factory refuses it with ' + c.s('value') + ' (hparams/parser.py)',
      zh: (c) => '量化需要 finetuning_type 为 lora 或 oft：LLaMA-Factory 在 ' + c.s('value') + ' 下会拒绝（hparams/parser.py）',
    },
    hqq_not_sharded: {
      en: () => '"hqq" cannot be sharded: FSDP and ZeRO-3 cannot shard HQQ\'s quantized linears; use zero_stage 0-2 under DeepSpeed, or DDP',
      zh: () => '“hqq”基座无法分片：FSDP 与 ZeRO-3 无法切分 HQQ 的量化线性层；请在 DeepSpeed 下使用 zero_stage 0-2，或使用 DDP',
    },
    experts_needed: {
      en: (c) => '= ' + c.n('value') + ' needs a mixture-of-experts architecture, and this model has no routed experts',
      zh: (c) => '= ' + c.n('value') + ' 需要混合专家（MoE）结构，而此模型没有路由专家',
    },
    lora_targets_nothing: {
      en: () => 'lora: no module of this model is targeted (target_modules, exclude_modules and layers_to_transform leave nothing); PEFT refuses such a config',
      zh: () => 'LoRA 没有选中此模型的任何模块（target_modules、exclude_modules 和 layers_to_transform 共同作用后为空）；PEFT 会拒绝这样的配置',
    },
    pipeline_layers_count: {
      en: (c) => 'has ' + c.n('entries') + ' entries; pipeline_parallel_size x virtual_pipeline_stages = ' + c.n('chunks'),
      zh: (c) => '有 ' + c.n('entries') + ' 项，但 pipeline_parallel_size × virtual_pipeline_stages = ' + c.n('chunks'),
    },
    pipeline_layers_sum: {
      en: (c) => 'adds up to ' + c.n('sum') + ' layers; the model has ' + c.n('layers'),
      zh: (c) => '各项之和为 ' + c.n('sum') + ' 层，但模型有 ' + c.n('layers') + ' 层',
    },
    pipeline_split_flags_combined: {
      en: () => 'cannot be combined with --decoder-first/last-pipeline-num-layers (Megatron-LM asserts: no standalone embedding or loss stage with an uneven pipeline)',
      zh: () => '不能与 --decoder-first/last-pipeline-num-layers 同时使用（Megatron-LM 断言：不均匀流水线不支持单独的 embedding 或 loss 阶段）',
    },
    layer_types_per_layer: {
      en: (c) => 'must list "sliding_attention" or "full_attention" for each of the ' + c.n('layers') + ' layers',
      zh: (c) => '必须为全部 ' + c.n('layers') + ' 层逐层列出 "sliding_attention" 或 "full_attention"',
    },
    reference_needed: { en: () => 'none: only GRPO (with a zero KL coefficient) trains without a reference model', zh: () => 'none：只有 GRPO（KL 系数为 0）在训练时不需要参考模型' },
    usable_above_memory: { en: () => 'gpu.usable_bytes exceeds gpu.memory_bytes', zh: () => 'gpu.usable_bytes 超过了 gpu.memory_bytes' },
    context_not_below_memory: {
      en: (c) => 'the CUDA context (' + c.n('context') + ' bytes) is not below the device\'s ' + c.n('limit') + ' bytes: give a smaller gpu.cuda_context_bytes or a larger gpu.memory_bytes',
      zh: (c) => 'CUDA 上下文（' + c.n('context') + ' 字节）不小于设备的 ' + c.n('limit') + ' 字节：请减小 gpu.cuda_context_bytes 或增大 gpu.memory_bytes',
    },
    usable_and_context_above_memory: {
      en: (c) => 'gpu.usable_bytes = ' + c.n('value') + ' plus the CUDA context (' + c.n('context') + ') exceeds the device\'s ' + c.n('limit') + ' bytes: usable_bytes is what the framework can allocate after the context (or give gpu.cuda_context_bytes)',
      zh: (c) => 'gpu.usable_bytes = ' + c.n('value') + ' 加上 CUDA 上下文（' + c.n('context') + '）超过了设备的 ' + c.n('limit') + ' 字节：usable_bytes 是创建上下文之后框架还能分配的显存（或填写 gpu.cuda_context_bytes）',
    },
    ring_context_parallel_needs_fused_attention: {
      en: (c) => 'eager attention cannot run ring context parallelism (context_parallel_size = ' + c.n('value') + '): use "flash", "flash3" or "sdpa", or context_parallel_kind "ulysses"',
      zh: (c) => 'eager 注意力无法运行环形上下文并行（context_parallel_size = ' + c.n('value') + '）：请改用 "flash"、"flash3" 或 "sdpa"，或将 context_parallel_kind 设为 "ulysses"',
    },
    nothing_trains: {
      en: () => 'freeze.trainable_layers = 0 leaves nothing to train: train at least one layer (or, in a vision-language model, the projector)',
      zh: () => 'freeze.trainable_layers = 0 时没有任何可训练的部分：至少训练一层（视觉语言模型也可只训练投影层）',
    },
    optimizer_in_backward_with_accumulation: {
      en: (c) => 'optimizer_in_backward steps each parameter during backward, leaving no gradient to accumulate: it needs gradient_accumulation_steps 1, got ' + c.n('value'),
      zh: (c) => 'optimizer_in_backward 在反向传播中即更新每个参数，没有可累积的梯度：需要 gradient_accumulation_steps 为 1，当前为 ' + c.n('value'),
    },
    calibration_measures_differ: { en: () => 'both calibration points need the same measure', zh: () => '两个校准点必须使用相同的 measure' },
    calibration_same_tokens: {
      en: () => 'the two calibration points need different token counts (micro_batch_size x seq_length)',
      zh: () => '两个校准点的 token 数（micro_batch_size × seq_length）必须不同',
    },
    mamba_heads_width: {
      en: (c) => 'num_heads x head_dim = ' + c.n('value') + ' must equal expand x hidden_size = ' + c.n('intermediate_size'),
      zh: (c) => 'num_heads × head_dim = ' + c.n('value') + ' 必须等于 expand × hidden_size = ' + c.n('intermediate_size'),
    },
    gpus_not_multiple_of_parallel: {
      en: (c) => c.n('world_size') + ' GPUs are not a multiple of replicate x context x tensor x pipeline = ' + c.n('model_parallel') + ' (torchtitan asserts they divide)',
      zh: (c) => c.n('world_size') + ' 个 GPU 不是 replicate × context × tensor × pipeline = ' + c.n('model_parallel') + ' 的倍数（torchtitan 断言二者整除）',
    },
    parallel_product_not_gpus: {
      en: (c) => 'replicate x shard x context x tensor x pipeline = ' + c.n('value') + ' differs from the ' + c.n('world_size') + ' GPUs (torchtitan asserts they are equal)',
      zh: (c) => 'replicate × shard × context × tensor × pipeline = ' + c.n('value') + '，不等于 GPU 数 ' + c.n('world_size') + '（torchtitan 断言二者相等）',
    },
    local_batch_not_multiple_of_microbatch: {
      en: (c) => 'local batch ' + c.n('value') + ' is not a multiple of the microbatch size ' + c.n('divisor') + ' (torchtitan refuses it)',
      zh: (c) => '本地批大小 ' + c.n('value') + ' 不是微批大小 ' + c.n('divisor') + ' 的倍数（torchtitan 的流水线调度会拒绝）',
    },
    global_batch_not_multiple: {
      en: (c) => c.n('value') + ' is not a multiple of local batch x data-parallel = ' + c.n('divisor') + ' (torchtitan asserts it)',
      zh: (c) => c.n('value') + ' 不是本地批大小 × 数据并行规模 = ' + c.n('divisor') + ' 的倍数（torchtitan 断言整除）',
    },
    both_4bit_and_8bit: {
      en: () => 'load_in_4bit and load_in_8bit are both true: TRL\'s ModelConfig takes one',
      zh: () => 'load_in_4bit 与 load_in_8bit 同时为 true：TRL 的 ModelConfig 只接受其一',
    },
    qlora_needs_4bit: {
      en: () => 'qlora needs load_in_4bit: true (axolotl quantizes only then)',
      zh: () => 'qlora 需要 load_in_4bit: true（axolotl 只在此时量化基座权重）',
    },
    qlora_in_8bit: {
      en: () => 'adapter qlora cannot load in 8 bits (axolotl: "Can\'t load qlora in 8bit"); use adapter lora for an 8-bit base',
      zh: () => 'adapter 为 qlora 时不能以 8 位加载（axolotl：“Can\'t load qlora in 8bit”）；8 位基座请用 adapter lora',
    },
    legacy_attention_with_attn_implementation: {
      en: () => 'cannot be combined with attn_implementation (axolotl refuses both)',
      zh: () => '不能与 attn_implementation 同时使用（axolotl 会拒绝）',
    },
    single_device_recipe: {
      en: (c) => c.s('recipe') + ' runs on one device; tune run refuses distributed options for it',
      zh: (c) => c.s('recipe') + ' 是单卡 recipe；tune run 拒绝为它设置分布式选项',
    },
    offload_needs_checkpointing: {
      en: () => 'the recipes refuse activation offloading without enable_activation_checkpointing',
      zh: () => '未开启 enable_activation_checkpointing 时，recipe 拒绝卸载激活',
    },
    optimizer_in_bwd_with_accumulation: {
      en: () => 'the recipes refuse optimizer_in_bwd with gradient_accumulation_steps > 1',
      zh: () => 'gradient_accumulation_steps > 1 时，recipe 拒绝使用 optimizer_in_bwd',
    },
    lora_recipe_full_model: {
      en: (c) => c.s('recipe') + ' trains LoRA adapters; ' + c.s('component') + ' builds a model without them',
      zh: (c) => c.s('recipe') + ' 训练 LoRA 适配器，但 ' + c.s('component') + ' 构建的模型不含适配器',
    },
    full_recipe_lora_model: {
      en: (c) => c.s('recipe') + ' is a full fine-tuning recipe; ' + c.s('component') + ' builds a LoRA model',
      zh: (c) => c.s('recipe') + ' 是全量微调 recipe，但 ' + c.s('component') + ' 构建的是 LoRA 模型',
    },
    builder_argument: {
      en: (c) => c.s('component') + ' takes no such argument: instantiating it raises TypeError',
      zh: (c) => c.s('component') + ' 没有这个参数：实例化时会抛出 TypeError',
    },
    tied_output: {
      en: (c) => c.s('component') + ' ties its output projection to the embedding: torchtune raises ValueError for apply_lora_to_output: True',
      zh: (c) => c.s('component') + ' 的输出投影与词嵌入共享权重：apply_lora_to_output: True 时 torchtune 会抛出 ValueError',
    },
    packing_needs_max_seq_len: { en: () => 'packing needs tokenizer.max_seq_len', zh: () => '样本打包（packing）需要 tokenizer.max_seq_len' },
    processes_above_visible_devices: {
      en: (c) => 'starts ' + c.n('value') + ' processes per node but CUDA_VISIBLE_DEVICES shows ' + c.n('limit') + ' GPUs: the ranks beyond them have no device',
      zh: (c) => '每个节点启动 ' + c.n('value') + ' 个进程，但 CUDA_VISIBLE_DEVICES 只显示 ' + c.n('limit') + ' 块 GPU：多出的进程没有可用设备',
    },
    train_batch_mismatch: {
      en: (c) => '= ' + c.n('value') + ' but micro-batch x accumulation x GPUs = ' + c.n('product') + ' (DeepSpeed asserts they agree)',
      zh: (c) => '= ' + c.n('value') + '，但微批大小 × 梯度累积步数 × GPU 数 = ' + c.n('product') + '（DeepSpeed 断言二者相等）',
    },
    train_batch_not_multiple: {
      en: (c) => '= ' + c.n('value') + ' is not a multiple of ' + c.n('divisor') + ' (DeepSpeed asserts train_batch_size = micro-batch x accumulation x GPUs)',
      zh: (c) => '= ' + c.n('value') + ' 不是 ' + c.n('divisor') + ' 的倍数（DeepSpeed 要求 train_batch_size = 微批大小 × 梯度累积步数 × GPU 数）',
    },
    deepspeed_precision_differs: {
      en: (c) => "differs from the trainer's " + c.s('dtype') + ' setting: the HF Trainer refuses a DeepSpeed value that differs from its own; write "auto" or make them agree',
      zh: (c) => '与训练器的 ' + c.s('dtype') + ' 设置不一致：HF Trainer 会拒绝与自身设置不同的 DeepSpeed 值；请写“auto”或使二者一致',
    },
    id_not_file_name: { en: () => 'the id must equal the file name', zh: () => 'id 必须与文件名相同' },
    default_price_not_hyperscaler_on_demand: {
      en: () => "the default price must be one of the entry's hyperscaler on-demand offers, so that GPUs are compared like with like",
      zh: () => '默认价格必须是该条目所列的超大规模云按需报价之一，以便同类价格相互比较',
    },
  },
  missing_field: {
    one_model_source: oneModelSource,
    model_required: {
      en: () => 'model is required: a preset, an hf_config or num_parameters',
      zh: () => '缺少 model：请选择预设模型（preset）、提供 hf_config 或给出参数量（num_parameters）',
    },
    rlhf_algorithm_required: {
      en: (c) => 'rlhf.algorithm is required: ' + c.s('allowed'),
      zh: (c) => '缺少 rlhf.algorithm，可选：' + c.s('allowed'),
    },
    custom_gpu_memory: { en: () => 'gpu.memory_bytes is required for a custom device', zh: () => '自定义设备必须给出 gpu.memory_bytes' },
    activations_need_architecture: {
      en: () => 'activations need an architecture: give model.preset or model.hf_config',
      zh: () => '计算激活需要模型结构：请选择 model.preset 或提供 model.hf_config',
    },
    method_needs_architecture: {
      en: () => 'method "freeze" needs the architecture (it counts layers): give model.preset or model.hf_config, not only num_parameters',
      zh: () => 'method 为“freeze”时需要模型结构（它按层计数）：请选择 model.preset 或提供 model.hf_config，不能只给 num_parameters',
    },
    adapter_size_needs_architecture: {
      en: () => 'checkpoint.save "adapter" writes the adapters, whose size needs the architecture: give model.preset or model.hf_config, not only num_parameters',
      zh: () => 'checkpoint.save 为“adapter”时只保存适配器，其大小需要模型结构：请选择 model.preset 或提供 model.hf_config，不能只给 num_parameters',
    },
    measured_bytes_required: { en: () => 'measured_bytes is required', zh: () => '缺少必填项 measured_bytes（实测显存字节数）' },
    vllm_needs_gpu: {
      en: () => 'rlhf.rollout.use_vllm colocated: vLLM takes vllm_gpu_memory_utilization of the device\'s memory, so a gpu is needed',
      zh: () => '与训练同卡的 vLLM（rlhf.rollout.use_vllm）按 vllm_gpu_memory_utilization 占用设备显存的一部分，因此需要选择 GPU',
    },
    solve_needs_gpu: {
      en: () => 'solve needs a gpu: a catalog id or memory_bytes',
      zh: () => '求解需要 GPU：请选择目录中的 GPU，或给出 memory_bytes',
    },
    text_config_required: {
      en: (c) => 'model_type "' + c.s('model_type') + '" is multimodal: its text model is read from text_config, which is missing',
      zh: (c) => 'model_type“' + c.s('model_type') + '”是多模态模型：其文本模型从 text_config 读取，但缺少 text_config',
    },
    dense_layers_need_width: {
      en: () => 'intermediate_size is required: first_k_dense_replace makes the first layers dense',
      zh: () => '缺少 intermediate_size：first_k_dense_replace 使前几层为稠密层，需要它们的宽度',
    },
    config_key_required: {
      en: () => 'is required for this model_type and is missing',
      zh: () => '此 model_type 需要该配置项，但配置中没有给出',
    },
    recompute_method_required: {
      en: () => 'full recomputation needs --recompute-method (uniform or block) and --recompute-num-layers',
      zh: () => '完整重计算需要 --recompute-method（uniform 或 block）和 --recompute-num-layers（Megatron-LM 会报错）',
    },
    lora_attn_modules_required: { en: () => 'the LoRA builders require lora_attn_modules', zh: () => 'LoRA 模型构建函数需要 lora_attn_modules' },
    recipe_key_required: {
      en: () => 'the recipes read this key, which has no default',
      zh: () => 'recipe 会读取此配置项，它没有默认值：请在配置中给出',
    },
    tune_run_no_recipe: {
      en: (c) => c.s('origin') + ': tune run names no recipe',
      zh: (c) => c.s('origin') + '：tune run 没有指定 recipe',
    },
    tune_run_config_missing: {
      en: (c) => c.s('origin') + ': tune run --config ' + c.s('value') + ': give the recipe config beside the launch line',
      zh: (c) => c.s('origin') + '：tune run --config ' + c.s('value') + '：请把 recipe 的配置文件与启动命令一起提供（torchtune 的内置配置位于 recipes/configs/）',
    },
    files_required: {
      en: () => 'files must be a non-empty list of name and text or content',
      zh: () => 'files 必须是非空列表，每项包含 name 以及 text 或 content',
    },
    file_text_required: { en: () => 'needs "text" or "content"', zh: () => '需要 text 或 content' },
    catalog_key_missing: { en: () => 'is missing from the catalog entry', zh: () => '目录条目缺少此项' },
  },
  unknown_config_format: {
    empty_file: { en: (c) => c.s('file') + ' is empty: there is nothing to import', zh: (c) => c.s('file') + ' 是空文件：没有可导入的内容' },
  },
  unsupported: {
    config_overrides: {
      en: (c) => c.n('entries') + ' key=value word(s) after the config override it on the command line, which the import does not read: put the values in the config file',
      zh: (c) => '配置文件之后的 ' + c.n('entries') + ' 个 key=value 参数会在命令行上覆盖其中的设置，导入不读取这些参数：请把取值写进配置文件',
    },
    torchtune_rlhf_recipe: {
      en: (c) => "torchtune's " + (c.s('algorithm') === 'ppo' ? 'PPO' : 'GRPO') + ' recipe is not read by the import, which reads torchtune\'s finetune recipes: enter it in the form as an RLHF ' + (c.s('algorithm') === 'ppo' ? 'PPO' : 'GRPO') + ' job',
      zh: (c) => 'torchtune 的 ' + (c.s('algorithm') === 'ppo' ? 'PPO' : 'GRPO') + ' 训练配方不在导入范围内（导入只读取 torchtune 的微调配方）：请在表单中按 RLHF ' + (c.s('algorithm') === 'ppo' ? 'PPO' : 'GRPO') + ' 任务填写',
    },
    too_many_open_values: {
      en: (c) => c.n('entries') + ' values hold variables the script does not set (at most ' + c.n('limit') + ' are traced to their fields); set them in the script',
      zh: (c) => '有 ' + c.n('entries') + ' 个值取决于脚本中未设置的变量（最多追踪 ' + c.n('limit') + ' 个）；请在脚本中设置这些变量',
    },
  },
  out_of_range: {
    global_batch_above_2_53: {
      en: () => 'the global batch (micro_batch_size x data parallel x gradient_accumulation_steps) exceeds 2^53 sequences',
      zh: () => '全局批大小（micro_batch_size × 数据并行 × gradient_accumulation_steps）超过 2^53 条序列',
    },
    empty_pipeline_stages: {
      en: (c) => c.n('chunks') + ' pipeline chunks (pipeline_parallel_size x virtual_pipeline_stages) for ' + c.n('layers') + ' layers: a chunk would hold no layer',
      zh: (c) => c.n('layers') + ' 层无法分成 ' + c.n('chunks') + ' 个流水线块（pipeline_parallel_size × virtual_pipeline_stages）：有的块一层也没有',
    },
    torchtitan_empty_stages: {
      en: (c) => 'torchtitan refuses ' + c.n('chunks') + ' pipeline chunks for ' + c.n('layers') + ' layers plus embedding and output: empty stages',
      zh: (c) => 'torchtitan 拒绝把 ' + c.n('layers') + ' 层（另加嵌入层和输出层）分成 ' + c.n('chunks') + ' 个流水线块：会出现空的阶段',
    },
  },
  conflicting_values: {
    files_disagree: {
      en: (c) => c.s('first') + ' says ' + c.s('first_value') + ', ' + c.s('second') + ' says ' + c.s('second_value') + '; make the files agree',
      zh: (c) => c.s('first') + ' 设为 ' + c.s('first_value') + '，' + c.s('second') + ' 设为 ' + c.s('second_value') + '；请让这些文件保持一致（框架会报错或静默取其一）',
    },
    bf16_and_fp16: {
      en: () => '--bf16 and --fp16 together: Megatron-LM asserts only one is set',
      zh: () => '--bf16 和 --fp16 不能同时设置：Megatron-LM 断言只能设置其一',
    },
  },
  invalid_json: {
    error_document: {
      en: () => "the input is an error document (another command's output), not an estimate document",
      zh: () => '输入是一份错误文档（另一条命令的输出），不是估算文档',
    },
    nul_byte: {
      en: (c) => 'contains a NUL byte at byte offset ' + c.n('offset') + ' (a text file has none)',
      zh: (c) => '在字节偏移 ' + c.n('offset') + ' 处含有 NUL 字节（文本文件中不应出现）',
    },
    too_deep: {
      en: (c) => 'nests arrays/objects deeper than ' + c.n('limit') + ' levels',
      zh: (c) => '数组/对象的嵌套超过 ' + c.n('limit') + ' 层',
    },
    number_out_of_range: { en: () => 'is not valid JSON (a number out of range)', zh: () => '不是有效的 JSON（数字超出范围）' },
    syntax: {
      en: (c) => 'is not valid JSON (syntax error at line ' + c.n('line') + ', column ' + c.n('column') + ')',
      zh: (c) => '不是有效的 JSON（第 ' + c.n('line') + ' 行第 ' + c.n('column') + ' 列有语法错误）',
    },
    shell_syntax: {
      en: (c) => 'line ' + c.n('line') + ': a shell command the import cannot read',
      zh: (c) => '第 ' + c.n('line') + ' 行：无法解析的 shell 命令',
    },
  },
};
