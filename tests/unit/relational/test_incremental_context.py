"""The incremental snapshot's context in the offsets: Debezium's keys, the per-row fast key encoding, loading."""

from __future__ import annotations

import decimal
import json
import random
import uuid

import pytest

from connect_worker.api.java_serialization import JavaInteger, JavaLong, JavaShort, encode_key
from connectors.relational.incremental_context import (
    COLLECTIONS,
    CORRELATION_ID,
    MAXIMUM_KEY,
    PRIMARY_KEY,
    DataCollection,
    IncrementalSnapshotContext,
    encode_chunk_key,
)
from connectors.relational.table import TableId


def test_fast_key_encoding_is_the_serializers() -> None:
    rng = random.Random(7)
    keys: list[tuple[object, ...] | None] = [None, (), (None,), ("é",), ("x" * 70000,)]
    for _ in range(5000):
        one = rng.choice(
            [
                JavaLong(rng.randint(-(2**63), 2**63 - 1)),
                JavaLong(rng.randint(-200, 200)),
                JavaInteger(rng.randint(-(2**31), 2**31 - 1)),
                JavaInteger(rng.randint(-130, 130)),
                JavaShort(rng.randint(-5, 5)),
                "".join(rng.choice("abcXYZ019 _\t") for _ in range(rng.randint(0, 40))),
                decimal.Decimal(rng.randint(-(10**6), 10**6)).scaleb(-rng.randint(0, 4)),
                uuid.UUID(int=rng.getrandbits(128)),
            ]
        )
        keys.append((one,) if rng.random() < 0.8 else (one, JavaInteger(rng.randint(0, 9))))
    for key in keys:
        assert encode_chunk_key(key) == encode_key(None if key is None else list(key)), key  # type: ignore[arg-type]


def test_offset_keys_and_load_round_trip() -> None:
    context = IncrementalSnapshotContext()
    assert context.offset_keys() is None
    first = DataCollection(TableId("public", "a"), "id > 3", "", "sig-1")
    context.add("sig-1", [first, DataCollection(TableId("s", "b"))])
    context.maximum_key = (JavaInteger(99),)
    context.changed()
    keys = context.offset_keys()
    assert keys is not None
    assert keys[PRIMARY_KEY] == "aced000570"  # nothing sent yet: a serialized null
    assert keys[MAXIMUM_KEY] == encode_key([JavaInteger(99)])
    assert keys[CORRELATION_ID] == "sig-1"
    assert json.loads(keys[COLLECTIONS]) == [
        {
            "incremental_snapshot_collections_id": "public.a",
            "incremental_snapshot_collections_additional_condition": "(id > 3)",
            "incremental_snapshot_collections_surrogate_key": None,
            "incremental_snapshot_collections_correlation_id": "sig-1",
        },
        {
            "incremental_snapshot_collections_id": "s.b",
            "incremental_snapshot_collections_additional_condition": None,
            "incremental_snapshot_collections_surrogate_key": None,
            "incremental_snapshot_collections_correlation_id": None,
        },
    ]
    assert context.sent_key((JavaInteger(7),)) == encode_key([JavaInteger(7)])
    stored = context.offset_keys()
    assert stored is not None and stored[PRIMARY_KEY] == encode_key([JavaInteger(7)])
    loaded = IncrementalSnapshotContext.load({"lsn": 1, **stored})
    assert loaded.chunk_end == (JavaInteger(7),) and loaded.last_sent is None
    assert loaded.maximum_key == (JavaInteger(99),) and loaded.correlation_id == "sig-1"
    # Debezium wraps a stored condition once more each time it loads and stores it
    assert [c.additional_condition for c in loaded.collections] == ["((id > 3))", None]


def test_a_bad_stored_key_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="incremental_snapshot_primary_key"):
        IncrementalSnapshotContext.load({PRIMARY_KEY: "abcd", COLLECTIONS: "[]"})
