#!/usr/bin/env python3
"""Seed corpora for the fuzz targets from the repository's fixtures and catalog.

  fuzz/make_corpus.py OUT_DIR   -> OUT_DIR/estimate_document/*, OUT_DIR/hf_config/*
"""
import glob
import json
import os
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
out = sys.argv[1]
documents, configs = [], []
for path in sorted(glob.glob(os.path.join(root, "tests", "fixtures", "*.json"))):
    data = json.load(open(path))
    if isinstance(data, dict) and "cases" in data:
        documents += [c["document"] for c in data["cases"] if c.get("document")]
    elif isinstance(data, dict) and "model" in data:
        documents.append(data)
for path in sorted(glob.glob(os.path.join(root, "catalog", "models", "*.json"))):
    entry = json.load(open(path))
    configs.append(entry["hf_config"])
    documents.append({"model": {"preset": entry["id"]}, "method": "lora", "gpu": "h100-sxm-80gb"})
for name, items in (("estimate_document", documents), ("hf_config", configs)):
    folder = os.path.join(out, name)
    os.makedirs(folder, exist_ok=True)
    for i, item in enumerate(items):
        with open(os.path.join(folder, f"seed_{i:04d}.json"), "w") as f:
            json.dump(item, f)
print(f"corpus: {len(documents)} estimate documents, {len(configs)} configs in {out}")
