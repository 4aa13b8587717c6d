"""CloudEventsConverter's Avro serializer types against the real registry (Apicurio 3.3.3): a JSON envelope with Avro
data, and an Avro envelope with Avro data, with the registry named by Confluent's key (`avro.schema.registry.url`,
the registry's Confluent API) or by Apicurio's (`avro.apicurio.registry.url`, its own API). What was registered, the
`dataschema` attribute's id, and reading the events back (tests/java_golden/test_cloudevents_avro_golden.py compares
the bytes with Debezium's own converter)."""

from __future__ import annotations

import base64
import json
import urllib.parse
import urllib.request
from decimal import Decimal
from typing import Any

import pytest

from connect_worker.api.converter import PendingIO
from connect_worker.api.errors import DataError, RetriableError
from connect_worker.api.schema import (
    INT32_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    decimal_schema,
    struct_schema,
)
from connect_worker.api.struct import Struct
from connectors.postgres.source_info import SOURCE_SCHEMA, SourceInfo
from connectors.relational.metadata_schemas import EVENT_BLOCK_SCHEMA, event_block
from converters.avro import AvroConverter, convert_blocking
from converters.cloudevents import CloudEventsConverter

pytestmark = pytest.mark.integration

ROW = struct_schema(
    [("id", INT32_SCHEMA), ("name", OPTIONAL_STRING_SCHEMA), ("price", decimal_schema(2, optional=True))],
    name="srv.public.t.Value",
    optional=True,
)
ENV = struct_schema(
    [
        ("before", ROW),
        ("after", ROW),
        ("source", SOURCE_SCHEMA),
        ("transaction", EVENT_BLOCK_SCHEMA),
        ("op", STRING_SCHEMA),
        ("ts_ms", OPTIONAL_INT64_SCHEMA),
    ],
    name="srv.public.t.Envelope",
    version=2,
)


def update(name: str = "b") -> Struct:
    src = SourceInfo("srv", "inventory").struct(
        ts_us=1_700_000_000_123_456, schema="public", table="t", tx_id=555, lsn=1234, last_commit_lsn=1200
    )
    return Struct(
        ENV,
        {
            "before": Struct(ROW, {"id": 1, "name": "a", "price": Decimal("1.50")}),
            "after": Struct(ROW, {"id": 1, "name": name, "price": None}),
            "source": src,
            "transaction": event_block("555:1234", 2, 1),
            "op": "u",
            "ts_ms": 1_700_000_000_200,
        },
    )


# -- the registry --------------------------------------------------------------------------------------------------
def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as resp:
        return json.loads(resp.read())


def _latest(registry_url: str, subject: str) -> dict[str, Any]:
    """The subject's latest version: {"subject", "version", "id", "schema"} (Confluent API)."""
    return dict(_get(f"{registry_url}/subjects/{urllib.parse.quote(subject, safe='')}/versions/latest"))


@pytest.fixture(params=["confluent", "apicurio"])
def registry_keys(request: pytest.FixtureRequest, registry_url: str) -> dict[str, str]:
    """The `avro.*` keys naming the registry: Confluent's converter on its Confluent API, or Apicurio's on its own
    API (writing Confluent framing with content ids, the ids of the Confluent API)."""
    if request.param == "confluent":
        return {"avro.schema.registry.url": registry_url}
    return {
        "avro.apicurio.registry.url": registry_url.replace("/apis/ccompat/v7", "/apis/registry/v2"),
        "avro.apicurio.registry.auto-register": "true",
        "avro.apicurio.registry.as-confluent": "true",
        "avro.apicurio.registry.use-id": "contentId",
        "avro.apicurio.registry.headers.enabled": "false",
    }


def _url(keys: dict[str, str]) -> str:
    return keys.get("avro.apicurio.registry.url") or keys["avro.schema.registry.url"]


def _converter(config: dict[str, str], is_key: bool = False) -> CloudEventsConverter:
    c = CloudEventsConverter()
    c.configure(config, is_key)
    return c


def _write(c: CloudEventsConverter, topic: str, value: Struct) -> bytes:
    out = convert_blocking(c, topic, ENV, value)
    assert out is not None
    return out


def _schema_id(framed: bytes) -> int:
    assert framed[:1] == b"\0"
    return int.from_bytes(framed[1:5], "big")


# -- json envelope, avro data ---------------------------------------------------------------------------------------
def test_json_envelope_with_avro_data(registry_url: str, registry_keys: dict[str, str], unique_name: str) -> None:
    topic = unique_name
    c = _converter({"serializer.type": "json", "data.serializer.type": "avro", **registry_keys})
    ce = json.loads(_write(c, topic, update()))
    assert list(ce)[4:8] == ["time", "datacontenttype", "dataschema", "iodebeziumop"]
    assert (ce["datacontenttype"], ce["iodebeziumlsn"]) == ("application/avro", "1234")
    data = base64.b64decode(ce["data"])
    # the data is written under the record's topic as a value; `dataschema` names its registered schema
    registered = _latest(registry_url, f"{topic}-value")
    assert _schema_id(data) == registered["id"]
    assert ce["dataschema"] == f"{_url(registry_keys)}/schemas/ids/{registered['id']}"
    assert json.loads(registered["schema"])["name"] == "Data"
    reader = AvroConverter()
    reader.configure({"schema.registry.url": registry_url}, False)
    read = reader.to_connect_data(topic, data)
    assert read.schema is not None and read.schema.name == "io.debezium.connector.postgresql.Data"
    assert read.value.get("after").as_dict() == {"id": 1, "name": "b", "price": None}
    # read back as Debezium reads it: the envelope's attributes, and `data` null (it reads text, not bytes)
    back = c.to_connect_data(topic, json.dumps(ce).encode())
    assert back.schema is None and back.value["data"] is None
    assert {k: v for k, v in back.value.items() if k != "data"} == {k: v for k, v in ce.items() if k != "data"}


def test_the_confluent_api_s_dataschema_resolves_to_the_data_s_schema(registry_url: str, unique_name: str) -> None:
    c = _converter({"data.serializer.type": "avro", "avro.schema.registry.url": registry_url})
    ce = json.loads(_write(c, unique_name, update()))
    assert _get(ce["dataschema"])["schema"] == _latest(registry_url, f"{unique_name}-value")["schema"]


# -- avro envelope, avro data ---------------------------------------------------------------------------------------
def test_avro_envelope_with_avro_data(registry_url: str, registry_keys: dict[str, str], unique_name: str) -> None:
    topic = unique_name
    c = _converter({"serializer.type": "avro", "data.serializer.type": "avro", **registry_keys})
    out = _write(c, topic, update())
    envelope, data = _latest(registry_url, f"{topic}-value"), _latest(registry_url, f"{topic}-data-value")
    assert _schema_id(out) == envelope["id"]
    avro = json.loads(envelope["schema"])
    assert (avro["namespace"], avro["name"]) == ("srv.inventory.CloudEvents", "Envelope")
    names = [f["name"] for f in avro["fields"]]
    assert names[5:7] == ["datacontenttype", "dataschema"] and names[-1] == "data"
    assert [f["type"] for f in avro["fields"]][-1] == "bytes"
    assert json.loads(data["schema"])["name"] == "Data"
    # round trip: the envelope's attributes, `dataschema` naming the data's schema, and the data as it was
    back = c.to_connect_data(topic, out)
    assert back.schema is not None and back.schema.name == "srv.inventory.CloudEvents.Envelope"
    ce = back.value
    assert isinstance(ce, Struct)
    assert (ce.get("datacontenttype"), ce.get("iodebeziumop"), ce.get("iodebeziumtxid")) == (
        "application/avro",
        "u",
        "555:1234",
    )
    assert ce.get("dataschema") == f"{_url(registry_keys)}/schemas/ids/{data['id']}"
    payload = ce.get("data")
    assert isinstance(payload, Struct) and back.schema.field("data").schema == payload.schema  # type: ignore[union-attr]
    assert payload.schema.name == "io.debezium.connector.postgresql.Data"
    expected = update()
    for side in ("before", "after"):
        assert payload.get(side).as_dict() == expected.get(side).as_dict()


def test_events_of_one_table_share_their_schemas(registry_url: str, unique_name: str) -> None:
    c = _converter(
        {"serializer.type": "avro", "data.serializer.type": "avro", "avro.schema.registry.url": registry_url}
    )
    first, second = _write(c, unique_name, update("b")), _write(c, unique_name, update("c"))
    assert first[:5] == second[:5] and first != second
    for subject in (f"{unique_name}-value", f"{unique_name}-data-value"):
        assert _get(f"{registry_url}/subjects/{subject}/versions") == [1]
    # the same converter on the key side still writes values' subjects, as Debezium configures its Avro converter
    key_side = _converter(
        {"serializer.type": "avro", "data.serializer.type": "avro", "avro.schema.registry.url": registry_url}, True
    )
    assert _write(key_side, unique_name, update("b")) == first


# -- the worker's side of a registry call ---------------------------------------------------------------------------
def test_registry_calls_are_pending_io_and_converting_again_is_safe(registry_url: str, unique_name: str) -> None:
    c = _converter(
        {"serializer.type": "avro", "data.serializer.type": "avro", "avro.schema.registry.url": registry_url}
    )
    pending = []
    while True:
        try:
            out = c.from_connect_data(unique_name, ENV, update())
            break
        except PendingIO as p:
            pending.append(str(p))
            p.work()
    assert pending == [f"schema id for subject {unique_name}-data-value", f"schema id for subject {unique_name}-value"]
    assert c.from_connect_data(unique_name, ENV, update()) == out  # cached now: no call pending


def test_an_unreachable_registry_is_retriable(unique_name: str) -> None:
    c = _converter({"data.serializer.type": "avro", "avro.schema.registry.url": "http://127.0.0.1:1"})
    with pytest.raises(PendingIO) as pending:
        c.from_connect_data(unique_name, ENV, update())
    with pytest.raises(RetriableError, match=r"127.0.0.1:1"):
        pending.value.work()


def test_the_avro_converter_s_refusal_comes_through(registry_url: str, unique_name: str) -> None:
    """A schema Avro cannot hold: the Avro converter's DataError, as it gives it (no value Debezium's Struct puts
    would refuse is behind it)."""
    odd = struct_schema([("a-b", INT32_SCHEMA)], name="srv.public.t.Value", optional=True)
    fields = [(f.name, odd if f.name in ("before", "after") else f.schema) for f in ENV.fields]
    env = ENV.with_(fields=fields)
    c = _converter({"data.serializer.type": "avro", "avro.schema.registry.url": registry_url})
    value = Struct.of(env, (None, Struct(odd, {"a-b": 1}), *update().values[2:]))
    with pytest.raises(DataError, match=r"a-b"):
        convert_blocking(c, unique_name, env, value)
