#!/usr/bin/env python3
"""Measure the GPU memory and step time of Hugging Face Trainer runs on one GPU.

Usage (on a machine with a CUDA GPU, PyTorch, transformers, accelerate and peft):
    python3 scripts/measure/hf_trainer_peak.py scripts/measure/hf_trainer_cases.json OUT.jsonl [--deadline SECONDS]

Each case of the cases file (its "about" field documents the fields) runs in a
fresh Python process, so that every reading starts from an empty caching
allocator and a fresh CUDA context. The model is built from the catalog's
hf_config with random weights directly on the GPU (no download), wrapped with
PEFT when the case asks for LoRA, and trained by transformers.Trainer on random
token sequences of exactly seq_length tokens (labels = input_ids).

One JSON object per case is appended to OUT.jsonl (bytes and seconds):
    cuda_context_bytes   device memory in use after CUDA initialisation and
                         before any tensor (total - free from cudaMemGetInfo)
    weights_bytes        torch.cuda.memory_allocated() after the model (and
                         its adapters) is built
    peak_allocated_bytes torch.cuda.max_memory_allocated() over the whole run
    peak_reserved_bytes  torch.cuda.max_memory_reserved() over the whole run
    used_at_end_bytes    total - free at the end (what nvidia-smi would show)
    step_peaks_bytes     max_memory_allocated() read at the end of each step
    step_seconds         wall time of each optimizer step (CUDA synchronised)
    parameters, trainable_parameters, versions, and the case itself.
    kernel_profile       with the case field "profile_step": N, optimizer step N's CUDA
                         kernels (kernel_profile.py documents the summary)
A case that fails records its error instead.
"""
import json
import os
import subprocess
import sys
import time
import traceback


def build_config(preset):
    from transformers import AutoConfig

    with open(os.path.join("catalog", "models", preset + ".json")) as f:
        hf = json.load(f)["hf_config"]
    # rope_scaling only changes the rotary frequencies, never a tensor's size;
    # it is dropped so that configs written for older releases load everywhere.
    skip = {"model_type", "architectures", "transformers_version", "torch_dtype", "rope_scaling", "auto_map"}
    config = AutoConfig.for_model(hf["model_type"], **{k: v for k, v in hf.items() if k not in skip})
    config.use_cache = False
    return config


def build_model(case, config, torch):
    from transformers import AutoModelForCausalLM

    dtype = torch.bfloat16 if case["weights"] == "bf16" else torch.float32
    with torch.device("cuda"):
        try:
            model = AutoModelForCausalLM.from_config(config, dtype=dtype, attn_implementation=case["attention"])
        except TypeError:
            model = AutoModelForCausalLM.from_config(config, torch_dtype=dtype, attn_implementation=case["attention"])
    model.to(dtype)
    if case["method"] == "lora":
        from peft import LoraConfig, get_peft_model

        lora = dict(case["lora"])
        model = get_peft_model(model, LoraConfig(task_type="CAUSAL_LM", bias="none", **lora))
    return model


def run_one(case):
    import torch

    torch.cuda.init()
    torch.zeros(1, device="cuda")
    free, total = torch.cuda.mem_get_info()
    result = {"cuda_context_bytes": total - free - torch.cuda.memory_reserved(), "device_total_bytes": total,
              "device_name": torch.cuda.get_device_name()}

    import transformers
    from transformers import Trainer, TrainerCallback, TrainingArguments

    if case.get("zero_grad_set_to_none") is False:
        # PyTorch 1.x's default: gradients zeroed in place and kept between steps, for every
        # zero_grad the Trainer or the optimizer calls.
        for owner in (torch.nn.Module, torch.optim.Optimizer):
            original = owner.zero_grad
            owner.zero_grad = lambda self, set_to_none=True, _original=original: _original(self, set_to_none=False)
    config = build_config(case["preset"])
    model = build_model(case, config, torch)
    torch.cuda.synchronize()
    result["weights_bytes"] = torch.cuda.memory_allocated()
    result["parameters"] = sum(p.numel() for p in model.parameters())
    result["trainable_parameters"] = sum(p.numel() for p in model.parameters() if p.requires_grad)

    seq, vocab = case["seq_length"], config.vocab_size

    class RandomTokens(torch.utils.data.Dataset):
        def __len__(self):
            return case["micro_batch_size"] * case["gradient_accumulation_steps"] * (case["steps"] + 1)

        def __getitem__(self, i):
            ids = torch.randint(0, vocab, (seq,), generator=torch.Generator().manual_seed(i))
            return {"input_ids": ids, "labels": ids.clone()}

    class StepRecorder(TrainerCallback):
        def __init__(self):
            self.started = None
            self.seconds = []
            self.peaks = []

        def on_step_begin(self, args, state, control, **kwargs):
            torch.cuda.synchronize()
            self.started = time.perf_counter()

        def on_step_end(self, args, state, control, **kwargs):
            torch.cuda.synchronize()
            self.seconds.append(time.perf_counter() - self.started)
            self.peaks.append(torch.cuda.max_memory_allocated())

    gc = case["gradient_checkpointing"]
    args = TrainingArguments(
        output_dir="/tmp/hf_trainer_peak", per_device_train_batch_size=case["micro_batch_size"],
        gradient_accumulation_steps=case["gradient_accumulation_steps"], max_steps=case["steps"],
        learning_rate=1e-5, bf16=True, optim=case["optim"], gradient_checkpointing=gc,
        gradient_checkpointing_kwargs={"use_reentrant": False} if gc else None,
        logging_steps=1000, save_strategy="no", report_to="none", dataloader_num_workers=0,
        remove_unused_columns=False, disable_tqdm=True, seed=0)
    recorder = StepRecorder()
    callbacks = [recorder]
    if case.get("profile_step"):
        import kernel_profile

        callbacks.append(kernel_profile.callback(case["profile_step"], torch, TrainerCallback))
    trainer = Trainer(model=model, args=args, train_dataset=RandomTokens(), callbacks=callbacks)
    trainer.train()
    torch.cuda.synchronize()
    free, total = torch.cuda.mem_get_info()
    stats = torch.cuda.memory_stats()
    result.update({
        "peak_allocated_bytes": torch.cuda.max_memory_allocated(),
        "peak_reserved_bytes": torch.cuda.max_memory_reserved(),
        "used_at_end_bytes": total - free,
        "step_peaks_bytes": recorder.peaks, "step_seconds": recorder.seconds,
        "alloc_retries": stats.get("num_alloc_retries"), "ooms": stats.get("num_ooms"),
        "versions": {"torch": torch.__version__, "cuda": torch.version.cuda, "transformers": transformers.__version__,
                     "accelerate": __import__("accelerate").__version__, "peft": __import__("peft").__version__},
    })
    optimizer = getattr(trainer.optimizer, "optimizer", trainer.optimizer)
    if len(callbacks) > 1:
        result["kernel_profile"] = callbacks[1].summary
    result["optimizer"] = type(optimizer).__name__
    result["optimizer_defaults"] = {k: str(v) for k, v in getattr(optimizer, "defaults", {}).items()}
    return result


def main():
    if sys.argv[1] == "--one":
        case = json.loads(sys.argv[2])
        try:
            result = run_one(case)
        except Exception as error:  # recorded, never hidden: the case row carries it
            result = {"error": repr(error)[:2000], "traceback": traceback.format_exc()[-4000:]}
        print("RESULT " + json.dumps(result), flush=True)
        return
    cases_path, out_path = sys.argv[1], sys.argv[2]
    deadline = float(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--deadline" else 1e9
    started = time.time()
    with open(cases_path) as f:
        cases = json.load(f)["cases"]
    measured = 0
    for case in cases:
        left = deadline - (time.time() - started)
        if left < 20:
            print(f"SKIP {case['id']}: deadline", flush=True)
            continue
        t0 = time.time()
        try:
            proc = subprocess.run([sys.executable, __file__, "--one", json.dumps(case)], capture_output=True,
                                  text=True, timeout=min(left, 150))
            lines = [l for l in proc.stdout.splitlines() if l.startswith("RESULT ")]
            result = json.loads(lines[-1][7:]) if lines else {"error": "no result", "stderr": proc.stderr[-4000:]}
        except subprocess.TimeoutExpired:
            result = {"error": "timeout"}
        result["case"] = case
        result["wall_seconds"] = time.time() - t0
        with open(out_path, "a") as f:
            f.write(json.dumps(result) + "\n")
        gib = 2 ** 30
        if "error" in result:
            print(f"{case['id']}: ERROR {result['error'][:300]}", flush=True)
            if not measured:
                print("the first case failed: stopping (the script itself needs fixing)", flush=True)
                print(result.get("traceback", result.get("stderr", "")), flush=True)
                return
        else:
            measured += 1
            print(f"{case['id']}: alloc {result['peak_allocated_bytes'] / gib:.2f} GiB reserved "
                  f"{result['peak_reserved_bytes'] / gib:.2f} GiB ctx {result['cuda_context_bytes'] / gib:.2f} GiB "
                  f"steps {['%.3f' % s for s in result['step_seconds']]} ({result['wall_seconds']:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
