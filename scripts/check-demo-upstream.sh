#!/usr/bin/env bash
# Starts reshape-demo-upstream on a free port and checks every endpoint the quick start and the
# integration tests rely on: data shapes, fault modes, /echo, /_log, stored writes, Firebase event
# streams and their controls (/_demo/streams), and a clean exit on SIGTERM.
# Usage: scripts/check-demo-upstream.sh [path/to/reshape-demo-upstream]   (builds debug if omitted)
set -euo pipefail
cd "$(dirname "$0")/.."

bin=${1:-}
if [ -z "$bin" ]; then
  scratch=${SCRATCH_PATH:-.build}
  swift build --scratch-path "$scratch" --product reshape-demo-upstream >/dev/null
  bin="$scratch/debug/reshape-demo-upstream"
fi

out=$(mktemp)
streams=$(mktemp -d)
keep_alive=1  # seconds between keep-alive events, short so the check sees one soon
"$bin" --listen 127.0.0.1:0 --keep-alive "$keep_alive" >"$out" &
pid=$!
cleanup() {
  # A stream's curl may have ended already; under set -e a failed kill here would end the
  # script with status 1 after it said "all passed".
  for f in "$streams"/*.pid; do [ -f "$f" ] && { kill "$(cat "$f")" 2>/dev/null || true; }; done
  kill "$pid" 2>/dev/null || true
  rm -rf "$out" "$streams"
}
trap cleanup EXIT
for _ in $(seq 50); do grep -q '^listening on ' "$out" && break; sleep 0.1; done
port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$out")
[ -n "$port" ] || { echo "FAIL: no 'listening on HOST:PORT' line; got: $(cat "$out")"; exit 1; }
base="http://127.0.0.1:$port"
failures=0

# check NAME PYTHON-EXPRESSION CURL-ARGS... : the expression sees `status`, `headers` (lower-case
# names), `body` (bytes) and `doc` (parsed JSON or None) and must be true.
check() {
  local name=$1 expr=$2; shift 2
  local head body
  head=$(mktemp); body=$(mktemp)
  curl -sS -o "$body" -D "$head" "$@" || true
  if python3 - "$head" "$body" "$expr" <<'PY'
import json, sys
head, body_path, expr = sys.argv[1], sys.argv[2], sys.argv[3]
lines = open(head, encoding="latin-1", newline="").read().split("\r\n")
status = int(lines[0].split()[1]) if lines and lines[0] else 0
headers = {l.split(":", 1)[0].strip().lower(): l.split(":", 1)[1].strip() for l in lines[1:] if ":" in l}
body = open(body_path, "rb").read()
try:
    doc = json.loads(body)
except Exception:
    doc = None
sys.exit(0 if eval(expr) else 1)
PY
  then echo "ok   $name"; else echo "FAIL $name"; failures=$((failures + 1)); fi
  rm -f "$head" "$body"
}

check "users: keyed by 20-char push ids, with corrupt records" \
  'status == 200 and len(doc) >= 6 and all(len(k) == 20 and k.startswith("-N") for k in doc) and any(v.get("name") == "" for v in doc.values()) and any(isinstance(v.get("age"), str) for v in doc.values()) and any("name" not in v for v in doc.values())' \
  "$base/users.json"
check "one user" 'status == 200 and doc["name"] == "Ada Lovelace"' "$base/users/-NqK3a9Xb2mLp0Rt7Yv1.json"
check "missing user is 200 null" 'status == 200 and body.strip() == b"null"' "$base/users/-Nmissing0000000000.json"
check "devices: nested keyed" 'status == 200 and all(isinstance(d, dict) and all("model" in x for x in d.values()) for d in doc.values())' "$base/devices.json"
check "scores: array with null holes" 'status == 200 and isinstance(doc, list) and doc[0] is None and doc[1]["score"] == 10' "$base/scores.json"
check "widgets: keyed" 'status == 200 and len(doc) >= 3' "$base/widgets.json"
check "print=pretty" 'status == 200 and b"\n  " in body and doc["name"] == "Ada Lovelace"' "$base/users/-NqK3a9Xb2mLp0Rt7Yv1.json?print=pretty"
check "shallow=true" 'status == 200 and set(doc.values()) == {True}' "$base/users.json?shallow=true"
check "keep-alive" 'status == 200' --http1.1 "$base/scores.json" -o /dev/null "$base/widgets.json"
check "status fault" 'status == 503 and "error" in doc' "$base/fault/status/503"
check "html fault" 'status == 200 and headers["content-type"].startswith("text/html")' "$base/fault/html"
check "invalid json at its documented place" \
  'status == 200 and doc is None and headers["demo-error-line"] == "3" and headers["demo-error-column"] == "5" and body.split(b"\n")[2][4:5] == b"]"' \
  "$base/fault/invalid-json"
check "big" 'status == 200 and 200000 <= len(body) < 200100 and isinstance(doc, dict)' "$base/fault/big?bytes=200000"
check "gzip is a valid gzip stream" 'status == 200 and headers["content-encoding"] == "gzip" and __import__("json").loads(__import__("gzip").decompress(body))["-NqK3a9Xb2mLp0Rt7Yv1"]["name"] == "Ada Lovelace"' "$base/fault/gzip"
check "slow" 'status == 200 and doc["ms"] == 200' "$base/fault/slow?ms=200"
check "echo" 'status == 200 and doc["method"] == "GET" and doc["target"] == "/echo/a%2Fb?x=1&y=%20z" and doc["query"] == {"x": "1", "y": " z"} and doc["headers"]["x-check"] == "yes"' \
  -H 'X-Check: yes' "$base/echo/a%2Fb?x=1&y=%20z"

# Raw HTTP/1.1 framing the tests lean on, and bad input that must get an answer, not a crash.
if python3 - "$port" <<'PY'
import socket, sys
port = int(sys.argv[1])
def talk(data):
    s = socket.create_connection(("127.0.0.1", port)); s.sendall(data); s.settimeout(0.5)
    out = b""
    try:
        while chunk := s.recv(65536): out += chunk
    except socket.timeout: pass
    s.close(); return out
def first_line(r): return r.split(b"\r\n")[0]
cases = {
    "pipelined requests answered in order": lambda: talk(b"GET /scores.json HTTP/1.1\r\n\r\nGET /echo/2 HTTP/1.1\r\n\r\n").count(b"HTTP/1.1 200") == 2,
    "HTTP/1.0 closes": lambda: b"Connection: close" in talk(b"GET /scores.json HTTP/1.0\r\n\r\n"),
    "HEAD has no body": lambda: talk(b"HEAD /users.json HTTP/1.1\r\nConnection: close\r\n\r\n").endswith(b"\r\n\r\n"),
    "chunked request body": lambda: b'"body":"abcde"' in talk(b"POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"),
    "garbage gets 400": lambda: first_line(talk(b"\xff\xfe garbage\r\n\r\n")) == b"HTTP/1.1 400 Bad Request",
    "Content-Length with chunked gets 400": lambda: first_line(talk(b"POST /echo HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n")).startswith(b"HTTP/1.1 400"),
    "oversized head gets 431": lambda: first_line(talk(b"GET / HTTP/1.1\r\nX: " + b"a" * 70000 + b"\r\n\r\n")).startswith(b"HTTP/1.1 431"),
}
failed = 0
for name, case in cases.items():
    ok = case()
    print(("ok   " if ok else "FAIL ") + name)
    failed += not ok
sys.exit(1 if failed else 0)
PY
then :; else failures=$((failures + 1)); fi

# Faults that end the connection: curl must see them fail.
if curl -sS -o /dev/null "$base/fault/reset" 2>/dev/null; then echo "FAIL reset: transfer succeeded"; failures=$((failures + 1)); else echo "ok   reset: transfer failed"; fi
if curl -sS -o /dev/null "$base/fault/close" 2>/dev/null; then echo "FAIL close: transfer succeeded"; failures=$((failures + 1)); else echo "ok   close: empty reply"; fi
stalled=$(curl -sS -m 0.5 "$base/fault/stall" 2>/dev/null | wc -c || true)
if [ "$stalled" -gt 0 ] && [ "$stalled" -lt 1000 ]; then echo "ok   stall: part of the body, then nothing"; else echo "FAIL stall: got $stalled bytes"; failures=$((failures + 1)); fi
curl -sS "$base/_log?clear=1" >/dev/null
curl -sS -m 0.5 -o /dev/null "$base/fault/hang" 2>/dev/null || true
sleep 0.3
check "log records the hang as client-aborted" \
  'status == 200 and doc[-1]["target"] == "/fault/hang" and doc[-1]["clientAborted"] and not doc[-1]["completed"]' "$base/_log"

# Writes are stored (from here on the data is no longer the canned one).
ada="$base/users/-NqK3a9Xb2mLp0Rt7Yv1"
curl -sS -o /dev/null -X PUT -d '"Paris"' "$ada/address/city.json"
check "PUT is stored" 'status == 200 and doc["address"] == {"city": "Paris", "zip": "NW1 6XE"}' "$ada.json"
check "PATCH body must be an object" 'status == 400 and "error" in doc' -X PATCH -d '[1]' "$ada.json"
check "a body that is not JSON is a 400" 'status == 400 and "error" in doc' -X PUT -d '{"a":' "$ada.json"

# Event streams. stream NAME PATH: curl -N in the background, events to $streams/NAME, headers to
# $streams/NAME.head, its pid in $streams/NAME.pid, its exit status in $streams/NAME.rc once it ends.
stream() {
  local name=$1 path=$2
  (
    curl -sS -N -H 'Accept: text/event-stream' -D "$streams/$name.head" "$base$path" >"$streams/$name" 2>/dev/null &
    echo $! >"$streams/$name.pid"
    wait $! && echo 0 >"$streams/$name.rc" || echo $? >"$streams/$name.rc"
  ) &
}
# wait_for FILE PYTHON-EXPRESSION [SECONDS]: until the expression holds for `events`, the file's
# events as [(name, data)], data parsed as JSON, and `ended()`, curl's exit status as text (None
# while it runs); default 3 s; false on timeout.
wait_for() {
  python3 - "$@" <<'PY'
import json, os, sys, time
path, expr = sys.argv[1], sys.argv[2]
deadline = time.monotonic() + float(sys.argv[3] if len(sys.argv) > 3 else 3)
def ended():
    return open(path + ".rc").read().strip() if os.path.exists(path + ".rc") else None
while True:
    events = []
    if os.path.exists(path):
        for block in open(path, encoding="utf-8").read().split("\n\n")[:-1]:
            fields = dict(line.split(": ", 1) for line in block.split("\n") if ": " in line)
            events.append((fields.get("event"), json.loads(fields.get("data", "null"))))
    if eval(expr): sys.exit(0)
    if time.monotonic() > deadline: sys.exit(1)
    time.sleep(0.02)
PY
}
# expect NAME COMMAND...: ok when the command succeeds.
expect() {
  local name=$1; shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; failures=$((failures + 1)); fi
}
open_count() { curl -sS "$base/_demo/streams" | python3 -c 'import json,sys; print(json.load(sys.stdin)["open"])'; }
wait_open() {  # wait_open N: until exactly N streams are open (3 s)
  for _ in $(seq 150); do [ "$(open_count)" = "$1" ] && return 0; sleep 0.02; done
  return 1
}

# What the server holds before any stream, to see that ended streams leave nothing behind.
resources() { echo "$(ls /proc/"$pid"/fd | wc -l) descriptors, $(ls /proc/"$pid"/task | wc -l) threads"; }
before=$(resources)
stream users /users.json
stream ada /users/-NqK3a9Xb2mLp0Rt7Yv1.json
stream widgets /widgets.json
expect "stream: first put is the whole value" wait_for "$streams/users" \
  'events[:1] and events[0][0] == "put" and events[0][1]["path"] == "/" and events[0][1]["data"]["-NqK3a9Xb2mLp0Rt7Yv1"]["name"] == "Ada Lovelace"'
expect "stream: 200 text/event-stream" grep -qi '^content-type: text/event-stream' "$streams/users.head"
expect "stream: three open" wait_open 3
new_id=$(curl -sS -X POST -d '{"name":"Eve","email":"eve@example.com"}' "$base/users.json" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["name"])')
expect "stream: POST gives a put of the new record" wait_for "$streams/users" \
  "('put', {'path': '/$new_id', 'data': {'name': 'Eve', 'email': 'eve@example.com'}}) in events"
curl -sS -o /dev/null -X PATCH -d '{"age": 37}' "$ada.json"
expect "stream: PATCH gives a patch" wait_for "$streams/users" \
  "('patch', {'path': '/-NqK3a9Xb2mLp0Rt7Yv1', 'data': {'age': 37}}) in events"
expect "stream: a write below the location is relative to it" wait_for "$streams/ada" \
  "('patch', {'path': '/', 'data': {'age': 37}}) in events"
curl -sS -o /dev/null -X DELETE "$base/users/$new_id.json"
expect "stream: DELETE gives a put of null" wait_for "$streams/users" \
  "('put', {'path': '/$new_id', 'data': None}) in events"
curl -sS -o /dev/null -X PATCH -d '{"-NqK3a9Xb2mLp0Rt7Yv1": {"name": "Ada King"}}' "$base/users.json"
expect "stream: a write above the location puts its whole new value" wait_for "$streams/ada" \
  "('put', {'path': '/', 'data': {'name': 'Ada King'}}) in events"
expect "stream: other locations get no events" wait_for "$streams/widgets" \
  'len([e for e in events if e[0] in ("put", "patch")]) == 1 and events[0][1]["path"] == "/"' 0
stream ka /devices.json
wait_for "$streams/ka" 'events[:1]' || true
opened_ms=$(($(date +%s%N) / 1000000))
expect "stream: a keep-alive within ${keep_alive}s" wait_for "$streams/ka" 'events[1:] == [("keep-alive", None)]' $((keep_alive + 1))
elapsed_ms=$(($(date +%s%N) / 1000000 - opened_ms))
expect "stream: ... not early (${elapsed_ms} ms)" test "$elapsed_ms" -ge $((keep_alive * 750))
kill "$(cat "$streams/ka.pid")" || true

# A client that leaves frees its stream.
kill "$(cat "$streams/widgets.pid")" || true
expect "stream: a client that leaves is forgotten" wait_open 2
# The controls: cancel and revoke end the body cleanly (curl exits 0), drop resets it.
check "/_demo/streams counts" 'status == 200 and doc["open"] == 2 and doc["opened"] == 4 and sorted(s["path"] for s in doc["streams"]) == ["/users", "/users/-NqK3a9Xb2mLp0Rt7Yv1"]' "$base/_demo/streams"
check "cancel one location" 'status == 200 and doc == {"streams": 1}' -X POST "$base/_demo/streams/cancel?path=/users/-NqK3a9Xb2mLp0Rt7Yv1"
expect "stream: cancel event, then a clean end" wait_for "$streams/ada" \
  'events[-1:] == [("cancel", "Permission denied")] and ended() == "0"'
stream revoked /users.json
expect "stream: reopened" wait_open 2
check "revoke" 'status == 200 and doc == {"streams": 2}' -X POST "$base/_demo/streams/revoke?reason=expired"
expect "stream: auth_revoked event, then a clean end" wait_for "$streams/revoked" \
  'events[-1:] == [("auth_revoked", "expired")] and ended() == "0"'
expect "stream: all ended" wait_open 0
stream dropped /scores.json
expect "stream: opened for drop" wait_for "$streams/dropped" 'events[:1] == [("put", {"path": "/", "data": [None, {"player": "ada", "score": 10}, None, {"player": "grace", "score": 7}, {"player": "alan", "score": 3}]})]'
check "drop" 'status == 200 and doc == {"streams": 1}' -X POST "$base/_demo/streams/drop"
expect "stream: drop cuts the connection (curl fails)" wait_for "$streams/dropped" \
  'ended() not in (None, "", "0") and events[-1][0] == "put"'
expect "stream: none open after the drop" wait_open 0
settled() {  # the server's threads and descriptors back to what they were (3 s)
  for _ in $(seq 150); do [ "$(resources)" = "$before" ] && return 0; sleep 0.02; done
  echo "     before the streams: $before; now: $(resources)"; return 1
}
expect "stream: every ended stream's thread and descriptors are gone" settled

kill -TERM "$pid"
if wait "$pid"; then echo "ok   SIGTERM exits 0"; else echo "FAIL SIGTERM exit status $?"; failures=$((failures + 1)); fi

[ "$failures" -eq 0 ] || { echo "check-demo-upstream: $failures failed"; exit 1; }
echo "check-demo-upstream: all passed"
