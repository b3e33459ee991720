// Activations: the tensors autograd saves for backward, tensor by tensor, per transformer layer.
//
// Sources: Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer
// Models" (arXiv 2205.05198), §4 and Table 2: s·b·h·(34 + 5·a·s/h) bytes per GPT layer with 16-bit
// activations, and its tensor-parallel (10 + 24/t), sequence-parallel (34/t), selective (34) and
// full (2) variants; what each op saves is read from PyTorch autograd (linear saves its input,
// SiLU/GeLU their input, mul both operands, softmax its output, dropout its mask) and from the HF
// modeling files for the eager paths. FlashAttention saves q, k, v, the output and the fp32
// log-sum-exp (Dao 2023, §3.1). A saved view keeps its whole base tensor: where v is a slice of a
// fused q/k/v projection and q, k are rotated into new tensors (transformers
// models/phi3/modular_phi3.py @06053b8, Phi3Attention.forward; models/gpt_neox/modular_gpt_neox.py
// @00dcc6d, GPTNeoXAttention.forward), the attention's saved v holds the projection's q and k
// parts as well, (heads + kv_heads) x head_dim more per token (AttentionShape::
// value_view_keeps_fused_qkv). transformers' GELUs written in Python (src/transformers/activations.py
// @v4.46.0: NewGELUActivation "gelu_new", FastGELUActivation "gelu_fast", QuickGELUActivation
// "quick_gelu"; MlpShape::activation) keep, besides x, the tensors their products, tanh and sigmoid
// save: gelu_new 0.5x, tanh's output and 1 + tanh (under autocast torch.pow runs in fp32, which
// keeps x's fp32 copy instead of x, and everything after it but 0.5x is fp32); gelu_fast six
// (0.797x, 0.0447x, 1 + 0.0447x^2, tanh's output, 0.5x, 1 + tanh); quick_gelu the sigmoid's output.
// All bytes are per GPU.
#pragma once

#include <string>
#include <vector>

#include "trainmem/framework_defaults.hpp"
#include "trainmem/training_setup.hpp"

namespace trainmem {

// Why a tensor is kept, which decides what each recompute policy drops.
enum class TensorRole {
  block_input,       // the layer's input: what full recompute keeps
  norm_internal,     // fp32 copies and statistics inside a norm
  norm_output,       // a norm's output, saved by the linear that reads it
  matmul_output,     // the output of a projection (q/k/v, gate/up)
  attention_core,    // s^2 scores, probabilities, their dropout; flash's log-sum-exp
  attention_output,  // the attention result, saved by o_proj
  elementwise,       // activation-function outputs and products
  dropout_mask,      // 1-byte masks of hidden dropout
  cached_output,     // an op output a selective-checkpointing policy caches (op-level SAC)
};

// Names are static strings (no allocation: the strategy search evaluates thousands of setups).
struct SavedTensor {
  const char* scope;  // e.g. "self_attn", "mlp", "attention_norm"
  const char* name;   // e.g. "q", "input_fp32"
  double rows = 0;    // tokens (b x s), or b x heads x queries for attention scores
  double cols = 0;    // elements per row, before tensor-parallel division
  Dtype dtype = Dtype::bf16;
  double bytes = 0;          // per GPU, after tensor/sequence/context parallel division
  TensorRole role = TensorRole::block_input;
  bool recomputed = false;   // dropped by the checkpointing policy, rebuilt in backward
};

// Everything the activation formulas need besides the layer's own shapes.
struct ActivationContext {
  double micro_batch = 1;   // b
  double seq = 1;           // s per context-parallel rank (decoder tokens for encoder-decoder)
  double encoder_seq = 1;   // encoder tokens per rank (encoder-decoder only)
  double tp = 1;
  double ulysses_degree = 1;  // context_parallel_size under Ulysses (head split), else 1
  bool sequence_parallel = false;
  Dtype dtype = Dtype::bf16;  // activation (compute) dtype
  // The hidden states between sublayers (embedding output, residual stream, norm inputs): fp32
  // under autocast over fp32 weights (ResolvedPrecision::autocast_over_fp32_weights), else `dtype`.
  // Under autocast every linear reading a norm's fp32 output saves its own cast of it.
  Dtype residual = Dtype::bf16;
  AttentionImplementation attention = AttentionImplementation::flash;
  FrameworkBehaviour framework;
  Checkpointing checkpointing = Checkpointing::none;
  SelectivePolicy selective_policy = SelectivePolicy::attention_core;
  double attention_dropout = 0, hidden_dropout = 0;
  NormKind norm = NormKind::rms_norm;
  bool softmax_fp32 = false;  // eager softmax kept in fp32 plus its cast copy
  double hidden = 0;
  // LoRA with lora_dropout > 0: PEFT's LoRA Linear computes lora_B(lora_A(dropout(x)))
  // (peft/tuners/lora/layer.py, Linear.forward), so each targeted linear (of the architecture,
  // listed here) saves its own dropout output [tokens, in_features] (lora_A's input) and the
  // dropout's 1-byte mask. Empty otherwise.
  std::vector<const Linear*> lora_dropout_linears;
  // Frozen weights keep no input: autograd saves a matmul's input only for its weight's gradient
  // and an elementwise product's operand only for the other operand's (pytorch
  // tools/autograd/gen_variable_type.py: generated nodes such as MmBackward0 and MulBackward0 save
  // each input under grad_fn->should_compute_output of the other; bitsandbytes MatMul4Bit keeps
  // (None, B), bitsandbytes/autograd/_functions.py). weights_train: full fine-tuning, where every
  // linear's input and every norm's normalized tensor is kept; false under adapters, where a
  // linear's input is kept only by an adapter that reads it (adapter_readers: lora_dropout 0; with
  // dropout the adapter keeps the dropout's output instead, above).
  bool weights_train = true;
  std::vector<const Linear*> adapter_readers;
  // A quantized base through bitsandbytes whose linears keep their inputs for the backward: 4-bit
  // up to v0.43.1 (TrainingSetup::qlora.saves_base_inputs; MatMul4Bit ctx.tensors = (A, B),
  // bitsandbytes/autograd/_functions.py before bitsandbytes-foundation/bitsandbytes#1270), and
  // 8-bit in every version (MatMul8bitLt ctx.tensors = (CAt, subA, A)); an HQQ base in every
  // version (HQQMatmulNoCacheMul and HQQMatmulNoCacheDeq save_for_backward(x, bias)). The norms' outputs, the
  // down projections' inputs and an MoE layer's dispatched tokens are then kept whether or not an
  // adapter reads them, in the compute dtype, beside any adapter's own cast.
  bool frozen_linears_keep_input = false;
  // bitsandbytes up to v0.44.1 with an 8-bit base (qlora.saves_base_inputs): each 8-bit linear
  // also keeps CAt, its own int8 copy of its input, one byte per element (F.double_quant in
  // MatMul8bitLt.forward; a frozen weight skips it since bitsandbytes-foundation/bitsandbytes#1401,
  // v0.45.0).
  bool int8_input_copies = false;
  // Adapters in a dtype other than the compute dtype (PEFT's fp32 adapters over a 16-bit base):
  // PEFT casts the input to the adapter's dtype before lora_A (peft src/peft/tuners/lora/layer.py
  // Linear.forward, BaseTunerLayer._cast_input_dtype) and autocast casts it back for the matmul,
  // so each adapted linear keeps its own cast of the input rather than the shared tensor.
  bool adapter_input_copies = false;
  // DoRA (lora.use_dora; peft src/peft/tuners/lora/dora.py @5d602fdb, DoraLinearLayer.forward):
  // (m / ||W + s BA|| - 1) * base_result + m / ||W + s BA|| * lora_result * s, whose products keep
  // base_result and lora_result, [tokens, out_features] each, for the magnitude's gradient, in the
  // compute dtype (autocast runs both linears there), for each targeted linear.
  bool dora = false;
  double experts_per_token = 1;  // rows of a routed expert's input per token
  // FP8 training under Transformer Engine (Megatron's linears): each linear whose weight trains
  // keeps its input as the FP8 tensor it quantized for the GEMM, one byte per element, instead of
  // the 16-bit input (transformer_engine/pytorch/module/linear.py @v2.5, _Linear.forward:
  // saved_inputmat = the input_quantizer's output, the local shard under sequence parallelism;
  // layernorm_linear.py: ln_out quantized the same way, the norm's 16-bit input and statistics
  // beside it; grouped_linear.py: the experts' quantized inputs). So the norm outputs read by the
  // fused norm + QKV / fc1 linears, the fc2 input and the dispatched tokens are FP8, and the
  // attention output, which the attention kernel keeps in 16 bits for its own backward, gains the
  // output projection's FP8 copy. (The MXFP8 and block recipes' scales, one byte per 32 elements
  // or an fp32 per 128, are left out.) torchao's Float8Linear keeps its 16-bit input
  // (torchao/float8/float8_linear.py: save_for_backward(input_hp, weight_hp_t)): no change there.
  bool fp8_linear_inputs = false;
};

// The saved tensors of one layer, marked recomputed according to the context's policy
// (for full checkpointing only the block input stays).
std::vector<SavedTensor> layer_activations(const LayerGroup& layer, const ActivationContext& c);

double saved_bytes(const std::vector<SavedTensor>& tensors);  // bytes kept until backward
double all_bytes(const std::vector<SavedTensor>& tensors);    // bytes if nothing were recomputed

ActivationContext activation_context(const TrainingSetup& s, const Architecture& a, Dtype compute);

const char* role_name(TensorRole r);

// The share of the layers that checkpointed_layers (default: all) checkpoints, spread over the
// stages in proportion to their layers; 1 without checkpointing (the policy "none" applies to all).
double checkpointed_share(const TrainingSetup& s, const Architecture& a);

}  // namespace trainmem
