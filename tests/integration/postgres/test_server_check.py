"""validate_connection against the real PostgreSQL 15 of the devstack (trust authentication).

Roles, databases and slots get unique names and are dropped afterwards.
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import psycopg
import pytest

from connectors.postgres.config import PostgresConnectorConfig
from connectors.postgres.protocol.plugins import PgOutputPlugin
from connectors.postgres.replication import ReplicationConnection, fetch_slot_info
from connectors.postgres.server_check import validate_connection

pytestmark = pytest.mark.integration

SECRET = "Xy-very-secret-9"


def props_for(pg_dsn: str, **overrides: str) -> dict[str, str]:
    params = psycopg.conninfo.conninfo_to_dict(pg_dsn)
    base = {
        "topic.prefix": "tp",
        "database.hostname": str(params["host"]),
        "database.port": str(params["port"]),
        "database.user": str(params["user"]),
        "database.dbname": str(params["dbname"]),
        "plugin.name": "pgoutput",
    }
    return base | {k.replace("__", "."): v for k, v in overrides.items()}


def config_for(pg_dsn: str, **overrides: str) -> PostgresConnectorConfig:
    return PostgresConnectorConfig.from_props(props_for(pg_dsn, **overrides))


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_a_suitable_server_has_no_problems(pg_dsn: str, unique_name: str) -> None:
    assert await validate_connection(config_for(pg_dsn, slot__name=unique_name)) == {}


async def test_refused_connection_gives_debeziums_message(pg_dsn: str) -> None:
    port = closed_port()
    problems = await validate_connection(config_for(pg_dsn, database__port=str(port), database__password=SECRET))
    assert problems == {
        "database.hostname": [
            f"Error while validating connector config: Connection to 127.0.0.1:{port} refused. Check that the "
            "hostname and port are correct and that the postmaster is accepting TCP/IP connections."
        ]
    }


async def test_a_malformed_host_port_is_a_problem_not_a_crash(pg_dsn: str) -> None:
    problems = await validate_connection(config_for(pg_dsn, database__hostname="localhost:abc"))
    assert problems == {
        "database.hostname": ["database.hostname entry 'localhost:abc' has an invalid port (1-65535 expected)"]
    }


async def test_unknown_host(pg_dsn: str) -> None:
    problems = await validate_connection(config_for(pg_dsn, database__hostname="no-such-host.invalid"))
    assert list(problems) == ["database.hostname"]
    assert problems["database.hostname"][0].startswith("Error while validating connector config: ")


async def test_unknown_role_is_keyed_on_the_user_without_the_password(pg_dsn: str, unique_name: str) -> None:
    problems = await validate_connection(config_for(pg_dsn, database__user=unique_name, database__password=SECRET))
    assert problems == {
        "database.user": [f'Error while validating connector config: FATAL: role "{unique_name}" does not exist']
    }
    assert SECRET not in repr(problems)


async def test_role_that_may_not_log_in(pg_dsn: str, unique_name: str, sql: Any, cleanup: list[str]) -> None:
    await sql.execute(f"CREATE ROLE {unique_name} NOLOGIN".encode())
    cleanup.append(f"DROP ROLE IF EXISTS {unique_name}")
    problems = await validate_connection(config_for(pg_dsn, database__user=unique_name))
    assert list(problems) == ["database.user"]
    assert f'"{unique_name}" is not permitted to log in' in problems["database.user"][0]


async def test_unknown_database_is_keyed_on_dbname(pg_dsn: str, unique_name: str) -> None:
    problems = await validate_connection(config_for(pg_dsn, database__dbname=unique_name))
    assert problems == {
        "database.dbname": [f'Error while validating connector config: FATAL: database "{unique_name}" does not exist']
    }


async def test_role_without_replication(pg_dsn: str, unique_name: str, sql: Any, cleanup: list[str]) -> None:
    await sql.execute(f"CREATE ROLE {unique_name} LOGIN PASSWORD '{SECRET}'".encode())
    cleanup.append(f"DROP ROLE IF EXISTS {unique_name}")
    props = props_for(pg_dsn, database__user=unique_name, database__password=SECRET, slot__name=unique_name)
    problems = await validate_connection(PostgresConnectorConfig.from_props(props))
    assert problems == {
        "database.user": [f"Postgres roles LOGIN and REPLICATION are not assigned to user: {unique_name}"]
    }
    await sql.execute(f"ALTER ROLE {unique_name} REPLICATION".encode())
    assert await validate_connection(PostgresConnectorConfig.from_props(props)) == {}


async def test_database_encoding_must_be_utf8(pg_dsn: str, unique_name: str, sql: Any, cleanup: list[str]) -> None:
    await sql.execute(
        f"CREATE DATABASE {unique_name} ENCODING 'SQL_ASCII' TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'".encode()
    )
    cleanup.append(f"DROP DATABASE IF EXISTS {unique_name} WITH (FORCE)")
    problems = await validate_connection(config_for(pg_dsn, database__dbname=unique_name, slot__name=unique_name))
    assert problems == {
        "database.dbname": [
            f"The database '{unique_name}' uses the encoding SQL_ASCII; the connector supports only UTF8 databases"
        ]
    }


async def test_decoderbufs_needs_no_preloading(pg_dsn: str, unique_name: str, sql: Any) -> None:
    """decoderbufs streams without shared_preload_libraries on PostgreSQL 15: validation does not ask for it."""
    problems = await validate_connection(config_for(pg_dsn, plugin__name="decoderbufs", slot__name=unique_name))
    assert "plugin.name" not in problems


async def test_slot_of_another_plugin_or_database(pg_dsn: str, unique_name: str, sql: Any, cleanup: list[str]) -> None:
    slot = unique_name + "_s"
    await sql.execute("SELECT pg_create_logical_replication_slot(%s, 'test_decoding')", [slot])
    cleanup.append(f"slot:{slot}")
    problems = await validate_connection(config_for(pg_dsn, slot__name=slot))
    assert problems == {
        "slot.name": [
            f"The replication slot '{slot}' exists for the plug-in 'test_decoding', but plugin.name is 'pgoutput'; "
            "use a distinct slot.name"
        ]
    }
    await sql.execute(f"CREATE DATABASE {unique_name}".encode())
    cleanup.append(f"DROP DATABASE IF EXISTS {unique_name} WITH (FORCE)")
    problems = await validate_connection(config_for(pg_dsn, slot__name=slot, database__dbname=unique_name))
    assert len(problems["slot.name"]) == 2
    assert f"exists for the database 'postgres', not '{unique_name}'" in problems["slot.name"][1]


async def test_slot_active_for_another_process_is_a_warning(
    pg_dsn: str, unique_name: str, sql: Any, cleanup: list[str], caplog: pytest.LogCaptureFixture
) -> None:
    """Not an error: the consumer may be the connector being reconfigured (validation runs while it streams)."""
    slot, pub = unique_name + "_s", unique_name + "_p"
    await sql.execute(f"CREATE PUBLICATION {pub}".encode())
    cleanup.append(f"DROP PUBLICATION IF EXISTS {pub}")
    async with await ReplicationConnection.connect(pg_dsn) as repl:
        await repl.create_slot(slot, "pgoutput")
        cleanup.append(f"slot:{slot}")
        stream = await repl.start_replication(slot, PgOutputPlugin(publication_names=(pub,)))
        try:
            info = None
            for _ in range(50):
                info = await fetch_slot_info(sql, slot)
                if info is not None and info.active:
                    break
                await asyncio.sleep(0.1)
            assert info is not None and info.active_pid is not None
            problems = await validate_connection(config_for(pg_dsn, slot__name=slot))
            assert problems == {}
            assert (
                f"The replication slot '{slot}' is active for the process {info.active_pid}; a slot must have "
                "exactly one consumer, so every connector needs a distinct slot.name"
            ) in caplog.text
        finally:
            await stream.stop()
