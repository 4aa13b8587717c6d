# Shared settings of the local services. Sourced by the devstack scripts; defines no side effects.
# Every path is below the repository's git-ignored .devstack folder.
DEVSTACK_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(dirname "$DEVSTACK_DIR")"
STATE_DIR="${CW_STATE_DIR:-$REPO_DIR/.devstack}"
KAFKA_PORT="${CW_KAFKA_PORT:-9092}"
KAFKA_CONTROLLER_PORT="${CW_KAFKA_CONTROLLER_PORT:-$((KAFKA_PORT + 1))}"
PG_PORT="${CW_PG_PORT:-5433}"
REGISTRY_PORT="${CW_REGISTRY_PORT:-8081}"
PG_VERSION=15
PG_BIN="/usr/lib/postgresql/$PG_VERSION/bin"
VENV="${CW_VENV:-$REPO_DIR/.venv}"

log() { printf '[devstack] %s\n' "$*" >&2; }
die() { printf '[devstack] error: %s\n' "$*" >&2; exit 1; }

# pid_alive FILE: true when FILE names a running process.
pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# stop_by_pidfile NAME PIDFILE [GRACE_S]: SIGTERM to the process PIDFILE names, SIGKILL if it still runs after
# GRACE_S seconds (default 30); PIDFILE is removed. Nothing happens to a PID that is not running.
stop_by_pidfile() {
  local name="$1" pidfile="$2" grace="${3:-30}" pid
  if pid_alive "$pidfile"; then
    pid=$(cat "$pidfile")
    log "stopping $name (pid $pid)"
    kill "$pid"
    for _ in $(seq 1 $((grace * 2))); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "$pid" 2>/dev/null; then log "$name did not stop in $grace s, killing pid $pid"; kill -9 "$pid"; fi
  fi
  rm -f "$pidfile"
}

# apt_install PKG...: installs Debian packages as root (a clear message otherwise). Their services are held back
# while installing (Debian's policy-rc.d, when the host has none): the devstack runs private instances of its own.
apt_install() {
  [ "$(id -u)" = 0 ] || die "missing Debian packages: $*. Install them with: sudo apt-get install -y $*"
  log "installing $* with apt-get"
  local policy=/usr/sbin/policy-rc.d added="" rc=0
  if [ ! -e "$policy" ]; then printf '#!/bin/sh\nexit 101\n' > "$policy"; chmod 755 "$policy"; added=1; fi
  apt-get update -qq >/dev/null || rc=$?
  [ $rc -ne 0 ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null || rc=$?
  [ -z "$added" ] || rm -f "$policy"
  [ $rc -eq 0 ] || die "apt-get install $* failed"
}
