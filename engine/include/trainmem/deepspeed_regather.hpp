// Parameters DeepSpeed ZeRO-3 gathers a third time for a layer under full activation checkpointing.
//
// DeepSpeed fetches parameters per submodule from its forward and backward hooks
// (deepspeed/runtime/zero/parameter_offload.py @v0.13.5, bc0d246: pre_sub_module_forward_function
// and pre_sub_module_backward_function call PartitionedParameterCoordinator.fetch_sub_module).
// A checkpointed layer's recompute runs its submodules' forwards again inside the backward, so the
// hooks gather every submodule's parameters for the recompute (the forward released them: their
// next use lay a whole forward and backward away). After each submodule's recompute,
// release_sub_module frees its parameters unless the trace shows them used again within
// stage3_max_reuse_distance elements (partitioned_param_coordinator.py @v0.13.5, __params_to_release:
// it walks the recorded submodule order from the next step, adding each submodule's parameter count,
// and keeps a parameter met before the running count reaches the distance; default 1e9 elements,
// runtime/zero/config.py @v0.13.5, max_reuse_distance, unchanged at edaa722). The layer's backward
// runs its submodules in reverse, so submodule m's backward use comes after the rest of the
// layer's recompute and those submodules' backward: 2 S_after(m) elements later, S_after(m) the
// parameters of the submodules after m in forward order. m is gathered again for its backward when
// 2 S_after(m) >= the distance.
//
// Each of the layer group's Linear entries stands for one fetched submodule, in the order the
// layer runs them (routed experts as one unit, as set_z3_leaf_modules makes a MoE block); norms are
// below stage3_param_persistence_threshold (1e5 elements) and never released. Elements are this
// GPU's before ZeRO sharding: a tensor-parallel linear's 1/tp, routed experts' 1/ep, then their
// 1/etp.
#pragma once

#include "trainmem/architecture.hpp"

namespace trainmem {

struct RegatheredParameters {
  double dense = 0, expert = 0;  // elements
};

// Per checkpointed layer of `group`: the parameters gathered again for its backward after its
// recompute.
RegatheredParameters deepspeed_backward_regather(const LayerGroup& group, double tp, double ep, double etp);

}  // namespace trainmem
