#!/bin/bash
# Entrypoint of the Kafka stand-in image. As the upstream apache/kafka image: every KAFKA_<NAME> variable is a
# broker setting (<NAME> lower-cased, "_" -> ".", "__" -> "_", "___" -> "-"), except the JVM option variables;
# CLUSTER_ID formats the storage on first start. log.dirs defaults to the image's volume.
set -euo pipefail
props=/opt/kafka/config/server.properties
: > "$props"
for var in $(compgen -e | grep '^KAFKA_' || true); do
  case "$var" in
    KAFKA_HEAP_OPTS|KAFKA_JVM_PERFORMANCE_OPTS|KAFKA_OPTS|KAFKA_LOG4J_OPTS|KAFKA_GC_LOG_OPTS|KAFKA_JMX_OPTS) continue ;;
  esac
  name="$(printf '%s' "${var#KAFKA_}" | tr '[:upper:]' '[:lower:]' | sed -e 's/___/-/g' -e 's/__/\x01/g' -e 's/_/./g' -e 's/\x01/_/g')"
  printf '%s=%s\n' "$name" "${!var}" >> "$props"
done
grep -q '^log\.dirs=' "$props" || echo "log.dirs=/var/lib/kafka/data" >> "$props"
cp=(-cp '/opt/kafka/libs/*')
log4j=(-Dlog4j2.configurationFile=/opt/kafka/config/log4j2.properties)
if [ ! -f "$(sed -n 's/^log\.dirs=//p' "$props" | cut -d, -f1)/meta.properties" ]; then
  : "${CLUSTER_ID:?CLUSTER_ID must be set to format the KRaft storage}"
  java "${log4j[@]}" "${cp[@]}" kafka.tools.StorageTool format --ignore-formatted -t "$CLUSTER_ID" -c "$props"
fi
# shellcheck disable=SC2086
exec java ${KAFKA_HEAP_OPTS:--Xmx1g -Xms1g} ${KAFKA_JVM_PERFORMANCE_OPTS:--XX:+UseG1GC -XX:MaxGCPauseMillis=20} \
  ${KAFKA_OPTS:-} -Djava.awt.headless=true "${log4j[@]}" "${cp[@]}" kafka.Kafka "$props"
