// torchtune's model builders for the catalog's models, read by the torchtune import and written by
// the torchtune export. torchtune 0.7.0 (pytorch/torchtune bd2a0fc) torchtune/models/<family>/
// _model_builders.py builds each from the Hugging Face checkpoint of the catalog model (vocabulary,
// layers and widths agree); lora_<builder> and qlora_<builder> add adapters (qlora_: NF4 base).
// `config_size` is how torchtune's built-in config names spell the size (recipes/configs/<family>/
// <size>_lora.yaml, torchtune/_recipe_registry.py).
#pragma once

#include <string>
#include <vector>

namespace trainmem::import_detail {

// What lora_<builder>'s apply_lora_to_output argument can say.
enum class LoraOutput {
  adaptable,  // the argument exists; True adapts the output projection
  tied,       // the argument exists, but the output is tied to the embedding: True raises ValueError
              // (llama3_2/_component_builders.py lora_llama3_2, qwen2/_component_builders.py lora_qwen2)
  absent,     // the builder takes no such argument (gemma, gemma2, qwen2 0.5B/1.5B)
};

struct TorchtuneBuilder {
  const char* family;       // torchtune.models.<family>
  const char* builder;      // the full-model builder
  const char* preset;       // the catalog model
  const char* config_size;  // "8B", "mini"
  LoraOutput lora_output;   // lora_<builder>'s apply_lora_to_output
  bool takes_use_dora;      // lora_<builder> has a use_dora argument (lora_llama3_1_405b has none)
};

inline const std::vector<TorchtuneBuilder>& torchtune_builders() {
  static const std::vector<TorchtuneBuilder> builders = {
      {"llama2", "llama2_7b", "llama-2-7b", "7B", LoraOutput::adaptable, true},
      {"llama2", "llama2_13b", "llama-2-13b", "13B", LoraOutput::adaptable, true},
      {"llama2", "llama2_70b", "llama-2-70b", "70B", LoraOutput::adaptable, true},
      {"llama3", "llama3_8b", "llama-3-8b", "8B", LoraOutput::adaptable, true},
      {"llama3", "llama3_70b", "llama-3-70b", "70B", LoraOutput::adaptable, true},
      {"llama3_1", "llama3_1_8b", "llama-3.1-8b", "8B", LoraOutput::adaptable, true},
      {"llama3_1", "llama3_1_70b", "llama-3.1-70b", "70B", LoraOutput::adaptable, true},
      {"llama3_1", "llama3_1_405b", "llama-3.1-405b", "405B", LoraOutput::adaptable, false},
      // llama3_3/_model_builders.py: llama3_3_70b = llama3_1_70b (and its lora_/qlora_ partials).
      {"llama3_3", "llama3_3_70b", "llama-3.3-70b", "70B", LoraOutput::adaptable, true},
      {"llama3_2", "llama3_2_1b", "llama-3.2-1b", "1B", LoraOutput::tied, true},
      {"llama3_2", "llama3_2_3b", "llama-3.2-3b", "3B", LoraOutput::tied, true},
      {"qwen2", "qwen2_0_5b", "qwen2-0.5b", "0.5B", LoraOutput::absent, true},
      {"qwen2", "qwen2_1_5b", "qwen2-1.5b", "1.5B", LoraOutput::absent, true},
      {"qwen2_5", "qwen2_5_0_5b", "qwen2.5-0.5b", "0.5B", LoraOutput::tied, true},
      {"qwen2_5", "qwen2_5_1_5b_instruct", "qwen2.5-1.5b", "1.5B", LoraOutput::tied, true},
      {"qwen2_5", "qwen2_5_1_5b_base", "qwen2.5-1.5b", "1.5B", LoraOutput::tied, true},
      {"qwen2_5", "qwen2_5_3b", "qwen2.5-3b", "3B", LoraOutput::tied, true},
      {"qwen2_5", "qwen2_5_7b_base", "qwen2.5-7b", "7B", LoraOutput::adaptable, true},
      {"qwen2_5", "qwen2_5_7b_instruct", "qwen2.5-7b", "7B", LoraOutput::adaptable, true},
      {"qwen2_5", "qwen2_5_14b_base", "qwen2.5-14b", "14B", LoraOutput::adaptable, true},
      {"qwen2_5", "qwen2_5_14b_instruct", "qwen2.5-14b", "14B", LoraOutput::adaptable, true},
      {"qwen2_5", "qwen2_5_32b_base", "qwen2.5-32b", "32B", LoraOutput::adaptable, true},
      {"qwen2_5", "qwen2_5_32b_instruct", "qwen2.5-32b", "32B", LoraOutput::adaptable, true},
      {"qwen2_5", "qwen2_5_72b_base", "qwen2.5-72b", "72B", LoraOutput::adaptable, true},
      {"qwen2_5", "qwen2_5_72b_instruct", "qwen2.5-72b", "72B", LoraOutput::adaptable, true},
      // qwen3/_model_builders.py: 0.6B to 4B tie the output to the embedding (lora_qwen3 raises on
      // apply_lora_to_output with tie_word_embeddings). Qwen/Qwen3-<size>, the catalog's checkpoint, is
      // the post-trained release (the base is Qwen3-<size>-Base): the instruct builder first.
      {"qwen3", "qwen3_0_6b_instruct", "qwen3-0.6b", "0.6B", LoraOutput::tied, true},
      {"qwen3", "qwen3_0_6b_base", "qwen3-0.6b", "0.6B", LoraOutput::tied, true},
      {"qwen3", "qwen3_1_7b_instruct", "qwen3-1.7b", "1.7B", LoraOutput::tied, true},
      {"qwen3", "qwen3_1_7b_base", "qwen3-1.7b", "1.7B", LoraOutput::tied, true},
      {"qwen3", "qwen3_4b_instruct", "qwen3-4b", "4B", LoraOutput::tied, true},
      {"qwen3", "qwen3_4b_base", "qwen3-4b", "4B", LoraOutput::tied, true},
      {"qwen3", "qwen3_8b_instruct", "qwen3-8b", "8B", LoraOutput::adaptable, true},
      {"qwen3", "qwen3_8b_base", "qwen3-8b", "8B", LoraOutput::adaptable, true},
      {"qwen3", "qwen3_14b_instruct", "qwen3-14b", "14B", LoraOutput::adaptable, true},
      {"qwen3", "qwen3_14b_base", "qwen3-14b", "14B", LoraOutput::adaptable, true},
      {"qwen3", "qwen3_32b", "qwen3-32b", "32B", LoraOutput::adaptable, true},
      {"gemma", "gemma_2b", "gemma-2b", "2B", LoraOutput::absent, true},
      {"gemma", "gemma_7b", "gemma-7b", "7B", LoraOutput::absent, true},
      {"gemma2", "gemma2_2b", "gemma-2-2b", "2B", LoraOutput::absent, true},
      {"gemma2", "gemma2_9b", "gemma-2-9b", "9B", LoraOutput::absent, true},
      {"gemma2", "gemma2_27b", "gemma-2-27b", "27B", LoraOutput::absent, true},
      {"mistral", "mistral_7b", "mistral-7b-v0.1", "7B", LoraOutput::adaptable, true},
      {"phi3", "phi3_mini", "phi-3-mini-4k", "mini", LoraOutput::adaptable, true},
      {"phi4", "phi4_14b", "phi-4", "14B", LoraOutput::adaptable, true}};
  return builders;
}

// Whether the family defines qlora_<builder> partials (models/<family>/_model_builders.py at
// bd2a0fc); qwen2, qwen2_5 and qwen3 define none: their QLoRA is lora_<builder> with quantize_base=True.
inline bool has_qlora_builders(const TorchtuneBuilder& b) {
  const std::string family = b.family;
  return family != "qwen2" && family != "qwen2_5" && family != "qwen3";
}

inline const TorchtuneBuilder* torchtune_builder_named(const std::string& builder) {
  for (const auto& b : torchtune_builders())
    if (builder == b.builder) return &b;
  return nullptr;
}

// The first builder of a catalog model (its checkpoint's own release where torchtune has two).
inline const TorchtuneBuilder* torchtune_builder_for(const std::string& preset) {
  for (const auto& b : torchtune_builders())
    if (preset == b.preset) return &b;
  return nullptr;
}

}  // namespace trainmem::import_detail
