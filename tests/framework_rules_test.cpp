// Framework rules of the training step: gradient synchronisation during accumulation, FSDP1's
// flat parameters, ZeRO-3 parameter offload's working set, Megatron's vocabulary padding, expert
// tensor parallelism and optimizer offload, the optimizer's step temporaries, host RAM at load and
// compile's scope. Every expected value is worked out by hand in the comment beside it.
#include "test_support.hpp"

#include "trainmem/framework_defaults.hpp"
#include "trainmem/loss_memory.hpp"
#include "trainmem/transient_buffers.hpp"

using namespace trainmem;
using trainmem::test::estimate_from;
using trainmem::test::kLlama2_7b;
using trainmem::test::setup_from;

namespace {
// Llama-2-7B: one decoder layer holds 4 x 4096^2 (attention) + 3 x 4096 x 11008 (MLP) + 2 x 4096
// (norms) = 67,108,864 + 135,266,304 + 8,192 = 202,383,360 parameters; 32 layers = 6,476,267,520.
constexpr double kLlama2LayerParams = 202383360.0;
// LoRA r = 16 on q_proj and v_proj (PEFT's Llama default): 2 x 16 x (4096 + 4096) = 262,144 per
// layer, 8,388,608 in all.
constexpr double kLlama2AdapterParams = 8388608.0;

TransientBuffers buffers_of(const TrainingSetup& s) {
  const ResolvedPrecision p = resolve_precision(s);
  const ModelStates states = model_states(s, p).front();
  return transient_buffers(s, p, states, framework_behaviour(s), p.compute_dtype);
}

// Adapters held in bf16 (PEFT's autocast_adapter_dtype=False), as the derivations below take them.
std::string lora_fsdp(const std::string& parallel_extra, const std::string& framework = "fsdp") {
  return R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": ")" + framework + R"(", "method": "lora",
    "lora": {"adapter_dtype": "bf16"},
    "batch": {"seq_length": 16, "gradient_accumulation_steps": 4},
    "parallel": {"world_size": 2, "zero_stage": 3)" + parallel_extra + "}}";
}
}  // namespace

TEST_CASE("no_sync accumulation keeps unsharded gradients; FSDP1 flat parameters carry whole layers", "[gradient_sync]") {
  // Llama-2-7B LoRA on 2 GPUs under FSDP1 wrapped by decoder layer (framework "fsdp": accelerate's
  // transformer-based wrap, use_orig_params=True, one flat parameter per decoder layer),
  // accumulation 4, gradient_sync last_micro_batch: every layer holds adapters, so the unsharded
  // gradient buffer covers all 32 layers and their adapters in bf16:
  // (6,476,267,520 + 8,388,608) x 2 B = 12,969,312,256 B.
  const auto no_sync = estimate_from(lora_fsdp(R"(, "sharding_engine": "fsdp", "gradient_sync": "last_micro_batch")"));
  CHECK(no_sync.per_gpu.gradients == (32 * kLlama2LayerParams + kLlama2AdapterParams) * 2);
  CHECK(no_sync.per_gpu.gradients == 12969312256.0);
  // Reduced after every micro-batch: the same flat gradients, sharded over 2 ranks: 6,484,656,128 B.
  const auto every = estimate_from(lora_fsdp(R"(, "sharding_engine": "fsdp", "gradient_sync": "every_micro_batch")"));
  CHECK(every.per_gpu.gradients == 6484656128.0);
  // FSDP2 shards per parameter: only the adapters have gradients, unsharded: 8,388,608 x 2 B.
  const auto fsdp2 = estimate_from(lora_fsdp(R"(, "sharding_engine": "fsdp2", "gradient_sync": "last_micro_batch")"));
  CHECK(fsdp2.per_gpu.gradients == kLlama2AdapterParams * 2);
  // Framework "fsdp" defaults to no_sync on FSDP1 as well.
  CHECK(estimate_from(lora_fsdp("")).per_gpu.gradients == no_sync.per_gpu.gradients);
  // The HF Trainer with PEFT wraps every LoRA leaf (lora_A, lora_B) as an FSDP unit of its own
  // (transformers integrations/fsdp.py update_fsdp_plugin_peft -> peft utils/other.py
  // fsdp_auto_wrap_policy): the decoder layers' flat parameters hold frozen weights only and get no
  // gradient. Its default no_sync (accelerate's accumulate) keeps the adapters' gradients
  // unsharded: 8,388,608 x 2 B = 16,777,216 B.
  const auto trainer = estimate_from(lora_fsdp("", "hf_trainer"));
  CHECK(trainer.per_gpu.gradients == kLlama2AdapterParams * 2);
  CHECK(trainer.per_gpu.gradients == 16777216.0);
  CHECK_FALSE(fsdp1_whole_unit_gradients(setup_from(lora_fsdp("", "hf_trainer"))));
  CHECK(fsdp1_whole_unit_gradients(setup_from(lora_fsdp(""))));
  // use_orig_params=False: FSDP1 flattens only tensors of one requires_grad, so the adapters are
  // units of their own (AnswerDotAI/fsdp_qlora's leaf policy): their gradients alone, unsharded
  // under no_sync, 8,388,608 x 2 B = 16,777,216 B.
  const auto leaf = estimate_from(lora_fsdp(R"(, "sharding_engine": "fsdp", "gradient_sync": "last_micro_batch", "use_orig_params": false)"));
  CHECK(leaf.per_gpu.gradients == 16777216.0);
  CHECK_FALSE(fsdp1_whole_unit_gradients(setup_from(lora_fsdp(R"(, "use_orig_params": false)"))));
  // DeepSpeed ZeRO >= 2 under accelerate never enters no_sync: the default reduces every micro-batch.
  CHECK(gradient_sync(setup_from(lora_fsdp(R"(, "sharding_engine": "deepspeed")", "hf_trainer"))) == GradientSync::every_micro_batch);
  // The DeepSpeed engine itself reduces on every micro-batch where ZeRO partitions the gradients
  // (stage >= 2), below that only at the accumulation boundary (engine.py, allreduce_gradients).
  const auto deepspeed_at = [&](int stage) {
    return gradient_sync(setup_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "deepspeed",
      "parallel": {"world_size": 8, "zero_stage": )" + std::to_string(stage) + "}}"));
  };
  CHECK(deepspeed_at(0) == GradientSync::last_micro_batch);
  CHECK(deepspeed_at(1) == GradientSync::last_micro_batch);
  CHECK(deepspeed_at(2) == GradientSync::every_micro_batch);
  CHECK(deepspeed_at(3) == GradientSync::every_micro_batch);
}


TEST_CASE("under QLoRA an FSDP1 flat parameter holds the 4-bit weights packed, and its gradient is that size", "[gradient_sync]") {
  // Llama-2-7B QLoRA (NF4) on 2 GPUs under FSDP1, use_orig_params=True, accumulation 4 (no_sync):
  // bitsandbytes packs a 4-bit weight two to a byte into the bf16 quant_storage FSDP flattens
  // (Params4bit, quantize_4bit), so a layer's 4 x 4096^2 + 3 x 4096 x 11008 = 202,375,168 linear
  // weights are 202,375,168 x 0.5 B / 2 B = 50,593,792 flat elements, beside its 8,192 norm weights:
  // 50,601,984 per layer, 1,619,263,488 for 32. With the adapters (8,388,608), in bf16, unsharded:
  // (1,619,263,488 + 8,388,608) x 2 B = 3,255,304,192 B (a quarter of the LoRA case's frozen part).
  const std::string qlora = R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "fsdp", "method": "qlora",
    "qlora": {"quant_type": "nf4"}, "lora": {"adapter_dtype": "bf16"},
    "batch": {"seq_length": 16, "gradient_accumulation_steps": 4},
    "parallel": {"world_size": 2, "zero_stage": 3, "sharding_engine": "fsdp", "gradient_sync": "last_micro_batch"}})";
  const auto packed = estimate_from(qlora);
  CHECK(packed.per_gpu.gradients == 3255304192.0);
  // The same layout under LoRA flattens the weights whole: (6,476,267,520 + 8,388,608) x 2 B.
  CHECK(estimate_from(lora_fsdp(R"(, "sharding_engine": "fsdp", "gradient_sync": "last_micro_batch")")).per_gpu.gradients ==
        12969312256.0);
}
TEST_CASE("no_sync with full fine-tuning accumulates full gradients in the reduce dtype", "[gradient_sync]") {
  // Llama-2-7B full, FSDP2, fp32 sharded parameters with bf16 compute (MixedPrecisionPolicy), 4 GPUs,
  // accumulation 2, no_sync: 6,738,415,616 x 2 B (bf16 reduce dtype) = 13,476,831,232 B of gradients,
  // more than the sharded fp32 gradients (6,738,415,616 x 4 / 4 = 6,738,415,616 B).
  const auto e = estimate_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "torchtitan",
    "precision": {"param_dtype": "fp32", "compute_dtype": "bf16"}, "batch": {"seq_length": 16, "gradient_accumulation_steps": 2},
    "parallel": {"world_size": 4, "zero_stage": 3, "gradient_sync": "last_micro_batch"}})");
  CHECK(e.per_gpu.gradients == 13476831232.0);
  // Without accumulation there is nothing to defer: sharded fp32 gradients.
  const auto one = estimate_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "torchtitan",
    "precision": {"param_dtype": "fp32", "compute_dtype": "bf16"}, "batch": {"seq_length": 16},
    "parallel": {"world_size": 4, "zero_stage": 3, "gradient_sync": "last_micro_batch"}})");
  CHECK(one.per_gpu.gradients == 6738415616.0);
}

TEST_CASE("ZeRO-3 parameter offload keeps the gathered working set on the GPU, one GPU included", "[offload]") {
  // DeepSpeed ZeRO-3, offload_param cpu, Llama-2-7B in bf16 on one GPU: max(stage3_max_live_parameters
  // 1e9, largest module) + stage3_prefetch_bucket_size 5e7 = 1.05e9 elements x 2 B = 2.1e9 B in forward,
  // of which the largest module, the embedding (32,000 x 4,096 x 2 B = 262,144,000 B), is counted
  // with the model states as DeepSpeed's estimator counts it: 1,837,856,000 B of buffers.
  const auto s = setup_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "deepspeed",
    "parallel": {"world_size": 1, "zero_stage": 3, "offload_optimizer": "cpu", "offload_param": "cpu"}})");
  CHECK(buffers_of(s).forward == 1837856000.0);
  CHECK(estimate(s).per_gpu.parameters == 262144000.0);
  // The same on 8 GPUs.
  const auto eight = setup_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "deepspeed",
    "parallel": {"world_size": 8, "zero_stage": 3, "offload_optimizer": "cpu", "offload_param": "cpu"}})");
  CHECK(buffers_of(eight).forward == 1837856000.0);
}

TEST_CASE("DeepSpeed ZeRO-3 keeps its reduce bucket in every phase; ZeRO-1/2 only in backward", "[deepspeed]") {
  // stage3.py allocates reduce_bucket_size elements (5e8) in the gradient dtype when it builds the
  // optimizer (contiguous_gradients, the default) and never frees them: 5e8 x 2 B = 1e9 B alive in
  // forward, backward and the optimizer step. stage_1_and_2.py releases its bucket after each step.
  const std::string doc = R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "deepspeed", "parallel": {"world_size": 8, "zero_stage": )";
  const TransientBuffers z3 = buffers_of(setup_from(doc + "3}}"));
  CHECK(z3.persistent == 1e9);
  // Forward and backward keep max(stage3_max_live_parameters 1e9, largest module) + the 5e7 prefetch
  // bucket gathered, in bf16: 2.1e9 B, less the embedding counted as a model state (262,144,000 B);
  // the bucket is not counted twice.
  CHECK(z3.forward == 1837856000.0);
  CHECK(z3.backward == 1837856000.0);
  const TransientBuffers z2 = buffers_of(setup_from(doc + "2}}"));
  CHECK(z2.persistent == 0);
  CHECK(z2.backward == 1e9);
  // Under overlap_comm ZeRO-1/2 allocate a second bucket (stage_1_and_2.py: buf_1 "if
  // self.overlap_comm"): 2 x 1e9 B.
  CHECK(buffers_of(setup_from(doc + R"(2, "overlap_grad_reduce": true}})")).backward == 2e9);
}

TEST_CASE("DeepSpeed's reduce buckets are reduce_bucket_size elements however few parameters train", "[deepspeed][lora]") {
  // stage3.py and stage_1_and_2.py allocate torch.empty(reduce_bucket_size) whatever the trainable
  // count: LoRA r 8 on q_proj and v_proj of Llama-2-7B trains 4,194,304 parameters, yet ZeRO-3 keeps
  // 5e8 x 2 B = 1e9 B and ZeRO-2 allocates the same in backward (it was priced at the 4,194,304
  // trainable elements, 8 MB).
  const std::string doc = R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "deepspeed", "method": "lora",
    "lora": {"r": 8, "target_modules": ["q_proj", "v_proj"]}, "parallel": {"world_size": 8, "zero_stage": )";
  CHECK(buffers_of(setup_from(doc + "3}}")).persistent == 1e9);
  CHECK(buffers_of(setup_from(doc + "2}}")).backward == 1e9);
}

TEST_CASE("DeepSpeed under the HF Trainer: buckets of its \"auto\" fill, from hidden_size", "[deepspeed]") {
  // transformers HfTrainerDeepSpeedConfig.trainer_config_finalize: reduce_bucket_size = h^2 and, at
  // ZeRO-3, stage3_prefetch_bucket_size = 0.9 h^2. Llama-2-7B, h = 4096: 16,777,216 and 15,099,494.4.
  // ZeRO-3 with parameter offload on one GPU: forward holds max(1e9, largest module) + the prefetch
  // bucket, in bf16: (1e9 + 15,099,494.4) x 2 = 2,030,198,988.8 B (DeepSpeed's own 5e7: 2.1e9 B), less
  // the embedding counted as a model state (262,144,000 B): 1,768,054,988.8 B.
  const auto s = setup_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "hf_trainer",
    "parallel": {"world_size": 1, "zero_stage": 3, "sharding_engine": "deepspeed", "offload_optimizer": "cpu", "offload_param": "cpu"}})");
  CHECK(buffers_of(s).forward == Approx(1768054988.8).epsilon(1e-12));
  // ZeRO-2 on 8 GPUs, bf16 gradients: the reduce bucket in backward, 16,777,216 x 2 = 33,554,432 B
  // (DeepSpeed's own 5e8 elements: 1e9 B).
  const std::string zero2 = R"(, "precision": {"param_dtype": "bf16", "grad_dtype": "bf16", "master_weights": true},
    "parallel": {"world_size": 8, "zero_stage": 2, "sharding_engine": "deepspeed"}})";
  CHECK(buffers_of(setup_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "hf_trainer")" + zero2)).backward == 33554432.0);
  CHECK(buffers_of(setup_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "deepspeed")" + zero2)).backward == 1e9);
}

TEST_CASE("Megatron pads the vocabulary to make_vocab_size_divisible_by x TP", "[megatron]") {
  // GPT-2 (124,439,808 parameters, vocab 50,257, tied head) under Megatron with TP 2: 50,257 is
  // padded to a multiple of 128 x 2 = 256, i.e. 50,432; 175 extra rows x 768 = 134,400 parameters:
  // 124,574,208.
  const std::string gpt2 = R"({"model_type": "gpt2", "n_embd": 768, "n_layer": 12, "n_head": 12, "n_positions": 1024, "vocab_size": 50257})";
  const auto megatron = estimate_from(R"({"model": {"hf_config": )" + gpt2 + R"(}, "framework": "megatron",
    "parallel": {"world_size": 2, "tensor_parallel_size": 2}})");
  CHECK(megatron.parameters.total == 124574208);
  CHECK(padded_vocab_size(setup_from(R"({"model": {"hf_config": )" + gpt2 + R"(}, "framework": "megatron",
    "parallel": {"world_size": 2, "tensor_parallel_size": 2}})"), 50257) == 50432);
  // Other frameworks keep the vocabulary unless the document names a divisor.
  CHECK(estimate_from(R"({"model": {"hf_config": )" + gpt2 + R"(}, "parallel": {"world_size": 2, "tensor_parallel_size": 2}})")
            .parameters.total == 124439808);
  // Logits use the padded vocabulary: 2,048 tokens x 50,432 / 2 per TP rank = 51,642,368 elements.
  const auto s = setup_from(R"({"model": {"hf_config": )" + gpt2 + R"(}, "framework": "megatron",
    "batch": {"seq_length": 1024, "micro_batch_size": 2}, "parallel": {"world_size": 2, "tensor_parallel_size": 2}})");
  CHECK(loss_memory(s, *s.model.architecture, Dtype::bf16, framework_behaviour(s)).logits_elements == 51642368.0);
}

TEST_CASE("experts split over the expert tensor-parallel size, not TP", "[megatron]") {
  // Mixtral-shaped layer: 8 experts of 3 x 64 x 128 = 24,576 parameters each. TP 2, EP 1:
  // ETP defaults to TP (2): each rank holds 8 x 24,576 / 2 = 98,304 expert parameters per layer;
  // ETP 1 keeps whole experts: 196,608 per layer. Two layers: 196,608 vs 393,216.
  const std::string moe = R"({"model_type": "mixtral", "hidden_size": 64, "intermediate_size": 128, "num_attention_heads": 4,
    "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 128, "num_local_experts": 8, "num_experts_per_tok": 2})";
  auto experts = [&](const std::string& extra) {
    const auto s = setup_from(R"({"model": {"hf_config": )" + moe + R"(}, "framework": "megatron",
      "parallel": {"world_size": 2, "tensor_parallel_size": 2)" + extra + "}}");
    const auto stages = stage_parameters(s);
    return stages.front().expert_trainable + stages.front().expert_frozen;
  };
  CHECK(experts("") == 196608.0);
  CHECK(experts(R"(, "expert_tensor_parallel_size": 1)") == 393216.0);
}

TEST_CASE("Megatron's CPU optimizer offload keeps the fp32 main gradients on the GPU", "[megatron][offload]") {
  // Llama-2-7B, 8 GPUs, distributed optimizer: master weights and moments go to the host; the GPU
  // keeps bf16 weights (2P) and the fp32 main-grad buffer (4P): 6 x 6,738,415,616 = 40,430,493,696 B.
  const auto e = estimate_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "megatron",
    "batch": {"seq_length": 16}, "parallel": {"world_size": 8, "zero_stage": 1, "offload_optimizer": "cpu"}})");
  CHECK(e.per_gpu.gradients == 4 * 6738415616.0);
  CHECK(e.per_gpu.optimizer_states == 0);
  CHECK(e.per_gpu.model_states == 40430493696.0);
}

TEST_CASE("the optimizer implementation sets the step's temporaries", "[optimizer]") {
  // Llama-2-7B in fp32 on one GPU (fp32 gradients, no upcast). foreach AdamW takes the square root
  // of every second moment at once: 6,738,415,616 x 4 B = 26,953,662,464 B; the for-loop path one
  // tensor at a time, the largest being the 32,000 x 4,096 embedding: 524,288,000 B; fused none.
  auto step = [](const char* impl) {
    return buffers_of(setup_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "precision": {"param_dtype": "fp32",
      "optimizer_implementation": ")" + std::string(impl) + R"("}})")).optimizer_step;
  };
  CHECK(step("foreach") == 26953662464.0);
  CHECK(step("for_loop") == 524288000.0);
  CHECK(step("fused") == 0.0);
  // Defaults: the HF Trainer's adamw_torch is foreach; torchtune's configs fuse.
  CHECK(optimizer_implementation(setup_from(R"({"model": {"num_parameters": 1e9}})")) == OptimizerImplementation::foreach);
  CHECK(optimizer_implementation(setup_from(R"({"model": {"num_parameters": 1e9}, "framework": "torchtune"})")) ==
        OptimizerImplementation::fused);
}

TEST_CASE("stepping in backward holds a tied head's gradient until the embedding's arrives", "[optimizer]") {
  // A 2-layer Llama, hidden 64, vocabulary 1,000, head tied to the embedding, bf16 on one GPU: the
  // embedding is 1,000 x 64 = 64,000 elements, so its bf16 gradient waiting through backward is
  // 64,000 x 2 B = 128,000 B. Untied, or stepped after backward (every gradient a model state),
  // nothing waits: 0.
  auto held = [](const char* tie, const char* in_backward) {
    return buffers_of(setup_from(std::string(R"({"model": {"hf_config": {"model_type": "llama", "hidden_size": 64,
      "intermediate_size": 128, "num_attention_heads": 4, "num_hidden_layers": 2, "vocab_size": 1000,
      "tie_word_embeddings": )") + tie + R"(}}, "framework": "torchtune", "precision": {"param_dtype": "bf16",
      "optimizer_in_backward": )" + in_backward + "}}")).tied_head_gradient;
  };
  CHECK(held("true", "true") == 128000.0);
  CHECK(held("false", "true") == 0.0);
  CHECK(held("true", "false") == 0.0);
}

TEST_CASE("every rank loading the whole checkpoint holds a copy in host RAM", "[host]") {
  // Llama-2-7B in bf16, 8 ranks on one node, full_copy_per_gpu: 8 x 6,738,415,616 x 2 B =
  // 107,814,649,856 B of host RAM; over a 100 GB node it does not fit.
  const auto e = estimate_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "model_loading": "full_copy_per_gpu",
    "batch": {"seq_length": 16}, "parallel": {"world_size": 8, "zero_stage": 3}, "checkpoint": {"node_ram_bytes": 100000000000}})");
  CHECK(e.cpu_bytes_per_node == 107814649856.0);
  CHECK(e.cpu_ram_fits == false);
  const auto meta = estimate_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "batch": {"seq_length": 16},
    "parallel": {"world_size": 8, "zero_stage": 3}})");
  CHECK(meta.cpu_bytes_per_node == 0);
}

TEST_CASE("compile's scope decides whether the loss keeps its fp32 buffers", "[compile]") {
  // HF-style full cross-entropy with the fp32 upcast: eager 10 B per logit in forward (16-bit logits
  // 2 + fp32 copy 4 + saved log-softmax 4); compiled with the loss 2 B (the 16-bit logits).
  auto per_logit = [](const std::string& compile) {
    const auto s = setup_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "torchtitan",
      "loss": {"implementation": "full"}, "compile": )" + compile + "}");
    return loss_memory(s, *s.model.architecture, Dtype::bf16, framework_behaviour(s)).bytes_per_logit_forward;
  };
  CHECK(per_logit("\"blocks\"") == 10.0);
  CHECK(per_logit("\"blocks_and_loss\"") == 2.0);
  // torchtitan compiles the loss with the blocks: since pytorch/torchtitan#1033 (2025-04-02), by
  // default in compile.components since #1608.
  CHECK(per_logit("true") == 2.0);
  CHECK(per_logit("false") == 10.0);
}

TEST_CASE("torchtune compiles a plain cross-entropy only where the recipe keeps compile_loss's wrapper", "[compile]") {
  // training.compile_loss returns torch.compile(loss) for a torch.nn.CrossEntropyLoss; only
  // lora_finetune_single_device.py assigns it back, so elsewhere the loss stays eager: 10 B per
  // logit in forward (16-bit logits 2 + fp32 copy 4 + saved log-softmax 4) against the compiled 2.
  // torchtune's own chunked loss is compiled in place in every recipe.
  auto per_logit = [](const std::string& rest, const std::string& compile = "true") {
    const auto s = setup_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "torchtune", "compile": )" + compile + ", " + rest + "}");
    return loss_memory(s, *s.model.architecture, Dtype::bf16, framework_behaviour(s)).bytes_per_logit_forward;
  };
  const std::string full = R"("loss": {"implementation": "full"})";
  CHECK(per_logit(full + R"(, "method": "full", "parallel": {"world_size": 1})") == 10.0);
  CHECK(per_logit(full + R"(, "method": "full", "parallel": {"world_size": 8, "zero_stage": 3})") == 10.0);
  CHECK(per_logit(full + R"(, "method": "lora", "parallel": {"world_size": 2, "zero_stage": 3})") == 10.0);
  CHECK(per_logit(full + R"(, "method": "lora", "parallel": {"world_size": 1})") == 2.0);
  CHECK(per_logit(full + R"(, "method": "full", "parallel": {"world_size": 1})", "\"blocks_and_loss\"") == 2.0);
  CHECK(per_logit(R"("loss": {"implementation": "chunked"}, "method": "full", "parallel": {"world_size": 1})") < 10.0);
}

TEST_CASE("FSDP and ZeRO-3 gather QLoRA's frozen linear weights as their 4-bit storage", "[qlora][fsdp]") {
  // torchao's NF4Tensor all-gathers its quantized data and scalers (fsdp_pre_all_gather), 4 bits +
  // 8 bits per 64 weights + 32 bits per 64 x 256 = 0.515869140625 B per weight. Llama-2-7B's layer:
  // linear weights 4 x 4096^2 + 3 x 4096 x 11008 = 202,375,168 -> 101,187,584 + 3,162,112 + 49,408
  // = 104,399,104 B, plus its two norms in bf16 (8,192 x 2 B) and its LoRA weights (r 8 on q_proj and
  // v_proj: 2 x 8 x 8,192 = 131,072 in bf16, 262,144 B): 104,677,632 B per gathered layer.
  // Forward holds two units (the current and the prefetched one) and one dequantized weight, the
  // largest linear (4096 x 11008 x 2 B = 90,177,536 B).
  const std::string small_vocab = R"({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 11008,
    "num_attention_heads": 32, "num_key_value_heads": 32, "num_hidden_layers": 32, "vocab_size": 32})";
  const std::string rest = R"(, "framework": "torchtune", "method": "qlora", "lora": {"r": 8, "target_modules": ["q_proj", "v_proj"]},
    "parallel": {"world_size": 2, "zero_stage": 3}})";
  // With a 32-token vocabulary the layer is the largest unit: 2 x 104,677,632 + 90,177,536.
  CHECK(buffers_of(setup_from(R"({"model": {"hf_config": )" + small_vocab + "}" + rest)).forward == 299532800.0);
  // With Llama-2's 32,000 tokens the 16-bit embedding (32,000 x 4096 x 2 B = 262,144,000 B) is the
  // largest unit: 2 x 262,144,000 + 90,177,536 = 614,465,536 B (in 16 bits the layer would be
  // 202,383,360 x 2 = 404,766,720 B per unit).
  CHECK(buffers_of(setup_from(R"({"model": {"hf_config": )" + kLlama2_7b + "}" + rest)).forward == 614465536.0);
  // DeepSpeed ZeRO-3 (PEFT's QLoRA with bitsandbytes' packed storage) with stage3_max_live_parameters
  // 1e8: max(1e8 x 2 B, the layer's 4-bit weights, norms and adapters, about 1.05e8 B) + the
  // 5e7-element prefetch bucket x 2 B + the
  // dequantized weight = 200,000,000 + 100,000,000 + 90,177,536 = 390,177,536 B, less the largest
  // module counted as a model state, a 4096 x 11008 linear packed at 0.5 B per weight (22,544,384 B):
  // 367,633,152 B; gathered in 16 bits the layer (404,766,720 B) would be the live set.
  CHECK(buffers_of(setup_from(R"({"model": {"hf_config": )" + small_vocab + R"(}, "framework": "deepspeed", "method": "qlora",
    "parallel": {"world_size": 2, "zero_stage": 3, "zero3_max_live_parameters": 1e8}})")).forward == 367633152.0);
  // bitsandbytes under FSDP keeps its quantization constants whole on every rank (quant_state, not a
  // parameter): a gathered layer is its packed weights, 101,187,584 B, the norms, 16,384 B, and the
  // adapters, 262,144 B. Two units and the dequantized weight: 2 x 101,466,112 + 90,177,536 =
  // 293,109,760 B.
  CHECK(buffers_of(setup_from(R"({"model": {"hf_config": )" + small_vocab + R"(}, "framework": "fsdp", "method": "qlora",
    "lora": {"r": 8, "target_modules": ["q_proj", "v_proj"]}, "parallel": {"world_size": 2, "zero_stage": 3, "sharding_engine": "fsdp2"}})")).forward == 293109760.0);
}

TEST_CASE("FSDP's backward holds one unit's gradient: a layer's adapters, or its whole flat parameter", "[lora][fsdp]") {
  // Llama-2-7B's layer with a 32-token vocabulary (so the layer is the largest unit), LoRA r = 8 on
  // q_proj and v_proj: 2 x 8 x (4096 + 4096) = 131,072 adapter parameters per layer, 4,194,304 in
  // all. Backward holds two gathered layers in bf16, adapters included (2 x (202,383,360 + 131,072)
  // x 2 B = 810,057,728 B), and two units' unsharded gradients.
  const std::string small_vocab = R"({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 11008,
    "num_attention_heads": 32, "num_key_value_heads": 32, "num_hidden_layers": 32, "vocab_size": 32})";
  const auto lora_on = [&](const std::string& framework, const std::string& parallel_extra) {
    return setup_from(R"({"model": {"hf_config": )" + small_vocab + R"(}, "framework": ")" + framework + R"(", "method": "lora",
      "lora": {"r": 8, "target_modules": ["q_proj", "v_proj"], "adapter_dtype": "bf16"},
      "parallel": {"world_size": 2, "zero_stage": 3)" + parallel_extra + "}}");
  };
  // FSDP2 (torchtune) shards per parameter and frozen weights get no gradient: a unit's gradient is
  // its layer's adapters, 2 x 131,072 x 2 B = 524,288 B (not the whole model's 4,194,304 adapters).
  CHECK(buffers_of(lora_on("torchtune", "")).backward == 810057728.0 + 524288.0);
  // FSDP1 with use_orig_params true wraps each decoder layer as one flat parameter whose gradient
  // covers the whole layer: 2 x (202,383,360 + 131,072) x 2 B = 810,057,728 B.
  CHECK(buffers_of(lora_on("fsdp", R"(, "sharding_engine": "fsdp", "gradient_sync": "every_micro_batch")")).backward ==
        810057728.0 + 810057728.0);
  // At SHARD_GRAD_OP (zero_stage 2) nothing is gathered and backward holds one unit's gradient
  // before its reduce-scatter: the whole flat layer under FSDP1, (202,383,360 + 131,072) x 2 B =
  // 405,028,864 B; a layer's adapters under FSDP2, 131,072 x 2 B = 262,144 B.
  const auto at_stage_2 = [&](const std::string& framework, const std::string& extra) {
    return setup_from(R"({"model": {"hf_config": )" + small_vocab + R"(}, "framework": ")" + framework + R"(", "method": "lora",
      "lora": {"r": 8, "target_modules": ["q_proj", "v_proj"], "adapter_dtype": "bf16"},
      "parallel": {"world_size": 2, "zero_stage": 2)" + extra + "}}");
  };
  CHECK(buffers_of(at_stage_2("fsdp", R"(, "sharding_engine": "fsdp", "gradient_sync": "every_micro_batch")")).backward == 405028864.0);
  CHECK(buffers_of(at_stage_2("torchtune", R"(, "gradient_sync": "every_micro_batch")")).backward == 262144.0);
}

TEST_CASE("FSDP gathers a layer's routed experts of this GPU's expert-parallel rank only", "[moe][fsdp]") {
  // Mixtral-8x7B's layer (hidden 4096, 32 heads, 8 KV heads, 8 experts of 3 x 4096 x 14336):
  // attention 2 x 4096^2 + 2 x 4096 x 1024 = 41,943,040, router 4096 x 8 = 32,768, norms 2 x 4096 =
  // 8,192, experts 8 x 176,160,768 = 1,409,286,144; 1,451,270,144 in all. torchtitan shards routed
  // experts over the data-parallel ranks within an expert-parallel group (parallelize.py apply_fsdp,
  // dp_mod_ep mesh), so at EP 8 one GPU gathers its one expert: 41,943,040 + 32,768 + 8,192 +
  // 176,160,768 = 218,144,768. Forward holds two gathered units in bf16: 872,579,072 B at EP 8,
  // 2 x 1,451,270,144 x 2 B = 5,805,080,576 B without expert parallelism.
  const std::string mixtral = R"({"model_type": "mixtral", "hidden_size": 4096, "intermediate_size": 14336,
    "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32, "vocab_size": 32000,
    "num_local_experts": 8, "num_experts_per_tok": 2})";
  const auto at_ep = [&](int ep) {
    return buffers_of(setup_from(R"({"model": {"hf_config": )" + mixtral + R"(}, "framework": "torchtitan",
      "parallel": {"world_size": 16, "zero_stage": 3, "expert_parallel_size": )" + std::to_string(ep) + "}}"));
  };
  CHECK(at_ep(8).forward == 872579072.0);
  CHECK(at_ep(1).forward == 5805080576.0);
}

TEST_CASE("autocast's 16-bit weight copies: every linear weight through backward, one layer at a time under full recompute",
          "[autocast]") {
  // Llama-2-7B in fp32 under the HF Trainer's --bf16 on one GPU: the forward caches a bf16 copy of
  // every weight a linear casts: the 32 layers' 202,375,168 linear weights (4 x 4096^2 + 3 x 4096 x
  // 11008) and the 32,000 x 4096 head, 6,476,005,376 + 131,072,000 = 6,607,077,376, x 2 B =
  // 13,214,154,752 B. The embedding and the norms (131,072,000 + 266,240 of the 6,738,415,616) are
  // no autocast input. Without recompute autograd keeps the copies through backward, the loss's
  // included. With every layer recomputed, backward holds the head's copy (never recomputed),
  // 131,072,000 x 2 = 262,144,000 B, and one recompute's: 202,375,168 x 2 = 404,750,336 B.
  const std::string base = R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "hf_trainer",
    "precision": {"param_dtype": "fp32", "compute_dtype": "bf16"}, "batch": {"seq_length": 16})";
  const auto none = buffers_of(setup_from(base + "}"));
  CHECK(none.forward == 13214154752.0);
  CHECK(none.backward == 13214154752.0);
  const auto full = buffers_of(setup_from(base + R"(, "activation_checkpointing": "full"})"));
  CHECK(full.forward == 13214154752.0);
  CHECK(full.backward == 262144000.0 + 404750336.0);
  CHECK(none.saved_weight_copies == 13214154752.0);
  CHECK(full.saved_weight_copies == 262144000.0);
  // Half the layers recomputed: the other half keep their copies through backward, 6,476,005,376
  // / 2 x 2 B = 6,476,005,376 B, with the head's 262,144,000 B and one recompute's 404,750,336 B.
  const auto some = buffers_of(setup_from(base + R"(, "activation_checkpointing": "full", "checkpointed_layers": 16})"));
  CHECK(some.backward == 6476005376.0 + 262144000.0 + 404750336.0);
}

TEST_CASE("autocast's saved weight copies are alive while the loss's backward runs", "[autocast][timeline]") {
  // Llama-2-7B fp32 weights under --bf16 on one GPU, 16 tokens: when backward starts at the loss,
  // autograd still holds every linear's bf16 copy (13,214,154,752 B, worked out above) beside the
  // weights, optimizer states and saved activations (the step's only micro-batch has built no
  // gradient yet), so that timeline point is at least those + copies; the head's backward, which
  // follows the loss's, adds its fp32 weight gradient (32,000 x 4,096 x 4 = 524,288,000 B) and the
  // working sets at 16 tokens under 100 MB.
  const auto e = estimate(setup_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "hf_trainer",
    "precision": {"param_dtype": "fp32", "compute_dtype": "bf16"}, "batch": {"seq_length": 16}})"), EstimateDetail::step);
  const auto point = std::find_if(e.timeline.begin(), e.timeline.end(), [](const TimelinePoint& p) { return p.phase == StepPoint::loss_backward; });
  REQUIRE(point != e.timeline.end());
  const double floor = e.per_gpu.parameters + e.per_gpu.optimizer_states + *e.per_gpu.activations + 13214154752.0;
  CHECK(point->allocated >= floor);
  CHECK(point->allocated >= floor + 524288000.0);
  CHECK(point->allocated < floor + 524288000.0 + 1e8);
}

TEST_CASE("FSDP's MixedPrecision hands the forward 16-bit weights: no autocast copies at any sharding stage", "[autocast][fsdp]") {
  // FSDP SHARD_GRAD_OP over fp32 weights with bf16 compute casts the flat parameter itself
  // (MixedPrecision param_dtype), so the forward holds no autocast cache; the same run under DDP
  // (no sharding) caches the 13,214,154,752 B of linear-weight copies worked out above.
  const std::string base = R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "precision": {"param_dtype": "fp32",
    "compute_dtype": "bf16"}, "batch": {"seq_length": 16}, )";
  CHECK(buffers_of(setup_from(base + R"("framework": "fsdp", "parallel": {"world_size": 2, "zero_stage": 2}})")).forward == 0.0);
  CHECK(buffers_of(setup_from(base + R"("framework": "hf_trainer", "parallel": {"world_size": 2, "zero_stage": 0}})")).forward ==
        13214154752.0);
}

TEST_CASE("QLoRA's 4-bit weights are no autocast input: they get no 16-bit copies", "[autocast][qlora]") {
  // Llama-2-7B QLoRA (r 16 on q_proj and v_proj) with its unquantized weights in fp32 under --bf16:
  // the 6,476,005,376 4-bit layer weights (32 x 202,375,168) are dequantized by bitsandbytes; the
  // linears left to autocast are the adapters, 32 x 2 x 16 x (4096 + 4096) = 8,388,608, and the
  // 32,000 x 4096 head, 131,072,000: 139,460,608 x 2 B = 278,921,216 B. The forward also holds the
  // dequantization workspace of the largest linear, 4,096 x 11,008 x 2 B = 90,177,536 B.
  const auto b = buffers_of(setup_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "hf_trainer",
    "method": "qlora", "lora": {"r": 16}, "precision": {"param_dtype": "fp32", "compute_dtype": "bf16"},
    "batch": {"seq_length": 16}})"));
  CHECK(b.forward == 278921216.0 + 90177536.0);
}
