// Logits and the cross-entropy loss: often the largest single transient with 128k-256k
// vocabularies. Per GPU of the last pipeline stage, in bytes; T = micro_batch x seq_length / CP
// tokens, V = vocab_size / TP (vocab-parallel head), A = activation bytes (2 for bf16).
//
// Bytes per logit element (T x V) at the end of forward and at the start of backward:
//   full, eager, fp32 upcast (HF ForCausalLMLoss; modelscope/ms-swift#6966): forward A (logits) + 4 (fp32 copy)
//     + 4 (log-softmax output, saved) = 10; backward 4 (saved) + 4 (its gradient) + 4 (gradient of
//     the fp32 logits) = 12 (torch log_softmax / nll_loss backward)
//   full, eager, no upcast: forward 2A, backward 3A
//   full, compiled: the upcast fuses into the loss kernels, which save the 16-bit logits and a
//     per-row log-sum-exp and write the gradient in 16 bits: forward A, backward 2A
//   Megatron vocab-parallel cross-entropy (fp32 softmax in place): forward A + 4, backward 4 + A
//   chunked (torchtune CEWithChunkedOutputLoss, n chunks): each chunk is upcast on its own but
//     every chunk's fp32 log-softmax is saved: forward A + 4 + 4/n, backward 4 + (8 + A)/n;
//     compiled (torchtune compiles the chunk loss) it saves the 16-bit chunks and writes one
//     chunk's gradient at a time: forward A, backward A + A/n
//   fused linear cross-entropy: no full logits. Chunked as Liger-Kernel chunks it (the kernel
//     transformers' use_liger_kernel, axolotl and LLaMA-Factory apply; linkedin/Liger-Kernel
//     src/liger_kernel/ops/fused_linear_cross_entropy.py @ead96b6): rows of
//     c = next_pow2(ceil(T / ceil(V / h))) tokens, each chunk's logits in A bytes, whose gradient
//     the kernel writes in place: c x V x A; beside them the [T, h] input gradient (A), the fp32
//     per-token loss and, when the head trains (full fine-tuning, or modules_to_save naming it), its
//     [V, h] weight gradient in the parameter dtype, both gradients computed in forward and kept
//     into backward; a 16-bit weight gradient is accumulated through a [V, h] product and its fp32
//     copy (V x h x (A + 4)). With loss.num_chunks given (a
//     kernel that chunks by count, as unsloth's does): 16 bytes per logit of one chunk
//     (unslothai/unsloth#7203, maintainer figure), 16/n
// Final-logit soft-capping (Architecture::final_logit_softcapping; transformers
// models/gemma2/modeling_gemma2.py @006e869, Gemma2ForCausalLM.forward: logits / cap, tanh, * cap,
// then the loss): tanh saves its output for the backward, one more A-byte tensor per logit at the
// end of forward and at the start of backward, under every loss that takes the model's logits
// (a fused linear cross-entropy caps inside its kernel; a compiled loss fuses the three ops).
// With loss.logits_positions (GRPO, rlhf.hpp) the head computes logits for that many positions per
// sequence only; the head's saved input stays whole (the slice is a view of the norm output).
// Plus the saved inputs of the head: the final norm and the lm_head input [T, h].
// Held logits (loss.held_logits): a loop that keeps the model output referenced keeps T x V / TP
// logits alive in every phase of the step and into the next forward: A bytes per logit, or 4 when
// the model's forward upcast them (transformers up to v4.45, modeling_llama.py
// LlamaForCausalLM.forward: logits = logits.float()). A fused linear cross-entropy computes the
// loss inside the model's forward from the hidden states and returns no logits, so none are held
// (Liger-Kernel @ead96b6, src/liger_kernel/transformers/model/llama.py lce_forward: logits stay None
// when skip_logits, which defaults to training with labels).
#pragma once

#include "trainmem/framework_defaults.hpp"
#include "trainmem/training_setup.hpp"

namespace trainmem {

// Chunks of the chunked loss when loss.num_chunks is not given (torchtune CEWithChunkedOutputLoss).
inline constexpr std::int64_t kDefaultLossChunks = 8;

struct LossMemory {
  double head_saved = 0;          // final norm + lm_head input, kept until backward
  double forward_transient = 0;   // logits and loss working set at the end of forward
  double backward_transient = 0;  // at the start of backward
  double bytes_per_logit_forward = 0, bytes_per_logit_backward = 0;
  double logits_elements = 0;     // T x V on this GPU
  double held = 0;                // logits the loop keeps referenced, alive in every phase
};

// What the training loop keeps of the model output's logits under the loss implementation `loss`
// (none under a fused loss, whose forward returns none): loss.held_logits, else the framework's.
HeldLogits held_logits(const TrainingSetup& s, const FrameworkBehaviour& f, LossImplementation loss);

// Whether the LM head's weight trains: full fine-tuning, or a PEFT modules_to_save that names the
// head (or, for a tied head, the embedding it shares).
bool head_trains(const TrainingSetup& s, const Architecture& a);

LossMemory loss_memory(const TrainingSetup& s, const Architecture& a, Dtype compute, const FrameworkBehaviour& f);

}  // namespace trainmem
