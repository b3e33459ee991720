// What the estimate says about the parts of a checkpoint beyond a text decoder: vision towers,
// state-space layers and config parts it does not price.
#pragma once

#include <vector>

#include "trainmem/errors.hpp"
#include "trainmem/estimate.hpp"

namespace trainmem {

// The images of a sample must fit in its sequence: batch.seq_length counts the image tokens (the
// processor expands each image placeholder before training). Appends an error when they do not.
void validate_images(const TrainingSetup& s, Errors& errors);

// Warnings: config parts left unpriced (with their parameter count where countable), the image
// size assumed, the SSM kernels assumed. (Layout assumptions have their own warning, explain.cpp.)
void multimodal_warnings(const TrainingSetup& s, const Estimate& e, std::vector<Warning>& out);

}  // namespace trainmem
