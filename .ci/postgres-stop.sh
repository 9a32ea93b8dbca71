#!/usr/bin/env bash
# Stops a cluster started by .ci/postgres-start.sh and removes its folder: .ci/postgres-stop.sh "$LEASH_PG_DIR".
set -euo pipefail

dir="${1:-${LEASH_PG_DIR:-}}"
if [[ -z "$dir" || ! -d "$dir" ]]; then
  printf 'postgres-stop: no cluster folder given (or it is gone already)\n' >&2
  exit 0
fi
case "$dir" in
  */leash-pg.*) ;;
  *) printf 'postgres-stop: %s is not a folder made by postgres-start.sh; leaving it alone\n' "$dir" >&2; exit 1 ;;
esac

if [[ -f "$dir/data/postmaster.pid" ]]; then
  bin="${LEASH_PG_BIN:-}"
  if [[ -z "$bin" ]]; then
    # The cluster's own version says which pg_ctl stops it.
    version="$(cat "$dir/data/PG_VERSION")"
    bin="/usr/lib/postgresql/$version/bin"
    [[ -x "$bin/pg_ctl" ]] || bin="$(dirname "$(command -v pg_ctl)")"
  fi
  if [[ "$(id -u)" == 0 ]]; then
    runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop >&2 || true
  else
    "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop >&2 || true
  fi
fi
rm -rf "$dir"
