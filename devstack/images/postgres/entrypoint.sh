#!/bin/bash
# Entrypoint of the PostgreSQL stand-in image: on an empty data directory, initdb (password authentication
# for every TCP client, replication included), create POSTGRES_DB and run /docker-entrypoint-initdb.d/ in it
# on a server that listens on its Unix socket only; then run `postgres` with the command's arguments.
set -euo pipefail
[ "${1:-}" = postgres ] && shift
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set}"
  user="${POSTGRES_USER:-postgres}"
  db="${POSTGRES_DB:-$user}"
  pwfile="$(mktemp)"
  printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
  initdb -D "$PGDATA" -U "$user" --pwfile="$pwfile" -E UTF8 --locale=C.UTF-8 \
         --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  printf "host all all all scram-sha-256\nhost replication all all scram-sha-256\n" >> "$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  psql=(psql -v ON_ERROR_STOP=1 -X -q -U "$user")
  [ "$db" = postgres ] || "${psql[@]}" -d postgres -c "CREATE DATABASE \"$db\""
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sql) echo "running $f"; "${psql[@]}" -d "$db" -f "$f" ;;
      *.sh) echo "running $f"; . "$f" ;;
    esac
  done
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo "database $db initialised"
fi
exec postgres -D "$PGDATA" "$@"
