#!/usr/bin/env bash
# Runs actionlint on the GitHub Actions workflows the README gives users:
# every ```yaml block whose first line is `# .github/workflows/NAME.yml`.
# Each is written to a temp dir as README.md-L<line>-NAME.yml (the line of
# its first YAML line in the README), so a finding names where to fix it.
#
#   scripts/readme-workflows.sh [FILE]   FILE defaults to README.md
#
# It fails when FILE holds no such block (the extraction would otherwise pass
# vacuously), and, after the blocks pass, it lints a copy of the first one
# with a key actionlint must reject, and fails if actionlint accepts it: the
# check is shown to catch a broken block on every run.
#
# $ACTIONLINT is the binary (make lint loads it from lint.env, which
# scripts/tools.sh lint writes). Its shellcheck and pyflakes integrations are
# off, as for the project's own workflows: same result on every machine.
set -euo pipefail

die() { printf '[readme-workflows] %s\n' "$*" >&2; exit 1; }

file=${1:-README.md}
[ -f "$file" ] || die "no $file"
[ -n "${ACTIONLINT:-}" ] && [ -x "$ACTIONLINT" ] || die "ACTIONLINT is not set to an executable: run scripts/tools.sh lint and load the lint.env it writes"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

base=$(basename "$file")
# A block starts at a line ```yaml followed by `# .github/workflows/X.yml`
# and ends at the next ``` line.
awk -v dir="$tmp" -v base="$base" '
  state == 0 && /^```ya?ml[[:space:]]*$/ { state = 1; next }
  state == 1 {
    if (match($0, /^# \.github\/workflows\/[A-Za-z0-9._-]+\.ya?ml[[:space:]]*$/)) {
      name = $0; sub(/^# \.github\/workflows\//, "", name); sub(/[[:space:]]*$/, "", name)
      out = dir "/" base "-L" NR "-" name
      state = 2; print > out; next
    }
    state = 0; next
  }
  state == 2 && /^```[[:space:]]*$/ { close(out); state = 0; next }
  state == 2 { print > out }
' "$file"

shopt -s nullglob
blocks=("$tmp"/*)
[ ${#blocks[@]} -gt 0 ] || die "$file has no \`\`\`yaml block starting with '# .github/workflows/': nothing to lint"

(cd "$tmp" && "$ACTIONLINT" -no-color -shellcheck= -pyflakes= "${blocks[@]##*/}") ||
  die "actionlint rejects a workflow of $file (the file name gives its first line in $file)"

# The same check must reject a broken block: a misspelt key in the first one.
broken="$tmp/broken"
mkdir "$broken"
sed 's/^\(  *\)runs-on:/\1runs_on:/' "${blocks[0]}" >"$broken/workflow.yml"
cmp -s "${blocks[0]}" "$broken/workflow.yml" && die "could not break ${blocks[0]##*/} (no runs-on: line) to show actionlint rejects it"
if (cd "$broken" && "$ACTIONLINT" -no-color -shellcheck= -pyflakes= workflow.yml >/dev/null 2>&1); then
  die "actionlint accepted a broken copy of ${blocks[0]##*/} (runs-on: misspelt): the check proves nothing"
fi
printf '[readme-workflows] %s: %d workflow(s) pass actionlint (%s); a broken copy is rejected\n' \
  "$file" "${#blocks[@]}" "$(cd "$tmp" && ls -- *.y*ml | tr '\n' ' ' | sed 's/ $//')"
