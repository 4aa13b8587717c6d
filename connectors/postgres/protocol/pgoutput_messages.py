"""The messages of pgoutput, PostgreSQL's logical replication protocol, as frozen values.

Times are µs since 2000-01-01; xids inside a streamed block are set, elsewhere None (for the data and
schema messages). Column values (:data:`TupleData`) stay in PostgreSQL's text format (``str``),
``bytes`` in binary mode, ``None`` for SQL NULL, :data:`UNCHANGED_TOAST` for an unchanged TOASTed value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from connectors.postgres.lsn import Lsn
from connectors.postgres.protocol.toast import UnchangedToast

__all__ = [
    "Begin",
    "BeginPrepare",
    "Column",
    "Commit",
    "CommitPrepared",
    "Delete",
    "Insert",
    "LogicalMessage",
    "Origin",
    "PgOutputMessage",
    "Prepare",
    "Relation",
    "RollbackPrepared",
    "StreamAbort",
    "StreamCommit",
    "StreamPrepare",
    "StreamStart",
    "StreamStop",
    "Truncate",
    "TupleData",
    "TupleValue",
    "Type",
    "Update",
]

TupleValue: TypeAlias = str | bytes | UnchangedToast | None
TupleData: TypeAlias = tuple[TupleValue, ...]

# -- messages ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Begin:
    """'B': start of a transaction; ``commit_time`` is µs since 2000-01-01."""

    final_lsn: Lsn
    commit_time: int
    xid: int


@dataclass(frozen=True, slots=True)
class Commit:
    """'C': end of a transaction. Acknowledge ``end_lsn`` once everything before it is stored."""

    flags: int
    commit_lsn: Lsn
    end_lsn: Lsn
    commit_time: int


@dataclass(frozen=True, slots=True)
class Origin:
    """'O': the transaction was replicated from another node."""

    commit_lsn: Lsn
    name: str


@dataclass(frozen=True, slots=True)
class Column:
    """One column of a Relation message; ``flags`` bit 1 marks the replica identity key. ``type_modifier`` is
    atttypmod (-1 for none), or None where the source sends none (decoderbufs)."""

    flags: int
    name: str
    type_oid: int
    type_modifier: int | None
    #: whether the column may be NULL, where the source says (decoderbufs' typeinfo); None: ask the catalog
    optional: bool | None = None
    #: the type with its modifiers as text (`numeric(5,-2)`), where the source sends it (decoderbufs' typeinfo)
    type_text: str | None = None

    @property
    def is_key(self) -> bool:
        return bool(self.flags & 1)


@dataclass(frozen=True, slots=True)
class Relation:
    """'R': a table's description, sent before its first change and again after DDL.

    ``namespace`` is ``""`` for pg_catalog. ``replica_identity`` is ``'d'`` default, ``'n'`` nothing,
    ``'f'`` full or ``'i'`` index. ``xid`` is set only inside a streamed block.
    """

    xid: int | None
    relation_id: int
    namespace: str
    name: str
    replica_identity: str
    columns: tuple[Column, ...]


@dataclass(frozen=True, slots=True)
class Type:
    """'Y': a non-built-in data type used by a following Relation."""

    xid: int | None
    type_oid: int
    namespace: str
    name: str


@dataclass(frozen=True, slots=True)
class Insert:
    """'I': a new row."""

    xid: int | None
    relation_id: int
    new: TupleData


@dataclass(frozen=True, slots=True)
class Update:
    """'U': ``key`` is sent (``'K'``) when the key changed under REPLICA IDENTITY DEFAULT/INDEX,
    ``old`` (``'O'``) under REPLICA IDENTITY FULL; otherwise both are None."""

    xid: int | None
    relation_id: int
    key: TupleData | None
    old: TupleData | None
    new: TupleData


@dataclass(frozen=True, slots=True)
class Delete:
    """'D': exactly one of ``key`` (``'K'``) and ``old`` (``'O'``, REPLICA IDENTITY FULL) is set."""

    xid: int | None
    relation_id: int
    key: TupleData | None
    old: TupleData | None


@dataclass(frozen=True, slots=True)
class Truncate:
    """'T': ``options`` bit 1 is CASCADE, bit 2 is RESTART IDENTITY."""

    xid: int | None
    options: int
    relation_ids: tuple[int, ...]

    @property
    def cascade(self) -> bool:
        return bool(self.options & 1)

    @property
    def restart_identity(self) -> bool:
        return bool(self.options & 2)


@dataclass(frozen=True, slots=True)
class LogicalMessage:
    """'M': from ``pg_logical_emit_message`` (sent only with the ``messages`` option)."""

    xid: int | None
    transactional: bool
    lsn: Lsn
    prefix: str
    content: bytes


@dataclass(frozen=True, slots=True)
class StreamStart:
    """'S': the following messages, up to Stream Stop, belong to the in-progress transaction ``xid``."""

    xid: int
    first_segment: bool


@dataclass(frozen=True, slots=True)
class StreamStop:
    """'E': end of a streamed block."""


@dataclass(frozen=True, slots=True)
class StreamCommit:
    """'c': the streamed transaction ``xid`` committed."""

    xid: int
    flags: int
    commit_lsn: Lsn
    end_lsn: Lsn
    commit_time: int


@dataclass(frozen=True, slots=True)
class StreamAbort:
    """'A': the streamed (sub)transaction aborted; ``abort_lsn``/``abort_time`` come with protocol 4."""

    xid: int
    subxid: int
    abort_lsn: Lsn | None = None
    abort_time: int | None = None


@dataclass(frozen=True, slots=True)
class BeginPrepare:
    """'b' (protocol 3, two_phase): start of a prepared transaction."""

    prepare_lsn: Lsn
    end_lsn: Lsn
    prepare_time: int
    xid: int
    gid: str


@dataclass(frozen=True, slots=True)
class Prepare:
    """'P' (protocol 3): PREPARE TRANSACTION."""

    flags: int
    prepare_lsn: Lsn
    end_lsn: Lsn
    prepare_time: int
    xid: int
    gid: str


@dataclass(frozen=True, slots=True)
class CommitPrepared:
    """'K' (protocol 3): COMMIT PREPARED."""

    flags: int
    commit_lsn: Lsn
    end_lsn: Lsn
    commit_time: int
    xid: int
    gid: str


@dataclass(frozen=True, slots=True)
class RollbackPrepared:
    """'r' (protocol 3): ROLLBACK PREPARED."""

    flags: int
    prepare_end_lsn: Lsn
    rollback_end_lsn: Lsn
    prepare_time: int
    rollback_time: int
    xid: int
    gid: str


@dataclass(frozen=True, slots=True)
class StreamPrepare:
    """'p' (protocol 3): a streamed transaction was prepared."""

    flags: int
    prepare_lsn: Lsn
    end_lsn: Lsn
    prepare_time: int
    xid: int
    gid: str


PgOutputMessage: TypeAlias = (
    Begin
    | Commit
    | Origin
    | Relation
    | Type
    | Insert
    | Update
    | Delete
    | Truncate
    | LogicalMessage
    | StreamStart
    | StreamStop
    | StreamCommit
    | StreamAbort
    | BeginPrepare
    | Prepare
    | CommitPrepared
    | RollbackPrepared
    | StreamPrepare
)
