#!/usr/bin/env bash
# terraform validate every example against the provider built from this tree
# (through dev_overrides: no registry, no terraform init). Both registry hosts
# are overridden: OpenTofu resolves "mlplatform/mlplatform" to registry.opentofu.org.
#
# hashicorp/google and hashicorp/helm (examples/gke-from-scratch) cannot be had
# offline: the Terraform registry is not reachable and the Go module proxy
# refuses their releases (their go.mod has no /vN suffix for their v7 and v3
# tags). They are replaced by scripts/schemaprovider, which serves the schemas
# the real providers reported (scripts/schemaprovider/schemas/*.json, recorded
# by scripts/record-provider-schemas.sh from builds of their release source):
# Terraform checks every name, type, nesting, block count and reference against
# them; the providers' own validation functions do not run. To validate with a
# real build instead, set GOOGLE_PROVIDER_DIR or HELM_PROVIDER_DIR to the
# directory of its terraform-provider-google (-helm) binary.
set -euo pipefail
cd "$(dirname "$0")/.."
export CHECKPOINT_DISABLE=1
TF=${TF_ACC_TERRAFORM_PATH:-terraform}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/bin/terraform-provider-mlplatform" .
go build -o "$tmp/schemaprovider" ./scripts/schemaprovider
for p in google helm; do
  mkdir -p "$tmp/$p" && cp "$tmp/schemaprovider" "$tmp/$p/terraform-provider-$p"
done
GOOGLE_DIR=${GOOGLE_PROVIDER_DIR:-$tmp/google}
HELM_DIR=${HELM_PROVIDER_DIR:-$tmp/helm}
cat > "$tmp/terraformrc" <<EOT
provider_installation {
  dev_overrides {
    "registry.terraform.io/mlplatform/mlplatform" = "$tmp/bin"
    "registry.opentofu.org/mlplatform/mlplatform" = "$tmp/bin"
    "registry.terraform.io/hashicorp/google" = "$GOOGLE_DIR"
    "registry.opentofu.org/hashicorp/google" = "$GOOGLE_DIR"
    "registry.terraform.io/hashicorp/helm" = "$HELM_DIR"
    "registry.opentofu.org/hashicorp/helm" = "$HELM_DIR"
  }
  direct {}
}
EOT
export TF_CLI_CONFIG_FILE=$tmp/terraformrc
"$TF" fmt -check -recursive examples/ || { echo "examples/ is not formatted: run terraform fmt -recursive examples/"; exit 1; }
fail=0
# The whole tree is copied first, so an example may use another's module by
# relative path (examples/multi-region uses ../training-cluster/modules/team).
mkdir -p "$tmp/validate"; cp -r examples "$tmp/validate/"
find "$tmp/validate" -name .terraform -prune -exec rm -rf {} +
for dir in $(find examples -name '*.tf' -exec dirname {} \; | sort -u); do
  work=$tmp/validate/$dir
  # Resource examples leave the provider source implicit, as the docs show them.
  if ! grep -qs required_providers "$work"/*.tf; then
    printf 'terraform {\n  required_providers {\n    mlplatform = { source = "mlplatform/mlplatform" }\n  }\n}\n' > "$work/zz_required_providers.tf"
  fi
  # Local modules (examples/training-cluster/modules/team) are installed by
  # `get`, which needs no registry; `init` would look up the provider there.
  if { [ -d "$work/modules" ] || grep -qs '^module ' "$work"/*.tf; } && ! out=$("$TF" -chdir="$work" get -no-color 2>&1); then echo "FAIL  $dir (get)"; echo "$out"; fail=1; continue; fi
  # Say which providers were stand-ins, so an "ok" is read for what it is.
  notes=()
  for p in google helm; do
    grep -qs "source *= *\"hashicorp/$p\"" "$work"/*.tf || continue
    real=${p^^}_PROVIDER_DIR
    if [ -n "${!real:-}" ]; then notes+=("$p: real build")
    else notes+=("$p: recorded schema of $(sed -n 's/.*"recorded_from": *"\([^"]*\)".*/\1/p' "scripts/schemaprovider/schemas/$p.json" 2>/dev/null || echo "nothing: no scripts/schemaprovider/schemas/$p.json")"); fi
  done
  note=""; [ ${#notes[@]} -eq 0 ] || note=" ($(IFS=';'; echo "${notes[*]}" | sed 's/;/; /g'))"
  if out=$("$TF" -chdir="$work" validate -no-color 2>&1); then echo "ok    $dir$note"; else echo "FAIL  $dir$note"; echo "$out"; fail=1; fi
done
exit $fail
