"""Applying the tables of a micro-batch side by side (`sink.table_parallelism`).

Each table's apply is a handful of small Spark jobs and one or two commits, mostly fixed cost (planning, code
generation, the commit protocol) with short stretches of work on the executors; one table after the other leaves the
executors idle between them. Up to `parallelism` tables are applied at once from driver threads, each submitting its
own Spark jobs to the shared executors (Spark runs concurrent jobs of one application; tables are independent: one
MERGE, ledger and commit each).

Some work may not overlap anything: the keyless tables' counted MERGE uses session settings to commit at most once
per batch (Delta txnAppId, Iceberg snapshot properties), which would attach to any write running at that moment in
the same session. Those items (`alone`) run one by one after the others.

When a table fails, the other tables of the shared group still run to their end before the error is raised (the
first failed one in item order): no table is still being written when the batch fails, and which tables a failed
batch wrote does not depend on timing (its replay skips what they applied). The `alone` items do not run then. With
parallelism 1 the items run in their order on the calling thread and the first error stops the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


def run_all(
    items: Sequence[Item],
    work: Callable[[Item], Result],
    parallelism: int,
    alone: Callable[[Item], bool] = lambda _: False,
    carry: Callable[[Callable[[Item], Result]], Callable[[Item], Result]] = lambda work: work,
) -> list[Result]:
    """`work(item)` for every item; the results in item order. Raises the error of the first failed item (in item
    order) once the shared group has finished. `carry` wraps the work run on other threads (the job's Spark local
    properties and session tags: pyspark.util.inheritable_thread_target(session), taken when the batch starts)."""
    if parallelism <= 1 or len(items) <= 1:
        return [work(item) for item in items]
    shared = [i for i, item in enumerate(items) if not alone(item)]
    results = dict(zip(shared, _concurrently([items[i] for i in shared], carry(work), parallelism), strict=True))
    return [results[i] if i in results else work(item) for i, item in enumerate(items)]  # the alone ones, in order


def _concurrently(items: Sequence[Item], work: Callable[[Item], Result], parallelism: int) -> list[Result]:
    if not items:
        return []
    with ThreadPoolExecutor(max_workers=min(parallelism, len(items)), thread_name_prefix="spark_sink_table") as pool:
        futures: list[Future[Result]] = [pool.submit(work, item) for item in items]
    # (leaving the pool waited for every item)
    for f in futures:
        error = f.exception()
        if error is not None:
            raise error
    return [f.result() for f in futures]
