"""The producer adapter on the real broker: what `try_produce` hands librdkafka positionally arrives intact."""

from __future__ import annotations

import asyncio

import pytest
from confluent_kafka import Consumer, KafkaError, Message

from connect_worker.kafka.admin import TopicAdmin
from connect_worker.kafka.producer import SOURCE_PRODUCER_DEFAULTS, AsyncProducer

pytestmark = pytest.mark.integration


async def test_positional_produce_keeps_every_field(kafka_bootstrap: str, unique_name: str) -> None:
    topic = unique_name
    await TopicAdmin({"bootstrap.servers": kafka_bootstrap}).create_topic(topic, partitions=3, replication_factor=1)
    producer = AsyncProducer({"bootstrap.servers": kafka_bootstrap, **SOURCE_PRODUCER_DEFAULTS})
    producer.start()
    reports: list[tuple[KafkaError | None, int | None, tuple[int, int]]] = []

    def report(err: KafkaError | None, msg: Message) -> None:
        reports.append((err, msg.partition(), msg.timestamp()))

    headers = [("__debezium.context.taskId", b"0"), ("empty", None)]
    assert producer.try_produce(topic, b"k1", b"v1", 2, headers, 1_700_000_000_123, report)
    assert producer.try_produce(topic, None, b"v2", None, None, None, report)
    await producer.produce(topic, b"k3", None, partition=1, headers=(("h", b"x"),), timestamp=5, on_delivery=report)
    assert await producer.flush(30) == 0
    await producer.close()
    assert len(reports) == 3 and all(e is None for e, _, _ in reports)
    assert {2, 1} <= {p for _, p, _ in reports}  # the explicit partitions of k1 and k3

    consumer = Consumer(
        {"bootstrap.servers": kafka_bootstrap, "group.id": unique_name, "auto.offset.reset": "earliest"}
    )
    consumer.subscribe([topic])
    got: list[Message] = []
    deadline = asyncio.get_running_loop().time() + 30
    while len(got) < 3 and asyncio.get_running_loop().time() < deadline:
        m = consumer.poll(0.5)
        if m is not None and m.error() is None:
            got.append(m)
    consumer.close()
    by_value = {m.value(): m for m in got}
    first = by_value[b"v1"]
    assert (first.key(), first.partition(), first.timestamp()[1]) == (b"k1", 2, 1_700_000_000_123)
    assert first.headers() == [("__debezium.context.taskId", b"0"), ("empty", None)]
    second = by_value[b"v2"]
    assert second.key() is None and second.headers() is None and second.timestamp()[1] > 1_700_000_000_123
    tombstone = by_value[None]
    assert (tombstone.key(), tombstone.partition(), tombstone.timestamp()[1]) == (b"k3", 1, 5)
    assert tombstone.headers() == [("h", b"x")]
