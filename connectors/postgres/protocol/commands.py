"""The text of replication commands and the values of their results (pure).

A replication connection accepts no query parameters, so every name and value is spelled into the
command. The replication grammar (``repl_scanner.l``) knows double-quoted identifiers with ``""`` for
a quote and single-quoted literals with ``''`` for a quote; backslashes are ordinary characters there.
Every identifier is quoted, so case and special characters survive; NUL bytes are refused.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final, LiteralString

from connect_worker.api.errors import ConfigError, DataError
from connectors.postgres.lsn import Lsn

__all__ = [
    "SLOT_INFO_QUERY",
    "CreatedSlot",
    "SlotInfo",
    "SnapshotAction",
    "SystemIdentity",
    "create_replication_slot",
    "drop_replication_slot",
    "identify_system",
    "parse_created_slot",
    "parse_identify_system",
    "parse_slot_info",
    "quote_ident",
    "quote_identifier_list",
    "quote_literal",
    "start_replication_logical",
]


class SnapshotAction(enum.Enum):
    """What CREATE_REPLICATION_SLOT does with the snapshot at the slot's consistent point.

    * ``EXPORT``: export it (``snapshot_name``); it stays valid until the next command on the
      replication connection, so import it elsewhere (``SET TRANSACTION SNAPSHOT``) first.
    * ``NOEXPORT``: no snapshot.
    * ``USE``: use it in the current transaction of the replication connection, which must have been
      opened with ``BEGIN ISOLATION LEVEL REPEATABLE READ`` just before.
    """

    EXPORT = "export"
    NOEXPORT = "nothing"
    USE = "use"


_LEGACY_SNAPSHOT_KEYWORDS = {
    SnapshotAction.EXPORT: "EXPORT_SNAPSHOT",
    SnapshotAction.NOEXPORT: "NOEXPORT_SNAPSHOT",
    SnapshotAction.USE: "USE_SNAPSHOT",
}


def _check_text(value: str, what: str) -> None:
    if "\x00" in value:
        raise ConfigError(f"{what} must not contain a NUL character: {value!r}")


def quote_ident(name: str) -> str:
    """``name`` as a double-quoted identifier."""
    if not name:
        raise ConfigError("an identifier must not be empty")
    _check_text(name, "an identifier")
    return '"' + name.replace('"', '""') + '"'


def quote_literal(value: str) -> str:
    """``value`` as a single-quoted string literal."""
    _check_text(value, "a string literal")
    return "'" + value.replace("'", "''") + "'"


def quote_identifier_list(names: Iterable[str]) -> str:
    """A comma-separated list of quoted identifiers, as pgoutput's ``publication_names`` expects.

    pgoutput splits the option value with ``SplitIdentifierString``, which knows double quotes.
    """
    quoted = [quote_ident(name) for name in names]
    if not quoted:
        raise ConfigError("the identifier list must not be empty")
    return ",".join(quoted)


def identify_system() -> str:
    return "IDENTIFY_SYSTEM"


def create_replication_slot(
    slot_name: str,
    plugin: str,
    *,
    snapshot: SnapshotAction = SnapshotAction.NOEXPORT,
    temporary: bool = False,
    two_phase: bool = False,
    server_version: int = 150000,
    yugabyte_lsn_type: str | None = None,
) -> str:
    """``CREATE_REPLICATION_SLOT`` for a logical slot.

    PostgreSQL 15 introduced the parenthesised option syntax (``(SNAPSHOT 'export', TWO_PHASE)``); older
    servers get the legacy keywords (``EXPORT_SNAPSHOT``, ``NOEXPORT_SNAPSHOT``, ``USE_SNAPSHOT``).

    ``yugabyte_lsn_type`` (``SEQUENCE`` or ``HYBRID_TIME``) asks for YugabyteDB's grammar,
    ``... LOGICAL plugin [SEQUENCE | HYBRID_TIME]``: no snapshot keyword (YugabyteDB accepts them only under
    a preview flag), and the ``snapshot_name`` it answers is the consistent point's hybrid time.
    """
    head = f"CREATE_REPLICATION_SLOT {quote_ident(slot_name)}"
    if temporary:
        head += " TEMPORARY"
    head += f" LOGICAL {quote_ident(plugin)}"
    if yugabyte_lsn_type is not None:
        if yugabyte_lsn_type not in ("SEQUENCE", "HYBRID_TIME"):
            raise ConfigError(f"unknown YugabyteDB slot LSN type {yugabyte_lsn_type!r} (SEQUENCE or HYBRID_TIME)")
        return f"{head} {yugabyte_lsn_type}"
    if server_version >= 150000:
        options = [f"SNAPSHOT {quote_literal(snapshot.value)}"]
        if two_phase:
            options.append("TWO_PHASE true")
        return f"{head} ({', '.join(options)})"
    if two_phase and server_version < 140000:
        raise ConfigError("two-phase slots need PostgreSQL 14 or later")
    return f"{head} {'TWO_PHASE ' if two_phase else ''}{_LEGACY_SNAPSHOT_KEYWORDS[snapshot]}"


def drop_replication_slot(slot_name: str, *, wait: bool = False) -> str:
    """``DROP_REPLICATION_SLOT``; with ``wait`` the server waits for an active slot to be released."""
    return f"DROP_REPLICATION_SLOT {quote_ident(slot_name)}{' WAIT' if wait else ''}"


def start_replication_logical(slot_name: str, start_lsn: Lsn, options: Sequence[tuple[str, str]] = ()) -> str:
    """``START_REPLICATION SLOT ... LOGICAL X/Y (name 'value', ...)``.

    ``start_lsn`` 0/0 means "from the slot's confirmed_flush_lsn". Option names are quoted
    identifiers, option values quoted literals.
    """
    command = f"START_REPLICATION SLOT {quote_ident(slot_name)} LOGICAL {start_lsn}"
    if options:
        command += " (" + ", ".join(f"{quote_ident(k)} {quote_literal(v)}" for k, v in options) + ")"
    return command


# -- results --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SystemIdentity:
    """IDENTIFY_SYSTEM: the cluster id, the current timeline, the current WAL flush position."""

    system_id: str
    timeline: int
    xlogpos: Lsn
    dbname: str | None


@dataclass(frozen=True, slots=True)
class CreatedSlot:
    """CREATE_REPLICATION_SLOT: streaming from the slot starts at ``consistent_point``."""

    slot_name: str
    consistent_point: Lsn
    snapshot_name: str | None
    output_plugin: str


@dataclass(frozen=True, slots=True)
class SlotInfo:
    """A row of ``pg_replication_slots``."""

    slot_name: str
    plugin: str | None
    slot_type: str
    database: str | None
    temporary: bool
    active: bool
    active_pid: int | None
    restart_lsn: Lsn | None
    confirmed_flush_lsn: Lsn | None
    wal_status: str | None


#: The slot's row of pg_replication_slots; one parameter (the slot name): for a normal connection.
SLOT_INFO_QUERY: Final[LiteralString] = (
    "SELECT slot_name, plugin, slot_type, database, temporary, active, active_pid,"
    " restart_lsn::text, confirmed_flush_lsn::text, wal_status"
    " FROM pg_catalog.pg_replication_slots WHERE slot_name = %s"
)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _one_row(rows: Sequence[Sequence[Any]], columns: int, what: str) -> Sequence[Any]:
    if len(rows) != 1 or len(rows[0]) != columns:
        raise DataError(f"{what} returned {len(rows)} rows, expected one row of {columns} columns")
    return rows[0]


def parse_identify_system(rows: Sequence[Sequence[Any]]) -> SystemIdentity:
    system_id, timeline, xlogpos, dbname = _one_row(rows, 4, "IDENTIFY_SYSTEM")
    return SystemIdentity(_text(system_id), int(timeline), Lsn.parse(_text(xlogpos)), dbname)


def parse_created_slot(rows: Sequence[Sequence[Any]]) -> CreatedSlot:
    name, consistent_point, snapshot_name, output_plugin = _one_row(rows, 4, "CREATE_REPLICATION_SLOT")
    return CreatedSlot(
        _text(name),
        Lsn.parse(_text(consistent_point)),
        None if snapshot_name is None else _text(snapshot_name),
        _text(output_plugin),
    )


def parse_slot_info(row: Sequence[Any]) -> SlotInfo:
    """A row of :data:`SLOT_INFO_QUERY`."""
    name, plugin, slot_type, database, temporary, active, active_pid, restart, confirmed, wal_status = row
    return SlotInfo(
        slot_name=name,
        plugin=plugin,
        slot_type=slot_type,
        database=database,
        temporary=bool(temporary),
        active=bool(active),
        active_pid=active_pid,
        restart_lsn=None if restart is None else Lsn.parse(restart),
        confirmed_flush_lsn=None if confirmed is None else Lsn.parse(confirmed),
        wal_status=wal_status,
    )
