"""The pure parts of the distributed micro-batch: row values as JSON text, sink types as text, the decoded rows'
columns (spark_sink/stage)."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal

from spark_sink.decoding import ChangeEvent, DecodeFailure, RawRecord, RowSchema, Skipped, TxMarker
from spark_sink.position import SourcePosition
from spark_sink.stage import rowjson
from spark_sink.stage.decode import FIELDS, Rows, schema_from_text, schema_id, schema_text, spark_schema
from spark_sink.types import codec
from spark_sink.types.model import BINARY, DATE, INT, LONG, STRING, TIMESTAMP, ArrayT, DecimalT, MapT, StructT


def test_row_values_as_exact_json_text() -> None:
    row = {
        "d": Decimal("-12345678901234567890.123456789012345678"),
        "tiny": Decimal("1E-7"),
        "b": b"\x00\x01\xff",
        "at": dt.datetime(1, 1, 1, 0, 0, 0, 1, tzinfo=dt.UTC),
        "local": dt.datetime(9999, 12, 31, 23, 59, 59, 999999),
        "shifted": dt.datetime(2024, 1, 1, 2, 0, tzinfo=dt.timezone(dt.timedelta(hours=2))),
        "day": dt.date(1, 1, 1),
        "nan": float("nan"),
        "inf": float("-inf"),
        "nested": {"xs": [1, None], "m": {"k": "v"}},
        "none": None,
        "text": "ünïcode \u2028",
    }
    text = rowjson.dumps(row)
    assert text is not None
    assert '"d":"-12345678901234567890.123456789012345678"' in text and '"tiny":"1E-7"' in text
    assert '"b":"AAH/"' in text
    assert '"at":"0001-01-01T00:00:00.000001Z"' in text and '"local":"9999-12-31T23:59:59.999999"' in text
    assert '"shifted":"2024-01-01T00:00:00.000000Z"' in text and '"day":"0001-01-01"' in text
    assert '"nan":NaN' in text and '"inf":-Infinity' in text
    assert json.loads(text)["text"] == "ünïcode \u2028"
    assert rowjson.dumps(None) is None


def test_sink_types_round_trip_as_text() -> None:
    for t in (
        INT,
        DecimalT(38, 18),
        ArrayT(MapT(STRING, DecimalT(5, 2))),
        StructT((("a", TIMESTAMP), ("b", ArrayT(DATE)))),
    ):
        assert codec.decode(json.loads(json.dumps(codec.encode(t)))) == t
    schema = RowSchema((("id", LONG), ("tags", ArrayT(STRING)), ("raw", BINARY)), "dbserver1.public.t.Value")
    text = schema_text(schema)
    assert schema_from_text(text) == schema
    rebuilt = RowSchema(tuple((n, t) for n, t in schema.columns), "dbserver1.public.t.Value")  # equal, built anew
    assert schema_id(text) == schema_id(schema_text(rebuilt)) != schema_id(schema_text(RowSchema(schema.columns)))


def test_decoded_rows_carry_each_schema_once_per_task() -> None:
    schema = RowSchema((("id", INT), ("name", STRING)))
    rows = Rows(lambda topic: topic.rsplit(".", 1)[-1])

    def event(offset: int, op: str = "c") -> ChangeEvent:
        raw = RawRecord("p.s.items", 0, offset, b"k", b"v", 5)
        at = SourcePosition(0, 10 + offset, 1)
        return ChangeEvent(raw, op, {"id": offset}, {"id": offset, "name": "n"}, schema, at,
                           unavailable=frozenset({"name"}) if op == "u" else frozenset(), source_ts_ms=77,
                           source_table="s.items", tx_id="9")  # fmt: skip

    for offset, op in ((0, "c"), (1, "u")):
        e = event(offset, op)
        rows.add(e.raw, e)
    raw = RawRecord("p.transaction", 0, 2, None, b"x")
    rows.add(raw, TxMarker(raw, "END", "9", 2, {"s.items": 2}, 1234))
    rows.add(raw, Skipped(raw, "tombstone"))
    rows.add(raw, DecodeFailure(raw, "bad"))
    c = rows.take()
    assert set(c) == set(FIELDS) and all(len(v) == 5 for v in c.values())
    assert c["kind"] == ["event", "event", "marker", "skip", "failure"]
    assert c["tbl"][:2] == ["items", "items"] and c["op"][:2] == ["c", "u"]
    assert (c["epoch"][1], c["pos"][1], c["seq"][1]) == (0, 11, 1)
    assert c["schema"][0] is not None and c["schema"][1] is None  # the schema's text travels once
    assert c["schema_id"][0] == c["schema_id"][1] == rows.sent[schema][0]
    assert json.loads(c["row"][1]) == {"id": 1, "name": "n"} and c["unavailable"] == [None, ["name"], None, None, None]
    assert c["key_names"][0] == ["id"] and c["keyless"][0] is False and c["typed"][0] is True
    assert (
        c["collections"][2] == [("s.items", 2)]
        and c["commit_lsn"][2] == 1234
        and c["reason"][3:] == ["tombstone", "bad"]
    )
    assert rows.take() == {f: [] for f in FIELDS}  # taken: the next Arrow batch starts empty
    e = event(2)
    rows.add(e.raw, e)
    assert rows.take()["schema"] == [None]  # sent once per task, not once per Arrow batch
    types = {f.name: f.dataType.simpleString() for f in spark_schema().fields}
    assert types["collections"] == "map<string,bigint>" and types["unavailable"] == "array<string>"


def test_first_line_names_the_java_exception_behind_a_py4j_error() -> None:
    from spark_sink.errors import first_line

    class Py4JJavaError(Exception):  # the shape of py4j's message; the real class needs a gateway to build
        pass

    text = (
        "An error occurred while calling o74.sql.\n"
        ": org.apache.spark.sql.delta.DeltaRuntimeException: [DELTA_X] The MERGE failed.\n"
        "\tat org.apache.spark.sql.delta.DeltaErrors..."
    )
    assert first_line(Py4JJavaError(text)) == (
        "Py4JJavaError: org.apache.spark.sql.delta.DeltaRuntimeException: [DELTA_X] The MERGE failed."
    )
    assert first_line(ValueError("first\nsecond")) == "ValueError: first"
    assert first_line(ValueError("")) == "ValueError: "
