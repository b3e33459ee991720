#!/usr/bin/env python3
"""Seed inputs for the fuzz targets from the repository's fixtures and catalog.

  fuzz/make_corpus.py OUT_DIR
    -> OUT_DIR/estimate_document/*, OUT_DIR/hf_config/*, OUT_DIR/solve_document/*,
       OUT_DIR/import_document/*, OUT_DIR/import_files/*

scripts/fuzz.sh writes these afresh on every run, next to the committed regression inputs
(fuzz/regressions/<target>/) and the corpus libFuzzer grows between runs (build-sanitize/corpus/).
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
# The import targets: each case of tests/fixtures/configs/<format>/expected.json names its files.
# import_files: the files joined by "\n#=#\n", each led by its kind (j, y, t, or s for a script);
# import_document: a WASM request; JSON files and scripts go as text, YAML files (which the page
# would parse first) only by their JSON siblings.
import_files, import_requests = [], []
for path in sorted(glob.glob(os.path.join(root, "tests", "fixtures", "configs", "*", "expected.json"))):
    folder = os.path.dirname(path)
    for case in json.load(open(path)).get("cases", []):
        texts = [(n, open(os.path.join(folder, n), encoding="utf-8").read()) for n in case.get("files", [])]
        kind = lambda n: "j" if n.endswith(".json") else "y" if n.endswith((".yaml", ".yml")) else "t" if n.endswith(".toml") else "s"
        import_files.append("\n#=#\n".join(kind(n) + t for n, t in texts))
        request = [{"name": os.path.basename(n), "text": t} for n, t in texts if kind(n) in "js"]
        if request:
            import_requests.append({"files": request, "model": case.get("model")} if case.get("model") else {"files": request})
for name, items in (("estimate_document", documents), ("hf_config", configs), ("solve_document", solves),
                    ("import_document", import_requests)):
    folder = os.path.join(out, name)
    os.makedirs(folder, exist_ok=True)
    for i, item in enumerate(items):
        with open(os.path.join(folder, f"seed_{i:04d}.json"), "w") as f:
            json.dump(item, f)
folder = os.path.join(out, "import_files")
os.makedirs(folder, exist_ok=True)
for i, text in enumerate(import_files):
    with open(os.path.join(folder, f"seed_{i:04d}.txt"), "w", encoding="utf-8") as f:
        f.write(text)
print(f"seeds: {len(import_files)} import file sets, {len(import_requests)} import requests;", end=" ")
print(f"seeds: {len(documents)} estimate documents, {len(configs)} configs, {len(solves)} solve documents in {out}")
