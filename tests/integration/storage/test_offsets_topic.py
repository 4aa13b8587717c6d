"""The offsets topic as Kafka Connect writes and reads it, on the real broker."""

from __future__ import annotations

import pytest
from confluent_kafka import Producer

from connect_worker.kafka.admin import TopicAdmin
from connect_worker.kafka.producer import AsyncProducer
from connect_worker.kafka.reader import read_to_end
from connect_worker.storage.offsets import OffsetStore
from tests.differential.debezium import java_partition  # Kafka's murmur2 rule, written out from the spec

pytestmark = pytest.mark.integration


def _store(kafka_bootstrap: str, topic: str, producer: AsyncProducer) -> OffsetStore:
    base = {"bootstrap.servers": kafka_bootstrap}
    return OffsetStore(
        topic=topic,
        producer=producer,
        admin=TopicAdmin(base),
        consumer_config=base,
        partitions=25,
        replication_factor=1,
    )


async def test_offsets_round_trip_in_connects_format(kafka_bootstrap: str, unique_name: str) -> None:
    topic = unique_name + "-offsets"
    producer = AsyncProducer({"bootstrap.servers": kafka_bootstrap, "partitioner": "murmur2_random", "acks": "all"})
    producer.start()
    store = _store(kafka_bootstrap, topic, producer)
    await store.start()
    offset = {
        "lsn_proc": 22183280,
        "messageType": "COMMIT",
        "lsn_commit": 22183280,
        "lsn": 22183280,
        "txId": 731,
        "ts_usec": 1795303602366693,
    }
    await store.write("inventory", [({"server": "dbserver1"}, offset)])
    await store.write("other", [({"filename": "/data/in.txt"}, {"position": 42})])
    await producer.close()

    records = await read_to_end({"bootstrap.servers": kafka_bootstrap}, topic)
    by_key = {r.key: r for r in records}
    key = b'["inventory",{"server":"dbserver1"}]'  # literal from the spec's live capture
    assert key in by_key
    assert by_key[key].value == (
        b'{"lsn_proc":22183280,"messageType":"COMMIT","lsn_commit":22183280,"lsn":22183280,"txId":731,'
        b'"ts_usec":1795303602366693}'
    )
    # the spec's live capture: this key landed in partition 3 of 25 on a real Connect worker
    assert by_key[key].partition == 3 == java_partition(key, 25)
    for r in records:
        assert r.key is not None
        assert r.partition == java_partition(r.key, 25)

    # a fresh store (a restarted worker) reads everything back
    producer2 = AsyncProducer({"bootstrap.servers": kafka_bootstrap, "partitioner": "murmur2_random"})
    producer2.start()
    again = _store(kafka_bootstrap, topic, producer2)
    await again.start()
    assert again.get("inventory", {"server": "dbserver1"}) == offset
    assert again.get("other", {"filename": "/data/in.txt"}) == {"position": 42}
    assert again.get("inventory", {"server": "nope"}) is None

    # reset = tombstone
    await again.write("inventory", [({"server": "dbserver1"}, None)])
    assert again.get("inventory", {"server": "dbserver1"}) is None
    await producer2.close()
    third = _store(kafka_bootstrap, topic, AsyncProducer({"bootstrap.servers": kafka_bootstrap}))
    await third.start()
    assert third.get("inventory", {"server": "dbserver1"}) is None
    assert third.known_partitions("inventory") == [{"server": "dbserver1"}]
    assert third.connector_offsets("inventory") == []


async def test_malformed_records_are_skipped(kafka_bootstrap: str, unique_name: str) -> None:
    topic = unique_name + "-offsets"
    producer = AsyncProducer({"bootstrap.servers": kafka_bootstrap})
    producer.start()
    store = _store(kafka_bootstrap, topic, producer)
    await store.start()
    raw = Producer({"bootstrap.servers": kafka_bootstrap})
    raw.produce(topic, b"not json", key=b"garbage")
    raw.produce(topic, b'{"a":1}', key=b'["only-one-element"]')
    raw.produce(topic, b'{"position":7}', key=b'["ok",{"filename":"f"}]')
    raw.flush(10)
    fresh = _store(kafka_bootstrap, topic, producer)
    await fresh.start()
    assert fresh.get("ok", {"filename": "f"}) == {"position": 7}
    await producer.close()


async def test_existing_non_compacted_topic_is_refused(kafka_bootstrap: str, unique_name: str) -> None:
    from connect_worker.api import ConfigError

    admin = TopicAdmin({"bootstrap.servers": kafka_bootstrap})
    await admin.create_topic(unique_name, partitions=1, replication_factor=1, configs={"cleanup.policy": "delete"})
    store = _store(kafka_bootstrap, unique_name, AsyncProducer({"bootstrap.servers": kafka_bootstrap}))
    with pytest.raises(ConfigError, match=r"cleanup\.policy=compact"):
        await store.start()
