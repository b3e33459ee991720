#include "transformers_attention.hpp"

#include <map>

namespace trainmem::architectures {

// Since transformers v4.36 (huggingface/transformers#26572) from_pretrained picks torch SDPA
// (torch >= 2.1.1) for every model whose modeling file has an SDPA path, and eager attention for
// the others. The lists below follow:
//   - docs/source/en/perf_infer_gpu_one.md @00b05f2d0059f4c6545d23984bd07b39fcc5fa26, "PyTorch
//     scaled dot product attention": "Transformers supports SDPA inference and training for the
//     following architectures" (model types listed there: sdpa; in-library ones absent: eager);
//   - model types added after that list, from their PreTrainedModel class: modeling_qwen3.py
//     @000c33fdfde12e1ffafbfcdb3c926df5727a00b6 `_supports_sdpa = True` (Qwen3 and, through its
//     modular file, Qwen3-MoE); modeling_gpt_oss.py @00d4b3d2142cb4ced2f51b90614b5d26bc045015
//     `_supports_sdpa = False` (its attention sinks);
//   - Gemma 2 and Gemma 3: SDPA by default, but Gemma2ForCausalLM.forward and
//     Gemma3ForCausalLM.forward log "It is strongly recommended to train Gemma2 [Gemma3] models
//     with the `eager` attention implementation" in training, and trainers follow it (ms-swift's
//     Gemma 3 loader sets eager), so either may run.
// Remote-code model types (trust_remote_code: their own modeling file picks the kernel) and model
// types without a family here are unknown.
TransformersAttention transformers_attention(const std::string& model_type) {
  using A = TransformersAttention;
  static const std::map<std::string, A> table{
      {"llama", A::sdpa},         {"mistral", A::sdpa},      {"mixtral", A::sdpa},     {"qwen2", A::sdpa},
      {"qwen2_moe", A::sdpa},     {"qwen3", A::sdpa},        {"qwen3_moe", A::sdpa},   {"gemma", A::sdpa},
      {"granite", A::sdpa},       {"phi", A::sdpa},          {"phi3", A::sdpa},        {"olmo", A::sdpa},
      {"olmo2", A::sdpa},         {"starcoder2", A::sdpa},   {"gpt_bigcode", A::sdpa}, {"gpt_neox", A::sdpa},
      {"gpt2", A::sdpa},          {"falcon", A::sdpa},       {"stablelm", A::sdpa},    {"cohere", A::sdpa},
      {"cohere2", A::sdpa},       {"jamba", A::sdpa},        {"opt", A::sdpa},         {"bert", A::sdpa},
      {"roberta", A::sdpa},       {"xlm-roberta", A::sdpa},  {"glm", A::sdpa},         {"llava", A::sdpa},
      {"llava_next", A::sdpa},    {"mllama", A::sdpa},       {"paligemma", A::sdpa},   {"idefics3", A::sdpa},
      {"qwen2_vl", A::sdpa},      {"qwen2_5_vl", A::sdpa},
      {"gemma2", A::sdpa_eager_advised}, {"gemma3_text", A::sdpa_eager_advised}, {"gemma3", A::sdpa_eager_advised},
      {"gptj", A::eager_only},    {"bloom", A::eager_only},  {"t5", A::eager_only},    {"mt5", A::eager_only},
      {"mpt", A::eager_only},     {"gpt_oss", A::eager_only},
  };
  const auto it = table.find(model_type);
  return it == table.end() ? A::unknown : it->second;
}

}  // namespace trainmem::architectures
