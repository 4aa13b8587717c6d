"""What `snapshot.mode` decides at task start (Debezium 3.6.3's Snapshotter + BaseSourceTask.validateSchemaHistory).

* :class:`Snapshotter` answers the Snapshotter SPI questions for the configured mode: snapshot the data?
  stream afterwards? snapshot when the stored position is lost? :func:`snapshotter_for` gives it, or for
  ``snapshot.mode=custom`` the plug-in named by ``snapshot.mode.custom.name`` (connectors.relational.snapshot_spi;
  a built-in mode's name selects that mode, as Debezium's lookup by ``name()`` does).
* :func:`check_stored_position` validates a stored offset before anything is created, as 3.6.3 does:
  - an interrupted snapshot (``snapshot`` set, ``snapshot_completed`` false) while the mode never snapshots
    fails the task ("The connector previously stopped while taking a snapshot, ...");
  - otherwise, when the mode streams and ``internal.log.position.check.enable`` is on, the stored position
    must still be on the server: the slot exists (for this plug-in and database) and its ``restart_lsn`` is not
    after the stored ``lsn_proc`` (no ``lsn_proc``, as after a snapshot, counts as available). When it is not,
    ``when_needed`` (and ``configuration_based`` with ``snapshot.on.data.error``) forget the offset and snapshot;
    every other streaming mode fails the task ("The connector is trying to read change stream starting at ...,
    but this is no longer available on the server. ..."). The 2.7 text of the spec ("warn and stream from the
    slot") is not what 3.6.3 does: checked against the real connector.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
from collections.abc import Mapping
from typing import Any, Final

import psycopg

from connect_worker.api import ConnectError
from connectors.postgres.config import PostgresConnectorConfig, SnapshotMode
from connectors.postgres.lsn import Lsn
from connectors.postgres.replication import fetch_slot_info
from connectors.relational import snapshot_spi

__all__ = [
    "INTERRUPTED_SNAPSHOT",
    "Snapshotter",
    "check_stored_position",
    "describe_offset",
    "position_lost_message",
    "snapshotter_for",
]

log = logging.getLogger(__name__)

INTERRUPTED_SNAPSHOT: Final = (
    "The connector previously stopped while taking a snapshot, but now the connector is configured to never allow "
    "snapshots. Reconfigure the connector to use snapshots initially or when needed."
)


@dataclasses.dataclass(frozen=True, slots=True)
class Snapshotter:
    """The built-in snapshot modes of Debezium 3.6.3 (io.debezium.snapshot.mode.*)."""

    mode: SnapshotMode
    data: bool = False  # configuration_based flags
    schema: bool = False
    stream: bool = False
    on_data_error: bool = False
    on_schema_error: bool = False

    @classmethod
    def of(cls, config: PostgresConnectorConfig, mode: SnapshotMode | None = None) -> Snapshotter:
        return cls(
            mode or config.snapshot_mode,
            data=config.snapshot_data,
            schema=config.snapshot_schema,
            stream=config.snapshot_start_stream,
            on_data_error=config.snapshot_on_data_error,
            on_schema_error=config.snapshot_on_schema_error,
        )

    def should_snapshot_data(self, offset_exists: bool, snapshot_in_progress: bool) -> bool:
        pending = not offset_exists or snapshot_in_progress
        if self.mode is SnapshotMode.ALWAYS:
            return True
        if self.mode in (SnapshotMode.INITIAL, SnapshotMode.INITIAL_ONLY, SnapshotMode.WHEN_NEEDED):
            return pending
        if self.mode is SnapshotMode.CONFIGURATION_BASED:
            return self.data
        return False  # no_data (never)

    def should_snapshot_schema(self, offset_exists: bool = False, snapshot_in_progress: bool = False) -> bool:
        return self.mode is SnapshotMode.CONFIGURATION_BASED and self.schema

    def should_stream(self) -> bool:
        if self.mode is SnapshotMode.INITIAL_ONLY:
            return False
        if self.mode is SnapshotMode.CONFIGURATION_BASED:
            return self.stream
        return True

    def should_snapshot_on_data_error(self) -> bool:
        if self.mode is SnapshotMode.WHEN_NEEDED:
            return True
        return self.mode is SnapshotMode.CONFIGURATION_BASED and self.on_data_error

    def should_snapshot_on_schema_error(self) -> bool:
        return self.mode is SnapshotMode.CONFIGURATION_BASED and self.on_schema_error


_BUILT_IN: Final = {m.value: m for m in SnapshotMode if m is not SnapshotMode.CUSTOM}


def snapshotter_for(config: PostgresConnectorConfig) -> snapshot_spi.Snapshotter:
    """The configured mode's snapshotter; a custom name that resolves to nothing fails the task."""
    if config.snapshot_mode is not SnapshotMode.CUSTOM:
        return Snapshotter.of(config)
    name = config.snapshot_mode_custom_name or ""
    built_in = _BUILT_IN.get(name.lower())
    if built_in is not None:
        return Snapshotter.of(config, built_in)
    return snapshot_spi.load_snapshotter(name, config.values)


def _lsn(value: Any) -> Lsn | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return Lsn(int(value))
    except (TypeError, ValueError):
        return None


def _lsn_text(value: Lsn | None) -> str:
    return "null" if value is None else f"LSN{{{value}}}"


def describe_offset(config: PostgresConnectorConfig, offset: Mapping[str, Any]) -> str:
    """The stored offset as Debezium's PostgresOffsetContext.toString() prints it in its error messages."""
    lsn = _lsn(offset.get("lsn"))
    proc = _lsn(offset.get("lsn_proc"))
    commit = _lsn(offset.get("lsn_commit")) or proc
    tx = offset.get("txId")
    micros = offset.get("ts_usec")
    stamp = "null"
    if isinstance(micros, int):
        instant = dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(microseconds=micros)
        stamp = instant.strftime("%Y-%m-%dT%H:%M:%S")
        if instant.microsecond:
            frac = f"{instant.microsecond:06d}"
            stamp += "." + (frac[:3] if frac.endswith("000") else frac)
        stamp += "Z"
    snapshot = "FALSE" if not offset.get("snapshot") else str(offset.get("snapshot")).upper()
    source = (
        f"source_info[server='{config.topic_prefix}'db='{config.dbname}', lsn={_lsn_text(lsn)}, "
        f"txId={'null' if tx is None else tx}, messageType={offset.get('messageType') or 'null'}, "
        f"lastCommitLsn={_lsn_text(commit)}, timestamp={stamp}, snapshot={snapshot}, schema=, table=]"
    )
    return (
        "PostgresOffsetContext [sourceInfoSchema=Schema{io.debezium.connector.postgresql.Source:STRUCT}, "
        f"sourceInfo={source}, lastSnapshotRecord={str(bool(offset.get('last_snapshot_record'))).lower()}, "
        f"lastCompletelyProcessedLsn={_lsn_text(proc)}, lastCommitLsn={_lsn_text(commit)}, "
        "streamingStoppingLsn=null, transactionContext=TransactionContext [currentTransactionId=null, "
        "perTableEventCount={}, totalEventCount=0], incrementalSnapshotContext=IncrementalSnapshotContext "
        "[windowOpened=false, chunkEndPosition=null, dataCollectionsToSnapshot=[], lastEventKeySent=null, "
        "maximumKey=null]]"
    )


def position_lost_message(config: PostgresConnectorConfig, offset: Mapping[str, Any]) -> str:
    return (
        f"The connector is trying to read change stream starting at {describe_offset(config, offset)}, but this is "
        "no longer available on the server. Reconfigure the connector to use a snapshot mode when needed."
    )


async def _position_available(
    conn: psycopg.AsyncConnection[Any], config: PostgresConnectorConfig, offset: Mapping[str, Any]
) -> bool:
    """PostgresConnection.validateLogPosition: the slot exists and restart_lsn <= the stored lsn_proc."""
    info = await fetch_slot_info(conn, config.slot_name)
    if info is None or info.plugin != config.plugin_name.value or info.database != config.dbname:
        log.info("Slot '%s' does not exist for plugin %s", config.slot_name, config.plugin_name.value)
        return False
    log.info("Slot '%s' has restart LSN '%s'", config.slot_name, info.restart_lsn)
    processed = _lsn(offset.get("lsn_proc"))
    return processed is None or info.restart_lsn is None or info.restart_lsn <= processed


async def check_stored_position(
    conn: psycopg.AsyncConnection[Any],
    config: PostgresConnectorConfig,
    snapshotter: snapshot_spi.Snapshotter,
    offset: Mapping[str, Any] | None,
    *,
    snapshot_in_progress: bool,
) -> bool:
    """Validate the stored offset; False when it must be forgotten (lost position, a mode that then snapshots).

    Raises ConnectError (the task fails) for the two start-up failures of the module docstring.
    """
    if not offset:
        return True
    if snapshot_in_progress:
        if not snapshotter.should_snapshot_data(True, True) and not snapshotter.should_snapshot_schema(True, True):
            raise ConnectError(INTERRUPTED_SNAPSHOT)
        return True
    if not config.log_position_check_enable or not snapshotter.should_stream():
        return True
    if await _position_available(conn, config, offset):
        return True
    log.warning("Last recorded offset is no longer available on the server.")
    if snapshotter.should_snapshot_on_data_error():
        log.info(
            "The last recorded offset is no longer available but we are in %s snapshot mode. Attempting to snapshot "
            "data to fill the gap.",
            config.snapshot_mode.value,
        )
        return False
    raise ConnectError(position_lost_message(config, offset))
