from connect_worker.runtime.submitted import SubmittedRecords


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
