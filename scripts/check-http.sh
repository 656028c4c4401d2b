#!/usr/bin/env bash
# Checks Reshape's answers with someone else's reading of HTTP: REDbot (redbot.org), the HTTP
# linter, run against the live demo. Builds nothing: it takes the debug binaries (or the
# directory given), starts the demo upstream and `reshape serve` with examples/rules and two
# routes of its own on free loopback ports, and runs `redbot -o har` on
#   /users               a route without `cache:`  (no-cache, revalidated by its ETag)
#   /shared/users        a route with `cache:`     (max-age, storable by shared caches)
#   /my/users            a route with `cache:` that forwards Authorization (private, max-age, Vary)
#   /keyed/users         a route without `cache:` that forwards X-Api-Key (private, no-cache, Vary)
#   /users/-Nx0          a problem answer          (404, no-store)
# Every note is printed; any note at level warn or bad fails the check. The server runs with
# --compress-min-bytes 256 so that these small example answers are compressed too, and
# REDbot's content-negotiation checks (gzip, Vary, per-coding ETag) have something to judge.
# Usage: scripts/check-http.sh [BIN_DIR]      (default .build/debug)
# REDbot comes from the venv in .build-tools (installed on first use).
set -euo pipefail
cd "$(dirname "$0")/.."

bin=${1:-.build/debug}
for tool in reshape reshape-demo-upstream; do
  [ -x "$bin/$tool" ] || { echo "check-http: $bin/$tool is missing (run swift build first)" >&2; exit 1; }
done

tools=.build-tools/venv
if [ ! -x "$tools/bin/redbot" ]; then
  [ -x "$tools/bin/pip" ] || python3 -m venv "$tools"
  "$tools/bin/pip" install --quiet --disable-pip-version-check redbot
fi
py="$tools/bin/python"

work=$(mktemp -d)
. scripts/lib/demo-servers.sh
trap 'stop_demo_servers; rm -rf "$work"' EXIT

echo "check-http: starting the demo upstream and reshape serve"
start_demo_upstream "$bin" "$work"
mkdir "$work/rules"
cp examples/rules/*.yaml "$work/rules/"
cat >"$work/rules/zz-http-check.yaml" <<'YAML'
routes:
  - { name: http-shared, request: GET /shared/users, upstream: demo, path: /users.json, cache: { ttl: 60s, upstream-cache-control: ignore }, transform: [] }
  - { name: http-keyed, request: GET /keyed/users, upstream: demo, path: /users.json, forward-headers: [X-Api-Key], transform: [] }
YAML
start_reshape "$bin" "$work" --rules "$work/rules" --compress-min-bytes 256

failed=0
for path in /users /shared/users /my/users /keyed/users /users/-Nx0; do
  echo "check-http: redbot http://$address$path"
  "$tools/bin/redbot" -o har "http://$address$path" >"$work/har.json"
  "$py" - "$work/har.json" <<'PY' || failed=1
import json, sys
entries = json.load(open(sys.argv[1]))["log"]["entries"]
bad = 0
for entry in entries:
    for note in entry.get("_red_messages", []):
        level = note["level"].lower()
        print(f"  {level:5} {note['note_id']}: {note['summary']}")
        if level in ("warn", "bad"):
            bad += 1
if not entries:
    print("  no entries: REDbot could not fetch the URL")
    bad += 1
sys.exit(1 if bad else 0)
PY
done
if [ "$failed" -ne 0 ]; then
  echo "check-http: REDbot has warnings or errors above" >&2
  exit 1
fi
echo "check-http: ok"
