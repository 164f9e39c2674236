#!/usr/bin/env bash
# Runs `go test` on packages of the patched FerretDB, without npm: copies the module the Go toolchain downloads
# (the version tools/ferretdb/go.mod pins) into a temporary folder, applies tools/ferretdb/patches/*.patch (each
# written against FerretDB's pristine files: any order), adds tools/ferretdb/_added, and runs `go test -modfile=<copy>/go.mod`
# from tools/ferretdb, as src/db/ferretdb.ts builds the program.
#
#   scripts/ferretdb-go-test.sh                          # internal/handler/sjson: the patch's tests and FerretDB's
#   scripts/ferretdb-go-test.sh -run EmbeddedWalk -v     # go test's own flags
#   scripts/ferretdb-go-test.sh -run '^$' -bench Embedded -benchmem
#   CGO_ENABLED=1 scripts/ferretdb-go-test.sh -race      # with the race detector (needs a C compiler)
#   FERRETDB_GO_TEST_PACKAGES="internal/handler/sjson internal/handler/handlerparams" scripts/ferretdb-go-test.sh
#
# Needs go and git (git apply, outside a repository, applies the patches as jsdiff does). The first run downloads
# the test dependencies (testify) through the Go module proxy. Exits with go test's status.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
src="$root/tools/ferretdb"
module=github.com/FerretDB/FerretDB
packages=${FERRETDB_GO_TEST_PACKAGES:-internal/handler/sjson}

work=$(mktemp -d "${TMPDIR:-/tmp}/ferretdb-go-test.XXXXXX")
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

export GOFLAGS=-mod=readonly CGO_ENABLED=${CGO_ENABLED:-0} # CGO_ENABLED=1 for -race

dir=$(cd "$src" && go mod download -json "$module" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -n "$dir" ] || { echo "go mod download $module gave no directory" >&2; exit 1; }

cp -r "$dir" "$work/FerretDB"
chmod -R u+w "$work/FerretDB"
# FerretDB's testutil looks for the repository's root (a .git folder) when a test imports it.
mkdir "$work/FerretDB/.git"

for patch in "$src"/patches/*.patch; do
  (cd "$work/FerretDB" && git apply -p1 "$patch")
done

(cd "$src/_added" && find . -type f) | while read -r file; do
  if [ -e "$work/FerretDB/$file" ]; then
    echo "tools/ferretdb/_added/${file#./} is FerretDB's" >&2
    exit 1
  fi
  mkdir -p "$(dirname "$work/FerretDB/$file")"
  cp "$src/_added/$file" "$work/FerretDB/$file"
done

cp "$src/go.mod" "$work/go.mod"
printf '\nreplace %s => "%s"\n' "$module" "$work/FerretDB" >>"$work/go.mod"
cp "$src/go.sum" "$work/go.sum"

args=()
for package in $packages; do
  args+=("$module/$package")
done

cd "$src"
go test -modfile="$work/go.mod" -count=1 "$@" "${args[@]}"
