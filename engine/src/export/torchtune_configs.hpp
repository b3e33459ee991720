// torchtune's built-in configs the export can name, with the keys each sets inside the components a
// tune run line switches (optimizer, loss, model) besides _component_. A line that switches a
// component must remove (~key) each key the new component does not take, and tune run refuses to
// remove a key the config lacks (config/_utils.py _merge_yaml_and_cli_args -> _remove_key_by_dotpath:
// "Could not find key ... in yaml config to remove"), so the export needs the config's own keys.
// Read from torchtune 0.7.0 (pytorch/torchtune bd2a0fc) recipes/configs/<name>.yaml; the names are
// those of torchtune/_recipe_registry.py for the catalog's families.
#pragma once

#include <string>
#include <vector>

namespace trainmem::export_detail {

struct TorchtuneConfig {
  const char* name;            // "llama3_1/8B_lora_single_device"
  const char* optimizer_keys;  // space-separated keys of its optimizer: block
  const char* loss_keys;       // ... of its loss: block
  const char* model_keys;      // ... of its model: block
};

inline const std::vector<TorchtuneConfig>& torchtune_configs() {
  static const std::vector<TorchtuneConfig> configs = {
      {"llama2/7B_full", "fused lr", "", ""},
      {"llama2/13B_full", "fused lr", "", ""},
      {"llama2/7B_full_low_memory", "lr", "", ""},
      {"llama2/7B_lora", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"llama2/13B_lora", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"llama2/70B_lora", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"llama2/7B_qlora", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"llama2/70B_qlora", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"llama2/7B_lora_single_device", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"llama2/7B_qlora_single_device", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"llama2/13B_qlora_single_device", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"llama3/8B_full", "fused lr", "", ""},
      {"llama3/70B_full", "fused lr", "", ""},
      {"llama3/8B_full_single_device", "lr", "", ""},
      {"llama3/8B_lora", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"llama3/70B_lora", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"llama3/8B_lora_single_device", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"llama3/8B_qlora_single_device", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"llama3_1/8B_full", "fused lr", "", ""},
      {"llama3_1/70B_full", "fused lr", "", ""},
      {"llama3_1/8B_full_single_device", "lr", "", ""},
      {"llama3_1/8B_lora", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"llama3_1/70B_lora", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"llama3_1/405B_qlora", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_rank"},
      {"llama3_1/8B_lora_single_device", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"llama3_1/8B_qlora_single_device", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"llama3_2/1B_full", "fused lr", "", ""},
      {"llama3_2/3B_full", "fused lr", "", ""},
      {"llama3_2/1B_full_single_device", "lr", "", ""},
      {"llama3_2/3B_full_single_device", "lr", "", ""},
      {"llama3_2/1B_lora", "fused lr weight_decay", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"llama3_2/3B_lora", "fused lr weight_decay", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"llama3_2/1B_lora_single_device", "fused lr weight_decay", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"llama3_2/3B_lora_single_device", "fused lr weight_decay", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"llama3_2/1B_qlora_single_device", "fused lr weight_decay", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"llama3_2/3B_qlora_single_device", "fused lr weight_decay", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"qwen2/0.5B_full", "fused lr", "", ""},
      {"qwen2/1.5B_full", "fused lr", "", ""},
      {"qwen2/0.5B_full_single_device", "fused lr", "", ""},
      {"qwen2/1.5B_full_single_device", "lr", "", ""},
      {"qwen2/0.5B_lora", "fused lr weight_decay", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"qwen2/1.5B_lora", "fused lr", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"qwen2/0.5B_lora_single_device", "fused lr weight_decay", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"qwen2/1.5B_lora_single_device", "fused lr", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"qwen2_5/0.5B_full", "fused lr", "", ""},
      {"qwen2_5/1.5B_full", "fused lr", "", ""},
      {"qwen2_5/3B_full", "fused lr", "", ""},
      {"qwen2_5/7B_full", "fused lr", "", ""},
      {"qwen2_5/0.5B_full_single_device", "fused lr", "", ""},
      {"qwen2_5/1.5B_full_single_device", "lr", "", ""},
      {"qwen2_5/3B_full_single_device", "lr", "", ""},
      {"qwen2_5/7B_full_single_device", "lr", "", ""},
      {"qwen2_5/0.5B_lora", "fused lr weight_decay", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"qwen2_5/1.5B_lora", "fused lr", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"qwen2_5/3B_lora", "fused lr weight_decay", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"qwen2_5/7B_lora", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"qwen2_5/32B_lora", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"qwen2_5/72B_lora", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"qwen2_5/0.5B_lora_single_device", "fused lr weight_decay", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"qwen2_5/1.5B_lora_single_device", "fused lr", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"qwen2_5/3B_lora_single_device", "fused lr weight_decay", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"qwen2_5/7B_lora_single_device", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"qwen2_5/14B_lora_single_device", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"llama3_3/70B_full", "fused lr", "", ""},
      {"llama3_3/70B_lora", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"llama3_3/70B_qlora", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"qwen3/0.6B_full", "fused lr", "", ""},
      {"qwen3/1.7B_full", "fused lr", "", ""},
      {"qwen3/4B_full", "fused lr", "", ""},
      {"qwen3/8B_full", "fused lr", "", ""},
      {"qwen3/0.6B_full_single_device", "fused lr", "", ""},
      {"qwen3/1.7B_full_single_device", "fused lr", "", ""},
      {"qwen3/4B_full_single_device", "fused lr", "", ""},
      {"qwen3/8B_full_single_device", "lr", "", ""},
      {"qwen3/0.6B_lora", "fused lr weight_decay", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"qwen3/1.7B_lora", "fused lr", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"qwen3/4B_lora", "fused lr weight_decay", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"qwen3/8B_lora", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"qwen3/32B_lora", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"qwen3/0.6B_lora_single_device", "fused lr weight_decay", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"qwen3/1.7B_lora_single_device", "fused lr", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"qwen3/4B_lora_single_device", "fused lr weight_decay", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"qwen3/8B_lora_single_device", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"qwen3/14B_lora_single_device", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"phi4/14B_full", "fused lr", "", ""},
      {"phi4/14B_full_low_memory", "lr", "", ""},
      {"phi4/14B_lora", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"phi4/14B_lora_single_device", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"phi4/14B_qlora_single_device", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"gemma/2B_full", "fused lr", "", ""},
      {"gemma/7B_full", "fused lr", "", ""},
      {"gemma/2B_lora", "fused lr", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"gemma/7B_lora", "fused lr", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"gemma/2B_lora_single_device", "fused lr", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"gemma/7B_lora_single_device", "fused lr", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"gemma/2B_qlora_single_device", "fused lr", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"gemma/7B_qlora_single_device", "fused lr", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"gemma2/2B_full", "fused lr", "", ""},
      {"gemma2/9B_full", "fused lr", "", ""},
      {"gemma2/27B_full", "fused lr", "", ""},
      {"gemma2/2B_lora", "fused lr", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"gemma2/9B_lora", "fused lr", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"gemma2/27B_lora", "fused lr", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"gemma2/2B_lora_single_device", "fused lr", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"gemma2/9B_lora_single_device", "fused lr", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"gemma2/27B_lora_single_device", "fused lr", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"gemma2/2B_qlora_single_device", "fused lr", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"gemma2/9B_qlora_single_device", "fused lr", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"gemma2/27B_qlora_single_device", "fused lr", "", "apply_lora_to_mlp lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"mistral/7B_full", "fused lr", "", ""},
      {"mistral/7B_full_low_memory", "lr", "", ""},
      {"mistral/7B_lora", "fused lr", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"mistral/7B_lora_single_device", "fused lr", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"mistral/7B_qlora_single_device", "fused lr", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"phi3/mini_full", "fused lr", "", ""},
      {"phi3/mini_full_low_memory", "lr", "", ""},
      {"phi3/mini_lora", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"phi3/mini_lora_single_device", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"phi3/mini_qlora_single_device", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_dropout lora_rank"},
      {"llama3/8B_dora", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_rank use_dora"},
      {"llama3/8B_dora_single_device", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_rank use_dora"},
      {"llama3/8B_qdora_single_device", "fused lr weight_decay", "", "apply_lora_to_mlp apply_lora_to_output lora_alpha lora_attn_modules lora_rank quantize_base use_dora"}};
  return configs;
}

inline const TorchtuneConfig* torchtune_config(const std::string& name) {
  for (const auto& c : torchtune_configs())
    if (name == c.name) return &c;
  return nullptr;
}

}  // namespace trainmem::export_detail
