#!/usr/bin/env bash
# terraform validate every example against the provider built from this tree
# (through dev_overrides: no registry, no terraform init). Both registry hosts
# are overridden: OpenTofu resolves "mlplatform/mlplatform" to registry.opentofu.org.
set -euo pipefail
cd "$(dirname "$0")/.."
export CHECKPOINT_DISABLE=1
TF=${TF_ACC_TERRAFORM_PATH:-terraform}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/bin/terraform-provider-mlplatform" .
cat > "$tmp/terraformrc" <<EOT
provider_installation {
  dev_overrides {
    "registry.terraform.io/mlplatform/mlplatform" = "$tmp/bin"
    "registry.opentofu.org/mlplatform/mlplatform" = "$tmp/bin"
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
  if out=$("$TF" -chdir="$work" validate -no-color 2>&1); then echo "ok    $dir"; else echo "FAIL  $dir"; echo "$out"; fail=1; fi
done
exit $fail
