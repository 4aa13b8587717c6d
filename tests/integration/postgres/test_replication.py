"""The replication transport against the real PostgreSQL 15 of the devstack (no mocks).

Every test makes its own tables, publication and slots with unique names and drops them afterwards.
Server settings that a test needs (logical_decoding_work_mem, wal_sender_timeout) are set on the test's
own replication connection, never server-wide.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import psycopg
import pytest

from connect_worker.api.errors import ConfigError, RetriableError
from connectors.postgres.errors import (
    PostgresConfigError,
    PostgresConnectionError,
    PostgresError,
    ReplicationSlotExistsError,
    ReplicationSlotInUseError,
    ReplicationSlotNotFoundError,
)
from connectors.postgres.lsn import Lsn
from connectors.postgres.protocol import decoderbufs as dbufs
from connectors.postgres.protocol.pgoutput import (
    Begin,
    Commit,
    Delete,
    Insert,
    LogicalMessage,
    PgOutputMessage,
    Relation,
    StreamAbort,
    StreamCommit,
    StreamStart,
    StreamStop,
    Truncate,
    Update,
)
from connectors.postgres.protocol.plugins import DecoderbufsPlugin, PgOutputPlugin
from connectors.postgres.protocol.toast import UNCHANGED_TOAST
from connectors.postgres.replication import (
    ReplicationConnection,
    ReplicationStream,
    SnapshotAction,
    fetch_slot_info,
)
from tests.integration.postgres.conftest import run_cleanup
from tests.worker_support import wait_for

pytestmark = pytest.mark.integration

TIMEOUT = 60.0


async def setup_tables(sql: psycopg.AsyncConnection[Any], cleanup: list[str], name: str) -> tuple[str, str, str]:
    """A DEFAULT-identity table with an out-of-line text column, a FULL-identity table, a publication."""
    t_def, t_full, pub = f"{name}_def", f"{name}_full", f"{name}_pub"
    await sql.execute(f"CREATE TABLE {t_def} (id int PRIMARY KEY, name text, big text)".encode())
    cleanup.append(f"DROP TABLE IF EXISTS {t_def}")
    await sql.execute(f"ALTER TABLE {t_def} ALTER COLUMN big SET STORAGE EXTERNAL".encode())
    await sql.execute(f"CREATE TABLE {t_full} (id int PRIMARY KEY, v text)".encode())
    cleanup.append(f"DROP TABLE IF EXISTS {t_full}")
    await sql.execute(f"ALTER TABLE {t_full} REPLICA IDENTITY FULL".encode())
    await sql.execute(f"CREATE PUBLICATION {pub} FOR TABLE {t_def}, {t_full}".encode())
    cleanup.append(f"DROP PUBLICATION IF EXISTS {pub}")
    return t_def, t_full, pub


async def new_slot(repl: ReplicationConnection, cleanup: list[str], slot: str, plugin: str = "pgoutput") -> Lsn:
    created = await repl.create_slot(slot, plugin)
    cleanup.append(f"slot:{slot}")
    assert created.slot_name == slot and created.output_plugin == plugin and created.snapshot_name is None
    return created.consistent_point


async def collect(
    stream: ReplicationStream[Any], until: Callable[[Any], bool], timeout: float = TIMEOUT
) -> list[tuple[Lsn, Any]]:
    """Messages up to and including the first one ``until`` accepts."""
    out: list[tuple[Lsn, Any]] = []
    async with asyncio.timeout(timeout):
        async for item in stream:
            out.append(item)
            if until(item[1]):
                return out
    raise AssertionError(f"the stream ended before the expected message; got {[m for _, m in out]}")


def kinds(items: list[tuple[Lsn, Any]]) -> list[str]:
    return [type(m).__name__ for _, m in items]


# -- commands ---------------------------------------------------------------------------------------------


async def test_identify_system_and_slot_lifecycle(
    pg_dsn: str, unique_name: str, sql: psycopg.AsyncConnection[Any], cleanup: list[str]
) -> None:
    async with await ReplicationConnection.connect(pg_dsn) as repl:
        ident = await repl.identify_system()
        assert ident.timeline >= 1 and ident.dbname == "postgres" and ident.system_id.isdigit()
        assert ident.xlogpos > Lsn.ZERO

        slot = unique_name + "_s"
        point = await new_slot(repl, cleanup, slot)
        assert point >= ident.xlogpos
        info = await fetch_slot_info(sql, slot)
        assert info is not None
        assert (info.plugin, info.slot_type, info.database, info.active) == ("pgoutput", "logical", "postgres", False)
        assert info.confirmed_flush_lsn == point and info.restart_lsn is not None

        with pytest.raises(ReplicationSlotExistsError) as exists:
            await repl.create_slot(slot, "pgoutput")
        assert exists.value.sqlstate == "42710" and isinstance(exists.value, ConfigError)

        await repl.drop_slot(slot)
        assert await fetch_slot_info(sql, slot) is None


async def test_exported_snapshot_is_importable(
    pg_dsn: str, unique_name: str, sql: psycopg.AsyncConnection[Any], cleanup: list[str]
) -> None:
    table = unique_name + "_snap"
    await sql.execute(f"CREATE TABLE {table} (id int PRIMARY KEY)".encode())
    cleanup.append(f"DROP TABLE IF EXISTS {table}")
    await sql.execute(f"INSERT INTO {table} VALUES (1)".encode())
    async with await ReplicationConnection.connect(pg_dsn) as repl:
        created = await repl.create_slot(unique_name + "_s", "pgoutput", snapshot=SnapshotAction.EXPORT)
        cleanup.append(f"slot:{unique_name}_s")
        assert created.snapshot_name
        await sql.execute(f"INSERT INTO {table} VALUES (2)".encode())  # after the slot's consistent point
        async with await psycopg.AsyncConnection.connect(pg_dsn) as reader:
            await reader.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
            await reader.execute(f"SET TRANSACTION SNAPSHOT '{created.snapshot_name}'".encode())
            cur = await reader.execute(f"SELECT count(*) FROM {table}".encode())
            assert await cur.fetchone() == (1,)
            await reader.rollback()


async def test_use_snapshot_in_the_replication_transaction(
    pg_dsn: str, unique_name: str, sql: psycopg.AsyncConnection[Any], cleanup: list[str]
) -> None:
    table = unique_name + "_snap"
    await sql.execute(f"CREATE TABLE {table} (id int PRIMARY KEY)".encode())
    cleanup.append(f"DROP TABLE IF EXISTS {table}")
    await sql.execute(f"INSERT INTO {table} VALUES (1), (2)".encode())
    async with await ReplicationConnection.connect(pg_dsn) as repl:
        await repl.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        created = await repl.create_slot(unique_name + "_s", "pgoutput", snapshot=SnapshotAction.USE)
        cleanup.append(f"slot:{unique_name}_s")
        assert created.snapshot_name is None
        await sql.execute(f"INSERT INTO {table} VALUES (3)".encode())
        assert await repl.execute(f"SELECT count(*) FROM {table}") == [(2,)]
        await repl.execute("COMMIT")


async def test_temporary_two_phase_slot(pg_dsn: str, unique_name: str, sql: psycopg.AsyncConnection[Any]) -> None:
    async with await ReplicationConnection.connect(pg_dsn) as repl:
        await repl.create_slot(unique_name + "_s", "pgoutput", temporary=True, two_phase=True)
        info = await fetch_slot_info(sql, unique_name + "_s")
        assert info is not None and info.temporary

    # gone with its session: the server drops the slot as the backend exits, which is after our socket closes
    async def slot_gone() -> bool:
        return await fetch_slot_info(sql, unique_name + "_s") is None

    await wait_for(slot_gone, timeout=10.0)


# -- pgoutput protocol 1 ----------------------------------------------------------------------------------


async def test_pgoutput_v1_every_message_kind(
    pg_dsn: str, unique_name: str, sql: psycopg.AsyncConnection[Any], cleanup: list[str]
) -> None:
    t_def, t_full, pub = await setup_tables(sql, cleanup, unique_name)
    slot = unique_name + "_s"
    async with await ReplicationConnection.connect(pg_dsn) as repl:
        await new_slot(repl, cleanup, slot)
        big = "x" * 3000  # > 2 kB with EXTERNAL storage: stored out of line
        async with sql.transaction():
            await sql.execute(f"INSERT INTO {t_def} VALUES (1, 'a', %s)".encode(), [big])
            await sql.execute(f"UPDATE {t_def} SET name = 'b' WHERE id = 1".encode())
            await sql.execute(f"UPDATE {t_def} SET id = 2 WHERE id = 1".encode())
            await sql.execute(f"INSERT INTO {t_full} VALUES (1, 'x')".encode())
            await sql.execute(f"UPDATE {t_full} SET v = 'y' WHERE id = 1".encode())
            await sql.execute(f"DELETE FROM {t_full} WHERE id = 1".encode())
            await sql.execute(f"DELETE FROM {t_def} WHERE id = 2".encode())
            await sql.execute("SELECT pg_logical_emit_message(true, 'txprefix', 'tx-message')")
        await sql.execute("SELECT pg_logical_emit_message(false, 'nontx', 'hello')")
        await sql.execute(f"TRUNCATE {t_full}".encode())

        stream = await repl.start_replication(slot, PgOutputPlugin((pub,)))
        items = await collect(stream, lambda m: isinstance(m, Truncate))
        items += await collect(stream, lambda m: isinstance(m, Commit))
        assert kinds(items) == [
            "Begin",
            "Relation",
            "Insert",
            "Update",
            "Update",
            "Relation",
            "Insert",
            "Update",
            "Delete",
            "Delete",
            "LogicalMessage",
            "Commit",
            "LogicalMessage",
            "Begin",
            "Relation",  # sent again: TRUNCATE gave the table a new relfilenode (relcache invalidation)
            "Truncate",
            "Commit",
        ]
        msgs = [m for _, m in items]
        begin, rel_def, ins, upd_same_key, upd_new_key = msgs[0:5]
        rel_full, ins_full, upd_full, del_full, del_def, tx_msg, commit, nontx_msg = msgs[5:13]
        truncate, commit2 = msgs[15], msgs[16]

        assert isinstance(begin, Begin) and isinstance(commit, Commit)
        assert begin.final_lsn == commit.commit_lsn and commit.end_lsn > commit.commit_lsn
        assert begin.commit_time == commit.commit_time
        assert items[0][0] > Lsn.ZERO and items[1][0] == Lsn.ZERO  # Relation has no WAL position

        assert isinstance(rel_def, Relation) and isinstance(rel_full, Relation)
        assert (rel_def.namespace, rel_def.name, rel_def.replica_identity) == ("public", t_def, "d")
        assert [(c.name, c.type_oid, c.is_key) for c in rel_def.columns] == [
            ("id", 23, True),
            ("name", 25, False),
            ("big", 25, False),
        ]
        assert (rel_full.name, rel_full.replica_identity) == (t_full, "f")

        assert ins == Insert(None, rel_def.relation_id, ("1", "a", big))
        # DEFAULT identity, key unchanged: no old tuple; the unchanged TOASTed value is the marker
        assert isinstance(upd_same_key, Update)
        assert (upd_same_key.key, upd_same_key.old) == (None, None)
        assert upd_same_key.new == ("1", "b", UNCHANGED_TOAST) and upd_same_key.new[2] is UNCHANGED_TOAST
        # DEFAULT identity, key changed: the old key ('K') with the other columns null
        assert isinstance(upd_new_key, Update)
        assert upd_new_key.key == ("1", None, None) and upd_new_key.old is None
        assert upd_new_key.new == ("2", "b", UNCHANGED_TOAST)
        # FULL identity: the whole old row ('O')
        assert ins_full == Insert(None, rel_full.relation_id, ("1", "x"))
        assert upd_full == Update(None, rel_full.relation_id, None, ("1", "x"), ("1", "y"))
        assert del_full == Delete(None, rel_full.relation_id, None, ("1", "y"))
        assert del_def == Delete(None, rel_def.relation_id, ("2", None, None), None)

        assert isinstance(tx_msg, LogicalMessage) and isinstance(nontx_msg, LogicalMessage)
        assert (tx_msg.transactional, tx_msg.prefix, tx_msg.content) == (True, "txprefix", b"tx-message")
        assert (nontx_msg.transactional, nontx_msg.prefix, nontx_msg.content) == (False, "nontx", b"hello")

        assert isinstance(truncate, Truncate) and truncate.relation_ids == (rel_full.relation_id,)
        assert not truncate.cascade and not truncate.restart_identity
        assert isinstance(commit2, Commit)
        stream.confirm(commit2.end_lsn)
        await stream.stop()


async def test_acknowledged_positions_are_not_delivered_again(
    pg_dsn: str, unique_name: str, sql: psycopg.AsyncConnection[Any], cleanup: list[str]
) -> None:
    t_def, _, pub = await setup_tables(sql, cleanup, unique_name)
    slot = unique_name + "_s"
    plugin = PgOutputPlugin((pub,))
    async with await ReplicationConnection.connect(pg_dsn) as repl:
        await new_slot(repl, cleanup, slot)
        for i in (1, 2, 3):
            await sql.execute(f"INSERT INTO {t_def} (id, name) VALUES ({i}, 'tx{i}')".encode())

        stream = await repl.start_replication(slot, plugin)
        items = await collect(stream, lambda m: isinstance(m, Commit))
        items += await collect(stream, lambda m: isinstance(m, Commit))
        items += await collect(stream, lambda m: isinstance(m, Commit))
        commits = [m for _, m in items if isinstance(m, Commit)]
        assert [m.new[1] for _, m in items if isinstance(m, Insert)] == ["tx1", "tx2", "tx3"]
        stream.confirm(commits[0].end_lsn)  # only the first transaction is "stored"
        await stream.stop()
        assert stream.closed and not repl.streaming

        info = await fetch_slot_info(sql, slot)
        assert info is not None and not info.active and info.confirmed_flush_lsn == commits[0].end_lsn

        # After a clean stop the connection runs commands again ...
        assert (await repl.identify_system()).xlogpos >= commits[2].end_lsn
        # ... but the walsender would end a second logical stream at once: refused, not silently empty.
        with pytest.raises(PostgresError, match="new ReplicationConnection"):
            await repl.start_replication(slot, plugin)

    async with await ReplicationConnection.connect(pg_dsn) as repl:
        stream = await repl.start_replication(slot, plugin)
        items = await collect(stream, lambda m: isinstance(m, Commit))
        assert [m.new[1] for _, m in items if isinstance(m, Insert)] == ["tx2"]
        assert isinstance(items[0][1], Begin) and items[0][1].final_lsn == commits[1].commit_lsn
        stream.confirm(commits[2].end_lsn)
        await stream.stop()

    # a start position before the confirmed one is not honoured: the slot never goes back
    async with await ReplicationConnection.connect(pg_dsn) as repl:
        stream = await repl.start_replication(slot, plugin, start_lsn=commits[0].commit_lsn)
        assert await stream.read_batch(10, timeout=1.0) == []
        await stream.stop()
    info = await fetch_slot_info(sql, slot)
    assert info is not None and info.confirmed_flush_lsn == commits[2].end_lsn


# -- pgoutput protocol 2: streaming of in-progress transactions ------------------------------------------


async def test_pgoutput_v2_streams_large_and_aborted_transactions(
    pg_dsn: str, unique_name: str, sql: psycopg.AsyncConnection[Any], cleanup: list[str]
) -> None:
    t_def, _, pub = await setup_tables(sql, cleanup, unique_name)
    slot = unique_name + "_s"
    plugin = PgOutputPlugin((pub,), proto_version=2, streaming=True)
    rows = 5000
    options = "-c logical_decoding_work_mem=64kB"  # this walsender only: stream beyond 64 kB
    async with await ReplicationConnection.connect(pg_dsn, options=options) as repl:
        await new_slot(repl, cleanup, slot)
        fill = f"INSERT INTO {t_def} (id, name) SELECT g, repeat('n', 40) || g FROM generate_series(%s::int, %s::int) g"
        xid_query = "SELECT (txid_current() % 4294967296)::bigint"  # the 32-bit xid pgoutput sends
        async with sql.transaction():
            await sql.execute(fill.encode(), [1, rows])
            committed_xid = (await (await sql.execute(xid_query)).fetchall())[0][0]
        async with sql.transaction():
            await sql.execute(fill.encode(), [rows + 1, 2 * rows])
            aborted_xid = (await (await sql.execute(xid_query)).fetchall())[0][0]
            raise psycopg.Rollback()
        await sql.execute(f"INSERT INTO {t_def} (id, name) VALUES (0, 'marker')".encode())

        stream = await repl.start_replication(slot, plugin)
        items = await collect(stream, lambda m: isinstance(m, Commit))
        msgs = [m for _, m in items]

        starts = [m for m in msgs if isinstance(m, StreamStart)]
        assert starts and {s.xid for s in starts} == {committed_xid, aborted_xid}
        assert next(s.first_segment for s in starts if s.xid == committed_xid) is True
        assert sum(isinstance(m, StreamStop) for m in msgs) == len(starts)
        streamed = [m for m in msgs if isinstance(m, Insert) and m.xid is not None]
        assert sum(1 for m in streamed if m.xid == committed_xid) == rows
        commit = next(m for m in msgs if isinstance(m, StreamCommit))
        assert commit.xid == committed_xid and commit.end_lsn > commit.commit_lsn
        abort = next(m for m in msgs if isinstance(m, StreamAbort))
        assert (abort.xid, abort.subxid) == (aborted_xid, aborted_xid)
        assert msgs.index(commit) < msgs.index(abort)
        # the small transaction is not streamed: plain Begin / Insert without xid / Commit
        marker = msgs[-2]
        assert isinstance(marker, Insert) and marker.xid is None and marker.new[1] == "marker"
        # every message inside a stream block carries the block's xid
        current = None
        for m in msgs:
            if isinstance(m, StreamStart):
                current = m.xid
            elif isinstance(m, StreamStop):
                current = None
            elif isinstance(m, Insert | Relation) and current is not None:
                assert m.xid == current

        final = msgs[-1]
        assert isinstance(final, Commit)
        stream.confirm(final.end_lsn)
        await stream.stop()

    # acknowledged past the abort: the aborted transaction is not streamed again
    async with await ReplicationConnection.connect(pg_dsn, options=options) as repl:
        stream = await repl.start_replication(slot, plugin)
        assert await stream.read_batch(100, timeout=1.5) == []
        await stream.stop()


# -- decoderbufs ------------------------------------------------------------------------------------------


async def test_decoderbufs(own_database: str, unique_name: str) -> None:
    """In a database of its own: decoderbufs sends every transaction of its database, so another test's commit
    in a shared one would come first here as an empty transaction."""
    pg_dsn, cleanup = own_database, list[str]()
    async with await psycopg.AsyncConnection.connect(pg_dsn, autocommit=True) as sql:
        try:
            t_def, _, _ = await setup_tables(sql, cleanup, unique_name)
            slot = unique_name + "_s"
            big = "y" * 3000
            async with await ReplicationConnection.connect(pg_dsn) as repl:
                await new_slot(repl, cleanup, slot, plugin="decoderbufs")
                async with sql.transaction():
                    await sql.execute(f"INSERT INTO {t_def} VALUES (1, 'a', %s)".encode(), [big])
                    await sql.execute(f"UPDATE {t_def} SET name = NULL WHERE id = 1".encode())
                    await sql.execute(f"DELETE FROM {t_def} WHERE id = 1".encode())

                stream = await repl.start_replication(slot, DecoderbufsPlugin())
                items = await collect(stream, lambda m: isinstance(m, dbufs.TxCommit))
                assert kinds(items) == ["TxBegin", "RowChange", "RowChange", "RowChange", "TxCommit"]
                begin, ins, upd, dele, commit = (m for _, m in items)
                assert begin.xid == commit.xid == ins.xid and begin.xid > 0
                assert all(lsn > Lsn.ZERO for lsn, _ in items)

                assert ins.op is dbufs.Op.INSERT and ins.table == f"public.{t_def}"
                assert ins.new_tuple == (
                    dbufs.Datum("id", 23, 1),
                    dbufs.Datum("name", 25, "a"),
                    dbufs.Datum("big", 25, big),
                )
                assert [t.modifier for t in ins.new_typeinfo] == ["integer", "text", "text"]
                assert [t.value_optional for t in ins.new_typeinfo] == [False, True, True]

                assert upd.op is dbufs.Op.UPDATE
                assert [d.value for d in upd.new_tuple] == [1, None, UNCHANGED_TOAST]
                assert upd.new_tuple[2].value is UNCHANGED_TOAST

                assert dele.op is dbufs.Op.DELETE and dele.new_tuple == ()
                assert dele.old_tuple[0] == dbufs.Datum("id", 23, 1)

                stream.confirm(items[-1][0])
                await stream.stop()
        finally:
            await run_cleanup(sql, cleanup)


# -- keepalives, errors -----------------------------------------------------------------------------------


async def test_keepalives_are_answered_while_idle(
    pg_dsn: str, unique_name: str, sql: psycopg.AsyncConnection[Any], cleanup: list[str]
) -> None:
    t_def, _, pub = await setup_tables(sql, cleanup, unique_name)
    slot = unique_name + "_s"
    # The server asks for a reply after half of wal_sender_timeout without one and drops the connection
    # after all of it; the periodic status timer is set far beyond, so only keepalive replies keep us.
    async with await ReplicationConnection.connect(pg_dsn, options="-c wal_sender_timeout=2s") as repl:
        await new_slot(repl, cleanup, slot)
        stream: ReplicationStream[PgOutputMessage] = await repl.start_replication(
            slot, PgOutputPlugin((pub,)), status_interval=3600
        )
        assert await stream.read_batch(10, timeout=5.0) == []  # idle for 2.5 timeouts, and no error
        assert stream.stats.keepalive_replies >= 1
        assert stream.server_wal_end > Lsn.ZERO

        await sql.execute(f"INSERT INTO {t_def} (id) VALUES (1)".encode())
        items = await collect(stream, lambda m: isinstance(m, Commit))
        assert any(isinstance(m, Insert) for _, m in items)
        await stream.stop()


async def test_second_consumer_of_an_active_slot(
    pg_dsn: str, unique_name: str, sql: psycopg.AsyncConnection[Any], cleanup: list[str]
) -> None:
    _, _, pub = await setup_tables(sql, cleanup, unique_name)
    slot = unique_name + "_s"
    plugin = PgOutputPlugin((pub,))
    async with (
        await ReplicationConnection.connect(pg_dsn) as first,
        await ReplicationConnection.connect(pg_dsn) as second,
    ):
        await new_slot(first, cleanup, slot)
        stream = await first.start_replication(slot, plugin)

        with pytest.raises(ReplicationSlotInUseError) as in_use:
            await second.start_replication(slot, plugin)
        assert in_use.value.sqlstate == "55006" and isinstance(in_use.value, RetriableError)
        assert slot in str(in_use.value)
        with pytest.raises(ReplicationSlotInUseError):
            await second.drop_slot(slot)
        assert (await second.identify_system()).timeline >= 1  # still usable

        await stream.stop()
        for _ in range(50):  # the first walsender releases the slot right after its CopyDone
            info = await fetch_slot_info(sql, slot)
            if info is not None and not info.active:
                break
            await asyncio.sleep(0.1)
        second_stream = await second.start_replication(slot, plugin)  # free again
        await second_stream.stop()


async def test_nonexistent_slot(pg_dsn: str, unique_name: str) -> None:
    async with await ReplicationConnection.connect(pg_dsn) as repl:
        with pytest.raises(ReplicationSlotNotFoundError) as missing:
            await repl.start_replication(unique_name, PgOutputPlugin(("nopub",)))
        assert missing.value.sqlstate == "42704" and isinstance(missing.value, ConfigError)
        assert unique_name in str(missing.value)
        with pytest.raises(ReplicationSlotNotFoundError):
            await repl.drop_slot(unique_name)
        assert not repl.streaming
        assert (await repl.identify_system()).timeline >= 1  # the failed command left it usable


async def test_missing_publication_fails_the_stream_as_config_error(
    pg_dsn: str, unique_name: str, sql: psycopg.AsyncConnection[Any], cleanup: list[str]
) -> None:
    t_def, _, _ = await setup_tables(sql, cleanup, unique_name)
    slot = unique_name + "_s"
    async with await ReplicationConnection.connect(pg_dsn) as repl:
        await new_slot(repl, cleanup, slot)
        await sql.execute(f"INSERT INTO {t_def} (id) VALUES (1)".encode())
        stream = await repl.start_replication(slot, PgOutputPlugin((unique_name + "_nopub",)))
        with pytest.raises(PostgresConfigError) as failed:
            await collect(stream, lambda m: False, timeout=10)
        assert failed.value.sqlstate == "42704"
        # the error surfaces with the server's error result; the end of the results, which closes the
        # stream, may follow a moment later
        for _ in range(50):
            if stream.closed:
                break
            await asyncio.sleep(0.1)
        assert stream.closed and not repl.streaming
        assert (await repl.identify_system()).timeline >= 1


async def test_unreachable_server_is_retriable(unique_name: str) -> None:
    with pytest.raises(PostgresConnectionError):
        await ReplicationConnection.connect("host=127.0.0.1 port=1 user=postgres connect_timeout=2")
