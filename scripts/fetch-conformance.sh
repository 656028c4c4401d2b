#!/usr/bin/env bash
# Fetches the official JSON-Schema-Test-Suite (draft 2020-12, optional tests and remotes) for
# the schema conformance tests, from PyPI: the `jsonschema` source distribution carries the
# suite in its `json/` folder. The version and the archive's SHA-256 are pinned here; a second
# run with the same pin does nothing. The suite lands in .build-conformance/json-schema-test-suite
# (ignored by git), where the tests look unless RESHAPE_CONFORMANCE_DIR names another copy.
set -euo pipefail
cd "$(dirname "$0")/.."

version=4.26.0
sha256=0c26707e2efad8aa1bfc5b7ce170f3fccc2e4918ff85989ba9ffa9facb2be326
dest=.build-conformance/json-schema-test-suite
stamp="$dest/.pinned"

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "jsonschema==$version $sha256" ]; then
  exit 0
fi

tools=.build-tools/venv
[ -x "$tools/bin/pip" ] || python3 -m venv "$tools"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "fetch-conformance: jsonschema==$version source distribution from PyPI" >&2
# pip checks the archive against the pinned hash as soon as it has it, before it prepares the
# distribution's metadata (which runs its build backend); the check below repeats it.
echo "jsonschema==$version --hash=sha256:$sha256" >"$work/requirements.txt"
"$tools/bin/pip" download --quiet --disable-pip-version-check --no-deps --no-binary :all: \
  --require-hashes -r "$work/requirements.txt" -d "$work"
archive="$work/jsonschema-$version.tar.gz"
[ -f "$archive" ] || { echo "fetch-conformance: pip did not leave $archive" >&2; exit 1; }
actual=$(sha256sum "$archive" | cut -d' ' -f1)
if [ "$actual" != "$sha256" ]; then
  echo "fetch-conformance: $archive has SHA-256 $actual, expected $sha256; refusing it" >&2
  exit 1
fi

tar -xzf "$archive" -C "$work" "jsonschema-$version/json"
rm -rf "$dest"
mkdir -p "$(dirname "$dest")"
mv "$work/jsonschema-$version/json" "$dest"
echo "jsonschema==$version $sha256" >"$stamp"
echo "fetch-conformance: the suite is in $dest" >&2
