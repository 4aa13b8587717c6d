#!/usr/bin/env bash
# Command-line tools the tests use beside the services: docker-compose (validates docker-compose.yml; no
# engine is needed for `docker-compose config`) and openssl (test certificates). Installed with apt-get
# when missing and running as root; otherwise a clear message says what to install.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
missing=()
command -v docker-compose >/dev/null || missing+=(docker-compose)
command -v openssl >/dev/null || missing+=(openssl)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  die "missing tools: ${missing[*]}. Install them with: sudo apt-get install -y ${missing[*]}"
fi
log "installing ${missing[*]} with apt-get"
apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
  || die "apt-get install ${missing[*]} failed"
