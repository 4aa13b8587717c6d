"""Reading a topic to its end (Connect's internal-topic reads) over transactions: committed records only, the end
found past transaction markers and aborted records, and a transaction left open by a killed producer ends the read
where it begins instead of holding it."""

from __future__ import annotations

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from connect_worker.kafka.reader import read_to_end

pytestmark = pytest.mark.integration


async def test_committed_records_only_and_an_open_transaction_does_not_hold_the_read(
    kafka_bootstrap: str, unique_name: str
) -> None:
    base: dict[str, str | int | float | bool] = {"bootstrap.servers": kafka_bootstrap}
    topic = f"{unique_name}-tx"
    admin = AdminClient(base)
    admin.create_topics([NewTopic(topic, 2, 1)])[topic].result(30)
    producer = Producer({**base, "transactional.id": f"{unique_name}-p"})
    producer.init_transactions(30)
    producer.begin_transaction()
    producer.produce(topic, b"committed-0", b"k0", partition=0)
    producer.produce(topic, b"committed-1", b"k1", partition=1)
    producer.commit_transaction(30)  # each partition now ends with a commit marker
    producer.begin_transaction()
    producer.produce(topic, b"aborted", b"k0", partition=0)
    producer.abort_transaction(30)  # partition 0: an aborted record and its marker
    plain = Producer(base)
    plain.produce(topic, b"plain", b"k1", partition=1)
    plain.flush(30)
    producer.begin_transaction()
    producer.produce(topic, b"open", b"k0", partition=0)
    producer.flush(30)  # written, never committed: as a producer killed in its transaction leaves it

    records = await read_to_end(base, topic, timeout=10)

    assert sorted((r.partition, r.value) for r in records) == [
        (0, b"committed-0"),
        (1, b"committed-1"),
        (1, b"plain"),
    ]
    producer.abort_transaction(30)
    again = await read_to_end(base, topic, timeout=10)
    assert len(again) == 3
