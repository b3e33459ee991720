#!/usr/bin/env bash
# Builds the libFuzzer targets (clang-14, ASan + UBSan) and runs each for FUZZ_SECONDS (default
# 25) from a corpus seeded with the fixtures and the catalog. Longer runs: FUZZ_SECONDS=3600.
# Prints libFuzzer's executions and coverage, then one line "N passed, N failed" (a target
# passes when it found no crash; crashes are saved as fuzz/crashes/<target>-*).
set -uo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-25}"
CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRAINMEM_FUZZ=ON \
  -DTRAINMEM_TESTS=OFF >/dev/null || { echo "0 passed, 1 failed"; exit 1; }
cmake --build build-fuzz -j2 --target fuzz_estimate_document fuzz_hf_config || { echo "0 passed, 1 failed"; exit 1; }
rm -rf build-fuzz/corpus && python3 fuzz/make_corpus.py build-fuzz/corpus
mkdir -p fuzz/crashes
passed=0; failed=0
for target in estimate_document hf_config; do
  mkdir -p "build-fuzz/corpus/${target}-work"
  echo "== fuzz_${target}: ${seconds} s"
  if build-fuzz/fuzz/fuzz_${target} -max_total_time="$seconds" -max_len=16384 -print_final_stats=1 \
       -artifact_prefix="fuzz/crashes/${target}-" "build-fuzz/corpus/${target}-work" "build-fuzz/corpus/${target}" \
       2>&1 | grep -E "^#[0-9]+[[:space:]]+(INITED|DONE)|stat::number_of_executed_units|stat::peak_rss|ERROR|SUMMARY"; then :; fi
  if ls fuzz/crashes/${target}-* >/dev/null 2>&1; then failed=$((failed + 1)); else passed=$((passed + 1)); fi
done
echo "${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
