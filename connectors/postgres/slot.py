"""The replication slot: make sure it exists, retry while it is busy, drop it on stop, plug-in options.

* :func:`ensure_slot` looks the slot up (``pg_replication_slots``, over the regular connection) and, when it
  is missing, creates it on the replication connection with ``CREATE_REPLICATION_SLOT ... LOGICAL <plugin>``
  and an exported snapshot, whose ``consistent_point`` / ``snapshot_name`` the initial snapshot uses. A slot
  of another plug-in or database is a configuration error; so is losing a creation race ("already exists"),
  with Debezium's advice to give every connector its own ``slot.name``.
* :func:`retry_slot_operation` runs an operation on the slot (typically START_REPLICATION) and tries again,
  ``slot.max.retries`` more times ``slot.retry.delay.ms`` apart, while the slot is in use by another
  process (SQLSTATE 55006) or the connection fails.
* :func:`drop_slot_on_stop` drops the slot when ``slot.drop.on.stop`` is set (tests and development only).
* :func:`parse_stream_params` / :func:`output_plugin` turn ``slot.stream.params`` into the plug-in's
  START_REPLICATION options.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Final, TypeVar

import psycopg

from connect_worker.api.errors import ConfigError
from connectors.postgres.config import PostgresConnectorConfig
from connectors.postgres.errors import (
    PostgresConfigError,
    PostgresConnectionError,
    ReplicationSlotExistsError,
    ReplicationSlotInUseError,
    from_psycopg,
)
from connectors.postgres.protocol.commands import CreatedSlot, SlotInfo, SnapshotAction
from connectors.postgres.protocol.plugins import DecoderbufsPlugin, PgOutputPlugin
from connectors.postgres.replication import ReplicationConnection, fetch_slot_info

__all__ = [
    "DISTINCT_SLOT_ADVICE",
    "EnsuredSlot",
    "drop_slot_on_stop",
    "ensure_slot",
    "output_plugin",
    "parse_stream_params",
    "retry_slot_operation",
]

log = logging.getLogger(__name__)

T = TypeVar("T")

DISTINCT_SLOT_ADVICE: Final = (
    "when setting up multiple connectors for the same database host, please make sure to use a distinct "
    "replication slot name for each."
)


@dataclasses.dataclass(frozen=True, slots=True)
class EnsuredSlot:
    """The slot as found (``info``) or as just created (``created``: consistent point and snapshot name)."""

    slot_name: str
    info: SlotInfo | None
    created: CreatedSlot | None

    @property
    def was_created(self) -> bool:
        return self.created is not None


def _check_existing(info: SlotInfo, config: PostgresConnectorConfig) -> None:
    plugin = config.plugin_name.value
    if info.slot_type != "logical":
        raise PostgresConfigError(
            f"The replication slot '{info.slot_name}' is a {info.slot_type} slot, not a logical one; "
            "use a distinct slot.name"
        )
    if info.plugin != plugin or info.database != config.dbname:
        raise PostgresConfigError(
            f"The replication slot '{info.slot_name}' exists for plugin '{info.plugin}' and database "
            f"'{info.database}', but this connector uses plugin '{plugin}' and database '{config.dbname}'; "
            + DISTINCT_SLOT_ADVICE
        )


async def ensure_slot(
    sql: psycopg.AsyncConnection[Any],
    replication: ReplicationConnection,
    config: PostgresConnectorConfig,
    *,
    snapshot: SnapshotAction = SnapshotAction.EXPORT,
) -> EnsuredSlot:
    """The configured slot, created (with an exported snapshot by default) when it does not exist.

    With ``SnapshotAction.EXPORT`` the snapshot stays importable only until the next command on
    ``replication``: import it (``SET TRANSACTION SNAPSHOT``) before using that connection again.
    """
    name = config.slot_name
    info = await fetch_slot_info(sql, name)
    if info is not None:
        _check_existing(info, config)
        log.info(
            "Replication slot '%s' exists (plugin %s, confirmed flush %s, active %s)",
            name,
            info.plugin,
            info.confirmed_flush_lsn,
            info.active,
        )
        return EnsuredSlot(name, info, None)
    if config.slot_failover:
        log.warning("slot.failover is not supported here; creating '%s' as a non-failover slot", name)
    log.info("Creating new replication slot '%s' for plugin '%s'", name, config.plugin_name.value)
    try:
        created = await replication.create_slot(
            name, config.plugin_name.value, snapshot=snapshot, yugabyte_lsn_type=config.slot_lsn_type
        )
    except ReplicationSlotExistsError as e:
        raise ReplicationSlotExistsError(
            f"Creation of replication slot '{name}' failed: it already exists; " + DISTINCT_SLOT_ADVICE,
            sqlstate=e.sqlstate,
        ) from e
    log.info("Created replication slot '%s' at %s (snapshot %s)", name, created.consistent_point, created.snapshot_name)
    return EnsuredSlot(name, None, created)


async def retry_slot_operation(
    operation: Callable[[], Awaitable[T]],
    config: PostgresConnectorConfig,
    *,
    description: str = "",
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> T:
    """``operation()``, tried again up to ``slot.max.retries`` times while the slot is busy or unreachable.

    The last error is raised with Debezium's advice about distinct slot names when the slot was in use.
    """
    attempts = max(0, config.slot_max_retries)
    delay = config.slot_retry_delay_ms / 1000
    what = description or f"Failed to use replication slot '{config.slot_name}'"
    tries = 0
    while True:
        try:
            return await operation()
        except (ReplicationSlotInUseError, PostgresConnectionError) as e:
            tries += 1
            if tries > attempts:
                if isinstance(e, ReplicationSlotInUseError):
                    raise ReplicationSlotInUseError(f"{what}; {DISTINCT_SLOT_ADVICE} ({e})", sqlstate=e.sqlstate) from e
                raise
            log.warning(
                "%s, waiting for %d ms and retrying, attempt number %d over %d: %s",
                what,
                config.slot_retry_delay_ms,
                tries,
                attempts,
                e,
            )
            await sleep(delay)


async def drop_slot_on_stop(
    sql: psycopg.AsyncConnection[Any],
    config: PostgresConnectorConfig,
    *,
    attempts: int = 10,
    delay: float = 0.5,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> bool:
    """Drop the slot if ``slot.drop.on.stop``; True when it was dropped. Never raises for a busy/missing slot.

    Runs after the replication connection closed; the server may need a moment to release the slot.
    """
    if not config.slot_drop_on_stop:
        return False
    name = config.slot_name
    for attempt in range(1, attempts + 1):
        try:
            await sql.execute("SELECT pg_catalog.pg_drop_replication_slot(%s)", [name])
        except psycopg.Error as e:
            if e.sqlstate == "42704":
                log.info("Replication slot %s has already been dropped", name)
                return False
            if e.sqlstate == "55006" and attempt < attempts:
                log.debug("Cannot drop replication slot '%s' because it's still in use (attempt %d)", name, attempt)
                await sleep(delay)
                continue
            log.warning("Unexpected error while attempting to drop replication slot %r: %s", name, from_psycopg(e))
            return False
        log.info("Dropped replication slot '%s'", name)
        return True
    return False


def parse_stream_params(text: str | None) -> tuple[tuple[str, str], ...]:
    """``slot.stream.params`` (``k=v;k2=v2``) as option pairs; malformed entries are logged and skipped."""
    if not text:
        return ()
    options: list[tuple[str, str]] = []
    for entry in text.split(";"):
        if not entry.strip():
            continue
        key, sep, value = entry.partition("=")
        if not sep or not key.strip():
            log.warning("The following stream parameter is not in the form 'key=value' and is ignored: %s", entry)
            continue
        options.append((key.strip(), value.strip()))
    return tuple(options)


_TRUE: Final = frozenset({"on", "true", "yes", "1"})
_FALSE: Final = frozenset({"off", "false", "no", "0"})


def _streaming_option(extra: tuple[tuple[str, str], ...]) -> bool:
    """``streaming=on`` in slot.stream.params: pgoutput protocol 2 with in-progress transactions streamed (the
    connector reassembles them, see streamed_transactions.py)."""
    values = [v.lower() for k, v in extra if k == "streaming"]
    if not values:
        return False
    if values[-1] in _TRUE:
        return True
    if values[-1] in _FALSE:
        return False
    raise ConfigError(f"slot.stream.params: streaming must be on or off, not {values[-1]!r}")


def output_plugin(config: PostgresConnectorConfig, server_version: int) -> PgOutputPlugin | DecoderbufsPlugin:
    """The START_REPLICATION options of the configured plug-in (pgoutput: proto 1, messages on PG 14+)."""
    extra = parse_stream_params(config.slot_stream_params)
    if config.pgoutput:
        reserved = {"proto_version", "publication_names", "messages"}
        clash = [k for k, _ in extra if k in reserved]
        if clash:
            raise ConfigError(f"slot.stream.params must not set {', '.join(clash)}: the connector sets it")
        streaming = _streaming_option(extra)
        return PgOutputPlugin(
            name=config.plugin_name.value,
            publication_names=(config.publication_name,),
            proto_version=2 if streaming else 1,
            messages=server_version >= 140000,
            streaming=streaming,
            extra_options=tuple((k, v) for k, v in extra if k != "streaming"),
        )
    return DecoderbufsPlugin(extra_options=extra)
