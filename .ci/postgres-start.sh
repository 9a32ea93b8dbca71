#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster for tests: its own temporary folder, listening on 127.0.0.1
# only, trust authentication on loopback (this cluster only, never a real one), and a `leash_test`
# database. Prints shell assignments for the caller to eval:
#   LEASH_PG_DIR=/tmp/leash-pg.XXXXXX
#   DATABASE_URL=postgres://postgres@127.0.0.1:PORT/leash_test
# Everything else goes to standard error. Stop it with .ci/postgres-stop.sh "$LEASH_PG_DIR".
# Environment: LEASH_PG_PORT (the first port tried, default 54329), LEASH_PG_BIN (the server's bin folder).
set -euo pipefail

log() { printf 'postgres-start: %s\n' "$*" >&2; }

find_bin() {
  if [[ -n "${LEASH_PG_BIN:-}" ]]; then printf '%s\n' "$LEASH_PG_BIN"; return; fi
  local initdb
  # Debian keeps the server binaries out of PATH; dpkg knows where.
  initdb="$(dpkg -L postgresql-15 2>/dev/null | grep '/bin/initdb$' | head -n 1 || true)"
  if [[ -z "$initdb" ]]; then initdb="$(ls -d /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -n 1 || true)"; fi
  if [[ -z "$initdb" ]]; then initdb="$(command -v initdb || true)"; fi
  if [[ -z "$initdb" ]]; then
    log "no PostgreSQL server binaries found; install them (apt-get install -y postgresql) or set LEASH_PG_BIN"
    exit 1
  fi
  dirname "$(readlink -f "$initdb")"
}

bin="$(find_bin)"
dir="$(mktemp -d "${TMPDIR:-/tmp}/leash-pg.XXXXXX")"
started=false

# PostgreSQL refuses to run as root: root runs it as the postgres user, anyone else as themselves.
as_owner() {
  if [[ "$(id -u)" == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

cleanup_on_failure() {
  local status=$?
  if [[ $status -ne 0 ]]; then
    log "failed (exit $status); server log follows"
    cat "$dir/server.log" >&2 2>/dev/null || true
    if $started; then as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true; fi
    rm -rf "$dir"
  fi
}
trap cleanup_on_failure EXIT

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

port="${LEASH_PG_PORT:-54329}"
for _ in $(seq 1 50); do
  if ! port_in_use "$port"; then break; fi
  port=$((port + 1))
done
if port_in_use "$port"; then log "no free port from ${LEASH_PG_PORT:-54329} on"; exit 1; fi

mkdir -p "$dir/socket"
if [[ "$(id -u)" == 0 ]]; then chown -R postgres:postgres "$dir"; fi

log "initdb in $dir/data ($bin)"
as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
  || { cat "$dir/initdb.log" >&2; exit 1; }
# Only the socket in the temporary folder and IPv4 loopback may connect, without a password.
cat >"$dir/data/pg_hba.conf" <<HBA
local all all trust
host all all 127.0.0.1/32 trust
HBA

# fsync off: a test cluster thrown away after the run needs no durability across an OS crash, and
# the tests kill clients, never the server.
log "starting on 127.0.0.1:$port"
as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -o \
  "-c listen_addresses=127.0.0.1 -p $port -k $dir/socket -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
  start >&2
started=true

for _ in $(seq 1 60); do
  if "$bin/pg_isready" -q -h 127.0.0.1 -p "$port" -U postgres; then break; fi
  sleep 1
done
"$bin/pg_isready" -h 127.0.0.1 -p "$port" -U postgres >&2

"$bin/psql" -v ON_ERROR_STOP=1 -q -h 127.0.0.1 -p "$port" -U postgres -d postgres -c 'CREATE DATABASE leash_test' >&2

printf 'LEASH_PG_DIR=%q\n' "$dir"
printf 'DATABASE_URL=%q\n' "postgres://postgres@127.0.0.1:$port/leash_test"
log "ready: postgres://postgres@127.0.0.1:$port/leash_test"
