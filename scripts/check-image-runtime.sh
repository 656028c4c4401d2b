#!/usr/bin/env bash
# Runs the container image's runtime stage for real, without a Docker engine: builds a bookworm
# `minbase` root filesystem with debootstrap, installs exactly the packages the Dockerfile's
# runtime stage installs, adds the uid 10001 user and the release binaries as the Dockerfile
# does, then, in a private mount namespace, runs `reshape serve` and the demo upstream inside it
# (chroot as 10001:10001, root filesystem read-only, rules mounted read-only at
# /etc/reshape/rules) and checks a normalized answer, /_reshape/ready, the Dockerfile's own
# HEALTHCHECK command run inside the root, and a clean SIGTERM (exit 0).
#
# Usage: scripts/check-image-runtime.sh [RESHAPE_BIN UPSTREAM_BIN]
#   Without arguments it builds both in release with --static-swift-stdlib into $SCRATCH_PATH
#   (default .build), as the Dockerfile and scripts/check-runtime-deps.sh do.
# Environment: MIRROR (http://deb.debian.org/debian), CACHE (.build-image: the root filesystem,
#   kept as a tarball and rebuilt only when the runtime package list changes).
# Needs root (debootstrap, chroot, mount namespaces); installs debootstrap when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--inside" ]; then
  # In the private mount namespace: $2 is the assembled root, $3 the rules, $4-$6 the ports
  # (reshape, the demo upstream, reshape's admin listener).
  root=$2 rules=$3 port=$4 upstream_port=$5 admin_port=$6
  upstream= server=
  # The root read-only first: a bind of it made later would hide the mounts below.
  mount --bind "$root" "$root"
  mount -o remount,bind,ro "$root"
  mount --bind "$rules" "$root/etc/reshape/rules"
  mount -o remount,bind,ro "$root/etc/reshape/rules"
  mount -t proc proc "$root/proc"
  mount --bind /dev "$root/dev"
  # A command in the image as its user, with only the Dockerfile's environment. An array, not a
  # function: started in the background, `$!` is then the process itself (chroot and env exec),
  # so SIGTERM reaches reshape and not a subshell.
  in_image=(chroot --userspec=10001:10001 "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
            RESHAPE_LISTEN="127.0.0.1:$port" RESHAPE_RULES=/etc/reshape/rules DEMO_UPSTREAM_URL="http://127.0.0.1:$upstream_port")
  fail() { echo "FAIL: $*"; [ -z "$server$upstream" ] || kill $server $upstream 2>/dev/null || true; exit 1; }
  start_reshape() {  # $1: the readiness URL to wait for
    "${in_image[@]}" /usr/local/bin/reshape serve >"$root.server.log" 2>&1 &
    server=$!
    for _ in $(seq 100); do
      curl -fs -o /dev/null "$1" && return
      kill -0 "$server" 2>/dev/null || { cat "$root.server.log"; fail "reshape serve exited at start"; }
      sleep 0.1
    done
  }
  stop_reshape() {  # SIGTERM must drain and exit 0
    kill -TERM "$server"
    local status=0
    wait "$server" || status=$?
    [ "$status" -eq 0 ] || { cat "$root.server.log"; fail "reshape exited $status after SIGTERM"; }
  }
  "${in_image[@]}" /usr/local/bin/reshape-demo-upstream --listen "127.0.0.1:$upstream_port" >/dev/null 2>&1 &
  upstream=$!
  # It makes its demo key pair before it listens: reshape may be ready first.
  for _ in $(seq 100); do
    curl -fs -o /dev/null "http://127.0.0.1:$upstream_port/_log" && break
    kill -0 "$upstream" 2>/dev/null || fail "the demo upstream exited at start"
    sleep 0.1
  done
  start_reshape "http://127.0.0.1:$port/_reshape/ready"
  ready=$(curl -fs "http://127.0.0.1:$port/_reshape/ready") || { cat "$root.server.log"; fail "/_reshape/ready did not answer 200"; }
  echo "ok   /_reshape/ready: $ready"
  answer=$(curl -fs "http://127.0.0.1:$port/users") || fail "GET /users did not answer 200"
  python3 - "$answer" <<'PY' || fail "GET /users is not a normalized collection: $answer"
import json, sys
objects = json.loads(sys.argv[1])["objects"]
assert objects and all(isinstance(o.get("objectId"), str) and o.get("name") for o in objects)
print(f"ok   GET /users: {len(objects)} normalized records")
PY
  # The HEALTHCHECK's exec-form command, exactly as the Dockerfile writes it.
  mapfile -t health < <(python3 - <<'PY'
import json, re
text = open("Dockerfile").read().replace("\\\n", " ")
line = next(l for l in text.splitlines() if l.startswith("HEALTHCHECK"))
print("\n".join(json.loads(line[line.index("CMD") + 3:].strip())))
PY
)
  "${in_image[@]}" "${health[@]}" || fail "the Dockerfile's HEALTHCHECK command failed inside the image"
  echo "ok   HEALTHCHECK (${health[*]:0:2} ...) exits 0 inside the image"
  if "${in_image[@]}" /bin/sh -c 'echo x > /etc/reshape/written' 2>/dev/null; then fail "the root filesystem is writable"; fi
  uids=$(awk '/^Uid:/ { print $2 ":" $3 }' "/proc/$server/status")
  [ "$uids" = "10001:10001" ] || fail "reshape runs with uid $uids, not 10001"
  echo "ok   root filesystem and rules are read-only; reshape runs as uid 10001"
  stop_reshape
  echo "ok   SIGTERM: drained and exited 0"

  # Again with the admin endpoints on their own port, as the Kubernetes manifests run it: the
  # HEALTHCHECK must then ask that port (the public one answers only rule routes).
  in_image+=(RESHAPE_ADMIN_LISTEN="127.0.0.1:$admin_port")
  start_reshape "http://127.0.0.1:$admin_port/_reshape/ready"
  public=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/_reshape/live")
  [ "$public" = 404 ] || fail "with an admin port, the public port answered /_reshape/live with $public"
  "${in_image[@]}" "${health[@]}" || fail "the HEALTHCHECK failed with RESHAPE_ADMIN_LISTEN set"
  echo "ok   with RESHAPE_ADMIN_LISTEN: HEALTHCHECK exits 0 on the admin port; the public port has no /_reshape/*"
  stop_reshape
  kill "$upstream" 2>/dev/null || true
  exit 0
fi

[ "$(id -u)" -eq 0 ] || { echo "check-image-runtime: needs root (debootstrap, chroot, mount namespaces)"; exit 1; }
command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
MIRROR=${MIRROR:-http://deb.debian.org/debian}
CACHE=${CACHE:-.build-image}

if [ $# -eq 2 ]; then
  reshape_bin=$1 upstream_bin=$2
else
  scratch=${SCRATCH_PATH:-.build}
  for product in reshape reshape-demo-upstream; do
    swift build -c release --static-swift-stdlib --scratch-path "$scratch" --product "$product" >/dev/null
  done
  bin_dir=$(swift build -c release --scratch-path "$scratch" --show-bin-path)
  reshape_bin=$bin_dir/reshape upstream_bin=$bin_dir/reshape-demo-upstream
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root

# The root filesystem, cached per package list: debootstrap and apt take a minute or two.
packages=$(scripts/dockerfile-runtime-packages.sh | tr '\n' ' ')
mkdir -p "$CACHE"
tarball=$CACHE/rootfs-$(echo "bookworm minbase clean $packages" | sha256sum | cut -c1-16).tar
if [ ! -f "$tarball" ]; then
  echo "building the runtime root filesystem (bookworm minbase + $packages)"
  debootstrap --variant=minbase bookworm "$root" "$MIRROR" >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log"; echo "FAIL: debootstrap"; exit 1; }
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  # The Dockerfile's runtime RUN line: the same packages, no recommends, the same user.
  # shellcheck disable=SC2086
  chroot "$root" /bin/sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $packages \
    && apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin \
    && groupadd --system --gid 10001 reshape \
    && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin reshape" \
    >"$work/apt.log" 2>&1 || { tail -20 "$work/apt.log"; echo "FAIL: installing the runtime packages"; exit 1; }
  tar -C "$root" -cf "$tarball.partial" . && mv "$tarball.partial" "$tarball"
  rm -rf "$root"
fi
mkdir -p "$root"
tar -C "$root" -xf "$tarball"

# The Dockerfile's COPY: stripped binaries; the rules directory exists for the mount.
install -m 0755 "$reshape_bin" "$root/usr/local/bin/reshape"
install -m 0755 "$upstream_bin" "$root/usr/local/bin/reshape-demo-upstream"
strip "$root/usr/local/bin/reshape" "$root/usr/local/bin/reshape-demo-upstream"
mkdir -p "$root/etc/reshape/rules"
echo "image: $(du -sh "$root" | cut -f1) root filesystem; reshape $(du -h "$root/usr/local/bin/reshape" | cut -f1) stripped," \
     "reshape-demo-upstream $(du -h "$root/usr/local/bin/reshape-demo-upstream" | cut -f1)"

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
unshare --mount --propagation private "$0" --inside "$root" "$PWD/examples/rules" "$(free_port)" "$(free_port)" "$(free_port)"
echo "check-image-runtime: the runtime stage runs reshape as built"
