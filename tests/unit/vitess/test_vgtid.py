"""Vgtid: the JSON form stored in offsets (Debezium's key order, compact), and lossless protobuf conversion."""

from __future__ import annotations

import copy
import importlib
import pickle
from typing import Any

import pytest

from connect_worker.api.errors import DataError
from connectors.vitess.vgtid import GTID_COPY, GTID_CURRENT, ShardGtid, TableLastPk, Vgtid

binlogdata: Any = importlib.import_module("connectors.vitess.proto.binlogdata_pb2")
query: Any = importlib.import_module("connectors.vitess.proto.query_pb2")

TWO_SHARDS = (
    '[{"keyspace":"commerce","shard":"-80","gtid":"MariaDB/0-1592148-45"},'
    '{"keyspace":"commerce","shard":"80-","gtid":"MariaDB/0-54610504-47"}]'
)
LASTPK = {
    "fields": [{"name": "id", "type": "INT64", "charset": 63, "flags": 49667}],
    "rows": [{"lengths": ["3"], "values": "123"}],
}
WITH_PKS = (
    '[{"keyspace":"commerce","shard":"-80","gtid":"MySQL56/e03ece6c-4c04-11ec-8e20-0242ac110004:1-37",'
    '"table_p_ks":[{"table_name":"customers","lastpk":{"fields":[{"name":"id","type":"INT64","charset":63,'
    '"flags":49667}],"rows":[{"lengths":["3"],"values":"123"}]}}]}]'
)


@pytest.mark.parametrize(
    "text",
    [
        '[{"keyspace":"commerce","shard":"80-","gtid":"MariaDB/0-54610504-47"}]',
        TWO_SHARDS,
        '[{"keyspace":"commerce","shard":"","gtid":"current"}]',
        '[{"keyspace":"commerce","shard":"-80","gtid":""}]',
        WITH_PKS,
    ],
)
def test_json_round_trip_is_exact(text: str) -> None:
    vgtid = Vgtid.parse(text)
    assert vgtid.to_json() == text
    assert str(vgtid) == text
    assert Vgtid.parse(vgtid.to_json()) == vgtid


def test_keys_in_debezium_order_whatever_the_input_order() -> None:
    vgtid = Vgtid.parse('[{"gtid":"MariaDB/0-1-2","table_p_ks":[],"shard":"80-","keyspace":"commerce"}]')
    assert vgtid.to_json() == '[{"keyspace":"commerce","shard":"80-","gtid":"MariaDB/0-1-2"}]'


def test_spec_example_with_empty_table_p_ks_is_read_and_written_without_it() -> None:
    text = (
        '[{"keyspace":"commerce","shard":"-80","gtid":"MariaDB/0-1592148-45","table_p_ks":[]},'
        '{"keyspace":"commerce","shard":"80-","gtid":"MariaDB/0-54610504-47","table_p_ks":[]}]'
    )
    vgtid = Vgtid.parse(text)
    assert vgtid.to_json() == TWO_SHARDS
    assert vgtid == Vgtid.parse(TWO_SHARDS)
    assert vgtid.shards == ("-80", "80-")
    assert vgtid.shard_gtids[1] == ShardGtid("commerce", "80-", "MariaDB/0-54610504-47")


def test_null_table_p_ks_is_read_as_empty() -> None:
    vgtid = Vgtid.parse('[{"keyspace":"ks","shard":"-","gtid":"g","table_p_ks":null}]')
    assert vgtid.shard_gtids[0].table_p_ks == ()


def test_table_p_ks_kept_when_present() -> None:
    vgtid = Vgtid.parse(WITH_PKS)
    (pk,) = vgtid.shard_gtids[0].table_p_ks
    assert pk.table_name == "customers"
    assert pk.lastpk_json() == LASTPK
    assert pk.lastpk is not None
    assert pk.lastpk["fields"][0]["type"] == "INT64"
    assert vgtid == Vgtid(
        (ShardGtid("commerce", "-80", vgtid.shard_gtids[0].gtid, (TableLastPk("customers", LASTPK),)),)
    )


def test_constructed_value_prints_like_jackson() -> None:
    vgtid = Vgtid((ShardGtid("commerce", "-80", GTID_COPY), ShardGtid("commerce", "80-", GTID_CURRENT)))
    assert vgtid.to_json() == (
        '[{"keyspace":"commerce","shard":"-80","gtid":""},{"keyspace":"commerce","shard":"80-","gtid":"current"}]'
    )


def test_non_ascii_written_as_utf8_not_escaped() -> None:
    text = (
        '[{"keyspace":"ks","shard":"-","gtid":"g","table_p_ks":[{"table_name":"t","lastpk":{"fields":'
        '[{"name":"k","type":"VARCHAR","charset":255,"flags":0}],"rows":[{"lengths":["3"],"values":"é/"}]}}]}]'
    )
    assert Vgtid.parse(text).to_json() == text


def test_lastpk_is_normalised_to_the_written_form() -> None:
    pk = TableLastPk("t", {"fields": [{"name": "id", "type": 265}], "rows": [{"lengths": [2, -1], "values": "42"}]})
    assert pk.lastpk_json() == {
        "fields": [{"name": "id", "type": "INT64", "charset": 0, "flags": 0}],
        "rows": [{"lengths": ["2", "-1"], "values": "42"}],
    }


def test_values_are_read_only_and_hashable() -> None:
    vgtid = Vgtid.parse(WITH_PKS)
    lastpk = vgtid.shard_gtids[0].table_p_ks[0].lastpk
    assert lastpk is not None
    with pytest.raises(TypeError):
        lastpk["rows"] = []  # type: ignore[index]
    with pytest.raises(AttributeError):
        vgtid.shard_gtids = ()  # type: ignore[misc]
    assert hash(vgtid) == hash(Vgtid.parse(WITH_PKS))
    assert len({vgtid, Vgtid.parse(WITH_PKS), Vgtid.parse(TWO_SHARDS)}) == 2


def test_copy_and_pickle_give_equal_values() -> None:
    vgtid = Vgtid.parse(WITH_PKS)
    assert copy.deepcopy(vgtid) == vgtid
    assert pickle.loads(pickle.dumps(vgtid)) == vgtid
    assert pickle.loads(pickle.dumps(vgtid)).to_json() == WITH_PKS


# -- protobuf --------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [TWO_SHARDS, WITH_PKS, '[{"keyspace":"ks","shard":"","gtid":"current"}]'])
def test_protobuf_round_trip(text: str) -> None:
    vgtid = Vgtid.parse(text)
    pb = vgtid.to_proto()
    wire = pb.SerializeToString()
    back = Vgtid.from_proto(binlogdata.VGtid.FromString(wire))
    assert back == vgtid
    assert back.to_json() == text
    assert back.to_proto() == pb


def test_to_proto_fills_the_messages() -> None:
    pb = Vgtid.parse(WITH_PKS).to_proto()
    (sg,) = pb.shard_gtids
    assert (sg.keyspace, sg.shard) == ("commerce", "-80")
    assert sg.gtid.startswith("MySQL56/")
    (tpk,) = sg.table_p_ks
    assert tpk.table_name == "customers"
    assert tpk.lastpk.fields[0].type == query.INT64
    assert (tpk.lastpk.fields[0].charset, tpk.lastpk.fields[0].flags) == (63, 49667)
    assert list(tpk.lastpk.rows[0].lengths) == [3]
    assert tpk.lastpk.rows[0].values == b"123"


def test_from_proto_of_a_vstream_lastpk_is_lossless() -> None:
    lastpk = query.QueryResult(
        fields=[
            query.Field(name="id", type=query.INT64, charset=63, flags=49667),
            query.Field(name="name", type=query.VARCHAR, charset=255, flags=4099),
        ],
        rows=[query.Row(lengths=[2, 7, -1], values="17Zoëlle".encode())],
    )
    pb = binlogdata.VGtid(
        shard_gtids=[
            binlogdata.ShardGtid(
                keyspace="commerce",
                shard="80-",
                gtid="MySQL56/u1:1-5",
                table_p_ks=[binlogdata.TableLastPK(table_name="customers", lastpk=lastpk)],
            )
        ]
    )
    vgtid = Vgtid.from_proto(pb)
    assert vgtid.to_proto() == pb
    assert Vgtid.parse(vgtid.to_json()).to_proto() == pb
    entry = vgtid.shard_gtids[0].table_p_ks[0]
    assert entry.lastpk is not None
    assert entry.lastpk["fields"][1] == {"name": "name", "type": "VARCHAR", "charset": 255, "flags": 4099}
    assert entry.lastpk["rows"][0]["lengths"] == ("2", "7", "-1")


def test_table_last_pk_without_lastpk_stays_without() -> None:
    pb = binlogdata.VGtid(
        shard_gtids=[binlogdata.ShardGtid(keyspace="ks", shard="-", gtid="", table_p_ks=[{"table_name": "t"}])]
    )
    vgtid = Vgtid.from_proto(pb)
    assert (
        vgtid.to_json() == '[{"keyspace":"ks","shard":"-","gtid":"","table_p_ks":[{"table_name":"t","lastpk":null}]}]'
    )
    back = Vgtid.parse(vgtid.to_json()).to_proto()
    assert back == pb
    assert not back.shard_gtids[0].table_p_ks[0].HasField("lastpk")


def test_type_number_outside_the_trimmed_enum_is_written_as_a_number() -> None:
    lastpk = query.QueryResult(fields=[query.Field(name="v", type=2083)], rows=[query.Row(lengths=[1], values=b"x")])
    pk = TableLastPk.from_proto(binlogdata.TableLastPK(table_name="t", lastpk=lastpk))
    assert pk.lastpk is not None
    assert pk.lastpk["fields"][0]["type"] == 2083
    assert pk.to_proto().lastpk == lastpk


# -- malformed input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("current", "not JSON"),
        ("", "not JSON"),
        ("[{", "not JSON"),
        ('{"keyspace":"ks","shard":"-","gtid":"g"}', "expected a JSON array"),
        ("[]", "lists no shard"),
        ('["ks/-80"]', "entry 0 is not a JSON object"),
        ('[{"shard":"-","gtid":"g"}]', "entry 0: 'keyspace' is missing"),
        ('[{"keyspace":"ks","shard":"-","gtid":"g"},{"keyspace":"ks","gtid":"g"}]', "entry 1: 'shard' is missing"),
        ('[{"keyspace":"ks","shard":"-","gtid":7}]', "'gtid' must be a string"),
        ('[{"keyspace":"ks","shard":"-","gtid":null}]', "'gtid' must be a string"),
        ('[{"keyspace":"ks","shard":"-","gtid":"g","table_p_ks":{}}]', "'table_p_ks' must be an array"),
        ('[{"keyspace":"ks","shard":"-","gtid":"g","table_p_ks":[{"lastpk":null}]}]', "table_p_ks[0] needs"),
        ('[{"keyspace":"ks","shard":"-","gtid":"g","table_p_ks":[{"table_name":"t","lastpk":[]}]}]', "object or null"),
        (
            '[{"keyspace":"ks","shard":"-","gtid":"g","table_p_ks":[{"table_name":"t","lastpk":{"fields":[{"name":"id","type":"NOPE"}]}}]}]',
            "unknown query.Type 'NOPE'",
        ),
        (
            '[{"keyspace":"ks","shard":"-","gtid":"g","table_p_ks":[{"table_name":"t","lastpk":{"rows":[{"lengths":["x"]}]}}]}]',
            "row length 'x'",
        ),
        (
            '[{"keyspace":"ks","shard":"-","gtid":"g","table_p_ks":[{"table_name":"t","lastpk":{"rows":[{"values":1}]}}]}]',
            "row values must be a string",
        ),
    ],
)
def test_malformed_input_raises_data_error(text: str, message: str) -> None:
    with pytest.raises(DataError, match="Invalid") as info:
        Vgtid.parse(text)
    assert message in str(info.value)


def test_long_input_is_clipped_in_the_error() -> None:
    with pytest.raises(DataError) as info:
        Vgtid.parse("x" * 10_000)
    assert len(str(info.value)) < 400
