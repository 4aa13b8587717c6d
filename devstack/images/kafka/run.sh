#!/bin/bash
# Entrypoint of the Kafka stand-in image. As the upstream apache/kafka image: every KAFKA_<NAME> variable is a
# broker setting (<NAME> lower-cased, "_" -> ".", "__" -> "_", "___" -> "-"), except the JVM, logging and JMX
# variables the upstream image reads itself; CLUSTER_ID formats the storage on first start. log.dirs defaults to the
# image's volume (set KAFKA_LOG_DIRS: the upstream image's default is Kafka's own, under /tmp).
set -euo pipefail
props=/opt/kafka/config/server.properties
: > "$props"
for var in $(compgen -e | grep '^KAFKA_' || true); do
  case "$var" in
    KAFKA_HEAP_OPTS|KAFKA_JVM_PERFORMANCE_OPTS|KAFKA_OPTS|KAFKA_LOG4J_OPTS|KAFKA_GC_LOG_OPTS|KAFKA_JMX_OPTS|\
    KAFKA_JMX_PORT|KAFKA_JMX_HOSTNAME|KAFKA_VERSION|KAFKA_LOG4J_ROOT_LOGLEVEL|KAFKA_LOG4J_LOGGERS|\
    KAFKA_TOOLS_LOG4J_LOGLEVEL) continue ;;
  esac
  name="$(printf '%s' "${var#KAFKA_}" | tr '[:upper:]' '[:lower:]' | sed -e 's/___/-/g' -e 's/__/\x01/g' -e 's/_/./g' -e 's/\x01/_/g')"
  printf '%s=%s\n' "$name" "${!var}" >> "$props"
done
grep -q '^log\.dirs=' "$props" || echo "log.dirs=/var/lib/kafka/data" >> "$props"
cp=(-cp '/opt/kafka/libs/*')
# shellcheck disable=SC2206
log4j=(${KAFKA_LOG4J_OPTS:--Dlog4j2.configurationFile=/opt/kafka/config/log4j2.properties})
if [ ! -f "$(sed -n 's/^log\.dirs=//p' "$props" | cut -d, -f1)/meta.properties" ]; then
  : "${CLUSTER_ID:?CLUSTER_ID must be set to format the KRaft storage}"
  java "${log4j[@]}" "${cp[@]}" kafka.tools.StorageTool format --ignore-formatted -t "$CLUSTER_ID" -c "$props"
fi
# shellcheck disable=SC2086
exec java ${KAFKA_HEAP_OPTS:--Xmx1g -Xms1g} ${KAFKA_JVM_PERFORMANCE_OPTS:--XX:+UseG1GC -XX:MaxGCPauseMillis=20} \
  ${KAFKA_GC_LOG_OPTS:-} ${KAFKA_JMX_OPTS:-} ${KAFKA_OPTS:-} -Djava.awt.headless=true "${log4j[@]}" "${cp[@]}" \
  kafka.Kafka "$props"
