#!/usr/bin/env bash
# Runs a command with DATABASE_URL set to a throwaway PostgreSQL cluster, started before and stopped
# after (also when the command fails). For developers; CI uses the same scripts through .ci/run.
#   scripts/with-postgres.sh npm test
#   scripts/with-postgres.sh node scripts/test.mjs postgres worker
# Needs the PostgreSQL server binaries (Debian: apt-get install postgresql).
set -euo pipefail
if [[ $# -eq 0 ]]; then
  echo "usage: scripts/with-postgres.sh COMMAND [ARGUMENT...]" >&2
  exit 2
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LEASH_PG_DIR=""
stop_postgres() { if [[ -n "$LEASH_PG_DIR" ]]; then bash "$root/.ci/postgres-stop.sh" "$LEASH_PG_DIR" || true; fi; }
trap stop_postgres EXIT
assignments="$(bash "$root/.ci/postgres-start.sh")"
eval "$assignments"
export LEASH_PG_DIR DATABASE_URL
# The command runs in the background so that a TERM or INT (a CI timeout, Ctrl-C) is handled at
# once: it is passed on, and the exit runs the trap that stops the server.
status=0
"$@" &
child=$!
trap 'kill -TERM "$child" 2>/dev/null || true; wait "$child" || true; exit 143' TERM
trap 'kill -INT "$child" 2>/dev/null || true; wait "$child" || true; exit 130' INT
wait "$child" || status=$?
exit "$status"
