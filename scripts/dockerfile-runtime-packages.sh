#!/usr/bin/env bash
# Prints the Debian packages the Dockerfile's runtime stage installs, one per line: the stage
# named "runtime", continuation lines joined, the words after "apt-get install" up to the next
# "&&", options dropped. The one reader of that list, for every script that needs it.
set -euo pipefail
cd "$(dirname "$0")/.."
packages=$(awk '
  /^FROM / { in_runtime = ($0 ~ / AS runtime$/) }
  in_runtime { line = line " " $0 }
  END { print line }' Dockerfile |
  sed 's/\\ / /g' | grep -o 'apt-get install[^&]*' | sed 's/apt-get install//' | tr ' ' '\n' | grep -v '^-' | grep -v '^$' || true)
[ -n "$packages" ] || { echo "no apt-get install list found in the Dockerfile's runtime stage" >&2; exit 1; }
echo "$packages"
