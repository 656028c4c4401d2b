# Sourced by the check scripts that need a live server: starts the demo upstream and
# `reshape serve` on free loopback ports, waits until the server is ready, and stops both.
#   start_demo_upstream BIN_DIR WORK          sets upstream_port, upstream_pid
#   start_reshape BIN_DIR WORK ARGS...        sets address, admin, reshape_pid (DEMO_UPSTREAM_URL
#                                             points at the demo upstream); ready = /_reshape/ready 200
#   stop_demo_servers                         for an EXIT trap
# Messages name the calling script ($check). Only 127.0.0.1 is contacted.
upstream_pid="" reshape_pid="" upstream_port="" address="" admin=""
check=${check:-$(basename "$0" .sh)}

start_demo_upstream() {
  local bin=$1 work=$2
  "$bin/reshape-demo-upstream" --listen 127.0.0.1:0 >"$work/upstream.out" 2>&1 &
  upstream_pid=$!
  for _ in $(seq 100); do grep -q '^listening on ' "$work/upstream.out" && break; sleep 0.1; done
  upstream_port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$work/upstream.out")
  [ -n "$upstream_port" ] || { echo "$check: the demo upstream did not start: $(cat "$work/upstream.out")" >&2; exit 1; }
}

start_reshape() {
  local bin=$1 work=$2
  shift 2
  DEMO_UPSTREAM_URL="http://127.0.0.1:$upstream_port" "$bin/reshape" serve --listen 127.0.0.1:0 "$@" \
    >"$work/reshape.log" 2>&1 &
  reshape_pid=$!
  address="" admin=""
  for _ in $(seq 150); do
    kill -0 "$reshape_pid" 2>/dev/null || { echo "$check: reshape serve exited:" >&2; cat "$work/reshape.log" >&2; exit 1; }
    local line
    line=$(grep -m1 '"message":"listening"' "$work/reshape.log" || true)
    address=$(printf '%s' "$line" | sed -n 's/.*"address":"\([^"]*\)".*/\1/p')
    admin=$(printf '%s' "$line" | sed -n 's/.*"admin_address":"\([^"]*\)".*/\1/p')
    [ -n "$address" ] && [ "$(curl -s -o /dev/null -w '%{http_code}' "http://$admin/_reshape/ready" || true)" = 200 ] && return 0
    sleep 0.2
  done
  echo "$check: reshape serve did not become ready:" >&2
  cat "$work/reshape.log" >&2
  exit 1
}

stop_demo_servers() {
  for pid in $reshape_pid $upstream_pid; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in $reshape_pid $upstream_pid; do wait "$pid" 2>/dev/null || true; done
}
