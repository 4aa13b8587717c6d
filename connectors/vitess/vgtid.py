"""Vgtid: a Vitess VStream position (one GTID set per shard) as an immutable value (pure, no I/O).

A VGTID lists, for every shard a stream covers, the keyspace, the shard name and the MySQL GTID-set
position of that shard (``"MySQL56/<uuid>:1-37"``, ``"MariaDB/0-1592148-45"``), or one of the two
request-only values :data:`GTID_CURRENT` (``"current"``: start at the shard's current position) and
:data:`GTID_COPY` (``""``: copy the tables first, then stream). While VTGate copies tables, each shard
also carries ``table_p_ks``: per table, the primary key of the last copied row, so an interrupted copy
can resume.

The text form is what Debezium stores in offsets, in ``source.vgtid`` and as transaction ids: a compact
JSON array (no spaces, non-ASCII written as UTF-8) of objects whose keys come in the order
``keyspace``, ``shard``, ``gtid``, ``table_p_ks``. Example::

    [{"keyspace":"commerce","shard":"80-","gtid":"MariaDB/0-54610504-47"}]

``table_p_ks`` is written only when non-empty and read whether present, empty or absent. Each of its
entries is ``{"table_name": "<t>", "lastpk": {"fields": [...], "rows": [...]}}``, the JSON form of
``binlogdata.TableLastPK``: fields are ``{"name", "type" (the query.Type name, e.g. "INT64"),
"charset", "flags"}``; rows are ``{"lengths": ["<n>", ...], "values": "<text>"}`` with the lengths as
decimal strings (-1 = NULL) and the values as the UTF-8 text of ``query.Row.values``. That form
converts to and from the protobuf without loss when the values are valid UTF-8 (invalid bytes become
U+FFFD, as Debezium's ``toStringUtf8`` does). A ``query.Type`` number this project's trimmed enum does
not name is written as the number.

VGTIDs of different shard sets have no meaningful order, so :class:`Vgtid` defines equality and
hashing but no ordering.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final

import orjson

from connect_worker.api.errors import DataError

# The generated modules and protobuf ship no type information: they are used as Any, behind this module.
_binlogdata: Any = importlib.import_module("connectors.vitess.proto.binlogdata_pb2")
_query: Any = importlib.import_module("connectors.vitess.proto.query_pb2")

__all__ = ["GTID_COPY", "GTID_CURRENT", "ShardGtid", "TableLastPk", "Vgtid"]

GTID_CURRENT: Final = "current"
"""Request-only gtid: start streaming the shard at its current position."""
GTID_COPY: Final = ""
"""Request-only gtid: copy the shard's (filtered) tables first, then stream from the copy's position."""

_TYPE_NAME_BY_NUMBER: Final[Mapping[int, str]] = {number: name for name, number in _query.Type.items()}
_TYPE_NUMBER_BY_NAME: Final[Mapping[str, int]] = dict(_query.Type.items())
_MAX_TEXT_IN_ERRORS: Final = 200


@dataclass(frozen=True, slots=True)
class TableLastPk:
    """Copy progress of one table: the primary key of its last copied row (``binlogdata.TableLastPK``).

    ``lastpk`` is the JSON form described in the module docstring, or None when the protobuf has no
    ``lastpk`` (written as ``"lastpk":null``). It is validated and normalised on construction (missing
    ``charset``/``flags`` become 0, numeric lengths become strings, known type numbers become names) and
    stored deeply read-only: mappings as read-only views, lists as tuples.
    """

    table_name: str
    lastpk: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.table_name, str):
            raise DataError(f"table_p_ks: table_name must be a string, got {self.table_name!r}")
        if self.lastpk is not None:
            object.__setattr__(self, "lastpk", _freeze(_normalise_lastpk(self.lastpk, self.table_name)))

    def __hash__(self) -> int:
        return hash((self.table_name, _dumps(self.lastpk)))

    def __reduce__(self) -> tuple[type[TableLastPk], tuple[str, Any]]:
        # read-only views cannot be pickled or deep-copied: rebuild from the plain JSON form instead
        return (TableLastPk, (self.table_name, self.lastpk_json()))

    def lastpk_json(self) -> dict[str, Any] | None:
        """``lastpk`` as plain dicts and lists (a fresh copy, e.g. to compare with a literal)."""
        result: dict[str, Any] | None = orjson.loads(_dumps(self.lastpk))
        return result

    @classmethod
    def from_proto(cls, pb: Any) -> TableLastPk:
        """From a ``binlogdata.TableLastPK`` message."""
        return cls(pb.table_name, _lastpk_from_proto(pb.lastpk) if pb.HasField("lastpk") else None)

    def to_proto(self) -> Any:
        """As a ``binlogdata.TableLastPK`` message."""
        msg = _binlogdata.TableLastPK(table_name=self.table_name)
        if self.lastpk is not None:
            msg.lastpk.CopyFrom(_lastpk_to_proto(self.lastpk))
        return msg

    def _json_obj(self) -> dict[str, Any]:
        return {"table_name": self.table_name, "lastpk": self.lastpk}


@dataclass(frozen=True, slots=True)
class ShardGtid:
    """The position of one shard: keyspace, shard, GTID set and (during a copy) per-table progress.

    An empty ``shard`` in a request means every shard of the keyspace (VTGate expands it).
    """

    keyspace: str
    shard: str
    gtid: str
    table_p_ks: tuple[TableLastPk, ...] = ()

    def __post_init__(self) -> None:
        if type(self.table_p_ks) is not tuple:
            object.__setattr__(self, "table_p_ks", tuple(self.table_p_ks))

    @classmethod
    def from_proto(cls, pb: Any) -> ShardGtid:
        """From a ``binlogdata.ShardGtid`` message."""
        return cls(pb.keyspace, pb.shard, pb.gtid, tuple(TableLastPk.from_proto(t) for t in pb.table_p_ks))

    def to_proto(self) -> Any:
        """As a ``binlogdata.ShardGtid`` message."""
        return _binlogdata.ShardGtid(
            keyspace=self.keyspace,
            shard=self.shard,
            gtid=self.gtid,
            table_p_ks=[t.to_proto() for t in self.table_p_ks],
        )

    def _json_obj(self) -> dict[str, Any]:
        obj: dict[str, Any] = {"keyspace": self.keyspace, "shard": self.shard, "gtid": self.gtid}
        if self.table_p_ks:
            obj["table_p_ks"] = [t._json_obj() for t in self.table_p_ks]
        return obj


@dataclass(frozen=True, slots=True)
class Vgtid:
    """A position across shards: one :class:`ShardGtid` per shard, in the order VTGate sent them.

    ``str(vgtid)`` is :meth:`to_json`, the exact string stored in offsets.
    """

    shard_gtids: tuple[ShardGtid, ...]
    _json: str | None = field(default=None, init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        if type(self.shard_gtids) is not tuple:
            object.__setattr__(self, "shard_gtids", tuple(self.shard_gtids))

    # -- text form ---------------------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str) -> Vgtid:
        """Parse the JSON array form (with or without ``table_p_ks``); DataError names what is wrong."""
        try:
            data = orjson.loads(text)
        except (orjson.JSONDecodeError, TypeError) as exc:
            raise DataError(f"Invalid VGTID {_clip(text)}: not JSON ({exc})") from None
        if not isinstance(data, list):
            raise DataError(f"Invalid VGTID {_clip(text)}: expected a JSON array of shard positions")
        if not data:
            raise DataError(f"Invalid VGTID {_clip(text)}: the array lists no shard")
        return cls(tuple(_shard_gtid_from_json(i, entry, text) for i, entry in enumerate(data)))

    def to_json(self) -> str:
        """The compact JSON array, keys in Debezium's order, ``table_p_ks`` only where non-empty."""
        cached = self._json
        if cached is None:
            cached = _dumps([sg._json_obj() for sg in self.shard_gtids])
            object.__setattr__(self, "_json", cached)
        return cached

    def __str__(self) -> str:
        return self.to_json()

    # -- protobuf ----------------------------------------------------------------------------------

    @classmethod
    def from_proto(cls, pb: Any) -> Vgtid:
        """From a ``binlogdata.VGtid`` message (e.g. the ``vgtid`` of a VGTID event)."""
        return cls(tuple(ShardGtid.from_proto(sg) for sg in pb.shard_gtids))

    def to_proto(self) -> Any:
        """As a ``binlogdata.VGtid`` message (e.g. for ``VStreamRequest.vgtid``)."""
        return _binlogdata.VGtid(shard_gtids=[sg.to_proto() for sg in self.shard_gtids])

    # -- queries -----------------------------------------------------------------------------------

    @property
    def shards(self) -> tuple[str, ...]:
        """The shard names, in order."""
        return tuple(sg.shard for sg in self.shard_gtids)


# -- JSON helpers ----------------------------------------------------------------------------------


def _json_default(value: Any) -> Any:
    if isinstance(value, MappingProxyType):
        return dict(value)
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def _dumps(value: Any) -> str:
    return orjson.dumps(value, default=_json_default).decode()


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return MappingProxyType({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


def _clip(text: Any) -> str:
    shown = repr(text)
    return shown if len(shown) <= _MAX_TEXT_IN_ERRORS else shown[:_MAX_TEXT_IN_ERRORS] + "..."


def _shard_gtid_from_json(index: int, entry: Any, text: str) -> ShardGtid:
    where = f"Invalid VGTID {_clip(text)}: entry {index}"
    if not isinstance(entry, dict):
        raise DataError(f"{where} is not a JSON object")
    values: list[str] = []
    for key in ("keyspace", "shard", "gtid"):
        value = entry.get(key)
        if not isinstance(value, str):
            problem = "is missing" if key not in entry else "must be a string"
            raise DataError(f"{where}: {key!r} {problem}")
        values.append(value)
    raw_pks = entry.get("table_p_ks")
    if raw_pks is None:
        raw_pks = []
    if not isinstance(raw_pks, list):
        raise DataError(f"{where}: 'table_p_ks' must be an array")
    table_p_ks: list[TableLastPk] = []
    for j, item in enumerate(raw_pks):
        if not isinstance(item, dict) or not isinstance(item.get("table_name"), str):
            raise DataError(f"{where}: table_p_ks[{j}] needs a string 'table_name'")
        lastpk = item.get("lastpk")
        if lastpk is not None and not isinstance(lastpk, dict):
            raise DataError(f"{where}: table_p_ks[{j}].lastpk must be an object or null")
        table_p_ks.append(TableLastPk(item["table_name"], lastpk))
    return ShardGtid(values[0], values[1], values[2], tuple(table_p_ks))


# -- lastpk: JSON form <-> query.QueryResult ---------------------------------------------------------


def _normalise_lastpk(lastpk: Any, table: str) -> dict[str, Any]:
    where = f"Invalid lastpk of table {table!r}"
    if not isinstance(lastpk, Mapping):
        raise DataError(f"{where}: expected an object with 'fields' and 'rows'")
    fields = [_normalise_field(f, where) for f in _array(lastpk.get("fields"), "fields", where)]
    rows = [_normalise_row(r, where) for r in _array(lastpk.get("rows"), "rows", where)]
    return {"fields": fields, "rows": rows}


def _array(value: Any, key: str, where: str) -> Iterable[Any]:
    if value is None:
        return ()
    if not isinstance(value, list | tuple):
        raise DataError(f"{where}: {key!r} must be an array")
    return value


def _normalise_field(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise DataError(f"{where}: a field must be an object")
    name = value.get("name", "")
    if not isinstance(name, str):
        raise DataError(f"{where}: field name {name!r} must be a string")
    type_: Any = value.get("type", "NULL_TYPE")
    if isinstance(type_, str):
        if type_ not in _TYPE_NUMBER_BY_NAME:
            raise DataError(f"{where}: unknown query.Type {type_!r} of field {name!r}")
    elif _is_int(type_):
        type_ = _TYPE_NAME_BY_NUMBER.get(type_, type_)
    else:
        raise DataError(f"{where}: type of field {name!r} must be a query.Type name")
    return {
        "name": name,
        "type": type_,
        "charset": _uint32(value, "charset", where),
        "flags": _uint32(value, "flags", where),
    }


def _normalise_row(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise DataError(f"{where}: a row must be an object")
    lengths: list[str] = []
    for n in _array(value.get("lengths"), "lengths", where):
        try:
            length = int(n) if isinstance(n, str) or _is_int(n) else None
        except ValueError:
            length = None
        if length is None or length < -1:
            raise DataError(f"{where}: row length {n!r} is not an integer >= -1")
        lengths.append(str(length))
    values = value.get("values", "")
    if not isinstance(values, str):
        raise DataError(f"{where}: row values must be a string")
    return {"lengths": lengths, "values": values}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _uint32(obj: Mapping[str, Any], key: str, where: str) -> int:
    value = obj.get(key, 0)
    if not _is_int(value) or not 0 <= value <= 0xFFFFFFFF:
        raise DataError(f"{where}: field {key} {value!r} must be an unsigned 32-bit integer")
    return int(value)


def _lastpk_from_proto(result: Any) -> dict[str, Any]:
    return {
        "fields": [
            {"name": f.name, "type": _TYPE_NAME_BY_NUMBER.get(f.type, f.type), "charset": f.charset, "flags": f.flags}
            for f in result.fields
        ],
        "rows": [
            {"lengths": [str(n) for n in r.lengths], "values": r.values.decode("utf-8", errors="replace")}
            for r in result.rows
        ],
    }


def _lastpk_to_proto(lastpk: Mapping[str, Any]) -> Any:
    fields = [
        _query.Field(
            name=f["name"],
            type=f["type"] if isinstance(f["type"], int) else _TYPE_NUMBER_BY_NAME[f["type"]],
            charset=f["charset"],
            flags=f["flags"],
        )
        for f in lastpk["fields"]
    ]
    rows = [_query.Row(lengths=[int(n) for n in r["lengths"]], values=r["values"].encode()) for r in lastpk["rows"]]
    return _query.QueryResult(fields=fields, rows=rows)
