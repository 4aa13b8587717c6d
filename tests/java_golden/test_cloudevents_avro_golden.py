"""CloudEventsConverter's Avro serializer types against the real Debezium 3.6.3 converter with real Avro, byte for byte.

The Java side is io.debezium.converters.CloudEventsConverter with Apicurio's Java AvroConverter (2.6.13) on the
classpath (tests/java/CloudEventsGolden.java): configured with `avro.apicurio.registry.url` it instantiates that
converter itself and registers in the devstack's registry (Apicurio 3.3.3), written in Confluent framing with
content ids. Our side is ApicurioAvroConverter with the same `avro.*` keys, registering in the same registry.

Every case has a topic of its own (so subjects never meet across cases); the Java and the Python side of one case
use the same topic, so the same subject and the same content ids: the bytes, ids and `dataschema` URLs included,
must be equal without masking anything. The registry answers a text that differs only in layout with the version it
has, so the schema texts are compared apart: our side registers first under topics of its own, and its subjects must
hold Debezium's texts. Reading back compares what both converters read from Debezium's bytes.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import re
import subprocess
import urllib.parse
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest

from connect_worker.api.converter import PendingIO
from connect_worker.api.errors import ConnectError
from connect_worker.api.record import Header
from connect_worker.api.schema import INT32_SCHEMA, Schema, struct_schema
from connect_worker.api.struct import Struct
from converters.cloudevents import CloudEventsConverter
from converters.cloudevents_writers import registry_converter
from converters.json import JsonConverter
from tests import names
from tests.java_golden.tags import to_tag
from tests.java_golden.test_cloudevents_golden import (
    DBZ,
    ENV,
    PLUGIN,
    PROGRAM,
    event,
    header_cases,
    records,
    row,
)

pytestmark = [pytest.mark.java, pytest.mark.integration]

APICURIO_JARS = DBZ / "plugins" / "apicurio-converter"
RunCases = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]

_SCHEMAS = JsonConverter()
_SCHEMAS.configure({}, False)
_JVM_ERRORS = frozenset(("NullPointerException", "ClassCastException", "ArrayIndexOutOfBoundsException"))
# a byte array in a message: Java prints its identity hash, or a ByteBuffer's position and limit (Apicurio reads bytes
# as ByteBuffers), and no two runs agree on the one
_BYTES_TEXT = re.compile(r"\[B@[0-9a-f]+|java\.nio\.HeapByteBuffer\[pos=\d+ lim=\d+ cap=\d+\]")


@pytest.fixture(scope="module")
def debezium_apicurio(java_bin: str) -> RunCases:
    if not (PLUGIN / "debezium-connector-postgres-3.6.3.Final.jar").exists() or not APICURIO_JARS.exists():
        from tests.differential.debezium import ConnectDebezium

        ConnectDebezium.fetch()
    # no classpath conflict: Apicurio's jars (its converter, serde and REST client, Avro 1.12, Jackson YAML, commons)
    # hold no class any Connect or Debezium jar holds, and run on Connect's Jackson 2.21 (they were built for 2.18)
    classpath = f"{DBZ / 'connect-libs'}/*:{PLUGIN}/*:{APICURIO_JARS}/*"

    def run(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
        stdin = "".join(json.dumps(c, ensure_ascii=True) + "\n" for c in cases)
        proc = subprocess.run(
            [java_bin, "-cp", classpath, str(PROGRAM)], input=stdin.encode(), capture_output=True, timeout=600
        )
        assert proc.returncode == 0, proc.stderr.decode(errors="replace")
        answers = [json.loads(x) for x in proc.stdout.decode("utf-8").splitlines() if x.strip()]
        assert len(answers) == len(cases), proc.stderr.decode(errors="replace")
        return answers

    return run


@pytest.fixture(scope="module")
def avro_keys(registry_url: str) -> dict[str, str]:
    """Apicurio's converter writing Confluent framing with content ids, registering as it goes."""
    apicurio = registry_url.replace("/apis/ccompat/v7", "/apis/registry/v2")
    return {
        "avro.apicurio.registry.url": apicurio,
        "avro.apicurio.registry.auto-register": "true",
        "avro.apicurio.registry.as-confluent": "true",
        "avro.apicurio.registry.use-id": "contentId",
        "avro.apicurio.registry.headers.enabled": "false",
    }


JSON_AVRO = {"serializer.type": "json", "data.serializer.type": "avro"}
AVRO_AVRO = {"serializer.type": "avro", "data.serializer.type": "avro"}
CONFIGS: list[dict[str, str]] = [
    JSON_AVRO,
    {**JSON_AVRO, "extension.attributes.enable": "false"},
    AVRO_AVRO,
    {
        **AVRO_AVRO,
        "extension.attributes.enable": "false",
        "schema.cloudevents.name": "my.CloudEvents",
        "schema.name.adjustment.mode": "none",
    },
    {"serializer.type": "AVRO", "data.serializer.type": "Avro", "schema.name.adjustment.mode": "avro_unicode"},
]


# -- running both sides ---------------------------------------------------------------------------------------------
def convert(
    conv: CloudEventsConverter, topic: str, schema: Schema | None, value: Any, headers: tuple[Header, ...]
) -> Any:
    """from_connect_data as the worker runs it: a pending registry call is run, then the record converted again."""
    for _ in range(4):
        try:
            return conv.from_connect_data(topic, schema, value, headers)
        except PendingIO as pending:
            pending.work()
    raise AssertionError("still pending after 4 registry calls")


@dataclasses.dataclass(frozen=True)
class Case:
    label: str
    config: dict[str, str]
    schema: Schema | None
    value: Any
    topic: str
    headers: tuple[Header, ...] = ()
    is_key: bool = False

    def java(self) -> dict[str, Any]:
        return {
            "op": "from",
            "config": self.config,
            "isKey": self.is_key,
            "topic": self.topic,
            "schema": _schema_json(self.schema),
            "value": to_tag(self.schema, self.value),
            "headers": [
                {"key": h.key, "schema": _schema_json(h.schema), "value": to_tag(h.schema, h.value)}
                for h in self.headers
            ],
        }

    def python(self) -> dict[str, Any]:
        conv = CloudEventsConverter()
        try:
            conv.configure(self.config, self.is_key)
            out = convert(conv, self.topic, self.schema, self.value, self.headers)
        except ConnectError as e:
            return {"error": str(e)}
        return {"bytes": None if out is None else base64.b64encode(out).decode()}


def _schema_json(schema: Schema | None) -> Any:
    return None if schema is None else json.loads(_SCHEMAS.as_json_schema(schema))


def same(java: dict[str, Any], py: dict[str, Any]) -> bool:
    if "error" not in java:
        return py == java
    if "error" not in py:
        return False
    if java["class"] in _JVM_ERRORS or "Invalid Java object" in java["error"]:
        return True  # the JVM's own wording, or a message naming Java classes
    return bool(_BYTES_TEXT.sub("<bytes>", java["error"]) == _BYTES_TEXT.sub("<bytes>", py["error"]))


def _diff(java: dict[str, Any], py: dict[str, Any]) -> str:
    """Where two answers part: the first differing key, with both values from the first differing character."""
    for key in sorted((java.keys() | py.keys()) - {"class"}):
        a, b = json.dumps(java.get(key), ensure_ascii=False), json.dumps(py.get(key), ensure_ascii=False)
        if a != b:
            at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
            start = max(0, at - 80)
            return f"{key} at {at}:\n  java ...{a[start : at + 300]}\n  py   ...{b[start : at + 300]}"
    return "same"


def all_cases(keys: dict[str, str]) -> list[Case]:
    run = names.unique("ce", 10)
    topics = (f"{run}.{i}" for i in range(100_000))
    cases = [
        Case(f"{label} {config}", {**config, **keys}, s, v, next(topics))
        for n, config in enumerate(CONFIGS)
        for label, s, v in records()
        if n < 3 or not label.startswith("ts_ms")  # the times once per serializer pair and a variant
    ]
    for label, config, s, v, hs in header_cases():
        cases.append(Case(f"{label} (avro/avro)", {**config, **AVRO_AVRO, **keys}, s, v, next(topics), hs))
    key_schema = struct_schema([("id", INT32_SCHEMA)], name="srv.public.orders.Key")
    for config in (JSON_AVRO, AVRO_AVRO):
        both = {**config, **keys}
        cases.append(Case(f"key side {config}", both, key_schema, Struct(key_schema, {"id": 1}), next(topics)))
        cases.append(
            Case(f"envelope on the key side {config}", both, ENV, event("c", None, row()), next(topics), (), True)
        )
    return cases


@pytest.fixture(scope="module")
def from_results(debezium_apicurio: RunCases, avro_keys: dict[str, str]) -> list[tuple[Case, dict[str, Any]]]:
    cases = all_cases(avro_keys)
    answers = debezium_apicurio([c.java() for c in cases])
    return list(zip(cases, answers, strict=True))


def test_from_connect_data_matches_debezium_with_apicurio(from_results: list[tuple[Case, dict[str, Any]]]) -> None:
    failures = []
    for case, java in from_results:
        py = case.python()
        if not same(java, py):
            failures.append(f"{case.label} [{case.topic}]: {_diff(java, py)}")
    assert not failures, f"{len(failures)}/{len(from_results)} differ:\n" + "\n".join(failures[:15])


def test_cases_cover_both_serializer_pairs_errors_and_nulls(from_results: list[tuple[Case, dict[str, Any]]]) -> None:
    made = {
        (c.config["serializer.type"].lower(), c.config["data.serializer.type"].lower())
        for c, j in from_results
        if j.get("bytes")
    }
    assert made == {("json", "avro"), ("avro", "avro")}
    avro_envelopes = sum(1 for c, j in from_results if j.get("bytes") and base64.b64decode(j["bytes"])[:1] == b"\0")
    nulls = sum(1 for _, j in from_results if "bytes" in j and j["bytes"] is None)
    errors = sum(1 for _, j in from_results if "error" in j)
    assert avro_envelopes >= 50 and nulls >= 15 and errors >= 30, (avro_envelopes, nulls, errors)


def test_dataschema_names_the_data_s_registered_schema(
    from_results: list[tuple[Case, dict[str, Any]]], avro_keys: dict[str, str]
) -> None:
    """The premise of equal bytes: each `dataschema` is `<apicurio url>/schemas/ids/<id>` with the id the data's
    Confluent framing carries (for a JSON envelope, checked on Debezium's own bytes)."""
    base = avro_keys["avro.apicurio.registry.url"] + "/schemas/ids/"
    checked = 0
    for case, java in from_results:
        if case.config["serializer.type"] != "json" or not java.get("bytes"):
            continue
        ce = json.loads(base64.b64decode(java["bytes"]))
        data = base64.b64decode(ce["data"])
        assert ce["dataschema"] == base + str(int.from_bytes(data[1:5], "big")), case.label
        assert list(ce)[5:7] == ["datacontenttype", "dataschema"] and ce["datacontenttype"] == "application/avro"
        checked += 1
    assert checked >= 20


def _registered(registry_url: str, subject: str) -> list[str]:
    """The schema texts of a subject's versions, oldest first."""
    base = f"{registry_url}/subjects/{urllib.parse.quote(subject, safe='')}/versions"
    with urllib.request.urlopen(base, timeout=10) as resp:
        versions = json.loads(resp.read())
    texts = []
    for v in versions:
        with urllib.request.urlopen(f"{base}/{v}", timeout=10) as resp:
            texts.append(json.loads(resp.read())["schema"])
    return texts


def test_schema_texts_are_debezium_s(from_results: list[tuple[Case, dict[str, Any]]], registry_url: str) -> None:
    """The registry takes a text differing only in layout as the version it has (same id), so equal bytes alone do not
    show equal texts: our side writes one event per configuration under a topic of its own, registering first, and
    its subjects must hold exactly the texts Debezium's hold."""
    seen: set[str] = set()
    checked = 0
    for case, java in from_results:
        key = json.dumps(case.config, sort_keys=True) + str(bool(case.headers))
        if not java.get("bytes") or key in seen or case.is_key:
            continue
        seen.add(key)
        ours = dataclasses.replace(case, topic=case.topic + "-py")
        assert ours.python() == java, case.label  # the same ids: the same content
        suffixes = ["-value"] if case.config["serializer.type"] == "json" else ["-value", "-data-value"]
        for suffix in suffixes:
            theirs = _registered(registry_url, case.topic + suffix)
            assert _registered(registry_url, ours.topic + suffix) == theirs and len(theirs) == 1, (case.label, suffix)
            checked += 1
    assert checked >= 8


# -- reading back ----------------------------------------------------------------------------------------------------
def _py_to(config: dict[str, str], topic: str, data: bytes | None) -> dict[str, Any]:
    conv = CloudEventsConverter()
    try:
        conv.configure(config, False)
        read = conv.to_connect_data(topic, data)
    except ConnectError as e:
        return {"error": str(e)}
    value = read.value
    out: dict[str, Any] = {}
    if isinstance(value, Struct):
        assert read.schema is not None
        out["entries"] = [[f.name, to_tag(f.schema, v)] for f, v in zip(value.schema.fields, value.values, strict=True)]
        out["schema"] = _SCHEMAS.as_json_schema(read.schema)
        payload = value.get("data")
    else:
        assert isinstance(value, dict)
        out["entries"] = [[k, to_tag(None, v)] for k, v in value.items()]
        payload = value.get("data")
    out["dataSchema"] = _SCHEMAS.as_json_schema(payload.schema) if isinstance(payload, Struct) else None
    return out


def test_to_connect_data_matches_debezium_with_apicurio(
    from_results: list[tuple[Case, dict[str, Any]]], debezium_apicurio: RunCases
) -> None:
    inputs: list[tuple[str, dict[str, str], str, bytes | None]] = []
    for case, java in from_results:
        if java.get("bytes") and not case.is_key:
            inputs.append((case.label, case.config, case.topic, base64.b64decode(java["bytes"])))
    some = next(c for c, j in from_results if j.get("bytes") and c.config["serializer.type"] == "avro")
    config, topic = some.config, some.topic
    inputs.append(("no bytes (avro/avro)", config, topic, None))
    inputs.append(("no bytes (json/avro)", {**config, "serializer.type": "json"}, topic, None))
    # an Avro record that is not a CloudEvent: the data of an Avro one, read as an envelope under its own topic
    inputs.append(("the data read as an envelope", config, topic + "-data", _avro_data_of(some, from_results)))
    cases = [
        {"op": "to", "config": c, "topic": t, "data": None if d is None else base64.b64encode(d).decode()}
        for _, c, t, d in inputs
    ]
    answers = debezium_apicurio(cases)
    failures = []
    for (label, config, topic, data), java in zip(inputs, answers, strict=True):
        py = _py_to(config, topic, data)
        if not same(java, py):
            failures.append(f"{label} [{topic}]: {_diff(java, py)}")
    assert not failures, f"{len(failures)}/{len(inputs)} differ:\n" + "\n".join(failures[:15])


def _avro_data_of(case: Case, from_results: list[tuple[Case, dict[str, Any]]]) -> bytes:
    """The `data` bytes of the Avro CloudEvent Debezium wrote for the case."""
    java = {c.topic: j for c, j in from_results}[case.topic]
    avro, _ = registry_converter({k.removeprefix("avro."): v for k, v in case.config.items() if k.startswith("avro.")})
    envelope = avro.to_connect_data(case.topic, base64.b64decode(java["bytes"])).value
    assert isinstance(envelope, Struct)
    data: bytes = envelope.get("data")
    return data


# -- configuration ----------------------------------------------------------------------------------------------------
def test_registry_configuration_errors_match_debezium(debezium_apicurio: RunCases) -> None:
    configs: list[dict[str, str]] = [
        AVRO_AVRO,
        JSON_AVRO,
        {**JSON_AVRO, "avro.schema.registry.url": ","},
        {**AVRO_AVRO, "avro.apicurio.registry.url": ",,"},
        {**AVRO_AVRO, "schema.registry.url": "http://127.0.0.1:1"},  # not an avro.* key
        {"serializer.type": "avro", "avro.schema.registry.url": "http://127.0.0.1:1"},
    ]
    answers = debezium_apicurio([{"op": "configure", "config": c} for c in configs])
    failures = []
    for config, java in zip(configs, answers, strict=True):
        try:
            CloudEventsConverter().configure(config, False)
            py: dict[str, Any] = {"ok": True}
        except ConnectError as e:
            py = {"error": str(e)}
        if not ("error" in java and "error" in py and java["error"] == py["error"]):
            failures.append(f"{config}:\n  java {java}\n  py   {py}")
    assert not failures, "\n".join(failures)
