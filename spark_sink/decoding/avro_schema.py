"""Avro writer schemas → the sink's ConnectSchema, by the rules of Confluent's AvroData.toConnectSchema (default
AvroDataConfig: connect.meta.data on, enhanced schema support off, singleton unions flattened), so an Avro record
gives the Connect schema its JsonConverter twin carries:

- `connect.name` → schema name (else a record's/enum's/fixed's full name; `io.confluent.connect.avro.ConnectDefault*`
  → no name); `connect.version` → version; `connect.parameters` → parameters; `connect.doc` is dropped (the sink
  has no use for docs);
- int with `connect.type` int8/int16 → int8/int16; `logicalType` decimal → org.apache.kafka.connect.data.Decimal
  (version 1, `scale`, `connect.decimal.precision` unless it is AvroData's default 64); date / time-millis /
  timestamp-millis → Connect Date / Time / Timestamp; other logical types are ignored, as AvroData ignores them;
- optional = a union with null (either order); any other union → an `io.confluent.connect.avro.Union` struct with
  one optional field per member (named by the member's type or short record name);
- Avro maps → maps with string keys; arrays of MapEntry records (`io.confluent.connect.avro.MapEntry`, or
  `connect.internal.type` MapEntry) → maps with the entry's key and value schemas;
- enum → string with `io.confluent.connect.avro.Enum` parameters; fixed → bytes with `connect.fixed.size`.

Recursive schemas (a record holding itself) have no Connect form and are refused. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from spark_sink.connect_schema import ConnectField, ConnectSchema, SchemaError

NAMESPACE: Final = "io.confluent.connect.avro"
DEFAULT_NAME: Final = f"{NAMESPACE}.ConnectDefault"
MAP_ENTRY: Final = f"{NAMESPACE}.MapEntry"
UNION_NAME: Final = f"{NAMESPACE}.Union"
ENUM_PARAM: Final = f"{NAMESPACE}.Enum"
RECORD_DOC_PARAM: Final = f"{NAMESPACE}.record.doc"
FIELD_DOC_PREFIX: Final = f"{NAMESPACE}.field.doc."
FIELD_DEFAULT_FLAG: Final = f"{NAMESPACE}.field.default"
ENUM_DOC_PREFIX: Final = f"{NAMESPACE}.enum.doc."
ENUM_DEFAULT_PREFIX: Final = f"{NAMESPACE}.enum.default."
DECIMAL: Final = "org.apache.kafka.connect.data.Decimal"
DECIMAL_PRECISION_DEFAULT: Final = 64
LOGICAL_INT: Final = {"date": "org.apache.kafka.connect.data.Date", "time-millis": "org.apache.kafka.connect.data.Time"}
LOGICAL_LONG: Final = {"timestamp-millis": "org.apache.kafka.connect.data.Timestamp"}
PRIMITIVES: Final = frozenset({"null", "boolean", "int", "long", "float", "double", "bytes", "string"})
TYPES: Final = PRIMITIVES | {"record", "enum", "array", "map", "fixed"}
_SIMPLE: Final = {"boolean": "boolean", "double": "double", "float": "float", "long": "int64", "string": "string"}


def to_connect_schema(avro: Any) -> ConnectSchema:
    """The Connect schema of an Avro schema (parsed JSON); SchemaError when it has none."""
    try:
        return _Mapper().convert(avro, None)
    except SchemaError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, StopIteration) as e:
        raise SchemaError(f"not a valid Avro schema: {type(e).__name__}: {e}") from None


def _full(space: str | None, name: str) -> str:
    return f"{space}.{name}" if space else name


def _full_name(avro: Mapping[str, Any], space: str | None) -> str:
    name = str(avro["name"])
    return name if "." in name else _full(avro.get("namespace", space) or None, name)


class _Mapper:
    def __init__(self) -> None:
        self.named: dict[str, Any] = {}  # full name → definition, to resolve references
        self.active: set[str] = set()  # records being converted (a reference to one of them is a recursion)

    def resolve(self, avro: Any, space: str | None) -> Any:
        if isinstance(avro, str) and avro not in PRIMITIVES:
            full = avro if "." in avro or space is None else f"{space}.{avro}"
            for candidate in (full, avro):
                if candidate in self.active:
                    raise SchemaError(f"the Avro schema is recursive at {candidate!r}: no Connect schema has that form")
                if candidate in self.named:
                    return self.named[candidate]
            raise SchemaError(f"unknown Avro type {avro!r}")
        return avro

    def register(self, avro: Any, space: str | None) -> str | None:
        """Records a named type's definition; returns the namespace its insides are resolved in."""
        if isinstance(avro, dict) and avro.get("type") in ("record", "enum", "fixed"):
            name = str(avro["name"])
            ns = name.rpartition(".")[0] if "." in name else (avro.get("namespace", space) or None)
            self.named.setdefault(_full(ns, name.rpartition(".")[2]), avro)
            return ns
        return space

    def convert(self, avro: Any, space: str | None, optional: bool = False, has_default: bool = False) -> ConnectSchema:
        avro = self.resolve(avro, space)
        if isinstance(avro, list):
            return self.union(avro, space, has_default)
        if isinstance(avro, str):
            avro = {"type": avro}
        if not isinstance(avro, dict):
            raise SchemaError(f"not an Avro schema: {avro!r}")
        space = self.register(avro, space)
        t = avro["type"]
        if isinstance(t, dict | list) or (isinstance(t, str) and t not in TYPES):
            return self.convert(t, space, optional, has_default)
        logical = avro.get("logicalType")
        params: dict[str, str] = {}
        name: str | None = None
        version: int | None = None
        extra: dict[str, Any] = {}
        if t in _SIMPLE:
            kind = _SIMPLE[t]
            if t == "long" and logical in LOGICAL_LONG:
                name, version = LOGICAL_LONG[logical], 1
        elif t == "int":
            kind = "int32"
            connect_type = avro.get("connect.type")
            if logical in LOGICAL_INT:
                name, version = LOGICAL_INT[logical], 1
            elif logical is None and connect_type is not None:
                if connect_type not in ("int8", "int16"):
                    raise SchemaError(f"connect.type {connect_type!r} on an Avro int (int8 or int16 expected)")
                kind = connect_type
        elif t in ("bytes", "fixed"):
            kind = "bytes"
            if logical == "decimal":
                name, version = DECIMAL, 1
                params["scale"] = str(int(avro.get("scale", 0)))
                precision = avro.get("precision")
                if precision is not None and int(precision) != DECIMAL_PRECISION_DEFAULT:
                    params["connect.decimal.precision"] = str(int(precision))
            if t == "fixed":
                params["connect.fixed.size"] = str(avro["size"])
        elif t == "array":
            items = self.resolve(avro["items"], space)
            if isinstance(items, dict) and items.get("type") == "record" and _is_map_entry(items, space):
                kind = "map"
                entry_space = self.register(items, space)
                by_name = {f["name"]: f for f in items["fields"]}
                extra["keys"] = self.convert(by_name["key"]["type"], entry_space)
                extra["values"] = self.convert(by_name["value"]["type"], entry_space)
            else:
                kind = "array"
                extra["items"] = self.convert(items, space)
        elif t == "map":
            kind = "map"
            extra["keys"] = ConnectSchema("string", optional=False)
            extra["values"] = self.convert(avro["values"], space)
        elif t == "record":
            kind = "struct"
            extra["fields"] = self.fields(avro, space, params)
        elif t == "enum":
            kind = "string"
            short = str(avro["name"]).rpartition(".")[2]
            full = _full(space, short)
            if avro.get("doc") is not None:
                params[ENUM_DOC_PREFIX + short] = str(avro["doc"])
            if avro.get("default") is not None:
                params[ENUM_DEFAULT_PREFIX + short] = str(avro["default"])
            params[ENUM_PARAM] = full
            for sym in avro["symbols"]:
                params[f"{ENUM_PARAM}.{sym}"] = str(sym)
        else:  # null
            raise SchemaError("a standalone Avro null schema has no Connect form")
        v = avro.get("connect.version")
        if v is not None:
            if not isinstance(v, int) or isinstance(v, bool):
                raise SchemaError(f"invalid connect.version {v!r}")
            version = v
        cparams = avro.get("connect.parameters")
        if cparams is not None:
            if not isinstance(cparams, dict) or not all(isinstance(x, str) for x in cparams.values()):
                raise SchemaError(f"connect.parameters must be an object of strings, got {cparams!r}")
            params.update(cparams)
        for k, pv in avro.items():
            if k.startswith("avro"):
                params[k] = pv if isinstance(pv, str) else str(pv)
        if avro.get("connect.name") is not None:
            name = str(avro["connect.name"])
        elif t in ("record", "enum") or (t == "fixed" and name != DECIMAL):
            name = _full(space, str(avro["name"]).rpartition(".")[2])  # `space`: the type's own namespace by now
        if name is not None and name.startswith(DEFAULT_NAME):
            name = None
        if has_default and "connect.default" not in avro:
            params[FIELD_DEFAULT_FLAG] = "true"
        return ConnectSchema(kind, optional, name, version, tuple(params.items()), **extra)

    def fields(self, avro: Mapping[str, Any], space: str | None, params: dict[str, str]) -> tuple[ConnectField, ...]:
        full = _full(space, str(avro["name"]).rpartition(".")[2])
        self.active.add(full)
        try:
            if avro.get("doc") is not None:
                params[RECORD_DOC_PARAM] = str(avro["doc"])
            out = []
            for f in avro["fields"]:
                if f.get("doc") is not None:
                    params[FIELD_DOC_PREFIX + f["name"]] = str(f["doc"])
                out.append(ConnectField(str(f["name"]), self.convert(f["type"], space, False, "default" in f)))
            return tuple(out)
        finally:
            self.active.discard(full)

    def union(self, members: list[Any], space: str | None, has_default: bool) -> ConnectSchema:
        if len(members) == 1:
            return self.convert(members[0], space)
        if len(members) == 2 and "null" in members:
            other = members[1] if members[0] == "null" else members[0]
            return self.convert(other, space, True, has_default and members[0] != "null")
        fields = []
        optional = False
        for m in members:
            if m == "null":
                optional = True
                continue
            fields.append(ConnectField(member_name(self.resolve(m, space)), self.convert(m, space, True)))
        return ConnectSchema("struct", optional, UNION_NAME, fields=tuple(fields))


def member_name(member: Any) -> str:
    """A general union's field name for one member: the short name of a named type, else the Avro type name."""
    if isinstance(member, dict) and member.get("type") in ("record", "enum", "fixed"):
        return str(member["name"]).rpartition(".")[2]
    return str(member if isinstance(member, str) else member["type"])


def _is_map_entry(record: Mapping[str, Any], space: str | None) -> bool:
    return _full_name(record, space) == MAP_ENTRY or record.get("connect.internal.type") == "MapEntry"
