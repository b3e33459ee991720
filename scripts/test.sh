#!/usr/bin/env bash
# Sets up, builds, and runs every suite: Catch2 + CLI checks (ctest), the WASM module in Node
# (node --test), and the page in Chromium (Playwright). Ends with one "N passed, N failed" line.
set -uo pipefail
cd "$(dirname "$0")/.."
if ! scripts/setup.sh || ! scripts/build.sh; then
  echo "set-up or build failed"
  echo "0 passed, 1 failed"
  exit 1
fi
mkdir -p test-results
passed=0; failed=0

ctest --test-dir build-native --output-on-failure --no-tests=error | tee test-results/ctest.log
ctest_line=$(grep -E 'tests passed, [0-9]+ tests failed out of' test-results/ctest.log | tail -1)
if [ -n "$ctest_line" ]; then
  total=$(echo "$ctest_line" | sed -E 's/.* out of ([0-9]+).*/\1/')
  bad=$(echo "$ctest_line" | sed -E 's/.*passed, ([0-9]+) tests failed.*/\1/')
  passed=$((passed + total - bad)); failed=$((failed + bad))
else
  failed=$((failed + 1))
fi

node --test tests-js/ | tee test-results/node.log
node_pass=$(grep -E '^(# |ℹ )pass ' test-results/node.log | tail -1 | awk '{print $NF}')
node_fail=$(grep -E '^(# |ℹ )fail ' test-results/node.log | tail -1 | awk '{print $NF}')
passed=$((passed + ${node_pass:-0})); failed=$((failed + ${node_fail:-1}))

PLAYWRIGHT_JSON_OUTPUT_NAME=test-results/e2e.json npx playwright test --reporter=list,json
e2e=$(node -e 'try{const s=require("./test-results/e2e.json").stats;console.log(s.expected+" "+(s.unexpected+s.flaky))}catch(e){console.log("0 1")}')
passed=$((passed + ${e2e% *})); failed=$((failed + ${e2e#* }))

echo "${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
