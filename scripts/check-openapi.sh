#!/usr/bin/env bash
# Checks the OpenAPI export (docs/openapi.md) against the real thing. Builds nothing: it takes
# the debug binaries (or the directory given), then
#   1. `reshape openapi --rules examples/rules` (JSON and --yaml) passes openapi-spec-validator,
#      and the YAML reads back as the same document;
#   2. the demo upstream and `reshape serve --rules examples/rules` start on free loopback
#      ports; the document served at /_reshape/openapi.json (on the admin listener) is the
#      one the CLI printed;
#   2b. openapi-python-client generates a client from the document of every example rule set
#      (examples/rules, bench/peers/rules) without a warning (a warning means it left a part
#      of the API out of the client);
#   2c. swift-openapi-generator makes a Swift client from the examples' document, without a
#      warning, in the package scripts/openapi-swift-client (built in .build-swift-client: the
#      generator and its runtime take a couple of minutes the first time); against the live
#      server it walks the users route's client-query pages (fields, a filter, sort, limit,
#      the Link header's cursor) and checks the decoded records;
#   3. schemathesis runs against the live server with that document: every response must have
#      a documented status, its documented content type, and a body its schema accepts.
# Usage: scripts/check-openapi.sh [BIN_DIR]      (default .build/debug)
# Python tools come from the venv in .build-tools (installed on first use).
set -euo pipefail
cd "$(dirname "$0")/.."

bin=${1:-.build/debug}
for tool in reshape reshape-demo-upstream; do
  [ -x "$bin/$tool" ] || { echo "check-openapi: $bin/$tool is missing (run swift build first)" >&2; exit 1; }
done

tools=.build-tools/venv
if [ ! -x "$tools/bin/schemathesis" ] || [ ! -x "$tools/bin/openapi-spec-validator" ] \
  || [ ! -x "$tools/bin/openapi-python-client" ] || [ ! -x "$tools/bin/ruff" ]; then
  [ -x "$tools/bin/pip" ] || python3 -m venv "$tools"
  "$tools/bin/pip" install --quiet --disable-pip-version-check openapi-spec-validator schemathesis \
    openapi-python-client ruff
fi
py="$tools/bin/python"

work=$(mktemp -d)
. scripts/lib/demo-servers.sh
trap 'stop_demo_servers; rm -rf "$work"' EXIT

echo "check-openapi: the document"
"$bin/reshape" openapi --rules examples/rules >"$work/openapi.json"
"$bin/reshape" openapi --rules examples/rules --yaml >"$work/openapi.yaml"
"$tools/bin/openapi-spec-validator" "$work/openapi.json" "$work/openapi.yaml"
"$py" - "$work/openapi.json" "$work/openapi.yaml" <<'PY'
import json, sys, yaml
a = json.load(open(sys.argv[1]))
b = yaml.safe_load(open(sys.argv[2]))
assert a == b, "the --yaml document differs from the JSON one"
PY

echo "check-openapi: a generated Python client (openapi-python-client) for every example rule set"
for rules in examples/rules bench/peers/rules; do
  name=$(echo "$rules" | tr / -)
  "$bin/reshape" openapi --rules "$rules" >"$work/$name.json"
  # Its post-generation hooks run ruff, found on PATH.
  PATH="$PWD/$tools/bin:$PATH" "$tools/bin/openapi-python-client" generate --path "$work/$name.json" \
    --output-path "$work/client-$name" --overwrite >"$work/client-$name.out" 2>&1 \
    || { cat "$work/client-$name.out" >&2; echo "check-openapi: $rules: the client generator failed" >&2; exit 1; }
  if grep -qi "warning" "$work/client-$name.out"; then
    cat "$work/client-$name.out" >&2
    echo "check-openapi: $rules: openapi-python-client warned; its client leaves that part out" >&2
    exit 1
  fi
  "$tools/bin/python" -m compileall -q "$work/client-$name" >/dev/null
  echo "ok   $rules: $(find "$work/client-$name" -name '*.py' | wc -l) Python files, no warning"
done

echo "check-openapi: a generated Swift client (swift-openapi-generator) for examples/rules"
swift_client=scripts/openapi-swift-client
swift_scratch=.build-swift-client
# The generator's build plugin reads the document beside the target's sources; copied only when
# it changed, so an unchanged document rebuilds nothing.
swift_document=$swift_client/Sources/reshape-client-check/openapi.json
cmp -s "$work/openapi.json" "$swift_document" 2>/dev/null || cp "$work/openapi.json" "$swift_document"
swift_started=$SECONDS
swift build --package-path "$swift_client" --scratch-path "$swift_scratch" >"$work/swift-client.out" 2>&1 \
  || { tail -60 "$work/swift-client.out" >&2; echo "check-openapi: the generated Swift client did not build" >&2; exit 1; }
swift_bin=$(swift build --package-path "$swift_client" --scratch-path "$swift_scratch" --show-bin-path)
# The plugin prints its warnings only when it runs, which an unchanged document skips: ask the
# generator itself, every time.
"$swift_bin/swift-openapi-generator-tool" generate "$work/openapi.json" \
  --config "$swift_client/Sources/reshape-client-check/openapi-generator-config.yaml" \
  --output-directory "$work/swift-client-sources" >"$work/swift-generator.out" 2>&1 \
  || { cat "$work/swift-generator.out" >&2; echo "check-openapi: swift-openapi-generator failed" >&2; exit 1; }
if grep -qiE "(warning|error):" "$work/swift-generator.out"; then
  grep -iE "(warning|error):" "$work/swift-generator.out" >&2
  echo "check-openapi: swift-openapi-generator warned; its client leaves that part out" >&2
  exit 1
fi
echo "ok   examples/rules: a Swift client built, no warning ($((SECONDS - swift_started)) s)"

echo "check-openapi: starting the demo upstream and reshape serve"
start_demo_upstream "$bin" "$work"
start_reshape "$bin" "$work" --rules examples/rules --admin-listen 127.0.0.1:0

curl -sf "http://$admin/_reshape/openapi.json" >"$work/served.json"
"$py" - "$work/openapi.json" "$work/served.json" <<'PY'
import json, sys
assert json.load(open(sys.argv[1])) == json.load(open(sys.argv[2])), "/_reshape/openapi.json differs from `reshape openapi`"
PY
echo "check-openapi: /_reshape/openapi.json is the same document"

"$swift_bin/reshape-client-check" "http://$address"

# Checks: only what the document promises. not_a_server_error is left out: 502 and 504 are
# documented answers of a proxy (an upstream 4xx/5xx, a body that does not normalize), not
# Reshape's own failures. The negative_data_rejection / positive_data_acceptance checks are
# left out too: the schemas of path and query parameters are deliberately loose (anything
# the upstream might accept), so there is no "invalid" request for them to judge.
# One worker: with two, hypothesis describes strategies by ast.parse in two threads at once,
# and CPython 3.11 (Debian bookworm's) then fails at random with "SystemError: AST constructor
# recursion depth mismatch" (python/cpython#106905), a runtime error of the tool, not of ours.
echo "check-openapi: schemathesis against http://$address"
schemathesis="$PWD/$tools/bin/schemathesis"
status=0
(
  cd "$work"  # its .hypothesis directory goes away with the rest
  "$schemathesis" run "$work/openapi.json" --url "http://$address" \
    --checks status_code_conformance,content_type_conformance,response_schema_conformance \
    --max-examples 25 --seed 12 --workers 1 --request-timeout 10 --no-shrink --warnings off
) >"$work/schemathesis.out" 2>&1 || status=$?
tail -40 "$work/schemathesis.out"
if [ "$status" -ne 0 ]; then
  grep -q "Runtime Error" "$work/schemathesis.out" \
    && echo "check-openapi: schemathesis itself failed (a Runtime Error above, not a finding)" >&2
  echo "check-openapi: schemathesis found responses the document does not describe; reshape's log:" >&2
  tail -50 "$work/reshape.log" >&2
  exit 1
fi
echo "check-openapi: ok"
