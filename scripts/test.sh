#!/usr/bin/env bash
# Sets up, builds, and runs every suite: Catch2 + CLI checks + the accuracy table (ctest), the
# same tests under ASan/UBSan, a short libFuzzer run of each fuzz target, the page's type check
# (tsc --checkJs over web/src), the WASM module and the page's modules in Node (node --test), and the
# page in Chromium (Playwright). Ends with one "N passed, N failed" line.
set -uo pipefail
cd "$(dirname "$0")/.."
if ! scripts/setup.sh || ! scripts/build.sh; then
  echo "set-up or build failed"
  echo "0 passed, 1 failed"
  exit 1
fi
mkdir -p test-results
passed=0; failed=0

# Adds a ctest log's "N% tests passed, F tests failed out of T" to the totals.
add_ctest() {
  local line total bad
  line=$(grep -E 'tests passed, [0-9]+ tests failed out of' "$1" | tail -1)
  if [ -z "$line" ]; then failed=$((failed + 1)); return; fi
  total=$(echo "$line" | sed -E 's/.* out of ([0-9]+).*/\1/')
  bad=$(echo "$line" | sed -E 's/.*passed, ([0-9]+) tests failed.*/\1/')
  passed=$((passed + total - bad)); failed=$((failed + bad))
}
# Adds a log's last "N passed, N failed" line to the totals.
add_summary() {
  local line
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -1)
  if [ -z "$line" ]; then failed=$((failed + 1)); return; fi
  passed=$((passed + $(echo "$line" | awk '{print $1}'))); failed=$((failed + $(echo "$line" | awk '{print $3}')))
}

ctest --test-dir build-native --output-on-failure --no-tests=error | tee test-results/ctest.log
add_ctest test-results/ctest.log
# The accuracy figures on the published cases (docs/accuracy.md has the whole table).
build-native/tests/accuracy tests/fixtures/measured_cases.json --summary | tee test-results/accuracy.log
scripts/sanitize.sh 2>&1 | tee test-results/sanitize.log
add_ctest test-results/sanitize.log
scripts/fuzz.sh 2>&1 | tee test-results/fuzz.log
add_summary test-results/fuzz.log

# The page's modules against their JSDoc types (web/tsconfig.json): one check.
if npx tsc -p web 2>&1 | tee test-results/tsc.log; then passed=$((passed + 1)); else failed=$((failed + 1)); fi

node --test tests-js/ | tee test-results/node.log
node_pass=$(grep -E '^(# |ℹ )pass ' test-results/node.log | tail -1 | awk '{print $NF}')
node_fail=$(grep -E '^(# |ℹ )fail ' test-results/node.log | tail -1 | awk '{print $NF}')
passed=$((passed + ${node_pass:-0})); failed=$((failed + ${node_fail:-1}))

PLAYWRIGHT_JSON_OUTPUT_NAME=test-results/e2e.json npx playwright test --reporter=list,json
# No test found (or no report) counts as a failure.
e2e=$(node -e 'try{const s=require("./test-results/e2e.json").stats;console.log(s.expected+" "+(s.unexpected+s.flaky+(s.expected?0:1)))}catch(e){console.log("0 1")}')
passed=$((passed + ${e2e% *})); failed=$((failed + ${e2e#* }))

echo "${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
