#!/usr/bin/env bash
# `make run`: the services are up; create a demo schema in PostgreSQL, start the worker (REST on
# 127.0.0.1:8083) with a PostgreSQL connector on it, make a change and show the change events arriving,
# then keep the worker in the foreground until Ctrl-C.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$REPO_DIR"
PSQL=(psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 -q)
"${PSQL[@]}" -f devstack/demo/demo-schema.sql
CONNECTOR=$(mktemp --suffix=.json)
sed "s/\"database.port\": \"5433\"/\"database.port\": \"$PG_PORT\"/" devstack/demo/postgres-connector.json > "$CONNECTOR"
WORKER_PROPS=$(mktemp --suffix=.properties)
sed "s/127.0.0.1:9092/127.0.0.1:$KAFKA_PORT/" devstack/worker.properties > "$WORKER_PROPS"
log "starting the worker: connect-worker devstack/worker.properties devstack/demo/postgres-connector.json"
"$VENV/bin/connect-worker" "$WORKER_PROPS" "$CONNECTOR" &
WORKER=$!
trap 'kill -TERM $WORKER 2>/dev/null; wait $WORKER; rm -f "$CONNECTOR" "$WORKER_PROPS"' EXIT
for _ in $(seq 1 120); do
  curl -sf http://127.0.0.1:8083/health >/dev/null 2>&1 && break
  kill -0 $WORKER 2>/dev/null || die "the worker exited during start-up (see above)"
  sleep 0.5
done
log "worker is up: curl -s 'http://127.0.0.1:8083/connectors?expand=status'"
curl -s "http://127.0.0.1:8083/connectors?expand=status"; echo
"${PSQL[@]}" -c "INSERT INTO demo.customers (first_name, last_name, email, balance)
                 VALUES ('Sally', 'Thomas', 'sally.thomas@acme.com', 99.50);
                 UPDATE demo.customers SET balance = balance + 1 WHERE first_name = 'Anne';"
log "change events on demo.demo.customers (the snapshot row, then the insert and the update):"
"$VENV/bin/python" "$DEVSTACK_DIR/show_topic.py" "127.0.0.1:$KAFKA_PORT" demo.demo.customers 3 || true
log "the worker keeps running: change demo.customers with psql -h 127.0.0.1 -p $PG_PORT -U postgres; Ctrl-C stops it"
wait $WORKER
