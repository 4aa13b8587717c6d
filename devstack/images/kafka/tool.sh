#!/bin/bash
# The upstream image's command-line tools this stand-in has, chosen by the name it is called by.
set -euo pipefail
case "$(basename "$0")" in
  kafka-broker-api-versions.sh) main=org.apache.kafka.tools.BrokerApiVersionsCommand ;;
  kafka-topics.sh) main=org.apache.kafka.tools.TopicCommand ;;
  *) echo "unknown tool $(basename "$0")" >&2; exit 2 ;;
esac
exec java -Xmx128m -XX:TieredStopAtLevel=1 -Dlog4j2.configurationFile=/opt/kafka/config/log4j2.properties \
  -cp '/opt/kafka/libs/*' "$main" "$@"
