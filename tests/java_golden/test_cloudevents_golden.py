"""CloudEventsConverter against the real Debezium 3.6.3 io.debezium.converters.CloudEventsConverter, byte for byte.

The change events are built as the PostgreSQL connector builds them (its source block through SourceInfo, the
envelope in Debezium 3's field layout, the transaction block of connectors.relational.metadata_schemas); the Java
side rebuilds the same schemas and values from their JSON (tests/java/CloudEventsGolden.java) and runs the real
converter, with the record's headers written by a JSON header converter as Debezium's documentation asks for
metadata.source=header. One JVM per batch; the jars are the ones the differential tests run Connect with
(.devstack/debezium, fetched by devstack/debezium.sh only when missing).
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import json
import subprocess
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from connect_worker.api.errors import ConnectError
from connect_worker.api.record import Header
from connect_worker.api.schema import (
    BOOLEAN_SCHEMA,
    BYTES_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_FLOAT64_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    Schema,
    Type,
    decimal_schema,
    struct_schema,
    timestamp_schema,
)
from connect_worker.api.struct import Struct
from connectors.postgres.source_info import SOURCE_SCHEMA, SourceInfo
from connectors.relational.metadata_schemas import EVENT_BLOCK_SCHEMA, event_block
from connectors.relational.schema_builder import ENVELOPE_VERSION, EnvelopeLayout
from converters.cloudevents import DEBEZIUM_VERSION, CloudEventsConverter
from converters.json import JsonConverter
from tests.java_golden.tags import to_tag

pytestmark = pytest.mark.java

ROOT = Path(__file__).resolve().parents[2]
DBZ = ROOT / ".devstack" / "debezium"
PLUGIN = DBZ / "plugins" / "debezium-connector-postgres"
PROGRAM = ROOT / "tests" / "java" / "CloudEventsGolden.java"

RunCases = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]

_SCHEMAS = JsonConverter()
_SCHEMAS.configure({}, False)

# Java failures whose messages are the JVM's own (a null dereference, a bad cast): only the failure must match
_JVM_ERRORS = frozenset(("NullPointerException", "ClassCastException", "ArrayIndexOutOfBoundsException"))


@pytest.fixture(scope="module")
def debezium_java(java_bin: str) -> RunCases:
    if not (PLUGIN / "debezium-connector-postgres-3.6.3.Final.jar").exists():
        from tests.differential.debezium import ConnectDebezium

        ConnectDebezium.fetch()
    classpath = f"{DBZ / 'connect-libs'}/*:{PLUGIN}/*"

    def run(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
        stdin = "".join(json.dumps(c, ensure_ascii=True) + "\n" for c in cases)
        proc = subprocess.run(
            [java_bin, "-cp", classpath, str(PROGRAM)], input=stdin.encode(), capture_output=True, timeout=300
        )
        assert proc.returncode == 0, proc.stderr.decode(errors="replace")
        answers = [json.loads(x) for x in proc.stdout.decode("utf-8").splitlines() if x.strip()]
        assert len(answers) == len(cases), proc.stderr.decode(errors="replace")
        return answers

    return run


# -- PostgreSQL change events ---------------------------------------------------------------------------------------
TX = EVENT_BLOCK_SCHEMA


def row_schema(name: str = "srv.public.orders.Value") -> Schema:
    return struct_schema(
        [
            ("id", INT32_SCHEMA),
            ("name", OPTIONAL_STRING_SCHEMA),
            ("price", decimal_schema(2, optional=True)),
            ("qty", OPTIONAL_INT64_SCHEMA),
            ("ratio", OPTIONAL_FLOAT64_SCHEMA),
            ("paid", BOOLEAN_SCHEMA),
            ("blob", BYTES_SCHEMA.with_(optional=True)),
            ("status", STRING_SCHEMA.with_(default="new")),
            ("created", timestamp_schema(optional=True)),
        ],
        name=name,
        optional=True,
    )


ROW = row_schema()


def envelope(row: Schema = ROW, name: str = "srv.public.orders.Envelope") -> Schema:
    fields = {
        "before": row,
        "after": row,
        "source": SOURCE_SCHEMA,
        "transaction": TX,
        "op": STRING_SCHEMA,
        "ts_ms": OPTIONAL_INT64_SCHEMA,
        "ts_us": OPTIONAL_INT64_SCHEMA,
        "ts_ns": OPTIONAL_INT64_SCHEMA,
    }
    return struct_schema([(n, fields[n]) for n in EnvelopeLayout.V3.fields], name=name, version=ENVELOPE_VERSION)


ENV = envelope()
SOURCES = SourceInfo("srv", "inventory")
TS_US = 1_700_000_000_123_456


def row(row_id: int = 1, **changes: Any) -> Struct:
    values = {
        "id": row_id,
        "name": 'Bob \u00e9\u2603 \U0001f600 "q"\n',
        "price": Decimal("12.30"),
        "qty": 2**40,
        "ratio": 0.1,
        "paid": True,
        "blob": b"\x00\xff",
        "status": "paid",
        "created": dt.datetime(2024, 2, 29, 12, 0, 1, 5000),
    }
    values.update(changes)
    return Struct(ROW, values)


def streaming_source(lsn: int | None = 24_023_128, tx_id: int | None = 555, **changes: Any) -> Struct:
    s = SOURCES.struct(ts_us=TS_US, schema="public", table="orders", tx_id=tx_id, lsn=lsn, last_commit_lsn=24_023_000)
    for k, v in changes.items():
        s = s.put(k, v)
    return s


def snapshot_source(mark: str) -> Struct:
    template = SOURCES.snapshot_template(schema="public", table="orders", tx_id=770, lsn=24_000_000)
    return template.at(TS_US, mark)


def event(op: str, before: Any, after: Any, source: Struct | None = None, tx: Struct | None = None) -> Struct:
    return Struct(
        ENV,
        {
            "before": before,
            "after": after,
            "source": source if source is not None else streaming_source(),
            "transaction": tx,
            "op": op,
            "ts_ms": 1_700_000_000_200,
            "ts_us": 1_700_000_000_200_123,
            "ts_ns": 1_700_000_000_200_123_000,
        },
    )


TX_BLOCK = event_block("555:24023128", 7, 3)


def records() -> Iterator[tuple[str, Schema | None, Any]]:
    """Envelopes of every operation and source-block shape, and records that are not change events."""
    yield "create", ENV, event("c", None, row(), tx=TX_BLOCK)
    yield "update", ENV, event("u", row(status="new"), row(), tx=TX_BLOCK)
    yield "delete", ENV, event("d", row(), None)
    yield "read (snapshot true)", ENV, event("r", None, row(), snapshot_source("true"))
    yield "read (snapshot last)", ENV, event("r", None, row(), snapshot_source("last"))
    yield "truncate", ENV, event("t", None, None)
    yield "nulls and a defaulted field", ENV, event("c", None, row(name=None, price=None, status=None, blob=None))
    yield "no lsn, txId, sequence", ENV, event("c", None, row(), streaming_source(sequence=None, lsn=None, tx_id=None))
    yield "origin set", ENV, event("c", None, row(), streaming_source(origin="node1", origin_lsn=99, xmin=12))
    for ts in (0, -1, -12_219_292_800_000, -12_219_292_800_001, -62_135_596_800_000, -62_198_755_200_000,
               -100_000_000_000_000, 253_402_300_800_000, 4_102_444_800_999, 9_223_372_036_854_775,
               -9_223_372_036_854_775):  # fmt: skip
        yield f"ts_ms {ts}", ENV, event("c", None, row(), streaming_source(ts_ms=ts))
    yield "server name with odd characters", ENV, event("c", None, row(), streaming_source(name="s-1/é \U0001f600"))
    other = envelope(row_schema("other.Value"), "a-b.c.Envelope")
    yield "another envelope name", other, Struct(other, {**event("c", None, None).as_dict(), "op": "c"})
    # not change events, or not ones Debezium can make a CloudEvent of
    yield "tombstone", ENV, None
    yield "key", struct_schema([("id", INT32_SCHEMA)], name="srv.public.orders.Key"), None
    heartbeat = struct_schema([("ts_ms", INT64_SCHEMA)], name="io.debezium.connector.common.Heartbeat", version=1)
    yield "heartbeat", heartbeat, Struct(heartbeat, {"ts_ms": 5})
    yield "named string", Schema(Type.STRING, name="x.Envelope"), "text"
    yield (
        "unnamed struct",
        struct_schema([("id", INT32_SCHEMA)]),
        Struct(struct_schema([("id", INT32_SCHEMA)]), {"id": 1}),
    )
    no_source = struct_schema([("before", ROW), ("after", ROW), ("op", STRING_SCHEMA)], name="x.Envelope")
    yield "envelope without source", no_source, Struct(no_source, {"op": "c"})
    yield "mysql source", ENV, event("c", None, row(), streaming_source(connector="mysql"))
    yield "required row field null", ENV, event("c", None, row(id=None))
    yield "required source name null", ENV, event("c", None, row(), streaming_source(name=None))
    yield "ts_ms null", ENV, event("c", None, row(), streaming_source(ts_ms=None))


CONFIGS: list[dict[str, str]] = [
    {},
    {"json.schemas.enable": "false"},
    {"extension.attributes.enable": "false"},
    {"extension.attributes.enable": "false", "json.schemas.enable": "false"},
    {"json.decimal.format": "NUMERIC", "json.schemas.enable": "FALSE"},
    {"json.replace.null.with.default": "false"},
    {"json.replace.null.with.default": "false", "json.schemas.enable": "false"},
    {"schema.cloudevents.name": "my.CloudEvents", "schema.name.adjustment.mode": "none"},
    {"serializer.type": "JSON", "data.serializer.type": "Json", "schema.name.adjustment.mode": "avro_unicode"},
    {"metadata.source": "value"},
    {"metadata.source": "value,id:generate,type:generate"},
]


# -- metadata in headers ------------------------------------------------------------------------------------------
def header(key: str, schema: Schema | None, value: Any) -> Header:
    return Header(key, schema, value)


def _meta_headers(**extra: tuple[Schema | None, Any]) -> tuple[Header, ...]:
    """`source`, `op` and `transaction` headers, then the extra ones (a later header of a key is the one read)."""
    hs = [
        header("source", SOURCE_SCHEMA, streaming_source()),
        header("op", STRING_SCHEMA, "u"),
        header("transaction", TX, TX_BLOCK),
    ]
    hs += [header(k, s, v) for k, (s, v) in extra.items()]
    return tuple(hs)


def header_cases() -> Iterator[tuple[str, dict[str, str], Schema, Any, tuple[Header, ...]]]:
    """metadata.source with headers: the value is the row (as after ExtractNewRecordState or the outbox router)."""
    flat = row()
    ids = {"id": (STRING_SCHEMA, "my-id"), "type": (STRING_SCHEMA, "my.type")}
    header_all = {"metadata.source": "header"}
    yield "header", header_all, ROW, flat, _meta_headers(**ids)
    yield "header, no schemas", {**header_all, "json.schemas.enable": "false"}, ROW, flat, _meta_headers(**ids)
    yield (
        "header, no extensions",
        {**header_all, "extension.attributes.enable": "false"},
        ROW,
        flat,
        _meta_headers(**ids),
    )
    yield "header, no op header", header_all, ROW, flat, _meta_headers(**ids)[::2]
    yield "header, no source header", header_all, ROW, flat, _meta_headers(**ids)[1:]
    yield "header, no id header", header_all, ROW, flat, _meta_headers(type=ids["type"])
    yield (
        "header, no transaction",
        header_all,
        ROW,
        flat,
        tuple(h for h in _meta_headers(**ids) if h.key != "transaction"),
    )
    yield "header, null transaction", header_all, ROW, flat, _meta_headers(transaction=(TX, None), **ids)
    yield "header, op not a string", header_all, ROW, flat, _meta_headers(op=(INT64_SCHEMA, 5), **ids)
    yield (
        "header, source not a struct",
        header_all,
        ROW,
        flat,
        (
            *_meta_headers(**ids),
            header("source", STRING_SCHEMA, "s"),
        ),
    )
    yield "header, envelope value", header_all, ENV, event("c", None, row()), _meta_headers(**ids)
    yield (
        "header, generated id and type",
        {"metadata.source": "header,id:generate,type:generate"},
        ROW,
        flat,
        (_meta_headers()),
    )
    yield (
        "value, id and type from headers",
        {"metadata.source": "value,id:header,type:header"},
        ENV,
        event("c", None, row()),
        _meta_headers(**ids),
    )
    id_header = {"metadata.source": "value,id:header,type:generate"}
    yield (
        "value, only id:header (type from the value: none)",
        {"metadata.source": "value,id:header"},
        ENV,
        event("c", None, row()),
        (),
    )
    yield "value, id header missing", id_header, ENV, event("c", None, row()), ()
    yield (
        "value, the last header wins",
        id_header,
        ENV,
        event("c", None, row()),
        (
            header("id", STRING_SCHEMA, "first"),
            header("id", STRING_SCHEMA, "second"),
        ),
    )
    yield "value, id header not a string", id_header, ENV, event("c", None, row()), (header("id", INT64_SCHEMA, 5),)
    names = {"dataSchemaName": (STRING_SCHEMA, "my.Data")}
    named = {"metadata.source": "header", "schema.data.name.source.header.enable": "true"}
    yield "data schema name header", named, ROW, flat, _meta_headers(**ids, **names)
    yield "data schema name header missing", named, ROW, flat, _meta_headers(**ids)
    yield "data schema name header, not enabled", header_all, ROW, flat, _meta_headers(**ids, **names)
    yield (
        "data schema name header, value global",
        {
            "metadata.source": "value,id:generate,type:generate,dataSchemaName:header",
            "schema.data.name.source.header.enable": "true",
        },
        ENV,
        event("c", None, row()),
        _meta_headers(**names),
    )
    tracing = {"opentelemetry.tracing.attributes.enable": "true"}
    tp = {"traceparent": (STRING_SCHEMA, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")}
    yield "traceparent header", tracing, ENV, event("c", None, row()), _meta_headers(**tp)
    yield (
        "traceparent header, no schemas",
        {**tracing, "json.schemas.enable": "false"},
        ENV,
        event("c", None, row()),
        _meta_headers(**tp),
    )
    yield "traceparent header missing", tracing, ENV, event("c", None, row()), ()
    yield (
        "traceparent generated",
        {**tracing, "metadata.source": "value,id:generate,type:generate,traceparent:generate"},
        ENV,
        event("c", None, row()),
        _meta_headers(**tp),
    )
    yield "traceparent, tracing off", {"metadata.source": "header"}, ROW, flat, _meta_headers(**ids, **tp)
    yield "header mode, required row field null", header_all, ROW, row(id=None), _meta_headers(**ids)
    yield (
        "header mode, defaulted row field null",
        {
            **header_all,
            "json.replace.null.with.default": "false",
        },
        ROW,
        row(status=None),
        _meta_headers(**ids),
    )


# -- running both sides ---------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Case:
    label: str
    config: dict[str, str]
    schema: Schema | None
    value: Any
    headers: tuple[Header, ...] = ()
    is_key: bool = False
    topic: str = "srv.public.orders"

    def java(self) -> dict[str, Any]:
        return {
            "op": "from",
            "config": self.config,
            "isKey": self.is_key,
            "topic": self.topic,
            "schema": _schema_json(self.schema),
            "value": to_tag(self.schema, self.value),
            "headers": [_header_json(h) for h in self.headers],
        }

    def python(self) -> dict[str, Any]:
        conv = CloudEventsConverter()
        try:
            conv.configure(self.config, self.is_key)
            out = conv.from_connect_data(self.topic, self.schema, self.value, self.headers)
        except ConnectError as e:
            return {"error": str(e)}
        return {"bytes": None if out is None else base64.b64encode(out).decode()}


def _header_json(h: Header) -> dict[str, Any]:
    return {"key": h.key, "schema": _schema_json(h.schema), "value": to_tag(h.schema, h.value)}


def _schema_json(schema: Schema | None) -> Any:
    return None if schema is None else json.loads(_SCHEMAS.as_json_schema(schema))


def all_cases() -> list[Case]:
    cases = [Case(f"{label} {config}", config, s, v) for config in CONFIGS for label, s, v in records()]
    cases += [Case(label, config, s, v, hs) for label, config, s, v, hs in header_cases()]
    key_schema = struct_schema([("id", INT32_SCHEMA)], name="srv.public.orders.Key")
    cases.append(Case("key side", {}, key_schema, Struct(key_schema, {"id": 1}), is_key=True))
    cases.append(Case("envelope on the key side", {}, ENV, event("c", None, row()), is_key=True))
    return cases


def same(java: dict[str, Any], py: dict[str, Any]) -> bool:
    if "error" not in java:
        return py == java
    if "error" not in py:
        return False
    if java["class"] in _JVM_ERRORS or "Invalid Java object" in java["error"]:
        return True  # the JVM's own wording, or a message naming Java classes
    return bool(java["error"] == py["error"])


def _show(r: dict[str, Any]) -> str:
    if r.get("bytes"):
        return base64.b64decode(r["bytes"]).decode("utf-8", "replace")
    return json.dumps(r, ensure_ascii=False)


@pytest.fixture(scope="module")
def from_results(debezium_java: RunCases) -> list[tuple[Case, dict[str, Any]]]:
    cases = all_cases()
    answers = debezium_java([c.java() for c in cases])
    return list(zip(cases, answers, strict=True))


def test_from_connect_data_matches_debezium(from_results: list[tuple[Case, dict[str, Any]]]) -> None:
    failures = []
    for case, java in from_results:
        py = case.python()
        if not same(java, py):
            failures.append(f"{case.label}:\n  java {_show(java)}\n  py   {_show(py)}")
    assert not failures, f"{len(failures)}/{len(from_results)} differ:\n" + "\n".join(failures[:20])


def test_cases_cover_events_errors_and_nulls(from_results: list[tuple[Case, dict[str, Any]]]) -> None:
    """The batch is not vacuous: most cases make a CloudEvent, some make none, some fail."""
    made = sum(1 for _, j in from_results if j.get("bytes"))
    nulls = sum(1 for _, j in from_results if "bytes" in j and j["bytes"] is None)
    errors = sum(1 for _, j in from_results if "error" in j)
    assert made >= 150 and nulls >= 30 and errors >= 40, (made, nulls, errors)


# -- reading CloudEvents back ---------------------------------------------------------------------------------------
_NOT_CLOUD_EVENTS = [
    b'{"a":1,"b":[1,2.5,"x",true],"c":{"d":null}}',
    b"[1,2]",
    b'"text"',
    b"null",
    b'{"id":"x","source":"s","specversion":"1.0"}',
    b'{"id":"x","source":"s","specversion":"1.0","type":"t","data":null}',
    b'{"id":"x","source":"s","specversion":"1.0","type":"t","data":{"a":1}}',
    b'{"id":"x","source":"s","specversion":"1.0","type":"t","data":{"schema":null,"payload":{"a":[1]}}}',
    b'{"id":"x","source":"s","specversion":"1.0","type":"t","data":{"schema":{"type":"int32"}}}',
    b'{"id":"x","source":"s","specversion":"1.0","type":"t"',
]


def _py_to(config: dict[str, str], data: bytes | None) -> dict[str, Any]:
    conv = CloudEventsConverter()
    try:
        conv.configure(config, False)
        value = conv.to_connect_data("srv.public.orders", data).value
    except ConnectError as e:
        return {"error": str(e)}
    assert isinstance(value, dict)
    payload = value.get("data")
    return {
        "entries": [[k, to_tag(None, v)] for k, v in value.items()],
        "dataSchema": _SCHEMAS.as_json_schema(payload.schema) if isinstance(payload, Struct) else None,
    }


def test_to_connect_data_matches_debezium(
    from_results: list[tuple[Case, dict[str, Any]]], debezium_java: RunCases
) -> None:
    inputs: list[tuple[str, dict[str, str], bytes | None]] = []
    for case, java in from_results:
        if java.get("bytes") and not case.headers:
            inputs.append((case.label, case.config, base64.b64decode(java["bytes"])))
    for config in ({}, {"json.schemas.enable": "false"}):
        inputs += [(f"not a CloudEvent {d!r}", config, d) for d in _NOT_CLOUD_EVENTS]
        inputs.append(("no bytes", config, None))
    cases = [
        {"op": "to", "config": c, "data": None if d is None else base64.b64encode(d).decode()} for _, c, d in inputs
    ]
    answers = debezium_java(cases)
    failures = []
    for (label, config, data), java in zip(inputs, answers, strict=True):
        py = _py_to(config, data)
        if not same(java, py):
            failures.append(f"{label} {config} {data!r}:\n  java {java}\n  py   {py}")
    assert not failures, f"{len(failures)}/{len(inputs)} differ:\n" + "\n".join(failures[:20])


# -- configuration ----------------------------------------------------------------------------------------------------
_CONFIG_CASES: list[dict[str, str]] = [
    {"metadata.source": "value,id:header,type:generate,traceparent:header,dataSchemaName:header"},
    {"metadata.source": "generate"},
    {"metadata.source": "value,id:value"},
    {"metadata.source": "value,id:nowhere"},
    {"metadata.source": "value,op:header"},
    {"metadata.source": "value,ID:header"},
    {"metadata.source": "value,id:header:extra"},
    {"metadata.source": "HEADER, id : generate"},
    {"metadata.source": "value,id"},
    {"metadata.source": "bogus"},
    {"extension.attributes.enable": "yes"},
    {"json.schemas.enable": "maybe"},
    {"json.decimal.format": "HEX"},
    {"serializer.type": "avro", "data.serializer.type": "json"},
    {"schema.name.adjustment.mode": "fancy"},
]


def test_configuration_errors_match_debezium(debezium_java: RunCases) -> None:
    """Debezium's ConfigException texts where it raises one; for its NullPointerExceptions and index errors (an
    unknown global source, a part without `:source`, an unknown adjustment mode) a ConfigError of ours."""
    answers = debezium_java([{"op": "configure", "config": c} for c in _CONFIG_CASES])
    failures = []
    for config, java in zip(_CONFIG_CASES, answers, strict=True):
        try:
            CloudEventsConverter().configure(config, False)
            py: dict[str, Any] = {"ok": True}
        except ConnectError as e:
            py = {"error": str(e)}
        ok = ("error" in py) == ("error" in java)
        # JsonConverter's own texts are converters/json.py's concern (its one-of list is in Kafka's HashSet order)
        ours = not any(k.startswith("json.") for k in config)
        if ok and ours and "error" in java and java["class"] in ("ConfigException", "IllegalStateException"):
            ok = py["error"] == java["error"]
        if not ok:
            failures.append(f"{config}:\n  java {java}\n  py   {py}")
    assert not failures, "\n".join(failures)


def test_schemas_and_version_are_debezium_s(debezium_java: RunCases) -> None:
    """The premise of the cases: this worker's PostgreSQL source block and transaction block schemas are
    Debezium's, and the plugin version is the converter's `version()`."""
    (java,) = debezium_java([{"op": "schemas"}])
    assert _SCHEMAS.as_json_schema(SOURCE_SCHEMA) == java["source"]
    assert _SCHEMAS.as_json_schema(TX) == java["tx"]
    assert DEBEZIUM_VERSION == java["version"] == CloudEventsConverter().version()
