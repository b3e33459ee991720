"""Where one training step's time goes on the GPU: its CUDA kernels, as CUPTI records them.

Used by hf_trainer_peak.py when a case sets "profile_step": N (1-based optimizer step). That step
runs under torch.profiler with CUDA activity only (no CPU-side tracing, which would slow the host
and change what is measured); its kernels, copies and sets are read back from the profiler's Chrome
trace and summarised (seconds; times from the trace's microseconds):
    kernels, kernel_seconds        how many kernels ran and the sum of their durations
    busy_seconds                   the union of every kernel, copy and set interval: time the GPU
                                   was doing anything
    span_seconds                   first start to last end on the GPU
    idle_seconds                   span - busy: gaps in which the GPU waited for the host
    short_kernels, short_kernel_seconds   kernels under 10 microseconds
    by_category                    {category: {kernels, seconds}} by kernel name (CATEGORIES)
    top_kernels                    the 20 names with the most time: {name, kernels, seconds}
The profiled step's wall time is recorded with the others in step_seconds; compare the profile with
the unprofiled steps around it.
"""
import json
import os
import tempfile

# First match wins; names as cuBLAS, CUTLASS, FlashAttention, PyTorch's ATen kernels spell them.
CATEGORIES = [
    ("attention", ("flash", "fmha", "attention", "sdpa")),
    ("gemm", ("gemm", "cutlass", "xmma", "nvjet", "cublas", "splitk", "s16816", "wgmma")),
    ("optimizer", ("multi_tensor", "adam", "foreach")),
    ("softmax", ("softmax",)),
    ("reduction", ("reduce", "norm", "mean", "sum_")),
    ("copy_cast", ("copy", "cast", "to_", "cat", "index", "gather", "scatter")),
    ("elementwise", ("elementwise", "vectorized", "unrolled", "pointwise")),
]


def category(name):
    lower = name.lower()
    for label, keys in CATEGORIES:
        if any(k in lower for k in keys):
            return label
    return "other"


def summarise(events):
    """events: Chrome-trace events; returns the summary documented above."""
    gpu = [e for e in events if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    kernels = [e for e in gpu if e["cat"] == "kernel"]
    intervals = sorted((float(e["ts"]), float(e["ts"]) + float(e["dur"])) for e in gpu)
    busy, end = 0.0, None
    for start, stop in intervals:
        if end is None or start > end:
            busy += stop - start
            end = stop
        elif stop > end:
            busy += stop - end
            end = stop
    span = (max(s for _, s in intervals) - intervals[0][0]) if intervals else 0.0
    by_category, by_name = {}, {}
    for e in kernels:
        c = by_category.setdefault(category(e["name"]), {"kernels": 0, "seconds": 0.0})
        c["kernels"] += 1
        c["seconds"] += e["dur"] * 1e-6
        n = by_name.setdefault(e["name"][:160], {"kernels": 0, "seconds": 0.0})
        n["kernels"] += 1
        n["seconds"] += e["dur"] * 1e-6
    short = [e for e in kernels if e["dur"] < 10]
    top = sorted(by_name.items(), key=lambda kv: -kv[1]["seconds"])[:20]
    return {
        "kernels": len(kernels), "kernel_seconds": sum(e["dur"] for e in kernels) * 1e-6,
        "copies_and_sets": len(gpu) - len(kernels),
        "busy_seconds": busy * 1e-6, "span_seconds": span * 1e-6, "idle_seconds": (span - busy) * 1e-6,
        "short_kernels": len(short), "short_kernel_seconds": sum(e["dur"] for e in short) * 1e-6,
        "by_category": by_category, "top_kernels": [{"name": k, **v} for k, v in top],
    }


def callback(step, torch, TrainerCallback):
    """A Trainer callback that profiles optimizer step `step` (1-based); its .summary is filled
    after that step (None before)."""

    class KernelProfile(TrainerCallback):
        def __init__(self):
            self.profiler = None
            self.summary = None

        def on_step_begin(self, args, state, control, **kwargs):
            if state.global_step + 1 == step:
                torch.cuda.synchronize()
                self.profiler = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA])
                self.profiler.start()

        def on_step_end(self, args, state, control, **kwargs):
            if self.profiler is None:
                return
            torch.cuda.synchronize()
            self.profiler.stop()
            with tempfile.TemporaryDirectory() as folder:
                path = os.path.join(folder, "trace.json")
                self.profiler.export_chrome_trace(path)
                with open(path) as f:
                    trace = json.load(f)
            self.profiler = None
            events = trace["traceEvents"] if isinstance(trace, dict) else trace
            self.summary = summarise(events)

    return KernelProfile()
