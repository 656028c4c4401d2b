#!/usr/bin/env bash
# Issue 20's live fan-out benchmark: N subscribers on one stream of the 8 MB collection, changes
# at 100/s, and the CPU and memory `reshape serve --workers 1` spends on them (see bench.py).
#
#   bench/live-fanout/run.sh [RESHAPE_BIN] [bench.py options...]
#   bench/live-fanout/run.sh .build/release/reshape --subscribers 10,1000 --changes 3000 --rate 100
#
# Build the server first: swift build -c release --product reshape. Only 127.0.0.1 is used.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${1:-$ROOT/.build/release/reshape}"
shift || true
[ -x "$BIN" ] || { echo "no server binary at $BIN: swift build -c release --product reshape" >&2; exit 2; }

# 1,000 subscribers are 1,000 sockets here and 1,000 in the server: raise the open-file limit
# (both inherit it) as far as the hard limit allows.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || ulimit -n 65536 2>/dev/null || true

DATA="$(mktemp -d)"
trap 'rm -rf "$DATA"' EXIT
python3 "$ROOT/bench/peers/gen.py" "$DATA" >/dev/null  # 8mb.json, the peer benchmark's collection

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)),"\
     "load $(cut -d' ' -f1-3 /proc/loadavg), $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
# The server's whole fan-out must finish within the run: bench.py times out each phase.
timeout 3600 python3 "$ROOT/bench/live-fanout/bench.py" "$BIN" "$DATA" "$@"
