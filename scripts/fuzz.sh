#!/usr/bin/env bash
# Builds and runs Reshape's libFuzzer targets (fuzz/Package.swift); see docs/hardening.md.
#   scripts/fuzz.sh --list              the target names
#   scripts/fuzz.sh TARGET SECONDS      build, then fuzz TARGET for SECONDS
#   scripts/fuzz.sh all SECONDS         build, then fuzz every target for SECONDS each, one per core
# Exits non-zero when a target crashes, trips ASan or breaks one of its properties; the input
# is saved as fuzz/crashes/TARGET-crash-<sha1> (or -timeout-, -leak-, -oom-). Replay one with
#   .build-fuzz/debug/fuzz-TARGET fuzz/crashes/FILE
# The corpus lives in fuzz/corpus/TARGET: committed seeds have readable names; what libFuzzer
# adds is named by its SHA-1 and ignored by git (fuzz/corpus/.gitignore).
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(json rules schema http url live auth)
scratch=.build-fuzz

usage() { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

build() {
  # Coverage and ASan for every Swift module, ReshapeYAML's composer included; libyaml itself
  # is Debian's shared library, so the rules target sees its events but not its branches.
  # lld, because gold cannot link the fuzzer runtime here.
  mkdir -p "$scratch"
  local status=0
  swift build --package-path fuzz --scratch-path "$scratch" -c debug \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld \
    -Xcc -fsanitize=fuzzer-no-link,address >"$scratch/build.log" 2>&1 || status=$?
  if [ "$status" -ne 0 ]; then
    grep -E "error:" "$scratch/build.log" >&2 || tail -20 "$scratch/build.log" >&2
    echo "fuzz: build failed; full log: $scratch/build.log" >&2
    exit "$status"
  fi
  grep -E "^Build (of product .*)?complete" "$scratch/build.log" || true
  for target in "${targets[@]}"; do
    [ -x "$scratch/debug/fuzz-$target" ] || { echo "fuzz: fuzz-$target was not built" >&2; exit 1; }
  done
}

run() {
  local target=$1 seconds=$2
  local corpus=fuzz/corpus/$target log=$scratch/logs/$target.log
  mkdir -p "$corpus" fuzz/crashes "$scratch/logs"
  local options=(-max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 -print_final_stats=1
                 -artifact_prefix="fuzz/crashes/$target-")
  [ -f "fuzz/dict/$target.dict" ] && options+=(-dict="fuzz/dict/$target.dict")
  echo "fuzz: $target for ${seconds}s ($(find "$corpus" -type f | wc -l) corpus files)"
  # The Swift runtime's backtracer would take over a crash and stall libFuzzer's own report.
  local status=0
  SWIFT_BACKTRACE=enable=no "$scratch/debug/fuzz-$target" "${options[@]}" "$corpus" >"$log" 2>&1 || status=$?
  if [ "$status" -ne 0 ]; then
    # The report: from the first error line (Swift trap, ASan, libFuzzer) to the end.
    awk '/Fatal error|ERROR: |fuzz property|==[0-9]+==/ { found = 1 } found' "$log" | head -80 >&2
    echo "fuzz: $target FAILED (exit $status); full log: $log" >&2
    return "$status"
  fi
  grep -E '^(stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb)' "$log" | tr '\n' ' '
  echo "corpus: $(find "$corpus" -type f | wc -l) files"
}

[ $# -ge 1 ] || usage
[ $# -lt 2 ] || [[ $2 =~ ^[0-9]+$ ]] || usage
case $1 in
  --list) printf '%s\n' "${targets[@]}" ;;
  all)
    [ $# -eq 2 ] || usage
    build
    # Each target is one process on one core: as many run side by side as there are cores,
    # and each one's report is printed whole, in the targets' order.
    failed=0 jobs=$(nproc) pids=() reports=()
    mkdir -p "$scratch/logs"
    finish_oldest() {
      if wait "${pids[0]}"; then cat "${reports[0]}"; else failed=1; cat "${reports[0]}" >&2; fi
      pids=("${pids[@]:1}") reports=("${reports[@]:1}")
    }
    for target in "${targets[@]}"; do
      # In an `||` list, as when run one after another: errexit stays off inside `run`, so a
      # failure is reported whole (its log's tail, then the FAILED line) before it returns.
      { run "$target" "$2" || exit "$?"; } >"$scratch/logs/$target.report" 2>&1 &
      pids+=($!) reports+=("$scratch/logs/$target.report")
      [ "${#pids[@]}" -lt "$jobs" ] || finish_oldest
    done
    while [ "${#pids[@]}" -gt 0 ]; do finish_oldest; done
    exit "$failed"
    ;;
  *)
    [ $# -eq 2 ] || usage
    [[ " ${targets[*]} " == *" $1 "* ]] || { echo "fuzz: unknown target '$1' (scripts/fuzz.sh --list)" >&2; exit 2; }
    build
    run "$1" "$2"
    ;;
esac
