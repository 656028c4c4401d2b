#!/usr/bin/env bash
# Installs the Debian packages Reshape builds and runs against, if any are missing.
# Safe to run repeatedly; needs root or sudo only when something is missing.
set -euo pipefail
packages=(libuv1-dev libcurl4-openssl-dev libhttp-parser-dev libpcre2-dev libyaml-dev libssl-dev libhiredis-dev libisal-dev libbrotli-dev libzstd-dev redis-server pkg-config curl brotli zstd chromium)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
command -v swift >/dev/null || { echo "setup: swift is not on PATH (install Swift 6 from swift.org)" >&2; exit 1; }
