#!/usr/bin/env bash
# Checks that the Dockerfile's runtime stage installs every Debian package the shipped binaries
# need: reads each binary's NEEDED libraries (readelf -d), finds the package owning each
# (dpkg -S), and compares with the runtime stage's `apt-get install` list.
# Usage: scripts/check-runtime-deps.sh [BINARY ...]
#   Without arguments it builds reshape and reshape-demo-upstream release with
#   --static-swift-stdlib (as the Dockerfile does) into $SCRATCH_PATH (default .build),
#   which is quick when that build already exists.
set -euo pipefail
cd "$(dirname "$0")/.."

# In debian:bookworm-slim already (Essential or required by it), so not installed explicitly.
base_image_packages="libc6 libgcc-s1"
# Libraries the binary opens itself (dlopen) rather than links.
dlopened="libcurl.so.4"

binaries=("$@")
if [ ${#binaries[@]} -eq 0 ]; then
  scratch=${SCRATCH_PATH:-.build}
  build_log=$(mktemp)
  for product in reshape reshape-demo-upstream; do
    # Quiet unless the build fails: then its whole output explains why.
    swift build -c release --static-swift-stdlib --scratch-path "$scratch" --product "$product" >"$build_log" 2>&1 ||
      { cat "$build_log"; rm -f "$build_log"; echo "check-runtime-deps: the release build failed"; exit 1; }
  done
  rm -f "$build_log"
  bin_dir=$(swift build -c release --scratch-path "$scratch" --show-bin-path)
  binaries=("$bin_dir/reshape" "$bin_dir/reshape-demo-upstream")
fi

# The runtime stage's install list.
installed=$(scripts/dockerfile-runtime-packages.sh) || { echo "FAIL: no apt-get install list found in the Dockerfile's runtime stage"; exit 1; }
echo "runtime stage installs: $(echo $installed)"

# A path dpkg knows: with merged /usr, ldconfig says /lib/... while dpkg recorded /usr/lib/...
package_of() {
  local path=$1 owner
  for candidate in "$path" "$(readlink -f "$path")" "/usr$path" "/usr$(readlink -f "$path")"; do
    # awk reads to the end: a reader that stops early (head) lets the writer die of SIGPIPE,
    # which pipefail turns into a failure of this script.
    owner=$(dpkg -S "$candidate" 2>/dev/null | awk -F: 'NR == 1 { print $1 }') && [ -n "$owner" ] && { echo "$owner"; return; }
  done
}

missing=0
# check_library LIB NOTE: the package owning LIB must be in the base image or the install list.
check_library() {
  local lib=$1 note=$2 path package
  # No `exit` in awk, for the same SIGPIPE reason: keep the first match, read on.
  path=$(ldconfig -p | awk -v lib="$lib" '$1 == lib && /x86-64|AArch64|aarch64/ && !found { print $NF; found = 1 }')
  [ -n "$path" ] || path=$(ldconfig -p | awk -v lib="$lib" '$1 == lib && !found { print $NF; found = 1 }')
  package=${path:+$(package_of "$path" || true)}
  if [ -z "$package" ]; then
    echo "  FAIL $lib${note:+ ($note)}: no Debian package found for it"; missing=$((missing + 1))
  elif echo " $base_image_packages " | grep -q " $package "; then
    echo "  ok   $lib ($package, in the base image${note:+, $note})"
  elif echo "$installed" | grep -qx "$package"; then
    echo "  ok   $lib ($package${note:+, $note})"
  else
    echo "  FAIL $lib ($package${note:+, $note}) is not in the runtime stage's apt-get install list"; missing=$((missing + 1))
  fi
}
for binary in "${binaries[@]}"; do
  [ -x "$binary" ] || { echo "FAIL: $binary is not an executable"; exit 1; }
  echo "$binary:"
  for lib in $(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    check_library "$lib" ""
  done
done
# Loaded with dlopen when a server starts (Sources/CCurl), so not among the NEEDED entries above.
for lib in $dlopened; do check_library "$lib" "loaded at run time"; done
[ "$missing" -eq 0 ] || { echo "check-runtime-deps: $missing library(ies) not covered"; exit 1; }
echo "check-runtime-deps: every needed library is covered"
