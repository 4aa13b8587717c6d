"""Topic names and schema/field name adjustment."""

from __future__ import annotations

import pytest

from connect_worker.api.errors import ConfigError, ConnectError
from connectors.relational.naming import (
    SchemaNameAdjuster,
    TopicNamingStrategy,
    adjusters_from_config,
    field_name_adjuster,
    is_valid_topic_name,
    sanitize_topic_name,
    schema_name_adjuster,
)
from connectors.relational.table import TableId


def test_data_change_topic_is_prefix_schema_table() -> None:
    names = TopicNamingStrategy("fulfillment")
    assert names.data_change_topic(TableId("public", "customers")) == "fulfillment.public.customers"


def test_invalid_topic_characters_become_underscores() -> None:  # acceptance item 80
    names = TopicNamingStrategy("tp")
    assert names.data_change_topic(TableId.parse('public."my$table"')) == "tp.public.my_table"
    assert names.data_change_topic(TableId("public", "my table!")) == "tp.public.my_table_"
    assert names.data_change_topic(TableId("public", "tëst")) == "tp.public.t_st"
    assert names.data_change_topic(TableId("public", "a\U0001f600b")) == "tp.public.a__b"  # two UTF-16 units


def test_delimiter_blank_parts_and_cache() -> None:
    names = TopicNamingStrategy("p", delimiter="_", cache_size=1)
    assert names.data_change_topic(TableId("s", "t")) == "p_s_t"
    assert names.data_change_topic(TableId(" ", "t")) == "p_t"
    assert names.data_change_topic(TableId("s", "t")) == "p_s_t"


def test_sanitize_limits() -> None:
    assert sanitize_topic_name("a" * 300) == "a" * 249
    assert sanitize_topic_name(".") == "_"
    assert sanitize_topic_name("..") == "__"
    assert sanitize_topic_name("ok.Name-1_x") == "ok.Name-1_x"
    assert is_valid_topic_name("ok.Name-1_x") and not is_valid_topic_name("a$b") and not is_valid_topic_name("..")


def test_other_topics() -> None:
    names = TopicNamingStrategy.from_config({"topic.prefix": "dbserver1"})
    assert names.transaction_topic() == "dbserver1.transaction"
    assert names.heartbeat_topic() == "__debezium-heartbeat.dbserver1"
    assert names.message_topic() == "dbserver1.message"
    assert names.schema_change_topic() == "dbserver1"
    custom = TopicNamingStrategy.from_config(
        {
            "topic.prefix": "p",
            "topic.delimiter": "-",
            "topic.transaction": "tx",
            "topic.heartbeat.prefix": "hb",
        }
    )
    assert custom.transaction_topic() == "p-tx"
    assert custom.heartbeat_topic() == "hb-p"
    assert custom.message_topic() == "p.message"  # a literal dot in Debezium
    assert custom.data_change_topic(TableId("s", "t")) == "p-s-t"


def test_topic_config_errors() -> None:
    with pytest.raises(ConfigError):
        TopicNamingStrategy.from_config({})
    with pytest.raises(ConfigError) as e:
        TopicNamingStrategy.from_config({"topic.prefix": "bad prefix"})
    assert e.value.name == "topic.prefix"


# -- adjustment -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("dbserver1.public.customers.Value", "dbserver1.public.customers.Value"),
        ("db-server.public.my$table.Key", "db_server.public.my_table.Key"),
        ("1server.public.t.Value", "_1server.public.t.Value"),
        ("-server", "_server"),
        ("srv.public.tëst.Value", "srv.public.t_st.Value"),
        ("srv.a\U0001f600", "srv.a__"),
        ("_ok", "_ok"),
    ],
)
def test_avro_schema_names(name: str, expected: str) -> None:
    assert schema_name_adjuster("avro").adjust(name) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("first-name", "first_name"),
        ("a.b", "a_b"),
        ("1st", "_1st"),
        ("ok_name9", "ok_name9"),
    ],
)
def test_avro_field_names(name: str, expected: str) -> None:
    assert field_name_adjuster("avro").adjust(name) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("srv.public.my$table.Value", "srv.public.my_u0024table.Value"),
        ("srv.tëst", "srv.t_u00ebst"),
        ("srv.a_b", "srv.a_u005fb"),  # '_' is the escape character, so it is escaped itself
        ("_x", "_u005fx"),
        ("1x", "_u0031x"),  # no digit kept after the escape
        ("a\u0100", "a_u100"),  # Integer.toHexString, padded only when 1-2 digits long
        ("a\u4e2d", "a_u4e2d"),
        ("a\U0001f600", "a_ud83d_ude00"),
    ],
)
def test_avro_unicode_schema_names(name: str, expected: str) -> None:
    assert schema_name_adjuster("avro_unicode").adjust(name) == expected


def test_avro_unicode_field_names_escape_dots() -> None:
    assert field_name_adjuster("avro_unicode").adjust("a.b_c9") == "a_u002eb_u005fc9"


def test_none_mode_is_identity_and_modes_are_validated() -> None:
    assert schema_name_adjuster().adjust("any $ thing") == "any $ thing"
    with pytest.raises(ConfigError):
        SchemaNameAdjuster("avro2")
    with pytest.raises(ConfigError):
        adjusters_from_config({"field.name.adjustment.mode": "nope"})
    schema_adj, field_adj = adjusters_from_config({"schema.name.adjustment.mode": "AVRO"})
    assert schema_adj.adjust("a-b") == "a_b" and field_adj.adjust("a-b") == "a-b"


def test_conflicting_replacements_fail_once() -> None:
    adj = schema_name_adjuster("avro")
    assert adj.adjust("srv.a-b") == "srv.a_b"
    assert adj.adjust("srv.a-b") == "srv.a_b"
    with pytest.raises(ConnectError):
        adj.adjust("srv.a$b")
    assert adj.adjust("srv.a$b") == "srv.a_b"  # reported once per original, like Debezium
    assert adj.adjust("srv.a_b") == "srv.a_b"  # a valid original is never a conflict
