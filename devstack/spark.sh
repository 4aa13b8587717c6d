#!/usr/bin/env bash
# The JVM jars of the Spark sink (spark_sink/): Spark's Kafka source and Delta Lake, from Maven Central.
#   devstack/spark.sh fetch      copy them into .devstack/spark/jars (see devstack/spark/pom.xml)
#   devstack/spark.sh jars       print them comma-separated, for spark-submit --jars / spark.jars
#   devstack/spark.sh status
# Jars pyspark already ships (Hadoop, Jackson, Parquet, Scala, logging, compression codecs) are not copied, so the
# folder holds only what pyspark lacks and never shadows pyspark's own versions. Never uses spark.jars.packages/Ivy.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

SPARK_HOME_DIR="$STATE_DIR/spark"
JARS="$SPARK_HOME_DIR/jars"
POM="$DEVSTACK_DIR/spark/pom.xml"

pyspark_jars() {
  "$VENV/bin/python" -c 'import os, pyspark; print(os.path.join(os.path.dirname(pyspark.__file__), "jars"))' 2>/dev/null \
    || die "pyspark is not installed in $VENV: $VENV/bin/pip install -e '.[dev,spark]'"
}

fetch() {
  if [ -f "$JARS/.complete" ] && [ "$JARS/.complete" -nt "$POM" ]; then return; fi
  command -v mvn >/dev/null || die "Maven (mvn) is required to fetch the Spark jars: apt-get install maven"
  command -v java >/dev/null || die "Java 17+ is required to run Spark: apt-get install openjdk-17-jre-headless"
  local shipped staging
  shipped="$(pyspark_jars)"
  staging="$SPARK_HOME_DIR/staging"
  log "fetching the Spark Kafka source, Delta Lake and Iceberg jars from Maven Central into $JARS"
  rm -rf "$JARS" "$staging"
  mkdir -p "$JARS"
  mvn -q -B -f "$POM" dependency:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$staging" || die "mvn could not fetch the Spark jars (see above)"
  local jar name artifact
  for jar in "$staging"/*.jar; do
    name="$(basename "$jar")"
    artifact="$(sed -E 's/-[0-9][0-9A-Za-z.-]*\.jar$//' <<<"$name")"
    if compgen -G "$shipped/$artifact-[0-9]*.jar" >/dev/null; then continue; fi
    cp "$jar" "$JARS/"
  done
  rm -rf "$staging"
  touch "$JARS/.complete"
  log "$(find "$JARS" -name '*.jar' | wc -l) jars in $JARS"
}

jars() {
  fetch >&2
  find "$JARS" -name '*.jar' | sort | paste -sd, -
}

status() {
  if [ -f "$JARS/.complete" ]; then echo "spark jars: $(find "$JARS" -name '*.jar' | wc -l) in $JARS"
  else echo "spark jars: not fetched (devstack/spark.sh fetch)"; return 1; fi
}

case "${1:-}" in
  fetch) fetch ;; jars) jars ;; status) status ;;
  *) echo "usage: $0 fetch|jars|status" >&2; exit 2 ;;
esac
