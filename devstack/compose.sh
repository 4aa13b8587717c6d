#!/usr/bin/env bash
# docker-compose.yml, really run: on the project's own engine (devstack/docker.sh) with images built here
# (devstack/images.sh), the Delta tables on a host folder the tests read.
#   devstack/compose.sh up      engine, images, `docker-compose up -d`, wait until every service is healthy
#   devstack/compose.sh down    `docker-compose down -v` (containers, network, volumes), then stop the engine
#   devstack/compose.sh env     the variables to reach the stack with docker / docker-compose by hand
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

PROJECT="${CW_COMPOSE_PROJECT:-cwcompose}"
DELTA_DATA="$STATE_DIR/compose/delta"
eval "$("$DEVSTACK_DIR/images.sh" env | sed 's/^/export /')"
export DELTA_DATA COMPOSE_PROJECT_NAME="$PROJECT"
COMPOSE=(docker-compose -f "$REPO_DIR/docker-compose.yml" -p "$PROJECT")
SERVICES=(kafka postgres schema-registry connect-worker spark-sink)

wait_healthy() {
  local deadline=$((SECONDS + ${CW_COMPOSE_TIMEOUT:-300})) service id state pending
  while :; do
    pending=()
    for service in "${SERVICES[@]}"; do
      id="$("${COMPOSE[@]}" ps -q "$service")"
      [ -n "$id" ] || die "service $service has no container"
      # services without a healthcheck count when running
      state="$(/usr/bin/docker inspect -f '{{if .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}{{end}}' "$id")"
      case "$state" in healthy|running) ;; *) pending+=("$service=$state") ;; esac
    done
    [ ${#pending[@]} -eq 0 ] && { log "compose stack is up: ${SERVICES[*]}"; return; }
    if [ $SECONDS -ge $deadline ]; then
      "${COMPOSE[@]}" ps >&2
      "${COMPOSE[@]}" logs --tail 30 >&2
      die "not healthy in time: ${pending[*]}"
    fi
    sleep 2
  done
}

up() {
  "$DEVSTACK_DIR/images.sh" build
  # the Spark container's user (uid 185) writes the tables; the host (tests) reads them
  mkdir -p "$DELTA_DATA"
  chmod 0777 "$DELTA_DATA"
  log "docker-compose -p $PROJECT up -d (images built here: $KAFKA_IMAGE, $POSTGRES_IMAGE, $REGISTRY_IMAGE)"
  "${COMPOSE[@]}" up -d --no-build
  wait_healthy
}

down() {
  if "$DEVSTACK_DIR/docker.sh" status >/dev/null 2>&1; then
    log "docker-compose -p $PROJECT down -v"
    "${COMPOSE[@]}" down -v --remove-orphans --timeout 20
    local left
    left="$(/usr/bin/docker ps -aq --filter "label=com.docker.compose.project=$PROJECT")"
    [ -z "$left" ] || die "containers left after down: $left"
  fi
  "$DEVSTACK_DIR/docker.sh" stop
  rm -rf "$DELTA_DATA"
}

case "${1:-}" in
  up) up ;; down) down ;;
  env) echo "DOCKER_HOST=$DOCKER_HOST"; echo "COMPOSE_PROJECT_NAME=$PROJECT"; echo "DELTA_DATA=$DELTA_DATA"
       echo "KAFKA_IMAGE=$KAFKA_IMAGE"; echo "POSTGRES_IMAGE=$POSTGRES_IMAGE"; echo "REGISTRY_IMAGE=$REGISTRY_IMAGE" ;;
  *) echo "usage: $0 up|down|env" >&2; exit 2 ;;
esac
