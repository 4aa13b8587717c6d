from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from connect_worker.api.errors import ConfigError, NotFoundError
from connect_worker.api.record import Header
from connect_worker.runtime.transformation_chain import TransformationChain, validate
from connect_worker.transforms.builtins import PREDICATE_CLASSES, TRANSFORMATION_CLASSES, predicates, transformations

from . import _debezium as dbz
from ._helpers import rec

REGISTRY: dict[str, Any] = {**transformations(), **predicates()}
REGISTRY["Filter"] = REGISTRY["org.apache.kafka.connect.transforms.Filter"]  # an alias, as the runtime has


def resolve(name: str) -> Any:
    return REGISTRY[name]


def chain(config: Mapping[str, Any]) -> TransformationChain:
    return TransformationChain.from_config(config, resolve)


def test_empty_chain_is_identity() -> None:
    c = chain({})
    r = rec({"a": 1})
    assert c.apply(r) is r and len(c) == 0


def test_unwrap_then_route_in_order() -> None:
    c = chain(
        {
            "transforms": "unwrap, route",
            "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
            "transforms.unwrap.delete.tombstone.handling.mode": "rewrite",
            "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
            "transforms.route.regex": r"dbserver1\.public\.(.*)",
            "transforms.route.replacement": "$1",
        }
    )
    assert c.aliases == ("unwrap", "route")
    out = c.apply(dbz.delete(3))
    assert out is not None and out.topic == "customers" and out.value.get("__deleted") == "true"
    assert c.apply(dbz.tombstone(3)) is None  # dropped by the first stage; the second never runs
    c.close()


def filter_config(**extra: str) -> dict[str, str]:
    return {
        "transforms": "dropTombstones",
        "transforms.dropTombstones.type": "Filter",
        "transforms.dropTombstones.predicate": "isTombstone",
        "predicates": "isTombstone,isCustomers",
        "predicates.isTombstone.type": "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone",
        "predicates.isCustomers.type": "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
        "predicates.isCustomers.pattern": ".*customers",
        **extra,
    }


def test_predicate_gates_the_transform() -> None:
    c = chain(filter_config())
    assert c.apply(dbz.tombstone()) is None
    r = dbz.create()
    assert c.apply(r) is r


def test_negate_inverts_the_predicate() -> None:
    c = chain(filter_config(**{"transforms.dropTombstones.negate": "true"}))
    tomb = dbz.tombstone()
    assert c.apply(tomb) is tomb
    assert c.apply(dbz.create()) is None


def test_predicate_config_is_passed_without_prefix() -> None:
    c = chain(
        filter_config(
            **{
                "transforms": "hdr",
                "transforms.hdr.type": "org.apache.kafka.connect.transforms.InsertHeader",
                "transforms.hdr.header": "seen",
                "transforms.hdr.value.literal": "yes",
                "transforms.hdr.predicate": "isCustomers",
            }
        )
    )
    assert c.apply(dbz.create()).headers[-1] == Header("seen", c.stages[0].transformation._header.schema, "yes")  # type: ignore[attr-defined, union-attr]
    other = rec({"a": 1}, topic="orders")
    assert c.apply(other) is other


@pytest.mark.parametrize(
    ("config", "key", "message"),
    [
        ({"transforms": "a,a", "transforms.a.type": "Filter"}, "transforms", "Duplicate alias provided."),
        (
            {"transforms": "a"},
            "transforms.a.type",
            'Missing required configuration "transforms.a.type" which has no default value.',
        ),
        (
            {"transforms": "a", "transforms.a.type": "com.example.Nope"},
            "transforms.a.type",
            "Class com.example.Nope could not be found.",
        ),
        (
            {
                "transforms": "a",
                "transforms.a.type": "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone",
            },
            "transforms.a.type",
            "is not a Transformation",
        ),
        (
            {"transforms": "a", "transforms.a.type": "Filter", "transforms.a.predicate": "p"},
            "transforms.a.predicate",
            "Predicate alias p is not listed in 'predicates'",
        ),
        (
            {
                "predicates": "p,p",
                "predicates.p.type": "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone",
            },
            "predicates",
            "Duplicate alias provided.",
        ),
        ({"predicates": "p"}, "predicates.p.type", 'Missing required configuration "predicates.p.type"'),
        ({"predicates": "p", "predicates.p.type": "Filter"}, "predicates.p.type", "is not a Predicate"),
        (
            {
                "transforms": "r",
                "transforms.r.type": "org.apache.kafka.connect.transforms.RegexRouter",
                "transforms.r.regex": "x",
            },
            "transforms.r.replacement",
            'Missing required configuration "replacement"',
        ),
        (
            {
                "transforms": "r",
                "transforms.r.type": "org.apache.kafka.connect.transforms.HeaderFrom$Value",
                "transforms.r.fields": "a,b",
                "transforms.r.headers": "a",
                "transforms.r.operation": "copy",
            },
            "transforms.r.type",
            "same number of elements",
        ),
        (
            {"transforms": "a", "transforms.a.type": "Filter", "transforms.a.plugin.version": "1.0"},
            "transforms.a.plugin.version",
            "4.3.1",
        ),
        (
            {
                "transforms": "a",
                "transforms.a.type": "Filter",
                "transforms.a.predicate": "p",
                "transforms.a.negate": "perhaps",
                "predicates": "p",
                "predicates.p.type": "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone",
            },
            "transforms.a.negate",
            "true or false",
        ),
        (
            {"transforms": "a,,b", "transforms.a.type": "Filter", "transforms.b.type": "Filter"},
            "transforms",
            "Aliases may not be empty",
        ),
    ],
)
def test_validation_errors(config: dict[str, str], key: str, message: str) -> None:
    problems = validate(config, resolve)
    assert key in problems, problems
    assert any(message in m for m in problems[key]), problems[key]
    with pytest.raises(ConfigError) as info:
        chain(config)
    assert message in str(info.value)


def test_validation_reports_every_problem_at_once() -> None:
    problems = validate({"transforms": "a,b", "transforms.b.type": "nope", "transforms.a.predicate": "x"}, resolve)
    assert set(problems) == {"transforms.a.type", "transforms.a.predicate", "transforms.b.type"}
    with pytest.raises(ConfigError, match="3 problems"):
        chain({"transforms": "a,b", "transforms.b.type": "nope", "transforms.a.predicate": "x"})


def test_resolver_may_raise_not_found_or_return_none() -> None:
    def raising(name: str) -> Any:
        raise NotFoundError(name)

    assert "transforms.a.type" in validate({"transforms": "a", "transforms.a.type": "X"}, raising)
    assert "transforms.a.type" in validate({"transforms": "a", "transforms.a.type": "X"}, lambda _: None)


def test_each_use_of_a_predicate_gets_its_own_instance() -> None:
    config = filter_config(
        **{
            "transforms": "a,b",
            "transforms.a.type": "Filter",
            "transforms.a.predicate": "isCustomers",
            "transforms.a.negate": "true",
            "transforms.b.type": "Filter",
            "transforms.b.predicate": "isCustomers",
        }
    )
    c = chain(config)
    assert c.stages[0].predicate is not c.stages[1].predicate
    assert c.apply(dbz.create()) is None


def test_builtins_declare_names_versions_and_docs() -> None:
    names = [cls.class_name for cls in (*TRANSFORMATION_CLASSES, *PREDICATE_CLASSES)]
    assert len(names) == len(set(names)) == 31
    for cls in (*TRANSFORMATION_CLASSES, *PREDICATE_CLASSES):
        expected = "3.6.3.Final" if cls.class_name.startswith("io.debezium.") else "4.3.1"
        assert cls.plugin_version == expected and cls().version() == expected
        for key in cls.config_def().keys:
            assert key.documentation, (cls.class_name, key.name)
    assert "org.apache.kafka.connect.transforms.ReplaceField$Value" in names
    assert "org.apache.kafka.connect.transforms.predicates.TopicNameMatches" in names
