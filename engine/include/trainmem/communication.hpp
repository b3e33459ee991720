// Communication of one training step: what each GPU puts on its links, in bytes, and how long it
// takes, per kind of parallelism.
//
// Bytes are nccl-tests "bus bytes" (NVIDIA/nccl-tests doc/PERFORMANCE.md): for a collective over
// n ranks of a buffer of S bytes, all-reduce moves S x 2(n-1)/n per GPU, reduce-scatter,
// all-gather and all-to-all S x (n-1)/n (S the whole buffer); a point-to-point send moves S.
// Seconds = bus bytes / bus bandwidth, where the bus bandwidth is what nccl-tests reports
// ("busbw"): the catalog's intra-node figure when the group fits in one node (an NVLink domain),
// else min(intra, k x inter-node per GPU) for k group members per node (each GPU has its own NIC;
// NCCL's rings use all of a node's NICs at once. NVIDIA/nccl#412, NCCL maintainer, 2023-04-24: an
// 8-GPU A800 node with one 200 Gb/s NIC should see ~24 GB/s busbw across nodes, and each further
// NIC on a GPU's PCI switch adds bandwidth up to the node's NVLink figure, ~160 GB/s there).
//
// Group layout follows Megatron's rank order "tp-cp-ep-dp-pp" (tensor parallel innermost, then
// context, expert, data, pipeline outermost; Megatron-Core parallel_state.py, order argument);
// torchtitan's device mesh nests the same way (pp, dp, cp, tp).
//
// Per layer and micro-batch (T tokens of one micro-batch per model-parallel group, h hidden, a
// bytes per activation element):
//   tensor    2 all-reduces of [T, h] forward and 2 backward (Megatron's f and g operators;
//             with sequence parallelism 2 all-gathers + 2 reduce-scatters, the same bytes:
//             Korthikanti et al. 2022, §4.2.2), 2 more in a full-recompute pass. A Megatron
//             MoE layer keeps attention's (and a shared expert's) and instead, with expert
//             tensor parallelism etp > 1, all-gathers the routed copies a rank received over the
//             ETP group after the dispatch and reduce-scatters the experts' output before the
//             combine: 2 (etp - 1) (T / tp) top_k h a bus bytes per pass (top_k times the dense
//             MLP's all-reduce at etp = tp; Megatron-LM token_dispatcher.py,
//             MoEAlltoAllTokenDispatcher).
//   context   ring attention (Megatron "p2p" CP, torch context_parallel): each rank passes its
//             k/v chunk around the ring, (cp-1) chunks forward, k/v and their gradients backward;
//             runs under the attention kernel (exposed only beyond it). Ulysses instead
//             all-to-alls q, k, v into a head split and the output back, each moving (cp-1)/cp
//             of [T, heads x head_dim / tp], forward and backward (Jacobs et al. 2023, §3.1);
//             these block like the tensor-parallel collectives.
//   expert    all-to-all dispatch and combine of T_gpu x top_k tokens of h, forward and backward
//             (Megatron MoE alltoall token dispatcher); like Ulysses' all-to-alls at
//             all_to_all_bandwidth, whose cross-node share is bound by the rank's own NIC.
//   pipeline  the stage's output activation forward and its gradient backward, [T, h] (split by
//             tensor parallel with sequence parallelism), once per virtual stage.
// Per step, data parallel (the gradient group: data x context parallel ranks; experts: / EP):
//   ZeRO-0/DDP  all-reduce of the gradients once per step (no_sync accumulation).
//   ZeRO-1/2    reduce-scatter of the gradients (ZeRO-2 under DeepSpeed: every micro-batch) and an
//               all-gather of the updated parameters (Rajbhandari et al. 2020, §7.2). DeepSpeed's
//               own ZeRO-1/2 all-reduces each gradient bucket instead (2(n-1)/n bus bytes; see
//               data_parallel_collectives).
//   ZeRO-3/FSDP every micro-batch: parameter all-gather in forward, again in backward when
//               resharded after forward, and a gradient reduce-scatter (§7.2: 1.5x DDP's volume);
//               HYBRID_SHARD also all-reduces its shard across the replicas. DeepSpeed under full
//               activation checkpointing gathers a checkpointed layer for its recompute and once
//               more, for its backward, the submodules its reuse distance let go
//               (deepspeed_regather.hpp).
// Latency: each collective also pays NCCL's own latency estimate, which grows with the ring's steps
// (NVIDIA/nccl src/graph/tuning.cc @5067397, ncclTunerConstantsDefaults and ncclTopoTuneModel).
// With the Simple protocol: a base of 8.4 us plus, per ring step, 3.4 us inside an NVLink node
// (5.7 us over PCIe; at least 3 x 1 us of network overhead once the ring leaves the node) and 14 us
// per step that crosses nodes; with LL128, enabled by default where the node's GPUs talk over
// NVLink: 14 us plus 1.9 us per NVLink step and 4 us per network step, at 0.92 of the bandwidth.
// A ring all-reduce has 2(n - 1) steps, 2(nodes - 1) of them across nodes, and with Simple 1.4x
// that latency across nodes on compute capability 8.0 and later ("plateau effect of ring");
// all-gather and reduce-scatter n - 1 and nodes - 1. An all-reduce may run as NCCL's tree instead:
// base + 2 ((ranks on the fullest node - 1) x 4 us (LL128 over NVLink 1.25) + floor(log2 nodes) x
// 14 us (LL128 8.5)), at 0.92 of the bandwidth (LL128 across nodes x 120/128). Each collective takes
// the lowest latency + bytes / bandwidth over these, as NCCL picks by its own model (large buffers:
// the Simple ring). NCCL's newer algorithms (NVLS, PAT, CollNet), which need NVSwitch SHARP, one GPU
// per node or a SHARP network, are not modelled: on such systems the latency here is an upper
// bound. Collectives per step: tensor parallel, one per all-reduce counted above (an all-gather
// and a reduce-scatter with sequence parallelism); data parallel, by the sharding engine (see
// data_parallel_collectives; DeepSpeed's re-gathers after a recompute by bandwidth alone).
// Point-to-point sends (pipeline, ring attention) and all-to-alls are counted by bandwidth alone.
// Offload: over the host link (PCIe) at 0.784 of its line rate (a large cudaMemcpy's 12.35 of
// 15.75 GB/s on PCIe 3.0 x16, te42kyfo/gpu-benches README.md, "cuda-memcpy"): optimizer offload
// moves the gradient shard down and the parameter shard up once per step; parameter offload
// fetches the shard for forward and backward; activation offload moves the saved activations out
// and back.
#pragma once

#include "trainmem/estimate.hpp"

namespace trainmem {

// Bus bytes per GPU and their seconds.
struct Traffic {
  double bytes = 0, seconds = 0;
  Traffic& operator+=(const Traffic& o) {
    bytes += o.bytes;
    seconds += o.seconds;
    return *this;
  }
  Traffic times(double n) const { return {bytes * n, seconds * n}; }
};

// Link speeds in force: the document's "network", else the catalog GPU's, else defaults.
struct LinkRates {
  double intra_node_bytes_per_s = 0, inter_node_bytes_per_s = 0, host_bytes_per_s = 0;
  double node_gpus = 8;  // GPUs joined at the intra-node rate
  // The node's GPUs talk over NVLink (the catalog's interconnect is faster than the host link),
  // else over PCIe: NCCL's latency per ring step differs.
  bool nvlink = false;
};
LinkRates link_rates(const TrainingSetup& setup);

// The ring collectives whose latency is counted.
enum class Collective { all_reduce, all_gather, reduce_scatter };

// Seconds of one collective moving `bus_bytes` per GPU at `bandwidth` over `ranks` ranks `stride`
// ranks apart, as NCCL's model picks it (see "Latency" above): the lowest of latency + bytes /
// bandwidth over the ring and, for an all-reduce, the tree, with the Simple protocol and, over
// NVLink, LL128. One rank: bytes / bandwidth.
double collective_seconds(Collective kind, double bus_bytes, double bandwidth, double ranks, double stride, const LinkRates& links);

// Bus bandwidth of a group of `ranks` whose members are `stride` ranks apart (ring collectives:
// all-reduce, reduce-scatter, all-gather), bytes/s.
double bus_bandwidth(double ranks, double stride, const LinkRates& links);

// Bus bandwidth of an all-to-all over such a group, bytes/s: a ring collective passes every byte
// through each member in turn, so a node's k NICs carry the ring side by side; an all-to-all sends
// each peer its own 1/n of the buffer, so the (n - k)/n bound for other nodes leaves through the
// rank's own NIC while (k - 1)/n crosses the node's links. Bus bytes (n - 1)/n S over
// max((k - 1)/n S / intra, (n - k)/n S / inter) seconds: (n - 1) / max((k - 1)/intra,
// (n - k)/inter). Inside one node it is the intra-node figure. Bus bytes of an all-to-all as
// nccl-tests counts them: NVIDIA/nccl-tests src/alltoall.cu @a0b82b2, AlltoAllGetBw (factor
// (n-1)/n).
double all_to_all_bandwidth(double ranks, double stride, const LinkRates& links);

// One layer of a group, one micro-batch, on one GPU (recompute included).
struct LayerTraffic {
  Traffic tensor, context, expert;
};
LayerTraffic layer_traffic(const TrainingSetup& setup, const LayerGroup& layer, Dtype activation_dtype, const LinkRates& links);

// Data-parallel collectives NCCL runs, by the sharding engine's source:
//   FSDP1/FSDP2 (zero_stage >= 1): one all-gather per wrapped unit and gather pass, one
//     reduce-scatter per unit and reduction (and HYBRID_SHARD's all-reduce); the units are the
//     transformer layers plus the root module (torch/distributed/fsdp/_flat_param.py: one
//     FlatParameter per wrapped module; fully_shard: one FSDPParamGroup per call).
//   DeepSpeed ZeRO-3: one all-gather per submodule and pass (deepspeed/runtime/zero/
//     partitioned_param_coordinator.py @v0.13.5, fetch_sub_module: every submodule's arrival
//     issues one coalesced all-gather of the next prefetch bucket; each linear stands for one
//     submodule, routed experts for one each), plus the embedding and the head; reduce-scatters of
//     reduce_bucket_size elements (stage3.py, one coalesced reduce-scatter per full bucket).
//   DeepSpeed ZeRO-1/2: one all-reduce per reduce_bucket_size elements (stage_1_and_2.py,
//     average_tensor -> allreduce_and_scatter: use_multi_rank_bucket_allreduce, on by default,
//     all-reduces each bucket over the whole group and keeps the rank's slice; the same at
//     v0.18.7) and one parameter all-gather (runtime/utils.py, all_gather_into_tensor_dp_groups);
//     ZeRO-0 all-reduces reduce_bucket_size elements at a time (runtime/engine.py,
//     buffered_allreduce_fallback).
//   Megatron DDP and distributed optimizer: one all-reduce (reduce-scatter and all-gather) per
//     bucket of max(40e6, 1e6 x data x context-parallel size) parameters with --overlap-grad-reduce, else
//     one per gradient buffer (megatron/core/distributed/distributed_data_parallel.py @d98e8a6).
//   PyTorch DDP: buckets of bucket_cap_mb = 25 MiB of gradients, the first 1 MiB
//     (torch/nn/parallel/distributed.py, _DEFAULT_FIRST_BUCKET_BYTES).
// Routed experts reduced over their own group (expert parallel size > 1) count apart: their
// submodules, FSDP units (one per MoE layer) and buckets of their gradients.
struct DataParallelCollectives {
  double gathers_per_pass = 0;  // parameter all-gathers of one forward (or backward) pass
  double reductions = 0;        // gradient collectives (of kind `reduction`) per reduction
  // How the gradients are reduced: an all-reduce at ZeRO-0 and in DeepSpeed's ZeRO-1/2, else a
  // reduce-scatter.
  Collective reduction = Collective::reduce_scatter;
  double parameter_syncs = 0;   // ZeRO-1/2: parameter all-gathers after the optimizer step
  // Routed experts with a group of their own (expert parallel size > 1): their collectives over it,
  // counted from the expert submodules, layers and gradients alone; else they ride in the above.
  bool experts_apart = false;
  double expert_gathers_per_pass = 0, expert_reductions = 0, expert_parameter_syncs = 0;
};
DataParallelCollectives data_parallel_collectives(const TrainingSetup& setup, const Estimate& estimate);

// Whether data-parallel traffic runs under the compute: parallel.overlap_grad_reduce, else the
// sharding engine's default (step_time.hpp).
bool overlaps_data_parallel(const TrainingSetup& setup);

// Data-parallel and offload traffic of one GPU (the stage holding the most parameters).
struct DataParallelTraffic {
  Traffic gather_forward, gather_backward;  // ZeRO-3: per micro-batch
  double micro_batches = 1;                 // gradient accumulation steps
  Traffic reduce;                           // per reduction
  double reductions_per_step = 1;           // micro-batches (ZeRO-2 DeepSpeed, ZeRO-3) or 1
  Traffic parameter_sync;                   // ZeRO-1/2: after the optimizer step
  double layers = 1;                        // layers the traffic is spread over (prefetch units)
  Traffic optimizer_offload;                // per step, over the host link
  Traffic parameter_offload;                // per micro-batch, over the host link
  Traffic activation_offload;               // per micro-batch, over the host link
  Traffic per_step() const;                 // everything above for one optimizer step
};
DataParallelTraffic data_parallel_traffic(const TrainingSetup& setup, const Estimate& estimate, const LinkRates& links);

// Pipeline sends of one micro-batch on one GPU.
Traffic pipeline_traffic(const TrainingSetup& setup, Dtype activation_dtype, const LinkRates& links);

}  // namespace trainmem
