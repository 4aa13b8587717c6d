"""Publications, replica identities and slots against the real PostgreSQL 15 of the devstack.

Every test works in its own schema, publication, slot and roles (unique names) and drops them afterwards.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import psycopg
import pytest

from connect_worker.api.errors import ConfigError, ConnectError
from connectors.postgres import slot as slot_module
from connectors.postgres.config import PostgresConnectorConfig
from connectors.postgres.errors import (
    PostgresConfigError,
    ReplicationSlotExistsError,
    ReplicationSlotInUseError,
)
from connectors.postgres.protocol.commands import SnapshotAction
from connectors.postgres.protocol.plugins import DecoderbufsPlugin, PgOutputPlugin
from connectors.postgres.publication import (
    apply_replica_identities,
    ensure_publication,
    replica_identity_of,
)
from connectors.postgres.replication import ReplicationConnection, fetch_slot_info
from connectors.postgres.slot import (
    DISTINCT_SLOT_ADVICE,
    drop_slot_on_stop,
    ensure_slot,
    output_plugin,
    parse_stream_params,
    retry_slot_operation,
)
from connectors.relational.table import TableId

pytestmark = pytest.mark.integration


@pytest.fixture
async def schema(sql: psycopg.AsyncConnection[Any], unique_name: str) -> AsyncIterator[str]:
    """A schema with tables a (PK), b (PK, unique index b_u on v NOT NULL) and c (no PK)."""
    await sql.execute(f"CREATE SCHEMA {unique_name}".encode())
    for ddl in (
        "CREATE TABLE {s}.a (id int PRIMARY KEY, v text)",
        "CREATE TABLE {s}.b (id int PRIMARY KEY, v text NOT NULL)",
        "CREATE UNIQUE INDEX b_u ON {s}.b (v)",
        "CREATE TABLE {s}.c (v text)",
    ):
        await sql.execute(ddl.format(s=unique_name).encode())
    yield unique_name
    await sql.execute(f"DROP SCHEMA IF EXISTS {unique_name} CASCADE".encode())


def config_for(pg_dsn: str, **overrides: str) -> PostgresConnectorConfig:
    params = psycopg.conninfo.conninfo_to_dict(pg_dsn)
    props = {
        "topic.prefix": "tp",
        "database.hostname": str(params["host"]),
        "database.port": str(params["port"]),
        "database.user": str(params["user"]),
        "database.dbname": str(params["dbname"]),
        "plugin.name": "pgoutput",
    }
    return PostgresConnectorConfig.from_props(props | {k.replace("__", "."): v for k, v in overrides.items()})


async def publication(sql: psycopg.AsyncConnection[Any], name: str) -> tuple[Any, ...] | None:
    cur = await sql.execute(
        "SELECT puballtables, pubinsert, pubupdate, pubdelete, pubtruncate, pubviaroot FROM pg_publication"
        " WHERE pubname = %s",
        [name],
    )
    return await cur.fetchone()


async def published(sql: psycopg.AsyncConnection[Any], name: str) -> set[TableId]:
    cur = await sql.execute("SELECT schemaname, tablename FROM pg_publication_tables WHERE pubname = %s", [name])
    return {TableId(s, t) for s, t in await cur.fetchall()}


# -- publications ------------------------------------------------------------------------------------------------


async def test_all_tables_creates_once(pg_dsn: str, unique_name: str, sql: Any, cleanup: list[str]) -> None:
    pub = unique_name + "_p"
    cleanup.append(f"DROP PUBLICATION IF EXISTS {pub}")
    cfg = config_for(pg_dsn, publication__name=pub)
    result = await ensure_publication(sql, cfg)
    assert result.action == "created" and result.statements == (f'CREATE PUBLICATION "{pub}" FOR ALL TABLES;',)
    assert await publication(sql, pub) == (True, True, True, True, True, False)
    assert (await ensure_publication(sql, cfg)).action == "unchanged"


async def test_disabled_needs_an_existing_publication(pg_dsn: str, unique_name: str, sql: Any) -> None:
    pub = unique_name + "_p"
    cfg = config_for(pg_dsn, publication__name=pub, publication__autocreate__mode="disabled")
    with pytest.raises(ConfigError) as err:
        await ensure_publication(sql, cfg)
    assert str(err.value) == "Publication autocreation is disabled, please create one and restart the connector."
    assert await publication(sql, pub) is None
    await sql.execute(f"CREATE PUBLICATION {pub}".encode())
    try:
        assert (await ensure_publication(sql, cfg)).action == "unchanged"
    finally:
        await sql.execute(f"DROP PUBLICATION {pub}".encode())


async def test_filtered_creates_and_alters(pg_dsn: str, schema: str, sql: Any, cleanup: list[str]) -> None:
    pub = schema + "_p"
    cleanup.append(f"DROP PUBLICATION IF EXISTS {pub}")
    cfg = config_for(pg_dsn, publication__name=pub, publication__autocreate__mode="filtered")
    a, b, c = TableId(schema, "a"), TableId(schema, "b"), TableId(schema, "c")
    with pytest.raises(ConfigError, match=f"No table filters found for filtered publication {pub}"):
        await ensure_publication(sql, cfg, [])
    result = await ensure_publication(sql, cfg, [b, a])
    assert result.statements == (f'CREATE PUBLICATION "{pub}" FOR TABLE "{schema}"."a", "{schema}"."b";',)
    assert await published(sql, pub) == {a, b}
    assert await publication(sql, pub) == (False, True, True, True, True, False)
    assert (await ensure_publication(sql, cfg, [a, b])).action == "unchanged"
    result = await ensure_publication(sql, cfg, [c, a])
    assert result.action == "altered"
    assert result.statements == (f'ALTER PUBLICATION "{pub}" SET TABLE "{schema}"."a", "{schema}"."c";',)
    assert await published(sql, pub) == {a, c}
    with pytest.raises(ConfigError, match="No table filters found"):
        await ensure_publication(sql, cfg, [])
    assert await published(sql, pub) == {a, c}


async def test_filtered_refuses_a_publication_for_all_tables(
    pg_dsn: str, unique_name: str, sql: Any, cleanup: list[str]
) -> None:
    pub = unique_name + "_p"
    await sql.execute(f"CREATE PUBLICATION {pub} FOR ALL TABLES".encode())
    cleanup.append(f"DROP PUBLICATION IF EXISTS {pub}")
    cfg = config_for(pg_dsn, publication__name=pub, publication__autocreate__mode="filtered")
    with pytest.raises(ConfigError) as err:
        await ensure_publication(sql, cfg, [TableId("public", "x")])
    assert str(err.value).startswith(
        f"A logical publication for all tables named '{pub}' for plugin 'PGOUTPUT' and database 'postgres' is "
        "already active on the server and can not be altered."
    )
    assert str(err.value).endswith(
        "Otherwise please change the 'publication.autocreate.mode' property to 'all_tables'."
    )


async def test_no_tables_and_with_options(pg_dsn: str, schema: str, sql: Any, cleanup: list[str]) -> None:
    pub = schema + "_p"
    cleanup.append(f"DROP PUBLICATION IF EXISTS {pub}")
    cfg = config_for(
        pg_dsn,
        publication__name=pub,
        publication__autocreate__mode="no_tables",
        publish__via__partition__root="true",
        skipped__operations="t,d",
    )
    result = await ensure_publication(sql, cfg)
    assert result.statements == (
        f"CREATE PUBLICATION \"{pub}\" WITH (publish_via_partition_root = true, publish = 'insert, update');",
    )
    assert await publication(sql, pub) == (False, True, True, False, False, True)
    assert await published(sql, pub) == set()


async def test_filtered_update_keeps_the_publish_option(pg_dsn: str, schema: str, sql: Any, cleanup: list[str]) -> None:
    pub = schema + "_p"
    await sql.execute(f"CREATE PUBLICATION {pub} FOR TABLE {schema}.a".encode())
    cleanup.append(f"DROP PUBLICATION IF EXISTS {pub}")
    cfg = config_for(pg_dsn, publication__name=pub, publication__autocreate__mode="filtered", skipped__operations="t")
    result = await ensure_publication(sql, cfg, [TableId(schema, "b")])
    assert result.action == "altered" and len(result.statements) == 2
    assert await published(sql, pub) == {TableId(schema, "b")}
    assert await publication(sql, pub) == (False, True, True, True, False, False)


async def test_decoderbufs_needs_no_publication(pg_dsn: str, unique_name: str, sql: Any) -> None:
    cfg = config_for(pg_dsn, plugin__name="decoderbufs", publication__name=unique_name)
    assert (await ensure_publication(sql, cfg)).action == "skipped"
    assert await publication(sql, unique_name) is None


async def test_creating_without_privilege_is_a_config_error(
    pg_dsn: str, schema: str, sql: Any, cleanup: list[str]
) -> None:
    role, pub = schema + "_r", schema + "_p"
    await sql.execute(f"CREATE ROLE {role} LOGIN".encode())
    cleanup.append(f"DROP ROLE IF EXISTS {role}")
    conn = await psycopg.AsyncConnection.connect(pg_dsn + f" user={role}", autocommit=True)
    try:
        cfg = config_for(pg_dsn, publication__name=pub, publication__autocreate__mode="filtered")
        with pytest.raises(PostgresConfigError) as err:
            await ensure_publication(conn, cfg, [TableId(schema, "a")])
        assert err.value.sqlstate == "42501"
        assert str(err.value).startswith(f'Unable to create filtered publication {pub} for "{schema}"."a": ')
        with pytest.raises(PostgresConfigError) as err:
            await ensure_publication(conn, config_for(pg_dsn, publication__name=pub))
        assert err.value.sqlstate == "42501"
    finally:
        await conn.close()
    assert await publication(sql, pub) is None


# -- replica identity -------------------------------------------------------------------------------------------


async def test_replica_identity_is_set_only_when_different(pg_dsn: str, schema: str, sql: Any) -> None:
    cfg = config_for(
        pg_dsn,
        replica__identity__autoset__values=f"{schema}.a:FULL,{schema}.b:INDEX b_u,{schema}.c:NOTHING",
    )
    a, b, c = TableId(schema, "a"), TableId(schema, "b"), TableId(schema, "c")
    await sql.execute(f"ALTER TABLE {schema}.c REPLICA IDENTITY NOTHING".encode())
    results = await apply_replica_identities(sql, cfg.replica_identity_autoset_values, [a, b, c])
    assert [(r.table, r.before, r.wanted, r.changed, r.error) for r in results] == [
        (a, "DEFAULT", "FULL", True, None),
        (b, "DEFAULT", 'USING INDEX "b_u"', True, None),
        (c, "NOTHING", "NOTHING", False, None),
    ]
    assert await replica_identity_of(sql, a) == "FULL"
    assert await replica_identity_of(sql, b) == 'USING INDEX "b_u"'
    again = await apply_replica_identities(sql, cfg.replica_identity_autoset_values, [a, b, c])
    assert [r.changed for r in again] == [False, False, False]


async def test_replica_identity_failures_are_per_table(pg_dsn: str, schema: str, sql: Any, cleanup: list[str]) -> None:
    role = schema + "_r"
    await sql.execute(f"CREATE ROLE {role} LOGIN".encode())
    cleanup.append(f"DROP ROLE IF EXISTS {role}")
    cleanup.append(f"DROP OWNED BY {role}")  # runs first: the role owns a table and holds a grant
    await sql.execute(f"GRANT USAGE ON SCHEMA {schema} TO {role}".encode())
    await sql.execute(f"ALTER TABLE {schema}.c OWNER TO {role}".encode())
    cfg = config_for(pg_dsn, replica__identity__autoset__values=f"{schema}\\..*:FULL")
    a, c = TableId(schema, "a"), TableId(schema, "c")
    conn = await psycopg.AsyncConnection.connect(pg_dsn + f" user={role}", autocommit=True)
    try:
        results = await apply_replica_identities(conn, cfg.replica_identity_autoset_values, [a, c])
    finally:
        await conn.close()
    assert [(r.table, r.changed) for r in results] == [(a, False), (c, True)]
    assert results[0].error is not None and "must be owner" in results[0].error
    assert await replica_identity_of(sql, a) == "DEFAULT"
    assert await replica_identity_of(sql, c) == "FULL"


async def test_replica_identity_with_two_matching_rules_is_skipped(pg_dsn: str, schema: str, sql: Any) -> None:
    cfg = config_for(pg_dsn, replica__identity__autoset__values=f"{schema}.a:FULL,{schema}\\..*:NOTHING")
    results = await apply_replica_identities(sql, cfg.replica_identity_autoset_values, [TableId(schema, "a")])
    assert results[0].error == f"More than one Regular expressions matched table {schema}.a"
    assert await replica_identity_of(sql, TableId(schema, "a")) == "DEFAULT"


# -- slots ------------------------------------------------------------------------------------------------------


async def test_ensure_slot_creates_with_an_exported_snapshot(
    pg_dsn: str, unique_name: str, sql: Any, cleanup: list[str]
) -> None:
    cfg = config_for(pg_dsn, slot__name=unique_name)
    async with await ReplicationConnection.connect(pg_dsn) as repl:
        cleanup.append(f"slot:{unique_name}")
        ensured = await ensure_slot(sql, repl, cfg)
        assert ensured.was_created and ensured.created is not None
        assert ensured.created.snapshot_name and ensured.created.output_plugin == "pgoutput"
        # The exported snapshot can be imported while the replication connection stays idle.
        async with sql.transaction():
            await sql.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            await sql.execute(f"SET TRANSACTION SNAPSHOT '{ensured.created.snapshot_name}'".encode())
        again = await ensure_slot(sql, repl, cfg, snapshot=SnapshotAction.NOEXPORT)
        assert not again.was_created and again.info is not None and again.info.plugin == "pgoutput"


async def test_ensure_slot_refuses_a_slot_of_another_plugin(
    pg_dsn: str, unique_name: str, sql: Any, cleanup: list[str]
) -> None:
    await sql.execute("SELECT pg_create_logical_replication_slot(%s, 'test_decoding')", [unique_name])
    cleanup.append(f"slot:{unique_name}")
    async with await ReplicationConnection.connect(pg_dsn) as repl:
        with pytest.raises(PostgresConfigError) as err:
            await ensure_slot(sql, repl, config_for(pg_dsn, slot__name=unique_name))
    assert "exists for plugin 'test_decoding'" in str(err.value) and DISTINCT_SLOT_ADVICE in str(err.value)


async def test_a_creation_race_suggests_a_distinct_slot_name(
    pg_dsn: str, unique_name: str, sql: Any, cleanup: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    await sql.execute("SELECT pg_create_logical_replication_slot(%s, 'pgoutput')", [unique_name])
    cleanup.append(f"slot:{unique_name}")

    async def not_found(conn: Any, name: str) -> None:  # another connector creates it after our look-up
        return None

    monkeypatch.setattr(slot_module, "fetch_slot_info", not_found)
    async with await ReplicationConnection.connect(pg_dsn) as repl:
        with pytest.raises(ReplicationSlotExistsError) as err:
            await ensure_slot(sql, repl, config_for(pg_dsn, slot__name=unique_name))
    assert str(err.value) == (
        f"Creation of replication slot '{unique_name}' failed: it already exists; {DISTINCT_SLOT_ADVICE}"
    )


async def test_drop_slot_on_stop(pg_dsn: str, unique_name: str, sql: Any, cleanup: list[str]) -> None:
    await sql.execute("SELECT pg_create_logical_replication_slot(%s, 'pgoutput')", [unique_name])
    cleanup.append(f"slot:{unique_name}")
    assert await drop_slot_on_stop(sql, config_for(pg_dsn, slot__name=unique_name)) is False
    assert await fetch_slot_info(sql, unique_name) is not None
    cfg = config_for(pg_dsn, slot__name=unique_name, slot__drop__on__stop="true")
    assert await drop_slot_on_stop(sql, cfg) is True
    assert await fetch_slot_info(sql, unique_name) is None
    assert await drop_slot_on_stop(sql, cfg) is False


async def test_retry_while_the_slot_is_in_use(pg_dsn: str, unique_name: str, sql: Any, cleanup: list[str]) -> None:
    pub = unique_name + "_p"
    await sql.execute(f"CREATE PUBLICATION {pub}".encode())
    cleanup.append(f"DROP PUBLICATION IF EXISTS {pub}")
    cfg = config_for(pg_dsn, slot__name=unique_name, publication__name=pub, slot__max__retries="2")
    plugin = output_plugin(cfg, 150000)
    sleeps: list[float] = []

    async def no_sleep(seconds: float) -> None:
        sleeps.append(seconds)

    async with (
        await ReplicationConnection.connect(pg_dsn) as holder,
        await ReplicationConnection.connect(pg_dsn) as other,
    ):
        await holder.create_slot(unique_name, "pgoutput")
        cleanup.append(f"slot:{unique_name}")
        held = await holder.start_replication(unique_name, plugin)
        with pytest.raises(ReplicationSlotInUseError) as err:
            await retry_slot_operation(
                lambda: other.start_replication(unique_name, plugin),
                cfg,
                description="Failed to start replication stream at 0/0",
                sleep=no_sleep,
            )
        assert str(err.value).startswith(f"Failed to start replication stream at 0/0; {DISTINCT_SLOT_ADVICE}")
        assert err.value.sqlstate == "55006" and sleeps == [10.0, 10.0]

        # Released during the wait: the next attempt succeeds.
        sleeps.clear()

        async def release(seconds: float) -> None:
            sleeps.append(seconds)
            await held.stop()
            for _ in range(50):
                info = await fetch_slot_info(sql, unique_name)
                if info is not None and not info.active:
                    return
                await asyncio.sleep(0.1)

        stream = await retry_slot_operation(lambda: other.start_replication(unique_name, plugin), cfg, sleep=release)
        await stream.stop()
        assert sleeps == [10.0]


def test_stream_params_become_plugin_options() -> None:
    assert parse_stream_params(None) == ()
    assert parse_stream_params("add-tables=public.t1,public.t2; include-lsn=true;bogus;;=x") == (
        ("add-tables", "public.t1,public.t2"),
        ("include-lsn", "true"),
    )
    cfg = config_for("host=h port=1 user=u dbname=d", slot__stream__params="binary=false", publication__name="p")
    plugin = output_plugin(cfg, 150000)
    assert isinstance(plugin, PgOutputPlugin)
    assert list(plugin.start_options()) == [
        ("proto_version", "1"),
        ("publication_names", '"p"'),
        ("messages", "true"),
        ("binary", "false"),
    ]
    assert output_plugin(cfg, 130000).start_options()[-1] == ("binary", "false")
    assert ("messages", "true") not in list(output_plugin(cfg, 130000).start_options())
    dbufs = output_plugin(
        config_for("host=h port=1 user=u dbname=d", slot__stream__params="a=1", plugin__name="decoderbufs"), 150000
    )
    assert isinstance(dbufs, DecoderbufsPlugin) and list(dbufs.start_options()) == [("a", "1")]
    with pytest.raises(ConnectError, match="publication_names"):
        output_plugin(config_for("host=h port=1 user=u dbname=d", slot__stream__params="publication_names=x"), 150000)
