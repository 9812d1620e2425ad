#!/usr/bin/env bash
# Builds the provider against terraform-plugin-framework with
# bench/framework-<version>-hotpaths.diff applied, leaving go.mod alone: the
# patch goes onto a copy of the module from the module cache, and a copy of
# go.mod replaces the module with it (go build -modfile). The patch is
# measured, not carried (bench/README.md); this reproduces the
# measurement.
#
#   scripts/framework-patch.sh [DIR]   # default .fwpatch; prints the binary's path
#
# Afterwards, in DIR: framework/ (the patched module; `go test ./...` there
# runs the framework's own tests), go.mod for `go test -modfile=DIR/go.mod`,
# and bin/terraform-provider-mlplatform for `mlplatform-bench -provider`.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.fwpatch}
mod=github.com/hashicorp/terraform-plugin-framework
ver=$(go list -m -f '{{.Version}}' "$mod")
diff=bench/framework-$ver-hotpaths.diff
if [[ ! -f $diff ]]; then
  echo "framework-patch: no $diff: go.mod has $mod $ver and the patch was made for another version" >&2
  exit 1
fi
src=$(go list -m -f '{{.Dir}}' "$mod")
echo "framework-patch: $mod $ver from $src, with $diff" >&2
rm -rf "$out/framework"
mkdir -p "$out"
cp -R "$src" "$out/framework"
chmod -R u+w "$out/framework"
patch --quiet -p1 -d "$out/framework" <"$diff"
cp go.mod "$out/go.mod"
cp go.sum "$out/go.sum"
go mod edit -modfile="$out/go.mod" -replace="$mod=$(cd "$out/framework" && pwd)"
go build -modfile="$out/go.mod" -o "$out/bin/terraform-provider-mlplatform" .
echo "$out/bin/terraform-provider-mlplatform"
