#!/usr/bin/env bash
# Builds the engine and its Catch2 tests with AddressSanitizer and UndefinedBehaviorSanitizer
# (build-asan/) and runs them; any report fails the run. Ends with "N passed, N failed" (Catch2
# cases counted one by one, scripts/ctest-summary.py).
set -uo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRAINMEM_SANITIZE=address,undefined >/dev/null &&
  cmake --build build-asan -j2 --target test_programs || { echo "0 passed, 1 failed"; exit 1; }
rm -f build-asan/ctest.xml
ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure --no-tests=error --output-junit "$PWD/build-asan/ctest.xml"
scripts/ctest-summary.py build-asan/ctest.xml
