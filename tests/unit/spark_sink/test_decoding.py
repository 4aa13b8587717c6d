"""Pure tests of the Debezium envelope decoding (kafka-connect.md §3-§4, Appendix A; postgresql.md §5-§6)."""

from __future__ import annotations

import base64
import datetime as dt
import json
from decimal import Decimal
from typing import Any

import pytest

from spark_sink.decoding import ChangeEvent, DecodeFailure, RawRecord, Skipped, TxMarker, decoder_for
from spark_sink.position import SourcePosition
from spark_sink.types.model import DATE, INT, STRING, TIMESTAMP, ArrayT, DecimalT, StructT
from tests.spec_captures import LIVE_ROW_SCHEMA_FIELDS

PH = "__debezium_unavailable_value"
ROW_FIELDS = LIVE_ROW_SCHEMA_FIELDS  # Appendix A.1: the live value schema of `customers`
ROW = {"type": "struct", "fields": ROW_FIELDS, "optional": True, "name": "dbserver1.public.customers.Value"}
ENVELOPE = {
    "type": "struct",
    "fields": [
        dict(ROW, field="before"),
        dict(ROW, field="after"),
        {
            "type": "struct",
            "fields": [],
            "optional": False,
            "name": "io.debezium.connector.postgresql.Source",
            "field": "source",
        },
        {"type": "string", "optional": False, "field": "op"},
    ],
    "optional": False,
    "name": "dbserver1.public.customers.Envelope",
    "version": 2,
}
KEY_SCHEMA = {
    "type": "struct",
    "fields": [{"type": "int32", "optional": False, "field": "id"}],
    "optional": False,
    "name": "dbserver1.public.customers.Key",
}
AFTER = {
    "id": 2,
    "email": "b@x.org",
    "balance": "/do=",
    "created": -1,
    "ts": "1970-01-01T00:00:00.000000Z",
    "tags": [],
    "payload": "[1, 2]",
    "amount": {"scale": 7, "value": "AQ=="},
}
SOURCE = {
    "version": "3.6.3.Final",
    "connector": "postgresql",
    "name": "dbserver1",
    "ts_ms": 1795303602364,
    "snapshot": "false",
    "db": "postgres",
    "sequence": '[null,"22182192"]',
    "schema": "public",
    "table": "customers",
    "txId": 729,
    "lsn": 22182192,
}
TX = {"id": "729:22182192", "total_order": 1, "data_collection_order": 1}


def record(value: Any, key: Any = None, *, schemas: bool = True, offset: int = 0) -> RawRecord:
    def enc(obj: Any, schema: Any) -> bytes | None:
        if obj is None:
            return None
        return json.dumps({"schema": schema, "payload": obj} if schemas else obj).encode()

    return RawRecord("dbserver1.public.customers", 0, offset, enc(key, KEY_SCHEMA), enc(value, ENVELOPE))


def decode(raw: RawRecord, schemas: str = "auto") -> Any:
    return decoder_for("json", schemas=schemas, placeholder=PH).decode(raw)


def envelope(op: str, after: Any = AFTER, before: Any = None, **extra: Any) -> dict[str, Any]:
    return {"before": before, "after": after, "source": SOURCE, "transaction": TX, "op": op, "ts_ms": 1, **extra}


def test_live_capture_decodes_to_natural_types() -> None:
    event = decode(record(envelope("c"), {"id": 2}))
    assert isinstance(event, ChangeEvent)
    assert event.op == "c" and event.key == {"id": 2}
    assert event.row == {
        "id": 2,
        "email": "b@x.org",
        "balance": Decimal("-5.50"),
        "created": dt.date(1969, 12, 31),
        "ts": dt.datetime(1970, 1, 1, tzinfo=dt.UTC),
        "tags": [],
        "payload": "[1, 2]",
        "amount": Decimal("1E-7"),
    }
    types = dict(event.schema.columns)
    assert types["id"] == INT and types["balance"] == DecimalT(10, 2) and types["created"] == DATE
    assert types["ts"] == TIMESTAMP and types["tags"] == ArrayT(STRING) and types["payload"] == STRING
    assert types["amount"] == DecimalT(38, 18)
    assert event.position == SourcePosition(0, 22182192, 1)
    assert event.source_table == "public.customers" and event.tx_id == "729" and event.source_ts_ms == 1795303602364


def test_schemaless_json_is_inferred() -> None:
    event = decode(record(envelope("u"), {"id": 2}, schemas=False))
    assert isinstance(event, ChangeEvent) and not event.typed
    assert event.row is not None and event.row["balance"] == "/do=" and event.row["id"] == 2
    assert dict(event.schema.columns)["amount"] == StructT(
        (("scale", dict(event.schema.columns)["id"]), ("value", STRING))
    )


def test_schemas_true_rejects_bare_payloads() -> None:
    result = decode(record(envelope("c"), {"id": 2}, schemas=False), schemas="true")
    assert isinstance(result, DecodeFailure) and "schemas.enable" in result.reason


def test_delete_keeps_only_the_key_and_tombstone_is_skipped() -> None:
    before = dict(AFTER, email=None)
    event = decode(record(envelope("d", after=None, before=before), {"id": 2}))
    assert isinstance(event, ChangeEvent) and event.op == "d" and event.key == {"id": 2}
    tomb = decode(RawRecord("t", 0, 1, b'{"schema":null,"payload":{"id":2}}', None))
    assert isinstance(tomb, Skipped) and tomb.reason == "tombstone"


def test_truncate_has_no_key() -> None:
    event = decode(record(envelope("t", after=None), None))
    assert isinstance(event, ChangeEvent) and event.op == "t" and event.key is None and event.row is None


def test_toast_placeholder_is_detected_per_type() -> None:
    ph_b64 = base64.b64encode(PH.encode()).decode()
    fields = [
        {"type": "int32", "optional": False, "field": "id"},
        {"type": "string", "optional": True, "field": "txt"},
        {"type": "bytes", "optional": True, "field": "bin"},
        {"type": "array", "items": {"type": "string", "optional": True}, "optional": True, "field": "arr"},
    ]
    row = {"type": "struct", "fields": fields, "optional": True}
    env = {"type": "struct", "fields": [dict(row, field="before"), dict(row, field="after")], "optional": False}
    value = {"before": None, "after": {"id": 1, "txt": PH, "bin": ph_b64, "arr": [PH]}, "source": SOURCE, "op": "u"}
    raw = RawRecord("x", 0, 0, json.dumps({"id": 1}).encode(), json.dumps({"schema": env, "payload": value}).encode())
    event = decode(raw)
    assert isinstance(event, ChangeEvent)
    assert event.unavailable == {"txt", "bin", "arr"}
    assert event.row == {"id": 1, "txt": None, "bin": None, "arr": None}


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (b"{nope", "not JSON"),
        (
            json.dumps({"schema": ENVELOPE, "payload": envelope("c", after=dict(AFTER, balance="!!"))}).encode(),
            "base64",
        ),
        (json.dumps({"schema": ENVELOPE, "payload": envelope("x")}).encode(), "op='x'"),
        (json.dumps({"schema": {"type": "nope"}, "payload": {}}).encode(), "unknown schema type"),
    ],
)
def test_unparseable_records_fail_with_a_reason(value: bytes, reason: str) -> None:
    result = decode(RawRecord("x", 0, 0, b'{"id": 1}', value))
    assert isinstance(result, DecodeFailure) and reason in result.reason


def test_only_the_transaction_block_ties_an_event_to_a_transaction() -> None:
    result = decode(record(envelope("c", transaction=None), {"id": 2}))
    assert isinstance(result, ChangeEvent) and result.tx_id is None  # source.txId alone never gets an END


def test_keyless_changes_carry_whole_rows() -> None:
    insert = decode(record(envelope("c"), None))
    assert isinstance(insert, ChangeEvent) and insert.keyless and insert.key is None
    assert insert.row is not None and insert.row["email"] == "b@x.org" and insert.before is None
    old = dict(AFTER, email="old@x.org")
    update = decode(record(envelope("u", before=old), None))
    assert isinstance(update, ChangeEvent) and update.keyless
    assert update.before is not None and update.before["email"] == "old@x.org"
    assert update.row is not None and update.row["email"] == "b@x.org"
    delete = decode(record(envelope("d", after=None, before=old), None))
    assert isinstance(delete, ChangeEvent) and delete.row is not None and delete.row["email"] == "old@x.org"
    # an unchanged TOAST column of the new row is taken from the whole old row (REPLICA IDENTITY FULL)
    toasted = decode(record(envelope("u", after=dict(AFTER, email=PH), before=old), None))
    assert isinstance(toasted, ChangeEvent) and toasted.row is not None and not toasted.unavailable
    assert toasted.row["email"] == "old@x.org"


def test_keyless_changes_without_the_whole_old_row_are_refused() -> None:
    for op in ("u", "d"):
        result = decode(record(envelope(op, after=None if op == "d" else AFTER, before=None), None))
        assert isinstance(result, DecodeFailure) and "REPLICA IDENTITY FULL" in result.reason
    both_toasted = decode(record(envelope("u", after=dict(AFTER, email=PH), before=dict(AFTER, email=PH)), None))
    assert isinstance(both_toasted, DecodeFailure) and "['email'] carry no value" in both_toasted.reason


def test_transaction_topic_and_heartbeats() -> None:
    end = {
        "status": "END",
        "id": "730:22183064",
        "event_count": 3,
        "data_collections": [{"data_collection": "public.customers", "event_count": 3}],
        "ts_ms": 1,
    }
    marker = decode(RawRecord("dbserver1.transaction", 0, 0, b'{"id":"730:22183064"}', json.dumps(end).encode()))
    assert isinstance(marker, TxMarker) and marker.tx_id == "730" and marker.data_collections == {"public.customers": 3}
    assert marker.commit_lsn == 22183064
    beat = decode(RawRecord("__debezium-heartbeat.dbserver1", 0, 0, b'{"serverName":"dbserver1"}', b'{"ts_ms":1}'))
    assert isinstance(beat, Skipped) and beat.reason == "heartbeat"


def compact(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()  # as JsonConverter writes them


def test_a_kept_decoder_reads_every_record_as_a_fresh_one_does() -> None:
    """The envelope head a decoder remembers per topic (`{"schema":…,"payload":`) never changes a result: records
    after it with the same schema, another schema, extra top-level fields, a broken payload and a null schema decode
    as a new decoder decodes each one alone."""
    fields: list[Any] = list(ENVELOPE["fields"])  # type: ignore[call-overload]
    wider = {**ENVELOPE, "fields": [*fields, {"field": "extra", "type": "string", "optional": True}]}
    value = {"schema": ENVELOPE, "payload": envelope("c")}
    head = compact({"schema": ENVELOPE, "payload": None})[: -len(b"null}")]
    values = [
        compact(value),
        compact({"schema": ENVELOPE, "payload": envelope("u", after=dict(AFTER, id=3))}),
        compact({"schema": wider, "payload": envelope("c", after=dict(AFTER, extra="x"))}),
        compact(value),
        compact({**value, "more": 1}),  # the same head, then something besides the payload
        head + b'{"op":"c"',  # the same head, then a payload that does not end
        head + compact(envelope("c")) + b"}",  # the head, a payload, one brace too many
        head + json.dumps(envelope("c", after=dict(AFTER, email="zoë😀@x.org")), ensure_ascii=False).encode() + b"}",
        head + compact(envelope("c"))[:-1] + b',"x":"\xff"}}',  # not UTF-8 after the head
        compact({"schema": None, "payload": envelope("c")}),
    ]
    key = compact({"schema": KEY_SCHEMA, "payload": {"id": 2}})
    kept = decoder_for("json", schemas="auto", placeholder=PH)
    for offset, raw_value in enumerate(values):
        raw = RawRecord("dbserver1.public.customers", 0, offset, key, raw_value)
        fresh = decoder_for("json", schemas="auto", placeholder=PH).decode(raw)
        assert kept.decode(raw) == fresh, raw_value
    assert isinstance(kept.decode(RawRecord("dbserver1.public.customers", 0, 9, key, values[2])), ChangeEvent)
    utf8 = kept.decode(RawRecord("dbserver1.public.customers", 0, 10, key, values[7]))
    assert isinstance(utf8, ChangeEvent) and utf8.row is not None and utf8.row["email"] == "zoë😀@x.org"
    assert isinstance(kept.decode(RawRecord("dbserver1.public.customers", 0, 11, key, values[8])), DecodeFailure)
