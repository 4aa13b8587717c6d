"""The source block against the literal Debezium 3.6.3 captures (kafka-connect.md §A.1, §A.2, §4.3)."""

import orjson

from connectors.postgres.source_info import SOURCE_SCHEMA, SourceInfo, sequence_text
from converters.json import JsonConverter

# kafka-connect.md Appendix A.1, the `source` field's schema (real output is one line)
LIVE_SOURCE_SCHEMA = (
    '{"type":"struct","fields":['
    '{"type":"string","optional":false,"field":"version"},'
    '{"type":"string","optional":false,"field":"connector"},'
    '{"type":"string","optional":false,"field":"name"},'
    '{"type":"int64","optional":false,"field":"ts_ms"},'
    '{"type":"string","optional":true,"name":"io.debezium.data.Enum","version":1,"parameters":{"allowed":'
    '"true,first,first_in_data_collection,last_in_data_collection,last,false,incremental"},"default":"false",'
    '"field":"snapshot"},'
    '{"type":"string","optional":false,"field":"db"},'
    '{"type":"string","optional":true,"field":"sequence"},'
    '{"type":"int64","optional":true,"field":"ts_us"},'
    '{"type":"int64","optional":true,"field":"ts_ns"},'
    '{"type":"string","optional":false,"field":"schema"},'
    '{"type":"string","optional":false,"field":"table"},'
    '{"type":"int64","optional":true,"field":"txId"},'
    '{"type":"int64","optional":true,"field":"lsn"},'
    '{"type":"int64","optional":true,"field":"xmin"},'
    '{"type":"string","optional":true,"field":"origin"},'
    '{"type":"int64","optional":true,"field":"origin_lsn"}'
    '],"optional":false,"name":"io.debezium.connector.postgresql.Source","version":1}'
)

# kafka-connect.md §A.2: a snapshot record's source block
LIVE_SNAPSHOT_SOURCE = (
    '{"version":"3.6.3.Final","connector":"postgresql","name":"dbserver1","ts_ms":1795303593299,"snapshot":"last",'
    '"db":"postgres","sequence":"[null,\\"22182096\\"]","ts_us":1795303593299669,"ts_ns":1795303593299669000,'
    '"schema":"public","table":"customers","txId":728,"lsn":22182096,"xmin":null,"origin":null,"origin_lsn":null}'
)

# kafka-connect.md §4.3: a streaming record's source block
LIVE_STREAM_SOURCE = (
    '{"version":"3.6.3.Final","connector":"postgresql","name":"dbserver1","ts_ms":1795303602364,"snapshot":"false",'
    '"db":"postgres","sequence":"[null,\\"22182192\\"]","ts_us":1795303602364902,"ts_ns":1795303602364902000,'
    '"schema":"public","table":"customers","txId":729,"lsn":22182192,"xmin":null,"origin":null,"origin_lsn":null}'
)


def _json(schema_enabled: bool, struct: object) -> bytes:
    conv = JsonConverter()
    conv.configure({"schemas.enable": str(schema_enabled).lower()}, False)
    out = conv.from_connect_data("t", SOURCE_SCHEMA, struct)
    assert out is not None
    return out


def test_source_schema_is_byte_identical_to_debezium() -> None:
    envelope = orjson.loads(
        _json(
            True,
            SourceInfo("x", "y").struct(ts_us=1, schema="s", table="t", tx_id=None, lsn=None, last_commit_lsn=None),
        )
    )
    assert orjson.dumps(envelope["schema"]) == LIVE_SOURCE_SCHEMA.encode()


def test_snapshot_source_block_matches_capture() -> None:
    struct = SourceInfo("dbserver1", "postgres").struct(
        ts_us=1795303593299669,
        schema="public",
        table="customers",
        tx_id=728,
        lsn=22182096,
        last_commit_lsn=None,
        snapshot="last",
    )
    assert _json(False, struct) == LIVE_SNAPSHOT_SOURCE.encode()


def test_streaming_source_block_matches_capture() -> None:
    struct = SourceInfo("dbserver1", "postgres").struct(
        ts_us=1795303602364902, schema="public", table="customers", tx_id=729, lsn=22182192, last_commit_lsn=None
    )
    # streaming leaves `snapshot` unset; JsonConverter writes the schema default "false"
    assert _json(False, struct) == LIVE_STREAM_SOURCE.encode()


def test_sequence_text() -> None:
    assert sequence_text(24023119, 24023128) == '["24023119","24023128"]'
    assert sequence_text(None, 5) == '[null,"5"]'


def test_a_template_gives_the_blocks_struct_gives() -> None:
    info = SourceInfo("dbserver1", "postgres")
    for tx_id, last_commit in ((729, 22182100), (None, None), (5, None)):
        template = info.template(
            ts_us=1795303602364902, schema="public", table="customers", tx_id=tx_id, last_commit_lsn=last_commit
        )
        for lsn in (22182192, 22182193):
            expected = info.struct(
                ts_us=1795303602364902,
                schema="public",
                table="customers",
                tx_id=tx_id,
                lsn=lsn,
                last_commit_lsn=last_commit,
            )
            assert template.at(lsn) == expected
            assert _json(False, template.at(lsn)) == _json(False, expected)


def test_a_snapshot_template_gives_the_blocks_struct_gives() -> None:
    info = SourceInfo("dbserver1", "postgres")
    template = info.snapshot_template(schema="public", table="customers", tx_id=728, lsn=22182096)
    for ts_us, mark in ((1795303593299669, "last"), (1795303593299670, "first"), (1795303593299999, "true")):
        expected = info.struct(
            ts_us=ts_us,
            schema="public",
            table="customers",
            tx_id=728,
            lsn=22182096,
            last_commit_lsn=None,
            snapshot=mark,
        )
        assert template.at(ts_us, mark) == expected
    assert _json(False, template.at(1795303593299669, "last")) == LIVE_SNAPSHOT_SOURCE.encode()
