# The connect-worker image: the worker alone, as a non-root user, with the runtime dependencies of pyproject.toml
# (no dev tools, no Spark, no compiler). The Spark job's image is spark_sink/Dockerfile.
#
#   docker build -t connect-worker .
#   docker run -p 8083:8083 -e CONNECT_BOOTSTRAP_SERVERS=kafka:9092 connect-worker
#   docker run -v $PWD/worker.properties:/etc/connect-worker/worker.properties:ro connect-worker
#
# Configuration: /etc/connect-worker/worker.properties (a default one is built in; mount your own over it),
# overridden by CONNECT_* environment variables: CONNECT_BOOTSTRAP_SERVERS -> bootstrap.servers (lower-case,
# "_" -> ".", "__" -> "_", "___" -> "-"; see connect_worker/runtime/env_config.py).
# PYTHON_IMAGE: any Debian-based Python 3.11+ image with `python` and apt-get (devstack/images.sh builds one from
# Debian packages where no registry is reachable).

ARG PYTHON_IMAGE=python:3.11-slim-bookworm

# -- build the worker's virtualenv ----------------------------------------------------------------------------------
FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
# a C compiler for the JsonConverter's struct encoder (converters/_jsonstruct.c), and Python's headers where the
# base image lacks them (Debian's own Python); the final stage has none of them
RUN apt-get update \
 && headers="$(python -c 'import os, sysconfig; print("" if os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")) else "python3-dev")')" \
 && apt-get install -y --no-install-recommends gcc libc6-dev $headers \
 && rm -rf /var/lib/apt/lists/*
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
