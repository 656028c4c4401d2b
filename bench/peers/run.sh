#!/usr/bin/env bash
# Peer benchmark: Reshape beside nginx proxy_pass, nginx proxy_cache (hot), nginx + Lua + lua-cjson, a Node.js http proxy
# and Python aiohttp + orjson, all doing the same users transform against the same origin nginx
# under the same wrk load, plus offline figures (reshape apply, jq, Python + orjson, simdjson)
# over the 8 MB document. Writes the Markdown report to OUT (default bench/RESULTS.md).
#
#   bench/peers/run.sh                                       # full run, ~7 min (+ release build)
#   RESHAPE_BIN=path/to/reshape bench/peers/run.sh           # use a built binary
#   DURATION=3 WARMUP=1 SIZES=3kb TARGETS="nginx-pass reshape" OFFLINE=0 OUT=/tmp/r.md bench/peers/run.sh
#
# Environment: DURATION (10 s measured per target and size), WARMUP (3 s), SIZES ("3kb 150kb
# 8mb"), TARGETS ("direct nginx-pass nginx-cache nginx-lua node aiohttp reshape reshape-cached"), UNPINNED (1: also Reshape
# --workers 2 unpinned at 3kb), OFFLINE (1), OFFLINE_RUNS (7), SCRATCH (.build-peers: release
# build, venv, simdjson binary), RESHAPE_BIN, RESHAPE_COMMIT (the commit RESHAPE_BIN was built
# from, for the report), OUT, KEEP (1: keep the work directory).
#
# Placement: every server under test is one process on core 0 (taskset -c 0); wrk and the
# origin nginx share core 1, so the proxy under test has a core to itself. Only 127.0.0.1 is
# ever contacted; every load phase is bounded by wrk -d.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
PEERS=$ROOT/bench/peers
STARTED=$(date +%s)

DURATION=${DURATION:-10}
WARMUP=${WARMUP:-3}
SIZES=${SIZES:-3kb 150kb 8mb}
TARGETS=${TARGETS:-direct nginx-pass nginx-cache nginx-lua node aiohttp reshape reshape-cached}
UNPINNED=${UNPINNED:-1}
OFFLINE=${OFFLINE:-1}
OFFLINE_RUNS=${OFFLINE_RUNS:-7}
SCRATCH=${SCRATCH:-$ROOT/.build-peers}
OUT=${OUT:-$ROOT/bench/RESULTS.md}
KEEP=${KEEP:-}

# wrk connections per document size: fewer for bigger answers, so latency stays meaningful.
conns_for() {
  case $1 in 3kb) echo 64 ;; 150kb) echo 32 ;; 8mb) echo 4 ;; *) echo "unknown size '$1' (3kb, 150kb, 8mb)" >&2; exit 2 ;; esac
}
for s in $SIZES; do conns_for "$s" >/dev/null; done
for t in $TARGETS; do
  case $t in direct | nginx-pass | nginx-cache | nginx-lua | node | aiohttp | reshape | reshape-cached) ;; *) echo "unknown target '$t'" >&2; exit 2 ;; esac
done
say() { echo "[peers $(date +%H:%M:%S)] $*" >&2; }
export PYTHONDONTWRITEBYTECODE=1   # leave no __pycache__ in bench/peers

# --- packages: Debian's for the servers and tools, PyPI's (in a venv) for aiohttp/orjson -------
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'; }
SUDO=
[[ $(id -u) -eq 0 ]] || SUDO=sudo
missing=()
for p in nginx libnginx-mod-http-lua lua-cjson wrk jq g++ libsimdjson-dev python3-venv curl procps util-linux; do
  installed "$p" || missing+=("$p")
done
command -v node >/dev/null || missing+=(nodejs)
if ((${#missing[@]})); then
  say "installing with apt-get: ${missing[*]}"
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

PY=/usr/bin/python3
[[ -x $PY ]] || PY=python3
VENV=$SCRATCH/venv   # under .build-peers, gitignored by the .build*/ rule
[[ -x $VENV/bin/python ]] || "$PY" -m venv "$VENV"
"$VENV/bin/python" -c 'import aiohttp, orjson' 2>/dev/null || "$VENV/bin/pip" install -q aiohttp orjson

# --- binaries ------------------------------------------------------------------------------------
if [[ -z ${RESHAPE_BIN:-} ]]; then
  say "building reshape (release) into $SCRATCH"
  swift build -c release --scratch-path "$SCRATCH" --product reshape >&2
  RESHAPE_BIN=$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)/reshape
  BUILT_WITH="swift build -c release --scratch-path ${SCRATCH#"$ROOT"/} --product reshape"
fi
[[ -x $RESHAPE_BIN ]] || { echo "RESHAPE_BIN=$RESHAPE_BIN is not an executable" >&2; exit 1; }
SIMD_BIN=$SCRATCH/bin/simdjson_transform
if [[ $OFFLINE == 1 && (! -x $SIMD_BIN || $PEERS/simdjson_transform.cpp -nt $SIMD_BIN) ]]; then
  mkdir -p "$SCRATCH/bin"
  g++ -O3 -std=c++17 -o "$SIMD_BIN" "$PEERS/simdjson_transform.cpp" -lsimdjson
fi

# --- process bookkeeping: every child is recorded and killed on exit -----------------------------
WORK=$(mktemp -d /tmp/reshape-peers.XXXXXX)
PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [[ -n $KEEP ]]; then say "work directory kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# spawn LOG CMD...: start CMD in the background (taskset and env exec, so $! is the server).
spawn() {
  local log=$1
  shift
  "$@" >"$log" 2>&1 &
  SPAWNED=$!
  PIDS+=("$SPAWNED")
}
# alive PID: running and not a zombie (a child that exited stays visible until waited for).
alive() {
  local state
  state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
  [[ -n $state && $state != Z ]]
}
# stop PID: SIGTERM, up to 10 s to exit, then SIGKILL.
stop() {
  local pid=$1 i keep=()
  kill "$pid" 2>/dev/null || true
  for i in $(seq 100); do alive "$pid" || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  for i in "${PIDS[@]}"; do [[ $i == "$pid" ]] || keep+=("$i"); done
  PIDS=("${keep[@]}")
}
free_port() {
  "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# tree PID: the process and its descendants (threads are already counted in a process's stat).
tree() {
  local c
  echo "$1"
  for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do tree "$c"; done
}
# cpu_ticks PID: utime + stime of the process tree, in clock ticks.
cpu_ticks() {
  local p sum=0 t
  for p in $(tree "$1"); do
    t=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | awk '{print $12 + $13}') || t=0
    sum=$((sum + ${t:-0}))
  done
  echo "$sum"
}
# peak_rss PID: VmHWM of the process tree, KiB.
peak_rss() {
  local p sum=0 v
  for p in $(tree "$1"); do
    v=$(awk '/^VmHWM/ {print $2}' "/proc/$p/status" 2>/dev/null) || v=0
    sum=$((sum + ${v:-0}))
  done
  echo "$sum"
}
# core_ticks CPU: "usersys irq steal total" clock ticks of one core from /proc/stat: user + nice
# + system time of whatever ran there, interrupt + softirq time (network work not charged to any
# process), time stolen by the hypervisor, and the total. The server's own utime + stime is part
# of usersys, so usersys - server + steal is what other jobs took from the server's core.
core_ticks() {
  awk -v c="cpu$1" '$1 == c {t = 0; for (i = 2; i <= 9; i++) t += $i; print $2 + $3 + $4, $7 + $8, $9, t}' /proc/stat
}
# wait_idle PID: let the server finish what it was doing (wrk abandons in-flight requests at the
# end of the warm-up; with 8 MB answers that is seconds of work) before a phase starts: until its
# CPU time stops moving for 0.3 s, at most 30 s.
wait_idle() {
  local last now i
  last=$(cpu_ticks "$1")
  for i in $(seq 100); do
    sleep 0.3
    now=$(cpu_ticks "$1")
    ((now - last <= 1)) && return 0
    last=$now
  done
}
# log_cmd KEY CMD...: note a command line once for the report's Commands section.
log_cmd() {
  local key=$1
  shift
  grep -qxF "# $key" "$WORK/commands.txt" 2>/dev/null && return 0
  { echo "# $key"; echo "$*" | sed -e "s|$WORK|\$WORK|g" -e "s|$PEERS|\$PEERS|g" -e "s|$ROOT/||g"; } >>"$WORK/commands.txt"
}

# --- nginx: each instance gets its own prefix under $WORK, rendered from bench/peers/nginx/ -----
start_nginx() { # CONF_NAME PORT CPU
  local name=$1 port=$2 cpu=$3 prefix=$WORK/nginx-$1-$2 f
  mkdir -p "$prefix/tmp"
  for f in common.conf "$name.conf"; do
    sed -e "s|@PREFIX@|$prefix|g" -e "s|@PORT@|$port|g" -e "s|@ORIGIN_PORT@|${ORIGIN_PORT:-0}|g" \
      -e "s|@DATA@|$WORK/data|g" -e "s|@PEERS@|$PEERS|g" "$PEERS/nginx/$f" >"$prefix/$f"
  done
  local cmd=(taskset -c "$cpu" nginx -p "$prefix/" -c "$prefix/$name.conf" -e "$prefix/error.log")
  log_cmd "nginx ($name.conf)" "${cmd[@]}"
  spawn "$prefix/console.log" "${cmd[@]}"
  LOG=$prefix/error.log
}

# start_target TARGET: start the server under test; sets SERVER_PID, BASE, LOG.
start_target() {
  local t=$1 port cmd
  port=$(free_port)
  BASE=http://127.0.0.1:$port
  case $t in
    direct) SERVER_PID=$ORIGIN_PID BASE=$ORIGIN_URL LOG=$ORIGIN_LOG; return ;;
    nginx-pass) start_nginx passthrough "$port" 0 ;;
    nginx-cache) start_nginx cache "$port" 0 ;;
    nginx-lua) start_nginx lua "$port" 0 ;;
    node) cmd=(taskset -c 0 node "$PEERS/node_proxy.js" "$port" "$ORIGIN_PORT") ;;
    aiohttp) cmd=(taskset -c 0 "$VENV/bin/python" "$PEERS/aiohttp_proxy.py" "$port" "$ORIGIN_PORT") ;;
    reshape | reshape-cached) cmd=(taskset -c 0 "$RESHAPE_BIN" serve --rules "$PEERS/rules" --listen "127.0.0.1:$port" --workers 1 --no-access-log) ;;
    reshape-unpinned) cmd=("$RESHAPE_BIN" serve --rules "$PEERS/rules" --listen "127.0.0.1:$port" --workers 2 --no-access-log) ;;
  esac
  if [[ -n ${cmd+x} ]]; then
    LOG=$WORK/$t-$port.log
    local envp=
    [[ $t != reshape* ]] || envp="ORIGIN_URL=$ORIGIN_URL "   # the rules read it (exported below)
    log_cmd "$t" "$envp${cmd[*]}"
    spawn "$LOG" "${cmd[@]}"
  fi
  SERVER_PID=$SPAWNED
}
path_for() { # TARGET SIZE: the request path
  case $1 in
    direct) echo "/$2.json" ;;
    reshape-cached) echo "/cached/users/$2" ;;   # the same route with `cache:` (rules/users.yaml)
    *) echo "/users/$2" ;;
  esac
}
# fetch TARGET SIZE FILE: GET into FILE; fail unless 200 with Content-Type application/json.
fetch() {
  local url=$BASE$(path_for "$1" "$2") code ctype
  code=$(curl -s -m 30 -D "$3.headers" -o "$3" -w '%{http_code}' "$url") || code=000
  ctype=$(awk -F': *' 'tolower($1) == "content-type" {print $2}' "$3.headers" | tr -d '\r')
  if [[ $code != 200 || $ctype != application/json* ]]; then
    echo "FAIL: $1 answered $code ($ctype) for $url:" >&2
    head -c 500 "$3" >&2; echo >&2; tail -20 "$LOG" >&2 || true
    exit 1
  fi
}
# wait_ready TARGET SIZE: poll until the server answers (at most 20 s).
wait_ready() {
  local i url=$BASE$(path_for "$1" "$2")
  for i in $(seq 200); do
    alive "$SERVER_PID" || { echo "FAIL: $1 exited at start:" >&2; tail -20 "$LOG" >&2; exit 1; }
    [[ $(curl -s -m 30 -o /dev/null -w '%{http_code}' "$url" || true) == 200 ]] && return 0
    sleep 0.1
  done
  echo "FAIL: $1 not answering 200 at $url after 20 s:" >&2; tail -20 "$LOG" >&2; exit 1
}
# run_wrk SECONDS CONNS URL OUTFILE PHASE: one bounded load phase (in the background, so that
# the traps run while it does).
run_wrk() {
  local cmd=(taskset -c 1 wrk -t1 -c"$2" -d"$1"s --latency --timeout 10s -s "$PEERS/../load/report.lua" "$3")
  "${cmd[@]}" >"$4" 2>&1 &
  local pid=$!
  PIDS+=("$pid")
  wait "$pid" || true
  stop "$pid"
  grep -q '^REPORT requests' "$4" || { echo "FAIL: wrk gave no report:" >&2; cat "$4" >&2; exit 1; }
  log_cmd "wrk $5, $2 connections" "${cmd[*]}"
}

# --- data and origin -----------------------------------------------------------------------------
mkdir -p "$WORK/data" "$WORK/answers" "$WORK/wrk"
[[ -z ${BUILT_WITH:-} ]] || log_cmd "reshape build" "$BUILT_WITH"
say "generating documents"
"$PY" "$PEERS/gen.py" "$WORK/data" >&2
log_cmd "documents" "python3 \$PEERS/gen.py \$WORK/data"

ORIGIN_PORT=$(free_port)
start_nginx origin "$ORIGIN_PORT" 1
ORIGIN_PID=$SPAWNED ORIGIN_LOG=$LOG
export ORIGIN_URL=http://127.0.0.1:$ORIGIN_PORT   # bench/peers/rules/users.yaml's upstream
SERVER_PID=$ORIGIN_PID BASE=$ORIGIN_URL
wait_ready direct 3kb

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)

# --- correctness first: every peer's answer for every size against Reshape's -------------------
say "checking answers (Reshape is the reference)"
printf 'size\tbytes\trecords\tinvalid\tanswer_bytes\tkept\tconns\n' >"$WORK/docs.tsv"
start_target reshape
wait_ready reshape 3kb
for s in 3kb 150kb 8mb; do
  fetch reshape "$s" "$WORK/answers/reshape-$s.json"
  dropped=$(awk -F': *' 'tolower($1) == "reshape-dropped" {print $2}' "$WORK/answers/reshape-$s.json.headers" | tr -d '\r')
  read -r bytes records invalid < <(awk -v s="$s" '$1 == s {print $2, $3, $4}' "$WORK/data/manifest.tsv")
  [[ $dropped == "$invalid" ]] || { echo "FAIL: Reshape dropped '$dropped' records of $s, the document has $invalid invalid" >&2; exit 1; }
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$s" "$bytes" "$records" "$invalid" \
    "$(wc -c <"$WORK/answers/reshape-$s.json")" "$((records - invalid))" "$(conns_for "$s")" >>"$WORK/docs.tsv"
done
stop "$SERVER_PID"
for t in $TARGETS; do
  [[ $t == reshape ]] && continue
  start_target "$t"
  wait_ready "$t" 3kb
  for s in 3kb 150kb 8mb; do
    f=$WORK/answers/$t-$s.json
    fetch "$t" "$s" "$f"
    case $t in
      direct | nginx-pass) cmp -s "$f" "$WORK/data/$s.json" || { echo "FAIL: $t's $s answer is not the origin file" >&2; exit 1; } ;;
      nginx-cache)  # the origin's file, and from the cache the second time, or the row measures nothing
        cmp -s "$f" "$WORK/data/$s.json" || { echo "FAIL: $t's $s answer is not the origin file" >&2; exit 1; }
        fetch "$t" "$s" "$f"
        grep -qi '^x-cache-status: HIT' "$f.headers" || { echo "FAIL: nginx-cache did not cache $s" >&2; exit 1; } ;;
      nginx-lua) "$PY" "$PEERS/check.py" "$WORK/answers/reshape-$s.json" "$f" --any-member-order --label "$t/$s" >&2 ;;
      *) "$PY" "$PEERS/check.py" "$WORK/answers/reshape-$s.json" "$f" --label "$t/$s" >&2 ;;
    esac
  done
  [[ $t == direct ]] || stop "$SERVER_PID"
done

# --- under load ----------------------------------------------------------------------------------
printf 'size\ttarget\tconns\trequests\tseconds\trps\tp50\tp99\tnon2xx\tsockerr\tcpu_ticks\tclk_tck\trss_kib\tcore0_usersys\tcore0_irq\tcore0_steal\tcore0_total\tcore1_busy\tcore1_total\n' >"$WORK/results.tsv"
CLK_TCK=$(getconf CLK_TCK)
measure() { # TARGET SIZE
  local t=$1 s=$2 conns url f c0 c1 rss k0 k1 l0 l1 i
  conns=$(conns_for "$s")
  start_target "$t"
  wait_ready "$t" "$s"
  fetch "$t" "$s" "$WORK/answers/timed-$t-$s.json"
  url=$BASE$(path_for "$t" "$s")
  run_wrk "$WARMUP" "$conns" "$url" "$WORK/wrk/warmup-$t-$s.txt" warm-up
  wait_idle "$SERVER_PID"
  c0=$(cpu_ticks "$SERVER_PID") k0=$(core_ticks 0) l0=$(core_ticks 1)
  f=$WORK/wrk/$t-$s.txt
  run_wrk "$DURATION" "$conns" "$url" "$f" measured
  c1=$(cpu_ticks "$SERVER_PID") k1=$(core_ticks 0) l1=$(core_ticks 1)
  alive "$SERVER_PID" || { echo "FAIL: $t died under load:" >&2; tail -20 "$LOG" >&2; exit 1; }
  rss=$(peak_rss "$SERVER_PID")
  [[ $t == direct ]] || stop "$SERVER_PID"
  get() { awk -v k="$1" '$1 == "REPORT" && $2 == k {print $3}' "$f"; }
  local -a a0 b1 m0 n1 core=()
  read -r -a a0 <<<"$k0"
  read -r -a b1 <<<"$k1"
  read -r -a m0 <<<"$l0"
  read -r -a n1 <<<"$l1"
  for i in 0 1 2 3; do core+=("$((b1[i] - a0[i]))"); done
  # core 1 (wrk + origin): all its non-idle time, to see when the load side was the limit
  core+=("$((n1[0] + n1[1] + n1[2] - m0[0] - m0[1] - m0[2]))" "$((n1[3] - m0[3]))")
  printf '%s\t' "$s" "$t" "$conns" "$(get requests)" "$(get seconds)" "$(get rps)" "$(get p50)" "$(get p99)" \
    "$(get non2xx)" "$(get sockerr)" "$((c1 - c0))" "$CLK_TCK" "$rss" "${core[@]:0:5}" >>"$WORK/results.tsv"
  echo "${core[5]}" >>"$WORK/results.tsv"
  say "$(printf '%-6s %-16s c=%-3s %9s req/s  p50 %8s ms  p99 %8s ms  errors %s+%s  cpu %s ticks  hwm %s KiB' \
    "$s" "$t" "$conns" "$(get rps)" "$(get p50)" "$(get p99)" "$(get non2xx)" "$(get sockerr)" "$((c1 - c0))" "$rss")"
}
for s in $SIZES; do
  for t in $TARGETS; do measure "$t" "$s"; done
done
if [[ $UNPINNED == 1 && " $TARGETS " == *" reshape "* && " $SIZES " == *" 3kb "* ]]; then
  measure reshape-unpinned 3kb
fi
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

# --- offline: whole processes over the 8 MB document -------------------------------------------
if [[ $OFFLINE == 1 ]]; then
  say "offline figures over 8mb.json ($OFFLINE_RUNS runs each)"
  "$VENV/bin/python" "$PEERS/offline.py" --file "$WORK/data/8mb.json" --size 8mb --reshape "$RESHAPE_BIN" \
    --rules "$PEERS/rules" --python "$VENV/bin/python" --simdjson "$SIMD_BIN" --work "$WORK" \
    --runs "$OFFLINE_RUNS" --json "$WORK/offline.json"
  log_cmd "offline (each run $OFFLINE_RUNS times, whole process timed)" "$(
    "$PY" -c 'import json,sys; print("\n".join(o["command"] for o in json.load(open(sys.argv[1]))))' "$WORK/offline.json")"
  log_cmd "simdjson build" "g++ -O3 -std=c++17 -o $SIMD_BIN \$PEERS/simdjson_transform.cpp -lsimdjson"
fi

# --- the report ----------------------------------------------------------------------------------
ver() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo '?'; }
dirty=
[[ -z $(git status --porcelain -- Sources Package.swift 2>/dev/null) ]] || dirty=" (with uncommitted changes under Sources/)"
{
  echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
  # With RESHAPE_BIN built elsewhere, RESHAPE_COMMIT says from what (the checkout is only the harness).
  if [[ -n ${RESHAPE_COMMIT:-} ]]; then
    echo "commit=$RESHAPE_COMMIT (binary), harness at $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  else
    echo "commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$dirty"
  fi
  echo "reshape_version=reshape $("$RESHAPE_BIN" --version 2>/dev/null), release build"
  echo "nproc=$(nproc)"
  echo "cpu=$(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo)"
  echo "mem=$(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
  echo "kernel=$(uname -sr)"
  echo "os=$(. /etc/os-release && echo "$PRETTY_NAME")"
  echo "load_start=$LOAD_START"
  echo "load_end=$LOAD_END"
  echo "duration=$DURATION"
  echo "warmup=$WARMUP"
  echo "versions=nginx $(ver nginx), libnginx-mod-http-lua $(ver libnginx-mod-http-lua), lua-cjson $(ver lua-cjson)," \
    "node $(node --version), Python $("$VENV/bin/python" -c 'import sys, aiohttp, orjson; print(sys.version.split()[0], "aiohttp", aiohttp.__version__, "orjson", orjson.__version__)')," \
    "wrk $(ver wrk), jq $(ver jq), libsimdjson-dev $(ver libsimdjson-dev), g++ $(g++ -dumpfullversion)"
  echo "elapsed=$(($(date +%s) - STARTED))"
} >"$WORK/meta.txt"
mkdir -p "$(dirname "$OUT")"
"$PY" "$PEERS/report.py" "$WORK" "$OUT"
say "report written to $OUT"
sed -n '/^## Under load/,/^## Commands/p' "$OUT" | sed '$d'
