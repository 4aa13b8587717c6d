from __future__ import annotations

from typing import Any

from confluent_kafka import KafkaError, Message

from connect_worker.api import SourceRecord
from connect_worker.runtime.submitted import Submitted, SubmittedRecords


def test_only_contiguous_acknowledged_offsets_are_committable() -> None:
    sr = SubmittedRecords()
    p1, p2 = {"server": "a"}, {"server": "b"}
    r1 = sr.submit(p1, {"lsn": 1})
    r2 = sr.submit(p1, {"lsn": 2})
    r3 = sr.submit(p1, {"lsn": 3})
    q1 = sr.submit(p2, {"lsn": 10})
    r2.ack()
    r3.ack()
    assert sr.committable() == []  # r1 is not acknowledged: nothing of p1 may commit
    q1.ack()
    assert sr.committable() == [(p2, {"lsn": 10})]
    r1.ack()
    assert sr.committable() == [(p1, {"lsn": 3})]
    assert sr.pending == 0
    assert sr.committable() == []


def test_records_without_position_are_not_tracked() -> None:
    sr = SubmittedRecords()
    e = sr.submit(None, None)
    assert e.acked
    assert sr.pending == 0


def test_equal_partitions_in_other_objects_share_one_queue() -> None:
    """The partition is keyed by value; the same object again skips re-keying but lands in the same queue."""
    sr = SubmittedRecords()
    p = {"server": "a"}
    a = sr.submit(p, {"lsn": 1})
    b = sr.submit({"server": "a"}, {"lsn": 2})
    c = sr.submit(p, {"lsn": 3})
    b.ack()
    c.ack()
    assert sr.committable() == []
    a.ack()
    assert sr.committable() == [({"server": "a"}, {"lsn": 3})]
    d = sr.submit(p, {"lsn": 4})  # its queue was emptied and removed: a new one is made
    d.ack()
    assert sr.committable() == [(p, {"lsn": 4})]


class _Listener:
    def __init__(self, with_metadata: bool) -> None:
        self.acknowledged = 0
        self.with_metadata = with_metadata
        self.delivered_entries: list[tuple[Submitted, Any]] = []
        self.failures: list[KafkaError] = []

    def delivered(self, entry: Submitted, msg: Message) -> None:
        self.delivered_entries.append((entry, msg))

    def delivery_failed(self, entry: Submitted, err: KafkaError, msg: Message) -> None:
        self.failures.append(err)


def _record(lsn: int) -> SourceRecord:
    return SourceRecord({"server": "a"}, {"lsn": lsn}, "t", None, None, None, None, b"v")


def test_an_entry_is_its_own_delivery_callback() -> None:
    listener = _Listener(with_metadata=False)
    sr = SubmittedRecords(listener)
    rec = _record(1)
    ok = sr.submit(rec.source_partition, rec.source_offset, rec)
    bad = sr.submit(rec.source_partition, {"lsn": 2}, _record(2))
    assert ok.record is None  # not kept: nobody wants it back, so it is freed once produced
    ok(None, None)  # type: ignore[arg-type]  # librdkafka's success report
    err = KafkaError(KafkaError.MSG_SIZE_TOO_LARGE)
    bad(err, None)  # type: ignore[arg-type]
    assert ok.acked and not bad.acked
    assert listener.acknowledged == 1
    assert listener.failures == [err]
    assert listener.delivered_entries == []
    assert sr.committable() == [({"server": "a"}, {"lsn": 1})]


def test_a_listener_that_wants_metadata_gets_each_acknowledged_record() -> None:
    listener = _Listener(with_metadata=True)
    sr = SubmittedRecords(listener)
    rec = _record(1)
    entry = sr.submit(rec.source_partition, rec.source_offset, rec)
    assert entry.record is rec
    entry(None, "msg")  # type: ignore[arg-type]
    assert listener.delivered_entries == [(entry, "msg")]
    assert listener.acknowledged == 1
