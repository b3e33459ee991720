#!/usr/bin/env bash
# Sets up, builds, and runs every suite: Catch2 + CLI checks + the accuracy table + the fuzz
# regression inputs (ctest), the same tests under ASan/UBSan, a short libFuzzer run of each fuzz
# target, the page's type check (tsc --checkJs over web/src), the WASM module and the page's modules
# in Node (node --test), and the page in Chromium (Playwright). Ends with one "N passed, N failed"
# line; a test that was listed but did not run, a skip, or a suite that reports nothing counts as
# a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
# Prints how long the phase that just ended took ("time: <phase> <seconds> s"), so a slow run shows
# where its minutes went.
phase_start=$SECONDS
phase_done() { echo "time: $1 $((SECONDS - phase_start)) s"; phase_start=$SECONDS; }
if ! scripts/setup.sh; then echo "set-up failed"; echo "0 passed, 1 failed"; exit 1; fi
phase_done set-up
if ! scripts/build.sh; then echo "build failed"; echo "0 passed, 1 failed"; exit 1; fi
phase_done build
rm -rf test-results && mkdir -p test-results
passed=0; failed=0

# Adds a log's last "N passed, N failed" line to the totals (none: one failure).
add_summary() {
  local line
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -1)
  if [ -z "$line" ]; then failed=$((failed + 1)); return; fi
  passed=$((passed + $(echo "$line" | awk '{print $1}'))); failed=$((failed + $(echo "$line" | awk '{print $3}')))
}

# Catch2 counts its cases (tests/run_every_case.cmake); every other ctest test counts once.
ctest --test-dir build-native -j2 --output-on-failure --no-tests=error --output-junit "$PWD/test-results/ctest.xml" \
  | tee test-results/ctest.log
scripts/ctest-summary.py test-results/ctest.xml | tee -a test-results/ctest.log
add_summary test-results/ctest.log
phase_done ctest
# The accuracy figures on the published cases (docs/accuracy.md has the whole table).
build-native/tests/accuracy tests/fixtures/measured_cases.json --summary | tee test-results/accuracy.log
# And on this project's own H200 runs (scripts/measure/README.md): development and held-out sets.
build-native/tests/accuracy tests/fixtures/measured_h200_hf_trainer.json --summary | grep -E "^(handed|outside)" \
  | sed -e 's/^handed figures/own H200 runs, development set/' -e 's/^outside the handed set/own H200 runs, held-out set/' \
  | tee -a test-results/accuracy.log
build-native/tests/time_accuracy tests/fixtures/throughput_h200_hf_trainer.json | grep -E "^step-time cases" \
  | sed -e 's/^step-time cases/own H200 runs, step-time cases/' | tee -a test-results/accuracy.log
# Where the strategy search ranks the published layouts (README, "Figures").
build-native/tests/strategy_ranking tests/fixtures/throughput_cases.json | grep -E "^strategy ranking" | tee -a test-results/accuracy.log
phase_done accuracy
scripts/sanitize.sh 2>&1 | tee test-results/sanitize.log
add_summary test-results/sanitize.log
phase_done sanitizers
scripts/fuzz.sh 2>&1 | tee test-results/fuzz.log
add_summary test-results/fuzz.log
phase_done fuzz

# The page's modules against their JSDoc types (web/tsconfig.json): one check.
if npx tsc -p web 2>&1 | tee test-results/tsc.log; then passed=$((passed + 1)); else failed=$((failed + 1)); fi

# Skipped, todo or cancelled tests and test files node does not pick up count as failures.
node --test tests-js/ > test-results/node.log 2>&1; cat test-results/node.log
node scripts/node-test-summary.js test-results/node.log | tee test-results/node-summary.log
add_summary test-results/node-summary.log
phase_done tsc-and-node

# Skipped tests, spec files that failed to load or ran nothing, and no tests count as failures.
PLAYWRIGHT_JSON_OUTPUT_NAME=test-results/e2e.json npx playwright test --reporter=list,json
node scripts/playwright-summary.js test-results/e2e.json | tee test-results/e2e-summary.log
add_summary test-results/e2e-summary.log
phase_done e2e

echo "${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
