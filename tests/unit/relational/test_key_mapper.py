"""message.key.columns."""

from __future__ import annotations

import pytest

from connect_worker.api.errors import ConfigError
from connectors.relational.key_mapper import KeyMapper, message_key_columns_problems
from connectors.relational.table import Column, ColumnType, Table, TableId

SPEC = "inventory.customers:pk1,pk2;(.*).purchaseorders:pk3,pk4"


def table(schema: str, name: str, *columns: str) -> Table:
    t = ColumnType(25, "text")
    return Table(TableId(schema, name), tuple(Column(c, i + 1, t) for i, c in enumerate(columns)), ("id",))


def test_documented_example() -> None:
    km = KeyMapper(SPEC)
    assert km.for_table(table("inventory", "customers", "id", "pk2", "pk1", "x")) == ("pk1", "pk2")
    assert km.for_table(table("sales", "purchaseorders", "pk4", "id", "pk3")) == ("pk3", "pk4")
    assert km.for_table(table("inventory", "purchaseorders", "pk3", "pk4")) == ("pk3", "pk4")
    assert km.for_table(table("inventory", "orders", "pk1", "pk3")) is None  # no match: keep the primary key


def test_matching_is_anchored_and_case_insensitive() -> None:
    km = KeyMapper("inventory.customers:PK1")
    assert km.key_columns(TableId("Inventory", "Customers"), ["pk1"]) == ("pk1",)
    assert km.key_columns(TableId("inventory", "customers2"), ["pk1"]) is None
    assert km.key_columns(TableId("inventory", "customers"), ["pk10"]) is None


def test_column_part_is_a_regex_and_order_follows_patterns_then_table() -> None:
    km = KeyMapper(r"public\.t:b.*,a")
    assert km.key_columns(TableId("public", "t"), ["a", "b2", "b1"]) == ("b2", "b1", "a")


def test_duplicates_are_listed_once() -> None:
    km = KeyMapper("public.t:a;.*:a,b")
    assert km.key_columns(TableId("public", "t"), ["b", "a"]) == ("a", "b")


def test_whitespace_and_trailing_separator() -> None:
    km = KeyMapper(" public.t:a ; public.u:b ;")
    assert km.key_columns(TableId("public", "t"), ["a"]) == ("a",)
    assert km.key_columns(TableId("public", "u"), ["b"]) == ("b",)


def test_absent_or_blank_is_no_mapping() -> None:
    assert KeyMapper(None).is_empty
    assert KeyMapper.from_config({}).key_columns(TableId("a", "b"), ["x"]) is None


@pytest.mark.parametrize("bad", ["inventory.customers", "a:b:c", "a b:c", "a:", ":b", "a:b;;c:d"])
def test_invalid_specs(bad: str) -> None:
    assert message_key_columns_problems(bad)
    with pytest.raises(ConfigError) as e:
        KeyMapper(bad)
    assert e.value.name == "message.key.columns"


def test_valid_spec_has_no_problems() -> None:
    assert message_key_columns_problems(SPEC) == []
    assert message_key_columns_problems("") == ["Must not be empty"]
