"""Replication command text: quoting of identifiers and literals, plug-in options."""

from __future__ import annotations

import pytest

from connect_worker.api.errors import ConfigError
from connectors.postgres.lsn import Lsn
from connectors.postgres.protocol.commands import (
    SnapshotAction,
    create_replication_slot,
    drop_replication_slot,
    identify_system,
    quote_ident,
    quote_identifier_list,
    quote_literal,
    start_replication_logical,
)
from connectors.postgres.protocol.pgoutput import PgOutputDecoder
from connectors.postgres.protocol.plugins import DecoderbufsPlugin, PgOutputPlugin


def test_quote_ident() -> None:
    assert quote_ident("debezium") == '"debezium"'
    assert quote_ident('we"ird') == '"we""ird"'
    assert quote_ident("Mixed Case;DROP") == '"Mixed Case;DROP"'
    assert quote_ident("back\\slash") == '"back\\slash"'
    with pytest.raises(ConfigError):
        quote_ident("")
    with pytest.raises(ConfigError):
        quote_ident("a\x00b")


def test_quote_literal_doubles_quotes_and_keeps_backslashes() -> None:
    assert quote_literal("1") == "'1'"
    assert quote_literal("it's") == "'it''s'"
    assert quote_literal("a\\b") == "'a\\b'"  # the replication scanner has no backslash escapes
    with pytest.raises(ConfigError):
        quote_literal("\x00")


def test_identifier_list_for_publication_names() -> None:
    assert quote_identifier_list(["pub"]) == '"pub"'
    assert quote_identifier_list(["a", 'B,"c']) == '"a","B,""c"'
    with pytest.raises(ConfigError):
        quote_identifier_list([])


def test_identify_and_drop() -> None:
    assert identify_system() == "IDENTIFY_SYSTEM"
    assert drop_replication_slot("s1") == 'DROP_REPLICATION_SLOT "s1"'
    assert drop_replication_slot("s1", wait=True) == 'DROP_REPLICATION_SLOT "s1" WAIT'


def test_create_slot_pg15_syntax() -> None:
    assert create_replication_slot("s1", "pgoutput") == (
        'CREATE_REPLICATION_SLOT "s1" LOGICAL "pgoutput" (SNAPSHOT \'nothing\')'
    )
    assert create_replication_slot("s1", "pgoutput", snapshot=SnapshotAction.EXPORT, temporary=True) == (
        'CREATE_REPLICATION_SLOT "s1" TEMPORARY LOGICAL "pgoutput" (SNAPSHOT \'export\')'
    )
    assert create_replication_slot("s1", "decoderbufs", snapshot=SnapshotAction.USE, two_phase=True) == (
        'CREATE_REPLICATION_SLOT "s1" LOGICAL "decoderbufs" (SNAPSHOT \'use\', TWO_PHASE true)'
    )


def test_create_slot_legacy_syntax_before_pg15() -> None:
    expected = {
        SnapshotAction.EXPORT: "EXPORT_SNAPSHOT",
        SnapshotAction.NOEXPORT: "NOEXPORT_SNAPSHOT",
        SnapshotAction.USE: "USE_SNAPSHOT",
    }
    for action, keyword in expected.items():
        command = create_replication_slot("s1", "pgoutput", snapshot=action, server_version=140010)
        assert command == f'CREATE_REPLICATION_SLOT "s1" LOGICAL "pgoutput" {keyword}'
    assert create_replication_slot("s1", "pgoutput", two_phase=True, server_version=140000).endswith(
        "TWO_PHASE NOEXPORT_SNAPSHOT"
    )
    with pytest.raises(ConfigError):
        create_replication_slot("s1", "pgoutput", two_phase=True, server_version=130000)


def test_start_replication() -> None:
    assert start_replication_logical("s1", Lsn.ZERO) == 'START_REPLICATION SLOT "s1" LOGICAL 0/0'
    command = start_replication_logical(
        "s1", Lsn.parse("16/B374D848"), [("proto_version", "1"), ("publication_names", '"p\'1"')]
    )
    assert command == (
        'START_REPLICATION SLOT "s1" LOGICAL 16/B374D848 ("proto_version" \'1\', "publication_names" \'"p\'\'1"\')'
    )


def test_pgoutput_options() -> None:
    assert PgOutputPlugin(("dbz_publication",)).start_options() == [
        ("proto_version", "1"),
        ("publication_names", '"dbz_publication"'),
        ("messages", "true"),
    ]
    plugin = PgOutputPlugin(
        ("a", "b"), proto_version=2, messages=False, streaming=True, binary=True, extra_options=(("origin", "none"),)
    )
    assert plugin.start_options() == [
        ("proto_version", "2"),
        ("publication_names", '"a","b"'),
        ("streaming", "on"),
        ("binary", "true"),
        ("origin", "none"),
    ]
    assert plugin.plugin_name == "pgoutput"
    decode = plugin.new_decoder()
    assert isinstance(getattr(decode, "__self__", None), PgOutputDecoder)
    assert plugin.new_decoder().__self__ is not decode.__self__  # type: ignore[attr-defined]  # fresh state


@pytest.mark.parametrize(
    "kwargs",
    [
        {"publication_names": ()},
        {"publication_names": "pub"},
        {"publication_names": ("p",), "proto_version": 5},
        {"publication_names": ("p",), "proto_version": 1, "streaming": True},
    ],
)
def test_pgoutput_option_validation(kwargs: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        PgOutputPlugin(**kwargs)  # type: ignore[arg-type]


def test_decoderbufs_has_no_options() -> None:
    plugin = DecoderbufsPlugin()
    assert plugin.plugin_name == "decoderbufs"
    assert list(plugin.start_options()) == []


def test_parse_command_results() -> None:
    from connect_worker.api.errors import DataError
    from connectors.postgres.protocol.commands import (
        CreatedSlot,
        SystemIdentity,
        parse_created_slot,
        parse_identify_system,
        parse_slot_info,
    )

    assert parse_identify_system([("7710788809381785416", 1, "0/1541378", "postgres")]) == SystemIdentity(
        "7710788809381785416", 1, Lsn.parse("0/1541378"), "postgres"
    )
    assert parse_created_slot([("s1", "0/15413B0", None, "pgoutput")]) == CreatedSlot(
        "s1", Lsn.parse("0/15413B0"), None, "pgoutput"
    )
    assert parse_created_slot([(b"s1", b"16/B374D848", b"00000003-00000002-1", b"pgoutput")]).snapshot_name == (
        "00000003-00000002-1"
    )
    info = parse_slot_info(("s1", "pgoutput", "logical", "postgres", False, True, 42, "0/10", "0/20", "reserved"))
    assert info.active and info.active_pid == 42 and info.confirmed_flush_lsn == Lsn.parse("0/20")
    assert parse_slot_info(("s1", None, "physical", None, True, False, None, None, None, None)).restart_lsn is None
    with pytest.raises(DataError):
        parse_identify_system([])
    with pytest.raises(DataError):
        parse_created_slot([("s1", "0/1")])
