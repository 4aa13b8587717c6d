# syntax=docker/dockerfile:1
# connect-worker images. The last stage, `worker`, is what `docker build .` makes: the worker alone, as a
# non-root user, with the runtime dependencies of pyproject.toml (no dev tools, no Spark).
# `--target spark-sink` makes the image of the PySpark job (spark_sink/) used by docker-compose.yml.
#
#   docker build -t connect-worker .
#   docker run -p 8083:8083 -e CONNECT_BOOTSTRAP_SERVERS=kafka:9092 connect-worker
#   docker run -v $PWD/worker.properties:/etc/connect-worker/worker.properties:ro connect-worker
#
# Configuration: /etc/connect-worker/worker.properties (a default one is built in; mount your own over it),
# overridden by CONNECT_* environment variables: CONNECT_BOOTSTRAP_SERVERS -> bootstrap.servers (lower-case,
# "_" -> ".", "__" -> "_", "___" -> "-"; see connect_worker/runtime/env_config.py).

ARG PYTHON_IMAGE=python:3.11-slim-bookworm
# Spark must be the version of devstack/spark/pom.xml (spark.version) and of pyproject.toml's pyspark
ARG SPARK_IMAGE=apache/spark:4.1.3-scala2.13-java21-python3-ubuntu
ARG MAVEN_IMAGE=maven:3.9-eclipse-temurin-21

# -- the Spark job's JVM jars (Spark's Kafka source, Delta Lake), from Maven Central through the devstack pom ----
FROM ${MAVEN_IMAGE} AS spark-jars
WORKDIR /build
COPY devstack/spark/pom.xml pom.xml
RUN mvn -q -B dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory=/build/jars

# -- the PySpark sink job: `python3 -m spark_sink --config <file>` (pyspark is the image's own /opt/spark/python) -
FROM ${SPARK_IMAGE} AS spark-sink
USER root
COPY --from=spark-jars /build/jars /tmp/jars
# add only the jars Spark does not ship already (never shadow Spark's own versions), as devstack/spark.sh does
RUN set -eu; for jar in /tmp/jars/*.jar; do \
      artifact="$(basename "$jar" | sed -E 's/-[0-9][0-9A-Za-z.-]*\.jar$//')"; \
      if ! ls /opt/spark/jars/"$artifact"-[0-9]*.jar >/dev/null 2>&1; then cp "$jar" /opt/spark/jars/; fi; \
    done; rm -rf /tmp/jars; \
    python3 -m pip install --no-cache-dir --no-deps "delta-spark>=4.4,<4.5"; \
    python3 -m pip install --no-cache-dir "pandas<3" "pyarrow>=18"; \
    site="$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"; \
    { echo /opt/spark/python; ls /opt/spark/python/lib/py4j-*-src.zip; } > "$site/pyspark-home.pth"; \
    mkdir -p /data /opt/spark-sink && chown spark:spark /data
COPY spark_sink /opt/spark-sink/spark_sink
ENV PYTHONPATH=/opt/spark-sink PYTHONUNBUFFERED=1
WORKDIR /opt/spark-sink
USER spark
VOLUME ["/data"]
ENTRYPOINT ["python3", "-m", "spark_sink"]

# -- build the worker's virtualenv ----------------------------------------------------------------------------------
FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
# a C compiler for the JsonConverter's struct encoder (converters/_jsonstruct.c); the final stage has none
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev && rm -rf /var/lib/apt/lists/*
RUN python -m venv /opt/connect-worker
WORKDIR /src
COPY pyproject.toml README.md ./
COPY connect_worker ./connect_worker
COPY connectors ./connectors
COPY converters ./converters
COPY rest ./rest
COPY spark_sink ./spark_sink
# the runtime dependencies of pyproject.toml only (no extras); all of them ship manylinux wheels
RUN /opt/connect-worker/bin/pip install --upgrade pip \
 && /opt/connect-worker/bin/pip install . \
 && /opt/connect-worker/bin/pip uninstall -y pip

# -- the worker -------------------------------------------------------------------------------------------------------
FROM ${PYTHON_IMAGE} AS worker
LABEL org.opencontainers.image.title="connect-worker" \
      org.opencontainers.image.description="Kafka Connect-compatible worker (Python, asyncio) with Debezium-compatible CDC connectors" \
      org.opencontainers.image.licenses="Apache-2.0"
RUN groupadd --system --gid 10001 connect \
 && useradd --system --uid 10001 --gid connect --home-dir /var/lib/connect-worker --create-home \
            --shell /usr/sbin/nologin connect \
 && mkdir -p /etc/connect-worker
COPY --from=build /opt/connect-worker /opt/connect-worker
COPY devstack/compose/worker.properties /etc/connect-worker/worker.properties
ENV PATH=/opt/connect-worker/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    LOG_FORMAT=text \
    LOG_LEVEL=INFO
USER 10001:10001
WORKDIR /var/lib/connect-worker
EXPOSE 8083
# GET /health on the first REST listener (https too; /health needs no credentials)
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["connect-worker", "--health-check", "/etc/connect-worker/worker.properties"]
ENTRYPOINT ["connect-worker"]
CMD ["/etc/connect-worker/worker.properties"]
