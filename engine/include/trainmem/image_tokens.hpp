// One image through a vision-language model: the sequences its vision encoder runs, and the
// tokens it takes in the language model's sequence, each family as its image processor and
// modeling file compute them (engine/src/architectures/image_tokens.cpp cites each rule).
#pragma once

#include <cstdint>

#include "trainmem/architecture.hpp"

namespace trainmem {

struct ImageTokens {
  std::int64_t height = 0, width = 0;     // pixels after the processor's resize (the base image)
  std::int64_t encoder_sequences = 0;     // sequences the vision encoder runs (tiles, base image)
  std::int64_t encoder_positions = 0;     // positions per sequence (patches, class token, padding)
  std::int64_t projector_rows = 0;        // rows entering the projector's first linear
  std::int64_t lm_tokens = 0;             // image tokens in the language model's sequence
  std::int64_t cross_attention_states = 0;  // mllama: vision states the LM cross-attends to
};

// The image tokens of one image of `height` x `width` pixels (positive, validated by the caller).
// Bounded work: at most a few hundred candidate grids are compared.
ImageTokens image_tokens(const VisionTower& v, std::int64_t height, std::int64_t width);

// The image size a setup prices: multimodal.image_size, else vision_config.image_size, else the
// documented default for dynamic-resolution families (kDefaultImageSide square).
inline constexpr std::int64_t kDefaultImageSide = 448;

}  // namespace trainmem
