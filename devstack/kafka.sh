#!/usr/bin/env bash
# Single-node KRaft Apache Kafka broker on loopback, from Maven Central jars.
#   devstack/kafka.sh fetch|start|stop|status
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

KAFKA_HOME="$STATE_DIR/kafka"
LIBS="$KAFKA_HOME/libs"
DATA="$KAFKA_HOME/data"
PIDFILE="$KAFKA_HOME/kafka.pid"
LOGFILE="$KAFKA_HOME/kafka.log"
PROPS="$KAFKA_HOME/server.properties"

fetch() {
  if [ -f "$LIBS/.complete" ] && [ "$LIBS/.complete" -nt "$DEVSTACK_DIR/kafka/pom.xml" ]; then return; fi
  command -v mvn >/dev/null || die "Maven (mvn) is required to fetch the Kafka broker jars: apt-get install maven"
  command -v java >/dev/null || die "Java 17+ is required to run the Kafka broker: apt-get install openjdk-17-jre-headless"
  log "fetching the Kafka broker jars from Maven Central into $LIBS"
  rm -rf "$LIBS"
  mvn -q -B -f "$DEVSTACK_DIR/kafka/pom.xml" dependency:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$LIBS" || die "mvn could not fetch the Kafka jars (see above)"
  touch "$LIBS/.complete"
}

write_props() {
  mkdir -p "$DATA"
  cat > "$PROPS" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$DATA
num.partitions=1
auto.create.topics.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=5
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
log.segment.bytes=67108864
log.retention.hours=24
# a deleted topic's files go after 1 s (Kafka's default is 60 s): a benchmark phase that follows a deleted
# multi-GB topic must not find the disk still holding it
log.segment.delete.delay.ms=1000
PROPS
}

start() {
  fetch
  if pid_alive "$PIDFILE"; then log "kafka already running (pid $(cat "$PIDFILE")) on 127.0.0.1:$KAFKA_PORT"; return; fi
  write_props
  local cp="$LIBS/*"
  if [ ! -f "$DATA/meta.properties" ]; then
    log "formatting KRaft storage in $DATA"
    java -cp "$cp" kafka.tools.StorageTool format -t "$(java -cp "$cp" kafka.tools.StorageTool random-uuid 2>/dev/null)" \
         -c "$PROPS" >>"$LOGFILE" 2>&1 || die "kafka storage format failed, see $LOGFILE"
  fi
  log "starting kafka on 127.0.0.1:$KAFKA_PORT (log: $LOGFILE)"
  KAFKA_HEAP="${CW_KAFKA_HEAP:--Xms128m -Xmx512m}"
  # shellcheck disable=SC2086
  setsid nohup java $KAFKA_HEAP -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true \
      -Dlog4j2.configurationFile="$DEVSTACK_DIR/kafka/log4j2.properties" \
      -cp "$cp" kafka.Kafka "$PROPS" >>"$LOGFILE" 2>&1 < /dev/null &
  echo $! > "$PIDFILE"
  wait_ready
}

wait_ready() {
  local deadline=$((SECONDS + 90))
  while [ $SECONDS -lt $deadline ]; do
    pid_alive "$PIDFILE" || { tail -20 "$LOGFILE" >&2; die "kafka exited during start-up, see $LOGFILE"; }
    if "$VENV/bin/python" "$DEVSTACK_DIR/wait_kafka.py" "127.0.0.1:$KAFKA_PORT" 2>/dev/null; then
      log "kafka is ready on 127.0.0.1:$KAFKA_PORT"; return
    fi
    sleep 1
  done
  die "kafka did not answer a metadata request within 90 s, see $LOGFILE"
}

stop() {
  stop_by_pidfile "kafka" "$PIDFILE"
}

status() {
  if pid_alive "$PIDFILE"; then echo "kafka: running (pid $(cat "$PIDFILE")) bootstrap 127.0.0.1:$KAFKA_PORT"
  else echo "kafka: stopped"; return 1; fi
}

case "${1:-}" in
  fetch) fetch ;; start) start ;; stop) stop ;; status) status ;;
  *) echo "usage: $0 fetch|start|stop|status" >&2; exit 2 ;;
esac
