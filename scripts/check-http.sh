#!/usr/bin/env bash
# Checks Reshape's answers with someone else's reading of HTTP: REDbot (redbot.org), the HTTP
# linter, run against the live demo. Builds nothing: it takes the debug binaries (or the
# directory given), starts the demo upstream and `reshape serve --rules examples/rules` on free
# loopback ports, and runs `redbot -o har` on
#   /users        a route without `cache:`  (no-cache, revalidated by its ETag)
#   /my/users     a route with `cache:` that forwards Authorization (private, max-age, Vary)
#   /users/-Nx0   a problem answer          (404, no-store)
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
upstream_pid="" reshape_pid=""
stop() {
  for pid in $reshape_pid $upstream_pid; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in $reshape_pid $upstream_pid; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap stop EXIT

echo "check-http: starting the demo upstream and reshape serve"
"$bin/reshape-demo-upstream" --listen 127.0.0.1:0 >"$work/upstream.out" 2>&1 &
upstream_pid=$!
for _ in $(seq 100); do grep -q '^listening on ' "$work/upstream.out" && break; sleep 0.1; done
upstream_port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$work/upstream.out")
[ -n "$upstream_port" ] || { echo "check-http: the demo upstream did not start: $(cat "$work/upstream.out")" >&2; exit 1; }

DEMO_UPSTREAM_URL="http://127.0.0.1:$upstream_port" \
  "$bin/reshape" serve --rules examples/rules --listen 127.0.0.1:0 --compress-min-bytes 256 >"$work/reshape.log" 2>&1 &
reshape_pid=$!
address=""
for _ in $(seq 150); do
  kill -0 "$reshape_pid" 2>/dev/null || { echo "check-http: reshape serve exited:" >&2; cat "$work/reshape.log" >&2; exit 1; }
  address=$("$py" - "$work/reshape.log" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    try:
        event = json.loads(line)
    except ValueError:
        continue
    if event.get("message") == "listening":
        print(event["address"])
        break
PY
) || true
  [ -n "$address" ] && [ "$(curl -s -o /dev/null -w '%{http_code}' "http://$address/_reshape/ready" || true)" = 200 ] && break
  address=""
  sleep 0.2
done
[ -n "$address" ] || { echo "check-http: reshape serve did not become ready:" >&2; cat "$work/reshape.log" >&2; exit 1; }

failed=0
for path in /users /my/users /users/-Nx0; do
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
