// Communication bytes per step worked out by hand (nccl-tests bus bytes), and the bandwidth each
// group sees.
#include "test_support.hpp"

#include "trainmem/communication.hpp"
#include "trainmem/deepspeed_regather.hpp"
#include "trainmem/step_time.hpp"

using namespace trainmem;
using trainmem::test::setup_from;
using trainmem::test::time_of;

namespace {

// A small Llama: h = 1024, 4 layers, 8 heads of 128 (MHA), SwiGLU 4096, vocab 32000, untied.
// Per layer: q, k, v, o 4 x 1024^2 = 4,194,304; gate, up, down 3 x 1024 x 4096 = 12,582,912;
// two RMSNorms 2,048: 16,779,264. Four layers 67,117,056 + embedding 32,768,000 + head
// 32,768,000 + final norm 1,024 = 132,654,080 parameters.
const std::string kSmallLlama = R"({"hf_config": {"model_type": "llama", "hidden_size": 1024, "intermediate_size": 4096,
  "num_attention_heads": 8, "num_key_value_heads": 8, "num_hidden_layers": 4, "vocab_size": 32000}})";
constexpr double kParams = 132'654'080;
constexpr double kNvlink4 = 370e9;  // h100-sxm-80gb catalog: NCCL bus bandwidth inside a node
constexpr double kNdr = 46e9;       // per GPU across nodes


}  // namespace

TEST_CASE("ZeRO-3: two parameter all-gathers and a gradient reduce-scatter per micro-batch", "[communication]") {
  const std::string doc = R"({"model": )" + kSmallLlama + R"(, "framework": "fsdp",
    "precision": {"param_dtype": "bf16", "grad_dtype": "bf16"}, "batch": {"micro_batch_size": 1, "seq_length": 1024,
    "gradient_accumulation_steps": 2}, "gpu": "h100-sxm-80gb", "parallel": {"world_size": 8, "zero_stage": 3)";
  const StepTime t = time_of(doc + R"(, "gradient_sync": "every_micro_batch"}})");
  // All-gather and reduce-scatter move (n-1)/n of the whole buffer per GPU: 7/8 x 132,654,080 x
  // 2 bytes = 232,144,640 each; forward gather + backward gather + reduce-scatter, 2 micro-batches.
  const double per_collective = 7.0 / 8 * kParams * 2;
  CHECK(per_collective == 232'144'640.0);
  CHECK(t.bytes_per_step.data_parallel == Approx(2 * 3 * per_collective).epsilon(1e-12));
  // Latency (NCCL's tuning model, communication.hpp): FSDP's 5 units (4 layers and the root) each
  // all-gather in forward and backward and reduce-scatter once per micro-batch, 15 collectives of
  // 8 ranks in one NVLink node: 8.4 + 7 x 3.4 = 32.2 us each.
  CHECK(t.seconds_per_step.data_parallel == Approx(2 * 3 * per_collective / kNvlink4 + 2 * 15 * 32.2e-6).epsilon(1e-12));
  CHECK(t.bytes_per_step.tensor_parallel == 0);
  // Under no_sync accumulation (accelerate's default for FSDP) the gradients are reduced once:
  // 2 x 2 gathers + 1 reduce-scatter.
  const StepTime no_sync = time_of(doc + "}}");
  CHECK(no_sync.bytes_per_step.data_parallel == Approx(5 * per_collective).epsilon(1e-12));
  // 1.5x DDP's volume (Rajbhandari et al. 2020, §7.2.2): DDP all-reduces 2 x 7/8 x Psi x 2 once.
  const StepTime ddp = time_of(R"({"model": )" + kSmallLlama + R"(, "framework": "fsdp",
    "precision": {"param_dtype": "bf16", "grad_dtype": "bf16"}, "batch": {"micro_batch_size": 1, "seq_length": 1024},
    "parallel": {"world_size": 8, "zero_stage": 0}, "gpu": "h100-sxm-80gb"})");
  CHECK(ddp.bytes_per_step.data_parallel == Approx(2 * per_collective).epsilon(1e-12));
  CHECK(t.bytes_per_step.data_parallel / 2 == Approx(1.5 * ddp.bytes_per_step.data_parallel).epsilon(1e-12));
}

TEST_CASE("ZeRO-3 under QLoRA gathers the frozen linear weights as stored, 4 bits and their constants", "[communication]") {
  // bitsandbytes' bnb_4bit_quant_storage packs the 4-bit weights into 16-bit tensors that FSDP
  // shards and gathers (PEFT docs, "FSDP-QLoRA"). The small Llama's linear weights: 4 layers x
  // 16,777,216 = 67,108,864 at 4 bits + double-quantized constants, 0.5 + 1/64 + 4/(64 x 256) B each;
  // the rest (embedding, head, norms: 65,545,216) and the q/v adapters (r 16: 4 x 16 x (2 x 1024) x 2
  // = 262,144, bf16 here) at 2 B. Forward and backward gathers move 7/8 of that, and the
  // reduce-scatter 7/8 of the adapters' 2-byte gradients.
  const StepTime t = time_of(R"({"model": )" + kSmallLlama + R"(, "framework": "fsdp", "method": "qlora",
    "lora": {"r": 16, "adapter_dtype": "bf16"}, "precision": {"param_dtype": "bf16", "grad_dtype": "bf16"},
    "batch": {"micro_batch_size": 1, "seq_length": 1024}, "gpu": "h100-sxm-80gb", "parallel": {"world_size": 8, "zero_stage": 3}})");
  const double quantized = 67'108'864, rest = kParams - quantized, adapters = 262'144;
  const double gathered = quantized * (0.5 + 1.0 / 64 + 4.0 / (64 * 256)) + (rest + adapters) * 2;
  CHECK(t.bytes_per_step.data_parallel == Approx(7.0 / 8 * (2 * gathered + adapters * 2)).epsilon(1e-12));
}

TEST_CASE("Tensor parallel: 4 all-reduces of [b s, h] per layer, 6 with full recompute", "[communication]") {
  const std::string base = R"({"model": )" + kSmallLlama + R"(, "framework": "megatron", "batch": {"micro_batch_size": 2,
    "seq_length": 1024}, "parallel": {"world_size": 2, "tensor_parallel_size": 2}, "gpu": "h100-sxm-80gb")";
  // An all-reduce of S bytes moves 2(n-1)/n S = S per GPU for n = 2; S = 2 x 1024 tokens x 1024 x
  // 2 bytes = 4,194,304; 2 forward + 2 backward per layer, 4 layers.
  const double all_reduce = 2 * 1024 * 1024 * 2.0;
  const StepTime plain = time_of(base + "}");
  CHECK(plain.bytes_per_step.tensor_parallel == 4 * 4 * all_reduce);
  // Each all-reduce of 2 ranks also takes NCCL's latency, 8.4 + 2 x 3.4 = 15.2 us.
  CHECK(plain.seconds_per_step.tensor_parallel == Approx(4 * 4 * (all_reduce / kNvlink4 + 15.2e-6)).epsilon(1e-12));
  // Sequence parallelism turns each all-reduce into a reduce-scatter + all-gather: same bytes.
  std::string with_sp = base;  // the same document with sequence_parallel in its one "parallel" object
  const std::string tp_only = R"("tensor_parallel_size": 2})";
  with_sp.replace(with_sp.find(tp_only), tp_only.size(), R"("tensor_parallel_size": 2, "sequence_parallel": true})");
  const StepTime sp = time_of(with_sp + "}");
  CHECK(sp.bytes_per_step.tensor_parallel == plain.bytes_per_step.tensor_parallel);
  const StepTime recompute = time_of(base + R"(, "activation_checkpointing": "full"})");
  CHECK(recompute.bytes_per_step.tensor_parallel == 6 * 4 * all_reduce);
}

TEST_CASE("Bus bandwidth: one node at the intra-node rate, across nodes limited by the NICs in use", "[communication]") {
  const TrainingSetup s = setup_from(R"({"model": )" + kSmallLlama + R"(, "gpu": "h100-sxm-80gb"})");
  const LinkRates links = link_rates(s);
  CHECK(links.intra_node_bytes_per_s == kNvlink4);
  CHECK(links.inter_node_bytes_per_s == kNdr);
  CHECK(bus_bandwidth(8, 1, links) == kNvlink4);           // a full node
  CHECK(bus_bandwidth(16, 1, links) == 8 * kNdr);          // 2 nodes, 8 NICs each: min(370, 8 x 46 = 368)
  CHECK(bus_bandwidth(16, 2, links) == 4 * kNdr);          // every second GPU: 4 per node use 4 NICs
  CHECK(bus_bandwidth(32, 8, links) == kNdr);              // one per node (TP 8 inside): one NIC each
  // The document's network block overrides the catalog.
  const TrainingSetup custom = setup_from(R"({"model": )" + kSmallLlama +
                                          R"(, "gpu": "h100-sxm-80gb", "network": {"intra_node_bytes_per_s": 1e11, "inter_node_bytes_per_s": 1e10}})");
  CHECK(bus_bandwidth(16, 1, link_rates(custom)) == 8e10);  // min(100, 8 x 10) GB/s
}

TEST_CASE("Context parallel: ring passes key/value blocks, Ulysses all-to-alls q, k, v and the output", "[communication]") {
  const std::string base = R"({"model": )" + kSmallLlama + R"(, "framework": "megatron", "batch": {"micro_batch_size": 1,
    "seq_length": 1024}, "gpu": "h100-sxm-80gb", "parallel": {"world_size": 2, "context_parallel_size": 2, "context_parallel_kind": )";
  // Each rank holds 1024 / 2 = 512 tokens. Key + value per token: 8 heads x (128 + 128) = 2,048
  // elements, 2 bytes each.
  // Ring: (cp - 1) = 1 block of k/v forward, k/v and their gradients backward: 3 blocks per layer,
  // 3 x 512 x 2,048 x 2 = 6,291,456 bytes; 4 layers.
  const StepTime ring = time_of(base + R"("ring"}})");
  CHECK(ring.bytes_per_step.context == 4 * 6'291'456.0);
  // Ulysses: q (1,024) + k, v (2,048) + output (1,024) = 4,096 elements per token, each all-to-all
  // moving (cp - 1)/cp = 1/2 of them, forward and backward:
  // 2 x 1/2 x 512 x 4,096 x 2 = 4,194,304 bytes per layer; 4 layers.
  const StepTime ulysses = time_of(base + R"("ulysses"}})");
  CHECK(ulysses.bytes_per_step.context == 4 * 4'194'304.0);
  CHECK(ulysses.seconds_per_step.context == Approx(4 * 4'194'304.0 / kNvlink4).epsilon(1e-12));
}

TEST_CASE("All-to-all across nodes: the share bound for other nodes leaves through the rank's own NIC", "[communication]") {
  const LinkRates links = link_rates(setup_from(R"({"model": )" + kSmallLlama + R"(, "gpu": "h100-sxm-80gb"})"));
  CHECK(all_to_all_bandwidth(8, 1, links) == kNvlink4);  // one node
  // 16 ranks on 2 nodes (k = 8 per node): each rank sends 7/16 of its buffer over NVLink and 8/16
  // through its NIC at once; the NIC side is slower (8/16 / 46e9 > 7/16 / 370e9 s per byte), so
  // (n - 1)/n = 15/16 bus bytes per 8/16 / 46e9 s: 15/8 x 46e9 = 86.25e9 B/s, not the ring's
  // min(370, 8 x 46 = 368) GB/s.
  CHECK(all_to_all_bandwidth(16, 1, links) == Approx(86.25e9).epsilon(1e-12));
  // Every second rank (k = 4 per node): 15 / (12 / 46e9) = 57.5e9 B/s.
  CHECK(all_to_all_bandwidth(16, 2, links) == Approx(57.5e9).epsilon(1e-12));
  // One rank per node: everything crosses the NIC, 31/32 / (31/32 / 46e9) = 46e9 B/s.
  CHECK(all_to_all_bandwidth(32, 8, links) == Approx(kNdr).epsilon(1e-12));

  // Expert parallel 16 over two nodes: a Mixtral-shaped layer h = 1024, top-2 of 16 experts, one
  // micro-batch of 1024 tokens, 2 layers. Dispatch + combine forward and backward, each moving
  // 15/16 of 1024 x 2 routed copies x 1024 x 2 bytes: 4 x 15/16 x 4,194,304 = 15,728,640 bus bytes
  // per layer, at 86.25e9 B/s.
  const std::string moe = R"({"model": {"hf_config": {"model_type": "mixtral", "hidden_size": 1024, "intermediate_size": 2048,
    "num_attention_heads": 8, "num_key_value_heads": 8, "num_hidden_layers": 2, "vocab_size": 32000, "num_local_experts": 16,
    "num_experts_per_tok": 2}}, "framework": "megatron", "batch": {"micro_batch_size": 1, "seq_length": 1024},
    "gpu": "h100-sxm-80gb", "parallel": {"world_size": 16, "zero_stage": 1, "expert_parallel_size": 16}})";
  const StepTime t = time_of(moe);
  CHECK(t.bytes_per_step.expert == Approx(2 * 15'728'640.0).epsilon(1e-12));
  CHECK(t.seconds_per_step.expert == Approx(2 * 15'728'640.0 / 86.25e9).epsilon(1e-12));
}

TEST_CASE("Offload: the host link at a large copy's 0.784 of its line rate", "[communication]") {
  // cudaMemcpy of 1 GiB reaches 12.35 of PCIe 3.0 x16's 15.75 GB/s (te42kyfo/gpu-benches): the
  // H100 SXM's PCIe 5.0 x16, 64e9 B/s per direction, gives 64e9 x 12.35 / 15.75 = 50.184e9 B/s.
  const TrainingSetup s = setup_from(R"({"model": )" + kSmallLlama + R"(, "framework": "deepspeed",
    "precision": {"param_dtype": "bf16", "grad_dtype": "bf16"}, "gpu": "h100-sxm-80gb",
    "parallel": {"world_size": 8, "zero_stage": 2, "offload_optimizer": "cpu"}})");
  const LinkRates links = link_rates(s);
  CHECK(links.host_bytes_per_s == Approx(50.184127e9));
  // ZeRO-Offload moves the GPU's gradient shard down and its parameter shard up once per step:
  // 132,654,080 / 8 = 16,581,760 parameters x (2 + 2) bytes = 66,327,040 bytes at 50.184e9 B/s.
  const DataParallelTraffic d = data_parallel_traffic(s, estimate(s), links);
  CHECK(d.optimizer_offload.bytes == Approx(66'327'040.0));
  CHECK(d.optimizer_offload.seconds == Approx(66'327'040.0 / 50.184127e9));
  // A device without a host-link figure: PCIe 4.0 x16's 32e9 B/s x 12.35 / 15.75 = 25.092e9.
  const TrainingSetup custom = setup_from(R"({"model": )" + kSmallLlama + R"(, "gpu": {"memory_bytes": 85899345920,
    "bf16_dense_flops_per_s": 989.4e12, "memory_bandwidth_bytes_per_s": 3.35e12}})");
  CHECK(link_rates(custom).host_bytes_per_s == Approx(25.092063e9));
}

TEST_CASE("DeepSpeed ZeRO-3 under full checkpointing gathers again what the reuse distance lets go after the recompute", "[communication]") {
  const std::string doc = R"({"model": {"preset": "llama-2-70b"}, "framework": "deepspeed",
    "precision": {"param_dtype": "bf16", "grad_dtype": "bf16"}, "batch": {"micro_batch_size": 1, "seq_length": 8192},
    "gpu": "a100-80gb", "parallel": {"world_size": 32, "zero_stage": 3})";
  // Llama-2-70B's layer in forward order: q and o 8192 x 8192 = 67,108,864 each, k and v
  // 8192 x 1024 = 8,388,608 each, gate, up, down 8192 x 28672 = 234,881,024 each. A submodule is
  // gathered again for its backward when twice the parameters after it reach 1e9: o has
  // 2 x 3 x 234,881,024 = 1,409,286,144 after it (and q, k, v more), gate 2 x 2 x 234,881,024 =
  // 939,524,096: q, k, v, o, 2 x 67,108,864 + 2 x 8,388,608 = 150,994,944 per layer.
  const TrainingSetup checkpointed = setup_from(doc + R"(, "activation_checkpointing": "full"})");
  const RegatheredParameters layer = deepspeed_backward_regather(checkpointed.model.architecture->layers.front(), 1, 1, 1);
  CHECK(layer.dense == 150'994'944.0);
  CHECK(layer.expert == 0);
  // 80 layers x 150,994,944 x 2 bytes x 31/32 = 23,404,216,320 bus bytes more per micro-batch, at
  // min(240e9 NVLink, 8 GPUs x 24e9 HDR) = 192e9 B/s across four nodes.
  const LinkRates links = link_rates(checkpointed);
  const DataParallelTraffic d = data_parallel_traffic(checkpointed, estimate(checkpointed), links);
  CHECK(d.gather_backward.bytes - d.gather_forward.bytes == Approx(23'404'216'320.0).epsilon(1e-12));
  CHECK(d.gather_backward.seconds - d.gather_forward.seconds == Approx(23'404'216'320.0 / 192e9).epsilon(1e-9));
  // Without checkpointing, and under FSDP, the backward gathers what the forward did.
  const TrainingSetup plain = setup_from(doc + "}");
  const DataParallelTraffic p = data_parallel_traffic(plain, estimate(plain), link_rates(plain));
  CHECK(p.gather_backward.bytes == p.gather_forward.bytes);
  const TrainingSetup fsdp = setup_from(R"({"model": {"preset": "llama-2-70b"}, "framework": "fsdp",
    "precision": {"param_dtype": "bf16", "grad_dtype": "bf16"}, "batch": {"micro_batch_size": 1, "seq_length": 8192},
    "gpu": "a100-80gb", "activation_checkpointing": "full", "parallel": {"world_size": 32, "zero_stage": 3}})");
  const DataParallelTraffic f = data_parallel_traffic(fsdp, estimate(fsdp), link_rates(fsdp));
  CHECK(f.gather_backward.bytes == f.gather_forward.bytes);
  // Llama-2-7B's layer holds 4 x 4096^2 + 3 x 4096 x 11008 = 202,375,168 parameters: twice what
  // follows q, 2 x 185,597,952 = 371,195,904, stays under 1e9, so nothing is gathered again.
  const TrainingSetup small = setup_from(R"({"model": {"preset": "llama-2-7b"}, "framework": "deepspeed",
    "batch": {"micro_batch_size": 1, "seq_length": 8192}, "gpu": "a100-80gb", "activation_checkpointing": "full",
    "parallel": {"world_size": 8, "zero_stage": 3}})");
  const RegatheredParameters seven = deepspeed_backward_regather(small.model.architecture->layers.front(), 1, 1, 1);
  CHECK(seven.dense == 0);
}

TEST_CASE("Megatron MoE layer: routed copies all-gathered and reduce-scattered over the expert-tensor-parallel group",
          "[communication][moe_etp]") {
  // Mixtral-shaped, h = 1024, top-2 of 16 experts, no shared expert, 2 layers; one micro-batch of
  // 1024 tokens on TP 2 with sequence parallelism (512 tokens per rank at the MoE layer), EP 1.
  const std::string base = R"({"model": {"hf_config": {"model_type": "mixtral", "hidden_size": 1024, "intermediate_size": 2048,
    "num_attention_heads": 8, "num_key_value_heads": 8, "num_hidden_layers": 2, "vocab_size": 32000, "num_local_experts": 16,
    "num_experts_per_tok": 2}}, "framework": "megatron", "batch": {"micro_batch_size": 1, "seq_length": 1024},
    "gpu": "h100-sxm-80gb", "parallel": {"world_size": 2, "tensor_parallel_size": 2, "sequence_parallel": true)";
  // Attention's all-reduce equivalent (all-gather + reduce-scatter) per pass: 2 x (2-1)/2 x 1024 x
  // 1024 x 2 bytes = 2,097,152. ETP 2 (the default, = TP): the 512 x 2 = 1024 routed copies a rank
  // received, all-gathered from the other rank and reduce-scattered back, (2 - 1) x 1024 x 1024 x
  // 2 bytes = 2,097,152 each, 4,194,304 per pass. Forward + backward, 2 layers:
  // 2 x 2 x (2,097,152 + 4,194,304) = 25,165,824 bytes, inside one node at 370e9 B/s.
  const StepTime etp2 = time_of(base + "}}");
  CHECK(etp2.bytes_per_step.tensor_parallel == 25'165'824.0);
  // Latency: per layer and pass, attention's all-gather and reduce-scatter and the expert group's
  // two, each over 2 ranks 8.4 + 3.4 = 11.8 us: 2 layers x 2 passes x 4 x 11.8 us = 188.8 us.
  CHECK(etp2.seconds_per_step.tensor_parallel == Approx(25'165'824.0 / kNvlink4 + 188.8e-6).epsilon(1e-12));
  // ETP 1: the experts see only the rank's own copies, no expert collective; attention's alone:
  // 2 x 2 x 2,097,152 = 8,388,608 bytes.
  const StepTime etp1 = time_of(base + R"(, "expert_tensor_parallel_size": 1}})");
  CHECK(etp1.bytes_per_step.tensor_parallel == 8'388'608.0);
}

TEST_CASE("A collective takes the fastest ring, tree and protocol of NCCL's tuning model", "[communication][latency]") {
  LinkRates nvlink;
  nvlink.node_gpus = 8;
  nvlink.nvlink = true;
  LinkRates pcie = nvlink;
  pcie.nvlink = false;
  const auto ag = Collective::all_gather, ar = Collective::all_reduce;
  // 8 ranks in one NVLink node, 1e9 bus bytes at 370e9 B/s (2,702.7 us): Simple's ring
  // 8.4 + 7 x 3.4 = 32.2 us + 2,702.7 us beats LL128's 14 + 7 x 1.9 = 27.3 us + 1e9 / (0.92 x 370e9).
  CHECK(collective_seconds(ag, 1e9, 370e9, 8, 1, nvlink) == Approx(32.2e-6 + 1e9 / 370e9).epsilon(1e-12));
  // Latency alone (no bytes): LL128's ring all-gather, 27.3 us; the all-reduce's LL128 tree
  // 14 + 2 x 7 x 1.25 = 31.5 us (Simple ring 8.4 + 14 x 3.4 = 56, LL128 ring 14 + 14 x 1.9 = 40.6,
  // Simple tree 8.4 + 2 x 7 x 4 = 64.4).
  CHECK(collective_seconds(ag, 0, 370e9, 8, 1, nvlink) == Approx(27.3e-6).epsilon(1e-12));
  CHECK(collective_seconds(ar, 0, 370e9, 8, 1, nvlink) == Approx(31.5e-6).epsilon(1e-12));
  // Over PCIe only Simple: 8.4 + 7 x 5.7 = 48.3 us.
  CHECK(collective_seconds(Collective::reduce_scatter, 0, 32e9, 8, 1, pcie) == Approx(48.3e-6).epsilon(1e-12));
  // 1,024 ranks on 128 nodes, 1e9 bytes at 100e9 B/s: Simple's ring 8.4 + 896 x 3.4 + 127 x 14 =
  // 4,832.8 us + 10,000 us; LL128's 14 + 896 x 1.9 + 127 x 4 = 2,224.4 us + 1e9 / 92e9 = 10,869.6 us,
  // the lower by 638.8 us.
  CHECK(collective_seconds(ag, 1e9, 100e9, 1024, 1, nvlink) == Approx(2224.4e-6 + 1e9 / 92e9).epsilon(1e-12));
  // All-reduce over 2 nodes of 8, no bytes: Simple ring (8.4 + 28 x 3.4 + 2 x 14) x 1.4 = 184.24,
  // Simple tree 8.4 + 2 (7 x 4 + 14) = 92.4, LL128 ring 14 + 28 x 1.9 + 2 x 4 = 75.2, LL128 tree
  // 14 + 2 (7 x 1.25 + 8.5) = 48.5 us.
  CHECK(collective_seconds(ar, 0, 370e9, 16, 1, nvlink) == Approx(48.5e-6).epsilon(1e-12));
  // Over PCIe, 17 ranks (8 + 8 + 1) cost what 16 do: the tree's chain runs through the fullest
  // node's 8 ranks, 8.4 + 2 (7 x 4 + floor(log2 3) x 14) = 92.4 us.
  CHECK(collective_seconds(ar, 0, 32e9, 16, 1, pcie) == Approx(92.4e-6).epsilon(1e-12));
  CHECK(collective_seconds(ar, 0, 32e9, 17, 1, pcie) == Approx(92.4e-6).epsilon(1e-12));
  CHECK(collective_seconds(ar, 5e8, 370e9, 1, 1, nvlink) == Approx(5e8 / 370e9).epsilon(1e-12));
}

TEST_CASE("Data-parallel collectives per step follow each engine's buckets", "[communication][latency]") {
  const std::string model = R"({"model": )" + kSmallLlama;
  const auto collectives = [&](const std::string& rest) {
    const TrainingSetup s = setup_from(model + rest);
    return data_parallel_collectives(s, estimate(s));
  };
  // PyTorch DDP, bf16 gradients of 132,654,080 parameters = 265,308,160 bytes: a first bucket of
  // 1 MiB, then ceil((265,308,160 - 1,048,576) / 26,214,400) = ceil(10.08) = 11 buckets: 12.
  const DataParallelCollectives ddp = collectives(R"(, "framework": "fsdp", "precision": {"param_dtype": "bf16",
    "grad_dtype": "bf16"}, "parallel": {"world_size": 8, "zero_stage": 0}, "gpu": "h100-sxm-80gb"})");
  CHECK(ddp.reductions == 12);
  CHECK(ddp.gathers_per_pass == 0);
  // DeepSpeed ZeRO-3: 7 linears per layer x 4 layers + embedding + head = 30 gathers per pass;
  // one reduce bucket of 5e8 elements holds every gradient.
  const DataParallelCollectives z3 = collectives(R"(, "framework": "deepspeed", "parallel": {"world_size": 8,
    "zero_stage": 3}, "gpu": "h100-sxm-80gb"})");
  CHECK(z3.gathers_per_pass == 30);
  CHECK(z3.reductions == 1);
  // Under the HF Trainer the reduce bucket is hidden_size^2 = 1,048,576 elements:
  // ceil(132,654,080 / 1,048,576) = ceil(126.5) = 127 reductions.
  const DataParallelCollectives hf = collectives(R"(, "framework": "hf_trainer", "parallel": {"world_size": 8,
    "zero_stage": 2, "sharding_engine": "deepspeed"}, "gpu": "h100-sxm-80gb"})");
  CHECK(hf.reductions == 127);
  CHECK(hf.parameter_syncs == 1);
  // Megatron with --overlap-grad-reduce: buckets of max(40e6, 1e6 x 8) parameters,
  // ceil(132,654,080 / 40e6) = 4; without it one bucket.
  const std::string megatron = R"(, "framework": "megatron", "parallel": {"world_size": 8, "zero_stage": 1)";
  CHECK(collectives(megatron + R"(, "overlap_grad_reduce": true}, "gpu": "h100-sxm-80gb"})").reductions == 4);
  CHECK(collectives(megatron + R"(}, "gpu": "h100-sxm-80gb"})").parameter_syncs == 1);

  // Mixtral-shaped MoE, 2 layers: per layer q, k, v, o and the router (5 submodules) and the routed
  // experts' gate, up and down (3). DeepSpeed ZeRO-3 without expert parallelism gathers all 8 per
  // layer: 2 x 8 + embedding + head = 18. With EP 2 the experts gather over their own group, 2 x 3
  // = 6, and the dense group 2 x 5 + 2 = 12.
  const std::string moe = R"({"model": {"hf_config": {"model_type": "mixtral", "hidden_size": 1024, "intermediate_size": 2048,
    "num_attention_heads": 8, "num_key_value_heads": 8, "num_hidden_layers": 2, "vocab_size": 32000, "num_local_experts": 16,
    "num_experts_per_tok": 2}}, "framework": "deepspeed", "gpu": "h100-sxm-80gb", "parallel": {"world_size": 4, "zero_stage": 3)";
  const auto moe_collectives = [&](const std::string& rest) {
    const TrainingSetup s = setup_from(moe + rest);
    return data_parallel_collectives(s, estimate(s));
  };
  const DataParallelCollectives together = moe_collectives("}}");
  CHECK_FALSE(together.experts_apart);
  CHECK(together.gathers_per_pass == 18);
  const DataParallelCollectives apart = moe_collectives(R"(, "expert_parallel_size": 2}})");
  CHECK(apart.experts_apart);
  CHECK(apart.gathers_per_pass == 12);
  CHECK(apart.expert_gathers_per_pass == 6);
}

TEST_CASE("DeepSpeed ZeRO-1/2 all-reduce each gradient bucket: twice a reduce-scatter's bytes", "[communication]") {
  // stage_1_and_2.py average_tensor -> allreduce_and_scatter (use_multi_rank_bucket_allreduce):
  // 2 x 7/8 x 132,654,080 x 2 bytes (bf16 gradients) = 464,289,280 bus bytes per reduction, as DDP's
  // all-reduce; then the parameter all-gather, 7/8 x 132,654,080 x 2 = 232,144,640.
  const StepTime z2 = time_of(R"({"model": )" + kSmallLlama + R"(, "framework": "deepspeed",
    "precision": {"param_dtype": "bf16", "grad_dtype": "bf16"}, "batch": {"micro_batch_size": 1, "seq_length": 1024},
    "parallel": {"world_size": 8, "zero_stage": 2}, "gpu": "h100-sxm-80gb"})");
  CHECK(z2.bytes_per_step.data_parallel == Approx(464'289'280.0 + 232'144'640.0).epsilon(1e-12));
}
