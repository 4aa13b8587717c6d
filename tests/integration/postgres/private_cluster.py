"""A private PostgreSQL 15 cluster of the devstack's kind (devstack/postgres.sh with a state folder and port of its
own), for the tests that stop and start their database: the shared devstack server stays up for every other test,
including those `make test` runs beside in a second pytest process (the Spark sink's end-to-end tests)."""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from pathlib import Path

from tests.worker_support import free_port

ROOT = Path(__file__).resolve().parents[3]
POSTGRES_SH = ROOT / "devstack" / "postgres.sh"


class Cluster:
    """initdb'd in a folder of its own under /tmp, which the cluster's OS user can reach (pytest's folders are
    root's only)."""

    def __init__(self) -> None:
        self.state = Path(tempfile.mkdtemp(prefix="cw-pg-private-"))
        self.state.chmod(0o755)
        self.port = free_port()
        self.env = {**os.environ, "CW_STATE_DIR": str(self.state), "CW_PG_PORT": str(self.port)}

    def run(self, action: str, mode: str = "fast") -> float:
        """devstack/postgres.sh <action> (stop: pg_ctl's shutdown `mode`); the seconds it took."""
        started = time.monotonic()
        env = {**self.env, "CW_PG_STOP_MODE": mode}
        subprocess.run([str(POSTGRES_SH), action], env=env, check=True, capture_output=True, text=True, timeout=120)
        return time.monotonic() - started

    def dsn(self, db: str = "postgres") -> str:
        return f"host=127.0.0.1 port={self.port} user=postgres dbname={db}"

    def remove(self) -> None:
        """Stopped at once (no checkpoint) and its folder deleted."""
        try:
            self.run("stop", "immediate")
        finally:
            subprocess.run(["rm", "-rf", str(self.state)], check=False)
