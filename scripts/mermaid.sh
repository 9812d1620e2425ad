#!/usr/bin/env bash
# The npm packages that check and draw the report's Mermaid diagram, installed
# with `npm ci` (from the committed package-lock.json) into a cache keyed by
# package.json and package-lock.json, never into the work tree.
#
#   scripts/mermaid.sh          Mermaid's parser (tools/mermaid: mermaid, jsdom)
#                               for internal/report/mermaid_test.go; writes and
#                               prints $MLPLATFORM_CACHE/mermaid.env
#                               (MLPLATFORM_MERMAID_DIR). `make unit` runs it.
#                               Without Node.js (>= 18.19) it says so, writes
#                               MLPLATFORM_MERMAID_DIR= and exits 0: the test
#                               then skips, saying what to install.
#   scripts/mermaid.sh render IN.mmd OUT.png
#                               draws IN with mermaid-cli (tools/mermaid/render)
#                               and Debian's chromium ($CHROMIUM, else
#                               chromium or chromium-browser on PATH; puppeteer's
#                               own browser download is skipped). Exits 3, saying
#                               what to install, when Node.js or chromium is
#                               missing. `make docs` runs it (scripts/docs.sh).
#
# Cold: ~20 s (parser) and ~40 s (mermaid-cli, puppeteer without its browser)
# of npm ci; warm: instant.
set -euo pipefail

MODE=${1:-parse}
case $MODE in
  parse) ;;
  render) [ $# -eq 3 ] || { echo "usage: $0 render IN.mmd OUT.png" >&2; exit 2; } ;;
  *) echo "usage: $0 [render IN.mmd OUT.png]" >&2; exit 2 ;;
esac

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${MLPLATFORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mlplatform}
say() { printf '[mermaid] %s\n' "$*" >&2; }
mkdir -p "$CACHE"
# write FILE CONTENT: replaced at once, so a concurrent reader sees old or new
write() { printf '%s\n' "$2" > "$1.$$" && mv -f "$1.$$" "$1"; }

# node_ok: Node.js >= 18.19 and npm on PATH.
node_ok() {
  command -v node >/dev/null && command -v npm >/dev/null &&
    node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 18 || (a === 18 && b >= 19) ? 0 : 1)'
}

# install SRC NAME: npm ci of SRC's package.json and package-lock.json into
# $CACHE/NAME-<key>/ once; prints that directory.
install() {
  local src=$1 name=$2 key dir t0
  key=$(cat "$src/package.json" "$src/package-lock.json" | sha256sum | cut -c1-16)
  dir=$CACHE/$name-$key
  if [ ! -f "$dir/.installed" ]; then
    t0=$(date +%s); say "npm ci of $src into $dir (once)"
    rm -rf "$dir.tmp$$" && mkdir -p "$dir.tmp$$"
    cp "$src/package.json" "$src/package-lock.json" "$dir.tmp$$/"
    (cd "$dir.tmp$$" && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error >&2) ||
      { rm -rf "$dir.tmp$$"; say "npm ci of $src failed"; return 1; }
    touch "$dir.tmp$$/.installed"
    rm -rf "$dir" && mv "$dir.tmp$$" "$dir"
    say "installed in $(( $(date +%s) - t0 ))s"
  fi
  echo "$dir"
}

if [ "$MODE" = parse ]; then
  if ! node_ok; then
    say "no Node.js >= 18.19 with npm on PATH: the test of the report's diagrams with Mermaid's parser will skip." \
      "Install Node.js and npm (apt-get install -y nodejs npm, or https://nodejs.org) and run scripts/mermaid.sh."
    write "$CACHE/mermaid.env" "MLPLATFORM_MERMAID_DIR="
    cat "$CACHE/mermaid.env"
    exit 0
  fi
  dir=$(install "$root/tools/mermaid" mermaid)
  write "$CACHE/mermaid.env" "MLPLATFORM_MERMAID_DIR=$dir"
  cat "$CACHE/mermaid.env"
  exit 0
fi

in=$2 out=$3
if ! node_ok; then
  say "no Node.js >= 18.19 with npm on PATH: cannot draw $out. Install Node.js and npm (apt-get install -y nodejs npm)."
  exit 3
fi
chromium=${CHROMIUM:-}
if [ -z "$chromium" ]; then
  chromium=$(command -v chromium || command -v chromium-browser || true)
fi
if [ -z "$chromium" ] || [ ! -x "$chromium" ]; then
  say "no chromium: cannot draw $out. Install Debian's (apt-get install -y chromium) or set CHROMIUM to a Chrome or Chromium binary."
  exit 3
fi
dir=$(install "$root/tools/mermaid/render" mermaid-render)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# chromium's sandbox refuses to run as root
args='"--headless=new"'
[ "$(id -u)" -eq 0 ] && args="$args, \"--no-sandbox\""
printf '{"executablePath": "%s", "args": [%s]}\n' "$chromium" "$args" > "$tmp/puppeteer.json"
say "drawing $out from $in with $chromium"
PUPPETEER_SKIP_DOWNLOAD=1 node "$dir/node_modules/@mermaid-js/mermaid-cli/src/cli.js" \
  --quiet --input "$in" --output "$tmp/out.png" --puppeteerConfigFile "$tmp/puppeteer.json" \
  --backgroundColor white --scale 2 --width 1600
mv -f "$tmp/out.png" "$out"
