#!/usr/bin/env bash
# Runs a command against a throwaway PostgreSQL cluster: created in a temp dir as the
# `postgres` user on a free port, handed to the command as DATABASE_URL, removed on exit.
# Usage: scripts/with-postgres.sh <command...>
set -euo pipefail
PGBIN="${PGBIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}"
if [[ -z "$PGBIN" || ! -x "$PGBIN/initdb" ]]; then
  echo "with-postgres: no PostgreSQL server binaries found (set PGBIN); NOT running: $*" >&2
  exit 0
fi
as_pg() { if [[ "$(id -u)" == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }

DIR="$(mktemp -d /tmp/agent-chat-pg.XXXXXX)"
[[ "$(id -u)" == 0 ]] && chown postgres "$DIR"
cleanup() {
  as_pg "$PGBIN/pg_ctl" -D "$DIR/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT INT TERM

PORT="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
as_pg "$PGBIN/initdb" -D "$DIR/data" -U postgres --auth=trust -E UTF8 --no-sync >/dev/null
as_pg "$PGBIN/pg_ctl" -D "$DIR/data" -l "$DIR/log" -w \
  -o "-p $PORT -k $DIR -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300" start >/dev/null
echo "with-postgres: PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') on port $PORT" >&2
DATABASE_URL="postgres://postgres@127.0.0.1:$PORT/postgres" "$@"
