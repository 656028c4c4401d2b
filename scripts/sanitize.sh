#!/usr/bin/env bash
# Builds and runs the test suite under a sanitizer, each in a scratch path of its own so the
# ordinary .build stays as it is (see docs/hardening.md).
#   scripts/sanitize.sh address [swift test options]    ASan + LeakSanitizer, in .build-asan
#   scripts/sanitize.sh thread  [swift test options]    TSan, in .build-tsan
# e.g. scripts/sanitize.sh thread --filter ReshapeServerTests
# The integration tests start the sanitized `reshape serve` too; every report, from the test
# process or a child, goes to a log file, and any log file fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 1 ] || usage
sanitizer=$1
shift
case $sanitizer in
  address) scratch=.build-asan ;;
  thread) scratch=.build-tsan ;;
  *) usage ;;
esac

logs=$PWD/$scratch/sanitizer-logs
rm -rf "$logs"
mkdir -p "$logs"
# The children inherit these (the test harness passes its environment on). log_path keeps a
# child's report from vanishing into output the harness only shows when a test fails.
export ASAN_OPTIONS="log_path=$logs/asan:detect_leaks=1"
export LSAN_OPTIONS="suppressions=$PWD/scripts/sanitizers/lsan.supp:print_suppressions=0"
# A drain that runs out of time exits on purpose with its workers still running (exit 3): not
# a leaked thread, and TSan's default 1 s sleep at exit would let them answer what was cut.
export TSAN_OPTIONS="log_path=$logs/tsan:report_thread_leaks=0:atexit_sleep_ms=0"
# The Swift runtime's backtracer would race the sanitizer's own report on a crash.
export SWIFT_BACKTRACE=enable=no

status=0
# The test bundle and the executables it runs, as scripts/test.sh builds them: not the
# benchmark executables or swift-argument-parser's plugin tools.
swift build --product ReshapePackageTests --sanitize="$sanitizer" --scratch-path "$scratch" >"$scratch/build.log" 2>&1 ||
  status=$?
if [ "$status" -ne 0 ]; then
  grep -E "error:" "$scratch/build.log" >&2 || tail -20 "$scratch/build.log" >&2
  echo "sanitize: build failed; full log: $scratch/build.log" >&2
  exit "$status"
fi
grep -E "^Build (of product .*)?complete" "$scratch/build.log" || true
swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" --disable-swift-testing "$@" \
  >"$scratch/test.log" 2>&1 || status=$?
grep -E "^(Test Suite 'All tests'|	 Executed [0-9]+ tests)" "$scratch/test.log" | tail -3 || true
# Which tests failed and why, where CI shows only this script's output.
grep -E "error: |^Test Case .* failed \(" "$scratch/test.log" | head -40 >&2 || true

reports=$(find "$logs" -type f | sort)
if [ -n "$reports" ]; then
  for report in $reports; do
    echo "== $report" >&2
    head -60 "$report" >&2
  done
  echo "sanitize: $sanitizer reported problems (above; test output in $scratch/test.log)" >&2
  exit 1
fi
if [ "$status" -ne 0 ]; then
  echo "sanitize: tests failed under $sanitizer (exit $status); output in $scratch/test.log" >&2
  exit "$status"
fi
echo "sanitize: $sanitizer: no reports"
