#!/usr/bin/env bash
# Builds (never downloads) everything the tests and the sandbox need, into a
# version-keyed cache, and finds a Terraform CLI. Idempotent: a second run only
# checks markers and prints the paths.
#
#   kube-apiserver, kube-controller-manager  from k8s.io/kubernetes  (K8S_VERSION)
#   etcd                                     from go.etcd.io/etcd/server/v3 (ETCD_VERSION)
#   kueue manager + its CRDs and webhooks    from sigs.k8s.io/kueue   (KUEUE_VERSION)
#   the same for the oldest supported Kueue  (KUEUE_OLDEST_VERSION; only with
#                                            `compat`: the compatibility suite and the
#                                            upgrade test run on it)
#   ProvisioningRequest CRD (as on GKE)      from k8s.io/autoscaler/cluster-autoscaler/apis (the version Kueue pins)
#   jobset manager + its CRDs and webhooks   from sigs.k8s.io/jobset (the version the newest Kueue's
#                                            go.mod pins; one build, lent to the oldest Kueue's set)
#   terraform >= 1.5 from PATH, else OpenTofu built from its module source (TOFU_VERSION)
#
# Writes $MLPLATFORM_CACHE/tools.env (sourced by the GNUmakefile and .ci/run):
#   MLPLATFORM_TEST_BINS, MLPLATFORM_TEST_BINS_OLDEST (the same Kubernetes and etcd
#   with the oldest supported Kueue), TF_ACC_TERRAFORM_PATH (+ OpenTofu settings
#   when tofu is used).
# Each binary is built once per version: a directory of another version set that
# already holds it (e.g. kube 1.36.2 for Kueue 0.19.2 and 0.17.0) lends it by a
# hard link. Only the Go module proxy is needed. Cold: ~30-45 min on 2 cores (one Kueue; `compat` adds the oldest); warm: ~1 s.
#
#   scripts/tools.sh compat  everything above, and the oldest supported Kueue's set
#                          too (`make compat`); tools.env then names it in
#                          MLPLATFORM_TEST_BINS_OLDEST. `all` (the default) builds
#                          the newest only: a cold CI run builds one Kueue.
#   scripts/tools.sh cli   only the Terraform CLI (for `make unit`: the plan-only
#                          tests run it, no control plane): writes and prints
#                          $MLPLATFORM_CACHE/cli.env, TF_ACC_TERRAFORM_PATH (+ the
#                          OpenTofu settings). Instant with terraform >= 1.5 on PATH.
#   scripts/tools.sh lint  golangci-lint and actionlint (for `make lint`), built with
#                          `go install <module>@<version>`; writes and prints
#                          $MLPLATFORM_CACHE/lint.env (GOLANGCI_LINT, ACTIONLINT).
#   scripts/tools.sh release  goreleaser (for `make release-check`), the same way;
#                          writes and prints $MLPLATFORM_CACHE/release.env (GORELEASER).
#
# TF_VERSION=1.5.7 (all, cli): use Terraform of exactly that version instead of
# the PATH one: the PATH terraform when it is that version, else built from
# github.com/hashicorp/terraform@v<TF_VERSION> into $MLPLATFORM_CACHE/terraform-v<v>/
# (cold: ~4-5 min). TF_VERSION=tofu: OpenTofu (TOFU_VERSION) even when a terraform
# is on PATH.
set -euo pipefail

MODE=${1:-all}
case $MODE in
  all | compat | cli | lint | release) ;;
  *) echo "usage: $0 [compat|cli|lint|release]" >&2; exit 2 ;;
esac

# KUEUE_VERSION is the newest supported Kueue (go.mod's sigs.k8s.io/kueue, a
# test keeps them equal); KUEUE_OLDEST_VERSION the oldest (internal/kueue
# versions.go). etcd 3.6.8 is what k8s.io/kubernetes 1.36.2 requires.
# A run on versions other than the defaults writes its env files under a name of
# its own (tools-kueue0.17.0.env, ...), as the GNUmakefile reads them.
VERSION_SUFFIX=${K8S_VERSION:+-k8s$K8S_VERSION}${KUEUE_VERSION:+-kueue$KUEUE_VERSION}
K8S_VERSION=${K8S_VERSION:-1.36.2}
ETCD_VERSION=${ETCD_VERSION:-3.6.8}
KUEUE_VERSION=${KUEUE_VERSION:-0.19.2}
KUEUE_OLDEST_VERSION=${KUEUE_OLDEST_VERSION:-0.17.0}
TOFU_VERSION=${TOFU_VERSION:-1.12.6}
TF_VERSION=${TF_VERSION:-}
GOLANGCI_LINT_VERSION=${GOLANGCI_LINT_VERSION:-2.15.0}
ACTIONLINT_VERSION=${ACTIONLINT_VERSION:-1.7.12}
GORELEASER_VERSION=${GORELEASER_VERSION:-2.15.1}
CACHE=${MLPLATFORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mlplatform}
bins_dir() { echo "$CACHE/bins/k8s-$K8S_VERSION-etcd-$ETCD_VERSION-kueue-$1"; }
BINS=$(bins_dir "$KUEUE_VERSION")
OLDEST=$(bins_dir "$KUEUE_OLDEST_VERSION")
export CGO_ENABLED=0 GOFLAGS=-mod=mod GOWORK=off

say() { printf '[tools] %s\n' "$*" >&2; }
elapsed() { echo "$(( $(date +%s) - $1 ))s"; }
mkdir -p "$CACHE"
case $MODE in all) mkdir -p "$BINS" ;; compat) mkdir -p "$BINS" "$OLDEST" ;; esac
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
# write FILE CONTENT: replaced at once, so a concurrent reader sees old or new
write() { printf '%s\n' "$2" > "$1.$$" && mv -f "$1.$$" "$1"; }

# go_tool NAME PACKAGE VERSION [LDFLAGS]: `go install PACKAGE@vVERSION` into
# $CACHE/NAME-vVERSION/ once; prints the binary's path.
go_tool() {
  local name=$1 pkg=$2 ver=$3 ldflags=${4:-} dir=$CACHE/$1-v$3 t0
  if [ ! -x "$dir/$name" ]; then
    t0=$(date +%s); say "building $name v$ver from $pkg (go install; once)"
    mkdir -p "$dir.tmp$$"
    # (errexit does not reach into the $(go_tool ...) that calls this: return by hand)
    (cd "$TMP" && GOBIN="$dir.tmp$$" go install -trimpath -ldflags="-s -w $ldflags" "$pkg@v$ver") \
      || { rm -rf "$dir.tmp$$"; say "building $name v$ver failed"; return 1; }
    rm -rf "$dir" && mv "$dir.tmp$$" "$dir"
    say "$name v$ver built in $(elapsed "$t0")"
  fi
  echo "$dir/$name"
}

if [ "$MODE" = lint ]; then
  GL=$(go_tool golangci-lint github.com/golangci/golangci-lint/v2/cmd/golangci-lint "$GOLANGCI_LINT_VERSION" \
    "-X main.version=$GOLANGCI_LINT_VERSION -X main.commit=go-install -X main.date=unknown")
  AL=$(go_tool actionlint github.com/rhysd/actionlint/cmd/actionlint "$ACTIONLINT_VERSION" \
    "-X github.com/rhysd/actionlint.version=$ACTIONLINT_VERSION")
  write "$CACHE/lint.env" "GOLANGCI_LINT=$GL"$'\n'"ACTIONLINT=$AL"
  say "tools ready: $CACHE/lint.env"; cat "$CACHE/lint.env"; exit 0
fi
if [ "$MODE" = release ]; then
  GR=$(go_tool goreleaser github.com/goreleaser/goreleaser/v2 "$GORELEASER_VERSION" \
    "-X main.version=$GORELEASER_VERSION -X main.builtBy=go-install")
  write "$CACHE/release.env" "GORELEASER=$GR"
  say "tools ready: $CACHE/release.env"; cat "$CACHE/release.env"; exit 0
fi

# lend MARKER PATH...: hard-link (else copy) PATH... and MARKER from another
# version set's directory that has MARKER into $BINS; false when none has it.
lend() {
  local marker=$1 from p; shift
  for from in "$CACHE"/bins/*/"$marker"; do
    from=$(dirname "$from")
    [ -f "$from/$marker" ] && [ "$from" != "$BINS" ] || continue
    for p in "$@"; do
      mkdir -p "$(dirname "$BINS/$p")" && rm -rf "${BINS:?}/$p" && { cp -al "$from/$p" "$BINS/$p" 2>/dev/null || cp -a "$from/$p" "$BINS/$p"; } || return 1
    done
    touch "$BINS/$marker"; say "$marker: reused from $from"; return 0
  done
  return 1
}

# build_set KUEUE: kube-apiserver, kube-controller-manager, etcd and that
# Kueue (manager, CRDs, webhooks, the ProvisioningRequest CRD) in its directory.
build_set() {
  local BINS KUEUE_VERSION=$1 t0 mod staging minor ldflags p dir kdir ver adir
  BINS=$(bins_dir "$KUEUE_VERSION")
  mkdir -p "$BINS"
  # --- kube-apiserver + kube-controller-manager -------------------------------
  # k8s.io/kubernetes requires its staging modules at v0.0.0 (replaced in its own
  # repo), so build through a throwaway main module that pins each of them.
  if [ ! -f "$BINS/.kube-$K8S_VERSION" ] && ! lend ".kube-$K8S_VERSION" kube-apiserver kube-controller-manager; then
    t0=$(date +%s); say "building kube-apiserver and kube-controller-manager v$K8S_VERSION (cold: ~13-15 min on 2 cores)"
    rm -rf "$TMP/kube" && mkdir "$TMP/kube" && cd "$TMP/kube"
    go mod download "k8s.io/kubernetes@v$K8S_VERSION"
    mod=$(go env GOMODCACHE)/cache/download/k8s.io/kubernetes/@v/v$K8S_VERSION.mod
    staging=0.${K8S_VERSION#1.}
    {
      printf 'module kubebuild\n\ngo 1.25.0\n\ngodebug default=go1.25\n\nrequire k8s.io/kubernetes v%s\n\nreplace (\n' "$K8S_VERSION"
      awk -v v="$staging" '/^\tk8s\.io\/[a-z0-9-]+ v0\.0\.0$/ {print "\t" $1 " => " $1 " v" v}' "$mod"
      printf ')\n'
    } > go.mod
    printf '//go:build tools\n\npackage tools\n\nimport (\n\t_ "k8s.io/kubernetes/cmd/kube-apiserver"\n\t_ "k8s.io/kubernetes/cmd/kube-controller-manager"\n)\n' > tools.go
    go mod tidy >/dev/null 2>&1 || go mod tidy
    minor=${K8S_VERSION#1.}; minor=${minor%%.*}
    ldflags="-s -w"
    for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
      ldflags="$ldflags -X $p.gitVersion=v$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
    done
    go build -trimpath -ldflags="$ldflags" -o "$BINS/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver
    go build -trimpath -ldflags="$ldflags" -o "$BINS/kube-controller-manager" k8s.io/kubernetes/cmd/kube-controller-manager
    touch "$BINS/.kube-$K8S_VERSION"; say "kube binaries built in $(elapsed "$t0")"
  fi

  # --- etcd --------------------------------------------------------------------
  # The server/v3 module root is package main but has replace directives, so
  # `go install` is refused; build it through a main module instead.
  if [ ! -f "$BINS/.etcd-$ETCD_VERSION" ] && ! lend ".etcd-$ETCD_VERSION" etcd; then
    t0=$(date +%s); say "building etcd v$ETCD_VERSION (cold: ~2 min)"
    rm -rf "$TMP/etcd" && mkdir "$TMP/etcd" && cd "$TMP/etcd"
    printf 'module etcdbuild\n\ngo 1.24.0\n\nrequire go.etcd.io/etcd/server/v3 v%s\n' "$ETCD_VERSION" > go.mod
    printf '//go:build tools\n\npackage tools\n\nimport _ "go.etcd.io/etcd/server/v3"\n' > tools.go
    go mod tidy >/dev/null 2>&1 || go mod tidy
    go build -trimpath -ldflags='-s -w' -o "$BINS/etcd" go.etcd.io/etcd/server/v3
    touch "$BINS/.etcd-$ETCD_VERSION"; say "etcd built in $(elapsed "$t0")"
  fi

  # --- Kueue manager, CRDs and webhook manifests --------------------------------
  if [ ! -f "$BINS/.kueue-$KUEUE_VERSION" ] && ! lend ".kueue-$KUEUE_VERSION" kueue kueue-manifests/crd kueue-manifests/webhooks.yaml; then
    t0=$(date +%s); say "building the Kueue manager v$KUEUE_VERSION (cold: ~8-12 min)"
    GOBIN=$BINS go install -trimpath -ldflags='-s -w' "sigs.k8s.io/kueue/cmd/kueue@v$KUEUE_VERSION"
    dir=$(cd "$TMP" && go mod download -json "sigs.k8s.io/kueue@v$KUEUE_VERSION" | sed -n 's/.*"Dir": "\(.*\)",*$/\1/p')
    rm -rf "$BINS/kueue-manifests/crd" && mkdir -p "$BINS/kueue-manifests/crd"
    cp "$dir"/config/components/crd/bases/*.yaml "$BINS/kueue-manifests/crd/"
    cp "$dir"/config/components/webhook/manifests.yaml "$BINS/kueue-manifests/webhooks.yaml"
    chmod -R u+w "$BINS/kueue-manifests"
    touch "$BINS/.kueue-$KUEUE_VERSION"; say "kueue built in $(elapsed "$t0")"
  fi

  # --- JobSet manager, CRDs and webhook manifests ----------------------------------
  # The version the NEWEST Kueue is built with (JOBSET_VERSION, read from its
  # go.mod below), for every version set: the oldest Kueue's set borrows it.
  # The module root is the manager's main package. `go install` of it is
  # refused where the proxy does not list the module's versions (it looks for
  # a deprecation notice there), so build it through a main module, as etcd.
  if [ ! -f "$BINS/.jobset-$JOBSET_VERSION" ] && ! lend ".jobset-$JOBSET_VERSION" jobset jobset-manifests; then
    t0=$(date +%s); say "building the JobSet manager v$JOBSET_VERSION (cold: ~5-12 min on 2 cores)"
    rm -rf "$TMP/jobset" && mkdir "$TMP/jobset" && cd "$TMP/jobset"
    printf 'module jobsetbuild\n\ngo 1.26.0\n\nrequire sigs.k8s.io/jobset v%s\n' "$JOBSET_VERSION" > go.mod
    printf '//go:build tools\n\npackage tools\n\nimport _ "sigs.k8s.io/jobset"\n' > tools.go
    go mod tidy >/dev/null 2>&1 || go mod tidy
    go build -trimpath -ldflags="-s -w -X sigs.k8s.io/jobset/pkg/version.GitVersion=v$JOBSET_VERSION" \
      -o "$BINS/jobset" sigs.k8s.io/jobset
    dir=$(cd "$TMP" && go mod download -json "sigs.k8s.io/jobset@v$JOBSET_VERSION" | sed -n 's/.*"Dir": "\(.*\)",*$/\1/p')
    rm -rf "$BINS/jobset-manifests" && mkdir -p "$BINS/jobset-manifests/crd"
    cp "$dir"/config/components/crd/bases/*.yaml "$BINS/jobset-manifests/crd/"
    cp "$dir"/config/components/webhook/manifests.yaml "$BINS/jobset-manifests/webhooks.yaml"
    chmod -R u+w "$BINS/jobset-manifests"
    touch "$BINS/.jobset-$JOBSET_VERSION"; say "jobset built in $(elapsed "$t0")"
  fi

  # --- ProvisioningRequest CRD ---------------------------------------------------
  # GKE's cluster autoscaler serves autoscaling.x-k8s.io ProvisioningRequests
  # (Dynamic Workload Scheduler / flex-start); without the API, Kueue skips its
  # provisioning admission-check controller. Take the CRD from the exact
  # cluster-autoscaler/apis version Kueue's go.mod pins.
  if [ ! -f "$BINS/.provreq-$KUEUE_VERSION" ] && ! lend ".provreq-$KUEUE_VERSION" kueue-manifests/gke; then
    say "fetching the ProvisioningRequest CRD (as GKE's cluster autoscaler serves it)"
    kdir=$(cd "$TMP" && go mod download -json "sigs.k8s.io/kueue@v$KUEUE_VERSION" | sed -n 's/.*"Dir": "\(.*\)",*$/\1/p')
    ver=$(awk '$1 == "k8s.io/autoscaler/cluster-autoscaler/apis" {print $2; exit}' "$kdir/go.mod")
    [ -n "$ver" ] || { say "Kueue's go.mod does not name k8s.io/autoscaler/cluster-autoscaler/apis"; exit 1; }
    adir=$(cd "$TMP" && go mod download -json "k8s.io/autoscaler/cluster-autoscaler/apis@$ver" | sed -n 's/.*"Dir": "\(.*\)",*$/\1/p')
    mkdir -p "$BINS/kueue-manifests/gke"
    cp "$adir/config/crd/autoscaling.x-k8s.io_provisioningrequests.yaml" "$BINS/kueue-manifests/gke/"
    chmod -R u+w "$BINS/kueue-manifests/gke"
    touch "$BINS/.provreq-$KUEUE_VERSION"
  fi
}
if [ "$MODE" = all ] || [ "$MODE" = compat ]; then
  # JobSet: the version the newest Kueue's go.mod pins (its jobset integration
  # is built and tested against it).
  KDIR=$(cd "$TMP" && go mod download -json "sigs.k8s.io/kueue@v$KUEUE_VERSION" | sed -n 's/.*"Dir": "\(.*\)",*$/\1/p')
  JOBSET_VERSION=$(awk '$1 == "sigs.k8s.io/jobset" {print $2; exit}' "$KDIR/go.mod")
  [ -n "$JOBSET_VERSION" ] || { say "Kueue v$KUEUE_VERSION's go.mod does not name sigs.k8s.io/jobset"; exit 1; }
  JOBSET_VERSION=${JOBSET_VERSION#v}
  build_set "$KUEUE_VERSION"
fi
if [ "$MODE" = compat ] && [ "$KUEUE_OLDEST_VERSION" != "$KUEUE_VERSION" ]; then
  build_set "$KUEUE_OLDEST_VERSION"
fi

# --- Terraform CLI ------------------------------------------------------------
version_ge_1_5() { # "1.11.4" -> true when >= 1.5
  local v=$1 major minor; major=${v%%.*}; minor=${v#*.}; minor=${minor%%.*}
  [ "$major" -gt 1 ] || { [ "$major" -eq 1 ] && [ "$minor" -ge 5 ]; }
}
tf_version_of() { # BINARY -> "1.11.4" (terraform or tofu), empty when unknown
  CHECKPOINT_DISABLE=1 TF_CLI_CONFIG_FILE=/dev/null "$1" version -json 2>/dev/null \
    | sed -n 's/.*"terraform_version": *"\([0-9.]*\)".*/\1/p' | head -1
}
build_tofu() { # -> $CACHE/tofu-v$TOFU_VERSION/tofu, built once
  TOFU=$CACHE/tofu-v$TOFU_VERSION/tofu
  if [ ! -x "$TOFU" ]; then
    t0=$(date +%s); say "building OpenTofu v$TOFU_VERSION from its module source (cold: ~6-10 min)"
    dir=$(cd "$TMP" && go mod download -json "github.com/opentofu/opentofu@v$TOFU_VERSION" | sed -n 's/.*"Dir": "\(.*\)",*$/\1/p')
    cp -r "$dir" "$TMP/opentofu" && chmod -R u+w "$TMP/opentofu"
    mkdir -p "$(dirname "$TOFU")"
    (cd "$TMP/opentofu" && GOFLAGS=-mod=readonly go build -trimpath \
      -ldflags "-s -w -X 'github.com/opentofu/opentofu/version.dev=no'" -o "$TOFU" ./cmd/tofu)
    say "OpenTofu built in $(elapsed "$t0")"
  fi
}
TF=""; TF_KIND=terraform
case $TF_VERSION in
  "") # the PATH terraform when >= 1.5, else OpenTofu
    if command -v terraform >/dev/null 2>&1; then
      v=$(tf_version_of terraform)
      if [ -n "$v" ] && version_ge_1_5 "$v"; then TF=$(command -v terraform); say "using terraform $v from PATH ($TF)"
      else say "terraform on PATH is ${v:-of unknown version}; need >= 1.5, will build OpenTofu"; fi
    fi
    ;;
  tofu | opentofu) # OpenTofu even when a terraform is on PATH: the PATH tofu when it is TOFU_VERSION
    TF_KIND=tofu
    if command -v tofu >/dev/null 2>&1 && [ "$(tf_version_of tofu)" = "$TOFU_VERSION" ]; then
      TF=$(command -v tofu); say "using OpenTofu $TOFU_VERSION from PATH ($TF)"
    fi
    ;;
  [0-9]*.[0-9]*.[0-9]*) # exactly this Terraform: from PATH when it is that version, else built
    if command -v terraform >/dev/null 2>&1 && [ "$(tf_version_of terraform)" = "$TF_VERSION" ]; then
      TF=$(command -v terraform); say "using terraform $TF_VERSION from PATH ($TF)"
    else
      version_ge_1_5 "$TF_VERSION" || { say "TF_VERSION=$TF_VERSION: the provider needs Terraform >= 1.5"; exit 2; }
      case $TF_VERSION in 1.5.*) ;; *)
        say "TF_VERSION=$TF_VERSION: only Terraform 1.5.x builds with go install (later versions' go.mod has replace directives); put that terraform on PATH instead"; exit 2 ;;
      esac
      TF=$(go_tool terraform github.com/hashicorp/terraform "$TF_VERSION")
      say "using terraform $TF_VERSION ($TF)"
    fi
    ;;
  *) say "TF_VERSION=$TF_VERSION: want empty (PATH terraform), tofu, or a version like 1.5.7"; exit 2 ;;
esac
if [ -z "$TF" ]; then
  TF_KIND=tofu
  build_tofu
  TF=$TOFU; say "using OpenTofu ($TF)"
fi

CLI_ENV="TF_ACC_TERRAFORM_PATH=$TF"
if [ "$TF_KIND" = tofu ]; then
  CLI_ENV+=$'\nTF_ACC_PROVIDER_NAMESPACE=hashicorp\nTF_ACC_PROVIDER_HOST=registry.opentofu.org'
fi
# With TF_VERSION the files are cli-tf<v>.env and tools-tf<v>.env, so a run on
# another Terraform never changes what a concurrent default run reads.
SUFFIX=${TF_VERSION:+-tf$TF_VERSION}
write "$CACHE/cli$SUFFIX.env" "$CLI_ENV"
OUT=$CACHE/cli$SUFFIX.env
if [ "$MODE" = all ] || [ "$MODE" = compat ]; then
  # The oldest set is named when it is built (by `compat`, now or before).
  ENV="MLPLATFORM_TEST_BINS=$BINS"
  [ -f "$OLDEST/.kueue-$KUEUE_OLDEST_VERSION" ] && ENV+=$'\n'"MLPLATFORM_TEST_BINS_OLDEST=$OLDEST"
  write "$CACHE/tools$SUFFIX$VERSION_SUFFIX.env" "$ENV"$'\n'"$CLI_ENV"
  OUT=$CACHE/tools$SUFFIX$VERSION_SUFFIX.env
fi
say "tools ready: $OUT"
cat "$OUT"
