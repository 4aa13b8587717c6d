"""An asyncio face on confluent_kafka.Producer: the only producer the worker uses.

Delivery callbacks run on the event loop: the adapter calls `poll(0)` from the loop (after each batch and
from a small background poller while messages are in flight), never from another thread, so there is no
thread hop per record. `produce` applies back-pressure: when librdkafka's queue is full it waits for room.
Records are partitioned by Java's murmur2 rule (`partitioner=murmur2_random`), so a key lands on the same
partition as with Kafka Connect.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from confluent_kafka import KafkaError, KafkaException, Message, Producer

from connect_worker.api import RetriableError

log = logging.getLogger(__name__)

DeliveryCallback = Callable[[KafkaError | None, Message], None]

# Kafka Connect's source-producer defaults (acks=all, no loss on retries), in librdkafka terms.
# Ordering per partition is kept by idempotence instead of Connect's max.in.flight=1.
SOURCE_PRODUCER_DEFAULTS: dict[str, Any] = {
    "acks": "all",
    "enable.idempotence": True,
    "partitioner": "murmur2_random",
    "linger.ms": 5,
    "compression.type": "none",
    "message.timeout.ms": 0,  # Connect: delivery.timeout.ms = Integer.MAX_VALUE
    "queue.buffering.max.kbytes": 32768,  # the Java producer's buffer.memory default, 32 MB
    "queue.buffering.max.messages": 100000,
}

# how often a flush looks for its last acknowledgements: an exactly-once task waits for them at every transaction
FLUSH_POLL_S = 0.001

# Java client keys that librdkafka spells differently or does not know.
_JAVA_ONLY_KEYS = {
    "key.serializer",
    "value.serializer",
    "max.block.ms",
    "interceptor.classes",
    "metric.reporters",
}


def librdkafka_config(java_style: Mapping[str, Any]) -> dict[str, Any]:
    """Translate Java client settings (producer.*, admin.* overrides) to librdkafka's."""
    out: dict[str, Any] = {}
    for k, v in java_style.items():
        if k in _JAVA_ONLY_KEYS:
            continue
        if k == "delivery.timeout.ms":
            out["message.timeout.ms"] = 0 if int(v) >= 2**31 - 1 else v
        elif k == "max.in.flight.requests.per.connection":
            out["max.in.flight"] = v
        elif k == "batch.size":
            out["batch.size"] = v
        elif k == "buffer.memory":  # bytes of unsent records: librdkafka counts its queue in KiB
            out["queue.buffering.max.kbytes"] = max(1, -(-int(v) // 1024))
        else:
            out[k] = v
    return out


class AsyncProducer:
    def __init__(self, config: Mapping[str, Any], *, poll_interval: float = 0.005) -> None:
        conf = dict(config)
        user_error_cb = conf.get("error_cb")
        self._fatal: KafkaError | None = None

        def on_error(err: KafkaError) -> None:
            # a fatal error (idempotence lost, ...) stops every later produce; librdkafka reports it here
            if err.fatal():
                self._fatal = err
            if user_error_cb is not None:
                user_error_cb(err)

        conf["error_cb"] = on_error
        self._producer = Producer(conf)
        self._produce = self._producer.produce
        self._poll_interval = poll_interval
        self._wake = asyncio.Event()
        self._poller: asyncio.Task[None] | None = None
        self._closed = False
        self._on_thread = False  # a transactional call runs on a thread: the poller leaves the reports to it

    # -- lifecycle --------------------------------------------------------------------------------
    def start(self) -> None:
        if self._poller is None:
            self._poller = asyncio.get_running_loop().create_task(self._poll_loop(), name="producer-poll")

    async def close(self, timeout: float = 30.0) -> int:
        """Flush what is queued (up to `timeout` s); returns how many messages were left undelivered. A producer
        that met a fatal error (fenced, a failed transaction) flushes nothing more and closes all the same."""
        try:
            left = await self.flush(timeout)
        except KafkaException as e:
            log.warning("producer closed after a fatal error: %s", e)
            left = len(self._producer)
        self._closed = True
        self._wake.set()
        if self._poller is not None:
            self._poller.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._poller
        return left

    async def _poll_loop(self) -> None:
        while not self._closed:
            if len(self._producer) == 0:
                self._wake.clear()
                await self._wake.wait()
                continue
            if not self._on_thread:  # a transactional call on a thread serves the reports meanwhile
                try:
                    self._producer.poll(0)
                except KafkaException as e:  # fatal: the owner finds out at its next call
                    log.debug("producer poll: %s", e)
                    self._wake.clear()
                    await self._wake.wait()
                    continue
            await asyncio.sleep(self._poll_interval)

    # -- producing --------------------------------------------------------------------------------

    def try_produce(
        self,
        topic: str,
        key: bytes | None,
        value: bytes | None,
        partition: int | None,
        headers: list[Any] | None,  # (name, bytes | None) pairs
        timestamp: int | None,
        on_delivery: DeliveryCallback | None,
    ) -> bool:
        """Queue one message now; False when librdkafka's queue is full (await `produce` then). The hot path:
        arguments go to librdkafka positionally (confluent-kafka's order: topic, value, key, partition,
        on_delivery, its alias callback, timestamp, headers), which spares a keyword dict per message; the
        delivery callback is handed over as is, so the messages in flight are librdkafka's own count."""
        if self._fatal is not None:
            raise KafkaException(self._fatal)
        try:
            self._produce(
                topic,
                value,
                key,
                -1 if partition is None else partition,
                on_delivery,
                None,
                0 if timestamp is None else timestamp,
                headers,
            )
        except BufferError:
            return False
        wake = self._wake
        if not wake.is_set():
            wake.set()
        return True

    async def produce(
        self,
        topic: str,
        key: bytes | None,
        value: bytes | None,
        *,
        partition: int | None = None,
        headers: Sequence[tuple[str, bytes | None]] | None = None,
        timestamp: int | None = None,
        on_delivery: DeliveryCallback | None = None,
    ) -> None:
        """Queue one message; waits (polling) while librdkafka's queue is full."""
        # a list is handed over as is (librdkafka copies it): the source task's is shared
        listed = (headers if headers.__class__ is list else list(headers)) if headers else None
        while not self.try_produce(topic, key, value, partition, listed, timestamp, on_delivery):
            self._producer.poll(0)
            await asyncio.sleep(self._poll_interval)

    async def send(
        self,
        topic: str,
        key: bytes | None,
        value: bytes | None,
        *,
        partition: int | None = None,
        what: str = "write",
    ) -> asyncio.Future[None]:
        """Queue one message; the returned future resolves when Kafka acknowledged it (or fails)."""
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def done(err: KafkaError | None, _msg: Message) -> None:
            if fut.done():
                return
            if err is not None:
                fut.set_exception(RetriableError(f"{what} to {topic} failed: {err.str()}"))
            else:
                fut.set_result(None)

        await self.produce(topic, key, value, partition=partition, on_delivery=done)
        return fut

    # -- transactions (a producer made with transactional.id) ------------------------------------------------
    # librdkafka's transactional calls block: they run on a thread. commit_transaction flushes first and so serves
    # delivery reports on that thread; while it runs, the event loop's poller serves none, so each report is
    # served by one thread at a time. A transactional producer's delivery callbacks must not touch the event loop.

    async def _on_a_thread(self, call: Callable[[float], None], timeout: float) -> None:
        self._on_thread = True
        try:
            await asyncio.to_thread(call, timeout)
        finally:
            self._on_thread = False

    async def init_transactions(self, timeout: float) -> None:
        """Register the transactional id: fences an earlier producer of the same id (a zombie task) and waits
        until the coordinator has finished that producer's open transaction (aborted, or committed if it was
        committing)."""
        await self._on_a_thread(self._producer.init_transactions, timeout)

    def begin_transaction(self) -> None:
        self._producer.begin_transaction()

    async def commit_transaction(self, timeout: float) -> None:
        """Send what is queued, wait for its acknowledgements (their reports are served on the call's thread) and
        commit."""
        await self._on_a_thread(self._producer.commit_transaction, timeout)

    async def abort_transaction(self, timeout: float) -> None:
        """Drop what is queued and abort the open transaction (the dropped messages are reported as failed, with
        `_PURGE_QUEUE`/`_PURGE_INFLIGHT`)."""
        self._producer.purge(in_queue=True, in_flight=True, blocking=True)
        await self._on_a_thread(self._producer.abort_transaction, timeout)

    def poll(self) -> int:
        """Serve delivery callbacks that are ready (cheap; call after a batch)."""
        return int(self._producer.poll(0))

    @property
    def in_flight(self) -> int:
        """Messages queued, in flight, or whose delivery report was not served yet (librdkafka's count)."""
        return len(self._producer)

    async def flush(self, timeout: float) -> int:
        """Wait until every queued message is acknowledged or `timeout` s passed; returns what is left."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            self._producer.poll(0)
            left = len(self._producer)  # includes delivery reports not served yet
            if left == 0:
                return 0
            if loop.time() >= deadline:
                return left
            await asyncio.sleep(FLUSH_POLL_S)


def record_error(exc: BaseException) -> KafkaError | None:
    """The error of a produce() call that failed for this record only (too large, bad partition, ...): what
    errors.tolerance=all may skip. None for anything else, a fatal producer error above all."""
    if not isinstance(exc, KafkaException) or not exc.args or not isinstance(exc.args[0], KafkaError):
        return None
    err: KafkaError = exc.args[0]
    return None if err.fatal() else err


def raise_for(err: KafkaError | None, what: str) -> None:
    """Turn a delivery error into our error classes (retriable ones as RetriableError)."""
    if err is None:
        return
    if err.retriable():
        raise RetriableError(f"{what}: {err.str()}")
    raise KafkaException(err)
