// Interface languages: English and Simplified Chinese (labels only; the engine's explanations,
// warnings and error messages stay in English). Static labels carry data-i18n="key" in index.html,
// whose English text is the English dictionary; strings built in script are in STRINGS.en.
'use strict';

(function (root, factory) {
  if (typeof module === 'object' && module.exports) module.exports = factory();
  else root.TrainmemI18n = factory();
})(typeof self !== 'undefined' ? self : this, function () {
  const STRINGS = {
    en: {
      ready: 'Estimate up to date.',
      no_estimate: 'No estimate: the engine rejected the input (fields marked below).',
      engine_failed: 'The engine could not be loaded: {message}',
      fits: 'fits on {gpu}',
      no_fit: 'does not fit on {gpu}',
      fit_unknown: 'no GPU chosen',
      short_by: 'short by {bytes}',
      c_parameters: 'Parameters',
      c_gradients: 'Gradients',
      c_optimizer_states: 'Optimizer states',
      c_model_states: 'Model states (lower bound)',
      c_activations: 'Activations',
      c_temporary_buffers: 'Temporary buffers',
      c_fragmentation: 'Allocator fragmentation',
      c_cuda_context: 'CUDA context',
      c_peak_allocated: 'Peak allocated (torch.cuda.max_memory_allocated)',
      c_peak_reserved: 'Peak reserved (+ fragmentation)',
      c_peak: 'Peak (+ CUDA context: must fit)',
      c_paged_device_resident: 'Paged optimizer states on the GPU',
      c_paged_host_resident: 'Paged optimizer states in host memory',
      d_device_total: 'Device total (nvidia-smi)',
      d_capacity: 'Usable by the job',
      ph_load: 'load',
      ph_forward: 'forward',
      ph_backward: 'backward',
      ph_optimizer_step: 'optimizer step',
      peak_mark: 'peak',
      f_total: 'Total parameters',
      f_trainable: 'Trainable parameters',
      f_active: 'Active parameters per token',
      f_adapter: 'Adapter parameters',
      f_global_batch: 'Global batch (sequences per step)',
      f_dp: 'Data-parallel size',
      f_bytes_per_param: 'Bytes per parameter (weights / gradients / optimizer)',
      f_precision: 'Precision in effect',
      global_batch: 'global batch: {n} sequences',
      h_cpu: 'CPU RAM per node (offload, pinned buffers)',
      h_cpu_fits: 'Fits in the node RAM given',
      h_nvme: 'NVMe (offload)',
      k_training_state: 'Training state (resumable checkpoint)',
      k_largest_rank: 'Largest file set of one rank',
      k_inference_weights: 'Inference weights',
      k_adapter: 'Adapter only',
      k_per_checkpoint: 'Per checkpoint saved',
      k_keep_last: 'All checkpoints kept',
      k_fit_count: 'Checkpoints that fit on the free disk',
      role: 'Model',
      transient: 'Transient',
      rollout_kv: 'Rollout KV cache',
      yes: 'yes',
      no: 'no',
      unknown: 'unknown',
      none_found: 'no warnings',
      computing: 'computing…',
      not_within: 'not within {n}',
      pinned: 'Pinned',
      current: 'Current',
      difference: 'Difference',
      changed_inputs: 'Inputs that differ from the pinned configuration: {list}',
      same_inputs: 'The inputs are the same as the pinned configuration.',
      link_problem: 'Link parameter "{param}"{path} = "{value}" was ignored: {message}. The rest of the link was kept.',
      link_rejected: 'Link parameter "{param}" ({path}) was left out: {message}',
      storage_problem: 'The saved state could not be read and was ignored.',
      hf_matched: '{hf} is the preset {name}.',
      hf_similar: '{hf} is not in the catalog; selected {name} ({hf2}), which has the same architecture.',
      hf_unknown: '{hf} is not in the catalog and the page makes no network requests: paste its config.json below.',
      no_match: 'No preset matches "{query}".',
      matches: '{n} presets match.',
      config_added: 'Custom model "{name}" added and selected.',
      config_bad_json: 'Not valid JSON: {message}',
      config_not_object: 'A config.json is a JSON object ({...}).',
      presets: 'Presets',
      customs: 'Custom models',
      count_only: 'parameter count only',
      model_none: 'none',
      custom_gpu: 'custom device',
      copied: 'Link copied.',
      copy_failed: 'Copy the address from the address bar: the browser refused clipboard access.',
    },
    zh: {
      tagline: '这次训练放得下吗？在浏览器中由 trainmem 引擎计算每块 GPU 的显存。',
      units: '单位', language: '语言', theme: '主题', theme_auto: '跟随系统', theme_light: '浅色', theme_dark: '深色',
      copy_link: '复制链接',
      sec_model: '模型', model_search: '搜索预设（名称、系列、规模）或粘贴 Hugging Face 链接',
      model_search_ph: 'llama 8b、qwen moe、meta-llama/Llama-3.1-8B', model: '模型',
      num_parameters: '参数量（仅模型状态）', custom_model: '自定义模型：粘贴或拖入 config.json',
      config_paste: 'config.json 文本', config_use: '使用此配置', config_file: '或选择文件',
      sec_method: '方法', method: '微调方法', method_full: '全参数', method_freeze: '冻结（训练最后 k 层）',
      rlhf_algorithm: '偏好 / 强化学习', none: '无', lora_r: 'LoRA 秩 r', lora_targets: '目标模块（逗号分隔或 all-linear）',
      quant_type: '4 位量化类型', default: '默认', double_quant: '双重量化', on: '开', off: '关',
      trainable_layers: '可训练的最后几层', reference: '参考模型', ref_frozen: '冻结副本', ref_shared: '共享基座（LoRA）',
      reward_model: '奖励模型', reward_count: '奖励模型参数量', critic_model: '价值（critic）模型',
      critic_count: 'critic 参数量', critic_method: 'critic 训练方式', max_new_tokens: '采样新生成 token 数',
      num_generations: '每个提示的生成数', colocated: '生成与训练同卡', lora_more: '更多 LoRA 设置',
      lora_alpha: 'lora_alpha（不影响显存）', lora_dropout: 'lora_dropout', use_dora: 'DoRA', adapter_dtype: '适配器数据类型',
      modules_to_save: '全量训练的模块（lm_head、embed_tokens）',
      sec_training: '训练', framework: '框架（决定默认值）', optimizer: '优化器', param_dtype: '权重数据类型',
      micro_batch_size: '每卡微批大小', seq_length: '序列长度', grad_accum: '梯度累积步数', checkpointing: '激活检查点',
      ckpt_selective: '选择性', ckpt_full: '全部', selective_policy: '选择性重计算策略', attention: '注意力实现',
      sec_gpus: 'GPU 与并行', gpu: 'GPU', world_size: 'GPU 数量（world size）', gpu_memory: '设备显存',
      gpu_usable: '可用显存', gpu_context: 'CUDA 上下文', zero_stage: 'ZeRO / FSDP 阶段', zero0: '0（DDP）',
      zero2: '2（SHARD_GRAD_OP）', zero3: '3（FULL_SHARD）', tp: '张量并行', pp: '流水线并行', sp: '序列并行',
      cp: '上下文并行', ep: '专家并行', offload_optimizer: '优化器卸载', offload_param: '参数卸载',
      pipeline_schedule: '流水线调度', virtual_stages: '虚拟流水线阶段', advanced: '高级',
      grad_dtype: '梯度数据类型', compute_dtype: '计算数据类型（autocast）', master_weights: 'fp32 主权重',
      optimizer_state_dtype: '优化器状态数据类型', optimizer_in_backward: '反向传播中执行优化器步',
      fp8_compute: 'FP8 矩阵乘', decoder_seq_length: '解码器序列长度（编码器-解码器）', checkpointed_layers: '检查点层数',
      all: '全部', activation_offload: '激活卸载到 CPU', loss_impl: '损失实现', logits_fp32: 'logits 升为 fp32',
      num_chunks: '损失分块数', compile: 'torch.compile', model_loading: '模型加载方式', gpus_per_node: '每节点 GPU 数',
      data_parallel_size: '数据并行规模', derived: '自动推导', sharding_group_size: '分片组大小（HYBRID_SHARD）',
      reshard_after_forward: '前向后重新分片', zero3_live: 'ZeRO-3 最大常驻参数', fragmentation_fraction: '分配器碎片比例',
      sec_checkpoint: '检查点与主机内存', ckpt_save: '检查点内容', ckpt_exclude_frozen: '排除冻结参数',
      ckpt_weights_dtype: '保存权重的数据类型', ckpt_keep_last: '保留的检查点数', ckpt_free_disk: '可用磁盘',
      ckpt_node_ram: '每节点 CPU 内存',
      results: '结果', loading: '正在加载引擎…', peak_per_gpu: '每卡峰值', lower_bound: '下界（模型状态）', fit: '是否放得下',
      headroom: '余量', chart_label: '堆叠条形图：按组成部分的每卡显存', breakdown: '每卡显存明细', component: '组成部分',
      memory: '显存', breakdown_note: '每个组成部分附引擎针对此配置的公式及其来源。', device_view: '已分配、已保留与设备总量', phases: '各阶段峰值已分配显存',
      model_facts: '参数与批量', rlhf_models: '各模型显存（RLHF）', host: 'CPU 内存与 NVMe', disk: '检查点磁盘预算',
      warnings: '警告', gpu_table: '目录中的所有 GPU',
      gpu_table_note: '当前 GPU 数量下的每卡峰值，以及引擎判定放得下的最少 GPU 数（按模型并行规模递增，ZeRO 阶段不变）。',
      usable: '可用', peak_here: '当前数量下的峰值', min_gpus: '放得下的最少 GPU 数', compare: '对比',
      pin: '固定此配置', unpin: '取消固定', export: '导出与分享', export_md: '下载 Markdown', export_json: '下载 JSON',
      offline_zip: '离线版（zip）', input_document: '输入文档（交给引擎的内容）',
      footer: '所有数字与说明均来自编译为 WebAssembly 的 trainmem C++ 引擎；数据不会离开本页面。',
      ready: '估算已是最新。',
      no_estimate: '无结果：引擎拒绝了输入（见下方标出的字段）。',
      engine_failed: '无法加载引擎：{message}',
      fits: '在 {gpu} 上放得下', no_fit: '在 {gpu} 上放不下', fit_unknown: '未选择 GPU', short_by: '缺少 {bytes}',
      c_parameters: '参数', c_gradients: '梯度', c_optimizer_states: '优化器状态', c_model_states: '模型状态（下界）',
      c_activations: '激活', c_temporary_buffers: '临时缓冲区', c_fragmentation: '分配器碎片', c_cuda_context: 'CUDA 上下文',
      c_peak_allocated: '峰值已分配（torch.cuda.max_memory_allocated）', c_peak_reserved: '峰值已保留（含碎片）',
      c_peak: '峰值（含 CUDA 上下文：必须放得下）', c_paged_device_resident: '分页优化器状态（GPU 上）',
      c_paged_host_resident: '分页优化器状态（主机内存）',
      d_device_total: '设备总量（nvidia-smi）', d_capacity: '作业可用',
      ph_load: '加载', ph_forward: '前向', ph_backward: '反向', ph_optimizer_step: '优化器步', peak_mark: '峰值',
      f_total: '总参数', f_trainable: '可训练参数', f_active: '每 token 激活参数', f_adapter: '适配器参数',
      f_global_batch: '全局批量（每步序列数）', f_dp: '数据并行规模', f_bytes_per_param: '每参数字节数（权重 / 梯度 / 优化器）',
      f_precision: '生效的精度', global_batch: '全局批量：{n} 条序列',
      h_cpu: '每节点 CPU 内存（卸载、锁页缓冲）', h_cpu_fits: '放得进给定的节点内存', h_nvme: 'NVMe（卸载）',
      k_training_state: '训练状态（可恢复检查点）', k_largest_rank: '单个 rank 的最大文件集', k_inference_weights: '推理权重',
      k_adapter: '仅适配器', k_per_checkpoint: '每个检查点', k_keep_last: '保留的全部检查点', k_fit_count: '可用磁盘能放下的检查点数',
      role: '模型', transient: '临时', rollout_kv: '采样 KV 缓存', yes: '是', no: '否', unknown: '未知', none_found: '无警告',
      computing: '计算中…', not_within: '{n} 块以内放不下', pinned: '已固定', current: '当前', difference: '差值',
      changed_inputs: '与固定配置不同的输入：{list}', same_inputs: '输入与固定配置相同。',
      link_problem: '链接参数 "{param}"{path} = "{value}" 已忽略：{message}。链接的其余部分已保留。',
      link_rejected: '链接参数 "{param}"（{path}）已去掉：{message}',
      storage_problem: '无法读取保存的状态，已忽略。',
      hf_matched: '{hf} 对应预设 {name}。', hf_similar: '{hf} 不在目录中；已选择架构相同的 {name}（{hf2}）。',
      hf_unknown: '{hf} 不在目录中，且本页面不发起网络请求：请在下方粘贴它的 config.json。',
      no_match: '没有匹配 "{query}" 的预设。', matches: '匹配 {n} 个预设。',
      config_added: '已添加并选中自定义模型 "{name}"。', config_bad_json: '不是有效的 JSON：{message}',
      config_not_object: 'config.json 应是一个 JSON 对象（{...}）。',
      presets: '预设', customs: '自定义模型', count_only: '仅参数量', model_none: '无', custom_gpu: '自定义设备',
      copied: '链接已复制。', copy_failed: '浏览器拒绝访问剪贴板：请从地址栏复制。',
    },
  };

  let lang = 'en';

  function t(key, vars) {
    const table = STRINGS[lang] || STRINGS.en;
    let s = key in table ? table[key] : key in STRINGS.en ? STRINGS.en[key] : key;
    if (vars) for (const [k, v] of Object.entries(vars)) s = s.split('{' + k + '}').join(String(v));
    return s;
  }

  // Records the page's English labels once, then shows every data-i18n label in `next`.
  function apply(doc, next) {
    lang = STRINGS[next] ? next : 'en';
    const en = STRINGS.en;
    for (const el of doc.querySelectorAll('[data-i18n]')) {
      const key = el.dataset.i18n;
      if (!(key in en)) en[key] = el.textContent;
      el.textContent = t(key);
    }
    for (const [attr, data] of [['placeholder', 'i18nPlaceholder'], ['aria-label', 'i18nAriaLabel']]) {
      for (const el of doc.querySelectorAll('[data-i18n-' + attr + ']')) {
        const key = el.dataset[data];
        if (!(key in en)) en[key] = el.getAttribute(attr);
        el.setAttribute(attr, t(key));
      }
    }
    doc.documentElement.lang = lang === 'zh' ? 'zh-Hans' : 'en';
  }

  return { STRINGS, t, apply, language: () => lang };
});
