"""The Kafka broker stopped under a running worker and started again (issue 19, faults), on a private broker of its
own (the devstack's scripts with another state folder and port, the same jars), so other tests keep theirs.

- An outage shorter than the producer's delivery timeout (Connect's default: none): the task does not fail, records
  wait in the producer and are delivered when the broker is back, offsets are flushed only after delivery, nothing
  is lost; exactly once, a read_committed consumer sees each record once.
- An outage longer than `delivery.timeout.ms`: the task fails naming the timeout; once the broker is back, a REST
  restart of the task resumes from the committed offsets and nothing is lost.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from .test_cli import free_port
from .test_exactly_once import Writer, committed_lines, file_source

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

ROOT = Path(__file__).resolve().parents[3]
KAFKA_SH = ROOT / "devstack" / "kafka.sh"
OUTAGE_S = float(os.environ.get("CW_OUTAGE_S", "12"))
# Exactly once, the outage must stay shorter than the transaction timeout (the coordinator aborts a transaction older
# than that when it is back; the producer's messages time out with it), counted from before the stop to the broker
# being ready again: a broker's restart on a loaded machine can take tens of seconds, so the test gives the
# transactions Kafka's upper bound of a few minutes rather than the producer's default 60 s, and checks that bound.
TRANSACTION_TIMEOUT_S = max(180.0, 4 * OUTAGE_S)


class Broker:
    """A single-node broker of the devstack's kind in `state` (its libs linked to the devstack's)."""

    def __init__(self, state: Path) -> None:
        self.port = free_port()
        self.env = {
            **os.environ,
            "CW_STATE_DIR": str(state),
            "CW_KAFKA_PORT": str(self.port),
            "CW_KAFKA_CONTROLLER_PORT": str(free_port()),
            "CW_KAFKA_HEAP": "-Xms64m -Xmx256m",
        }
        shared = Path(os.environ.get("CW_STATE_DIR", ROOT / ".devstack")) / "kafka" / "libs"
        (state / "kafka").mkdir(parents=True)
        (state / "kafka" / "libs").symlink_to(shared)
        self.bootstrap = f"127.0.0.1:{self.port}"

    def run(self, action: str) -> None:
        subprocess.run([str(KAFKA_SH), action], env=self.env, check=True, capture_output=True, timeout=150)


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    b = Broker(tmp_path / "state")
    b.run("start")
    try:
        yield b
    finally:
        b.run("stop")


def task_state(port: int) -> dict[str, str]:
    tasks = httpx.get(f"http://127.0.0.1:{port}/connectors/fs/status", timeout=5).json()["tasks"]
    return dict(tasks[0]) if tasks else {}


def start_worker(
    broker: Broker, tmp_path: Path, name: str, exactly_once: bool, connector_extra: str = ""
) -> tuple[subprocess.Popen[bytes], int, Path, str]:
    fs = file_source(
        tmp_path, broker.bootstrap, name, exactly_once=exactly_once, connector_extra=connector_extra, flush_ms=300
    )
    with (tmp_path / "worker.log").open("ab") as log:
        proc = fs.start(log)
    return proc, fs.port, fs.source, fs.topic


@pytest.mark.parametrize("mode", ["at-least-once", "exactly-once"])
def test_a_broker_outage_is_waited_out(broker: Broker, tmp_path: Path, unique_name: str, mode: str) -> None:
    exactly_once = mode == "exactly-once"
    extra = f"producer.override.transaction.timeout.ms={int(TRANSACTION_TIMEOUT_S * 1000)}\n" if exactly_once else ""
    proc, port, source, topic = start_worker(broker, tmp_path, unique_name, exactly_once, extra)
    total = int(1500 * (OUTAGE_S + 6))
    writer = Writer(source, total)
    try:
        writer.start()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and len(committed_lines(broker.bootstrap, topic)) < 2000:
            time.sleep(0.2)
        broker.run("stop")
        stopped = time.monotonic()
        states = set()
        while time.monotonic() - stopped < OUTAGE_S:  # the file keeps growing, the broker is away
            states.add(task_state(port).get("state"))
            time.sleep(1)
        broker.run("start")
        away = time.monotonic() - stopped
        writer.join(60)
        expected = [f"line-{i}".encode() for i in range(total)]
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and len(set(committed_lines(broker.bootstrap, topic))) < total:
            time.sleep(0.5)
        final = task_state(port)
        proc.terminate()
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    got = committed_lines(broker.bootstrap, topic)
    print(f"{mode}: broker away {away:.0f} s; {total} lines, {len(got)} delivered; task states seen {states}")
    if exactly_once:  # the premise: shorter than the transactions' timeout (else failing is the right outcome)
        assert away < TRANSACTION_TIMEOUT_S - 30, f"the broker was away {away:.0f} s"
    assert states == {"RUNNING"} and final["state"] == "RUNNING", (states, final)
    assert set(got) == set(expected), f"{len(set(expected) - set(got))} lines lost"
    if exactly_once:
        assert got == expected
    else:
        assert got == expected, "no record was sent twice: the offsets flush waited for the deliveries"


@pytest.mark.parametrize("mode", ["at-least-once", "exactly-once"])
def test_an_outage_past_the_delivery_timeout_fails_the_task_and_a_restart_resumes(
    broker: Broker, tmp_path: Path, unique_name: str, mode: str
) -> None:
    exactly_once = mode == "exactly-once"
    # exactly once, each message's timeout is the transaction's (transaction.timeout.ms)
    timeout = "transaction.timeout.ms" if exactly_once else "delivery.timeout.ms"
    proc, port, source, topic = start_worker(
        broker, tmp_path, unique_name, exactly_once, f"producer.override.{timeout}=4000\n"
    )
    try:
        source.write_text("".join(f"line-{i}\n" for i in range(1000)))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and len(committed_lines(broker.bootstrap, topic)) < 1000:
            time.sleep(0.2)
        broker.run("stop")
        with source.open("a") as f:
            f.write("".join(f"line-{i}\n" for i in range(1000, 3000)))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and task_state(port).get("state") != "FAILED":
            time.sleep(0.5)
        failed = task_state(port)
        broker.run("start")
        assert failed.get("state") == "FAILED", failed
        timed_out = ("Message timed out", "not acknowledged within 4 s")
        assert any(t in failed["trace"] for t in timed_out), failed["trace"][:500]
        restart = httpx.post(f"http://127.0.0.1:{port}/connectors/fs/tasks/0/restart", timeout=30)
        assert restart.status_code == 204, restart.text
        expected = {f"line-{i}".encode() for i in range(3000)}
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and set(committed_lines(broker.bootstrap, topic)) != expected:
            time.sleep(0.5)
        assert task_state(port)["state"] == "RUNNING"
        proc.terminate()
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        with contextlib.suppress(Exception):
            broker.run("start")
    got = committed_lines(broker.bootstrap, topic)
    assert set(got) == expected, f"{len(expected - set(got))} lines lost"
    if exactly_once:
        assert len(got) == len(expected), "read_committed: the aborted transaction's records are not seen"
    print(f"delivery timeout, {mode}: task failed, restarted by REST; {len(got)} delivered for {len(expected)} lines")
