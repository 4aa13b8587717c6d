"""Avro against the real Java: Debezium 3.6.3 on Kafka Connect 4.3.1 with Apicurio's Java AvroConverter
(2.6.13.Final, Confluent framing, content ids) and this worker with io.confluent.connect.avro.AvroConverter, on the
same database, both registering in the devstack's Apicurio Registry 3.3.3.

Per record, key and value: the registered schema texts must be identical (the run's topic prefix replaced: it is in
every namespace), the Avro bodies must decode to the same datum (volatile fields masked as the JSON suites mask
them) and, where the record holds nothing volatile, be the same bytes; the schema ids must be the registry's ids
for those texts under the record's own `<topic>-key`/`-value` subject.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.differential import cases_pg
from tests.differential.avro_support import (
    AvroPart,
    SchemaRegistry,
    apicurio_avro_converter_config,
    avro_part,
    registry_root,
)
from tests.differential.debezium import ConnectDebezium, mask_payload
from tests.differential.dual import NORMALISED_PREFIX, DualRun, Scenario, _mask_identity_hashes, json_diff, run_dual

pytestmark = [pytest.mark.integration, pytest.mark.debezium, pytest.mark.timeout(900)]

OURS_AVRO = "io.confluent.connect.avro.AvroConverter"


def _ours_config() -> dict[str, str]:
    url = registry_root() + "/apis/ccompat/v7"
    return {
        "key.converter": OURS_AVRO,
        "value.converter": OURS_AVRO,
        "key.converter.schema.registry.url": url,
        "value.converter.schema.registry.url": url,
    }


# Apicurio 3.3.3's Confluent API guesses each schema's type by parsing it after rewriting every `:"{}"` to `:{}`
# (AvroContentAccepter), which turns a string default "{}" into an invalid object default and refuses the schema
# (42201, "Failed to discover artifact type from content"). Debezium registers through Apicurio's own API, which is
# told the type; this worker speaks the Confluent API, so the devstack registry cannot take a jsonb DEFAULT '{}'
# column. A Confluent Schema Registry has no such rewrite. The Avro runs use another JSON default.
APICURIO_CCOMPAT_QUIRK = ("j jsonb DEFAULT '{}'", "j jsonb DEFAULT '[]'")


def _setup(statement: Any) -> Any:
    return statement.replace(*APICURIO_CCOMPAT_QUIRK) if isinstance(statement, str) else statement


def _avro(scenario: Scenario) -> Scenario:
    return Scenario(
        name=scenario.name + "-avro",
        tables=scenario.tables,
        setup=[_setup(s) for s in scenario.setup],
        snapshot_records=scenario.snapshot_records,
        transactions=scenario.transactions,
        config=scenario.config,
        known=scenario.known,
        side_config={"debezium": apicurio_avro_converter_config(), "ours": _ours_config()},
    )


SCENARIOS = {
    s.name: _avro(s)
    for s in cases_pg.SCENARIOS
    if s.name
    in ("types-defaults", "types-double-connect-hex", "types-string-micro-isostring", "keys-toast-ddl-messages")
}


@pytest.fixture(scope="module")
def registry() -> SchemaRegistry:
    return SchemaRegistry()


@pytest.fixture(scope="module", params=sorted(SCENARIOS))
def avro_run(
    request: pytest.FixtureRequest, debezium_connect: ConnectDebezium, our_connect: ConnectDebezium, pg_port: int
) -> Iterator[DualRun]:
    run = run_dual(SCENARIOS[request.param], debezium=debezium_connect, ours=our_connect, pg_port=pg_port)
    yield run


def _jsonable(datum: Any) -> Any:
    if isinstance(datum, dict):
        return {k: _jsonable(v) for k, v in datum.items()}
    if isinstance(datum, list):
        return [_jsonable(v) for v in datum]
    if isinstance(datum, bytes):
        return {"bytes": base64.b64encode(datum).decode()}
    if isinstance(datum, float) and datum != datum:
        return "NaN"
    if isinstance(datum, float) and datum in (float("inf"), float("-inf")):
        return str(datum)
    return datum


def _view(part: AvroPart | None, prefix: str) -> tuple[str | None, Any, Any]:
    """(schema text, datum as JSON data, masked datum) with the run's prefix normalised."""
    if part is None:
        return None, None, None
    text = part.schema.text.replace(prefix, NORMALISED_PREFIX)
    name = json.loads(text).get("connect.name") if text.startswith("{") else None
    raw = json.dumps(_jsonable(part.decode())).replace(prefix, NORMALISED_PREFIX)
    masked = _mask_identity_hashes({"value": {"payload": mask_payload(json.loads(raw), name)}})["value"]
    return text, json.loads(raw), masked


def test_schemas_and_bodies_equal_debezium_with_apicurio(avro_run: DualRun, registry: SchemaRegistry) -> None:
    run = avro_run
    assert run.error is None, run.error
    assert set(run.debezium.topics) == set(run.ours.topics), (sorted(run.debezium.topics), sorted(run.ours.topics))
    problems: list[str] = []
    compared = identical = 0
    for topic in run.topic_names():
        theirs, ours = run.debezium.topics[topic], run.ours.topics[topic]
        if len(theirs) != len(ours):
            problems.append(f"{topic}: {len(theirs)} records from Debezium, {len(ours)} from this worker")
        for i, (t, o) in enumerate(zip(theirs, ours, strict=False)):
            for side in ("key", "value"):
                t_part = avro_part(getattr(t, side), registry)
                o_part = avro_part(getattr(o, side), registry)
                t_text, t_raw, t_datum = _view(t_part, run.debezium.prefix)
                o_text, o_raw, o_datum = _view(o_part, run.ours.prefix)
                where = f"{topic}[{i}] {side}"
                if t_text != o_text:
                    problems.append(f"{where} schema:\n    debezium {t_text}\n    ours     {o_text}")
                    continue
                for d in json_diff(t_datum, o_datum):
                    if not any(k.covers(d) for k in run.scenario.known):
                        problems.append(f"{where} datum {d[0]}: debezium {d[1]!r:.300} ours {d[2]!r:.300}")
                if t_part is None or o_part is None:
                    continue
                compared += 1
                # bodies byte for byte (the prefixes have the same length, so replacing them keeps the bytes
                # aligned): whenever the two datums are equal before masking, the bytes must be too
                t_body = t_part.body.replace(run.debezium.prefix.encode(), b"PFX")
                o_body = o_part.body.replace(run.ours.prefix.encode(), b"PFX")
                if t_body == o_body:
                    identical += 1
                elif json.dumps(t_raw) == json.dumps(o_raw):
                    problems.append(f"{where}: equal datums in different bytes {t_body.hex()} {o_body.hex()}")
                # the id is the registry's id of this text under the record's own subject
                subject = f"{o.topic}-{side}"
                assert registry.lookup(subject, o_part.schema.text)["id"] == o_part.schema_id
    assert not problems, f"{len(problems)} differences:\n" + "\n".join(problems[:40])
    assert compared > 0 and identical > 0
    print(f"{run.scenario.name}: {compared} Avro parts compared, {identical} byte-identical")
