// Step time: the device model by hand, the pipeline bubble, MFU/HFU definitions, run cost, and
// when no time can be given.
#include <cmath>

#include "test_support.hpp"

#include "trainmem/compute_time.hpp"
#include "trainmem/flops.hpp"
#include "trainmem/json_api.hpp"
#include "trainmem/step_time.hpp"

using namespace trainmem;
using trainmem::test::setup_from;
using trainmem::test::time_of;

namespace {


// A100 SXM as in the catalog: 312 TFLOP/s bf16, MAMF 86.9%, 108 SMs, 2.039 TB/s.
// Memory-bound work runs at 0.852 of the vendor bandwidth (STREAM "scale" on an H100 PCIe, 1704 of
// 2000 GB/s; compute_time.hpp): 2.039e12 x 0.852 = 1.737e12 B/s here, 3.35e12 x 0.852 = 2.854e12
// B/s on an H100 SXM.
constexpr double kA100Bandwidth = 2.039e12 * 1704 / 2000, kH100Bandwidth = 3.35e12 * 1704 / 2000;
GpuPerformance a100() {
  GpuPerformance g;
  g.bf16_dense_flops_per_s = 312e12;
  g.matmul_efficiency_bf16 = 0.869;
  g.streaming_multiprocessors = 108;
  g.memory_bandwidth_bytes_per_s = 2.039e12;
  g.generation = GpuGeneration::ampere;
  return g;
}

}  // namespace

TEST_CASE("GEMM time: compute bound at MAMF, memory bound when thin, idle SMs when small", "[step_time]") {
  const DeviceRates r = device_rates(a100(), Framework::hf_trainer, AttentionImplementation::flash);
  CHECK(r.matmul_flops_per_s == Approx(312e12 * 0.869));
  // 8192^3: 2 x 8192^3 FLOPs at 271.1 TFLOP/s; 64 x 64 = 4096 tiles of 128 x 128 on 108 SMs run
  // in ceil(4096 / 108) = 38 waves, 38 x 108 = 4104 tile slots for 4096 tiles: 4096/4104 of MAMF.
  CHECK(gemm_seconds(8192, 8192, 8192, 1, 2, false, r) == Approx(2 * 8192.0 * 8192 * 8192 / (312e12 * 0.869 * 4096 / 4104)));
  // Tile and wave quantization together: 8192 x 1100 x 4096 has 64 x ceil(1100/128) = 64 x 9 =
  // 576 tiles, 576/108 = 5.33 -> 6 waves = 648 slots of 128 x 128 for 8192 x 1100 outputs:
  // 9,011,200 / 10,616,832 = 0.84876 of MAMF; 2 x 8192 x 1100 x 4096 = 73.82 GFLOP at
  // 271.128 x 0.84876 = 230.12 TFLOP/s = 0.32078 ms.
  CHECK(gemm_seconds(8192, 1100, 4096, 1, 2, false, r) == Approx(0.32078e-3).epsilon(1e-4));
  // 8 tokens through a 8192 x 8192 weight: 128 MiB of weight read for 1 GFLOP: memory bound,
  // (8 x 8192 + 8192^2 + 8 x 8192) x 2 bytes at 1.737 TB/s (achievable of 2.039).
  CHECK(r.memory_bytes_per_s == Approx(1.737228e12));
  CHECK(gemm_seconds(8, 8192, 8192, 1, 2, false, r) == Approx((8 * 8192.0 + 8192.0 * 8192 + 8 * 8192.0) * 2 / kA100Bandwidth));
  // 1024 x 1024 x 8192: 8 x 8 = 64 tiles on 108 SMs: 64/108 of the rate.
  CHECK(gemm_seconds(1024, 1024, 8192, 1, 2, false, r) == Approx(2 * 1024.0 * 1024 * 8192 / (312e12 * 0.869 * 64 / 108)));
  // A GPU without a MAMF row takes the table's median NVIDIA figure, 80.3%.
  GpuPerformance other = a100();
  other.matmul_efficiency_bf16 = 0;
  CHECK(device_rates(other, Framework::hf_trainer, AttentionImplementation::flash).matmul_flops_per_s == Approx(312e12 * 0.803));
}

TEST_CASE("GEMM time on Hopper: a short reduction runs below MAMF as cuBLAS measured on sm_90", "[step_time]") {
  // H100 SXM as in the catalog: 989.4 TFLOP/s bf16, MAMF 80.3% = 794.49 TFLOP/s, 132 SMs.
  GpuPerformance h100 = a100();
  h100.bf16_dense_flops_per_s = 989.4e12;
  h100.matmul_efficiency_bf16 = 0.803;
  h100.streaming_multiprocessors = 132;
  h100.memory_bandwidth_bytes_per_s = 3.35e12;
  h100.generation = GpuGeneration::hopper;
  const DeviceRates r = device_rates(h100, Framework::megatron, AttentionImplementation::flash);
  // 8192 x 8192 over k = 1024: 64 x 64 = 4096 tiles in ceil(4096/132) = 32 waves of 132:
  // 4096/4224 = 0.96970; XLA's sm_90 table (batch 4 of 4096 x 4096 x k) has 725.51 TFLOP/s at
  // k = 1k against 793.13 at 4k: 0.91474. 2 x 8192^2 x 1024 = 137.44 GFLOP at
  // 794.49 x 0.96970 x 0.91474 = 704.74 TFLOP/s = 0.19502 ms (compute bound: its 150 MiB
  // stream in 0.059 ms at 2.854 TB/s).
  CHECK(gemm_seconds(8192, 8192, 1024, 1, 2, false, r) == Approx(0.19502e-3).epsilon(1e-4));
  // Halfway between 1k and 2k (k = 1536): (725.51 + 764.58) / 2 / 793.13 = 0.93937; at k = 256 and
  // below, 503.87 / 793.13 = 0.63530: 2 x 8192^2 x 200 = 26.84 GFLOP at 794.49 x 0.96970 x
  // 0.63530 = 489.45 TFLOP/s = 54.84 us, still compute bound (its 140.7 MB stream in 49.3 us).
  CHECK(gemm_seconds(8192, 8192, 1536, 1, 2, false, r) == Approx(2 * 8192.0 * 8192 * 1536 / (989.4e12 * 0.803 * 4096 / 4224 * 0.93937)).epsilon(1e-4));
  CHECK(gemm_seconds(8192, 8192, 200, 1, 2, false, r) == Approx(54.84e-6).epsilon(1e-3));
  // From k = 4096 on, the MAMF rate (with its waves); an Ampere GPU has no such measurement here.
  CHECK(gemm_seconds(8192, 8192, 8192, 1, 2, false, r) == Approx(2 * 8192.0 * 8192 * 8192 / (989.4e12 * 0.803 * 4096 / 4224)));
  const DeviceRates ampere = device_rates(a100(), Framework::megatron, AttentionImplementation::flash);
  CHECK(gemm_seconds(8192, 8192, 1024, 1, 2, false, ampere) == Approx(2 * 8192.0 * 8192 * 1024 / (312e12 * 0.869 * 4096 / 4104)));
}

TEST_CASE("Attention kernel families: FlashAttention-2's slower backward vs cuDNN fused attention on Hopper", "[step_time]") {
  GpuPerformance h100 = a100();
  h100.bf16_dense_flops_per_s = 989.4e12;
  h100.generation = GpuGeneration::hopper;
  // FlashAttention-2 on H100 SXM5 (FlashAttention-3 paper, Figures 5 and 6, head dim 128, 8k):
  // 333 TFLOP/s causal forward, 318 backward, of 989: 989.4e12 x 333/989 = 333.13e12 and
  // 989.4e12 x 318/989 = 318.13e12.
  const DeviceRates fa2 = device_rates(h100, Framework::torchtitan, AttentionImplementation::flash);
  CHECK(fa2.attention_flops_per_s == Approx(333.13e12).epsilon(1e-4));
  CHECK(fa2.attention_backward_flops_per_s == Approx(318.13e12).epsilon(1e-4));
  // 1e12 FLOPs forward and their 2.5e12 backward over 8k sequences: 1e12/333.13e12 +
  // 2.5e12/318.13e12 = 3.002 ms + 7.858 ms.
  CHECK(attention_seconds(1e12, 8192, true, fa2) + attention_backward_seconds(2.5e12, 8192, fa2) == Approx(10.860e-3).epsilon(1e-3));
  // The same figures by sequence length: at 2k the causal forward runs at 298 and the backward at
  // 291 TFLOP/s (x 989.4/989): 1e12 / 298.12e12 = 3.354 ms and 2.5e12 / 291.12e12 = 8.588 ms.
  CHECK(attention_seconds(1e12, 2048, true, fa2) == Approx(3.354e-3).epsilon(1e-3));
  CHECK(attention_backward_seconds(2.5e12, 2048, fa2) == Approx(8.588e-3).epsilon(1e-3));
  // Halfway (in log2) between 1k and 2k, 1448.15 keys: (260 + 298) / 2 = 279 TFLOP/s causal.
  CHECK(attention_seconds(1e12, 1024 * std::sqrt(2.0), true, fa2) == Approx(1e12 / (279e12 * 989.4 / 989)));
  // Without the mask (an encoder) at 8k: 370 TFLOP/s; beyond 16k the 16k bars hold: 335 and 322.
  CHECK(attention_seconds(1e12, 8192, false, fa2) == Approx(1e12 / (370e12 * 989.4 / 989)));
  CHECK(attention_seconds(1e12, 65536, true, fa2) == Approx(1e12 / (335e12 * 989.4 / 989)));
  CHECK(attention_backward_seconds(1e12, 65536, fa2) == Approx(1e12 / (322e12 * 989.4 / 989)));
  // Below 512 the 512 bars: 191 causal forward.
  CHECK(attention_seconds(1e12, 128, true, fa2) == Approx(1e12 / (191e12 * 989.4 / 989)));
  // cuDNN fused attention (Megatron) as measured in a training step, forward and backward alike.
  const DeviceRates cudnn = device_rates(h100, Framework::megatron, AttentionImplementation::flash);
  CHECK(cudnn.attention_flops_per_s == Approx(989.4e12 * 447 / 989));
  CHECK(cudnn.attention_backward_flops_per_s == cudnn.attention_flops_per_s);
  // Measured at 8k only: the same rate at every length.
  CHECK(attention_seconds(1e12, 2048, true, cudnn) == Approx(1e12 / (989.4e12 * 447 / 989)));
  CHECK(device_rates(a100(), Framework::megatron, AttentionImplementation::flash).attention_flops_per_s == Approx(312e12 * 0.50));
  CHECK(device_rates(a100(), Framework::megatron, AttentionImplementation::flash).attention_backward_flops_per_s == Approx(312e12 * 0.50));
}

TEST_CASE("FlashAttention-3 on Hopper at its own measured rates; elsewhere priced as FlashAttention-2", "[step_time]") {
  GpuPerformance h100 = a100();
  h100.bf16_dense_flops_per_s = 989.4e12;
  h100.generation = GpuGeneration::hopper;
  // FlashAttention-3 on H100 SXM5, bf16, head dim 128 (Shah et al. 2024, Figure 5 causal forward,
  // Figure 6 backward): 602 and 559 TFLOP/s at 8k, of 989: x 989.4/989.
  const DeviceRates fa3 = device_rates(h100, Framework::hf_trainer, AttentionImplementation::flash3);
  CHECK(fa3.attention_flops_per_s == Approx(602e12 * 989.4 / 989));
  CHECK(fa3.attention_backward_flops_per_s == Approx(559e12 * 989.4 / 989));
  // At 2k: 521 causal forward, 625 without the mask, 501 backward; from 16k on the 16k bars, 616
  // and 561; below 512 the 512 bars, 292 causal.
  CHECK(attention_seconds(1e12, 2048, true, fa3) == Approx(1e12 / (521e12 * 989.4 / 989)));
  CHECK(attention_seconds(1e12, 2048, false, fa3) == Approx(1e12 / (625e12 * 989.4 / 989)));
  CHECK(attention_backward_seconds(1e12, 2048, fa3) == Approx(1e12 / (501e12 * 989.4 / 989)));
  CHECK(attention_seconds(1e12, 262144, true, fa3) == Approx(1e12 / (616e12 * 989.4 / 989)));
  CHECK(attention_backward_seconds(1e12, 262144, fa3) == Approx(1e12 / (561e12 * 989.4 / 989)));
  CHECK(attention_seconds(1e12, 256, true, fa3) == Approx(1e12 / (292e12 * 989.4 / 989)));
  // Under Megatron too (Transformer Engine runs FlashAttention-3 where it is installed).
  CHECK(device_rates(h100, Framework::megatron, AttentionImplementation::flash3).attention_flops_per_s == Approx(602e12 * 989.4 / 989));
  // An A100 cannot run it: FlashAttention-2's 50 % of the peak.
  CHECK(device_rates(a100(), Framework::hf_trainer, AttentionImplementation::flash3).attention_flops_per_s == Approx(312e12 * 0.50));

  // A whole step: only the attention kernels change, so the step is shorter on an H100 and the
  // same on an A100.
  const std::string common = R"({"model": {"preset": "llama-3.1-8b"}, "framework": "deepspeed", "activation_checkpointing": "none",
    "batch": {"micro_batch_size": 1, "seq_length": 8192}, "parallel": {"world_size": 8, "zero_stage": 2}, )";
  const StepTime h100_fa2 = time_of(common + R"("attention": "flash", "gpu": "h100-sxm-80gb"})");
  const StepTime h100_fa3 = time_of(common + R"("attention": "flash3", "gpu": "h100-sxm-80gb"})");
  const StepTime a100_fa2 = time_of(common + R"("attention": "flash", "gpu": "a100-80gb"})");
  const StepTime a100_fa3 = time_of(common + R"("attention": "flash3", "gpu": "a100-80gb"})");
  CHECK(h100_fa3.step_seconds < h100_fa2.step_seconds);
  CHECK(h100_fa3.flops_per_step == h100_fa2.flops_per_step);
  CHECK(a100_fa3.step_seconds == a100_fa2.step_seconds);
}

TEST_CASE("MFU and HFU are model and executed FLOPs over step x GPUs x peak", "[step_time]") {
  const std::string doc = R"({"model": {"preset": "llama-3.1-8b"}, "framework": "torchtitan", "activation_checkpointing": "full",
    "batch": {"micro_batch_size": 1, "seq_length": 4096}, "parallel": {"world_size": 8}, "gpu": "h100-sxm-80gb"})";
  const StepTime t = time_of(doc);
  const TrainingFlops f = training_flops(setup_from(doc));
  CHECK(t.mfu == Approx(f.model_per_step / (t.step_seconds * 8 * 989.4e12)));
  CHECK(t.hfu == Approx(f.executed_per_step() / (t.step_seconds * 8 * 989.4e12)));
  CHECK(t.hfu > t.mfu);  // full recompute runs the forward twice
  CHECK(t.tokens_per_second_per_gpu == Approx(8 * 4096 / (t.step_seconds * 8)));
  const TimeBreakdown& b = t.breakdown;
  CHECK(b.compute + b.recompute + b.exposed_communication + b.overlap_slowdown + b.pipeline_bubble + b.optimizer + b.offload ==
        Approx(t.step_seconds));
}

TEST_CASE("Compute that hides data-parallel traffic runs 18.9 % slower for the seconds it hides", "[step_time]") {
  // Lee et al. 2025 (arXiv 2507.03114, abstract): overlapping computation and communication slowed
  // the computation by 18.9 % on average. FSDP prefetch hides the parameter gathers and gradient
  // reduce-scatters under the compute (only data-parallel traffic here), so the slowdown is 0.189 x
  // (all data-parallel seconds - the exposed ones).
  const std::string fsdp = R"({"model": {"preset": "llama-3.1-8b"}, "framework": "torchtitan", "activation_checkpointing": "full",
    "batch": {"micro_batch_size": 1, "seq_length": 4096}, "parallel": {"world_size": 8}, "gpu": "h100-sxm-80gb"})";
  const StepTime t = time_of(fsdp);
  const double hidden = t.seconds_per_step.data_parallel - t.breakdown.exposed_communication;
  CHECK(hidden > 0);
  CHECK(t.breakdown.overlap_slowdown == Approx(0.189 * hidden));
  // Megatron exposes its data-parallel traffic by default (--overlap-grad-reduce off): nothing hidden.
  const StepTime megatron = time_of(R"({"model": {"preset": "llama-3.1-8b"}, "framework": "megatron",
    "batch": {"micro_batch_size": 1, "seq_length": 4096}, "parallel": {"world_size": 8}, "gpu": "h100-sxm-80gb"})");
  CHECK(megatron.seconds_per_step.data_parallel > 0);
  CHECK(megatron.breakdown.overlap_slowdown == 0);
}

TEST_CASE("Overlapped tensor-parallel collectives hide under the linears' GEMMs and slow them by 18.9 %", "[step_time]") {
  // Llama-3-70B on one TP-4 group with sequence parallelism (no data or pipeline parallelism, so the
  // tensor-parallel traffic is all the communication): blocking, every second of it is exposed;
  // under Megatron's --tp-comm-overlap the layer's all-gathers and reduce-scatters (a few ms per
  // layer) run under its GEMMs (tens of ms), so none is exposed and the compute beside them runs
  // 0.189 s longer per hidden second (Lee et al. 2025, arXiv 2507.03114).
  const std::string base = R"({"model": {"preset": "llama-3-70b"}, "framework": "megatron", "gpu": "h100-sxm-80gb",
    "batch": {"micro_batch_size": 1, "seq_length": 4096}, "parallel": {"world_size": 4, "tensor_parallel_size": 4,
    "sequence_parallel": true)";
  const StepTime blocking = time_of(base + "}}");
  const StepTime overlapped = time_of(base + R"(, "tp_comm_overlap": true}})");
  const double tp = blocking.seconds_per_step.tensor_parallel;
  REQUIRE(tp > 0);
  CHECK(blocking.breakdown.exposed_communication == Approx(tp));
  CHECK(overlapped.seconds_per_step.tensor_parallel == Approx(tp));  // the same traffic
  CHECK(overlapped.breakdown.exposed_communication == Approx(0).margin(1e-12));
  CHECK(overlapped.breakdown.overlap_slowdown == Approx(0.189 * tp));
  CHECK(overlapped.step_seconds == Approx(blocking.step_seconds - tp + 0.189 * tp));
  // Outside Megatron and torchtitan the field changes nothing and is reported as ignored.
  const std::string hf = R"({"model": {"preset": "llama-3-70b"}, "framework": "hf_trainer", "gpu": "h100-sxm-80gb",
    "batch": {"micro_batch_size": 1, "seq_length": 4096}, "parallel": {"world_size": 4, "tensor_parallel_size": 4,
    "sequence_parallel": true)";
  CHECK(time_of(hf + R"(, "tp_comm_overlap": true}})").step_seconds == time_of(hf + "}}").step_seconds);
  CHECK_FALSE(setup_from(hf + R"(, "tp_comm_overlap": true}})").ignored_fields.empty());
}

TEST_CASE("Pipeline bubble: (sum of stage times - slowest) / v, halved by two virtual stages", "[step_time]") {
  const std::string base = R"({"model": {"preset": "llama-3.1-8b"}, "framework": "megatron",
    "batch": {"micro_batch_size": 1, "seq_length": 4096, "gradient_accumulation_steps": 16}, "gpu": "h100-sxm-80gb",
    "parallel": {"world_size": 4, "pipeline_parallel_size": 4)";
  const StepTime one_f_one_b = time_of(base + "}}");
  const StepTime interleaved = time_of(base + R"(, "pipeline_schedule": "interleaved_1f1b", "virtual_pipeline_stages": 2}})");
  CHECK(one_f_one_b.breakdown.pipeline_bubble > 0);
  // Halved, but for the pipeline sends, which interleaving doubles (one per virtual stage): a few
  // tenths of a percent longer stages here.
  CHECK(interleaved.breakdown.pipeline_bubble == Approx(one_f_one_b.breakdown.pipeline_bubble / 2).epsilon(0.01));
  CHECK(interleaved.bytes_per_step.pipeline == 2 * one_f_one_b.bytes_per_step.pipeline);
  // More micro-batches: the same bubble over a longer step.
  const StepTime longer = time_of(R"({"model": {"preset": "llama-3.1-8b"}, "framework": "megatron",
    "batch": {"micro_batch_size": 1, "seq_length": 4096, "gradient_accumulation_steps": 64}, "gpu": "h100-sxm-80gb",
    "parallel": {"world_size": 4, "pipeline_parallel_size": 4}})");
  CHECK(longer.breakdown.pipeline_bubble == Approx(one_f_one_b.breakdown.pipeline_bubble));
  CHECK(longer.breakdown.pipeline_bubble / longer.step_seconds < one_f_one_b.breakdown.pipeline_bubble / one_f_one_b.step_seconds);
}

TEST_CASE("Run cost: steps x step time, GPU-hours x the price", "[step_time]") {
  // 1e9 tokens at 8 x 4096 tokens per step = 30,517.578125 steps.
  const StepTime t = time_of(R"({"model": {"preset": "llama-3.1-8b"}, "batch": {"micro_batch_size": 1, "seq_length": 4096},
    "parallel": {"world_size": 8, "zero_stage": 3}, "framework": "fsdp", "gpu": "h100-sxm-80gb",
    "training": {"total_tokens": 1e9}})");
  const double steps = 1e9 / (8 * 4096);
  REQUIRE(t.time_to_train_seconds);
  CHECK(*t.time_to_train_seconds == Approx(steps * t.step_seconds));
  CHECK(*t.gpu_hours == Approx(8 * *t.time_to_train_seconds / 3600));
  REQUIRE(t.cost);
  CHECK(t.cost->price_per_gpu_hour_usd == 6.88);  // the catalog's AWS p5 on-demand price
  CHECK(t.cost->usd == Approx(*t.gpu_hours * 6.88));
  CHECK(t.cost->source.find("AWS") != std::string::npos);
  const StepTime priced = time_of(R"({"model": {"preset": "llama-3.1-8b"}, "batch": {"micro_batch_size": 1, "seq_length": 4096},
    "parallel": {"world_size": 8, "zero_stage": 3}, "framework": "fsdp", "gpu": "h100-sxm-80gb",
    "training": {"total_tokens": 1e9, "price_per_gpu_hour_usd": 2.0}})");
  CHECK(priced.cost->usd == Approx(*priced.gpu_hours * 2.0));
}

TEST_CASE("Time is null, with the reason, when the device's speeds are unknown", "[step_time]") {
  const JsonResult custom = estimate_json(R"({"model": {"preset": "llama-3.1-8b"}, "gpu": {"memory_bytes": 85899345920}})");
  REQUIRE(custom.ok);
  CHECK_THAT(custom.json, Catch::Contains("\"time\": null") && Catch::Contains("\"code\": \"time_unavailable\""));
  // The same device with its speeds is timed (no price: no cost).
  const TrainingSetup s = setup_from(R"({"model": {"preset": "llama-3.1-8b"}, "gpu": {"memory_bytes": 85899345920,
    "bf16_dense_flops_per_s": 989.4e12, "memory_bandwidth_bytes_per_s": 3.35e12}, "training": {"total_tokens": 1e9}})");
  const auto t = step_time(s, estimate(s));
  REQUIRE(t);
  CHECK(t->step_seconds > 0);
  CHECK(t->gpu_hours);
  CHECK_FALSE(t->cost);
  // No architecture: no time.
  CHECK_THAT(estimate_json(R"({"model": {"num_parameters": 7e9}, "gpu": "h100-sxm-80gb"})").json, Catch::Contains("\"time\": null"));
}

TEST_CASE("MoE dispatch: two more permutation passes when a rank holds more than one expert", "[step_time]") {
  // Mixtral-shaped: h = 2048, 16 experts of 4096 (SwiGLU), top-2, 2 layers, 4096 tokens per GPU.
  // EP 8 leaves 2 experts per rank, EP 16 one. The expert GEMMs do the same FLOPs either way
  // (rows per expert 4096 x 2 x EP / 16: 2 groups of 4096 rows at EP 8, 1 group of 8192 at EP 16),
  // in the same share of their waves (each output has as many tiles in all: 2 x 32 = 64 row tiles
  // against 64; the weight gradients' 2 x 16 x 32 = 1024 tiles in 8 waves of 132 against 512 in
  // 4: 1024/1056 = 512/528), every reduction at least 2048 long (the weight gradients' over the
  // 4096 and 8192 rows are both past the Hopper curve's 4096 end), and stay compute bound
  // (intensity 2 m n k / (2 (m k + k n + m n)) above 237 FLOP/byte, the H100 ridge
  // 794.5e12 / 3.35e12), and the all-to-all is communication, so the compute differs by the
  // dispatcher's sort by local expert and its inverse alone: 2 x 2 passes (read + write) x 2 bytes
  // x 2 routed copies x 2048 = 32,768 bytes per token forward, x 3 with the backward (twice the
  // forward's bytes), x 4096 tokens x 2 layers = 805,306,368 bytes at 2.854e12 B/s (achievable).
  const std::string model = R"({"model": {"hf_config": {"model_type": "mixtral", "hidden_size": 2048,
    "intermediate_size": 4096, "num_attention_heads": 16, "num_key_value_heads": 16, "num_hidden_layers": 2, "vocab_size": 32000,
    "num_local_experts": 16, "num_experts_per_tok": 2}}, "framework": "megatron", "batch": {"micro_batch_size": 1,
    "seq_length": 4096}, "gpu": "h100-sxm-80gb", "parallel": {"zero_stage": 1, )";
  const StepTime two = time_of(model + R"("world_size": 8, "expert_parallel_size": 8}})");
  const StepTime one = time_of(model + R"("world_size": 16, "expert_parallel_size": 16}})");
  CHECK(two.breakdown.compute - one.breakdown.compute == Approx(805'306'368.0 / kH100Bandwidth).epsilon(1e-9));
}

TEST_CASE("FSDP2 copies the gathered parameters out and the gradients into the reduce-scatter on the compute stream", "[step_time]") {
  // The small Llama of communication_test.cpp: 132,654,080 parameters, all trained; fp32 master
  // parameters gathered in bf16 (2 bytes), gradients reduced in fp32 (4 bytes); ZeRO-3 on 8 GPUs,
  // 2 micro-batches, each with a forward and a backward all-gather and a reduce-scatter (torchtitan
  // reduces every micro-batch).
  //   copy-out: 2 micro-batches x 2 gathers x (read + write) 2 x 132,654,080 x 2 = 2,122,465,280 B
  //   copy-in:  2 reductions x 132,654,080 x (2 read + 4 written)              = 1,591,848,960 B
  // 3,714,314,240 bytes at 2.854e12 B/s (achievable). FSDP1 (same document, sharding_engine "fsdp") has neither.
  const std::string doc = R"({"model": {"hf_config": {"model_type": "llama", "hidden_size": 1024, "intermediate_size": 4096,
    "num_attention_heads": 8, "num_key_value_heads": 8, "num_hidden_layers": 4, "vocab_size": 32000}}, "framework": "torchtitan",
    "precision": {"param_dtype": "fp32", "compute_dtype": "bf16", "grad_dtype": "fp32"}, "batch": {"micro_batch_size": 1,
    "seq_length": 1024, "gradient_accumulation_steps": 2}, "gpu": "h100-sxm-80gb", "parallel": {"world_size": 8, "zero_stage": 3)";
  const StepTime fsdp2 = time_of(doc + "}}");
  const StepTime fsdp1 = time_of(doc + R"(, "sharding_engine": "fsdp"}})");
  CHECK(fsdp2.breakdown.compute - fsdp1.breakdown.compute == Approx(3'714'314'240.0 / kH100Bandwidth).epsilon(1e-9));
  CHECK(fsdp2.step_seconds - fsdp1.step_seconds == Approx(3'714'314'240.0 / kH100Bandwidth).epsilon(1e-6));
}

TEST_CASE("Transformer Engine casts each fp8 weight once per step, not per micro-batch", "[step_time]") {
  // The small Llama (h = 1024, 4 layers): q, k, v, o 4 x 1024^2 + gate, up, down 3 x 1024 x 4096
  // = 16,777,216 weight elements per layer, 67,108,864 in all, every one an fp8 GEMM's weight.
  // Under Megatron the weight cast (read 2 + write 1 + the amax read 2 bytes) and its transposed
  // copy (1 byte) happen once per step: 6 x 67,108,864 = 402,653,184 bytes per step whatever the
  // accumulation. Everything else in compute is per micro-batch, so 4 micro-batches take 4 times
  // the compute of one, less the 3 weight casts the cache saves: 3 x 402,653,184 bytes at
  // 2.854e12 B/s (achievable).
  const std::string doc = R"({"model": {"hf_config": {"model_type": "llama", "hidden_size": 1024, "intermediate_size": 4096,
    "num_attention_heads": 8, "num_key_value_heads": 8, "num_hidden_layers": 4, "vocab_size": 32000}}, "framework": "megatron",
    "precision": {"fp8_compute": true}, "activation_checkpointing": "none", "gpu": "h100-sxm-80gb",
    "parallel": {"world_size": 1}, "batch": {"micro_batch_size": 1, "seq_length": 1024, "gradient_accumulation_steps": )";
  const StepTime one = time_of(doc + "1}}");
  const StepTime four = time_of(doc + "4}}");
  CHECK(4 * one.breakdown.compute - four.breakdown.compute == Approx(3 * 402'653'184.0 / kH100Bandwidth).epsilon(1e-9));
}

TEST_CASE("MoE experts under ETP below TP: each rank's experts take only its own T / tp tokens' copies", "[step_time][moe_etp]") {
  // Mixtral-shaped, h = 1024, 16 experts of 2048 (SwiGLU), top-2, 2 layers; 1024 tokens on TP 2
  // with sequence parallelism, EP 1. A device without SM count or generation: no tile, wave or
  // short-reduction losses, and a bandwidth so high that every GEMM is compute bound, so a GEMM
  // costs its FLOPs alone. ETP 2: each rank gathers both ranks' 512 tokens x 2 = 1024 copies,
  // 2048 in all, 128 per expert, through experts split in two (gate and up 1024 of 2048 columns
  // each, down 1024 of 2048 rows in); ETP 1: each rank keeps its own 1024 copies, 64 per expert,
  // through whole experts: 128 x 1024 = 64 x 2048 per expert, the same FLOPs. The ETP collectives
  // are communication; what differs in the compute is the dispatcher's sort by local expert and
  // its inverse over the gathered copies, twice as many under ETP 2: one more 2 x 2 passes (read +
  // write) x 2 bytes x 2 x 1024 / 2 routed elements = 8,192 bytes per token forward, x 3 with the
  // backward, x 1024 tokens x 2 layers = 50,331,648 bytes at 1e15 x 0.852 B/s.
  const std::string base = R"({"model": {"hf_config": {"model_type": "mixtral", "hidden_size": 1024, "intermediate_size": 2048,
    "num_attention_heads": 8, "num_key_value_heads": 8, "num_hidden_layers": 2, "vocab_size": 32000, "num_local_experts": 16,
    "num_experts_per_tok": 2}}, "framework": "megatron", "batch": {"micro_batch_size": 1, "seq_length": 1024},
    "gpu": {"memory_bytes": 85899345920, "bf16_dense_flops_per_s": 989.4e12, "memory_bandwidth_bytes_per_s": 1e15},
    "parallel": {"world_size": 2, "tensor_parallel_size": 2, "sequence_parallel": true)";
  const StepTime etp2 = time_of(base + "}}");
  const StepTime etp1 = time_of(base + R"(, "expert_tensor_parallel_size": 1}})");
  CHECK(etp2.breakdown.compute - etp1.breakdown.compute == Approx(50'331'648.0 / (1e15 * 1704 / 2000)).epsilon(1e-6));
}

TEST_CASE("Optimizer step: torch's foreach and for-loop Adam run ten moment passes and a gradient read more than the fused kernel", "[step_time]") {
  // Llama-3.2-1B, full fine-tune in fp32 on one H200 (4.8 TB/s x 0.852 = 4.0896e12 B/s): 1,235,814,400
  // trained parameters (tied embeddings; Meta's model card). The fused kernel: 2 b_o + b_p + 3 b_g
  // = 2 x 8 + 4 + 3 x 4 = 32 B; torch's multi-tensor path (torch/optim/adam.py _multi_tensor_adam:
  // lerp_, mul_, addcmul_, sqrt, div_, add_, addcdiv_) 14 x 4 + 2 x 4 + 2 x 4 = 72 B against the
  // fused 4 x 4 + 4 + 2 x 4 = 28 B: 44 B more, 76 B in all.
  const std::string base = R"({"model": {"preset": "llama-3.2-1b"}, "framework": "hf_trainer", "method": "full",
    "precision": {"param_dtype": "fp32", "grad_dtype": "fp32", "compute_dtype": "bf16", "master_weights": false,
      "optimizer": "adamw", "optimizer_state_dtype": "fp32", "optimizer_implementation": ")";
  const std::string rest = R"("}, "batch": {"micro_batch_size": 1, "seq_length": 1024}, "gpu": "h200-141gb"})";
  const double bandwidth = 4.8e12 * 1704 / 2000, trained = 1235814400;
  CHECK(time_of(base + "fused" + rest).breakdown.optimizer == Approx(trained * 32 / bandwidth));
  CHECK(time_of(base + "foreach" + rest).breakdown.optimizer == Approx(trained * 76 / bandwidth));
  CHECK(time_of(base + "for_loop" + rest).breakdown.optimizer == Approx(trained * 76 / bandwidth));
  // bf16 states (b_o = 4), fp32 weights and gradients: 2 x 4 + 4 + 3 x 4 = 24 B fused, plus ten
  // passes over a 2-byte moment and a 4-byte gradient read: 48 B.
  const std::string bf16_states = R"({"model": {"preset": "llama-3.2-1b"}, "framework": "hf_trainer", "method": "full",
    "precision": {"param_dtype": "fp32", "grad_dtype": "fp32", "compute_dtype": "bf16", "master_weights": false,
      "optimizer": "adamw", "optimizer_state_dtype": "bf16", "optimizer_implementation": "foreach"},
    "batch": {"micro_batch_size": 1, "seq_length": 1024}, "gpu": "h200-141gb"})";
  CHECK(time_of(bf16_states).breakdown.optimizer == Approx(trained * 48 / bandwidth));
  // bitsandbytes' 8-bit AdamW is one fused kernel whatever the implementation field says.
  const std::string eight_bit = R"({"model": {"preset": "llama-3.2-1b"}, "framework": "hf_trainer", "method": "full",
    "precision": {"optimizer": "adamw_8bit", "optimizer_implementation": "foreach"},
    "batch": {"micro_batch_size": 1, "seq_length": 1024}, "gpu": "h200-141gb"})";
  const Estimate e = trainmem::test::estimate_from(eight_bit);
  const BytesPerParam& b = e.bytes_per_param;
  CHECK(time_of(eight_bit).breakdown.optimizer == Approx(e.gpu_trainable_parameters * (2 * b.optimizer + b.param + 3 * b.grad) / bandwidth));
}

TEST_CASE("An offloaded optimizer steps on the host: the node's shards at the CPU-Adam or PyTorch CPU rate", "[step_time]") {
  // DeepSpeed steps its CPU-Adam; a fused torch optimizer (torchtune's configs) is taken at the same
  // vectorized rate; the HF Trainer's and accelerate's foreach AdamW runs tensor by tensor on CPU.
  // Llama-3.1-8B (8,030,261,248 parameters, Meta's model card) at ZeRO-3 on 16 GPUs, two nodes of
  // 8: each GPU trains 8,030,261,248 / 16 = 501,891,328 parameters and each host steps its 8 GPUs'
  // shards, 4,015,130,624 parameters. ZeRO-Offload (arXiv 2101.06840), Table 3: 10 billion
  // parameters take 2.57 s with DeepSpeed's CPU-Adam and 14.76 s with PyTorch's Adam on the CPU.
  const auto document = [](const std::string& framework, int world) {
    return R"({"model": {"preset": "llama-3.1-8b"}, "framework": ")" + framework + R"(", "parallel": {"world_size": )" +
           std::to_string(world) + R"(, "zero_stage": 3, "offload_optimizer": "cpu"},
      "batch": {"micro_batch_size": 1, "seq_length": 4096}, "gpu": "h100-sxm-80gb"})";
  };
  const double per_host = 8 * 8030261248.0 / 16;
  CHECK(time_of(document("deepspeed", 16)).breakdown.optimizer == Approx(per_host * 2.57 / 10e9));
  CHECK(time_of(document("fsdp", 16)).breakdown.optimizer == Approx(per_host * 14.76 / 10e9));
  CHECK(time_of(document("torchtune", 16)).breakdown.optimizer == Approx(per_host * 2.57 / 10e9));
  CHECK(time_of(document("megatron", 16)).breakdown.optimizer == Approx(per_host * 14.76 / 10e9));
  // Two GPUs share one host: 2 x 8,030,261,248 / 2 parameters, the whole model, on its CPUs.
  CHECK(time_of(document("deepspeed", 2)).breakdown.optimizer == Approx(8030261248.0 * 2.57 / 10e9));
}

TEST_CASE("LoRA's elementwise ops: an fp32 adapter's input casts and its dropout are priced per input element", "[step_time]") {
  // Llama-3.2-1B (hidden 2048, 16 layers), LoRA on q_proj and v_proj, 1 x 1024 tokens, bf16 compute
  // on one H200 (4.8 TB/s x 0.852). PEFT casts each adapted linear's input to the adapter's dtype
  // and autocast casts it back: 2 (2 + 4) = 12 bytes per input element forward and again backward
  // for fp32 adapters, none for bf16 ones. Inputs: 2 linears x 2048 features x 16 layers = 65,536
  // per token.
  const auto lora = [](const std::string& adapter) {
    return R"({"model": {"preset": "llama-3.2-1b"}, "framework": "hf_trainer", "method": "lora",
      "lora": {"r": 16, "target_modules": ["q_proj", "v_proj"], )" + adapter + R"(},
      "batch": {"micro_batch_size": 1, "seq_length": 1024}, "gpu": "h200-141gb"})";
  };
  const double bandwidth = 4.8e12 * 1704 / 2000, inputs = 1024.0 * 65536;
  const StepTime bf16 = time_of(lora(R"("adapter_dtype": "bf16", "lora_dropout": 0)"));
  const StepTime fp32 = time_of(lora(R"("adapter_dtype": "fp32", "lora_dropout": 0)"));
  CHECK(fp32.breakdown.compute - bf16.breakdown.compute == Approx(inputs * 24 / bandwidth));
  // Dropout on the fp32 input: read and write 4 bytes and write a 1-byte mask, each way: 18 bytes.
  const StepTime dropout = time_of(lora(R"("adapter_dtype": "fp32", "lora_dropout": 0.05)"));
  CHECK(dropout.breakdown.compute - fp32.breakdown.compute == Approx(inputs * 18 / bandwidth));
}

TEST_CASE("ALiBi models rotate nothing: no rotary passes in their step", "[step_time]") {
  // A Falcon-7B layout (transformers FalconConfig) with and without alibi: 32 layers, hidden 4544, 71
  // query heads and one kv head of 64 (qk = 72 x 64 = 4,608 per token), bf16, HF Trainer (rotary
  // in Python: 11 passes), 1 x 2048 tokens on one H200 (4.8 TB/s x 0.852). Forward 11 x 2 B x
  // 4,608 per token and layer, backward twice that: 3 x 101,376 = 304,128 B per token and layer.
  const auto falcon = [](const char* alibi) {
    return std::string(R"({"model": {"hf_config": {"model_type": "falcon", "hidden_size": 4544, "num_attention_heads": 71,
      "num_hidden_layers": 32, "multi_query": true, "parallel_attn": true, "vocab_size": 65024, "alibi": )") + alibi + R"(}},
      "framework": "hf_trainer", "batch": {"micro_batch_size": 1, "seq_length": 2048}, "gpu": "h200-141gb"})";
  };
  const double bandwidth = 4.8e12 * 1704 / 2000;
  const StepTime rotary = time_of(falcon("false")), alibi = time_of(falcon("true"));
  CHECK(rotary.breakdown.compute - alibi.breakdown.compute == Approx(2048.0 * 32 * 304128 / bandwidth));
}

TEST_CASE("DPO: the policy trains on chosen and rejected sequences, the reference runs their forward", "[step_time][rlhf]") {
  // A 2-layer Llama (h = 64, 4 heads of 16, intermediate 128, vocabulary 1,000), sequences of 128
  // tokens, one pair per micro-batch: the policy trains on 2 sequences, 256 tokens per step.
  // Forward model FLOPs per token: linears q, k, v, o 4 x 64^2 = 16,384 and gate, up, down
  // 3 x 64 x 128 = 24,576 weights per layer, 2 FLOPs each over 2 layers = 163,840; attention
  // 4 s h = 4 x 128 x 64 = 32,768 per layer, 65,536; head 2 x 64 x 1,000 = 128,000: 357,376.
  // Training counts 3x the forward (PaLM), the reference's forward 1x more: 4 x 357,376 x 256.
  const std::string model = R"({"model": {"hf_config": {"model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
    "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4, "vocab_size": 1000}},
    "gpu": "h100-sxm-80gb")";
  const StepTime dpo = time_of(model + R"(, "batch": {"micro_batch_size": 1, "seq_length": 128}, "rlhf": {"algorithm": "dpo"}})");
  CHECK(dpo.model_flops_per_step == 4.0 * 357'376 * 256);
  CHECK(dpo.tokens_per_second_per_gpu * dpo.step_seconds == Approx(256));
  CHECK(dpo.mfu == Approx(dpo.model_flops_per_step / (dpo.step_seconds * 989.4e12)));
  // The step is the policy's step on both sequences and a forward more.
  const StepTime pairs = time_of(model + R"(, "batch": {"micro_batch_size": 2, "seq_length": 128}})");
  CHECK(pairs.model_flops_per_step == 3.0 * 357'376 * 256);
  CHECK(dpo.step_seconds > pairs.step_seconds);
  CHECK(dpo.step_seconds < pairs.step_seconds * 1.5);  // a forward is about a third of forward + backward
  const TimeBreakdown& b = dpo.breakdown;
  CHECK(b.compute + b.recompute + b.exposed_communication + b.overlap_slowdown + b.pipeline_bubble + b.optimizer + b.offload ==
        Approx(dpo.step_seconds));
  // A QLoRA policy's reference is its own 4-bit base (adapters disabled): under ZeRO-3 its forward
  // gathers 4-bit linears, not 16-bit ones. Llama-3-8B holds 6.98 B linear weights and 1.05 B
  // embedding and head weights: 16-bit, 16.1 GB to gather; with the linears at 4 bits (0.5 B per
  // weight and their constants), about 5.8 GB, 0.36 of it: the reference's share of the traffic
  // stays under half of LoRA's.
  const auto reference_traffic = [](const char* method) {
    const std::string doc = std::string(R"({"model": {"preset": "llama-3-8b"}, "method": ")") + method +
                            R"(", "gpu": "h100-sxm-80gb", "parallel": {"world_size": 8, "zero_stage": 3}, "batch": {"seq_length": 1024, )";
    const StepTime pair = time_of(doc + R"("micro_batch_size": 1}, "rlhf": {"algorithm": "dpo"}})");
    const StepTime twice = time_of(doc + R"("micro_batch_size": 2}})");
    return std::make_pair(pair.bytes_per_step.data_parallel - twice.bytes_per_step.data_parallel, pair.step_seconds - twice.step_seconds);
  };
  const auto lora = reference_traffic("lora"), qlora = reference_traffic("qlora");
  CHECK(lora.first > 0);
  CHECK(qlora.first > 0);
  CHECK(qlora.first < 0.5 * lora.first);
  // A frozen reference is a 16-bit copy (as its memory is priced): its forward gathers 16-bit weights.
  const std::string frozen = R"({"model": {"preset": "llama-3-8b"}, "method": "qlora", "gpu": "h100-sxm-80gb", "parallel": {"world_size": 8,
    "zero_stage": 3}, "batch": {"seq_length": 1024, "micro_batch_size": 1}, "rlhf": {"algorithm": "dpo", "reference": {"method": "frozen"}}})";
  const StepTime twice = time_of(R"({"model": {"preset": "llama-3-8b"}, "method": "qlora", "gpu": "h100-sxm-80gb", "parallel": {"world_size": 8,
    "zero_stage": 3}, "batch": {"seq_length": 1024, "micro_batch_size": 2}})");
  CHECK(time_of(frozen).bytes_per_step.data_parallel - twice.bytes_per_step.data_parallel == Approx(lora.first).epsilon(0.01));

  // PPO and GRPO (their generation) are not timed; the estimate says why.
  for (const char* algorithm : {"ppo", "grpo"}) {
    const JsonResult r = estimate_json(model + R"(, "batch": {"seq_length": 128}, "rlhf": {"algorithm": ")" + algorithm + R"("}})");
    REQUIRE(r.ok);
    CHECK_THAT(r.json, Catch::Contains("\"time\": null") && Catch::Contains("\"reason\": \"rlhf\""));
  }
}
