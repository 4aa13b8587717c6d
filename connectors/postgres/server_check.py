"""Does the server suit the connector? The database half of the connector's validate().

:func:`validate_connection` connects with the connector's settings and returns every problem it finds,
keyed by the property it concerns, as /config/validate shows them:

* the connection itself — Debezium's texts, prefixed ``Error while validating connector config:``; a
  refused TCP connection gives Debezium's exact sentence on ``database.hostname``; authentication failures
  go to ``database.user`` / ``database.password`` and an unknown database to ``database.dbname`` (Debezium
  3.6.3 keys them all on ``database.hostname``);
* ``wal_level`` must be ``logical``; the role needs LOGIN and REPLICATION (or superuser, or RDS's
  replication roles); ``max_replication_slots`` / ``max_wal_senders`` must leave room;
* the slot, if it exists, must be logical, for the configured plug-in and database, and not in use;
* the database encoding must be UTF8.

The refused-connection case is told by errno from a TCP probe. libpq reports no SQLSTATE for a failed
connection start-up, so *which key* a server's FATAL start-up message goes to is decided from that message
(the message itself is passed on as it is, with any secret redacted); anything unrecognised stays on
``database.hostname``. This is the one place that reads message text, and only to pick a key.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import re
import socket
from typing import Any, Final

import psycopg

from connect_worker.api.errors import ConfigError
from connectors.postgres.config import LogicalDecoder, PostgresConnectorConfig, conninfo, describe_connection, redact
from connectors.postgres.libpq import host_list
from connectors.postgres.replication import fetch_slot_info

__all__ = ["PREFIX", "refused_message", "validate_connection"]

log = logging.getLogger(__name__)

PREFIX: Final = "Error while validating connector config: "
HOSTNAME: Final = "database.hostname"
USER: Final = "database.user"
PASSWORD: Final = "database.password"
DBNAME: Final = "database.dbname"
SLOT: Final = "slot.name"
PLUGIN: Final = "plugin.name"

# The roles query of Debezium's validate (RDS grants replication through roles of its own).
_ROLE_QUERY: Final = """
SELECT r.rolcanlogin, r.rolreplication, r.rolsuper,
       pg_has_role(current_user, 'rds_superuser', 'member') AS rds_superuser,
       pg_has_role(current_user, 'rds_replication', 'member') AS rds_replication
FROM pg_catalog.pg_roles r WHERE r.rolname = current_user
"""
_ROLE_QUERY_NO_RDS: Final = (
    "SELECT r.rolcanlogin, r.rolreplication, r.rolsuper, false, false"
    " FROM pg_catalog.pg_roles r WHERE r.rolname = current_user"
)
_SETTINGS_QUERY: Final = (
    "SELECT name, setting FROM pg_catalog.pg_settings"
    " WHERE name IN ('wal_level', 'max_replication_slots', 'max_wal_senders', 'shared_preload_libraries')"
)
_USAGE_QUERY: Final = (
    "SELECT (SELECT count(*) FROM pg_catalog.pg_replication_slots),"
    " (SELECT count(*) FROM pg_catalog.pg_stat_replication)"
)
_ENCODING_QUERY: Final = (
    "SELECT pg_catalog.pg_encoding_to_char(encoding) FROM pg_catalog.pg_database WHERE datname = current_database()"
)

# Start-up FATAL messages → the key they concern (English server messages; see the module docstring).
_STARTUP_KEYS: Final = (
    (re.compile(r'database "[^"]*" does not exist'), DBNAME),
    (re.compile(r"password authentication failed|no password (was )?supplied|password is required"), PASSWORD),
    (
        re.compile(
            r'role "[^"]*" does not exist|authentication failed for user|no pg_hba\.conf entry|'
            r"is not permitted to log in|permission denied for database"
        ),
        USER,
    ),
)


def refused_message(host: str, port: int) -> str:
    """Debezium's text for a TCP connection refused by ``host:port``."""
    return (
        f"{PREFIX}Connection to {host}:{port} refused. Check that the hostname and port are correct and that "
        "the postmaster is accepting TCP/IP connections."
    )


class _Problems:
    def __init__(self, config: PostgresConnectorConfig) -> None:
        self._secrets = (config.password, config.sslpassword)
        self.by_key: dict[str, list[str]] = {}

    def add(self, key: str, message: str) -> None:
        text = redact(message, self._secrets)
        messages = self.by_key.setdefault(key, [])
        if text not in messages:
            messages.append(text)


async def validate_connection(config: PostgresConnectorConfig) -> dict[str, list[str]]:
    """Every problem of the server and the connector's database objects, keyed by property (none: ``{}``).

    Bounded by ``connection.validation.timeout.ms``; never raises for a database problem.
    """
    problems = _Problems(config)
    timeout_ms = int(config.values.get("connection.validation.timeout.ms") or 60000)
    try:
        await asyncio.wait_for(_validate(config, problems), timeout_ms / 1000)
    except TimeoutError:
        problems.add(HOSTNAME, f"Connection validation timed out after {timeout_ms} ms")
    if problems.by_key:
        log.info("validation of %s found problems in %s", describe_connection(config), sorted(problems.by_key))
    return problems.by_key


async def _validate(config: PostgresConnectorConfig, problems: _Problems) -> None:
    if not await _probe_tcp(config, problems):
        return
    try:
        conn = await psycopg.AsyncConnection.connect(
            conninfo(config, application_name="Debezium Validate Connection", replication=False),
            autocommit=True,
            client_encoding="UTF8",  # a SQL_ASCII database would otherwise hand text back as bytes
        )
    except psycopg.Error as e:
        message = str(e).strip()
        problems.add(_startup_key(message), PREFIX + _server_message(message))
        return
    try:
        await _check_server(conn, config, problems)
    except psycopg.Error as e:
        problems.add(HOSTNAME, PREFIX + str(e).strip())
    finally:
        await conn.close()


async def _probe_tcp(config: PostgresConnectorConfig, problems: _Problems) -> bool:
    """False (with the problem recorded) when ``host:port`` does not accept TCP connections."""
    if config.hostname.startswith("/") or "," in config.hostname:  # a socket directory or several hosts: libpq
        return True
    try:
        (host,), (port,) = host_list(config.hostname, config.port)
    except ConfigError as e:
        problems.add(HOSTNAME, str(e))
        return False
    try:
        _, writer = await asyncio.open_connection(host, port)
    except socket.gaierror:
        problems.add(HOSTNAME, f"{PREFIX}The connection attempt failed. Unknown host {host}.")
        return False
    except ConnectionRefusedError:
        problems.add(HOSTNAME, refused_message(host, port))
        return False
    except OSError as e:
        if e.errno == errno.ECONNREFUSED:
            problems.add(HOSTNAME, refused_message(host, port))
        else:
            problems.add(HOSTNAME, f"{PREFIX}The connection attempt failed. {e.strerror or e}")
        return False
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return True


def _server_message(message: str) -> str:
    """libpq's start-up failure text without its ``connection to server ... failed:`` lead-in."""
    tail = message.rsplit(" failed: ", 1)[-1] if " failed: " in message else message
    return re.sub(r"\s+", " ", tail).strip()


def _startup_key(message: str) -> str:
    for pattern, key in _STARTUP_KEYS:
        if pattern.search(message):
            return key
    return HOSTNAME


async def _rows(conn: psycopg.AsyncConnection[Any], query: str) -> list[tuple[Any, ...]]:
    cur = await conn.execute(query.encode("utf-8"))
    return list(await cur.fetchall())


async def _check_server(
    conn: psycopg.AsyncConnection[Any], config: PostgresConnectorConfig, problems: _Problems
) -> None:
    settings = {name: value for name, value in await _rows(conn, _SETTINGS_QUERY)}
    wal_level = settings.get("wal_level")
    if wal_level != "logical":
        problems.add(HOSTNAME, f'Postgres server wal_level property must be "logical" but is: {wal_level}')

    has_rds = bool(
        (await _rows(conn, "SELECT count(*) FROM pg_catalog.pg_roles WHERE rolname = 'rds_replication'"))[0][0]
    )
    roles = await _rows(conn, _ROLE_QUERY if has_rds else _ROLE_QUERY_NO_RDS)
    if roles:
        can_login, replication, superuser, rds_superuser, rds_replication = roles[0]
        if not (can_login and (replication or superuser or rds_superuser or rds_replication)):
            problems.add(USER, f"Postgres roles LOGIN and REPLICATION are not assigned to user: {config.user}")

    encoding = (await _rows(conn, _ENCODING_QUERY))[0][0]
    if encoding != "UTF8":
        problems.add(
            DBNAME,
            f"The database '{config.dbname}' uses the encoding {encoding}; the connector supports only UTF8 databases",
        )

    plugin = config.plugin_name
    # decoderbufs needs no shared_preload_libraries entry: a logical decoding plug-in is loaded by the walsender
    # when a slot uses it (checked on PostgreSQL 15); a missing one shows when the slot is created
    if plugin is LogicalDecoder.PGOUTPUT and conn.info.server_version < 100000:
        problems.add(PLUGIN, "The 'pgoutput' plug-in needs PostgreSQL 10 or later")

    max_slots = int(settings.get("max_replication_slots") or 0)
    max_senders = int(settings.get("max_wal_senders") or 0)
    slots_used, senders_used = (await _rows(conn, _USAGE_QUERY))[0]
    slot = await fetch_slot_info(conn, config.slot_name)
    if max_senders < 1:
        problems.add(HOSTNAME, "max_wal_senders is 0: the server accepts no replication connections")
    elif senders_used >= max_senders:
        problems.add(
            HOSTNAME,
            f"All {max_senders} WAL senders (max_wal_senders) are in use: no replication connection can be opened",
        )
    if slot is None:
        if max_slots < 1:
            problems.add(SLOT, "max_replication_slots is 0: the server cannot keep a replication slot")
        elif slots_used >= max_slots:
            problems.add(
                SLOT,
                f"All {max_slots} replication slots (max_replication_slots) are taken: the slot "
                f"'{config.slot_name}' cannot be created",
            )
        return
    if slot.slot_type != "logical":
        problems.add(SLOT, f"The replication slot '{slot.slot_name}' is a {slot.slot_type} slot, not a logical one")
        return
    if slot.plugin != plugin.value:
        problems.add(
            SLOT,
            f"The replication slot '{slot.slot_name}' exists for the plug-in '{slot.plugin}', but plugin.name is "
            f"'{plugin.value}'; use a distinct slot.name",
        )
    if slot.database != config.dbname:
        problems.add(
            SLOT,
            f"The replication slot '{slot.slot_name}' exists for the database '{slot.database}', not "
            f"'{config.dbname}'; use a distinct slot.name",
        )
    if slot.active:
        # Not an error: the consumer may be this very connector (a config update validates while it runs).
        # A second connector on the slot fails at start with the slot-in-use error and the same advice.
        log.warning(
            "The replication slot '%s' is active for the process %s; a slot must have exactly one consumer, so "
            "every connector needs a distinct slot.name",
            slot.slot_name,
            slot.active_pid,
        )
