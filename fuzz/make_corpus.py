#!/usr/bin/env python3
"""Seed inputs for the fuzz targets from the repository's fixtures and catalog.

  fuzz/make_corpus.py OUT_DIR
    -> OUT_DIR/estimate_document/*, OUT_DIR/hf_config/*, OUT_DIR/solve_document/*

scripts/fuzz.sh writes these afresh on every run, next to the committed regression inputs
(fuzz/regressions/<target>/) and the corpus libFuzzer grows between runs (build-fuzz/corpus/).
"""
import glob
import json
import os
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
out = sys.argv[1]
documents, configs, solves = [], [], []
for path in sorted(glob.glob(os.path.join(root, "tests", "fixtures", "*.json"))):
    data = json.load(open(path))
    if isinstance(data, dict) and "cases" in data:
        documents += [c["document"] for c in data["cases"] if c.get("document")]
    elif isinstance(data, dict) and "solve" in data:
        solves.append(data)
    elif isinstance(data, dict) and "model" in data:
        documents.append(data)
for path in sorted(glob.glob(os.path.join(root, "catalog", "models", "*.json"))):
    entry = json.load(open(path))
    configs.append(entry["hf_config"])
    documents.append({"model": {"preset": entry["id"]}, "method": "lora", "gpu": "h100-sxm-80gb"})
    solves.append({"model": {"preset": entry["id"]}, "gpu": "h100-sxm-80gb", "parallel": {"world_size": 8, "zero_stage": 3},
                   "solve": {"target_global_batch_size": 64, "strategies": {"world_size": 16, "limit": 3}}})
for name, items in (("estimate_document", documents), ("hf_config", configs), ("solve_document", solves)):
    folder = os.path.join(out, name)
    os.makedirs(folder, exist_ok=True)
    for i, item in enumerate(items):
        with open(os.path.join(folder, f"seed_{i:04d}.json"), "w") as f:
            json.dump(item, f)
print(f"seeds: {len(documents)} estimate documents, {len(configs)} configs, {len(solves)} solve documents in {out}")
