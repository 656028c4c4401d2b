#!/usr/bin/env bash
# Sets up the machine and runs every check CI runs. The README's second command.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build --build-tests
swift test --skip-build
