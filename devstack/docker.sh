#!/usr/bin/env bash
# A Docker engine of this project's own (Debian's docker.io), for the compose stack only; never the host's.
#   devstack/docker.sh install|start|stop|status|host
# Everything it keeps is under .devstack/docker: images, containers and volumes (data/), the daemon's run
# state (exec/), its socket and PID file (run/), its log. It is started as root with no iptables rules, no
# default bridge and a cgroup parent of its own, and stopped by its PID; `stop` then unmounts what it left
# mounted under its folders and removes its cgroup folders. Users of the engine: DOCKER_HOST=$(devstack/docker.sh host).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

DOCKER_HOME="$STATE_DIR/docker"
DATA_ROOT="$DOCKER_HOME/data"
EXEC_ROOT="$DOCKER_HOME/exec"
RUN_DIR="$DOCKER_HOME/run"
SOCKET="$RUN_DIR/docker.sock"
PIDFILE="$RUN_DIR/dockerd.pid"
LOGFILE="$DOCKER_HOME/dockerd.log"
CGROUP_PARENT=cw-devstack-docker   # a name of our own: stop removes the (empty) cgroup folders under it

install() {
  local missing=()
  command -v dockerd >/dev/null || missing+=(docker.io)
  command -v debootstrap >/dev/null || missing+=(debootstrap)
  command -v docker-compose >/dev/null || missing+=(docker-compose)
  [ ${#missing[@]} -eq 0 ] && return
  apt_install "${missing[@]}"
}

# own_engine: true when the PID file names a running dockerd started by this script (not a reused PID)
own_engine() {
  pid_alive "$PIDFILE" || return 1
  local cmdline
  cmdline="$(tr '\0' ' ' < "/proc/$(cat "$PIDFILE")/cmdline" 2>/dev/null)" || return 1
  [[ "$cmdline" == *"--pidfile $PIDFILE "* ]]
}

start() {
  install
  [ "$(id -u)" = 0 ] || die "the Docker engine runs as root: run make compose-up as root"
  if own_engine; then log "docker engine already running (pid $(cat "$PIDFILE")) on $SOCKET"; return; fi
  mkdir -p "$DATA_ROOT" "$EXEC_ROOT" "$RUN_DIR"
  rm -f "$SOCKET" "$PIDFILE"
  log "starting the project's docker engine (socket $SOCKET, log $LOGFILE)"
  # no iptables: containers reach each other on compose's bridge network and the host through published
  # ports (docker-proxy on 127.0.0.1); builds that need the network use the host's (--network host).
  # cgroupfs: the cgroup parent is a plain folder on every host (systemd's driver wants a *.slice). Where the host
  # runs a containerd of its own (/run/containerd/containerd.sock), dockerd uses it: namespaces of our own then
  # keep our containers apart from a host Docker's.
  setsid nohup dockerd --data-root "$DATA_ROOT" --exec-root "$EXEC_ROOT" --host "unix://$SOCKET" \
      --pidfile "$PIDFILE" --iptables=false --ip6tables=false --bridge=none --storage-driver=overlay2 \
      --exec-opt native.cgroupdriver=cgroupfs --cgroup-parent "/$CGROUP_PARENT" \
      --containerd-namespace cw-devstack --containerd-plugins-namespace cw-devstack-plugins \
      --log-level warn >>"$LOGFILE" 2>&1 </dev/null &
  local deadline=$((SECONDS + 60))
  while [ $SECONDS -lt $deadline ]; do
    if [ -S "$SOCKET" ] && DOCKER_HOST="unix://$SOCKET" /usr/bin/docker version >/dev/null 2>&1; then
      log "docker engine is ready (pid $(cat "$PIDFILE"))"; return
    fi
    sleep 0.5
  done
  tail -20 "$LOGFILE" >&2
  die "the docker engine did not answer within 60 s, see $LOGFILE"
}

# unmount what the engine (or a container it ran) left mounted below our folders, deepest first
unmount_leftovers() {
  local m
  awk -v a="$DATA_ROOT/" -v b="$EXEC_ROOT/" 'index($2, a) == 1 || index($2, b) == 1 {print $2}' /proc/self/mounts \
    | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
}

remove_cgroups() {
  local dir
  for dir in /sys/fs/cgroup/*/"$CGROUP_PARENT" /sys/fs/cgroup/"$CGROUP_PARENT"; do
    [ -d "$dir" ] || continue
    find "$dir" -depth -type d -exec rmdir {} \; 2>/dev/null || true
  done
}

stop() {
  if [ -f "$PIDFILE" ] && ! own_engine; then log "removing the stale PID file $PIDFILE"; rm -f "$PIDFILE"; fi
  stop_by_pidfile "the docker engine (its containers stop with it)" "$PIDFILE"
  rm -f "$SOCKET"
  [ -d "$DOCKER_HOME" ] || return 0
  unmount_leftovers
  remove_cgroups
}

status() {
  if own_engine; then echo "docker engine: running (pid $(cat "$PIDFILE")) DOCKER_HOST=unix://$SOCKET"
  else echo "docker engine: stopped"; return 1; fi
}

case "${1:-}" in
  install) install ;; start) start ;; stop) stop ;; status) status ;;
  host) echo "unix://$SOCKET" ;;
  *) echo "usage: $0 install|start|stop|status|host" >&2; exit 2 ;;
esac
