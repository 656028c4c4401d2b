#!/usr/bin/env bash
# The Python packages the Swift tests use, in the venv in .build-tools: opentelemetry-proto
# and protobuf for the OTLP receiver of the tracing tests, jsonpatch for the cross-check of
# ReshapeLive's JSON Patch, PyJWT and cryptography to mint the tokens ReshapeAuth verifies. Quick when they are there already.
set -euo pipefail
cd "$(dirname "$0")/.."
tools=.build-tools/venv
[ -x "$tools/bin/python" ] || python3 -m venv "$tools"
if ! "$tools/bin/python" -c 'import opentelemetry.proto, google.protobuf, jsonpatch, jwt, cryptography' 2>/dev/null; then
  "$tools/bin/pip" install --quiet --disable-pip-version-check opentelemetry-proto protobuf jsonpatch PyJWT cryptography
fi
