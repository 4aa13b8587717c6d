"""GET /metrics on a real in-process worker after records flowed, and /admin/loggers acting on the project's
own loggers at run time (with the connector/task context on the lines they write)."""

from __future__ import annotations

import io
import logging
import re
from pathlib import Path

import pytest

from connect_worker.runtime.logging_setup import ContextFilter
from tests.worker_support import running_worker, wait_for

pytestmark = pytest.mark.integration


def value(text: str, name: str, **labels: str) -> float | None:
    for line in text.splitlines():
        if not line.startswith(name + "{") and not line.startswith(name + " "):
            continue
        if all(f'{k}="{v}"' in line for k, v in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    return None


async def test_metrics_after_records_flow(worker_props: dict[str, str], unique_name: str, tmp_path: Path) -> None:
    source = tmp_path / "in.txt"
    source.write_text("a\nb\nc\n")
    config = {"connector.class": "FileStreamSource", "file": str(source), "topic": f"{unique_name}-m"}
    async with running_worker(worker_props) as (_worker, client):
        assert (await client.post("/connectors", json={"name": "fsm", "config": config})).status_code == 201

        async def committed() -> str | None:
            text = (await client.get("/metrics")).text
            done = value(text, "kafka_connect_connector_task_metrics_offset_commit_total", connector="fsm")
            return text if done and done >= 1 else None

        text = await wait_for(committed)
        r = await client.get("/metrics")
        assert r.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
        task = {"connector": "fsm", "task": "0"}
        assert value(text, "kafka_connect_source_task_metrics_source_record_poll_total", **task) == 3
        assert value(text, "kafka_connect_source_task_metrics_source_record_write_total", **task) == 3
        assert value(text, "kafka_connect_source_task_metrics_source_record_active_count", **task) == 0
        assert value(text, "kafka_connect_task_error_metrics_total_record_failures_total", **task) == 0
        assert value(text, "kafka_connect_connector_task_metrics_offset_commit_max_time_ms", **task) is not None
        assert value(text, "kafka_connect_connector_status", connector="fsm", state="RUNNING") == 1
        assert value(text, "kafka_connect_connector_task_status", connector="fsm", task="0", state="RUNNING") == 1
        assert value(text, "kafka_connect_connect_worker_metrics_connector_count") == 1
        assert value(text, "kafka_connect_connect_worker_metrics_task_count") == 1
        rss = value(text, "process_resident_memory_bytes")
        assert rss is not None and rss > 10_000_000
        assert value(text, "process_open_fds") is not None and value(text, "process_cpu_seconds_total") is not None
        assert value(text, "python_gc_collections_total", generation="0") is not None
        # every line is a comment or `name{labels} number`
        for line in text.splitlines():
            assert line.startswith("# ") or re.fullmatch(r"[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? \S+", line), line

        # stopping the connector removes its task's series
        assert (await client.put("/connectors/fsm/stop")).status_code == 204
        text = (await client.get("/metrics")).text
        assert value(text, "kafka_connect_source_task_metrics_source_record_poll_total", connector="fsm") is None
        assert value(text, "kafka_connect_connector_status", connector="fsm", state="STOPPED") == 1


async def test_admin_loggers_change_the_projects_loggers_at_run_time(
    worker_props: dict[str, str], unique_name: str, tmp_path: Path
) -> None:
    source = tmp_path / "in.txt"
    source.write_text("x\n")
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.addFilter(ContextFilter())
    handler.setFormatter(logging.Formatter("%(levelname)s %(connector_context)s%(message)s (%(name)s)"))
    root = logging.getLogger()
    root.addHandler(handler)
    task_logger = logging.getLogger("connect_worker.runtime.source_task")
    saved = {n: lg.level for n, lg in logging.root.manager.loggerDict.items() if isinstance(lg, logging.Logger)}
    try:
        async with running_worker(worker_props) as (_worker, client):
            everything = (await client.get("/admin/loggers")).json()
            for name in (
                "connect_worker.runtime.source_task",
                "connect_worker.runtime.standalone_herder",
                "rest.server",
            ):
                assert name in everything, name
            r = await client.put("/admin/loggers/connect_worker.runtime.source_task", json={"level": "DEBUG"})
            assert r.status_code == 200 and r.json() == ["connect_worker.runtime.source_task"]
            assert (await client.get("/admin/loggers/connect_worker.runtime.source_task")).json()["level"] == "DEBUG"
            config = {"connector.class": "FileStreamSource", "file": str(source), "topic": f"{unique_name}-l"}
            assert (await client.post("/connectors", json={"name": "fsl", "config": config})).status_code == 201

            async def debug_line() -> bool:
                return "DEBUG [fsl|task-0] task fsl-0 committed offsets" in out.getvalue()

            await wait_for(debug_line)
            r = await client.put("/admin/loggers/connect_worker.runtime", json={"level": "WARN"})
            assert "connect_worker.runtime.source_task" in r.json()
            assert task_logger.getEffectiveLevel() == logging.WARNING
    finally:
        root.removeHandler(handler)
        for name, lg in logging.root.manager.loggerDict.items():  # the levels changed through the API
            if isinstance(lg, logging.Logger):
                lg.setLevel(saved.get(name, logging.NOTSET))
