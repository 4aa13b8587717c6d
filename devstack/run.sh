#!/usr/bin/env bash
# `make run`: the services are up; start the worker (REST on 127.0.0.1:8083), register a demo connector,
# show its records arriving, then keep the worker in the foreground until Ctrl-C.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$REPO_DIR"
mkdir -p "$STATE_DIR/demo"
if [ ! -s "$STATE_DIR/demo/input.txt" ]; then
  printf 'hello from connect-worker\nline two\nline three\n' > "$STATE_DIR/demo/input.txt"
fi
log "starting the worker: connect-worker devstack/worker.properties devstack/demo/file-source.properties"
"$VENV/bin/connect-worker" devstack/worker.properties devstack/demo/file-source.properties &
WORKER=$!
trap 'kill -TERM $WORKER 2>/dev/null; wait $WORKER' INT TERM
for _ in $(seq 1 60); do
  curl -sf http://127.0.0.1:8083/health >/dev/null 2>&1 && break
  kill -0 $WORKER 2>/dev/null || die "the worker exited during start-up (see above)"
  sleep 0.5
done
log "worker is up: curl -s http://127.0.0.1:8083/connectors?expand=status"
curl -s "http://127.0.0.1:8083/connectors?expand=status"; echo
log "records of the demo connector (append lines to .devstack/demo/input.txt to see more):"
"$VENV/bin/python" "$DEVSTACK_DIR/show_topic.py" "127.0.0.1:$KAFKA_PORT" demo-lines 3 || true
log "the worker keeps running; Ctrl-C stops it (offsets are flushed on the way out)"
wait $WORKER
