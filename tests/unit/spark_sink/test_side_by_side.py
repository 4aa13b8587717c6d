"""Pure tests of applying a batch's tables side by side (spark_sink/stage/side_by_side.py), with plain Python work
items standing in for tables: order of results, overlap, the items that must run alone, and errors."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from spark_sink.stage.side_by_side import run_all


class Recorder:
    """Work that records which items ran at the same time (the most at once, and who overlapped the alone ones)."""

    def __init__(self, fail: frozenset[str] = frozenset(), pause: float = 0.2) -> None:
        self.lock = threading.Lock()
        self.running: set[str] = set()
        self.most = 0
        self.ran: list[str] = []
        self.overlapped: dict[str, set[str]] = {}
        self.fail, self.pause = fail, pause

    def __call__(self, item: str) -> str:
        with self.lock:
            self.running.add(item)
            self.most = max(self.most, len(self.running))
            for other in self.running:
                self.overlapped.setdefault(other, set()).update(self.running - {other})
        try:
            time.sleep(self.pause)
            if item in self.fail:
                raise ValueError(f"{item} failed")
            return item.upper()
        finally:
            with self.lock:
                self.running.discard(item)
                self.ran.append(item)


def test_results_in_item_order_and_overlap_up_to_the_parallelism() -> None:
    work = Recorder()
    items = [f"t{i}" for i in range(6)]
    assert run_all(items, work, 3) == [i.upper() for i in items]
    assert work.most == 3  # never more than asked, and really side by side
    assert sorted(work.ran) == items


def test_parallelism_one_runs_in_order_on_the_caller_and_stops_at_the_first_error() -> None:
    caller = threading.get_ident()
    threads: set[int] = set()

    def work(item: str) -> str:
        threads.add(threading.get_ident())
        if item == "b":
            raise ValueError("b failed")
        return item

    assert run_all(["a", "c"], work, 1) == ["a", "c"]
    ran: list[str] = []

    def recorded(item: str) -> str:
        ran.append(item)
        return work(item)

    with pytest.raises(ValueError, match="b failed"):
        run_all(["a", "b", "c"], recorded, 1)
    assert ran == ["a", "b"]  # c never started
    assert threads == {caller}


def test_items_that_must_run_alone_overlap_nothing() -> None:
    work = Recorder()
    items = ["a", "k1", "b", "k2", "c"]
    out = run_all(items, work, 4, alone=lambda i: i.startswith("k"))
    assert out == ["A", "K1", "B", "K2", "C"]
    assert not work.overlapped.get("k1") and not work.overlapped.get("k2")
    assert work.ran[-2:] == ["k1", "k2"]  # after the shared group, one by one, in item order
    assert work.overlapped["a"] >= {"b", "c"}


def test_an_error_lets_the_other_shared_items_finish_then_raises_the_first_in_item_order() -> None:
    work = Recorder(fail=frozenset({"b", "d"}))
    with pytest.raises(ValueError, match="b failed"):
        run_all(["a", "b", "c", "d", "k"], work, 2, alone=lambda i: i == "k")
    assert sorted(work.ran) == ["a", "b", "c", "d"]  # every shared item ran to its end; the alone one did not run
    assert not work.running  # nothing still running when the error is raised


def test_a_single_item_or_none() -> None:
    assert run_all([], Recorder(), 4) == []
    assert run_all(["x"], Recorder(), 4) == ["X"]


def test_work_on_other_threads_is_wrapped_by_carry() -> None:
    marks: list[str] = []

    def carry(work: Any) -> Any:
        def carried(item: str) -> str:
            marks.append(item)  # where the Spark local properties would be set on the new thread
            return str(work(item))

        return carried

    assert run_all(["a", "b", "k"], str.upper, 2, alone=lambda i: i == "k", carry=carry) == ["A", "B", "K"]
    assert sorted(marks) == ["a", "b"]  # the alone item runs on the calling thread
    marks.clear()
    assert run_all(["a", "b"], str.upper, 1, carry=carry) == ["A", "B"] and marks == []


def test_without_pinned_threads_the_batch_carries_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """No JVM gateway, as with PYSPARK_PIN_THREAD=false: PySpark's inheritable_thread_target hands the session back,
    which must not become the work's wrapper. (The gateway is taken away here: a Spark test run earlier in the same
    process leaves one.)"""
    from pyspark import SparkContext

    from spark_sink.stage.processor import _carry

    monkeypatch.setattr(SparkContext, "_gateway", None)

    session: Any = object()
    assert _carry(session)(str.upper) is str.upper
