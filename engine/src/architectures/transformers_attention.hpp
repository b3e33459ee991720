// Which attention transformers runs for a model_type when from_pretrained is given no
// attn_implementation: the HF Trainer's default, which sets whether the s x s scores are kept.
#pragma once

#include <string>

#include "trainmem/architecture.hpp"

namespace trainmem::architectures {

TransformersAttention transformers_attention(const std::string& model_type);

}  // namespace trainmem::architectures
