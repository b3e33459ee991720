#!/usr/bin/env bash
# Builds the libFuzzer targets (build-sanitize/: scripts/sanitize_build.sh) and runs each.
#   Default (the test command): the same run every time: libFuzzer seed 1 and a fixed number of
#     executions per target (runs_of below: about 10 s each on a 2-core machine under ASan), so the
#     test command's verdict never depends on chance or on the machine's speed; a run that reaches
#     FUZZ_CAP_SECONDS (default 150) first stops there.
#   Exploring: FUZZ_SECONDS=600 runs each target that long from a seed libFuzzer picks (FUZZ_SEED
#     sets one), the way new findings are made.
# Each target reads three folders:
#   build-sanitize/corpus/<target>/   the corpus libFuzzer grows: kept between exploring runs;
#                                     emptied before each default run, so it starts where CI does
#   build-sanitize/seeds/<target>/    seeds written afresh from the fixtures and the catalog
#   fuzz/regressions/<target>/    committed inputs that once crashed or hung (ctest replays them too)
# An input that runs longer than FUZZ_INPUT_TIMEOUT seconds is a hang (default 5; solve_document 60:
# its largest search the work meter allows, 2,000,000 pipeline-stage estimates, takes 0.7 s in the
# Release CLI and about 25 times that under ASan + UBSan, e.g.
# fuzz/regressions/solve_document/strategy_search_5040_everything.json). A crash, a
# sanitizer report, a hang, a leak or an out-of-memory input is saved as
# fuzz/crashes/<target>-<kind>-<sha1>: fix the cause, then commit the input under
# fuzz/regressions/<target>/ with a name that says what it was.
# FUZZ_TARGETS="a b" runs only those targets. The targets run one at a time.
# Prints, per target, the command it ran and one line
#   fuzz_<target>: <executions> executions in <seconds> s, <findings> findings, load <1-min load average at the end>
# then one line "N passed, N failed" (a target passes when its run ended without a finding).
set -uo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-}"
# libFuzzer -seed: 0 lets it pick one from the clock.
seed="${FUZZ_SEED:-$([ -n "$seconds" ] && echo 0 || echo 1)}"
# Executions per target in the default run (the solve document runs whole strategy searches).
runs_of() {
  case "$1" in
    estimate_document) echo 15000 ;;
    hf_config) echo 20000 ;;
    solve_document) echo 200 ;;
    import_document) echo 8000 ;;
    *) echo 3000 ;;
  esac
}
# Seconds per input before an input counts as a hang, per target (see above).
input_timeout_of() {
  if [ -n "${FUZZ_INPUT_TIMEOUT:-}" ]; then echo "$FUZZ_INPUT_TIMEOUT"
  elif [ "$1" = solve_document ]; then echo 60
  else echo 5
  fi
}
targets="${FUZZ_TARGETS:-estimate_document hf_config solve_document import_document import_files}"
# shellcheck disable=SC2086
scripts/sanitize_build.sh $(printf 'fuzz_%s ' $targets) || { echo "0 passed, 1 failed"; exit 1; }
rm -rf build-sanitize/seeds && python3 fuzz/make_corpus.py build-sanitize/seeds
mkdir -p fuzz/crashes
passed=0; failed=0
for target in $targets; do
  input_timeout=$(input_timeout_of "$target")
  if [ -n "$seconds" ]; then bounds=(-max_total_time="$seconds")
  else bounds=(-runs="$(runs_of "$target")" -max_total_time="${FUZZ_CAP_SECONDS:-150}")
    rm -rf "build-sanitize/corpus/${target}"
  fi
  mkdir -p "build-sanitize/corpus/${target}"
  command=(build-sanitize/fuzz/fuzz_${target} "${bounds[@]}" -seed="$seed" -timeout="$input_timeout" -max_len=16384
    -print_final_stats=1 -artifact_prefix="fuzz/crashes/${target}-"
    "build-sanitize/corpus/${target}" "build-sanitize/seeds/${target}" "fuzz/regressions/${target}")
  echo "== fuzz_${target}: ${bounds[*]}, seed ${seed}, ${input_timeout} s per input"
  echo "${command[*]}"
  start=$(date +%s)
  "${command[@]}" > "build-sanitize/${target}.log" 2>&1
  status=$?
  elapsed=$(( $(date +%s) - start ))
  grep -E "^#[0-9]+[[:space:]]+(INITED|DONE)|stat::number_of_executed_units|stat::peak_rss" "build-sanitize/${target}.log"
  executions=$(grep -oE "stat::number_of_executed_units: [0-9]+" "build-sanitize/${target}.log" | awk '{print $2}')
  findings=$([ "$status" -eq 0 ] && echo 0 || echo "1 (a run stops at its first)")
  echo "fuzz_${target}: ${executions:-0} executions in ${elapsed} s, ${findings} findings, load $(cut -d' ' -f1 /proc/loadavg)"
  if [ "$status" -eq 0 ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "fuzz_${target} found a problem (exit status ${status}):"
    grep -E "ERROR|SUMMARY|ALARM|runtime error|Test unit written|artifact_prefix" "build-sanitize/${target}.log" | head -20
  fi
done
echo "${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
