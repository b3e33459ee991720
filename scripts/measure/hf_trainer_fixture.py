#!/usr/bin/env python3
"""Turn hf_trainer_peak.py's results (JSON lines) into measured cases for the accuracy program.

Usage: python3 scripts/measure/hf_trainer_fixture.py [--step-times] DEVELOPMENT.jsonl HELD_OUT.jsonl... > FIXTURE.json

Memory cases for tests/fixtures/measured_h200_hf_trainer.json; with --step-times, step-time cases
for tests/fixtures/throughput_h200_hf_trainer.json (measured_step_seconds: the median wall time of
the optimizer steps after the first, which compiles kernels and builds the optimizer's state).

DEVELOPMENT.jsonl holds the runs the engine was changed against; each HELD_OUT.jsonl runs measured
afterwards to check those changes, marked split "outside" (the accuracy program prints their
figures apart).

Each run becomes one case comparing per_gpu.peak_allocated with
torch.cuda.max_memory_allocated(); the reserved peak, the memory in use at the
end, the CUDA context and the step times stay in the case as further readings.
The estimate document states what the run did, in docs/api.md's fields.
"""
import json
import statistics
import sys


def document(case):
    doc = {"model": {"preset": case["preset"]}, "framework": "hf_trainer", "method": case["method"]}
    fp32_weights = case["weights"] == "fp32"
    if case["method"] == "lora":
        lora = case["lora"]
        doc["lora"] = {"r": lora["r"], "lora_alpha": lora["lora_alpha"], "target_modules": lora["target_modules"],
                       "lora_dropout": lora["lora_dropout"], "adapter_dtype": "fp32"}
    state = "fp32" if fp32_weights or case["method"] == "lora" else "bf16"
    doc["precision"] = {"param_dtype": case["weights"], "grad_dtype": case["weights"], "compute_dtype": "bf16",
                        "master_weights": False, "optimizer": "adamw", "optimizer_state_dtype": state,
                        "optimizer_implementation": "fused" if case["optim"] == "adamw_torch_fused" else "foreach"}
    doc["batch"] = {"micro_batch_size": case["micro_batch_size"], "seq_length": case["seq_length"],
                    "gradient_accumulation_steps": case["gradient_accumulation_steps"]}
    doc["activation_checkpointing"] = "full" if case["gradient_checkpointing"] else "none"
    doc["attention"] = case["attention"]
    if "zero_grad_set_to_none" in case:
        doc["zero_grad_set_to_none"] = case["zero_grad_set_to_none"]
    doc["parallel"] = {"world_size": 1}
    doc["gpu"] = "h200-141gb"
    return doc


def step_time_case(case):
    steps = case["readings"]["step_seconds"][1:]
    out = {key: case[key] for key in ("id", "source", "document", "assumptions")}
    out["measured_step_seconds"] = statistics.median(steps)
    out["measured_how"] = "median wall time of the optimizer steps after the first (CUDA synchronised at each step's begin and end)"
    out["expressible"] = True
    return out  # one set: the step-time model was developed against none of these runs


def main():
    step_times = sys.argv[1] == "--step-times"
    paths = sys.argv[2:] if step_times else sys.argv[1:]
    cases = []
    runs = [(json.loads(line), path, index > 0) for index, path in enumerate(paths) for line in open(path)]
    for run, path, held_out in runs:
        if "error" in run:
            continue
        case = run["case"]
        versions = ", ".join(f"{k} {v}" for k, v in run["versions"].items())
        cases.append({
            "id": "h200-hf-" + case["id"],
            "source": "measured by this project: scripts/measure/hf_trainer_peak.py "
                      f"on one {run['device_name']} ({versions}); raw readings in {path}",
            "kind": "measured",
            "value_semantics": "peak_per_gpu",
            "measured_bytes": run["peak_allocated_bytes"],
            "compare_field": "per_gpu.peak_allocated",
            "compare_note": "torch.cuda.max_memory_allocated() over the whole run",
            "expressible": True,
            "readings": {k: run[k] for k in ("peak_reserved_bytes", "used_at_end_bytes", "cuda_context_bytes",
                                             "weights_bytes", "parameters", "trainable_parameters",
                                             "step_peaks_bytes", "step_seconds")},
            "document": document(case),
            "assumptions": [
                "random weights built from the preset's hf_config on the GPU; random token ids, every sample seq_length tokens (labels = input_ids)",
                "transformers.Trainer with bf16=True (autocast) and TrainingArguments.optim = " + case["optim"] + " (" + run["optimizer"] + ")",
                "gradient checkpointing non-reentrant" if case["gradient_checkpointing"] else "no gradient checkpointing",
                "PEFT LoRA adapters upcast to fp32 (get_peft_model's autocast_adapter_dtype=True)" if case["method"] == "lora" else "all parameters trainable",
            ],
            "confidence": "high",
        })
        if held_out:
            cases[-1]["split"] = "outside"
    if step_times:
        json.dump({"schema": 1, "source": "scripts/measure/README.md", "cases": [step_time_case(c) for c in cases]}, sys.stdout, indent=1)
    else:
        json.dump({"schema": 1, "field_notes": "Cases measured by this project; fields as in measured_cases.json. readings holds the run's other measurements (bytes, seconds).", "cases": cases}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
