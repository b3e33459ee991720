#!/usr/bin/env bash
# Builds the engine and its Catch2 tests with AddressSanitizer and UndefinedBehaviorSanitizer
# (build-sanitize/: scripts/sanitize_build.sh) and runs them; any report fails the run. Ends with "N passed, N failed" (Catch2
# cases counted one by one, scripts/ctest-summary.py).
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/sanitize_build.sh test_programs || { echo "0 passed, 1 failed"; exit 1; }
rm -f build-sanitize/ctest.xml
ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --test-dir build-sanitize -j2 --output-on-failure --no-tests=error --output-junit "$PWD/build-sanitize/ctest.xml"
scripts/ctest-summary.py build-sanitize/ctest.xml
