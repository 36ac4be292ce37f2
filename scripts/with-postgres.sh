#!/usr/bin/env bash
# Runs a command against a throwaway PostgreSQL cluster: created in a temp dir as the
# `postgres` user on a free port, handed to the command as DATABASE_URL, removed on exit.
# Without PostgreSQL's server binaries it installs Debian's `postgresql` (as root with apt-get,
# as the browser tests install Chromium); when it cannot, it fails under CI=true (a suite that
# did not run never passes) and elsewhere says loudly that it did not run.
# Usage: scripts/with-postgres.sh <command...>
set -euo pipefail
# Where Debian puts each major version's server binaries (PG_LIB only moves it for the script's own test).
PG_LIB="${PG_LIB:-/usr/lib/postgresql}"
newest_pgbin() { ls -d "$PG_LIB"/*/bin 2>/dev/null | sort -V | tail -1 || true; }
PGBIN="${PGBIN:-$(newest_pgbin)}"
has_server() { [[ -n "$PGBIN" && -x "$PGBIN/initdb" ]]; }

if ! has_server && [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
  echo "with-postgres: no PostgreSQL server binaries; installing Debian's postgresql (one time)…" >&2
  if apt-get update -qq >&2 &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 \
      --no-install-recommends postgresql >&2; then
    PGBIN="$(newest_pgbin)"
  else
    echo "with-postgres: installing Debian's postgresql failed" >&2
  fi
fi
if ! has_server; then
  why="no PostgreSQL server binaries found (Debian/Ubuntu: sudo apt-get install postgresql; or set PGBIN)"
  if [[ "${CI:-}" == "true" ]]; then
    echo "with-postgres: $why; failing, as CI must run: $*" >&2
    exit 1
  fi
  echo "with-postgres: $why; NOT running: $*" >&2
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
