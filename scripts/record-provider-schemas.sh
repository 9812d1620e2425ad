#!/usr/bin/env bash
# Records the schemas scripts/schemaprovider serves to `make examples-check`
# in place of providers that cannot be had offline (hashicorp/google,
# hashicorp/helm), from real builds of those providers:
#
#   scripts/record-provider-schemas.sh NAME=BINARY:VERSION ...
#   e.g. google=/tmp/terraform-provider-google:v7.45.0 helm=/tmp/terraform-provider-helm:v3.1.2
#
# Each BINARY is a terraform-provider-NAME built from that release's source
# (a checkout of its tag, then `CGO_ENABLED=0 go build -trimpath -o BINARY .`;
# its dependencies come from the Go module proxy, which does not serve the
# provider itself). Measured on 2026-12-02, 2 cores under a load of 12-16 with
# a warm module and build cache for the shared dependencies: google v7.45.0 30
# min and 1.9 GB of memory at most, helm v3.1.2 24.5 min and 1.0 GB.
# Only the provider block and the resource and data source types some example
# uses are kept (scripts/schemaprovider/schemas/NAME.json, with "recorded_from"
# naming the release). Re-run it when an example starts using another type.
set -euo pipefail
cd "$(dirname "$0")/.."
export CHECKPOINT_DISABLE=1
TF=${TF_ACC_TERRAFORM_PATH:-terraform}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
{
  printf 'provider_installation {\n  dev_overrides {\n'
  for arg in "$@"; do
    name=${arg%%=*}; rest=${arg#*=}; bin=${rest%:*}
    mkdir -p "$tmp/$name" && cp "$bin" "$tmp/$name/terraform-provider-$name"
    printf '    "registry.terraform.io/hashicorp/%s" = "%s"\n    "registry.opentofu.org/hashicorp/%s" = "%s"\n' "$name" "$tmp/$name" "$name" "$tmp/$name"
  done
  printf '  }\n  direct {}\n}\n'
} > "$tmp/terraformrc"
export TF_CLI_CONFIG_FILE=$tmp/terraformrc
mkdir -p "$tmp/cfg"
for arg in "$@"; do
  name=${arg%%=*}; rest=${arg#*=}; version=${rest##*:}
  printf 'terraform {\n  required_providers {\n    %s = { source = "hashicorp/%s" }\n  }\n}\n' "$name" "$name" > "$tmp/cfg/main.tf"
  "$TF" -chdir="$tmp/cfg" providers schema -json > "$tmp/$name.json"
  types=$(grep -rhoE "^(resource|data) \"${name}_[a-z0-9_]+\"" examples | sort -u | jq -Rn '[inputs | capture("^(?<kind>resource|data) \"(?<type>[^\"]+)\"")]')
  jq --argjson types "$types" --arg from "terraform-provider-$name $version" '
    {format_version, recorded_from: $from,
     provider_schemas: (.provider_schemas | map_values({
       provider,
       resource_schemas: ((.resource_schemas // {}) | with_entries(select(.key as $k | $types | any(.kind == "resource" and .type == $k)))),
       data_source_schemas: ((.data_source_schemas // {}) | with_entries(select(.key as $k | $types | any(.kind == "data" and .type == $k))))
     }))}' "$tmp/$name.json" > "scripts/schemaprovider/schemas/$name.json"
  echo "scripts/schemaprovider/schemas/$name.json: $(jq -r '.provider_schemas[] | [(.resource_schemas | keys[]), (.data_source_schemas | keys[] | "data." + .)] | join(" ")' "scripts/schemaprovider/schemas/$name.json")"
done
