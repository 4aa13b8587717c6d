#!/usr/bin/env bash
# Idempotent: installs or fetches what is missing, then starts Kafka, PostgreSQL and the schema registry on loopback.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
"$DEVSTACK_DIR/tools.sh"
"$DEVSTACK_DIR/postgres.sh" start
"$DEVSTACK_DIR/kafka.sh" start
"$DEVSTACK_DIR/registry.sh" start
cat >&2 <<MSG
[devstack] services are up:
  Kafka       bootstrap.servers=127.0.0.1:$KAFKA_PORT
  PostgreSQL  psql -h 127.0.0.1 -p $PG_PORT -U postgres   (wal_level=logical, trust on loopback)
  Registry    schema.registry.url=http://127.0.0.1:$REGISTRY_PORT/apis/ccompat/v7   (Apicurio, in memory)
  stop all:   make down
MSG
