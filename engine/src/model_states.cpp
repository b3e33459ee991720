#include "trainmem/model_states.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "trainmem/framework_defaults.hpp"

namespace trainmem {

namespace {
constexpr double kQloraBlockSize = 64.0;         // weights per absmax (QLoRA §3)
constexpr double kDoubleQuantBlockSize = 256.0;  // absmax values per second-level constant
constexpr double kInt8Bytes = 1.0;
constexpr double kDeepSpeedSubGroup = 1e9;  // elements, ZeRO-3 sub_group_size
}  // namespace

double flat_gradient_elements_per_frozen_linear_weight(const TrainingSetup& s, Dtype frozen) {
  return s.method == Method::qlora && s.qlora.quant_type != Dtype::int8 ? quantized_storage_bytes_per_weight(s.qlora) / dtype_bytes(frozen) : 1.0;
}

double qlora_constant_bytes_per_param(const QloraSettings& q, Dtype loaded) {
  // HQQ: one scale and one zero per group of group_size weights, in HQQLinear's compute_dtype,
  // the dtype the model is loaded in (mobiusml/hqq hqq/core/quantize.py @e0b1d00 Quantizer.quantize
  // and HQQLinear.cuda; transformers src/transformers/quantizers/quantizer_hqq.py @00c6e5fe:
  // compute_dtype=self.torch_dtype). LLaMA-Factory keeps them unquantized (quant_zero=False,
  // quant_scale=False: src/llamafactory/model/model_utils/quantization.py @13e73887).
  if (q.quant_method == QuantMethod::hqq) return 2.0 * dtype_bytes(loaded) / static_cast<double>(q.group_size);
  if (q.quant_type == Dtype::int8) return 0.0;
  if (!q.double_quant) return kFp32Bytes / kQloraBlockSize;
  return kInt8Bytes / kQloraBlockSize + kFp32Bytes / (kQloraBlockSize * kDoubleQuantBlockSize);
}

double quantized_storage_bytes_per_weight(const QloraSettings& q) {
  if (q.quant_method == QuantMethod::hqq) {
    // HQQ's bit packing (hqq/core/quantize.py @e0b1d00 Quantizer.bit_to_packing, hqq/core/bitpack.py):
    // 8, 6 and 5 bits one uint8 per weight (5 and 6 are not packed), 4 bits two per uint8, 3 bits
    // ten per int32, 2 bits four per uint8, 1 bit eight per uint8.
    switch (q.nbits) {
      case 1: return 1.0 / 8.0;
      case 2: return 1.0 / 4.0;
      // Ten to an int32 along the rows packed: along axis 0 a group's group_size rows, padded to a
      // multiple of ten (BitPack.pack_3bit_32); along axis 1 the weight's numel / group_size rows,
      // whose padding is negligible.
      case 3: {
        if (q.axis == 1) return 4.0 / 10.0;
        const double g = static_cast<double>(q.group_size);
        return 4.0 * std::ceil(g / 10.0) / g;
      }
      case 4: return 1.0 / 2.0;
      default: return 1.0;
    }
  }
  // LLM.int8(): one int8 byte per weight (Linear8bitLt's Int8Params CB) and one fp32 scale per
  // output row (SCB), 4 / in_features bytes per weight, under 0.1 % from 4096 inputs: not counted.
  if (q.quant_type == Dtype::int8) return kInt8Bytes;
  return dtype_bytes(q.quant_type);
}

double qlora_weight_bytes_per_param(const QloraSettings& q, Dtype loaded) {
  return quantized_storage_bytes_per_weight(q) + qlora_constant_bytes_per_param(q, loaded);
}

// Adapters held in a dtype of their own (lora.adapter_dtype, when given): PEFT's
// autocast_adapter_dtype keeps them in fp32 over a 16-bit base (peft >= 0.12, get_peft_model),
// torchtune builds them in the model's dtype. Their gradients take the weights' dtype (autograd),
// an fp32 adapter keeps fp32 optimizer moments (torch AdamW's state dtype is the parameter's) and
// needs no master copy. Unstated, the adapters follow the precision block like any trainable
// weight, but where PEFT upcasts them to fp32 (peft_upcasts_adapters).
std::optional<ResolvedPrecision> adapter_precision(const TrainingSetup& s, const ResolvedPrecision& precision) {
  if (!uses_adapters(s.method) || (s.unstated.adapter_dtype && !peft_upcasts_adapters(s))) return std::nullopt;
  ResolvedPrecision a = precision;
  a.param_dtype = a.grad_dtype = adapter_dtype(s);
  if (a.param_dtype == Dtype::fp32) {
    a.optimizer_state_dtype = Dtype::fp32;
    a.master_weights = false;
  }
  return a;
}

std::optional<BytesPerParam> adapter_bytes_per_param(const TrainingSetup& s, const ResolvedPrecision& precision) {
  const std::optional<ResolvedPrecision> a = adapter_precision(s, precision);
  if (!a) return std::nullopt;
  return trainable_bytes_per_param(*a, s.model.architecture ? &*s.model.architecture : nullptr);
}

double sharding_degree(const ParallelSettings& p) {
  if (p.sharding_group_size) return static_cast<double>(*p.sharding_group_size);
  return static_cast<double>(p.data_parallel_size * p.context_parallel_size);
}

std::vector<ModelStates> model_states(const TrainingSetup& s, const ResolvedPrecision& precision) {
  const Architecture* arch = s.model.architecture ? &*s.model.architecture : nullptr;
  const BytesPerParam b = trainable_bytes_per_param(precision, arch);
  const double frozen_bytes = dtype_bytes(precision.param_dtype);
  const double qlora_bytes = qlora_weight_bytes_per_param(s.qlora, precision.param_dtype);
  const int zero = s.parallel.zero_stage;
  const double dense_degree = sharding_degree(s.parallel);
  const double expert_degree = expert_sharding_degree(s.parallel, dense_degree);
  const bool offload_opt = s.parallel.offload_optimizer != OffloadTarget::none;
  const bool offload_par = s.parallel.offload_param != OffloadTarget::none && zero == 3;
  const ShardingEngine engine = sharding_engine(s);
  const bool flat_units = fsdp1_whole_unit_gradients(s);
  // Micro-batches whose gradients accumulate before the optimizer step: accumulation steps, or a
  // pipeline's micro-batches (each stage accumulates over all of them).
  const bool accumulates = s.batch.gradient_accumulation_steps > 1;
  const bool no_sync = accumulates && zero >= 2 && gradient_sync(s) == GradientSync::last_micro_batch;
  // FSDP accumulates no_sync gradients in its reduce dtype, the mixed-precision param_dtype
  // (torch FSDP2 FSDPParam.to_accumulated_grad_if_needed; FSDP1 keeps the unsharded low-precision
  // gradient); other engines in the gradient dtype.
  const bool fsdp_engine = engine == ShardingEngine::fsdp || engine == ShardingEngine::fsdp2;
  const double unsharded_grad_bytes = dtype_bytes(fsdp_engine ? precision.compute_dtype : precision.grad_dtype);

  const std::optional<BytesPerParam> adapter_bytes = adapter_bytes_per_param(s, precision);

  std::vector<ModelStates> result;
  const auto stages = stage_parameters(s);
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const RankParameters& r = stages[i];
    const double param_shard_d = zero >= 3 ? dense_degree : 1.0;
    const double param_shard_e = zero >= 3 ? expert_degree : 1.0;
    const double grad_shard_d = zero >= 2 ? dense_degree : 1.0;
    const double grad_shard_e = zero >= 2 ? expert_degree : 1.0;
    const double opt_shard_d = zero >= 1 ? dense_degree : 1.0;
    const double opt_shard_e = zero >= 1 ? expert_degree : 1.0;

    double frozen_param_bytes_d, frozen_param_bytes_e;
    if (s.method == Method::qlora) {
      // Frozen linear weights in 4 or 8 bits; embeddings, norms and head stay 16-bit (QLoRA §3;
      // transformers keeps the output head unquantized under load_in_8bit too, get_keys_to_not_convert).
      const double frozen_linear_share =
          r.dense_frozen + r.expert_frozen > 0 ? r.frozen_linear_weights / (r.dense_frozen + r.expert_frozen) : 0.0;
      const double per_param = frozen_linear_share * qlora_bytes + (1 - frozen_linear_share) * frozen_bytes;
      frozen_param_bytes_d = r.dense_frozen * per_param;
      frozen_param_bytes_e = r.expert_frozen * per_param;
    } else {
      frozen_param_bytes_d = r.dense_frozen * frozen_bytes;
      frozen_param_bytes_e = r.expert_frozen * frozen_bytes;
    }

    ModelStateBytes all;
    all.parameters = (r.dense_trainable * b.param + frozen_param_bytes_d) / param_shard_d +
                     (r.expert_trainable * b.param + frozen_param_bytes_e) / param_shard_e;
    // The 4-bit weights' quantization state (bitsandbytes Params4bit.quant_state: absmax and the
    // double-quantization constants) is a module attribute, no parameter: FSDP flattens and ZeRO-3
    // partitions parameters only, so every rank keeps the whole state (bitsandbytes nn/modules.py
    // Linear4bit.forward restores it from the weight: "the quant state got lost ... for example
    // for fsdp").
    // torchao's NF4Tensor (torchtune) is the parameter itself, scalers included, and shards whole.
    if (qlora_through_bitsandbytes(s) && zero >= 3)
      all.parameters += r.frozen_linear_weights * qlora_constant_bytes_per_param(s.qlora, precision.param_dtype) * (1.0 - 1.0 / param_shard_d);
    // Elements with gradients: the trainable ones, or whole layers under FSDP1's flat parameters,
    // QLoRA's 4-bit weights packed; their quantization state (absmax) is no parameter and has no
    // gradient.
    const double packed_elements = flat_gradient_elements_per_frozen_linear_weight(s, precision.param_dtype);
    const double unit_elements = r.trainable_units - r.unit_frozen_linear_weights * (1.0 - packed_elements);
    const double grad_dense = flat_units ? std::max(r.dense_trainable, unit_elements - r.expert_trainable) : r.dense_trainable;
    all.gradients = grad_dense * b.grad / grad_shard_d + r.expert_trainable * b.grad / grad_shard_e;
    if (no_sync) {
      // Accumulated unsharded until the last micro-batch's reduce-scatter replaces them.
      const double sharded = all.gradients;
      all.gradients = std::max(all.gradients, (grad_dense + r.expert_trainable) * unsharded_grad_bytes);
      if (fsdp_engine) all.accumulation_only_gradients = all.gradients - sharded;
    }
    all.optimizer_states =
        r.dense_trainable * b.optimizer / opt_shard_d + r.expert_trainable * b.optimizer / opt_shard_e;
    if (adapter_bytes) {
      // The adapters' share at their own bytes instead of the precision's (sharded as dense weights).
      all.parameters += r.adapter * (adapter_bytes->param - b.param) / param_shard_d;
      all.gradients += r.adapter * (adapter_bytes->grad - b.grad) / grad_shard_d;
      all.optimizer_states += r.adapter * (adapter_bytes->optimizer - b.optimizer) / opt_shard_d;
    }
    all.step_only_gradients =
        r.dense_trainable * b.optimizer_gradient / opt_shard_d + r.expert_trainable * b.optimizer_gradient / opt_shard_e;
    // ZeRO-3 steps one sub-group of the partition at a time (stage3.py step(): prepare, step and
    // release each sub group; sub_group_size 1e9 elements, zero/config.py).
    if (zero == 3 && b.optimizer_gradient > 0)
      all.step_only_gradients = std::min(all.step_only_gradients, kDeepSpeedSubGroup * b.optimizer_gradient);
    all.gradients += all.step_only_gradients;

    ModelStates m;
    m.params = r;
    m.gpu = all;
    if (offload_opt) {
      m.offloaded.optimizer_states = all.optimizer_states;
      m.gpu.optimizer_states = 0;
      if (engine != ShardingEngine::megatron) {
        // ZeRO-Offload keeps the optimizer and its gradient partition on the host; the GPU keeps
        // only reduce buckets (Ren et al. 2021, §4.1; DeepSpeed stage3.py estimator: GPU = 2P/N +
        // buffers).
        m.offloaded.gradients = all.gradients;
        m.gpu.gradients = 0;
        m.gpu.step_only_gradients = 0;
        m.gpu.accumulation_only_gradients = 0;
      }
      // Megatron's optimizer CPU offload (megatron/core/optimizer/cpu_offloading/
      // hybrid_optimizer.py) moves the fp32 master weights and moments to the host and copies
      // gradients over at each step; the fp32 main-grad buffer stays on the GPU.
    }
    if (offload_par) {
      m.offloaded.parameters = all.parameters;
      m.gpu.parameters = 0;
    }
    if (engine == ShardingEngine::deepspeed && zero == 3 && arch) {
      // The largest module: the embedding or head, or one inside the layers, whose QLoRA linears
      // are gathered as their packed 4-bit storage (transient_buffers.cpp). A partition of one
      // gathers nothing without parameter offload (partition_parameters.py @v0.13.5,
      // _no_gather_coalesced: the parameter is its own partition). Its gradient exists where it
      // trains: the largest module under full training, a layer's under freeze tuning, under
      // adapters a trainable module outside the layers (modules_to_save); an adapter matrix (rank
      // x width) is left out as negligible beside those.
      const double tp = static_cast<double>(s.parallel.tensor_parallel_size);
      const double embedding = static_cast<double>(arch->largest_embedding_or_head_params()) / tp;
      const double element = dtype_bytes(precision.param_dtype);
      const double packed = quantized_storage_bytes_per_weight(s.qlora);
      const bool qlora = s.method == Method::qlora, hqq = qlora_through_hqq(s);
      const double layer_module = arch->largest_layer_module(tp, [](const Linear&) { return 1.0; });
      const double layer_module_bytes =
          arch->largest_layer_module(tp, [&](const Linear& l) { return qlora && quantizer_converts(l, hqq) ? packed : element; });
      if (dense_degree > 1 || offload_par) m.gpu.gathered_module_parameters = std::max(embedding * element, layer_module_bytes);
      const double largest = std::max(embedding, layer_module);
      const double trainable_module = s.method == Method::full     ? largest
                                      : s.method == Method::freeze ? layer_module
                                                                   : std::min(r.trainable() - r.adapter, largest);
      m.gpu.gathered_module_gradient = std::clamp(trainable_module, 0.0, r.trainable()) * element;
      m.gpu.parameters += m.gpu.gathered_module_parameters;
      m.gpu.gradients += m.gpu.gathered_module_gradient;
    }
    result.push_back(m);
  }
  return result;
}

}  // namespace trainmem
