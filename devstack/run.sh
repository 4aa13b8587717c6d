#!/usr/bin/env bash
# `make run`: the services are up; start the worker with its REST API on 127.0.0.1:8083.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
if ! "$VENV/bin/connect-worker" --help >/dev/null 2>&1; then
  die "the connect-worker command is not installed in $VENV"
fi
log "the worker runtime is not implemented yet: Kafka and PostgreSQL are up, nothing else is started"
