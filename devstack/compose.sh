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
DOCKER_HOST="$("$DEVSTACK_DIR/docker.sh" host)"
[ -n "$DOCKER_HOST" ] || die "no socket for the project's docker engine"
# the images devstack/images.sh builds (KAFKA_IMAGE=..., one per line) for docker-compose.yml's variables
while IFS='=' read -r name value; do
  case "$name" in *_IMAGE) export "$name=$value" ;; esac
done < <("$DEVSTACK_DIR/images.sh" env)
[ -n "${KAFKA_IMAGE:-}" ] || die "devstack/images.sh env named no images"
export DOCKER_HOST DELTA_DATA COMPOSE_PROJECT_NAME="$PROJECT"
COMPOSE=(docker-compose -f "$REPO_DIR/docker-compose.yml" -p "$PROJECT")
SERVICES=(kafka postgres schema-registry connect-worker spark-sink)

wait_healthy() {
  local deadline=$((SECONDS + ${CW_COMPOSE_TIMEOUT:-300})) service id state pending
  while :; do
    pending=()
    for service in "${SERVICES[@]}"; do
      id="$("${COMPOSE[@]}" ps -q "$service")"
      [ -n "$id" ] || die "service $service has no container"
      # services without a healthcheck count when running and never restarted (not crash-looping)
      state="$(/usr/bin/docker inspect -f \
        '{{if .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}/{{.RestartCount}}{{end}}' "$id")"
      case "$state" in healthy|running/0) ;; *) pending+=("$service=$state") ;; esac
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
  # a new stack (no container of the project yet) starts with new tables: Kafka and its offsets are new too
  if [ -z "$(/usr/bin/docker ps -aq --filter "label=com.docker.compose.project=$PROJECT")" ]; then
    rm -rf "$DELTA_DATA"
  fi
  # the Spark container's user (uid 185) writes the tables; the host (tests) reads them
  mkdir -p "$DELTA_DATA"
  chmod 0777 "$DELTA_DATA"
  log "docker-compose -p $PROJECT up -d (images built here: $KAFKA_IMAGE, $POSTGRES_IMAGE, $REGISTRY_IMAGE)"
  "${COMPOSE[@]}" up -d --no-build
  wait_healthy
}

down() {
  local problem=""
  if "$DEVSTACK_DIR/docker.sh" status >/dev/null 2>&1; then
    log "docker-compose -p $PROJECT down -v"
    "${COMPOSE[@]}" down -v --remove-orphans --timeout 20 || problem="docker-compose down failed"
    local left
    left="$(/usr/bin/docker ps -aq --filter "label=com.docker.compose.project=$PROJECT")"
    [ -z "$left" ] || problem="containers left after down: $left"
  fi
  # the engine stops (and its containers with it) whatever down said
  "$DEVSTACK_DIR/docker.sh" stop
  rm -rf "$DELTA_DATA"
  [ -z "$problem" ] || die "$problem"
}

case "${1:-}" in
  up) up ;; down) down ;;
  env) echo "DOCKER_HOST=$DOCKER_HOST"; echo "COMPOSE_PROJECT_NAME=$PROJECT"; echo "DELTA_DATA=$DELTA_DATA"
       echo "KAFKA_IMAGE=$KAFKA_IMAGE"; echo "POSTGRES_IMAGE=$POSTGRES_IMAGE"; echo "REGISTRY_IMAGE=$REGISTRY_IMAGE" ;;
  *) echo "usage: $0 up|down|env" >&2; exit 2 ;;
esac
