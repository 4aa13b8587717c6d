#!/usr/bin/env bash
# Private PostgreSQL 15 cluster with logical decoding, on loopback, owned by a non-root OS user.
#   devstack/postgres.sh install|start|stop|status
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

PG_HOME="$STATE_DIR/pg"
PGDATA="$PG_HOME/data"
SOCKDIR="$PG_HOME/run"
LOGFILE="$PG_HOME/postgres.log"
PACKAGES="postgresql-$PG_VERSION postgresql-$PG_VERSION-decoderbufs postgresql-$PG_VERSION-wal2json postgresql-$PG_VERSION-postgis-3"

# The cluster may not be run by root: as root we use the 'postgres' account the Debian package creates.
if [ "$(id -u)" = 0 ]; then RUN_AS=postgres; else RUN_AS=""; fi
as_owner() { if [ -n "$RUN_AS" ]; then runuser -u "$RUN_AS" -- "$@"; else "$@"; fi; }

install() {
  local missing=()
  [ -x "$PG_BIN/postgres" ] || missing+=("postgresql-$PG_VERSION")
  [ -f "/usr/lib/postgresql/$PG_VERSION/lib/decoderbufs.so" ] || missing+=("postgresql-$PG_VERSION-decoderbufs")
  [ -f "/usr/lib/postgresql/$PG_VERSION/lib/wal2json.so" ] || missing+=("postgresql-$PG_VERSION-wal2json")
  [ -f "/usr/share/postgresql/$PG_VERSION/extension/postgis.control" ] || missing+=("postgresql-$PG_VERSION-postgis-3")
  [ ${#missing[@]} -eq 0 ] && return
  # shellcheck disable=SC2086
  apt_install $PACKAGES   # (the package's own system cluster is not started: ours is private)
}

init_cluster() {
  [ -f "$PGDATA/PG_VERSION" ] && return
  log "creating a private PostgreSQL $PG_VERSION cluster in $PGDATA"
  mkdir -p "$PG_HOME" "$SOCKDIR"
  [ -n "$RUN_AS" ] && chown -R "$RUN_AS" "$PG_HOME"
  as_owner "$PG_BIN/initdb" -D "$PGDATA" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >/dev/null \
    || die "initdb failed"
  cat >> "$PGDATA/postgresql.conf" <<CONF

# connect-worker devstack
listen_addresses = '127.0.0.1'
unix_socket_directories = '$SOCKDIR'
wal_level = logical
max_wal_senders = 30
max_replication_slots = 30
max_connections = 120
shared_buffers = 256MB
fsync = off
full_page_writes = off
wal_sender_timeout = 60s
log_min_messages = warning
log_connections = off
CONF
  cat > "$PGDATA/pg_hba.conf" <<HBA
# Trust on loopback only: this cluster is for local development and tests.
local   all          all                 trust
host    all          all   127.0.0.1/32  trust
host    replication  all   127.0.0.1/32  trust
HBA
}

# PostgreSQL 15.20 (like the other branches' minor releases of that day) lets only the libraries listed in
# output_plugin_libraries (default: pgoutput, test_decoding) be logical decoding output plugins. The connector
# and its tests also use decoderbufs (Debezium's default plug-in) and wal2json. Older servers have no such
# setting and allow every installed plug-in: nothing to do there (an unknown setting would stop them starting).
allow_output_plugins() {
  local psql=("$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -Atq -v ON_ERROR_STOP=1)
  local known
  known=$("${psql[@]}" -c "SELECT count(*) FROM pg_settings WHERE name = 'output_plugin_libraries'") \
    || die "cannot query postgres on 127.0.0.1:$PG_PORT"
  if [ "$known" = 1 ]; then
    "${psql[@]}" -c "ALTER SYSTEM SET output_plugin_libraries = 'pgoutput', 'test_decoding', 'decoderbufs', 'wal2json', 'yboutput'" \
      -c "SELECT pg_reload_conf()" >/dev/null || die "cannot set output_plugin_libraries"
    log "output plug-ins allowed: pgoutput, test_decoding, decoderbufs, wal2json, yboutput"
  fi
  yboutput_alias "${psql[@]}"
}

# The YugabyteDB connector's test peer: YugabyteDB's yboutput is PostgreSQL's pgoutput code under another
# name (same messages, same bytes). A 'yboutput' library that is pgoutput, found through dynamic_library_path,
# lets this PostgreSQL create yboutput slots and stream them, so the connector runs its real path here.
yboutput_alias() {
  local libdir="$PG_HOME/lib"
  mkdir -p "$libdir"
  ln -sfn "/usr/lib/postgresql/$PG_VERSION/lib/pgoutput.so" "$libdir/yboutput.so"
  [ -n "$RUN_AS" ] && chown -h "$RUN_AS" "$libdir" "$libdir/yboutput.so"
  "$@" -c "ALTER SYSTEM SET dynamic_library_path = '\$libdir:$libdir'" -c "SELECT pg_reload_conf()" >/dev/null \
    || die "cannot set dynamic_library_path"
}

start() {
  install
  init_cluster
  mkdir -p "$SOCKDIR"; [ -n "$RUN_AS" ] && chown "$RUN_AS" "$SOCKDIR" "$PG_HOME"
  if as_owner "$PG_BIN/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; then
    log "postgres already running on 127.0.0.1:$PG_PORT"
    allow_output_plugins
    return
  fi
  log "starting postgres on 127.0.0.1:$PG_PORT (log: $LOGFILE)"
  touch "$LOGFILE"; [ -n "$RUN_AS" ] && chown "$RUN_AS" "$LOGFILE"
  as_owner "$PG_BIN/pg_ctl" -D "$PGDATA" -o "-p $PG_PORT" -l "$LOGFILE" -w -t 60 start >/dev/null \
    || { tail -20 "$LOGFILE" >&2; die "postgres did not start, see $LOGFILE"; }
  allow_output_plugins
  log "postgres is ready: psql -h 127.0.0.1 -p $PG_PORT -U postgres"
}

# CW_PG_STOP_MODE: pg_ctl's shutdown mode, fast unless set (immediate: no checkpoint, crash recovery at the start)
stop() {
  [ -f "$PGDATA/PG_VERSION" ] || return 0
  if as_owner "$PG_BIN/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; then
    local mode="${CW_PG_STOP_MODE:-fast}"
    log "stopping postgres ($mode)"
    as_owner "$PG_BIN/pg_ctl" -D "$PGDATA" -m "$mode" -w -t 60 stop >/dev/null
  fi
}

status() {
  if [ -f "$PGDATA/PG_VERSION" ] && as_owner "$PG_BIN/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; then
    echo "postgres: running (pid $(head -1 "$PGDATA/postmaster.pid")) on 127.0.0.1:$PG_PORT"
  else echo "postgres: stopped"; return 1; fi
}

case "${1:-}" in
  install) install ;; start) start ;; stop) stop ;; status) status ;;
  *) echo "usage: $0 install|start|stop|status" >&2; exit 2 ;;
esac
