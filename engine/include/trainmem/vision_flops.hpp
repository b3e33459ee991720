// FLOPs of a vision-language model's vision side, counted as flops.hpp counts a layer: each image's
// encoder sequences through the encoder layers (bidirectional attention over the sequence's
// positions), then the projector's linears over its rows. Backward runs where gradients flow: the
// encoder's input and weight gradients when it trains (in full or through adapters), the projector's
// input gradient when the encoder trains and its weight gradient when it trains itself.
#pragma once

#include "trainmem/flops.hpp"

namespace trainmem {

// Adds the vision tower's and projector's FLOPs of one optimizer step to `t` (nothing without a
// vision tower). Model FLOPs count the attention non-causal and no recompute, as flops.hpp does.
void add_vision_flops(const TrainingSetup& s, TrainingFlops& t);

}  // namespace trainmem
