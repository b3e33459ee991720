#!/usr/bin/env bash
# Builds the engine and its Catch2 tests with AddressSanitizer and UndefinedBehaviorSanitizer
# (build-asan/) and runs them; any report fails the run. Prints ctest's summary.
set -uo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRAINMEM_SANITIZE=address,undefined >/dev/null &&
  cmake --build build-asan -j2 --target engine_tests trainmem accuracy time_accuracy || exit 1
ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure --no-tests=error
