#!/usr/bin/env bash
# Overload (issue 29's "Done when"): one worker in front of the peer benchmark's origin nginx,
# offered twice the load it can serve for DURATION, with the limits on. Three phases:
#   1. saturation: wrk -c64 on a route without limits, for SATURATION s: S answers a second;
#   2. unloaded: a probe alone (one connection, PROBE_RATE a second, under its own key) on the
#      limited route, for UNLOADED s: the unloaded p99;
#   3. load: FACTOR x S a second offered to the limited route by LOAD_CONNS connections under
#      KEYS keys (wrk's delay() paces them, with exponential waits: load.lua), the probe beside
#      them, for DURATION s; the server's RSS and open fds sampled every SAMPLE s.
# The limited route has `per-key` (header.X-Api-Key) at ADMIT x S / KEYS a second per key and
# `per-address` (client-address) at 1.2 x ADMIT x S as a backstop, with --max-inflight-bytes
# and --max-loop-lag set: what is not admitted must be a clean 429 (or 503). The probe's rate
# is under its key's, so each of its requests is admitted: its p99 is an admitted request's.
# Prints a markdown table of the phases, the samples, the server's own counts and one verdict
# line per criterion: offered load, admitted p99 (within 2x unloaded), clean refusals, RSS
# flat, no fd growth. Exits non-zero if a verdict fails.
#
#   RESHAPE_BIN=.build/release/reshape bench/limits/load.sh            # 5 minutes of load
#   DURATION=30 RESHAPE_BIN=.build/release/reshape bench/limits/load.sh
#
# Knobs: DURATION (300), SATURATION (10), UNLOADED (30), SAMPLE (10), SIZE (150kb), FACTOR (2),
# ADMIT (0.5), KEYS (5), LOAD_CONNS (256), PROBE_RATE (50), BUDGET (256MiB), LOOP_LAG (250ms),
# RSS_SLACK_PCT (10), FD_SLACK (4), KEEP (a directory to copy wrk's outputs and the server's log to).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PEERS=$ROOT/bench/peers
LUA=$ROOT/bench/limits/load.lua
BIN=${RESHAPE_BIN:-$ROOT/.build/release/reshape}
DURATION=${DURATION:-300}
SATURATION=${SATURATION:-10}
UNLOADED=${UNLOADED:-30}
SAMPLE=${SAMPLE:-10}
SIZE=${SIZE:-150kb}
FACTOR=${FACTOR:-2}
ADMIT=${ADMIT:-0.5}
KEYS=${KEYS:-5}
LOAD_CONNS=${LOAD_CONNS:-256}
PROBE_RATE=${PROBE_RATE:-50}
BUDGET=${BUDGET:-256MiB}
LOOP_LAG=${LOOP_LAG:-250ms}
RSS_SLACK_PCT=${RSS_SLACK_PCT:-10}
FD_SLACK=${FD_SLACK:-4}
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  if [[ -n "${KEEP:-}" ]]; then mkdir -p "$KEEP" && cp "$WORK"/*.txt "$WORK"/*.log "$KEEP"/ 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
fds() { ls "/proc/$1/fd" | wc -l; }
calc() { python3 -c "print($1)"; }
# report FILE KEY: a "REPORT KEY value" line's value.
report() { awk -v k="$2" '$1=="REPORT" && $2==k {print $3}' "$1"; }
# status FILE CODE: how many answers of that status.
status() { awk -v c="$2" '$1=="STATUS" && $2==c {n=$3} END {print n+0}' "$1"; }
others() { awk '$1=="STATUS" && $2!=200 && $2!=429 && $2!=503 {n+=$3} END {print n+0}' "$1"; }
# cpu_ticks PID: the process's user + system clock ticks so far.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# core_ticks: "busy total" clock ticks of cpu0 and cpu1 so far (every process's, not only ours).
core_ticks() { awk '/^cpu[01] / {busy = $2 + $3 + $4 + $7 + $8; print busy, busy + $5 + $6}' /proc/stat | tr '\n' ' '; }

python3 "$PEERS/gen.py" "$WORK/data" >/dev/null
ORIGIN_PORT=$(free_port)
prefix=$WORK/origin
mkdir -p "$prefix/tmp"
for f in common.conf origin.conf; do
  sed -e "s|@PREFIX@|$prefix|g" -e "s|@PORT@|$ORIGIN_PORT|g" -e "s|@DATA@|$WORK/data|g" "$PEERS/nginx/$f" >"$prefix/$f"
done
taskset -c 1 nginx -p "$prefix/" -c "$prefix/origin.conf" -e "$prefix/error.log" &
PIDS+=($!)
sleep 0.5

# rules PER_KEY PER_ADDRESS: the peer benchmark's route, limited (/users) and not (/open). A
# burst of a tenth of a second's rate: a key's full default burst (a second's worth, for every
# key at once) would queue half a second of work at the start and weigh on a short run's p99.
rules() {
  mkdir -p "$WORK/rules"
  cat >"$WORK/rules/rules.yaml" <<YAML
upstreams:
  origin: { url: "http://127.0.0.1:$ORIGIN_PORT", max-body: 64MiB }
types:
  User:
    type: object
    required: [objectId, name, email]
    properties:
      objectId: { type: string, minLength: 1 }
      name:     { type: string, minLength: 1 }
      email:    { type: string, pattern: "@" }
      age:      { type: integer, minimum: 0 }
      tags:     { type: array, items: { type: string } }
      address:  { type: object, properties: { city: { type: string }, zip: { type: string } } }
limits:
  per-key: { rate: $1/s, burst: $(( $1 / 10 > 0 ? $1 / 10 : 1 )), key: header.X-Api-Key }
  per-address: { rate: $2/s, burst: $(( $2 / 10 > 0 ? $2 / 10 : 1 )), key: client-address }
routes:
  - name: users
    request: GET /users/{size}
    upstream: origin
    path: /{size}.json
    limit: [per-key, per-address]
    transform:
      - keyed-to-array: { key: objectId, order: key }
      - validate: { type: User, invalid: drop }
      - wrap: objects
  - name: open
    request: GET /open/{size}
    upstream: origin
    path: /{size}.json
    transform:
      - keyed-to-array: { key: objectId, order: key }
      - validate: { type: User, invalid: drop }
      - wrap: objects
YAML
}

# serve: starts reshape on the current rules; sets pid and port.
serve() {
  port=$(free_port)
  taskset -c 0 "$BIN" serve --rules "$WORK/rules" --listen "127.0.0.1:$port" --workers 1 --no-access-log \
    --max-inflight-bytes "$BUDGET" --max-loop-lag "$LOOP_LAG" >"$WORK/serve.log" 2>&1 &
  pid=$!
  PIDS+=($pid)
  for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/_reshape/ready" >/dev/null && break; sleep 0.1; done
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; }

# 1. What the box serves: the route without limits, saturated.
rules 1000000 1000000
serve
curl -sf -o /dev/null "http://127.0.0.1:$port/open/$SIZE"
# bench/load/report.lua: no response() callback, so wrk itself stays out of the way.
taskset -c 1 wrk -t1 -c64 -d"${SATURATION}s" --latency --timeout 10s -s "$ROOT/bench/load/report.lua" \
  "http://127.0.0.1:$port/open/$SIZE" >"$WORK/saturation.txt" 2>&1 || true
awk '$1=="REPORT" && $2=="requests" {r=$3} $1=="REPORT" && $2=="non2xx" {n=$3}
  END {printf "STATUS 200 %d\nSTATUS 0 %d\n", r - n, n}' "$WORK/saturation.txt" >>"$WORK/saturation.txt"
stop
S=$(report "$WORK/saturation.txt" rps)
OFFERED=$(calc "round($FACTOR * $S)")
PER_KEY=$(calc "max(1, int($ADMIT * $S / $KEYS))")
PER_ADDRESS=$(calc "max(1, int(1.2 * $ADMIT * $S))")
PROBE=$(calc "min($PROBE_RATE, max(1, $PER_KEY // 2))")

# 2. The probe alone, on the limited route.
rules "$PER_KEY" "$PER_ADDRESS"
serve
curl -sf -o /dev/null -H 'X-Api-Key: warm' "http://127.0.0.1:$port/users/$SIZE"
taskset -c 1 wrk -t1 -c1 -d"${UNLOADED}s" --latency --timeout 5s -s "$LUA" \
  "http://127.0.0.1:$port/users/$SIZE" -- 1 "$PROBE" 1 probe 0 >"$WORK/unloaded.txt" 2>&1 || true
sleep 1
idle_rss=$(rss_kb $pid) idle_fds=$(fds $pid)

# 3. The load and the probe together, sampled.
( for ((t = SAMPLE; t < DURATION; t += SAMPLE)); do
    sleep "$SAMPLE"
    echo "$t $(rss_kb $pid) $(fds $pid)"
  done ) >"$WORK/samples.txt" &
sampler=$!
PIDS+=($sampler)
unloaded_p50=$(report "$WORK/unloaded.txt" p50)
cpu_before=$(cpu_ticks $pid) cores_before=$(core_ticks) load_started=$(date +%s.%N)
taskset -c 1 wrk -t1 -c"$LOAD_CONNS" -d"${DURATION}s" --latency --timeout 5s -s "$LUA" \
  "http://127.0.0.1:$port/users/$SIZE" -- "$LOAD_CONNS" "$OFFERED" "$KEYS" key "$unloaded_p50" \
  >"$WORK/load.txt" 2>&1 &
load=$!
taskset -c 1 wrk -t1 -c1 -d"${DURATION}s" --latency --timeout 5s -s "$LUA" \
  "http://127.0.0.1:$port/users/$SIZE" -- 1 "$PROBE" 1 probe 0 >"$WORK/probe.txt" 2>&1 || true
wait $load || true
cpu_after=$(cpu_ticks $pid) cores_after=$(core_ticks) load_ended=$(date +%s.%N)
wait $sampler 2>/dev/null || true
[[ -s "$WORK/samples.txt" ]] || echo "$DURATION $(rss_kb $pid) $(fds $pid)" >"$WORK/samples.txt"
sleep 10
after_rss=$(rss_kb $pid) after_fds=$(fds $pid)
metrics=$(curl -sf "http://127.0.0.1:$port/_reshape/metrics")
stop

row() { # row NAME FILE CONNECTIONS OFFERED
  local f=$2
  echo "| $1 | $3 | $4 | $(report "$f" rps) | $(status "$f" 200) | $(status "$f" 429) | $(status "$f" 503) | $(others "$f") | $(report "$f" sockerr) | $(report "$f" p50) | $(report "$f" p90) | $(report "$f" p99) |"
}
echo "Reshape at $(git -C "$ROOT" rev-parse --short HEAD), one worker on core 0; origin nginx and wrk on core 1; ${SIZE} documents."
echo "Saturation S = $S answers/s; offered $FACTOR x S = $OFFERED/s by $LOAD_CONNS connections under $KEYS keys;"
echo "per-key $PER_KEY/s (admitting $ADMIT x S in all), per-address $PER_ADDRESS/s; probe $PROBE/s under its own key;"
echo "--max-inflight-bytes $BUDGET, --max-loop-lag $LOOP_LAG; load for ${DURATION} s."
echo
echo "| phase | connections | offered/s | answered/s | 200 | 429 | 503 | other | socket errors | p50 ms | p90 ms | p99 ms |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
row "saturation (no limits)" "$WORK/saturation.txt" 64 "as fast as answered"
row "probe, unloaded" "$WORK/unloaded.txt" 1 "$PROBE"
row "load" "$WORK/load.txt" "$LOAD_CONNS" "$OFFERED"
row "probe, under load" "$WORK/probe.txt" 1 "$PROBE"
echo
echo "| t s | RSS MB | open fds |"
echo "|---|---|---|"
echo "| idle | $((idle_rss / 1024)) | $idle_fds |"
while read -r t r f; do echo "| $t | $((r / 1024)) | $f |"; done <"$WORK/samples.txt"
echo "| 10 s after | $((after_rss / 1024)) | $after_fds |"
echo
server=$(awk -F'status="' '/^reshape_requests_total\{route="users"/ {split($2, a, "\""); split($0, b, " "); n[a[1]] += b[2]}
  END {for (k in n) printf "%s: %d ", k, n[k]}' <<<"$metrics")
limited=$(awk '/^reshape_rate_limited_total/ {printf "%s ", $0}' <<<"$metrics")
shed=$(awk '/^reshape_shed_total|^reshape_upstream_errors_total.*load-shed/ {printf "%s ", $0}' <<<"$metrics")
echo "Server's count for /users: ${server% }; ${limited:-no rate-limited count} ${shed}"
hz=$(getconf CLK_TCK)
read -r b0 t0 b1 t1 <<<"$cores_before"
read -r a0 u0 a1 u1 <<<"$cores_after"
echo "During the load: the server used $(calc "round(100 * ($cpu_after - $cpu_before) / $hz / ($load_ended - $load_started))")% of a core;" \
  "core 0 was $(calc "round(100 * ($a0 - $b0) / max(1, $u0 - $t0))")% busy, core 1 $(calc "round(100 * ($a1 - $b1) / max(1, $u1 - $t1))")% (every process's)."
echo

failed=0
verdict() { # verdict OK TEXT
  if [[ $1 == 1 ]]; then echo "- PASS: $2"; else echo "- FAIL: $2"; failed=1; fi
}
offered=$(calc "round($(report "$WORK/load.txt" rps) + $(report "$WORK/probe.txt" rps), 1)")
verdict "$(calc "int($offered >= 0.95 * $FACTOR * $S)")" \
  "offered load $offered/s = $(calc "round($offered / $S, 2)") x the saturation throughput ($S/s)"
p99u=$(report "$WORK/unloaded.txt" p99) p99l=$(report "$WORK/probe.txt" p99)
verdict "$(calc "int($p99l <= 2 * $p99u)")" \
  "admitted p99 under load $p99l ms = $(calc "round($p99l / $p99u, 2)") x unloaded ($p99u ms; bound 2x)"
clean() { echo "$(( $(status "$1" 429) + $(status "$1" 503) ))"; }
unclean=$(( $(others "$WORK/load.txt") + $(others "$WORK/probe.txt") + $(report "$WORK/load.txt" sockerr) \
  + $(report "$WORK/probe.txt" sockerr) ))
verdict "$(( unclean == 0 ))" \
  "every answer not admitted is a clean 429 or 503 ($(clean "$WORK/load.txt") of the load's, $(clean "$WORK/probe.txt") of the probe's); other statuses and socket errors: $unclean"
# From the first sample on: the load runs at its full rate from its start.
read -r first_rss first_fds < <(awk 'NR==1 {print $2, $3}' "$WORK/samples.txt")
read -r last_rss last_fds < <(awk 'END {print $2, $3}' "$WORK/samples.txt")
max_rss=$(awk '$2>m {m=$2} END {print m}' "$WORK/samples.txt")
slack=$(calc "max(5 * 1024, $first_rss * $RSS_SLACK_PCT // 100)")
verdict "$(( max_rss - first_rss <= slack && last_rss - first_rss <= slack ))" \
  "RSS flat: $((first_rss / 1024)) MB at $SAMPLE s, at most $((max_rss / 1024)) MB, $((last_rss / 1024)) MB at the last sample (slack $((slack / 1024)) MB)"
verdict "$(( last_fds <= first_fds + FD_SLACK ))" \
  "no fd growth: $first_fds open at $SAMPLE s, $last_fds at the last sample (slack $FD_SLACK), $after_fds 10 s after (idle $idle_fds)"
exit $failed
