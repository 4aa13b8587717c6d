"""The source-task loop: poll → transforms → converters → produce; acknowledged offsets → offsets topic →
task.commit().

One asyncio task runs the loop; a second one flushes offsets every offset.flush.interval.ms. The task's
commit hook runs only after an offsets flush succeeded, so a source database is never told a position Kafka
does not hold. Records dropped by a transform (or skipped under errors.tolerance=all) still advance offsets.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
import traceback
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

from confluent_kafka import KafkaError, Message

from connect_worker.api import (
    Converter,
    HeaderConverter,
    PendingIO,
    RecordMetadata,
    RetriableError,
    SourceRecord,
    SourceTask,
    SourceTaskContext,
    TransactionContext,
)
from connect_worker.api.metrics import MetricsGroup
from connect_worker.kafka.producer import AsyncProducer, record_error
from connect_worker.runtime.background import BackgroundTasks
from connect_worker.runtime.herder import ConnectorTaskId
from connect_worker.runtime.logging_setup import context_for
from connect_worker.runtime.metrics import TaskMetrics
from connect_worker.runtime.submitted import Submitted, SubmittedRecords
from connect_worker.storage.connector_offsets import ConnectorOffsets
from connect_worker.storage.offsets import ConnectorOffsetReader, OffsetsTopicLost

log = logging.getLogger(__name__)

Transform = Callable[[SourceRecord], SourceRecord | None]
OFFSETS_TOPIC_CHECK_S = 10.0  # how often a task looks whether its offsets topic is still there


class TaskStatusListener(Protocol):
    def on_running(self, task: ConnectorTaskId) -> None: ...

    def on_paused(self, task: ConnectorTaskId) -> None: ...

    def on_failure(self, task: ConnectorTaskId, trace: str) -> None: ...

    def on_shutdown(self, task: ConnectorTaskId) -> None: ...

    def on_topic(self, task: ConnectorTaskId, topic: str) -> None: ...


class TopicEnsurer(Protocol):
    async def ensure(self, topic: str) -> None: ...


@dataclasses.dataclass(frozen=True, slots=True)
class TaskSettings:
    flush_interval_s: float
    tolerate_errors: bool = False
    log_errors: bool = False
    log_error_messages: bool = False
    shutdown_timeout_s: float = 5.0
    retry_timeout_ms: int = 0  # errors.retry.timeout: 0 no retries, -1 forever
    retry_delay_max_ms: int = 60000  # errors.retry.delay.max.ms

    def retry_delay_s(self, attempt: int, elapsed_ms: float) -> float | None:
        """Kafka Connect's RetryWithToleranceOperator backoff: 300 ms doubling, capped by the maximum delay and the
        time left; None once errors.retry.timeout has run out."""
        if self.retry_timeout_ms == 0:
            return None
        delay_ms: float = min(300 * 2**attempt, self.retry_delay_max_ms)
        if self.retry_timeout_ms > 0:
            left = self.retry_timeout_ms - elapsed_ms
            if left <= 0:
                return None
            delay_ms = min(delay_ms, left)
        return delay_ms / 1000


@dataclasses.dataclass(frozen=True, slots=True)
class TaskContext(SourceTaskContext):
    _configs: Mapping[str, str]
    _reader: ConnectorOffsetReader
    _metrics: MetricsGroup | None = None
    _transactions: TransactionContext | None = None

    @property
    def transaction_context(self) -> TransactionContext | None:
        return self._transactions

    @property
    def configs(self) -> Mapping[str, str]:
        return self._configs

    @property
    def metrics(self) -> MetricsGroup:
        """This task's metrics group (connect_worker.api.metrics.task_metrics reads it)."""
        return self._metrics if self._metrics is not None else MetricsGroup("unregistered")

    @property
    def offset_storage_reader(self) -> ConnectorOffsetReader:
        return self._reader


class WorkerSourceTask:
    def __init__(
        self,
        task_id: ConnectorTaskId,
        task: SourceTask,
        props: Mapping[str, str],
        *,
        key_converter: Converter,
        value_converter: Converter,
        header_converter: HeaderConverter,
        transform: Transform,
        producer: AsyncProducer,
        offset_store: ConnectorOffsets,
        listener: TaskStatusListener,
        topics: TopicEnsurer,
        settings: TaskSettings,
        metrics: MetricsGroup | None = None,
        gate: Callable[[], bool] | None = None,
    ) -> None:
        self.id = task_id
        self._gate = gate  # distributed mode: records are produced only while this says yes
        self.task = task
        self.props = dict(props)
        self._key_converter = key_converter
        self._value_converter = value_converter
        self._header_converter = header_converter
        self._transform = transform
        self._producer = producer
        self._offsets = offset_store
        self._listener = listener
        self._topics = topics
        self._settings = settings
        self.acknowledged = 0  # records Kafka acknowledged (source_record_write_total); DeliveryListener
        self.with_metadata = type(task).commit_record is not SourceTask.commit_record
        self._submitted = SubmittedRecords(self)
        self._known_topics: set[str] = set()
        self._header_cache: tuple[tuple[Any, ...], str, list[tuple[str, bytes | None]]] | None = None
        self._stopping = asyncio.Event()
        self._running = asyncio.Event()
        self._running.set()
        self._failure: BaseException | None = None
        self._commit_lock = asyncio.Lock()
        self._main: asyncio.Task[None] | None = None
        self._flusher: asyncio.Task[None] | None = None
        self._topic_checked = time.monotonic()  # when the offsets topic was last looked at
        self._background = BackgroundTasks(f"task {task_id}")  # commit_record calls in flight
        group = metrics if metrics is not None else MetricsGroup("unregistered")
        self._metrics = TaskMetrics(group, active=lambda: self._producer.in_flight, written=lambda: self.acknowledged)
        reader = ConnectorOffsetReader(offset_store, task_id.connector)
        self.task.initialize(TaskContext(self.props, reader, group, self._transaction_context()))

    def _transaction_context(self) -> TransactionContext | None:
        """What the task gets to define transaction boundaries with: none here (the exactly-once task's, with
        transaction.boundary=connector)."""
        return None

    # -- control (called by the herder) -----------------------------------------------------------------
    def start(self, *, paused: bool = False) -> None:
        if paused:
            self._running.clear()
        loop = asyncio.get_running_loop()
        # the task's log lines (and those of asyncio tasks it creates) name it: [connector|task-N]
        self._main = loop.create_task(
            self._run(), name=f"task-{self.id}", context=context_for(self.id.connector, self.id.task)
        )

    def pause(self) -> None:
        if self._running.is_set():
            self._running.clear()
            self._listener.on_paused(self.id)

    def resume(self) -> None:
        if not self._running.is_set():
            self._running.set()
            if self._failure is None:
                self._listener.on_running(self.id)

    async def stop(self) -> None:
        """Stop polling, flush offsets for what Kafka acknowledged, stop the task; bounded in time."""
        self._stopping.set()
        self._running.set()
        if self._main is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(self._main), self._settings.shutdown_timeout_s + 30)
        except TimeoutError:
            log.error("task %s did not stop in time; cancelling it", self.id)
            self._main.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._main

    @property
    def failed(self) -> bool:
        return self._failure is not None

    # -- the loop --------------------------------------------------------------------------------------
    # what the exactly-once task adds to the loop (nothing here): it ends its transactions after a batch or an
    # empty poll and when paused, and fences its predecessor before the task starts
    async def _batch_sent(self) -> None:
        """After every batch the task's poll() returned is handed to the producer."""

    async def _poll_was_empty(self) -> None:
        """After a poll() that returned nothing."""

    async def _pausing(self) -> None:
        """Once when the task is paused, before it waits."""

    async def _prepare(self) -> None:
        """What must happen before the task starts (the exactly-once task fences its predecessor here)."""

    async def _run(self) -> None:
        started = False
        try:
            await self._prepare()
            await self.task.start(self.props)
            started = True
            if self._running.is_set():
                self._listener.on_running(self.id)
            else:
                self._listener.on_paused(self.id)
            self._flusher = asyncio.get_running_loop().create_task(self._flush_loop(), name=f"flush-{self.id}")
            await self._poll_loop()
        except asyncio.CancelledError:
            raise
        except BaseException as e:  # noqa: BLE001 - a task failure is reported, never propagated
            self._fail(e)
        finally:
            if self._flusher is not None:
                self._flusher.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._flusher
            if started:
                await self._final_commit()
                # commit_record calls still running end before the task stops
                await self._background.cancel_all(grace_s=self._settings.shutdown_timeout_s)
                try:
                    await asyncio.wait_for(self.task.stop(), self._settings.shutdown_timeout_s)
                except Exception as e:  # noqa: BLE001
                    log.warning("task %s failed to stop cleanly: %s", self.id, e)
            await self._producer.close(timeout=self._settings.shutdown_timeout_s)
            self._metrics.close()
            if self._failure is None:
                self._listener.on_shutdown(self.id)

    def _fail(self, e: BaseException) -> None:
        if self._failure is not None:
            return
        self._failure = e
        trace = "".join(traceback.format_exception(e))
        log.error("task %s failed: %s", self.id, e)
        self._listener.on_failure(self.id, trace)
        self._stopping.set()
        self._running.set()

    async def _gate_opened(self) -> bool:
        """Wait while this worker's membership of its cluster is unconfirmed (a stopped process resumed after its
        session timed out: its tasks may be running elsewhere by now); False when the task is stopped meanwhile."""
        log.warning("task %s holds its records until this worker's membership is confirmed", self.id)
        gate = self._gate
        assert gate is not None
        while not gate():
            if self._stopping.is_set():
                return False
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), 0.1)
        log.info("task %s: membership confirmed; producing again", self.id)
        return True

    async def _poll_loop(self) -> None:
        producer = self._producer
        while not self._stopping.is_set():
            if not self._running.is_set():
                await self._pausing()
                await self._running.wait()
                continue
            started = time.monotonic()
            poll = asyncio.ensure_future(self.task.poll())
            stop = asyncio.ensure_future(self._stopping.wait())
            done, _ = await asyncio.wait({poll, stop}, return_when=asyncio.FIRST_COMPLETED)
            if poll not in done:
                poll.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await poll
                break
            stop.cancel()
            batch = poll.result()
            if not batch:
                await self._poll_was_empty()
                continue
            if self._gate is not None and not self._gate() and not await self._gate_opened():
                break  # stopped while the membership was unconfirmed: the batch's offsets are never committed
            metrics = self._metrics
            metrics.polled.inc(len(batch))
            metrics.batches.inc()
            metrics.poll_time.inc((time.monotonic() - started) * 1000)
            send = self._send
            for record in batch:
                # the hot path is synchronous: a coroutine only when a topic is new or librdkafka's queue is full
                pending = send(record)
                if pending is not None:
                    await pending
                if self._failure is not None:
                    return
            producer.poll()
            await self._batch_sent()

    def _send(self, record: SourceRecord) -> Awaitable[None] | None:
        """Transform, convert and queue one record; returns what is left to await, if anything."""
        try:
            transformed = self._transform(record)
        except Exception as e:  # noqa: BLE001 - errors.tolerance decides (raises when not tolerated)
            self._not_sent(record, e)
            return None
        if transformed is None:
            self._skip(record)
            return None
        if transformed.topic not in self._known_topics:
            return self._send_to_new_topic(record, transformed)
        return self._produce(record, transformed)

    async def _send_to_new_topic(self, record: SourceRecord, transformed: SourceRecord) -> None:
        topic = transformed.topic
        try:
            await self._topics.ensure(topic)
        except Exception as e:  # noqa: BLE001
            self._not_sent(record, e)
            return
        self._known_topics.add(topic)
        self._listener.on_topic(self.id, topic)
        pending = self._produce(record, transformed)
        if pending is not None:
            await pending

    def _produce(self, record: SourceRecord, transformed: SourceRecord) -> Awaitable[None] | None:
        topic = transformed.topic
        record_headers = transformed.headers
        try:
            key = self._key_converter.from_connect_data(topic, transformed.key_schema, transformed.key, record_headers)
            value = self._value_converter.from_connect_data(
                topic, transformed.value_schema, transformed.value, record_headers
            )
            headers = None
            if record_headers:
                # a connector usually hands the same headers tuple to every record (Debezium's context
                # headers): convert it once per (tuple, topic)
                cached = self._header_cache
                if cached is not None and cached[0] is record_headers and cached[1] == topic:
                    headers = cached[2]
                else:
                    hc = self._header_converter
                    headers = [(h.key, hc.from_connect_header(topic, h.key, h.schema, h.value)) for h in record_headers]
                    self._header_cache = (record_headers, topic, headers)
        except PendingIO as pending:
            return self._produce_after_io(record, transformed, pending)
        except Exception as e:  # noqa: BLE001
            self._not_sent(record, e)
            return None
        entry = self._submitted.submit(record.source_partition, record.source_offset, record)
        partition = transformed.kafka_partition
        timestamp = transformed.timestamp
        try:
            if self._producer.try_produce(topic, key, value, partition, headers, timestamp, entry):
                return None
        except Exception as e:  # noqa: BLE001 - errors.tolerance decides (raises when not tolerated)
            self._refused(entry, record, topic, e)
            return None
        return self._produce_when_room(entry, record, topic, key, value, partition, headers, timestamp)

    async def _produce_after_io(self, record: SourceRecord, transformed: SourceRecord, pending: PendingIO) -> None:
        """A converter needed I/O (a schema registry call): run it on a thread, retrying a RetriableError within
        errors.retry.timeout, then convert and produce the record again. Records behind it wait: order is kept."""
        started = time.monotonic()
        attempt = 0
        while True:
            try:
                await asyncio.to_thread(pending.work)
                break
            except RetriableError as e:
                delay = self._settings.retry_delay_s(attempt, (time.monotonic() - started) * 1000)
                if delay is None or self._stopping.is_set():
                    self._not_sent(record, e)
                    return
                log.warning("task %s: %s; retrying in %.1f s", self.id, e, delay)
                attempt += 1
                await asyncio.sleep(delay)
            except Exception as e:  # noqa: BLE001 - errors.tolerance decides (raises when not tolerated)
                self._not_sent(record, e)
                return
        again = self._produce(record, transformed)
        if again is not None:
            await again

    async def _produce_when_room(
        self,
        entry: Submitted,
        record: SourceRecord,
        topic: str,
        key: bytes | None,
        value: bytes | None,
        partition: int | None,
        headers: list[tuple[str, bytes | None]] | None,
        timestamp: int | None,
    ) -> None:
        try:
            await self._producer.produce(
                topic, key, value, partition=partition, headers=headers, timestamp=timestamp, on_delivery=entry
            )
        except Exception as e:  # noqa: BLE001 - errors.tolerance decides (raises when not tolerated)
            self._refused(entry, record, topic, e)

    def _refused(self, entry: Submitted, record: SourceRecord | None, topic: str, e: BaseException) -> None:
        """The producer refused a record at once (too large, ...): as a failed delivery, or raise."""
        err = record_error(e)
        if err is None:
            raise e
        self._send_failed(entry, record, topic, err.str())

    def _not_sent(self, record: SourceRecord, e: Exception) -> None:
        """A record that failed to transform or convert: fail the task, or skip it under errors.tolerance=all."""
        self._metrics.failed.inc()
        if not self._settings.tolerate_errors:
            raise e
        self._metrics.skipped.inc()
        self._tolerated(record, e)
        self._skip(record)

    def _skip(self, record: SourceRecord) -> None:
        self._submitted.submit(record.source_partition, record.source_offset).ack()
        if self.with_metadata:
            self._record_done(record, None)

    def _record_done(self, record: SourceRecord, meta: RecordMetadata | None) -> None:
        """Tell the task (commit_record) that Kafka holds `record` (meta None: dropped or skipped)."""
        self._background.start(self.task.commit_record(record, meta))

    def _tolerated(self, record: SourceRecord, e: Exception) -> None:
        if self._settings.log_errors:
            where = f" (topic {record.topic})" if self._settings.log_error_messages else ""
            log.warning("task %s skipped a record it could not convert or transform%s: %s", self.id, where, e)

    # -- delivery reports (SubmittedRecords' listener) -----------------------------------------------------
    def delivered(self, entry: Submitted, msg: Message) -> None:
        """An acknowledged record, for a task that overrides commit_record (`with_metadata`)."""
        record = entry.record
        assert record is not None
        meta = RecordMetadata(msg.topic() or record.topic, msg.partition() or 0, msg.offset() or 0, msg.timestamp()[1])
        self._record_done(record, meta)

    def delivery_failed(self, entry: Submitted, err: KafkaError, msg: Message) -> None:
        if err.fatal():
            self._metrics.produce_failed.inc()
            self._fail(RuntimeError(f"Kafka did not accept a record for topic {msg.topic()}: {err.str()}"))
            return
        self._send_failed(entry, entry.record, msg.topic() or "", err.str())

    def _send_failed(self, entry: Submitted, record: SourceRecord | None, topic: str, reason: str) -> None:
        """A record Kafka did not take. Under errors.tolerance=all it is skipped: logged, counted, committed
        with no metadata and acknowledged so its offset advances (KIP-779, Kafka Connect 3.2+); otherwise the
        task fails."""
        self._metrics.produce_failed.inc()
        if not self._settings.tolerate_errors:
            self._fail(RuntimeError(f"Kafka did not accept a record for topic {topic}: {reason}"))
            return
        self._metrics.skipped.inc()
        if self._settings.log_errors:
            where = f" for topic {topic}" if self._settings.log_error_messages else ""
            log.warning("task %s skipped a record Kafka did not accept%s: %s", self.id, where, reason)
        entry.ack()
        if self.with_metadata and record is not None:
            self._record_done(record, None)

    # -- offsets -----------------------------------------------------------------------------------------
    async def _flush_loop(self) -> None:
        """Every offset.flush.interval.ms: look at the offsets topic (every OFFSETS_TOPIC_CHECK_S at most, and after
        a failed flush), then flush. A topic gone or no longer compacted fails the task: a write to it would wait
        out the producer's timeout, or re-create it without compaction."""
        interval = self._settings.flush_interval_s
        while True:
            await asyncio.sleep(interval)
            now = time.monotonic()
            if now - self._topic_checked >= OFFSETS_TOPIC_CHECK_S:
                self._topic_checked = now
                try:
                    await self._offsets.check_topics()
                except OffsetsTopicLost as e:
                    self._fail(e)
                    return
                except Exception as e:  # noqa: BLE001 - the admin client's trouble: the flush goes on
                    log.warning("task %s: could not look at the offsets topic: %s", self.id, e)
            if not await self._flush_offsets():
                self._topic_checked = 0.0  # look at the topic at the next flush

    async def _flush_offsets(self) -> bool:
        """The periodic flush; False when it failed (it is retried at the next interval). The exactly-once task
        has none: its offsets go into its transactions."""
        try:
            await self.commit_offsets()
        except Exception as e:  # noqa: BLE001 - a failed flush is retried at the next interval
            log.warning("task %s: offset flush failed, will retry: %s", self.id, e)
            return False
        return True

    async def commit_offsets(self) -> bool:
        """Write the committable offsets, then tell the task. True when the flush succeeded. Nothing is written
        while this worker's membership is unconfirmed or lost (distributed mode): the task may run elsewhere by
        now, and its successor's newer offsets must not be overwritten (its records are sent again instead)."""
        if self._gate is not None and not self._gate():
            log.warning("task %s: offsets not committed: this worker's membership is unconfirmed", self.id)
            return False
        async with self._commit_lock:
            started = time.monotonic()
            self._producer.poll()
            offsets = self._submitted.committable()
            try:
                if offsets:
                    await self._offsets.write(self.id.connector, offsets)
                    log.debug("task %s committed offsets for %d partitions", self.id, len(offsets))
                    await self.task.offsets_flushed(offsets)
                await self.task.commit()
            except BaseException:
                self._metrics.commit_failures.inc()
                raise
            if offsets:
                self._metrics.committed((time.monotonic() - started) * 1000)
            return True

    async def _final_commit(self) -> None:
        left = await self._producer.flush(self._settings.shutdown_timeout_s)
        if left:
            log.warning(
                "task %s: %d records still unacknowledged at stop; their offsets are not committed", self.id, left
            )
        try:
            await self.commit_offsets()
        except Exception as e:  # noqa: BLE001
            log.error(
                "task %s: final offset commit failed: %s (records since the last commit may be sent again)", self.id, e
            )
