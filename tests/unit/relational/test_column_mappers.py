"""column.truncate / column.mask / column.mask.hash(.v2) / *.propagate.source.type."""

from __future__ import annotations

import hashlib

import pytest

from connect_worker.api.errors import ConfigError
from connect_worker.api.schema import OPTIONAL_STRING_SCHEMA, Schema, Type, decimal_schema
from connectors.relational.column_mappers import (
    ColumnMappers,
    column_rules,
    java_serialized_string,
    java_utf16_length,
    truncate_utf16,
)
from connectors.relational.table import Column, ColumnType, TableId

T = TableId("inventory", "customers")
VARCHAR = ColumnType(1043, "varchar", "S")
TEXT = ColumnType(25, "text", "S")
INT4 = ColumnType(23, "int4", "N")
NUMERIC = ColumnType(1700, "numeric", "N")


def col(name: str, type_: ColumnType = TEXT, **kw: object) -> Column:
    return Column(name, 1, type_, **kw)  # type: ignore[arg-type]


def mappers(**props: str) -> ColumnMappers:
    return ColumnMappers.from_config(props)


def v1_bytes(text: str) -> bytes:
    """The spec's layout for a short BMP string without NUL: AC ED 00 05 74 <u16 length> <UTF-8>."""
    body = text.encode("utf-8")
    return bytes([0xAC, 0xED, 0x00, 0x05, 0x74]) + len(body).to_bytes(2, "big") + body


# -- Java serialisation and hash values ---------------------------------------------------------------------
def test_java_serialized_string_layout() -> None:
    assert java_serialized_string("hello") == bytes.fromhex("aced00057400056865 6c6c6f".replace(" ", ""))
    assert java_serialized_string("") == bytes.fromhex("aced0005740000")
    # modified UTF-8: NUL is C0 80, a supplementary character is two 3-byte surrogates
    assert java_serialized_string("a\x00é") == bytes.fromhex("aced0005740005" + "61" + "c080" + "c3a9")
    assert java_serialized_string("\U0001f600") == bytes.fromhex("aced0005740006" + "eda0bd" + "edb880")


def test_java_serialized_long_string_uses_tc_longstring() -> None:
    s = "x" * 70_000
    data = java_serialized_string(s)
    assert data[:5] == bytes.fromhex("aced00057c")
    assert int.from_bytes(data[5:13], "big") == 70_000
    assert data[13:] == s.encode()
    assert java_serialized_string("y" * 65_535)[4:7] == bytes.fromhex("74ffff")


def test_hash_v1_hello_with_documented_salt() -> None:
    m = mappers(**{"column.mask.hash.SHA-256.with.salt.CzQMA0cB5K": "inventory.customers.email"})
    mapper = m.mapper_for(T, col("email"))
    assert mapper is not None and mapper.value is not None
    expected = hashlib.sha256(b"CzQMA0cB5K" + v1_bytes("hello")).hexdigest()
    assert mapper.value("hello") == expected
    assert mapper.value(None) is None


def test_hash_values_published_in_debeziums_tests() -> None:
    # io.debezium.relational.mapping.MaskStringsTest / ColumnMappersTest
    salt = mappers(**{"column.mask.hash.SHA-256.with.salt.salt": ".*"}).mapper_for(T, col("c"))
    assert salt is not None and salt.value is not None
    assert salt.value("hello") == "af5843a0f0e728ab0332c8888b6e1190bfb79e584f0d40538de8f10df6ef29c6"
    assert salt.value("world") == "4588e1f2dcdc7fefc1515d3acd5acb9033478eace68286f383c337b9ff4464a3"
    v1 = mappers(**{"column.mask.hash.SHA-256.with.salt.salt123": ".*"}).mapper_for(T, col("c"))
    v2 = mappers(**{"column.mask.hash.v2.SHA-256.with.salt.salt123": ".*"}).mapper_for(T, col("c"))
    assert v1 is not None and v1.value is not None and v2 is not None and v2.value is not None
    assert v1.value("12345678901234567890") == "5944c66655670e4ce234df8529d452ba1cae10a641b9cd1583abf62585b8515a"
    assert v2.value("12345678901234567890") == "b65875d34a3dedf070f3a012970bf3b5da424560d7be3d2c23b986b525d2d7f3"


@pytest.mark.parametrize(
    ("alg", "hashlib_name"),
    [("MD5", "md5"), ("SHA-1", "sha1"), ("sha-384", "sha384"), ("SHA-512", "sha512"), ("SHA3-256", "sha3_256")],
)
def test_hash_algorithms_and_v2_utf8(alg: str, hashlib_name: str) -> None:
    m = mappers(**{f"column.mask.hash.v2.{alg}.with.salt.s.a.l.t": ".*"}).mapper_for(T, col("c"))
    assert m is not None and m.value is not None
    assert m.value("zoë") == hashlib.new(hashlib_name, b"s.a.l.t" + "zoë".encode()).hexdigest()


def test_hash_is_cut_to_the_column_length_and_marks_the_schema() -> None:
    m = mappers(**{"column.mask.hash.MD5.with.salt.x": ".*"}).mapper_for(T, col("c", VARCHAR, length=10))
    assert m is not None and m.value is not None
    assert m.value("v") == hashlib.md5(b"x" + v1_bytes("v")).hexdigest()[:10]
    assert m.schema(OPTIONAL_STRING_SCHEMA).parameters == {"masked": "true"}


def test_unknown_digest_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as e:
        mappers(**{"column.mask.hash.NOPE-1.with.salt.x": ".*"})
    assert e.value.name == "column.mask.hash.NOPE-1.with.salt.x"


# -- truncation -------------------------------------------------------------------------------------------
def test_utf16_counting() -> None:
    assert java_utf16_length("a\U0001f600b") == 4
    assert truncate_utf16("abcdef", 3) == "abc"
    assert truncate_utf16("a\U0001f600b", 3) == "a\U0001f600"
    assert truncate_utf16("a\U0001f600b", 2) == "a"  # never half a surrogate pair
    assert truncate_utf16("\U0001f600\U0001f600", 4) == "\U0001f600\U0001f600"
    assert truncate_utf16("\U0001f600\U0001f600", 3) == "\U0001f600"


def test_truncate_strings_and_bytes() -> None:
    m = mappers(**{"column.truncate.to.3.chars": r"inventory\.customers\.(name|blob)"})
    mapper = m.mapper_for(T, col("name"))
    assert mapper is not None and mapper.value is not None
    assert mapper.value("abcdef") == "abc"
    assert mapper.value("ab") == "ab"
    assert mapper.value("\U0001f600\U0001f600") == "\U0001f600"
    assert mapper.value(b"\x01\x02\x03\x04") == b"\x01\x02\x03"
    assert mapper.value(None) is None and mapper.value(12345) == 12345
    assert mapper.schema(OPTIONAL_STRING_SCHEMA).parameters == {"truncateLength": "3"}
    assert m.mapper_for(T, col("other")) is None


def test_no_truncation_when_the_column_is_short_enough() -> None:
    m = mappers(**{"column.truncate.to.10.chars": ".*"})
    assert m.mapper_for(T, col("c", VARCHAR, length=10)) is None
    assert m.mapper_for(T, col("c", VARCHAR, length=11)) is not None


# -- masking ----------------------------------------------------------------------------------------------
def test_mask_with_stars() -> None:
    m = mappers(**{"column.mask.with.5.chars": "inventory.customers.ssn", "column.mask.with.0.chars": ".*.empty"})
    ssn = m.mapper_for(T, col("ssn"))
    assert ssn is not None and ssn.value is not None
    assert ssn.value("123-45-6789") == "*****"
    assert ssn.schema(OPTIONAL_STRING_SCHEMA) == Schema(Type.STRING, optional=True, parameters={"masked": "true"})
    empty = m.mapper_for(T, col("empty"))
    assert empty is not None and empty.value is not None and empty.value("x") == ""


def test_masking_applies_to_character_columns_only() -> None:
    props = {"column.mask.with.3.chars": ".*"}
    by_value = ColumnMappers.from_config(props).mapper_for(T, col("n", INT4))
    assert by_value is not None and by_value.value is not None
    assert by_value.value(42) == 42  # not a string: passed through
    by_column = ColumnMappers.from_config(props, is_character_column=lambda c: c.type.category == "S")
    int_mapper = by_column.mapper_for(T, col("n", INT4))
    assert int_mapper is not None and int_mapper.value is None
    assert int_mapper.schema(Schema(Type.INT32)).parameters == {"masked": "true"}  # Debezium adds it anyway
    text_mapper = by_column.mapper_for(T, col("t", TEXT))
    assert text_mapper is not None and text_mapper.value is not None
    assert text_mapper.value(None) == "***"  # Debezium masks nulls of character columns too


# -- source type propagation -----------------------------------------------------------------------------------
def test_column_propagate_source_type() -> None:
    m = mappers(**{"column.propagate.source.type": r"inventory\.customers\..*"})
    c = col("amount", NUMERIC, length=10, scale=2, comment="price")
    mapper = m.mapper_for(T, c)
    assert mapper is not None and mapper.value is None
    schema = mapper.schema(decimal_schema(2, optional=True, precision=10))
    assert list((schema.parameters or {}).items()) == [
        ("scale", "2"),
        ("connect.decimal.precision", "10"),
        ("__debezium.source.column.type", "NUMERIC"),
        ("__debezium.source.column.length", "10"),
        ("__debezium.source.column.scale", "2"),
        ("__debezium.source.column.comment", "price"),
        ("__debezium.source.column.name", "amount"),
    ]
    bare = m.mapper_for(T, col("note"))
    assert bare is not None
    assert bare.schema(OPTIONAL_STRING_SCHEMA).parameters == {
        "__debezium.source.column.type": "TEXT",
        "__debezium.source.column.name": "note",
    }


def test_datatype_propagate_matches_fully_qualified_type_names() -> None:
    m = mappers(**{"datatype.propagate.source.type": r".+\.VARCHAR,.+\.INT4"})
    assert m.mapper_for(T, col("v", VARCHAR, length=20)) is not None
    assert m.mapper_for(T, col("i", INT4)) is not None
    assert m.mapper_for(T, col("t", TEXT)) is None


def test_first_matching_rule_wins() -> None:
    m = mappers(
        **{
            "column.propagate.source.type": ".*",
            "column.mask.with.2.chars": r".*\.secret",
            "column.mask.hash.SHA-256.with.salt.x": ".*",
        }
    )
    secret = m.mapper_for(T, col("secret"))
    assert secret is not None and secret.kind == "mask"
    other = m.mapper_for(T, col("other"))
    assert other is not None and other.kind == "propagate"  # propagation is tried before hashing


def test_no_rules_no_mappers() -> None:
    m = mappers(**{"topic.prefix": "x"})
    assert m.is_empty
    assert m.mapper_for(T, col("a")) is None


def test_problems_are_reported_per_key() -> None:
    problems = ColumnMappers.problems(
        {"column.mask.with.3.chars": "a(b", "column.mask.hash.XX.with.salt.s": ".*", "column.truncate.to.2.chars": "ok"}
    )
    assert set(problems) == {"column.mask.with.3.chars", "column.mask.hash.XX.with.salt.s"}


# -- one parser: what /config/validate reports is what start refuses ----------------------------------------------
BAD_RULE_KEYS = {
    "column.truncate.to.x.chars": "public.t.c",
    "column.truncate.to.0.chars": "public.t.c",
    "column.mask.with.99999999999.chars": "public.t.c",
    "column.mask.hash.MD2.with.salt.s": "public.t.c",  # a Java digest hashlib does not have: refused, not ignored
    "column.mask.bogus": "public.t.c",
    "column.mask.with.3.chars": "a(b",
    "column.truncate.to.4.chars": "",
}


@pytest.mark.parametrize(("key", "value"), sorted(BAD_RULE_KEYS.items()))
def test_validation_and_start_refuse_the_same_rule_keys(key: str, value: str) -> None:
    from connectors.postgres.config import validate_props
    from tests.unit.postgres.test_config import BASE

    assert list(ColumnMappers.problems({key: value})) == [key]
    assert validate_props(BASE | {key: value})[key].errors
    with pytest.raises(ConfigError) as e:
        ColumnMappers.from_config({key: value})
    assert e.value.name == key


def test_rule_order_is_by_kind_then_hashmap_order() -> None:
    rules = column_rules(
        {
            "column.mask.hash.v2.SHA-256.with.salt.s": "a.b.c",
            "datatype.propagate.source.type": "a.b.text",
            "column.mask.hash.MD5.with.salt.s": "a.b.c",
            "column.propagate.source.type": "a.b.c",
            "column.mask.with.3.chars": "a.b.c",
            "column.truncate.to.5.chars": "a.b.c",
        }
    )
    assert [(r.kind, r.by_datatype, r.v2) for r in rules] == [
        ("truncate", False, False),
        ("mask", False, False),
        ("propagate", False, False),
        ("propagate", True, False),
        ("hash", False, False),
        ("hash", False, True),
    ]
