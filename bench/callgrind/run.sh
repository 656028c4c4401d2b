#!/usr/bin/env bash
# Instructions per request of `reshape serve` on the peer benchmark's 3 KB route, counted by
# valgrind's callgrind: repeatable on this VM where wall-clock figures move by ±40%.
#
#   bench/callgrind/run.sh [RESHAPE_BIN]       (default .build/release/reshape)
#   FEW=200 MANY=2200 SIZE=3kb ROUTE=users bench/callgrind/run.sh
#   ACCEPT_ENCODING=gzip SIZE=150kb bench/callgrind/run.sh     (or br, zstd; default identity)
#   KEEP=/tmp/cg bench/callgrind/run.sh      (keeps both callgrind files there, for callgrind_annotate)
#   HEADERS=browser bench/callgrind/run.sh   (each GET with a browser's dozen headers, not two)
#   RULES=bench/callgrind/limited ROUTE=limited/users EXPECT=429 bench/callgrind/run.sh
#                                            (a refusal: every answer after the first is a 429)
#
# The server runs under callgrind with one worker, in front of a keep-alive origin on loopback
# (bench/callgrind/origin.py serving bench/peers/gen.py's documents); one client sends FEW,
# then in a second run MANY, GETs over one keep-alive connection. Start-up, rule loading and
# shutdown cost the same in both runs, so (I(MANY) - I(FEW)) / (MANY - FEW) is what one request
# costs. Only 127.0.0.1 is contacted; every run is bounded by its request count.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
BIN=${1:-.build/release/reshape}
FEW=${FEW:-200}
MANY=${MANY:-2200}
SIZE=${SIZE:-3kb}
ROUTE=${ROUTE:-users}
ACCEPT_ENCODING=${ACCEPT_ENCODING:-}
RULES=${RULES:-bench/peers/rules}
EXPECT=${EXPECT:-200}
[ -x "$BIN" ] || { echo "callgrind: $BIN is missing (swift build -c release --product reshape)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "callgrind: valgrind is missing (apt-get install valgrind)" >&2; exit 1; }

work=$(mktemp -d)
origin_pid="" server_pid=""
stop() {
  for pid in $server_pid $origin_pid; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in $server_pid $origin_pid; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap stop EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() {
  for _ in $(seq 1 300); do
    python3 -c "import socket,sys; socket.create_connection(('127.0.0.1',$1),0.2)" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "callgrind: nothing listens on $1" >&2; exit 1
}

python3 bench/peers/gen.py "$work/data" >/dev/null
origin_port=$(free_port)
python3 bench/callgrind/origin.py "$work/data" "$origin_port" &
origin_pid=$!
wait_port "$origin_port"

instructions() {  # N: total instructions of one server run that answered N requests
  local port out
  port=$(free_port)
  out="$work/callgrind.$1"
  ORIGIN_URL="http://127.0.0.1:$origin_port" valgrind --tool=callgrind --callgrind-out-file="$out" \
    "$BIN" serve --rules "$RULES" --listen "127.0.0.1:$port" --workers 1 \
    >/dev/null 2>"$work/valgrind.$1.log" &
  server_pid=$!
  wait_port "$port"
  EXPECT=$EXPECT HEADERS=${HEADERS:-} python3 bench/callgrind/client.py "$port" "/$ROUTE/$SIZE" "$1" "$ACCEPT_ENCODING" >"$work/client.$1"
  kill -TERM "$server_pid"
  wait "$server_pid" || true
  server_pid=""
  # `summary:` (or `totals:`) is the whole run's instruction count.
  awk '/^(summary|totals):/ { print $2; exit }' "$out"
}

few=$(instructions "$FEW")
many=$(instructions "$MANY")
per=$(( (many - few) / (MANY - FEW) ))
if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp "$work/callgrind.$FEW" "$work/callgrind.$MANY" "$KEEP/"; fi
echo "callgrind: $FEW requests: $few instructions; $MANY requests: $many"
echo "callgrind: $per instructions per request ($SIZE, route $ROUTE, ${ACCEPT_ENCODING:-identity}," \
  "$(sed -n 's/^bytes: //p' "$work/client.$MANY") bytes per answer, $(basename "$BIN"))"
