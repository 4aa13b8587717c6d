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
apt_install "${missing[@]}"
