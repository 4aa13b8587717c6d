#!/usr/bin/env bash
# Stops exactly the services devstack/up.sh started (by their PID files), nothing else.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
"$DEVSTACK_DIR/registry.sh" stop
"$DEVSTACK_DIR/kafka.sh" stop
"$DEVSTACK_DIR/postgres.sh" stop
