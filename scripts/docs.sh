#!/usr/bin/env bash
# Generates docs/ with tfplugindocs (go tool tfplugindocs, pinned in go.mod)
# from the provider's schema, templates/ and examples/. Works offline: nothing
# is downloaded, Terraform is never `init`ed.
#
#   scripts/docs.sh          regenerate docs/
#   scripts/docs.sh check    regenerate docs/ in place, then fail if it differs
#                            from what git has (changed or untracked files), if
#                            `tfplugindocs validate` rejects it, or if examples/
#                            is not `terraform fmt`ed
#
# Terraform: $TF_ACC_TERRAFORM_PATH if set (scripts/tools.sh writes it), else
# `terraform` on PATH. OpenTofu works too.
#
# How the schema is obtained: left to itself, `tfplugindocs generate` builds
# the provider and runs `terraform init` + `terraform providers schema` in a
# temp dir, with a terraform found on PATH by hc-install (and downloads the
# latest release from checkpoint/releases.hashicorp.com when there is none).
# To stay offline and honour TF_ACC_TERRAFORM_PATH, this script produces the
# schema itself — the provider built into a temp dir, a temp CLI config whose
# dev_overrides point registry.terraform.io/mlplatform/mlplatform at it (so no
# init is needed), `terraform providers schema -json` — and hands it over with
# --providers-schema, which skips tfplugindocs' own build and Terraform run.
set -euo pipefail

die() { printf '[docs] %s\n' "$*" >&2; exit 1; }
say() { printf '[docs] %s\n' "$*" >&2; }

mode=${1:-generate}
case $mode in
  generate | check) ;;
  *) die "usage: scripts/docs.sh [check]" ;;
esac

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

TF=${TF_ACC_TERRAFORM_PATH:-}
if [ -z "$TF" ]; then
  TF=$(command -v terraform || true)
fi
[ -n "$TF" ] && [ -x "$TF" ] ||
  die "no Terraform CLI: set TF_ACC_TERRAFORM_PATH or put terraform on PATH (scripts/tools.sh finds one)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A private CLI config: the locally built provider via dev_overrides, no
# registry, no plugin cache, no checkpoint calls.
mkdir -p "$tmp/bin" "$tmp/ws"
cat >"$tmp/terraformrc" <<EOF
provider_installation {
  dev_overrides {
    "registry.terraform.io/mlplatform/mlplatform" = "$tmp/bin"
  }
  direct {}
}
EOF
export TF_CLI_CONFIG_FILE=$tmp/terraformrc CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1
unset TF_CLI_ARGS TF_CLI_ARGS_providers TF_PLUGIN_CACHE_DIR TF_DATA_DIR TF_WORKSPACE

say "building the provider"
go build -o "$tmp/bin/terraform-provider-mlplatform" .

# The hostname is spelled out so OpenTofu resolves the same address.
cat >"$tmp/ws/main.tf" <<'EOF'
terraform {
  required_providers {
    mlplatform = {
      source = "registry.terraform.io/mlplatform/mlplatform"
    }
  }
}
EOF

say "reading the provider schema with $TF"
if ! (cd "$tmp/ws" && "$TF" providers schema -json) >"$tmp/schema.raw.json" 2>"$tmp/schema.stderr"; then
  cat "$tmp/schema.stderr" >&2
  die "terraform providers schema failed"
fi

# tfplugindocs looks the schema up under "<provider-name>" or
# "registry.terraform.io/hashicorp/<provider-name>" only, so re-key ours.
sed 's|"provider_schemas":{"registry.terraform.io/mlplatform/mlplatform":|"provider_schemas":{"mlplatform":|' \
  "$tmp/schema.raw.json" >"$tmp/schema.json"
grep -q '"provider_schemas":{"mlplatform":' "$tmp/schema.json" ||
  die "no schema for registry.terraform.io/mlplatform/mlplatform in the output of terraform providers schema -json"

say "generating docs/"
go tool tfplugindocs generate \
  --provider-name mlplatform \
  --providers-schema "$tmp/schema.json" \
  --rendered-website-dir docs \
  --examples-dir examples \
  --website-source-dir templates

[ "$mode" = check ] || exit 0

failed=0
say "validating docs/"
if ! go tool tfplugindocs validate --provider-name mlplatform --providers-schema "$tmp/schema.json" \
  --allowed-resource-subcategories "GKE,Kueue,Teams,Networking" >"$tmp/validate.out" 2>&1; then
  sed 's/^/  /' "$tmp/validate.out" >&2
  say "docs/ does not pass tfplugindocs validate"
  failed=1
fi
if ! "$TF" fmt -check -recursive examples/ >"$tmp/fmt.out" 2>&1; then
  say "examples/ is not formatted: run terraform fmt -recursive examples/"
  sed 's/^/  /' "$tmp/fmt.out" >&2
  failed=1
fi
if [ -n "$(git status --porcelain -- docs/)" ]; then
  say "docs/ is stale: run make docs and commit the result"
  git status --porcelain -- docs/ | sed 's/^/  /' >&2
  git --no-pager diff --stat -- docs/ >&2 || true
  failed=1
fi
[ "$failed" -eq 0 ] || exit 1
say "docs/ is up to date and examples/ is formatted"
