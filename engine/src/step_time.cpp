#include "trainmem/step_time.hpp"

#include <algorithm>
#include <cmath>

#include "trainmem/communication.hpp"
#include "trainmem/compute_time.hpp"
#include "trainmem/flops.hpp"
#include "trainmem/framework_defaults.hpp"
#include "trainmem/lora_targeting.hpp"
#include "trainmem/model_states.hpp"
#include "trainmem/parameter_layout.hpp"
#include "trainmem/rlhf.hpp"
#include "trainmem/run_cost.hpp"
#include "trainmem/vision_activations.hpp"
#include "trainmem/vision_parameters.hpp"

namespace trainmem {

namespace {

// Element passes of memory-bound ops (see step_time.hpp), in bytes per element for a bf16
// activation where a byte count is given, else in passes of the activation dtype.
constexpr double kUnfusedRmsNormBytes = 36;  // fp32 upcast, pow, mean, rsqrt-mul, downcast, weight
constexpr double kUnfusedRopePasses = 11, kFusedRopePasses = 2;
constexpr double kUnfusedSwigluPasses = 5, kFusedSwigluPasses = 3, kGeluPasses = 2;

// Element passes of a plain MLP's activation: a fused op reads x and writes the result; the
// Python GELUs run each op on its own, two passes per unary op and three per binary one (gelu_new:
// 6 unary, 2 binary; gelu_fast: 6 unary, 3 binary; quick_gelu: 2 unary, 1 binary).
double plain_activation_passes(MlpActivation a) {
  switch (a) {
    case MlpActivation::fused: return kGeluPasses;
    case MlpActivation::new_gelu: return 18;
    case MlpActivation::fast_gelu: return 21;
    case MlpActivation::quick_gelu: return 7;
  }
  return kGeluPasses;
}
constexpr double kResidualPasses = 3;
constexpr double kPermutePasses = 2;            // read and write each routed copy, each way
constexpr double kBackwardOverForwardBytes = 2;  // saved input + incoming gradient -> input gradient
constexpr double kUnfusedLossBytesPerLogit = 32, kFusedLossBytesPerLogit = 8;
// Moment passes torch's unfused Adam adds to the fused kernel's (see step_time.hpp).
constexpr double kUnfusedAdamMomentPasses = 10;
// TF32 matmuls run at half the bf16 tensor rate (A100 datasheet: TF32 156 vs BF16 312 TFLOPS;
// H100 SXM: 494.7 vs 989.4).
constexpr double kFp32MatmulRate = 0.5;

// Seconds of one layer of a group for one micro-batch on one GPU.
struct LayerSeconds {
  double forward = 0, backward = 0, recompute = 0;
  double attention_forward = 0, attention_backward = 0;  // under which ring attention's traffic runs
  // The tensor-parallel linears' GEMMs (not routed experts'), forward and backward, and the forward
  // ones again under full recompute: what overlapped tensor-parallel communication runs under
  // (parallel.tp_comm_overlap).
  double linear_gemms = 0;
};

// Weights' worth of memory traffic HQQ's PyTorch backend moves to dequantize one (see layer_seconds).
constexpr double kHqqDequantizeTraffic = 5;

struct Context {
  const TrainingSetup* s;
  const Architecture* a;
  DeviceRates rates;
  FrameworkBehaviour behaviour;
  double act = 2;  // bytes per activation element
  Dtype loaded = Dtype::bf16;  // the frozen weights' dtype (precision.param_dtype)
  double tp = 1, cp = 1, ep = 1, etp = 1;
  bool sp = false, fp8 = false;
  // Transformer Engine keeps each weight's fp8 copy and its transpose from the step's first
  // micro-batch (Megatron passes is_first_microbatch): weight casts per micro-batch, 1 / GA.
  double te_weight_casts = 0;
  const LoraTargeting* lora = nullptr;  // LoRA/QLoRA adapters
  double recompute_share = 1;  // fraction of layers checkpointed
};

// Bytes the optimizer step moves per trained parameter (see step_time.hpp): one fused pass, plus
// the separate kernels of torch's Adam/AdamW on its foreach or for-loop path.
double optimizer_step_bytes_per_param(const TrainingSetup& s, const Estimate& e) {
  const BytesPerParam& b = e.bytes_per_param;
  double bytes = 2 * b.optimizer + b.param + 3 * b.grad;
  if (adam_family(e.precision.optimizer) && optimizer_implementation(s) != OptimizerImplementation::fused)
    bytes += kUnfusedAdamMomentPasses * dtype_bytes(e.precision.optimizer_state_dtype) + b.grad;
  return bytes;
}

// Parameters per second one host's CPUs update with the optimizer an offloading engine steps there
// (see step_time.hpp): a vectorized, multi-threaded Adam (DeepSpeed's CPU-Adam, 10 billion in
// 2.57 s) under DeepSpeed and for a fused torch optimizer; PyTorch's per-tensor Adam on CPU tensors
// (10 billion in 14.76 s) otherwise (Ren et al. 2021, ZeRO-Offload, arXiv 2101.06840, Table 3).
double host_optimizer_parameters_per_second(const TrainingSetup& s) {
  constexpr double kVectorizedCpuAdam = 10e9 / 2.57, kTorchCpuAdam = 10e9 / 14.76;
  if (sharding_engine(s) == ShardingEngine::deepspeed) return kVectorizedCpuAdam;
  if (s.framework == Framework::megatron) return kTorchCpuAdam;
  return optimizer_implementation(s) == OptimizerImplementation::fused ? kVectorizedCpuAdam : kTorchCpuAdam;
}

// Bytes per row of PEFT's elementwise ops around one adapted linear, per input and per output
// feature (see step_time.hpp).
struct AdapterElementwise {
  double forward_per_input = 0, forward_per_output = 0, backward_per_input = 0, backward_per_output = 0;
};

AdapterElementwise adapter_elementwise_bytes(const Context& c, const TrainingSetup& s) {
  const LoraSettings& lora = s.lora;
  const double a = c.act, b = dtype_bytes(adapter_dtype(s));
  // The input cast to the adapter's dtype and back to the compute dtype by autocast, where they differ.
  const double casts = b != a ? 2 * (a + b) : 0.0;
  // nn.Dropout: read and write the input, write the one-byte mask; backward the same.
  const double dropout = lora.lora_dropout > 0 ? 2 * b + 1 : 0.0;
  AdapterElementwise e;
  e.forward_per_input = casts + dropout;
  e.forward_per_output = 2 * a + 3 * a;  // the scaling multiply and the add to the base output
  e.backward_per_input = casts + dropout + 3 * a;  // plus the input gradient added to the base's
  e.backward_per_output = 2 * a;  // the scaling multiply of the output gradient
  return e;
}

double gemm(const Context& c, double m, double n, double k, double groups, bool fp8) {
  return gemm_seconds(m, n, k, groups, fp8 ? 1.0 : c.act, fp8, c.rates);
}

// Forward bytes per token of one layer's memory-bound ops on one GPU.
double elementwise_bytes_per_token(const Context& c, const LayerGroup& g) {
  const double h = static_cast<double>(c.a->hidden_size);
  const double hidden = h / (c.sp ? c.tp : 1.0);
  const AttentionShape& at = g.attention;
  const double qk = static_cast<double>((at.num_attention_heads + at.num_key_value_heads) * at.head_dim) / c.tp;
  const bool python_norm = c.a->norm == NormKind::rms_norm && c.behaviour.unfused_rms_norm;
  const double norm_bytes = python_norm ? kUnfusedRmsNormBytes * c.act / 2 : 2 * c.act;
  double bytes = 0;
  const double q = static_cast<double>(at.num_attention_heads * at.head_dim) / c.tp;
  for (const auto& n : g.norms) {
    // Block norms act on the hidden state, q/k norms on the queries and keys, MLA's low-rank
    // norms on their (replicated) latents.
    double elements = static_cast<double>(n.size);
    if (n.size == c.a->hidden_size) elements = hidden;
    else if (n.name == "q_norm") elements = q;
    else if (n.name == "k_norm") elements = qk - q;
    bytes += norm_bytes * elements;
  }
  if (!c.a->learned_positions && !c.a->alibi_positions) bytes += (c.behaviour.unfused_rms_norm ? kUnfusedRopePasses : kFusedRopePasses) * c.act * qk;
  bytes += 2 * kResidualPasses * c.act * hidden;
  const MlpShape& m = g.mlp;
  const double width = (m.num_local_experts > 0 ? static_cast<double>(m.num_experts_per_tok * m.moe_intermediate_size) : static_cast<double>(m.intermediate_size)) +
                       static_cast<double>(m.shared_intermediate_size);
  const double act_passes = m.gated ? (c.behaviour.unfused_gated_activation ? kUnfusedSwigluPasses : kFusedSwigluPasses)
                                    : plain_activation_passes(plain_mlp_activation(m, c.behaviour));
  bytes += act_passes * c.act * width / c.tp;
  if (m.num_local_experts > 0) {
    // Permute before the dispatch and unpermute after the combine; with more than one expert on
    // the rank, the all-to-all dispatcher also sorts the received copies by local expert and
    // restores their order before the combine (see step_time.hpp), after gathering them over the
    // expert-tensor-parallel group: etp times the rank's own copies.
    const double routed = static_cast<double>(m.num_experts_per_tok) * h / c.tp;
    bytes += 2 * kPermutePasses * c.act * routed;
    if (static_cast<double>(m.num_local_experts) / c.ep > 1) bytes += 2 * kPermutePasses * c.act * routed * c.etp;
  }
  if (c.a->hidden_dropout > 0) bytes += 2 * (2 * c.act + 1) * hidden;
  return bytes;
}

LayerSeconds layer_seconds(const Context& c, std::size_t group, double tokens, double seq, bool base_trained) {
  const TrainingSetup& s = *c.s;
  const LayerGroup& g = c.a->layers[group];
  LayerSeconds t;
  const double qlora_bytes = s.method == Method::qlora ? qlora_weight_bytes_per_param(s.qlora, c.loaded) : 0;
  const bool hqq = qlora_through_hqq(s);
  double op_level = 0;
  int index = 0;
  for (const auto& l : g.linears) {
    double m = tokens, groups = 1;
    double in = static_cast<double>(l.in_features), out = static_cast<double>(l.out_features);
    if (l.routed_expert) {
      // Local experts each take their share of the routed copies of the tokens the ep x etp
      // ranks of their group hold, T / tp each (Megatron's dispatcher: the all-to-all over EP,
      // then the all-gather over ETP; communication.cpp): T k ep etp / (tp E) rows per expert.
      const double experts = static_cast<double>(g.mlp.num_local_experts);
      groups = experts / c.ep;
      m = tokens * static_cast<double>(g.mlp.num_experts_per_tok) * c.ep * c.etp / (c.tp * experts);
    }
    if (l.tp_sharded || l.routed_expert) {
      // Row-parallel layers (back to the hidden size) split their input, column-parallel their
      // output; routed experts over the expert-tensor-parallel group.
      const double split = l.routed_expert ? c.etp : c.tp;
      if (l.out_features == c.a->hidden_size) in /= split;
      else out /= split;
    }
    const bool fp8 = c.fp8 && (l.tp_sharded || l.routed_expert);
    const double forward = gemm(c, m, out, in, groups, fp8);
    double backward = gemm(c, m, in, out, groups, fp8);
    if (base_trained) backward += gemm(c, in, out, m, groups, fp8);
    double extra_forward = 0, extra_backward = 0;
    // The adapter's rank as PEFT places it (lora_targeting.hpp): r (in + out) per copy.
    const double adapter = c.lora ? c.lora->adapter_params(group, l, 0) / static_cast<double>(l.copies) : 0.0;
    if (adapter > 0) {
      const double r = std::round(adapter / static_cast<double>(l.in_features + l.out_features));
      extra_forward += gemm(c, m, r, in, groups, false) + gemm(c, m, out, r, groups, false);
      extra_backward += 2 * extra_forward;  // input and weight gradients of A and B
      const AdapterElementwise bytes = adapter_elementwise_bytes(c, s);
      extra_forward += memory_seconds(m * groups * (in * bytes.forward_per_input + out * bytes.forward_per_output), c.rates);
      extra_backward += memory_seconds(m * groups * (in * bytes.backward_per_input + out * bytes.backward_per_output), c.rates);
      if (qlora_bytes > 0 && quantizer_converts(l, hqq)) {
        // bitsandbytes dequantizes the 4-bit weight to 16 bits for the forward and again for the
        // input gradient; an int8 weight only for the input gradient (MatMul8bitLt.backward), its
        // forward quantizing the input instead (int8_vectorwise_quant: read 16-bit, write 8-bit),
        // the matmul itself priced at the 16-bit rate. HQQ's PyTorch backend makes three passes in
        // the loaded dtype (unpack: write; subtract the zero: read, write; scale: read, write;
        // hqq/core/quantize.py @e0b1d00 Quantizer.dequantize), five weights' worth of traffic.
        const double dequantized = hqq ? kHqqDequantizeTraffic * dtype_bytes(c.loaded) : c.act;
        const double dequant = memory_seconds(in * out * groups * (qlora_bytes + dequantized), c.rates);
        extra_forward += s.qlora.quant_type == Dtype::int8 ? memory_seconds(m * groups * in * (c.act + 1), c.rates) : dequant;
        extra_backward += dequant;
      }
    }
    if (fp8) {
      // Casts (read 16-bit, write 8-bit, read for the amax): the input and weight forward; the
      // output gradient and the weight backward, plus the transposed 8-bit copies of the input
      // and the output gradient for the weight gradient. Under Transformer Engine the weight is
      // cast once per step with its transposed copy (one more 8-bit write) and reused.
      const double cast = 2 * c.act + 1;
      const double weight = in * out * groups;
      const double weight_forward = c.te_weight_casts > 0 ? c.te_weight_casts * (cast + 1) * weight : cast * weight;
      const double weight_backward = c.te_weight_casts > 0 ? 0.0 : cast * weight;
      extra_forward += memory_seconds(cast * m * in * groups + weight_forward, c.rates);
      extra_backward += memory_seconds(cast * m * out * groups + weight_backward + 2 * (m * in + m * out) * groups, c.rates);
    }
    t.forward += forward + extra_forward;
    t.backward += backward + extra_backward;
    if (!l.routed_expert)  // routed experts run outside the tensor-parallel group's collectives
      t.linear_gemms += forward * (1 + (s.activation_checkpointing == Checkpointing::full ? c.recompute_share : 0.0)) + backward;
    if (++index % 2 == 0) op_level += forward;
  }
  // Attention core.
  FlopsContext fc;
  fc.seq = seq;
  fc.encoder_seq = static_cast<double>(s.batch.seq_length.value_or(4096));
  fc.causal = g.stack != Stack::encoder;
  fc.kernel_skips_masked = s.attention != AttentionImplementation::eager;
  const AttentionFlops f = attention_forward_flops(g.attention, fc);
  if (s.attention == AttentionImplementation::eager) {
    // Two batched matmuls per head, the scores' softmax, mask and their backward in memory.
    const AttentionShape& at = g.attention;
    const double heads = static_cast<double>(at.num_attention_heads) / c.tp * (tokens / seq);
    const double scores = heads * seq * seq;
    const double mm = gemm(c, seq, seq, static_cast<double>(at.head_dim), heads, false) +
                      gemm(c, seq, static_cast<double>(at.v_head_dim), seq, heads, false);
    const double softmax = memory_seconds(scores * (c.act + 4 + 4 + c.act), c.rates);
    t.attention_forward = mm + softmax;
    t.attention_backward = 2 * mm + kBackwardOverForwardBytes * softmax;
  } else {
    // The fused kernel's backward runs 2.5x its forward FLOPs (flops.cpp) at its own rate; ring
    // context parallelism runs it over chunks of seq / cp.
    const double flops = tokens * f.executed / c.tp;
    const double keys = s.parallel.context_parallel_kind == ContextParallelKind::ring ? seq / c.cp : seq;
    t.attention_forward = attention_seconds(flops, keys, fc.causal, c.rates);
    t.attention_backward = attention_backward_seconds(2.5 * flops, keys, c.rates);
  }
  if (c.cp > 1 && s.attention != AttentionImplementation::eager && s.parallel.context_parallel_kind == ContextParallelKind::ring) {
    // Ring attention merges each of the cp - 1 remote blocks' partial output into an fp32
    // accumulator with the log-sum-exp correction (Megatron/Transformer Engine context
    // parallelism, flash_attn_fwd_out_correction): read the accumulator and the block's 16-bit
    // output, write the accumulator.
    const double outputs = tokens * static_cast<double>(g.attention.num_attention_heads * g.attention.v_head_dim) / c.tp;
    const double merge = memory_seconds((c.cp - 1) * outputs * (4 + 4 + c.act), c.rates);
    t.attention_forward += merge;
    t.attention_backward += kBackwardOverForwardBytes * merge;
  }
  t.forward += t.attention_forward;
  t.backward += t.attention_backward;
  const double elementwise = memory_seconds(tokens * elementwise_bytes_per_token(c, g), c.rates);
  t.forward += elementwise;
  t.backward += kBackwardOverForwardBytes * elementwise;
  switch (s.activation_checkpointing) {
    case Checkpointing::none: break;
    case Checkpointing::full: t.recompute = t.forward; break;
    case Checkpointing::selective:
      t.recompute = s.selective_policy == SelectivePolicy::op_level ? op_level + elementwise : t.attention_forward;
      break;
  }
  t.recompute *= c.recompute_share;
  return t;
}

// The vision side of one micro-batch on the first pipeline stage (vision_activations.hpp: each
// image's encoder sequences of patches, then the projector over its rows), with the tower's
// tensor-parallel all-reduces in `communication` (two per layer and pass, as layer_traffic counts
// a decoder layer's). The encoder's layers run as layer_seconds runs an encoder layer (full
// attention within each sequence; no context parallelism: every rank encodes its images whole).
// A frozen tower without adapters records no graph: forward only. The projector's linears run as
// GEMMs: the weight gradient when it trains; the input gradient where a gradient flows below the
// linear (the tower trains, or a trained projector linear lies below it); its activation (GELU)
// as memory passes.
struct VisionSeconds {
  double forward = 0, backward = 0, recompute = 0, communication = 0, tensor_bytes = 0;
};

VisionSeconds vision_seconds(const Context& c, const LinkRates& links) {
  VisionSeconds out;
  const TrainingSetup& s = *c.s;
  if (!c.a->vision || s.multimodal.images_per_sample == 0) return out;
  const VisionTower& v = *c.a->vision;
  const Architecture view = vision_view(*c.a);
  const auto [h, w] = priced_image_size(s, v);
  const ImageTokens per_image = image_tokens(v, h, w);
  const double images = static_cast<double>(s.batch.micro_batch_size) * static_cast<double>(s.multimodal.images_per_sample);
  const double seq = static_cast<double>(per_image.encoder_positions);
  const double tokens = images * static_cast<double>(per_image.encoder_sequences) * seq;
  const bool full = vision_encoder_trained_in_full(s);
  const bool encoder_trains = full || vision_encoder_has_adapters(s);
  std::optional<LoraTargeting> lora;
  Context vc = c;
  vc.a = &view;
  vc.cp = 1;
  vc.lora = vision_encoder_has_adapters(s) ? &lora.emplace(view, s.lora) : nullptr;
  double layers = 0;
  for (std::size_t g = 0; g < view.layers.size(); ++g) {
    const LayerSeconds t = layer_seconds(vc, g, tokens, seq, full);
    const double n = static_cast<double>(view.layers[g].count);
    layers += n;
    out.forward += n * t.forward;
    if (!encoder_trains) continue;
    out.backward += n * t.backward;
    out.recompute += n * t.recompute;
  }
  if (c.tp > 1) {
    const double passes = 1.0 + (encoder_trains ? 1.0 : 0.0) + (encoder_trains && s.activation_checkpointing == Checkpointing::full ? 1.0 : 0.0);
    out.tensor_bytes = layers * passes * 2 * 2 * (c.tp - 1) / c.tp * tokens * static_cast<double>(v.hidden_size) * c.act;
    out.communication = out.tensor_bytes / bus_bandwidth(c.tp, 1, links);
  }
  const double rows = images * static_cast<double>(per_image.projector_rows);
  const bool projector_trains = projector_trained(s);
  for (std::size_t i = 0; i < v.projector.size(); ++i) {
    const Linear& l = v.projector[i];
    const double split = l.tp_sharded ? c.tp : 1.0;
    const double in = static_cast<double>(l.in_features), o = static_cast<double>(l.out_features) / split;
    out.forward += gemm(c, rows, o, in, 1, false);
    if (encoder_trains || (projector_trains && i > 0)) out.backward += gemm(c, rows, in, o, 1, false);
    if (projector_trains) out.backward += gemm(c, in, o, rows, 1, false);
    if (i + 1 < v.projector.size()) {
      // The activation between two linears (GELU): read and write its output width.
      const double act = memory_seconds(rows * o * kGeluPasses * c.act, c.rates);
      out.forward += act;
      if (encoder_trains || projector_trains) out.backward += kBackwardOverForwardBytes * act;
    }
  }
  return out;
}

// FSDP2's copies on the compute stream per step, in seconds (see step_time.hpp): after each
// parameter all-gather the output is split into the unsharded parameters (read + write the
// gathered bytes), and before each gradient reduce-scatter the unsharded gradients are copied
// into its input in the reduce dtype.
double fsdp2_copy_seconds(const TrainingSetup& s, const Estimate& e, const DataParallelTraffic& dp, const DeviceRates& rates) {
  if (sharding_engine(s) != ShardingEngine::fsdp2) return 0;
  const double b_p = std::min(e.bytes_per_param.param, dtype_bytes(e.precision.compute_dtype));
  const double gathers = dp.micro_batches * ((dp.gather_forward.bytes > 0 ? 1.0 : 0.0) + (dp.gather_backward.bytes > 0 ? 1.0 : 0.0));
  const double copy_out = gathers * 2 * e.gpu_parameters * b_p;
  const double copy_in = dp.reduce.bytes > 0 ? dp.reductions_per_step * e.gpu_trainable_parameters * (b_p + e.bytes_per_param.grad) : 0.0;
  return memory_seconds(copy_out + copy_in, rates);
}

// Exposed part of `comm` hidden under `compute`, with one layer's share never hidden.
double exposed(double comm, double compute, double layers, bool overlap) {
  if (!overlap) return comm;
  const double first = comm / std::max(1.0, layers);
  return first + std::max(0.0, comm - first - compute);
}

// Compute running beside a collective runs slower: the collective's kernels take SMs and memory
// bandwidth from it. Averaged over the GEMMs and collectives measured, overlapping them slowed the
// computation by 18.9 % (up to 40.0 %) against the same computation alone (Lee et al. 2025,
// "Characterizing Compute-Communication Overlap in GPU-Accelerated Distributed Deep Learning",
// arXiv 2507.03114, abstract). Seconds added per second of communication hidden under compute;
// not for host-link copies, which run on the copy engines.
constexpr double kOverlapComputeSlowdown = 0.189;

// Data-parallel traffic against the compute it runs under: the exposed seconds and the seconds
// hidden under the compute, summed over the calls.
struct Overlapped {
  bool overlap;
  double layers;
  double exposed_seconds = 0, hidden_seconds = 0;
  void add(double times, double comm, double compute) {
    const double e = exposed(comm, compute, layers, overlap);
    exposed_seconds += times * e;
    hidden_seconds += times * (comm - e);
  }
};

// A step's forward passes alone (all micro-batches, the slowest pipeline stage).
struct ForwardPasses {
  double compute = 0;               // seconds of the forward kernels
  double communication = 0;         // seconds of the forward's blocking collectives and exposed gathers
  double overlap_slowdown = 0;      // seconds the compute loses beside the traffic it hides
  double pipeline_bubble = 0;       // seconds the stages wait on each other's forwards
  CommunicationByKind bytes, seconds;  // their traffic per GPU, as StepTime's
};

// The step time of one model trained by `s` (no rlhf block), and where `forward` is given the
// seconds of its forward passes alone.
std::optional<StepTime> model_step_time(const TrainingSetup& s, const Estimate& e, std::string* why_not, std::string* reason,
                                        ForwardPasses* forward) {
  auto fail = [&](const char* key, const char* text) -> std::optional<StepTime> {
    if (why_not) *why_not = text;
    if (reason) *reason = key;
    return std::nullopt;
  };
  if (!s.model.architecture) return fail("no_architecture", "the step time needs an architecture: give model.preset or model.hf_config");
  if (!s.gpu) return fail("no_gpu", "the step time needs a gpu");
  const GpuPerformance& perf = s.gpu->performance;
  if (perf.bf16_dense_flops_per_s <= 0 || perf.memory_bandwidth_bytes_per_s <= 0)
    return fail("no_gpu_speeds",
                "the step time needs the GPU's dense bf16 FLOP/s and memory bandwidth (gpu.bf16_dense_flops_per_s, gpu.memory_bandwidth_bytes_per_s)");

  const Architecture& a = *s.model.architecture;
  const ParallelSettings& p = s.parallel;
  Context c;
  c.s = &s;
  c.a = &a;
  c.rates = device_rates(perf, s.framework, s.attention);
  if (e.precision.compute_dtype == Dtype::fp32) {
    c.rates.matmul_flops_per_s *= kFp32MatmulRate;
    c.rates.attention_flops_per_s *= kFp32MatmulRate;
    c.rates.attention_backward_flops_per_s *= kFp32MatmulRate;
  }
  c.behaviour = framework_behaviour(s);
  c.act = dtype_bytes(e.precision.compute_dtype);
  c.loaded = e.precision.param_dtype;
  c.tp = static_cast<double>(p.tensor_parallel_size);
  c.cp = static_cast<double>(p.context_parallel_size);
  c.ep = static_cast<double>(p.expert_parallel_size);
  c.etp = static_cast<double>(expert_tensor_parallel_size(s));
  c.sp = p.sequence_parallel && p.tensor_parallel_size > 1;
  c.fp8 = s.precision.fp8_compute && c.rates.fp8_matmul_flops_per_s > 0;
  if (c.fp8 && s.framework == Framework::megatron) c.te_weight_casts = 1.0 / static_cast<double>(s.batch.gradient_accumulation_steps);
  const double total_layers = static_cast<double>(std::max<std::int64_t>(1, a.num_hidden_layers()));
  if (s.checkpointed_layers) c.recompute_share = std::min(1.0, static_cast<double>(*s.checkpointed_layers) / total_layers);
  const LinkRates links = link_rates(s);
  std::optional<LoraTargeting> lora;
  if (uses_adapters(s.method)) c.lora = &lora.emplace(a, s.lora);

  const double mbs = static_cast<double>(s.batch.micro_batch_size);
  const double seq = static_cast<double>(s.batch.seq_length.value_or(4096));
  const double decoder_seq = a.encoder_decoder ? static_cast<double>(s.batch.decoder_seq_length.value_or(s.batch.seq_length.value_or(4096))) : seq;
  const double ga = static_cast<double>(s.batch.gradient_accumulation_steps);

  // One layer of each group (trained and frozen variants differ under freeze).
  const std::int64_t first_trained = s.method == Method::freeze ? std::max<std::int64_t>(0, a.num_hidden_layers() - s.freeze_trainable_layers) : 0;
  struct GroupTimes {
    LayerSeconds trained, frozen;
    LayerTraffic traffic;
  };
  std::vector<GroupTimes> groups(a.layers.size());
  for (std::size_t i = 0; i < a.layers.size(); ++i) {
    const LayerGroup& g = a.layers[i];
    const double group_seq = g.stack == Stack::encoder ? seq : decoder_seq;
    const double tokens = mbs * group_seq / c.cp;
    GroupTimes& gt = groups[i];
    gt.trained = layer_seconds(c, i, tokens, group_seq, s.method != Method::lora && s.method != Method::qlora);
    gt.frozen = gt.trained;
    if (s.method == Method::freeze) {
      gt.frozen = layer_seconds(c, i, tokens, group_seq, false);
      gt.frozen.backward = gt.frozen.recompute = 0;  // no backward below the trained layers
    }
    gt.traffic = layer_traffic(s, g, e.precision.compute_dtype, links);
  }

  // Each pipeline stage's micro-batch: its layers, the embedding (first) and head + loss (last).
  const auto counts = stage_layer_counts(a, s);
  const double head_tokens = mbs * decoder_seq / c.cp;
  const double vocab = static_cast<double>(padded_vocab_size(s, a.vocab_size)) / c.tp, h = static_cast<double>(a.hidden_size);
  const bool head_trained = s.method == Method::full ||
                            std::find(s.lora.modules_to_save.begin(), s.lora.modules_to_save.end(), "lm_head") != s.lora.modules_to_save.end();
  const LossImplementation loss = s.loss.implementation.value_or(c.behaviour.loss);
  const double loss_bytes = (loss == LossImplementation::fused || c.behaviour.compiled_loss) ? kFusedLossBytesPerLogit : kUnfusedLossBytesPerLogit;
  const Traffic pipeline = pipeline_traffic(s, e.precision.compute_dtype, links);

  struct Stage {
    double compute = 0, recompute = 0, forward = 0, backward = 0, communication = 0;
    double contention = 0;  // the compute's slowdown beside the ring-attention and overlapped tensor-parallel traffic it hides
    CommunicationByKind bytes, seconds;
    double total() const { return compute + recompute + communication + contention; }
  };
  const VisionSeconds vision = vision_seconds(c, links);
  std::vector<Stage> stages(counts.size());
  std::int64_t layer_index = 0;
  for (std::size_t st = 0; st < counts.size(); ++st) {
    Stage& stage = stages[st];
    for (std::size_t g = 0; g < a.layers.size(); ++g) {
      const double n = static_cast<double>(counts[st][g]);
      if (n == 0) continue;
      const double n_frozen = std::clamp(static_cast<double>(first_trained - layer_index), 0.0, n);
      layer_index += counts[st][g];
      for (const auto& [layer, times] : {std::pair{&groups[g].trained, n - n_frozen}, std::pair{&groups[g].frozen, n_frozen}}) {
        stage.forward += times * layer->forward;
        stage.backward += times * layer->backward;
        stage.compute += times * (layer->forward + layer->backward);
        stage.recompute += times * layer->recompute;
      }
      const LayerTraffic& lt = groups[g].traffic;
      // Tensor-parallel collectives and all-to-alls block; ring attention's sends run under the kernel.
      const LayerSeconds& trained = groups[g].trained;
      const double attention = trained.attention_forward * (s.activation_checkpointing == Checkpointing::full ? 2 : 1) + trained.attention_backward;
      // Ulysses' all-to-alls block like the tensor-parallel collectives.
      const double context_exposed = s.parallel.context_parallel_kind == ContextParallelKind::ring
                                         ? std::max(0.0, lt.context.seconds - attention)
                                         : lt.context.seconds;
      // Overlapped tensor-parallel collectives run under the linears' GEMMs (Transformer Engine's
      // userbuffers split each all-gather and reduce-scatter into chunks pipelined with the GEMM
      // that reads or writes them); what exceeds those GEMMs stays exposed.
      const double tensor_exposed = p.tp_comm_overlap ? std::max(0.0, lt.tensor.seconds - trained.linear_gemms) : lt.tensor.seconds;
      stage.communication += n * (tensor_exposed + lt.expert.seconds + context_exposed);
      stage.contention += n * kOverlapComputeSlowdown * (lt.context.seconds - context_exposed + lt.tensor.seconds - tensor_exposed);
      stage.bytes.tensor_parallel += n * lt.tensor.bytes;
      stage.bytes.context += n * lt.context.bytes;
      stage.bytes.expert += n * lt.expert.bytes;
      stage.seconds.tensor_parallel += n * lt.tensor.seconds;
      stage.seconds.context += n * lt.context.seconds;
      stage.seconds.expert += n * lt.expert.seconds;
    }
    if (st == 0) {
      stage.forward += vision.forward;
      stage.backward += vision.backward;
      stage.compute += vision.forward + vision.backward;
      stage.recompute += vision.recompute;
      stage.communication += vision.communication;
      stage.bytes.tensor_parallel += vision.tensor_bytes;
      stage.seconds.tensor_parallel += vision.communication;
      // Embedding lookup forward, scatter-add of its gradient backward.
      const double embed = memory_seconds(3 * head_tokens * h * c.act, c.rates);
      stage.forward += embed;
      stage.compute += embed;
    }
    if (st + 1 == counts.size() && a.vocab_logits) {
      double head = gemm(c, head_tokens, vocab, h, 1, false);
      double head_backward = gemm(c, head_tokens, h, vocab, 1, false) + (head_trained ? gemm(c, h, vocab, head_tokens, 1, false) : 0.0);
      const double loss_seconds = memory_seconds(head_tokens * vocab * loss_bytes, c.rates);
      stage.forward += head + loss_seconds / 2;
      stage.backward += head_backward + loss_seconds / 2;
      stage.compute += head + head_backward + loss_seconds;
    }
    if (p.pipeline_parallel_size > 1) {
      stage.communication += pipeline.seconds;
      stage.bytes.pipeline += pipeline.bytes;
      stage.seconds.pipeline += pipeline.seconds;
    }
  }
  const Stage* slowest = &stages.front();
  double stage_sum = 0, forward_sum = 0;  // a stage's forward: its kernels and half its blocking collectives
  for (const auto& st : stages) {
    stage_sum += st.total();
    forward_sum += st.forward + (st.communication + st.contention) / 2;
    if (st.total() > slowest->total()) slowest = &st;
  }
  const double chunks = p.pipeline_schedule == PipelineSchedule::interleaved_1f1b ? static_cast<double>(p.virtual_pipeline_stages) : 1.0;
  const double bubble = (stage_sum - slowest->total()) / chunks;

  // Data-parallel traffic and offload against the slowest stage's compute.
  const DataParallelTraffic dp = data_parallel_traffic(s, e, links);
  const bool overlap = overlaps_data_parallel(s);
  const double fwd = slowest->forward, bwd = slowest->backward + slowest->recompute;
  // Per micro-batch: the forward's gathers under the forward; the backward's gathers and, where
  // the gradients are reduced after this micro-batch, the reduction under the backward.
  const double reducing = dp.reductions_per_step;
  Overlapped data_parallel{overlap, dp.layers};
  data_parallel.add(ga, dp.gather_forward.seconds, fwd);
  data_parallel.add(ga - reducing, dp.gather_backward.seconds, bwd);
  data_parallel.add(reducing, dp.gather_backward.seconds + dp.reduce.seconds, bwd);
  data_parallel.add(1, dp.parameter_sync.seconds, fwd);
  const double dp_exposed = data_parallel.exposed_seconds;
  if (forward) {
    // The forward's half of the layers' blocking collectives (each forward all-reduce, all-gather
    // or all-to-all has its backward twin) and its parameter gathers against its own compute.
    Overlapped gathers{overlap, dp.layers};
    gathers.add(ga, dp.gather_forward.seconds, fwd);
    forward->compute = ga * slowest->forward;
    forward->communication = ga * slowest->communication / 2 + gathers.exposed_seconds;
    forward->overlap_slowdown = ga * slowest->contention / 2 + kOverlapComputeSlowdown * gathers.hidden_seconds;
    // A forward-only pass through the pipeline fills and drains it as the step's does.
    forward->pipeline_bubble = (forward_sum - (slowest->forward + (slowest->communication + slowest->contention) / 2)) / chunks;
    const auto half = [ga](const CommunicationByKind& k) {
      return CommunicationByKind{0, ga * k.tensor_parallel / 2, ga * k.pipeline / 2, ga * k.context / 2, ga * k.expert / 2};
    };
    forward->bytes = half(slowest->bytes);
    forward->seconds = half(slowest->seconds);
    forward->bytes.data_parallel = ga * dp.gather_forward.bytes;
    forward->seconds.data_parallel = ga * dp.gather_forward.seconds;
  }
  double offload = dp.optimizer_offload.seconds;
  offload += ga * std::max(0.0, dp.parameter_offload.seconds + dp.activation_offload.seconds - (fwd + bwd));

  const double fsdp_copies = fsdp2_copy_seconds(s, e, dp, c.rates);

  // The optimizer step over the trained parameter shard: in GPU memory, or on the host when the
  // optimizer is offloaded (every GPU of the node stepping its shard on the node's CPUs).
  double optimizer = 0;
  const double trained_shard = e.gpu_trainable_parameters / (p.zero_stage >= 1 ? e.sharding_degree : 1.0);
  if (p.offload_optimizer != OffloadTarget::none) {
    const double gpus_per_host = static_cast<double>(std::min(p.world_size, p.gpus_per_node));
    optimizer = gpus_per_host * trained_shard / host_optimizer_parameters_per_second(s);
  } else if (!s.precision.optimizer_in_backward) {
    optimizer = memory_seconds(trained_shard * optimizer_step_bytes_per_param(s, e), c.rates);
  }

  StepTime t;
  const double pipeline_time = ga * slowest->total() + bubble;
  const double dp_contention = kOverlapComputeSlowdown * data_parallel.hidden_seconds;
  t.step_seconds = pipeline_time + fsdp_copies + dp_exposed + dp_contention + optimizer + offload;
  if (!std::isfinite(t.step_seconds) || t.step_seconds <= 0) return fail("not_finite", "the step time of this setup is out of range");
  t.breakdown.compute = ga * slowest->compute + fsdp_copies;
  t.breakdown.recompute = ga * slowest->recompute;
  t.breakdown.exposed_communication = ga * slowest->communication + dp_exposed;
  t.breakdown.overlap_slowdown = ga * slowest->contention + dp_contention;
  t.breakdown.pipeline_bubble = bubble;
  t.breakdown.optimizer = optimizer;
  t.breakdown.offload = offload;
  t.exposed_communication_seconds = t.breakdown.exposed_communication;

  t.bytes_per_step.tensor_parallel = ga * slowest->bytes.tensor_parallel;
  t.bytes_per_step.context = ga * slowest->bytes.context;
  t.bytes_per_step.expert = ga * slowest->bytes.expert;
  t.bytes_per_step.pipeline = ga * slowest->bytes.pipeline;
  t.seconds_per_step.tensor_parallel = ga * slowest->seconds.tensor_parallel;
  t.seconds_per_step.context = ga * slowest->seconds.context;
  t.seconds_per_step.expert = ga * slowest->seconds.expert;
  t.seconds_per_step.pipeline = ga * slowest->seconds.pipeline;
  const Traffic dp_step = dp.per_step();
  t.bytes_per_step.data_parallel = dp_step.bytes;
  t.seconds_per_step.data_parallel = dp_step.seconds;

  const TrainingFlops flops = training_flops(s);
  const double world = static_cast<double>(p.world_size);
  t.flops_per_step = flops.executed_per_step();
  t.model_flops_per_step = flops.model_per_step;
  t.tokens_per_second_per_gpu = flops.tokens_per_step / (t.step_seconds * world);
  const double peak = t.step_seconds * world * perf.bf16_dense_flops_per_s;
  t.mfu = flops.model_per_step / peak;
  t.hfu = t.flops_per_step / peak;
  add_run_cost(s, flops.tokens_per_step, t);
  return t;
}

}  // namespace

std::optional<StepTime> step_time(const TrainingSetup& s, const Estimate& e, std::string* why_not, std::string* reason) {
  if (!s.rlhf) return model_step_time(s, e, why_not, reason, nullptr);
  if (s.rlhf->algorithm != RlhfAlgorithm::dpo) {
    if (why_not) *why_not = "PPO and GRPO jobs are not timed yet (their rollout generation)";
    if (reason) *reason = "rlhf";
    return std::nullopt;
  }
  // DPO (TRL DPOTrainer, trl/trainer/dpo_trainer.py @f2cd577): each step trains the policy on the
  // chosen and rejected sequences together and runs the reference model's forward on the same
  // sequences (compute_ref_log_probs, under no_grad; a PEFT policy with its adapters disabled),
  // unless precompute_ref_log_probs computed them once before training. Tokens are the policy's:
  // chosen and rejected both.
  const TrainingSetup policy = rlhf_policy_setup(s);
  std::optional<StepTime> t = model_step_time(policy, estimate(policy), why_not, reason, nullptr);
  if (!t) return t;
  const TrainingSetup reference = rlhf_reference_setup(s);  // DPO always loads one (validate refuses reference none)
  ForwardPasses forward;
  if (!model_step_time(reference, estimate(reference), why_not, reason, &forward)) return std::nullopt;
  const auto add = [](CommunicationByKind& to, const CommunicationByKind& k) {
    to.data_parallel += k.data_parallel, to.tensor_parallel += k.tensor_parallel, to.pipeline += k.pipeline;
    to.context += k.context, to.expert += k.expert;
  };
  add(t->bytes_per_step, forward.bytes);
  add(t->seconds_per_step, forward.seconds);
  t->step_seconds += forward.compute + forward.communication + forward.overlap_slowdown + forward.pipeline_bubble;
  t->breakdown.compute += forward.compute;
  t->breakdown.exposed_communication += forward.communication;
  t->breakdown.overlap_slowdown += forward.overlap_slowdown;
  t->breakdown.pipeline_bubble += forward.pipeline_bubble;
  t->exposed_communication_seconds = t->breakdown.exposed_communication;
  const TrainingFlops policy_flops = training_flops(policy), reference_flops = training_flops(reference);
  t->flops_per_step += reference_flops.forward;
  t->model_flops_per_step += reference_flops.model_forward;
  const double world = static_cast<double>(s.parallel.world_size);
  t->tokens_per_second_per_gpu = policy_flops.tokens_per_step / (t->step_seconds * world);
  const double peak = t->step_seconds * world * s.gpu->performance.bf16_dense_flops_per_s;
  t->mfu = t->model_flops_per_step / peak;
  t->hfu = t->flops_per_step / peak;
  add_run_cost(s, policy_flops.tokens_per_step, *t);
  return t;
}

}  // namespace trainmem
