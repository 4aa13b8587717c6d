"""The bodies, golden captures and field-by-field comparison of the plugin config REST answers:
`GET /connector-plugins/{p}/config` (ConfigKeyInfo list) and `PUT /connector-plugins/{p}/config/validate`
(ConfigInfos), ours against the REAL Kafka Connect 4.3.1 + Debezium 3.6.3.Final.

Compared: everything but `documentation` (ours is written in our own words) and the `recommended_values` of the
plugin-class keys (`key/value/header.converter`, `transforms.<a>.type`, `predicates.<p>.type`): Connect lists
every plugin of that kind it has installed, we list ours; for those the check is that ours are exactly our
installed plugins of that kind, in Connect's order (sorted by class name), and that each is one Connect lists too.

Regenerate the goldens (documentation left out) from a real worker:

    make up
    .venv/bin/python -m tests.differential.config_infos [--kafka 127.0.0.1:9092] [--pg-port 5433]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from connect_worker.api import PluginType
from connect_worker.runtime.plugins import PluginRegistry
from tests.differential.debezium import ConnectDebezium, postgres_connector_config

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
CONFIG_DEFS_GOLDEN = GOLDEN_DIR / "pg_config_defs.json"
VALIDATE_GOLDEN = GOLDEN_DIR / "pg_validate.json"

PLUGIN = "io.debezium.connector.postgresql.PostgresConnector"
CONFIG_PATH = f"/connector-plugins/{PLUGIN}/config"
VALIDATE_PATH = "/connector-plugins/PostgresConnector/config/validate"


_PLUGIN_CLASS_KEYS: tuple[tuple[re.Pattern[str], PluginType], ...] = (
    (re.compile(r"(key|value)\.converter"), PluginType.CONVERTER),
    (re.compile(r"header\.converter"), PluginType.HEADER_CONVERTER),
    (re.compile(r"transforms\.[^.]*\.type"), PluginType.TRANSFORMATION),
    (re.compile(r"predicates\.[^.]*\.type"), PluginType.PREDICATE),
)


def plugin_class_kind(name: str) -> PluginType | None:
    for pattern, kind in _PLUGIN_CLASS_KEYS:
        if pattern.fullmatch(name):
            return kind
    return None


def installed_plugins(registry: PluginRegistry | None = None) -> dict[PluginType, list[str]]:
    """Our installed plugins per kind, sorted by class name (the order Connect recommends them in)."""
    registry = registry or PluginRegistry.from_entry_points()
    return {kind: sorted(registry.classes(kind)) for kind in PluginType}


# -- the bodies ---------------------------------------------------------------------------------------------------
def _base(pg_port: int, **extra: str) -> dict[str, str]:
    config = postgres_connector_config(
        prefix="vx", dbname="postgres", slot="vx", publication="vx", tables=["public.t"], pg_port=pg_port
    )
    config.update(extra)
    return config


# A bad slot name fails the connector's own checks, so neither side connects to PostgreSQL for these bodies:
# their answers do not depend on the database (the golden ones are checked without services).
BAD_SLOT = {"slot.name": "Bad-Slot"}


def validate_cases(pg_port: int = 5433) -> dict[str, dict[str, str]]:
    """Named validate bodies: each exercises a part of the answer (see the names)."""
    return {
        "transforms_predicates_converters": _base(
            pg_port,
            **BAD_SLOT,
            **{
                "transforms": "unwrap,route",
                "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
                "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
                "transforms.route.regex": "(.*)",
                "transforms.route.replacement": "x$1",
                "transforms.route.predicate": "istopic",
                "predicates": "istopic",
                "predicates.istopic.type": "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
                "predicates.istopic.pattern": "vx.*",
                "unknown.key": "1",
            },
        ),
        "plugin_key_errors": _base(
            pg_port,
            name="pv",
            **BAD_SLOT,
            **{
                "transforms": "t,u",
                "transforms.t.type": "org.apache.kafka.connect.transforms.TimestampConverter$Value",
                "transforms.t.unix.precision": "bogus",
                "transforms.t.predicate": "h",
                "transforms.t.negate": "true",
                "transforms.u.type": "io.debezium.transforms.ExtractNewRecordState",
                "transforms.u.delete.tombstone.handling.mode": "bogus",
                "transforms.u.add.fields": "op, source.ts_ms",
                "predicates": "h,r",
                "predicates.h.type": "HasHeaderKey",
                "predicates.r.type": "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone",
                "predicates.r.plugin.version": "4.3.1",
                "header.converter": "JsonConverter",
                "header.converter.schemas.enable": "maybe",
            },
        ),
        "aliases_and_versions": _base(
            pg_port,
            name="pv",
            **BAD_SLOT,
            **{
                "transforms": "a,b,c",
                "transforms.a.type": "NoSuch",
                "transforms.b.type": "RegexRouter",
                "transforms.b.regex": "x",
                "transforms.b.replacement": "y",
                "transforms.b.negate": "maybe",
                "transforms.b.predicate": "nope",
                "transforms.c.type": "org.apache.kafka.connect.transforms.RegexRouter",
                "transforms.c.plugin.version": "9.9",
                "key.converter": "StringConverter",
                "key.converter.plugin.version": "1.0",
                "value.converter.plugin.version": "[4.0,5.0)",
            },
        ),
        "framework_errors": _base(
            pg_port,
            name="",
            **BAD_SLOT,
            **{
                "tasks.max": "abc",
                "tasks.max.enforce": "maybe",
                "errors.tolerance": "ALL",
                "config.action.reload": "bogus",
                "exactly.once.support": "REQUIRED",
                "transaction.boundary": "bogus",
                "offsets.storage.topic": "",
                "transforms": "a, a",
                "transforms.a.type": "RegexRouter",
                "transforms.a.regex": "x",
                "transforms.a.replacement": "y",
                "predicates": "p,",
                "predicates.p.type": "TopicNameMatches",
                "predicates.p.pattern": "vx.*",
                "key.converter": "NoSuchConv",
            },
        ),
    }


# Not here: a connector.plugin.version no installed version matches. Connect 4.3.1 answers it with ConnectorConfig's
# keys only the first time, then (the failed version cached) with a 500 NullPointerException; the unit tests check
# the first answer's shape instead.


def live_only_cases(pg_port: int) -> dict[str, dict[str, str]]:
    """Bodies whose answer needs the database (Debezium connects when the config itself is sound)."""
    return {"sound_config": _base(pg_port, name="pv")}


# -- comparison ---------------------------------------------------------------------------------------------------
def without_documentation(answer: Any) -> Any:
    """A ConfigKeyInfo list or ConfigInfos answer with every `documentation` left out."""
    if isinstance(answer, list):
        return [without_documentation(a) for a in answer]
    if isinstance(answer, dict):
        return {k: without_documentation(v) for k, v in answer.items() if k != "documentation"}
    return answer


def _entry_name(info: Mapping[str, Any]) -> str:
    definition = info.get("definition")
    return str(definition["name"]) if definition else "(undefined) " + str(info["value"]["name"])


def _diff_fields(where: str, expected: Mapping[str, Any], actual: Mapping[str, Any], skip: frozenset[str]) -> list[str]:
    out = []
    for field in sorted(set(expected) | set(actual)):
        if field == "documentation" or field in skip:
            continue
        if expected.get(field, "<absent>") != actual.get(field, "<absent>"):
            out.append(
                f"{where}.{field}: expected {expected.get(field, '<absent>')!r}, ours {actual.get(field, '<absent>')!r}"
            )
    return out


def diff_config_defs(expected: Sequence[Mapping[str, Any]], actual: Sequence[Mapping[str, Any]]) -> list[str]:
    """Differences between two ConfigKeyInfo lists (order, then every field but documentation)."""
    out = []
    names_e, names_a = [k["name"] for k in expected], [k["name"] for k in actual]
    if names_e != names_a:
        out.append(f"key names/order: expected {names_e}, ours {names_a}")
    ours = {k["name"]: k for k in actual}
    for key in expected:
        if key["name"] in ours:
            out += _diff_fields(key["name"], key, ours[key["name"]], frozenset())
    return out


def diff_validate(
    expected: Mapping[str, Any],
    actual: Mapping[str, Any],
    installed: Mapping[PluginType, list[str]],
) -> list[str]:
    """Differences between two ConfigInfos answers (documentation aside; plugin-class keys recommend our
    installed plugins)."""
    out = []
    for field in ("name", "error_count", "groups"):
        if expected.get(field) != actual.get(field):
            out.append(f"{field}: expected {expected.get(field)!r}, ours {actual.get(field)!r}")
    entries_e = [_entry_name(c) for c in expected["configs"]]
    entries_a = [_entry_name(c) for c in actual["configs"]]
    if entries_e != entries_a:
        out.append(f"config entries/order: expected {entries_e}, ours {entries_a}")
    ours = {_entry_name(c): c for c in actual["configs"]}
    for info in expected["configs"]:
        name = _entry_name(info)
        mine = ours.get(name)
        if mine is None:
            continue
        definition_e, definition_a = info["definition"], mine["definition"]
        if (definition_e is None) != (definition_a is None):
            out.append(f"{name}.definition: expected {definition_e!r}, ours {definition_a!r}")
        elif definition_e is not None:
            out += _diff_fields(name + ".definition", definition_e, definition_a, frozenset())
        skip: frozenset[str] = frozenset()
        kind = plugin_class_kind(name) if definition_e is not None else None
        if kind is not None:
            skip = frozenset({"recommended_values"})
            theirs, recommended = info["value"]["recommended_values"], mine["value"]["recommended_values"]
            if recommended != installed[kind]:
                out.append(f"{name}.value.recommended_values: ours {recommended}, installed {installed[kind]}")
            # Connect lists its installed plugins, we ours: those both have in the same (sorted) order, and ours
            # (which may include plugins the Java side lacks, e.g. YugabyteDB's transform) sorted the same way
            shared = [c for c in recommended if c in set(theirs)]
            if (
                theirs != sorted(theirs)
                or recommended != sorted(recommended)
                or shared != [c for c in theirs if c in set(recommended)]
            ):
                out.append(f"{name}.value.recommended_values: ours {recommended} not in Connect's order {theirs}")
        out += _diff_fields(name + ".value", info["value"], mine["value"], skip)
    return out


# -- golden capture -----------------------------------------------------------------------------------------------
def capture(request: Callable[[str, str, Any], tuple[int, Any]], pg_port: int = 5433) -> tuple[Any, Any]:
    """The Java worker's answers, documentation left out: (config defs, {case: {body, status, answer}})."""
    status, defs = request("GET", CONFIG_PATH, None)
    assert status == 200, (status, defs)
    cases = {}
    for name, body in validate_cases(pg_port).items():
        status, answer = request("PUT", VALIDATE_PATH, body)
        cases[name] = {"body": body, "status": status, "answer": without_documentation(answer)}
    return without_documentation(defs), cases


def _one_per_line(items: list[Any]) -> str:
    return "[\n" + ",\n".join(json.dumps(i) for i in items) + "\n]"


def _configinfos(answer: Mapping[str, Any]) -> str:
    """A ConfigInfos answer with one config entry per line (readable diffs when a golden is regenerated)."""
    head = ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in answer.items() if k != "configs")
    return "{" + head + ', "configs": ' + _one_per_line(answer["configs"]) + "}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kafka", default="127.0.0.1:" + os.environ.get("CW_KAFKA_PORT", "9092"))
    parser.add_argument("--pg-port", type=int, default=int(os.environ.get("CW_PG_PORT", "5433")))
    parser.add_argument("--url", help="ask this already running worker instead of starting one")
    parser.add_argument("--out", type=Path, default=GOLDEN_DIR)
    args = parser.parse_args(argv)

    connect = ConnectDebezium(kafka_bootstrap=args.kafka, pg_port=args.pg_port)
    if args.url:
        connect.rest_port = int(args.url.rsplit(":", 1)[1].rstrip("/"))
    else:
        connect.start()
    try:

        def request(method: str, path: str, body: Any) -> tuple[int, Any]:
            answer = connect.request(method, path, body)
            return answer.status, answer.json()

        defs, cases = capture(request, args.pg_port)
    finally:
        if not args.url:
            connect.stop()
            connect.delete_internal_topics()
    (args.out / CONFIG_DEFS_GOLDEN.name).write_text(_one_per_line(defs) + "\n")
    validate = ",\n".join(
        f'{json.dumps(name)}: {{"body": {json.dumps(case["body"])}, "status": {case["status"]}, "answer": '
        + ("null" if case["answer"] is None else _configinfos(case["answer"]))
        + "}"
        for name, case in cases.items()
    )
    (args.out / VALIDATE_GOLDEN.name).write_text("{\n" + validate + "\n}\n")
    print(f"{len(defs)} config keys and {len(cases)} validate answers written to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
