"""event.processing.failure.handling.mode on the real PostgreSQL 15 and Kafka: a streamed numeric NaN with
decimal.handling.mode=precise cannot be converted (Debezium fails on it too). `fail` fails the task with the
event's offset in the message; `warn` logs the offset and goes on; `skip` goes on silently. Either way the
position advances past the change."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from connect_worker.api import ConfigError
from tests.worker_support import running_worker, worker_properties

from .acceptance.streaming_support import Capture, capture, payload, token, until

pytestmark = [pytest.mark.integration, pytest.mark.asyncio(loop_scope="module")]

DDL = "CREATE TABLE public.amounts (id int PRIMARY KEY, n numeric)"


class Env:
    def __init__(self, client: object, bootstrap: str, offsets_topic: str) -> None:
        self.client = client
        self.bootstrap = bootstrap
        self.offsets_topic = offsets_topic

    def capture(self, config: dict[str, str]) -> contextlib.AbstractAsyncContextManager[Capture]:
        base = {"snapshot.mode": "no_data", "decimal.handling.mode": "precise"}
        return capture(self.client, self.bootstrap, self.offsets_topic, [DDL], {**base, **config})  # type: ignore[arg-type]


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def env(kafka_bootstrap: str) -> AsyncIterator[Env]:
    for attempt in range(3):
        props = {**worker_properties(kafka_bootstrap, token("efw")), "offset.flush.interval.ms": "500"}
        try:
            async with running_worker(props) as (_worker, client):
                yield Env(client, kafka_bootstrap, props["offset.storage.topic"])
            return
        except ConfigError as e:
            if "None partitions" not in str(e) or attempt == 2:
                raise


async def _three_rows(cap: Capture) -> int:
    """Rows 1, 2 (NaN) and 3, one transaction each; returns a WAL position between the 2nd and 3rd commits."""
    await cap.tx("INSERT INTO public.amounts VALUES (1, 1.5)")
    await cap.tx("INSERT INTO public.amounts VALUES (2, 'NaN')")
    between = int(await cap.scalar("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn"))
    await cap.tx("INSERT INTO public.amounts VALUES (3, 3.5)")
    return between


async def test_fail_mode_fails_the_task_with_the_offset(env: Env) -> None:
    async with env.capture({}) as cap:
        await _three_rows(cap)

        async def failed() -> str | None:
            status = (await cap.client.get(f"/connectors/{cap.name}/status")).json()
            task = (status.get("tasks") or [{}])[0]
            return task.get("trace") if task.get("state") == "FAILED" else None

        trace = await until(failed, 60, "task FAILED")
        assert "Error while processing event at offset {" in trace
        assert "messageType=INSERT" in trace and "lsn=" in trace and "txId=" in trace
        records = await cap.records(cap.topic("public.amounts"), 1)
        assert [payload(r)["after"]["id"] for r in records] == [1]


@pytest.mark.parametrize(
    ("mode", "plugin"), [("warn", "pgoutput"), ("warn", "decoderbufs"), ("skip", "pgoutput"), ("ignore", "pgoutput")]
)
async def test_warn_and_skip_go_past_the_change(
    env: Env, mode: str, plugin: str, caplog: pytest.LogCaptureFixture
) -> None:
    config = {"event.processing.failure.handling.mode": mode, "plugin.name": plugin}
    with caplog.at_level(logging.DEBUG, logger="connectors.postgres.streaming"):
        async with env.capture(config) as cap:
            between = await _three_rows(cap)
            records = await cap.records(cap.topic("public.amounts"), 2)
            assert [payload(r)["after"]["id"] for r in records] == [1, 3]
            assert (await cap.state())[1] == "RUNNING"

            async def advanced() -> bool:  # the stored position is past the failed change
                offset = await cap.stored_offset()
                return offset is not None and int(offset.get("lsn") or 0) >= between

            await until(advanced, 30, "offset past the failed change")
    failures = [r for r in caplog.records if "Error while processing event at offset {" in r.getMessage()]
    assert len(failures) == 1
    assert failures[0].levelno == (logging.WARNING if mode == "warn" else logging.DEBUG)
    assert "messageType=INSERT" in failures[0].getMessage()
