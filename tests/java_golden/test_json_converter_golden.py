"""JsonConverter and SimpleHeaderConverter against the real Kafka 4.3.1 classes, byte for byte."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from connect_worker.api.errors import ConnectError
from connect_worker.api.schema import Schema
from converters import json_encoder
from converters.json import JsonConverter
from tests.java_golden.conftest import RunJava
from tests.java_golden.json_cases import CONFIGS, schema_value_cases, to_inputs
from tests.java_golden.tags import to_tag

pytestmark = pytest.mark.java

_SCHEMA_WRITER = JsonConverter()
_SCHEMA_WRITER.configure({}, False)


def _schema_json(schema: Schema | None) -> Any:
    return None if schema is None else json.loads(_SCHEMA_WRITER.as_json_schema(schema))


def _py_from(config: dict[str, str], schema: Schema | None, value: Any) -> dict[str, Any]:
    conv = JsonConverter()
    conv.configure(config, False)
    try:
        out = conv.from_connect_data("topic", schema, value)
    except ConnectError as e:
        return {"error": str(e)}
    return {"bytes": None if out is None else base64.b64encode(out).decode()}


def _py_to(config: dict[str, str], data: bytes | None) -> dict[str, Any]:
    conv = JsonConverter()
    conv.configure(config, False)
    try:
        sv = conv.to_connect_data("topic", data)
    except ConnectError as e:
        return {"error": str(e)}
    return {
        "schema": None if sv.schema is None else _SCHEMA_WRITER.as_json_schema(sv.schema),
        "value": to_tag(sv.schema, sv.value),
    }


def _same_error(java: dict[str, Any], py: dict[str, Any]) -> bool:
    if "error" not in py:
        return False
    # Messages naming Java classes cannot match word for word; the rest must.
    return "class " in java["error"] or java["error"] == py["error"]


def _show(r: dict[str, Any]) -> str:
    if r.get("bytes"):
        return base64.b64decode(r["bytes"]).decode("utf-8", "replace")
    return json.dumps(r, ensure_ascii=False)


@pytest.fixture(scope="module")
def from_results(run_java: RunJava) -> list[tuple[str, dict[str, str], Any, Any, dict[str, Any]]]:
    rows = []
    java_cases = []
    for config in CONFIGS:
        for label, schema, value in schema_value_cases():
            rows.append((label, config, schema, value))
            java_cases.append(
                {"op": "from", "config": config, "schema": _schema_json(schema), "value": to_tag(schema, value)}
            )
    answers = run_java("JsonConverterGolden.java", java_cases)
    return [(*row, ans) for row, ans in zip(rows, answers, strict=True)]


def _jdk17_number_formatting(java: dict[str, Any], py: dict[str, Any]) -> bool:
    """Before JDK 19 Double.toString sometimes printed a longer decimal (1.0E23 as 9.999999999999999E22);
    the Python side follows JDK 19+. Accept a difference that vanishes when numbers are compared as doubles."""
    if not java.get("bytes") or not py.get("bytes"):
        return False
    a = json.loads(base64.b64decode(java["bytes"]), parse_float=float)
    b = json.loads(base64.b64decode(py["bytes"]), parse_float=float)
    return bool(a == b)


@pytest.fixture(params=["c", "python"])
def encoder_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both struct encoders: the C one (converters/_jsonstruct.c, built by the install) and the generated Python."""
    if request.param == "c":
        assert json_encoder._accel is not None, "converters._jsonstruct is not built (pip install -e .)"
    else:
        monkeypatch.setattr(json_encoder, "_accel", None)
    return str(request.param)


@pytest.mark.usefixtures("encoder_path")
def test_from_connect_data_matches_java(from_results: list[Any], jdk_feature: int) -> None:
    failures = []
    for label, config, schema, value, java in from_results:
        py = _py_from(config, schema, value)
        ok = _same_error(java, py) if "error" in java else py == java
        if not ok and jdk_feature < 19 and _jdk17_number_formatting(java, py):
            ok = True
        if not ok:
            failures.append(f"{label} {config}:\n  java {_show(java)}\n  py   {_show(py)}")
    assert not failures, f"{len(failures)}/{len(from_results)} differ:\n" + "\n".join(failures[:30])


def test_to_connect_data_matches_java(from_results: list[Any], run_java: RunJava) -> None:
    inputs: list[tuple[str, dict[str, str], bytes | None]] = []
    for label, config, _schema, _value, java in from_results:
        if java.get("bytes"):
            inputs.append(("roundtrip " + label, config, base64.b64decode(java["bytes"])))
    inputs += to_inputs()
    cases = [
        {"op": "to", "config": c, "data": None if d is None else base64.b64encode(d).decode()} for _, c, d in inputs
    ]
    answers = run_java("JsonConverterGolden.java", cases)
    failures = []
    for (label, config, data), java in zip(inputs, answers, strict=True):
        py = _py_to(config, data)
        ok = _same_error(java, py) if "error" in java else py == java
        if not ok:
            failures.append(f"{label} {config} {data!r}:\n  java {java}\n  py   {py}")
    assert not failures, f"{len(failures)}/{len(inputs)} differ:\n" + "\n".join(failures[:30])
