#!/usr/bin/env bash
# Prepares the build of the launcher against FerretDB v1.24.2 with its patches applied, in name order — ferretdb-id-in.patch
# (the `_id` `$in` pushdown; idpushdown_test.go says why), the four ferretdb-sjson-fast*.patch (a one-pass decoder of
# stored documents, falling back to FerretDB's own; the README says why) and ferretdb-untracked.patch (no per-iterator
# leak tracking: main.go says why) — and prints the go.mod to build with: `go build|vet|test -modfile=…`.
# It copies the module from Go's module cache into OUT_DIR (default: .tools/mongo-wire-ferretdb, not committed),
# applies the patches to that copy and writes OUT_DIR/herald.mod, this folder's go.mod plus a `replace` of FerretDB by
# the copy (and herald.sum, go.sum's copy). Nothing of FerretDB is committed but the patches; this folder's go.mod stays
# as it is, so a plain `go test .` builds unpatched FerretDB (and the pushdown tests then fail, saying so).
# `go build -overlay` would replace one file only, but Go refuses overlays of files in the module cache.
# Usage, in tools/mongo-wire: go test -modfile="$(bash patched-modfile.sh)" .
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-$here/../../.tools/mongo-wire-ferretdb}"
module=github.com/FerretDB/FerretDB
cd "$here"
go mod download "$module"
src="$(go list -m -f '{{.Dir}}' "$module")"
[ -d "$src" ] || { echo "patched-modfile: $module is not in the module cache" >&2; exit 1; }
mkdir -p "$out"
out="$(cd "$out" && pwd)"
rm -rf "$out/ferretdb"
cp -R "$src" "$out/ferretdb"
chmod -R u+w "$out/ferretdb"
# --force: never ask; a patch that no longer applies (another FerretDB version) fails here, rejects discarded.
for p in ferretdb-*.patch; do
  if ! patch --quiet --force --reject-file=- -p1 -d "$out/ferretdb" <"$p" >&2; then
    rm -rf "$out/ferretdb"
    echo "patched-modfile: $p does not apply to $src" >&2
    exit 1
  fi
done
{ cat go.mod; printf '\nreplace %s => %s\n' "$module" "$out/ferretdb"; } >"$out/herald.mod"
cp go.sum "$out/herald.sum"
echo "$out/herald.mod"
