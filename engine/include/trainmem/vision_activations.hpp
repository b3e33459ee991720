// The vision side of a vision-language model's step: the images a setup prices and what the
// vision encoder and projector keep for backward.
//
// Each image runs through the encoder as its own sequences (tiles, base image) of patches, with
// full attention within a sequence (Qwen2-VL's cu_seqlens, CLIP/SigLIP per image). A frozen
// encoder records no autograd graph (no parameter and no input requires grad), so it saves
// nothing; a trained one saves per layer what a transformer layer saves (activations.hpp), under
// the language model's checkpointing policy (transformers' gradient_checkpointing_enable wraps the
// vision encoder layers too). The projector saves its linears' inputs and its activation's input
// when it trains or gradients pass through it to the encoder. Bytes per micro-batch, per GPU.
#pragma once

#include <cstdint>
#include <utility>

#include "trainmem/activations.hpp"
#include "trainmem/image_tokens.hpp"
#include "trainmem/training_setup.hpp"

namespace trainmem {

// The [height, width] the setup prices: multimodal.image_size, else vision_config.image_size,
// else kDefaultImageSide square (`assumed` tells the caller to say so).
std::pair<std::int64_t, std::int64_t> priced_image_size(const TrainingSetup& s, const VisionTower& v, bool* assumed = nullptr);

struct VisionActivations {
  ImageTokens per_image;            // one image's sequences and tokens
  std::int64_t lm_image_tokens = 0;  // image tokens per sample in the LM sequence (within seq_length)
  double encoder_saved = 0;          // bytes kept by the encoder layers, per micro-batch
  double projector_saved = 0;        // bytes kept by the projector, per micro-batch
  double encoder_layer_saved = 0;    // one encoder layer's saved bytes (first group)
  double saved() const { return encoder_saved + projector_saved; }
};

VisionActivations vision_activations(const TrainingSetup& s, const Architecture& a, Dtype compute);

// Vision states per sample that cross-attention layers attend to (Llama 3.2 Vision); 0 otherwise.
double cross_attention_states(const TrainingSetup& s, const Architecture& a);

}  // namespace trainmem
