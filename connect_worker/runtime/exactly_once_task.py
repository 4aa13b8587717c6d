"""Exactly-once source delivery (KIP-618): the source-task loop with a transactional producer.

With `exactly.once.source.support=enabled` every task gets a producer of its own with `transactional.id`
`<group.id>-<connector>-<task>` (Connect's format). One Kafka transaction holds the records the task produced
since the last one AND the offsets-topic records of their source offsets, written by the same producer; nothing
of it is visible to a `read_committed` consumer until it commits, and a crash before the commit aborts both.
The offsets a restarted task reads back (read_committed) are therefore exactly those of the records that were
committed: nothing is sent twice, nothing skipped.

- Start: `init_transactions` fences an earlier producer of the same id (a zombie task, a killed worker's) and
  waits until the coordinator has finished its open transaction; then the task's offsets are read again, so an
  offset committed by that transaction in the meantime is seen before the task reads it.
- Boundaries (`transaction.boundary`): `poll`, a transaction per batch the task's poll() returned; `interval`,
  the first batch end (or empty poll) after `transaction.boundary.interval.ms` since the last commit; `connector`,
  where the task asks through its TransactionContext (the PostgreSQL connector: at the end of every database
  transaction), a source transaction still open after half the transaction timeout being split there.
- The source is told a position (`offsets_flushed`, `commit`) and `commit_record` is called only after the
  transaction that holds it committed.
- A record Kafka does not accept makes the transaction impossible to commit: the task aborts it and fails,
  whatever `errors.tolerance` says (conversion and transform errors are still tolerated as configured).
- The offsets go into the transaction without waiting for the records' acknowledgements (the commit is all or
  nothing); commit_transaction waits for both, serving the delivery reports on its thread.
- A graceful stop commits the open transaction (with connector boundaries, only when no source transaction is half
  in it); a failure aborts it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Mapping
from typing import Any

from confluent_kafka import KafkaError, KafkaException, Message

from connect_worker.api import ConfigError, RecordMetadata, SourceRecord
from connect_worker.runtime.source_task import WorkerSourceTask
from connect_worker.runtime.submitted import Submitted
from connect_worker.storage.offsets import OffsetsTopicLost, OffsetStore

log = logging.getLogger(__name__)

POLL, INTERVAL, CONNECTOR = "poll", "interval", "connector"
_PURGED = frozenset({KafkaError._PURGE_QUEUE, KafkaError._PURGE_INFLIGHT})  # dropped by librdkafka after a failure


def transactional_id(group_id: str, connector: str, task: int) -> str:
    """Connect's task transactional id (`ExactlyOnceWorkerSourceTask`/`DistributedConfig.taskTransactionalId`)."""
    return f"{group_id}-{connector}-{task}"


DEFAULT_TRANSACTION_TIMEOUT_MS = 60000  # the Java producer's and librdkafka's transaction.timeout.ms


def transactional_producer(
    overrides: Mapping[str, str], worker_producer: Mapping[str, str], transactional: str
) -> tuple[dict[str, str], float]:
    """The connector's producer overrides for an exactly-once task, and the transaction timeout in seconds.

    As Connect's Worker does, `transactional.id` and `enable.idempotence=true` are forced (a different value the
    user set is replaced, with a warning). librdkafka needs every message's timeout within the transaction's: without
    a `delivery.timeout.ms` of the user's, it is the transaction timeout (a broker away that long fails the task)."""
    out = dict(overrides)
    for key, value in (("transactional.id", transactional), ("enable.idempotence", "true")):
        given = out.get(key, worker_producer.get(key))
        if given is not None and given.lower() != value:
            log.warning("producer %s=%s replaced by %s: exactly-once source support is enabled", key, given, value)
        out[key] = value
    timeout_ms = int(out.get("transaction.timeout.ms", worker_producer.get("transaction.timeout.ms", 0)) or 0)
    timeout_ms = timeout_ms or DEFAULT_TRANSACTION_TIMEOUT_MS
    if "delivery.timeout.ms" not in out and "delivery.timeout.ms" not in worker_producer:
        out["message.timeout.ms"] = str(timeout_ms)
    return out, timeout_ms / 1000


@dataclasses.dataclass(frozen=True, slots=True)
class TransactionSettings:
    boundary: str = POLL  # POLL, INTERVAL or CONNECTOR
    interval_s: float = 60.0  # INTERVAL: the longest a transaction stays open (offset.flush.interval.ms default)
    timeout_s: float = 60.0  # how long init/commit/abort may take (the producer's transaction.timeout.ms)

    def __post_init__(self) -> None:
        if self.boundary not in (POLL, INTERVAL, CONNECTOR):
            raise ConfigError(f"transaction.boundary={self.boundary}: expected poll, interval or connector")


class CommitRequests:
    """The task's TransactionContext with `transaction.boundary=connector`: a commit asked for ends the Kafka
    transaction after the current batch (the task makes the record it names that batch's last)."""

    __slots__ = ("requested",)

    def __init__(self) -> None:
        self.requested = False

    def commit_transaction(self, record: SourceRecord | None = None) -> None:
        self.requested = True


class ExactlyOnceWorkerSourceTask(WorkerSourceTask):
    def __init__(self, *args: Any, transactions: TransactionSettings, **kwargs: Any) -> None:
        self._tx = transactions
        self._requests = CommitRequests() if transactions.boundary == CONNECTOR else None
        self._split_warned = False
        self._open_since: float | None = None  # connector boundaries: when the open transaction got records
        super().__init__(*args, **kwargs)
        self._aborting = False
        self._last_commit = time.monotonic()
        self._records_done: list[tuple[SourceRecord, RecordMetadata | None]] = []
        # (topic, reason, librdkafka's code if known) of records Kafka did not take
        self._failed_deliveries: list[tuple[str, str, int | None]] = []

    def _transaction_context(self) -> CommitRequests | None:
        return self._requests

    async def _pausing(self) -> None:
        """Paused: the open transaction is committed now rather than left to time out, unless connector boundaries
        hold part of a source transaction in it (committing would show part of it; if the pause outlasts
        transaction.timeout.ms, the broker aborts it and the task fails at resume: a restart then resumes from the
        committed offsets)."""
        if self._requests is not None and self._submitted.pending:
            log.warning(
                "task %s: paused inside a source transaction; its Kafka transaction stays open (a pause longer than "
                "%.0f s aborts it, and the task then fails at resume: restart it)",
                self.id,
                self._tx.timeout_s,
            )
            return
        await self.commit_transaction()

    async def _prepare(self) -> None:
        await self._producer.init_transactions(self._tx.timeout_s)
        await self._offsets.refresh(self.id.connector)
        self._producer.begin_transaction()
        self._last_commit = time.monotonic()
        log.info("task %s: exactly-once delivery, transaction boundary %s", self.id, self._tx.boundary)

    async def _flush_offsets(self) -> bool:
        """No offsets flush of its own: offsets are written in the transactions."""
        return True

    async def _batch_sent(self) -> None:
        await self._maybe_commit()

    async def _poll_was_empty(self) -> None:
        if self._tx.boundary != POLL:  # an interval may have passed; a long source transaction may need a split
            await self._maybe_commit()

    async def _maybe_commit(self) -> None:
        tx, requests = self._tx, self._requests
        if requests is None:
            due = tx.boundary == POLL or time.monotonic() - self._last_commit >= tx.interval_s
        elif requests.requested:
            due, requests.requested = True, False
        else:
            # a source transaction still streaming after half the Kafka transaction's timeout is split there
            # rather than lost to the timeout: a read_committed reader then sees it in parts. Timed from the end of
            # the first batch that put records into the open transaction, not from the last commit (a quiet spell)
            now = time.monotonic()
            if not self._submitted.pending:
                self._open_since = None
            elif self._open_since is None:
                self._open_since = now
            due = self._open_since is not None and now - self._open_since >= tx.timeout_s / 2
            if due and not self._split_warned:
                self._split_warned = True
                log.warning(
                    "task %s: a source transaction is still open after %.0f s; its Kafka transaction is committed in "
                    "parts, one every %.0f s (half the producer's transaction.timeout.ms)",
                    self.id,
                    tx.timeout_s / 2,
                    tx.timeout_s / 2,
                )
        if due:
            await self.commit_transaction()

    async def commit_transaction(self) -> None:
        """Add the offsets of every record sent in the transaction and commit; then tell the task.

        The offsets are written without waiting for the records' acknowledgements: the commit holds all or none of
        them, so the newest submitted offset of each source partition is exactly what a committed transaction makes
        safe. commit_transaction sends and waits for both in one go (one round trip less than a flush first)."""
        async with self._commit_lock:
            started = time.monotonic()
            self._check_deliveries()
            producer = self._producer
            offsets = self._submitted.newest()
            connector = self.id.connector
            encoded = OffsetStore.encode(connector, offsets)
            for key, value in encoded:
                await producer.produce(self._offsets.topic, key, value)
            try:
                await self._commit()
                self._check_deliveries()
            except Exception as e:
                self._metrics.commit_failures.inc()
                await self._raise_if_offsets_topic_lost(e)
                if self._failed_deliveries and e is not self._failure:  # name the first record's reason
                    raise self._delivery_error() from e
                raise
            self._last_commit = time.monotonic()
            self._open_since = None
            producer.begin_transaction()
            self._submitted.committable()  # every record of the transaction is acknowledged now: drop them
            self._offsets.written(connector, offsets, encoded)
            done, self._records_done = self._records_done, []
            for record, meta in done:
                super()._record_done(record, meta)
            if offsets:
                await self.task.offsets_flushed(offsets)
                self._metrics.committed((time.monotonic() - started) * 1000)
            await self.task.commit()
            await self._offsets.after_transaction(connector, offsets)

    def _check_deliveries(self) -> None:
        if self._failure is not None:
            raise self._failure
        if self._failed_deliveries:
            self._metrics.produce_failed.inc(len(self._failed_deliveries))
            raise self._delivery_error()

    async def _raise_if_offsets_topic_lost(self, cause: BaseException) -> None:
        """A failed commit whose cause is a deleted offsets topic (the transaction cannot add its partition, and
        librdkafka then purges the records) is reported as that."""
        try:
            await self._offsets.check_topics()
        except OffsetsTopicLost as lost:
            raise lost from cause
        except Exception:  # noqa: BLE001 - the admin client's trouble: the commit's own error is reported
            pass

    def _delivery_error(self) -> RuntimeError:
        # the records librdkafka purged after a failed transaction are not the cause: name another one if any
        causes = [f for f in self._failed_deliveries if f[2] not in _PURGED] or self._failed_deliveries
        topic, reason, _code = causes[0]
        return RuntimeError(
            f"Kafka did not accept a record for topic {topic}: {reason} (exactly-once delivery: the transaction "
            "is aborted, and the task fails whatever errors.tolerance says)"
        )

    async def _commit(self) -> None:
        """commit_transaction, retried while librdkafka calls its error retriable, within the transaction timeout."""
        deadline = time.monotonic() + self._tx.timeout_s
        while True:
            try:
                await self._producer.commit_transaction(max(1.0, deadline - time.monotonic()))
                return
            except KafkaException as e:
                err: KafkaError = e.args[0]
                final = not err.retriable() or err.fatal() or err.txn_requires_abort()
                if final or time.monotonic() >= deadline:
                    raise RuntimeError(f"the transaction could not be committed: {err.str()}") from e
                log.warning("task %s: committing the transaction failed, retrying: %s", self.id, err.str())

    async def _final_commit(self) -> None:
        """At stop: commit the open transaction, unless the task failed, or its boundaries are the connector's and
        records are waiting in it (a source transaction not yet ended: committing it would show part of it; it is
        sent again whole after the restart)."""
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            # a stop that did not end in time: a record may be submitted and not yet handed to the producer
            log.warning("task %s: cancelled; the open transaction is aborted", self.id)
        elif self._failure is None and self._requests is not None and self._submitted.pending:
            log.info("task %s: stopped inside a source transaction; its records so far are aborted", self.id)
        elif self._failure is None:
            try:
                await self.commit_transaction()
                return
            except Exception as e:  # noqa: BLE001 - the open transaction is aborted instead
                log.error("task %s: the last transaction could not be committed, aborting it: %s", self.id, e)
        await self._abort()

    async def _abort(self) -> None:
        self._aborting = True
        self._records_done.clear()
        try:
            await self._producer.abort_transaction(self._tx.timeout_s)
            log.info("task %s: open transaction aborted (its records are sent again at the next start)", self.id)
        except KafkaException as e:
            log.warning("task %s: aborting the transaction failed: %s (it times out on the broker)", self.id, e)

    # -- delivery reports: served on the event loop or on commit_transaction's thread, never both at once --------
    # (AsyncProducer pauses its poller while a transactional call runs): they only append to lists, which the
    # commit reads on the loop.
    def _record_done(self, record: SourceRecord, meta: RecordMetadata | None) -> None:
        self._records_done.append((record, meta))

    def delivery_failed(self, entry: Submitted, err: KafkaError, msg: Message) -> None:
        if not self._aborting:  # not the abort's own purge
            self._failed_deliveries.append((msg.topic() or "", err.str(), err.code()))

    def _send_failed(self, entry: Submitted, record: SourceRecord | None, topic: str, reason: str) -> None:
        """A record the producer refused at once (on the loop): the task fails."""
        self._failed_deliveries.append((topic, reason, None))
        self._metrics.produce_failed.inc()
        self._fail(self._delivery_error())
