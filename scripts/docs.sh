#!/usr/bin/env bash
# Generates docs/ with tfplugindocs (go tool tfplugindocs, pinned in go.mod)
# from the provider's schema, templates/ and examples/. Works offline: nothing
# is downloaded, Terraform is never `init`ed.
#
#   scripts/docs.sh          regenerate docs/
#   scripts/docs.sh check    regenerate docs/ in place, then fail if it differs
#                            from what git has (changed or untracked files), if
#                            `tfplugindocs validate` rejects it, if examples/
#                            is not `terraform fmt`ed, or if the example's
#                            diagram (docs/images/training-cluster.png) was drawn
#                            from another Mermaid source than the report's golden
#
# generate also draws docs/images/training-cluster.png when its source changed
# (scripts/mermaid.sh render: Node.js and chromium); without them it says so
# and goes on. check never draws: it compares the Mermaid source, not pixels.
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

# The example's diagram, which the README links: docs/images/training-cluster.png,
# drawn from the Mermaid source in the golden of `mlplatform report` on a real plan
# of examples/training-cluster (TestRealPlanOfTrainingCluster). Beside it,
# training-cluster.mmd is the source it was drawn from: generate draws it again
# only when the source changed (with scripts/mermaid.sh render: Node.js and
# chromium; without them it says so and leaves both as they were, so check
# reports them stale). check compares the source, never the PNG's bytes.
diagram_golden=internal/report/testdata/real_training_cluster.md
mmd=docs/images/training-cluster.mmd
png=docs/images/training-cluster.png
awk '/^```mermaid$/ { on = 1; next } /^```$/ { if (on) exit } on' "$diagram_golden" >"$tmp/diagram.mmd"
[ -s "$tmp/diagram.mmd" ] || die "no Mermaid diagram in $diagram_golden"
diagram_current() { cmp -s "$tmp/diagram.mmd" "$mmd" && [ -s "$png" ]; }
if [ "$mode" = generate ]; then
  if diagram_current; then
    say "$png is drawn from the current diagram"
  else
    rc=0
    scripts/mermaid.sh render "$tmp/diagram.mmd" "$tmp/diagram.png" || rc=$?
    case $rc in
      0)
        mkdir -p docs/images
        cp "$tmp/diagram.png" "$png" && cp "$tmp/diagram.mmd" "$mmd"
        say "drew $png from the diagram of $diagram_golden"
        ;;
      3) say "SKIPPED drawing $png (see above): it and $mmd stay as they were, and make docs-check reports them stale" ;;
      *) die "scripts/mermaid.sh render failed" ;;
    esac
  fi
fi

[ "$mode" = check ] || exit 0

failed=0
if ! diagram_current; then
  say "$png is stale: the diagram in $diagram_golden differs from $mmd, the source it was drawn from;" \
    "run make docs where Node.js and chromium are installed (apt-get install -y chromium) and commit both"
  diff -u "$mmd" "$tmp/diagram.mmd" | sed 's/^/  /' >&2 || true
  failed=1
fi
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
