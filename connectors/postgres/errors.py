"""PostgreSQL errors, classified at the boundary by SQLSTATE into the API's branches.

The runtime acts on the branch (``RetriableError`` → restart the task later, ``ConfigError`` → fail and
tell the user, ``DataError`` → the event-processing failure mode); the subclasses here add the SQLSTATE
and name the few situations the connector itself reacts to (a slot in use, missing or already there).
Classification never looks at message text.
"""

from __future__ import annotations

from typing import Final

import psycopg

from connect_worker.api.errors import ConfigError, ConnectError, RetriableError

__all__ = [
    "PostgresConfigError",
    "PostgresConnectionError",
    "PostgresError",
    "PostgresRetriableError",
    "ReplicationSlotExistsError",
    "ReplicationSlotInUseError",
    "ReplicationSlotNotFoundError",
    "classify_sqlstate",
    "from_psycopg",
    "make_error",
]


class _HasSqlState(ConnectError):
    """Mixin: the SQLSTATE the server sent (None when the failure happened before any reply)."""

    sqlstate: str | None

    def __init__(self, message: str, *, sqlstate: str | None = None) -> None:
        super().__init__(message)
        self.sqlstate = sqlstate


class PostgresError(_HasSqlState, ConnectError):
    """A server error that is neither retriable nor a configuration problem (a bug or an internal error)."""


class PostgresRetriableError(_HasSqlState, RetriableError):
    """A transient server condition: retrying later may succeed."""


class PostgresConnectionError(PostgresRetriableError):
    """The connection could not be made or was lost (SQLSTATE class 08, shutdowns, network errors)."""


class PostgresConfigError(_HasSqlState, ConfigError):
    """The server refuses because of how the connector or the server is set up."""


class ReplicationSlotInUseError(PostgresRetriableError):
    """SQLSTATE 55006: another process holds the slot (possibly a previous task still shutting down)."""


class ReplicationSlotNotFoundError(PostgresConfigError):
    """SQLSTATE 42704 on a slot command: the named replication slot does not exist."""


class ReplicationSlotExistsError(PostgresConfigError):
    """SQLSTATE 42710 on slot creation: every connector needs its own slot name."""


_RETRIABLE_CLASSES: Final = frozenset({"08", "40", "53", "57", "58"})
_RETRIABLE_EXACT: Final = frozenset(
    {
        "55006",  # object_in_use
        "55P03",  # lock_not_available
        "57014",  # query_canceled
    }
)
_CONFIG_CLASSES: Final = frozenset({"28", "3D", "42", "0A", "22"})
_CONFIG_EXACT: Final = frozenset(
    {
        "55000",  # object_not_in_prerequisite_state: wal_level, slot of another database or plugin ...
        "53400",  # configuration_limit_exceeded: max_replication_slots / max_wal_senders reached
        "58P01",  # undefined_file: the output plug-in is not installed
        "42501",  # insufficient_privilege
    }
)
_CONNECTION_CODES: Final = frozenset({"57P01", "57P02", "57P03"})


def classify_sqlstate(sqlstate: str | None) -> type[PostgresError | PostgresRetriableError | PostgresConfigError]:
    """The error class for a SQLSTATE (None means the failure came before any server reply)."""
    if sqlstate is None:
        return PostgresConnectionError
    if sqlstate in _CONNECTION_CODES or sqlstate.startswith("08"):
        return PostgresConnectionError
    if sqlstate == "55006":
        return ReplicationSlotInUseError
    if sqlstate in _CONFIG_EXACT:
        return PostgresConfigError
    if sqlstate in _RETRIABLE_EXACT or sqlstate[:2] in _RETRIABLE_CLASSES:
        return PostgresRetriableError
    if sqlstate[:2] in _CONFIG_CLASSES:
        return PostgresConfigError
    return PostgresError


def make_error(
    sqlstate: str | None, message: str, *, slot_name: str | None = None, action: str = ""
) -> PostgresError | PostgresRetriableError | PostgresConfigError:
    """Build the classified error for a server reply; ``slot_name`` marks a slot command.

    ``action`` says what was being done ("starting replication on slot 's1'") and leads the message.
    """
    text = f"{action}: {message}" if action else message
    if slot_name is not None:
        if sqlstate == "42704":
            return ReplicationSlotNotFoundError(
                f"{text} (replication slot {slot_name!r} does not exist; create it or check slot.name)",
                sqlstate=sqlstate,
            )
        if sqlstate == "42710":
            return ReplicationSlotExistsError(
                f"{text} (replication slot {slot_name!r} already exists; every connector must use its own slot.name)",
                sqlstate=sqlstate,
            )
        if sqlstate == "55006":
            return ReplicationSlotInUseError(
                f"{text} (replication slot {slot_name!r} is active for another process; a slot must "
                "have exactly one consumer)",
                sqlstate=sqlstate,
            )
    return classify_sqlstate(sqlstate)(text, sqlstate=sqlstate)


def from_psycopg(
    exc: psycopg.Error, *, slot_name: str | None = None, action: str = ""
) -> PostgresError | PostgresRetriableError | PostgresConfigError:
    """Classify a psycopg exception by its SQLSTATE (``raise from_psycopg(e) from e``)."""
    sqlstate = exc.sqlstate
    if sqlstate is None and not isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError):
        # A client-side psycopg error with no server code (programming error, not a lost connection).
        return PostgresError(f"{action}: {exc}" if action else str(exc), sqlstate=None)
    return make_error(sqlstate, str(exc).strip(), slot_name=slot_name, action=action)
