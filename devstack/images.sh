#!/usr/bin/env bash
# Local stand-ins of the upstream images docker-compose.yml and the Dockerfiles name, which cannot be pulled on a
# machine without an image registry, and the project's own images built on them. Uses the project's engine
# (devstack/docker.sh). Every base comes from Debian packages: a minbase bookworm made with debootstrap from the
# mirror apt is configured with, then devstack/images/<name>/Dockerfile for each stand-in.
#   devstack/images.sh build      build what is missing or changed (Docker's build cache makes the rest quick)
#   devstack/images.sh env        print the variables that make docker-compose.yml use the stand-ins
#   devstack/images.sh list
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

DOCKER_HOST="$("$DEVSTACK_DIR/docker.sh" host)"
export DOCKER_HOST DOCKER_BUILDKIT=0   # the classic builder: no BuildKit frontend image to pull
DOCKER=/usr/bin/docker                 # docker.io's client, the engine's own version
IMAGES_DIR="$DEVSTACK_DIR/images"
WORK="$STATE_DIR/docker/build"

DEBIAN_IMAGE=cw-local/debian:bookworm
PYTHON_IMAGE=cw-local/python:3.11-bookworm
MAVEN_IMAGE=cw-local/maven:3-jdk17
KAFKA_IMAGE=cw-local/kafka:4.3.1
POSTGRES_IMAGE=cw-local/postgres:15
REGISTRY_IMAGE=cw-local/apicurio-registry:3.3.3
WORKER_IMAGE=connect-worker:dev
SPARK_SINK_IMAGE=connect-worker-spark-sink:dev

have_image() { "$DOCKER" image inspect "$1" >/dev/null 2>&1; }

# the first Debian mirror of the host's apt sources (deb822 or one-line format)
apt_mirror() {
  local uri
  uri="$(grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -v security | head -1 || true)"
  [ -n "$uri" ] || uri="$(grep -hE '^deb ' /etc/apt/sources.list 2>/dev/null | awk '{print $2}' | grep -v security | head -1 || true)"
  echo "${uri:-http://deb.debian.org/debian}"
}

debian_base() {
  have_image "$DEBIAN_IMAGE" && return
  local mirror rootfs
  mirror="$(apt_mirror)"
  rootfs="$WORK/rootfs"
  rm -rf "$rootfs"
  mkdir -p "$WORK"
  log "debootstrap --variant=minbase bookworm from $mirror"
  debootstrap --variant=minbase --include=ca-certificates bookworm "$rootfs" "$mirror" >"$WORK/debootstrap.log" 2>&1 \
    || { tail -20 "$WORK/debootstrap.log" >&2; die "debootstrap failed, see $WORK/debootstrap.log"; }
  cat > "$rootfs/etc/apt/sources.list" <<SOURCES
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb ${mirror%/debian}/debian-security bookworm-security main
SOURCES
  # images without documentation, manuals or translations, and apt keeping no package files or lists
  cat > "$rootfs/etc/dpkg/dpkg.cfg.d/cw-slim" <<'DPKG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
DPKG
  cat > "$rootfs/etc/apt/apt.conf.d/cw-slim" <<'APT'
APT::Install-Recommends "false";
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb || true"; };
APT
  # Certificate authorities the host adds to the system's (this machine's egress intercepts TLS): the images'
  # pip and Maven downloads must trust them as the host does. Nothing is added where the host adds nothing.
  if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    cp /usr/local/share/ca-certificates/*.crt "$rootfs/usr/local/share/ca-certificates/"
    chroot "$rootfs" update-ca-certificates >/dev/null
  fi
  find "$rootfs/usr/share/doc" -mindepth 2 ! -name copyright -delete 2>/dev/null || true
  rm -rf "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/var/cache/apt/* "$rootfs"/var/lib/apt/lists/*
  find "$rootfs/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +
  mkdir -p "$rootfs/usr/share/man/man1"   # Java's post-install script links its manual pages there
  log "importing $DEBIAN_IMAGE"
  tar -C "$rootfs" -c . | "$DOCKER" import --change 'CMD ["bash"]' --change 'ENV LANG=C.UTF-8' - "$DEBIAN_IMAGE" >/dev/null
  rm -rf "$rootfs"
}

# build IMAGE DOCKERFILE CONTEXT [--build-arg ...]: builds on the host's network (the engine has no NAT of its own)
build() {
  local image="$1" dockerfile="$2" context="$3"
  shift 3
  log "building $image"
  "$DOCKER" build --network host -q -t "$image" -f "$dockerfile" "$@" "$context" >/dev/null \
    || die "docker build of $image failed (rerun without -q to see why: $DOCKER build --network host -f $dockerfile $context)"
}

kafka_context() {
  "$DEVSTACK_DIR/kafka.sh" fetch >&2
  local context="$WORK/kafka"
  rm -rf "$context"
  mkdir -p "$context"
  cp -r "$STATE_DIR/kafka/libs" "$context/libs"
  rm -f "$context/libs/.complete"
  cp "$IMAGES_DIR/kafka/"{Dockerfile,run.sh,tool.sh} "$context/"
  cp "$DEVSTACK_DIR/kafka/log4j2.properties" "$context/"
  echo "$context"
}

registry_context() {
  "$DEVSTACK_DIR/registry.sh" fetch >&2
  local context="$WORK/registry"
  rm -rf "$context"
  mkdir -p "$context"
  cp -r "$STATE_DIR/registry/app" "$context/app"
  cp "$IMAGES_DIR/registry/Dockerfile" "$context/"
  echo "$context"
}

build_all() {
  "$DEVSTACK_DIR/docker.sh" start
  debian_base
  local base=(--build-arg "DEBIAN_IMAGE=$DEBIAN_IMAGE")
  build "$PYTHON_IMAGE" "$IMAGES_DIR/python/Dockerfile" "$IMAGES_DIR/python" "${base[@]}"
  build "$MAVEN_IMAGE" "$IMAGES_DIR/maven/Dockerfile" "$IMAGES_DIR/maven" "${base[@]}"
  build "$POSTGRES_IMAGE" "$IMAGES_DIR/postgres/Dockerfile" "$IMAGES_DIR/postgres" "${base[@]}"
  local kafka; kafka="$(kafka_context)"
  build "$KAFKA_IMAGE" "$kafka/Dockerfile" "$kafka" "${base[@]}"
  local registry; registry="$(registry_context)"
  build "$REGISTRY_IMAGE" "$registry/Dockerfile" "$registry" --build-arg "PYTHON_IMAGE=$PYTHON_IMAGE"
  # the project's images, from its own Dockerfiles with the stand-ins as their bases
  build "$WORKER_IMAGE" "$REPO_DIR/Dockerfile" "$REPO_DIR" --build-arg "PYTHON_IMAGE=$PYTHON_IMAGE"
  build "$SPARK_SINK_IMAGE" "$REPO_DIR/spark_sink/Dockerfile" "$REPO_DIR" \
    --build-arg "PYTHON_IMAGE=$PYTHON_IMAGE" --build-arg "MAVEN_IMAGE=$MAVEN_IMAGE"
  "$DOCKER" image prune -f >/dev/null   # the dangling layers of earlier builds
}

print_env() {
  echo "DOCKER_HOST=$DOCKER_HOST"
  echo "KAFKA_IMAGE=$KAFKA_IMAGE"
  echo "POSTGRES_IMAGE=$POSTGRES_IMAGE"
  echo "REGISTRY_IMAGE=$REGISTRY_IMAGE"
  echo "WORKER_IMAGE=$WORKER_IMAGE"
  echo "SPARK_SINK_IMAGE=$SPARK_SINK_IMAGE"
}

case "${1:-}" in
  build) build_all ;;
  env) print_env ;;
  list) "$DOCKER" images --format '{{.Repository}}:{{.Tag}}  {{.Size}}' | grep -E '^(cw-local/|connect-worker)' ;;
  *) echo "usage: $0 build|env|list" >&2; exit 2 ;;
esac
