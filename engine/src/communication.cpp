#include "trainmem/communication.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "trainmem/deepspeed_regather.hpp"
#include "trainmem/framework_defaults.hpp"
#include "trainmem/model_states.hpp"
#include "trainmem/transient_buffers.hpp"


namespace trainmem {

namespace {

// NCCL's effective bus bandwidth over NVLink line rate: ~370 of 450 GB/s per direction on
// NVLink4 (NVIDIA/nccl-tests#212); used to turn a catalog interconnect figure (bidirectional, as
// vendors state it) into a bus bandwidth where no measured figure is in the catalog.
constexpr double kNcclLinkEfficiency = 370.0 / 450.0;
// Across nodes without a catalog figure: one 100 Gb/s NIC per GPU at the 46/50 efficiency NCCL
// reaches on NDR InfiniBand (NVIDIA/nccl-tests#290).
constexpr double kDefaultInterNodeBytesPerS = 12.5e9 * 46.0 / 50.0;
// Host link without a catalog figure: PCIe 4.0 x16, one direction.
constexpr double kDefaultHostBytesPerS = 32e9;
// What a large host <-> device copy reaches of the link's line rate: cudaMemcpy of 1 GiB on a V100
// PCIe (PCIe 3.0 x16: 8 GT/s x 16 lanes x 128/130 / 8 bits = 15.75 GB/s) runs at 12.35 GB/s
// (te42kyfo/gpu-benches README.md @01d2bb5, "cuda-memcpy" example output).
constexpr double kHostLinkEfficiency = 12.35 / 15.75;

// NCCL's latency and bandwidth model per protocol (NVIDIA/nccl src/graph/tuning.cc @5067397,
// ncclTunerConstantsDefaults: baseLatencies, hwLatencies; ncclTopoTuneModel; getNetOverhead),
// microseconds and shares of the Simple protocol's bus bandwidth. Simple carries the large buffers
// at full bandwidth; LL128 (enabled by default where the node's GPUs talk over NVLink) trades 8 %
// of it for lower latency.
struct NcclProtocol {
  double base_us;                 // baseLatencies, ring and tree
  double ring_nvlink_us, ring_pci_us;  // hwLatencies per ring step inside a node
  double tree_nvlink_us, tree_pci_us;  // per tree step inside a node
  double ring_net_us, tree_net_us;     // per step across nodes
  double net_overhead_us;         // intra-node ring step floor once the ring leaves the node
  double ring_bandwidth_share;    // ring LL128: 0.92 of the bus bandwidth
  // Tree all-reduce: 0.92 of the bus bandwidth, and LL128 7/9 of that inside one node, 120/128 across.
  double tree_bandwidth_share_one_node, tree_bandwidth_share_across_nodes;
};
constexpr NcclProtocol kNcclSimple{8.4, 3.4, 5.7, 4.0, 4.0, 14.0, 14.0, 3.0, 1.0, 0.92, 0.92};
constexpr NcclProtocol kNcclLl128{14.0, 1.9, 2.5, 1.25, 1.9, 4.0, 8.5, 1.0, 0.92, 0.92 * 7.0 / 9.0, 0.92 * 120.0 / 128.0};
// Multi-node ring all-reduce with the Simple protocol, compute capability >= 8.0: "plateau effect".
constexpr double kNcclRingAllReducePlateau = 1.4;

// PyTorch DDP's gradient buckets (torch/nn/parallel/distributed.py: bucket_cap_mb 25 and
// _DEFAULT_FIRST_BUCKET_BYTES 1 MiB), bytes.
constexpr double kDdpBucketBytes = 25.0 * 1024 * 1024, kDdpFirstBucketBytes = 1024.0 * 1024;
// Megatron's bucket under --overlap-grad-reduce: max(40e6, 1e6 x dp) parameters
// (megatron/core/distributed/distributed_data_parallel.py @d98e8a6).
constexpr double kMegatronMinBucketParams = 40e6, kMegatronBucketParamsPerRank = 1e6;

double ring(double n) { return n > 1 ? (n - 1) / n : 0.0; }

Traffic collective(double bus_bytes, double bandwidth) { return {bus_bytes, bandwidth > 0 ? bus_bytes / bandwidth : 0.0}; }


}  // namespace

LinkRates link_rates(const TrainingSetup& s) {
  LinkRates l;
  const GpuPerformance* perf = s.gpu ? &s.gpu->performance : nullptr;
  l.node_gpus = static_cast<double>(s.parallel.gpus_per_node);
  if (perf && perf->intra_node_gpus > 0) l.node_gpus = static_cast<double>(perf->intra_node_gpus);
  const double host_line_rate = perf && perf->host_link_bytes_per_s > 0 ? perf->host_link_bytes_per_s : kDefaultHostBytesPerS;
  l.host_bytes_per_s = host_line_rate * kHostLinkEfficiency;
  double intra = perf ? perf->intra_node_bytes_per_s : 0;
  // Without a measured figure: the interconnect's line rate in one direction (vendors state it
  // bidirectional) at NCCL's efficiency; a device without one talks over its host link.
  if (intra <= 0) intra = (perf && perf->interconnect_bytes_per_s > 0 ? perf->interconnect_bytes_per_s / 2 : host_line_rate) *
                          kNcclLinkEfficiency;
  l.nvlink = perf && perf->interconnect_bytes_per_s > 2 * host_line_rate;
  l.intra_node_bytes_per_s = s.network.intra_node_bytes_per_s.value_or(intra);
  l.inter_node_bytes_per_s =
      s.network.inter_node_bytes_per_s.value_or(perf && perf->inter_node_bytes_per_s > 0 ? perf->inter_node_bytes_per_s : kDefaultInterNodeBytesPerS);
  return l;
}

namespace {

// Members of a group of `ranks`, `stride` ranks apart, that share one node.
double members_per_node(double ranks, double stride, const LinkRates& l) {
  return stride >= l.node_gpus ? 1.0 : std::min(ranks, std::max(1.0, std::floor(l.node_gpus / stride)));
}

}  // namespace

double bus_bandwidth(double ranks, double stride, const LinkRates& l) {
  if (ranks <= 1) return l.intra_node_bytes_per_s;
  const double per_node = members_per_node(ranks, stride, l);
  if (per_node >= ranks) return l.intra_node_bytes_per_s;
  return std::min(l.intra_node_bytes_per_s, per_node * l.inter_node_bytes_per_s);
}

double collective_seconds(Collective kind, double bus_bytes, double bandwidth, double ranks, double stride, const LinkRates& l) {
  const double transfer = bandwidth > 0 ? bus_bytes / bandwidth : 0.0;
  if (ranks <= 1) return transfer;
  // The fullest node's ranks: the tree's chain inside a node runs through all of them.
  const double per_node = std::min(ranks, members_per_node(ranks, stride, l));
  const double nodes = std::ceil(ranks / per_node);
  const bool all_reduce = kind == Collective::all_reduce;
  const double steps = all_reduce ? 2 * (ranks - 1) : ranks - 1;
  const double net_steps = nodes > 1 ? (all_reduce ? 2 : 1) * (nodes - 1) : 0.0;
  double best = std::numeric_limits<double>::infinity();
  for (const NcclProtocol* p : {&kNcclSimple, &kNcclLl128}) {
    if (p == &kNcclLl128 && !l.nvlink) continue;
    double step = l.nvlink ? p->ring_nvlink_us : p->ring_pci_us;
    if (nodes > 1) step = std::max(step, p->net_overhead_us);
    double ring_us = p->base_us + (steps - net_steps) * step + net_steps * p->ring_net_us;
    if (all_reduce && nodes > 1 && p == &kNcclSimple) ring_us *= kNcclRingAllReducePlateau;
    best = std::min(best, ring_us * 1e-6 + transfer / p->ring_bandwidth_share);
    if (all_reduce) {
      const double tree_us = p->base_us + 2 * ((per_node - 1) * (l.nvlink ? p->tree_nvlink_us : p->tree_pci_us) +
                                               std::floor(std::log2(nodes)) * p->tree_net_us);
      const double share = nodes > 1 ? p->tree_bandwidth_share_across_nodes : p->tree_bandwidth_share_one_node;
      best = std::min(best, tree_us * 1e-6 + transfer / share);
    }
  }
  return best;
}

namespace {

// `count` collectives of one kind moving `bus_bytes` in all over `ranks` ranks `stride` apart.
Traffic collectives(double count, Collective kind, double bus_bytes, double ranks, double stride, const LinkRates& l) {
  const double bandwidth = bus_bandwidth(ranks, stride, l);
  if (count <= 0 || bus_bytes <= 0) return collective(bus_bytes, bandwidth);
  return {bus_bytes, count * collective_seconds(kind, bus_bytes / count, bandwidth, ranks, stride, l)};
}

}  // namespace

double all_to_all_bandwidth(double ranks, double stride, const LinkRates& l) {
  if (ranks <= 1) return l.intra_node_bytes_per_s;
  const double k = members_per_node(ranks, stride, l);
  if (k >= ranks) return l.intra_node_bytes_per_s;
  // Of a rank's S bytes, S/n go to each peer: (k - 1) S/n over the node's links and (n - k) S/n
  // through its own NIC, both at once. Time = max of the two; bus bytes (n - 1) S/n.
  const double seconds_per_byte = std::max((k - 1) / l.intra_node_bytes_per_s, (ranks - k) / l.inter_node_bytes_per_s);
  return (ranks - 1) / seconds_per_byte;
}

LayerTraffic layer_traffic(const TrainingSetup& s, const LayerGroup& g, Dtype activation_dtype, const LinkRates& links) {
  LayerTraffic t;
  const ParallelSettings& p = s.parallel;
  const double tp = static_cast<double>(p.tensor_parallel_size), cp = static_cast<double>(p.context_parallel_size);
  const double ep = static_cast<double>(p.expert_parallel_size);
  const double a = dtype_bytes(activation_dtype);
  const double seq = static_cast<double>(s.batch.seq_length.value_or(4096));
  const double tokens = static_cast<double>(s.batch.micro_batch_size) * seq / cp;  // per model-parallel group
  const double h = static_cast<double>(s.model.architecture->hidden_size);
  const bool full_recompute = s.activation_checkpointing == Checkpointing::full;
  // Forward + backward, and the forward again under full recompute.
  const double passes = full_recompute ? 3.0 : 2.0;
  const bool megatron_moe = s.framework == Framework::megatron && g.mlp.num_local_experts > 0;
  if (tp > 1) {
    // 2 all-reduces of [T, h] per pass (2 x 2(n-1)/n bus bytes each): attention's and the MLP's.
    // A Megatron MoE layer runs its routed experts outside the tensor-parallel group (their
    // collectives follow below): only attention's, and a shared expert's (a tensor-parallel MLP).
    const double all_reduces = megatron_moe ? (g.mlp.shared_intermediate_size > 0 ? 2.0 : 1.0) : 2.0;
    const double bytes = passes * all_reduces * 2 * ring(tp) * tokens * h * a;
    // Each all-reduce runs as an all-gather and a reduce-scatter under sequence parallelism.
    const double calls = passes * all_reduces;
    t.tensor = p.sequence_parallel ? collectives(2 * calls, Collective::all_gather, bytes, tp, 1, links)
                                   : collectives(calls, Collective::all_reduce, bytes, tp, 1, links);
  }
  const double etp = static_cast<double>(expert_tensor_parallel_size(s));
  if (megatron_moe && etp > 1) {
    // Megatron's all-to-all dispatcher all-gathers the received routed copies over the expert-
    // tensor-parallel group after the dispatch and reduce-scatters the experts' output before the
    // combine (NVIDIA/Megatron-LM megatron/core/transformer/moe/token_dispatcher.py @d98e8a6,
    // MoEAlltoAllTokenDispatcher: "AG(TP)->sort_chunk", "sort_chunk->RS(TP)"; the same at
    // core_r0.11.0 @5905586). A rank receives on average its T / tp tokens' top-k copies; gathering
    // them from etp ranks moves (etp - 1) x that many rows of h elements per GPU, the reduce-scatter
    // as many: 2 (etp - 1) (T / tp) k h bytes per pass, the backward swapping the two. The group
    // is adjacent ranks (stride 1).
    const double received = tokens / tp * static_cast<double>(g.mlp.num_experts_per_tok);
    t.tensor += collectives(passes * 2, Collective::all_gather, passes * 2 * (etp - 1) * received * h * a, etp, 1, links);
  }
  if (cp > 1) {
    const AttentionShape& at = g.attention;
    const double kv = static_cast<double>(at.num_key_value_heads * (at.head_dim + at.v_head_dim)) / tp;
    if (p.context_parallel_kind == ContextParallelKind::ring) {
      // Ring: (cp - 1) k/v chunks forward; k/v and their gradients backward.
      const double chunks = (full_recompute ? 4.0 : 3.0) * (cp - 1);
      t.context = collective(chunks * tokens * kv * a, bus_bandwidth(cp, tp, links));
    } else {
      // Ulysses (Jacobs et al. 2023, arXiv 2309.14509, §3.1): all-to-alls from a sequence split to a
      // head split for q, k, v and back for the output, per pass; the backward moves their gradients.
      const double q = static_cast<double>(at.num_attention_heads * at.head_dim) / tp;
      const double out = static_cast<double>(at.num_attention_heads * at.v_head_dim) / tp;
      t.context = collective(passes * ring(cp) * tokens * (q + kv + out) * a, all_to_all_bandwidth(cp, tp, links));
    }
  }
  if (ep > 1 && g.mlp.num_local_experts > 0) {
    // Dispatch + combine per pass; tokens enter the dispatcher split over the tensor-parallel
    // group (sequence parallel).
    const double routed = tokens / tp * static_cast<double>(g.mlp.num_experts_per_tok);
    const double bytes = passes * 2 * ring(ep) * routed * h * a;
    t.expert = collective(bytes, all_to_all_bandwidth(ep, static_cast<double>(expert_tensor_parallel_size(s)), links));
  }
  return t;
}

Traffic pipeline_traffic(const TrainingSetup& s, Dtype activation_dtype, const LinkRates& links) {
  const ParallelSettings& p = s.parallel;
  if (p.pipeline_parallel_size <= 1 || !s.model.architecture) return {};
  const double tp = static_cast<double>(p.tensor_parallel_size), cp = static_cast<double>(p.context_parallel_size);
  const double seq = static_cast<double>(s.batch.seq_length.value_or(4096));
  const double tokens = static_cast<double>(s.batch.micro_batch_size) * seq / cp;
  const double split = p.sequence_parallel && tp > 1 ? tp : 1.0;
  const double chunks = p.pipeline_schedule == PipelineSchedule::interleaved_1f1b ? static_cast<double>(p.virtual_pipeline_stages) : 1.0;
  const double bytes = 2 * chunks * tokens * static_cast<double>(s.model.architecture->hidden_size) * dtype_bytes(activation_dtype) / split;
  // Neighbouring stages sit tp x cp x dp ranks apart: another node once that reaches a node.
  const double stride = tp * cp * static_cast<double>(p.data_parallel_size);
  const double bandwidth = stride >= links.node_gpus ? links.inter_node_bytes_per_s : links.intra_node_bytes_per_s;
  return collective(bytes, bandwidth);
}

bool overlaps_data_parallel(const TrainingSetup& s) {
  if (s.parallel.overlap_grad_reduce) return *s.parallel.overlap_grad_reduce;
  switch (sharding_engine(s)) {
    case ShardingEngine::megatron: return false;  // --overlap-grad-reduce defaults to False
    case ShardingEngine::deepspeed: return s.parallel.zero_stage == 3;  // overlap_comm: True only for ZeRO-3
    default: return true;  // PyTorch DDP buckets, FSDP prefetch
  }
}

DataParallelCollectives data_parallel_collectives(const TrainingSetup& s, const Estimate& e) {
  DataParallelCollectives c;
  const ParallelSettings& p = s.parallel;
  const int zero = p.zero_stage;
  const ShardingEngine engine = sharding_engine(s);
  const double layers = std::max(1.0, e.layers_on_gpu);
  c.experts_apart = p.expert_parallel_size > 1 && e.gpu_expert_parameters > 0;
  const double expert_trained = c.experts_apart ? e.gpu_expert_trainable_parameters : 0.0;
  const double dense_trained = e.gpu_trainable_parameters - expert_trained;
  // Per layer on average: linear submodules, routed-expert ones, and layers holding routed experts.
  double linears = 0, routed_linears = 0, moe_layers = 0, total_layers = 1;
  if (s.model.architecture) {
    const Architecture& a = *s.model.architecture;
    total_layers = static_cast<double>(std::max<std::int64_t>(1, a.num_hidden_layers()));
    for (const auto& g : a.layers) {
      for (const auto& l : g.linears) (l.routed_expert ? routed_linears : linears) += static_cast<double>(g.count);
      if (g.mlp.num_local_experts > 0) moe_layers += static_cast<double>(g.count);
    }
  }
  const double share = layers / total_layers;  // of the model's layers on this GPU
  const auto buckets = [](double elements, double bucket) { return elements > 0 ? std::max(1.0, std::ceil(elements / bucket)) : 0.0; };
  if (zero == 0 || (engine == ShardingEngine::deepspeed && zero <= 2)) c.reduction = Collective::all_reduce;
  if (engine == ShardingEngine::deepspeed) {
    const DeepSpeedBuckets b = deepspeed_buckets(s);
    c.reductions = buckets(dense_trained, b.reduce);
    c.expert_reductions = buckets(expert_trained, b.reduce);
    if (zero == 3) {
      // Each linear a submodule; the embedding and the head (one of them on an inner pipeline stage).
      const double ends = p.pipeline_parallel_size > 1 ? 1.0 : 2.0;
      c.gathers_per_pass = (linears + (c.experts_apart ? 0.0 : routed_linears)) * share + ends;
      c.expert_gathers_per_pass = c.experts_apart ? routed_linears * share : 0.0;
    } else if (zero >= 1) {
      c.parameter_syncs = 1;
      c.expert_parameter_syncs = c.experts_apart ? 1 : 0;
    }
    return c;
  }
  if (zero == 3 || ((engine == ShardingEngine::fsdp || engine == ShardingEngine::fsdp2) && zero >= 1)) {
    // One unit per layer and the root; routed experts sharded apart form a unit per MoE layer.
    c.gathers_per_pass = c.reductions = c.parameter_syncs = layers + 1;
    if (c.experts_apart) c.expert_gathers_per_pass = c.expert_reductions = c.expert_parameter_syncs = moe_layers * share;
    return c;
  }
  if (engine == ShardingEngine::megatron) {
    // Sized by the data x context-parallel group (Megatron's dp_cp group).
    const double dp_cp = static_cast<double>(p.data_parallel_size * p.context_parallel_size);
    const double bucket = overlaps_data_parallel(s) ? std::max(kMegatronMinBucketParams, kMegatronBucketParamsPerRank * dp_cp)
                                                    : std::numeric_limits<double>::infinity();
    c.reductions = buckets(dense_trained, bucket);
    c.expert_reductions = buckets(expert_trained, bucket);
    if (zero >= 1) {
      c.parameter_syncs = c.reductions;
      c.expert_parameter_syncs = c.expert_reductions;
    }
    return c;
  }
  // PyTorch DDP.
  const auto ddp_buckets = [&](double parameters) {
    const double bytes = parameters * e.bytes_per_param.grad;
    return bytes > 0 ? 1.0 + std::ceil(std::max(0.0, bytes - kDdpFirstBucketBytes) / kDdpBucketBytes) : 0.0;
  };
  c.reductions = ddp_buckets(dense_trained);
  c.expert_reductions = ddp_buckets(expert_trained);
  return c;
}

DataParallelTraffic data_parallel_traffic(const TrainingSetup& s, const Estimate& e, const LinkRates& links) {
  DataParallelTraffic d;
  const ParallelSettings& p = s.parallel;
  d.micro_batches = static_cast<double>(s.batch.gradient_accumulation_steps);
  d.layers = std::max(1.0, e.layers_on_gpu);
  const double tp = static_cast<double>(p.tensor_parallel_size), ep = static_cast<double>(p.expert_parallel_size);
  const double etp = static_cast<double>(expert_tensor_parallel_size(s));
  const double group = static_cast<double>(p.data_parallel_size * p.context_parallel_size);  // gradient group
  const double shard = e.sharding_degree;  // ZeRO/FSDP shard group (HYBRID_SHARD: sharding_group_size)
  const double replicas = std::max(1.0, group / shard);
  const double expert_group = std::max(1.0, group / ep), expert_shard = std::max(1.0, shard / ep);
  const double bw_dense = bus_bandwidth(shard, tp, links), bw_expert = bus_bandwidth(expert_shard, etp * ep, links);
  // FSDP mixed precision casts parameters to the compute dtype before gathering them
  // (MixedPrecision/MixedPrecisionPolicy param_dtype); gradients are reduced in the gradient dtype.
  const double b_p = std::min(e.bytes_per_param.param, dtype_bytes(e.precision.compute_dtype)), b_g = e.bytes_per_param.grad;
  // The most loaded GPU's parameters before ZeRO sharding (the estimate's), dense and expert.
  const double expert_params = e.gpu_expert_parameters, dense_params = e.gpu_parameters - expert_params;
  const double expert_trained = e.gpu_expert_trainable_parameters, dense_trained = e.gpu_trainable_parameters - expert_trained;
  const int zero = p.zero_stage;
  const ShardingEngine engine = sharding_engine(s);
  const bool fsdp = engine == ShardingEngine::fsdp || engine == ShardingEngine::fsdp2;
  // Gradients are reduced after every micro-batch's backward, or once under no_sync accumulation.
  const double reductions = gradient_sync(s) == GradientSync::every_micro_batch ? d.micro_batches : 1.0;

  d.reductions_per_step = reductions;
  const DataParallelCollectives n = data_parallel_collectives(s, e);
  // Dense and routed-expert collectives of one kind; the experts ride in the dense ones unless
  // expert parallelism gives them their own group.
  const auto dense_and_expert = [&](Collective kind, double count, double dense_bytes, double ranks, double stride,
                                    double expert_count, double expert_bytes, double expert_ranks, double expert_stride) {
    if (!n.experts_apart) return collectives(count, kind, dense_bytes + expert_bytes, ranks, stride, links);
    Traffic t = collectives(count, kind, dense_bytes, ranks, stride, links);
    t += collectives(expert_count, kind, expert_bytes, expert_ranks, expert_stride, links);
    return t;
  };
  if (zero == 0) {
    // DDP: an all-reduce of the trained gradients.
    d.reduce = dense_and_expert(n.reduction, n.reductions, 2 * ring(group) * dense_trained * b_g, group, tp,
                                n.expert_reductions, 2 * ring(expert_group) * expert_trained * b_g, expert_group, etp * ep);
  } else {
    // A reduce-scatter, or an all-reduce of twice its bus bytes (DeepSpeed's ZeRO-1/2).
    const double factor = n.reduction == Collective::all_reduce ? 2.0 : 1.0;
    d.reduce = dense_and_expert(n.reduction, n.reductions, factor * ring(shard) * dense_trained * b_g, shard, tp, n.expert_reductions,
                                factor * ring(expert_shard) * expert_trained * b_g, expert_shard, etp * ep);
    if (replicas > 1) {
      // HYBRID_SHARD: the reduced shard is all-reduced across the replicas.
      d.reduce += collectives(n.reductions, Collective::all_reduce, 2 * ring(replicas) * dense_trained / shard * b_g, replicas,
                              tp * shard, links);
    }
    if (zero == 3) {
      // QLoRA's frozen linear weights are gathered as stored, 4 or 8 bits and their quantization
      // constants (bitsandbytes' bnb_4bit_quant_storage packs them in 16-bit tensors that FSDP or
      // ZeRO-3 shard: PEFT docs, "FSDP-QLoRA"), not cast to the compute dtype.
      const double quantized = std::min(e.gpu_quantized_weights, dense_params - dense_trained);
      const double dense_gathered = (dense_params - quantized) * b_p + quantized * qlora_weight_bytes_per_param(s.qlora, e.precision.param_dtype);
      d.gather_forward = dense_and_expert(Collective::all_gather, n.gathers_per_pass, ring(shard) * dense_gathered, shard, tp,
                                          n.expert_gathers_per_pass, ring(expert_shard) * expert_params * b_p, expert_shard, etp * ep);
      if (p.reshard_after_forward) d.gather_backward = d.gather_forward;
      if (p.reshard_after_forward && engine == ShardingEngine::deepspeed && s.activation_checkpointing == Checkpointing::full &&
          s.model.architecture) {
        // DeepSpeed gathers a checkpointed layer for its recompute (counted above as the backward's
        // gather) and again, for its backward, the submodules released after the recompute
        // (deepspeed_regather.hpp).
        const Architecture& a = *s.model.architecture;
        const double total_layers = static_cast<double>(std::max<std::int64_t>(1, a.num_hidden_layers()));
        const double checkpointed = s.checkpointed_layers ? std::min(1.0, static_cast<double>(*s.checkpointed_layers) / total_layers) : 1.0;
        const double share = checkpointed * std::min(1.0, d.layers / total_layers);  // of this GPU's layers
        RegatheredParameters again;
        for (const auto& g : a.layers) {
          const RegatheredParameters r = deepspeed_backward_regather(g, tp, ep, etp);
          again.dense += static_cast<double>(g.count) * share * r.dense;
          again.expert += static_cast<double>(g.count) * share * r.expert;
        }
        d.gather_backward += collective(ring(shard) * again.dense * b_p, bw_dense);
        d.gather_backward += collective(ring(expert_shard) * again.expert * b_p, bw_expert);
      }
    } else {
      // ZeRO-1/2: the updated parameter shards are gathered once per step; FSDP's SHARD_GRAD_OP
      // reshards after backward and gathers for every forward instead.
      d.parameter_sync = dense_and_expert(Collective::all_gather, n.parameter_syncs, ring(shard) * dense_trained * b_p, shard, tp,
                                          n.expert_parameter_syncs, ring(expert_shard) * expert_trained * b_p, expert_shard, etp * ep);
      if (zero == 2 && fsdp) {
        d.gather_forward = d.parameter_sync;
        d.parameter_sync = {};
      }
    }
  }
  // Host link traffic of offloading (one direction at a time).
  const double host = links.host_bytes_per_s;
  const double trained_shard = e.gpu_trainable_parameters / (zero >= 1 ? shard : 1.0);
  if (p.offload_optimizer != OffloadTarget::none)
    d.optimizer_offload = collective(trained_shard * (b_g + b_p), host);
  if (p.offload_param != OffloadTarget::none && zero == 3)
    d.parameter_offload = collective(2 * e.gpu_parameters / shard * b_p, host);
  if (s.activation_offload && e.per_gpu.activations_per_layer)
    d.activation_offload = collective(2 * *e.per_gpu.activations_per_layer * d.layers, host);
  return d;
}

Traffic DataParallelTraffic::per_step() const {
  Traffic t;
  t += gather_forward.times(micro_batches);
  t += gather_backward.times(micro_batches);
  t += reduce.times(reductions_per_step);
  t += parameter_sync;
  return t;
}

}  // namespace trainmem
