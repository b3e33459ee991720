// What the setup asks of a GPU that it cannot do: bf16 arithmetic or FlashAttention-2 kernels on
// a GPU without them (Volta, Turing; asked for as FlashAttention-2 or -3), FlashAttention-3 off
// Hopper, FP8 matmuls below compute capability 8.9, and on a TPU the libraries that have no TPU
// back end. The catalog says what each GPU can run (catalog/README.md).
#include "trainmem/explain.hpp"
#include "trainmem/framework_defaults.hpp"
#include "trainmem/message_codes.hpp"
#include "trainmem/rlhf.hpp"

namespace trainmem {

void hardware_warnings(const TrainingSetup& s, const Estimate& e, std::vector<Warning>& w) {
  if (!s.gpu) return;
  const GpuSpec& g = *s.gpu;
  const ResolvedPrecision& p = e.precision;
  const bool bf16 = p.param_dtype == Dtype::bf16 || p.compute_dtype == Dtype::bf16 || p.grad_dtype == Dtype::bf16;
  if (bf16 && !g.bf16)
    w.push_back({warning_code::bf16_unsupported,
                 g.display_name + " has no bf16 arithmetic (compute capability below 8.0): PyTorch's "
                 "torch.cuda.is_bf16_supported() is False there and the HF Trainer refuses --bf16; train in fp16 "
                 "(precision.param_dtype / compute_dtype \"fp16\", with loss scaling) or fp32",
                 {{"gpu", g.display_name}}});
  if (s.precision.fp8_compute && !has_fp8_tensor_cores(g)) {
    w.push_back({warning_code::fp8_unsupported,
                 g.display_name + " has no FP8 tensor cores (compute capability 8.9 and above: Ada, Hopper, Blackwell; "
                 "Transformer Engine refuses FP8 below it): the activations are priced in 16 bits and the step time "
                 "without FP8 matmuls; switch precision.fp8_compute off to estimate what the run will do",
                 {{"gpu", g.display_name}, {"field", "precision.fp8_compute"}}});
  } else if ((p.param_dtype == Dtype::fp8 || p.compute_dtype == Dtype::fp8) && !has_fp8_tensor_cores(g)) {
    // Weights or compute in fp8 (torch.float8_e4m3fn): PyTorch multiplies them only through
    // torch._scaled_mm, which needs FP8 tensor cores (compute capability 8.9).
    const char* field = p.param_dtype == Dtype::fp8 ? "precision.param_dtype" : "precision.compute_dtype";
    w.push_back({warning_code::fp8_unsupported,
                 g.display_name + " has no FP8 tensor cores (compute capability 8.9 and above: Ada, Hopper, Blackwell): " +
                     field + " fp8 has no matmul there (torch._scaled_mm needs them); set it to bf16 or fp16 to estimate what the "
                     "run will do",
                 {{"gpu", g.display_name}, {"field", field}}});
  }
  const bool flash_kernel = s.attention == AttentionImplementation::flash || s.attention == AttentionImplementation::flash3;
  if (s.model.architecture && flash_kernel && !g.flash_attention_2)
    w.push_back({warning_code::flash_attention_unsupported,
                 g.display_name + " cannot run FlashAttention-2 (Ampere, Ada and Hopper only, Dao-AILab/flash-attention "
                 "README): the run uses SDPA's memory-efficient kernel or eager attention instead; set attention \"sdpa\" "
                 "(or \"eager\") to estimate what it will keep",
                 {{"gpu", g.display_name}}});
  // FlashAttention-3 where FlashAttention-2 runs but the GPU is no Hopper (a custom device, which
  // names no architecture, included: its step time takes FlashAttention-2's rates too); where not
  // even FlashAttention-2 runs, the warning above says what the run uses instead.
  if (s.model.architecture && s.attention == AttentionImplementation::flash3 && g.flash_attention_2 &&
      g.performance.generation != GpuGeneration::hopper)
    w.push_back({warning_code::flash_attention_3_unsupported,
                 g.display_name + " cannot run FlashAttention-3 (H100 / H800, Hopper only: Dao-AILab/flash-attention README, "
                 "\"FlashAttention-3 beta release\"): the step time is priced with FlashAttention-2's rates, which keep the "
                 "same tensors; set attention \"flash\" (or \"sdpa\") for what the run will use",
                 {{"gpu", g.display_name}}});
  // On a TPU (PyTorch/XLA): bitsandbytes runs on NVIDIA, AMD, Intel XPU and Gaudi devices and the
  // CPU, not TPUs (bitsandbytes docs, installation.md at v0.50.2), its paged optimizers on CUDA
  // unified memory; Liger Kernel's Triton kernels install for CUDA, ROCm, Intel XPU and Ascend NPU
  // (linkedin/Liger-Kernel setup.py get_default_dependencies), no XLA; DeepSpeed's accelerators are cuda, cpu, xpu, npu, mps, hpu, mlu and sdaa
  // (deepspeed/accelerator/real_accelerator.py SUPPORTED_ACCELERATOR_LIST); Megatron-LM needs CUDA.
  if (g.kind == "tpu") {
    // params.parts: what of the setup has no TPU back end, as English names; params.part_ids: the
    // same as ids (the page names them in its language): bitsandbytes_4bit_base,
    // bitsandbytes_8bit_base, hqq_base, bitsandbytes_paged_optimizer, bitsandbytes_8bit_optimizer,
    // liger_kernel, deepspeed, megatron.
    std::string parts, ids, why;
    auto add = [&](const char* id, const char* part) {
      parts += (parts.empty() ? "" : ", ") + std::string(part);
      ids += (ids.empty() ? "" : ",") + std::string(id);
    };
    if (s.method == Method::qlora && qlora_through_bitsandbytes(s)) {
      if (s.qlora.quant_type == Dtype::int8) add("bitsandbytes_8bit_base", "bitsandbytes 8-bit base");
      else add("bitsandbytes_4bit_base", "bitsandbytes 4-bit base");
    }
    if (is_paged(p.optimizer)) add("bitsandbytes_paged_optimizer", "bitsandbytes paged optimizer");
    // The HF integrations' 8-bit AdamW is bitsandbytes' (transformers' optim adamw_bnb_8bit).
    else if (p.optimizer == Optimizer::adamw_8bit && trains_transformers_model(s.framework))
      add("bitsandbytes_8bit_optimizer", "bitsandbytes 8-bit optimizer");
    if (!parts.empty()) why = "bitsandbytes: NVIDIA, AMD, Intel and Gaudi devices";
    // transformers' HQQ quantizer refuses to run without CUDA ("No GPU found. A GPU is needed for
    // quantization.": src/transformers/quantizers/quantizer_hqq.py @00c6e5fe validate_environment).
    if (qlora_through_hqq(s)) {
      add("hqq_base", "HQQ base");
      why += (why.empty() ? "" : "; ") + std::string("transformers' HQQ quantizer: CUDA");
    }
    if (s.use_liger_kernel && liger_applies(s)) {
      add("liger_kernel", "Liger Kernel");
      why += (why.empty() ? "" : "; ") + std::string("Liger Kernel: CUDA, ROCm, Intel XPU and Ascend NPU");
    }
    const ShardingEngine engine = sharding_engine(s);
    if (engine == ShardingEngine::deepspeed) {
      add("deepspeed", "DeepSpeed");
      why += (why.empty() ? "" : "; ") + std::string("DeepSpeed: no XLA accelerator");
    }
    if (engine == ShardingEngine::megatron || s.framework == Framework::megatron) {
      add("megatron", "Megatron-LM");
      why += (why.empty() ? "" : "; ") + std::string("Megatron-LM: CUDA");
    }
    if (!parts.empty())
      w.push_back({warning_code::tpu_unsupported_software,
                   g.display_name + " is a TPU: " + parts + " ha" + (parts.find(", ") == std::string::npos ? "s" : "ve") +
                       " no TPU back end (" + why + "), so the run cannot start as written; this estimate prices PyTorch's "
                       "CUDA allocator, not XLA's",
                   {{"gpu", g.display_name}, {"parts", parts}, {"part_ids", ids}}});
  }
}

bool vllm_share_below_weights(const TrainingSetup& s, const Estimate& e) {
  // vLLM sizes its pool to the share and loads the weights into it: a share below them cannot start.
  const auto weights = vllm_weight_bytes(s);
  return weights && e.rollout_vllm_bytes && *weights > *e.rollout_vllm_bytes;
}

std::vector<std::string> cannot_run_codes(const TrainingSetup& s, const Estimate& e) {
  std::vector<Warning> hardware;
  hardware_warnings(s, e, hardware);
  std::vector<std::string> codes;
  for (const auto& w : hardware) codes.push_back(w.code);
  if (vllm_share_below_weights(s, e)) codes.emplace_back(warning_code::vllm_share_below_weights);
  return codes;
}

}  // namespace trainmem
