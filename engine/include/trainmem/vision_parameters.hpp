// Which parts of a vision-language checkpoint train, and the vision tower's and projector's
// parameters on the GPU that holds them (the first pipeline stage, as Megatron-LM's LLaVAModel
// places its vision model with the embeddings).
//
// multimodal.freeze_vision_tower (default true) keeps the encoder's weights: no gradients and no
// optimizer states for them (LLaVA's stage-2 recipe, TRL's VLM SFT examples). With LoRA/QLoRA and
// the tower not frozen, the encoder's linears take adapters by the same target_modules (PEFT
// matches module names in the vision tower as well); frozen, they take none. The projector trains
// in full unless multimodal.freeze_projector, under every method (LLaVA's finetune_lora.sh trains
// mm_projector beside the adapters).
#pragma once

#include <string>

#include "trainmem/parameter_layout.hpp"
#include "trainmem/training_setup.hpp"

namespace trainmem {

// The vision tower of `a` (which has one) as an architecture of its own: its layer groups under
// their module prefixes, its hidden size and norm, positions taken as added at the patch
// embedding (CLIP, SigLIP; Qwen2-VL's 2-D rotary on q and k inside its blocks, a few element
// passes, is left out of the step time), no embedding table and no head. PEFT's matching (lora_targeting.hpp) runs on its full module names; the step
// time (step_time.cpp) runs its layers as encoder layers.
Architecture vision_view(const Architecture& a);

bool vision_encoder_trained_in_full(const TrainingSetup& s);
bool vision_encoder_has_adapters(const TrainingSetup& s);
bool projector_trained(const TrainingSetup& s);

// LoRA on a vision tower that takes adapters (not frozen, method lora/qlora): whether a
// target_modules entry names one of its modules, and whether any of its modules is targeted.
bool vision_tower_names_module(const TrainingSetup& s, const std::string& target);
bool vision_tower_targeted(const TrainingSetup& s);

// Adds the vision tower and projector of `a` (if any) to a rank's parameters: linears split over
// tensor parallelism (Megatron builds the vision model with the language model's TP), embeddings
// and norms replicated. Elements.
void add_vision_parameters(RankParameters& r, const Architecture& a, const TrainingSetup& s, double tp);

}  // namespace trainmem
