from connectors.postgres.offsets import StoredPosition, snapshot_offset, streaming_offset


def test_streaming_offset_keys_like_debezium() -> None:
    o = streaming_offset(lsn=22183280, lsn_commit=22183280, tx_id=731, ts_usec=1795303602366693, message_type="COMMIT")
    assert o == {
        "lsn_proc": 22183280,
        "messageType": "COMMIT",
        "lsn_commit": 22183280,
        "lsn": 22183280,
        "txId": 731,
        "ts_usec": 1795303602366693,
    }


def test_snapshot_offsets() -> None:
    # what real Debezium 3.6.3 stores for the last snapshot record (golden capture of the differential harness)
    assert snapshot_offset(lsn=1, tx_id=2, ts_usec=3, last=True) == {
        "last_snapshot_record": True,
        "lsn": 1,
        "txId": 2,
        "ts_usec": 3,
        "snapshot": "INITIAL",
        "snapshot_completed": True,
    }
    running = snapshot_offset(lsn=1, tx_id=2, ts_usec=3, last=False)
    assert StoredPosition.from_offset(running) is not None
    assert StoredPosition.from_offset(running).snapshot_in_progress  # type: ignore[union-attr]
    done = StoredPosition.from_offset(snapshot_offset(lsn=1, tx_id=2, ts_usec=3, last=True))
    assert done is not None and not done.snapshot_in_progress and done.resume_lsn == 1


def test_pre_3x_boolean_snapshot_marker_is_read() -> None:
    p = StoredPosition.from_offset({"lsn": 5, "snapshot": True, "last_snapshot_record": False})
    assert p is not None and p.snapshot_in_progress


def test_resume_skips_only_the_emitted_part_of_the_open_transaction() -> None:
    p = StoredPosition.from_offset(
        {"lsn_proc": 200, "messageType": "INSERT", "lsn_commit": 100, "lsn": 200, "txId": 7, "ts_usec": 0}
    )
    assert p is not None
    assert p.resume_lsn == 100
    assert p.already_emitted(7, 150) and p.already_emitted(7, 200)
    assert not p.already_emitted(7, 201)
    assert not p.already_emitted(8, 150)  # another transaction's event with an older LSN was never emitted
    committed = StoredPosition.from_offset(
        {"lsn_proc": 300, "messageType": "COMMIT", "lsn_commit": 300, "lsn": 300, "txId": 7, "ts_usec": 0}
    )
    assert committed is not None and not committed.already_emitted(7, 250)


def test_a_stored_begin_emitted_none_of_the_transactions_events() -> None:
    # a BEGIN's LSN is the one of the transaction's first change: skipping "≤ lsn" would lose that change
    p = StoredPosition.from_offset(
        {"transaction_id": "7", "lsn_proc": 90, "messageType": "BEGIN", "lsn_commit": 90, "lsn": 150, "txId": 7}
    )
    assert p is not None and p.in_transaction(7) and not p.in_transaction(8)
    assert not p.already_emitted(7, 150)


def test_resume_uses_the_last_emitted_lsn_not_lsn_proc() -> None:
    # Debezium 3.6.3: a transactional MESSAGE keeps lsn_proc at the event before it; `lsn` is the message's
    p = StoredPosition.from_offset(
        {
            "transaction_id": "7",
            "lsn_proc": 120,
            "messageType": "MESSAGE",
            "lsn": 180,
            "txId": 7,
            "transaction_data_collection_order_public.a": 2,
            "transaction_data_collection_order_x": 1,
        }
    )
    assert p is not None
    assert p.already_emitted(7, 180) and not p.already_emitted(7, 181)
    assert p.transaction_id == "7"
    assert dict(p.transaction_orders) == {"public.a": 2, "x": 1}


def test_non_transactional_message_offset_is_not_inside_a_transaction() -> None:
    p = StoredPosition.from_offset({"lsn_proc": 50, "messageType": "MESSAGE", "lsn_commit": 50, "lsn": 50})
    assert p is not None and not p.in_transaction(None) and not p.already_emitted(9, 40)
    assert p.offset() == {"lsn_proc": 50, "messageType": "MESSAGE", "lsn_commit": 50, "lsn": 50, "ts_usec": 0}


def test_stored_offset_after_a_snapshot_is_replayed_in_debeziums_form() -> None:
    p = StoredPosition.from_offset(snapshot_offset(lsn=10, tx_id=3, ts_usec=5, last=True))
    assert p is not None and p.offset() == {"lsn": 10, "txId": 3, "ts_usec": 5}
