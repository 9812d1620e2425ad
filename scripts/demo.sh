#!/usr/bin/env bash
# make demo: start the sandbox, plan examples/training-cluster, print the
# mlplatform report of that plan, apply it, show that a second plan is empty,
# check the live platform with mlplatform doctor, stop the sandbox (also on
# failure or Ctrl-C).
set -euo pipefail
cd "$(dirname "$0")/.."
export CHECKPOINT_DISABLE=1
TF=${TF_ACC_TERRAFORM_PATH:-terraform}
SANDBOX=$PWD/.sandbox
WORK=$(mktemp -d)
cleanup() {
  echo; echo "==> stopping the sandbox"
  bin/mlplatform sandbox down --dir "$SANDBOX" || true
  rm -rf "$WORK"
}
trap cleanup EXIT

echo "==> starting the sandbox"
bin/mlplatform sandbox up --dir "$SANDBOX" --provider-dir "$PWD/bin"
# shellcheck disable=SC1091
source "$SANDBOX/env"

# Work on a copy so the demo leaves no state in the repository.
cp -r examples/training-cluster/. "$WORK/"
rm -rf "$WORK/.terraform"
echo; echo "==> terraform get (installs the example's modules/team; offline, unlike init)"
"$TF" -chdir="$WORK" get -no-color
echo; echo "==> terraform plan -out (examples/training-cluster)"
"$TF" -chdir="$WORK" plan -input=false -no-color -out=demo.tfplan >"$WORK/plan.log" || { cat "$WORK/plan.log"; exit 1; }
grep -E '^Plan:' "$WORK/plan.log"

echo; echo "==> mlplatform report of that plan (what a reviewer sees on the pull request)"
"$TF" -chdir="$WORK" show -json demo.tfplan >"$WORK/plan.json"
bin/mlplatform report --format text --fail-on overcommit,drift,checks "$WORK/plan.json"

echo; echo "==> terraform apply of the reviewed plan"
"$TF" -chdir="$WORK" apply -input=false -no-color demo.tfplan

echo; echo "==> resources Terraform now manages"
"$TF" -chdir="$WORK" state list

echo; echo "==> second plan (must be empty)"
set +e
"$TF" -chdir="$WORK" plan -detailed-exitcode -input=false -no-color
code=$?
set -e
case $code in
  0) ;;
  2) echo; echo "==> demo FAILED: the follow-up plan is not empty (perpetual diff)"; exit 1 ;;
  *) echo; echo "==> demo FAILED: terraform plan exited $code"; exit 1 ;;
esac

echo; echo "==> mlplatform doctor (the live platform: Kueue, queues, flavors against GKE pools)"
bin/mlplatform doctor || { echo; echo "==> demo FAILED: mlplatform doctor found problems on the applied platform"; exit 1; }
echo; echo "==> demo passed: the platform is applied, the follow-up plan is empty and doctor finds nothing"
