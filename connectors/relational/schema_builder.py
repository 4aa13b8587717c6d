"""Table → Connect schemas and precompiled row converters (Debezium's TableSchemaBuilder).

Built once per table (and again when the table changes), never per event. A row arrives as a tuple of
source values in some column order (a pgoutput Relation's, a snapshot SELECT's); `row_converter(order)`
compiles, once per order, the functions that turn such a tuple into the key and value Structs.
"""

from __future__ import annotations

import dataclasses
import enum
import operator
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from connect_worker.api import Schema, Struct, Type
from connect_worker.api.schema import NO_DEFAULT, struct_schema
from connectors.relational.table import Column, Table, TableId

ENVELOPE_VERSION = 2


class EnvelopeLayout(enum.Enum):
    """Where the envelope's fields stand, by Debezium generation (the field order is part of the bytes)."""

    V3 = "before, after, source, transaction, op, ts_ms, ts_us, ts_ns"  # Debezium 3.x
    V2_7 = "before, after, source, op, ts_ms, ts_us, ts_ns, transaction"  # 2.6-2.7 (Vitess connector)
    V2_5 = "before, after, source, op, ts_ms, transaction"  # 2.5 and before (YugabyteDB connector)

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(self.value.split(", "))


class ColumnConverter(Protocol):
    """What the type registry gives for a column: its field schema and a text-to-value function."""

    @property
    def schema(self) -> Schema: ...

    @property
    def from_text(self) -> Callable[[str], Any]: ...

    @property
    def from_snapshot_text(self) -> Callable[[str], Any] | None: ...

    @property
    def rebind(self) -> Callable[[Schema], ColumnConverter] | None:
        """The converter for another variant of the schema (struct values carry their schema), or None."""


class ColumnMapper(Protocol):
    """A column.* shaping rule (mask, truncate, hash, propagate source type)."""

    def schema(self, field_schema: Schema) -> Schema: ...

    @property
    def value(self) -> Callable[[Any], Any] | None: ...


@dataclasses.dataclass(frozen=True, slots=True)
class SchemaBuilderSettings:
    topic_prefix: str
    converter_for: Callable[[Column], ColumnConverter | None]
    mapper_for: Callable[[TableId, Column], ColumnMapper | None]
    key_columns_for: Callable[[TableId], tuple[str, ...] | None]
    column_included: Callable[[TableId, str], bool]
    adjust_schema_name: Callable[[str], str]
    adjust_field_name: Callable[[str], str]
    source_schema: Schema
    transaction_schema: Schema
    unavailable_placeholder: str = "__debezium_unavailable_value"
    #: YugabyteDB's yboutput shape: every column a ``{value, set}`` struct named for the column, null when the
    #: event carries no value for it (SQL NULL, or left out of the change).
    wrap_cells: bool = False
    #: The envelope's field layout, by the Debezium generation a connector reproduces.
    envelope: EnvelopeLayout = EnvelopeLayout.V3


@dataclasses.dataclass(frozen=True, slots=True)
class _Field:
    name: str
    column: str
    schema: Schema
    convert: Callable[[str], Any]
    map_value: Callable[[Any], Any] | None
    placeholder: Any
    snapshot_convert: Callable[[str], Any]
    #: the column's own schema when ``schema`` is a ``{value, set}`` cell around it (wrap_cells)
    inner: Schema | None = None
    #: the field's value for SQL NULL (the mapper's answer to None: a fixed mask masks nulls too)
    null: Any = None


def cell_schema(name: str, value_schema: Schema, *, optional: bool) -> Schema:
    """YugabyteDB's column cell: a struct named for the column with ``value`` and a required ``set`` flag."""
    return struct_schema([("value", value_schema), ("set", Schema(Type.BOOLEAN))], name=name, optional=optional)


RowFn = Callable[[Sequence[Any]], Any]


class TableSchema:
    """Schemas of one table's events, and compiled converters from source rows."""

    def __init__(self, table: Table, settings: SchemaBuilderSettings) -> None:
        self.table = table
        self.id = table.id
        base = settings.adjust_schema_name(f"{settings.topic_prefix}.{table.id.schema}.{table.id.table}")
        value_fields: list[_Field] = []
        by_column: dict[str, _Field] = {}
        key_names = settings.key_columns_for(table.id) or table.primary_key
        for col in table.columns:
            conv = settings.converter_for(col)
            if conv is None:
                continue
            mapper = settings.mapper_for(table.id, col)
            schema = mapper.schema(conv.schema) if mapper is not None else conv.schema
            key_conv = conv
            if schema is not conv.schema and conv.rebind is not None:
                conv = conv.rebind(schema)  # a struct value carries its schema: the mapped one
            name = settings.adjust_field_name(col.name)
            inner = None
            if settings.wrap_cells:
                # a cell is null when the event carries no value for its column (an update under replica identity
                # CHANGE, a key-only before image), so only a key column's cell may be required
                optional = schema.optional or col.name not in key_names
                inner, schema = schema, cell_schema(name, schema, optional=optional)
            map_value = mapper.value if mapper is not None else None
            placeholder = None if inner is not None else _placeholder(schema, settings.unavailable_placeholder)
            null = None
            if map_value is not None and inner is None:
                # Debezium runs a column's mapper on every value its converter returns, the TOAST placeholder
                # and SQL NULL included (a fixed mask turns both into the mask)
                placeholder, null = map_value(placeholder), map_value(None)
            field = _Field(
                name,
                col.name,
                schema,
                conv.from_text,
                map_value,
                placeholder,
                conv.from_snapshot_text or conv.from_text,
                inner,
                null,
            )
            if inner is None and col.name in key_names and (mapper is not None or map_value is not None):
                # Debezium builds the key without the column mappers: no mask, hash or truncation of key values,
                # no propagated parameters in the key schema
                by_column[col.name] = _Field(
                    name,
                    col.name,
                    key_conv.schema,
                    key_conv.from_text,
                    None,
                    _placeholder(key_conv.schema, settings.unavailable_placeholder),
                    key_conv.from_snapshot_text or key_conv.from_text,
                )
            else:
                by_column[col.name] = field
            if settings.column_included(table.id, col.name):
                value_fields.append(field)
        self.key_fields: tuple[_Field, ...] = tuple(by_column[n] for n in key_names if n in by_column)
        self.value_fields: tuple[_Field, ...] = tuple(value_fields)
        self.key_schema: Schema | None = (
            struct_schema([(f.name, _key_field_schema(f)) for f in self.key_fields], name=base + ".Key")
            if self.key_fields
            else None
        )
        self.value_schema = struct_schema(
            [(f.name, f.schema) for f in self.value_fields], name=base + ".Value", optional=True
        )
        self.wraps_cells = settings.wrap_cells
        self.envelope_schema = struct_schema(
            _envelope_fields(self.value_schema, settings), name=base + ".Envelope", version=ENVELOPE_VERSION
        )
        self._compiled: dict[tuple[bool, tuple[str, ...]], tuple[RowFn | None, RowFn]] = {}
        self.key_from_value: Callable[[Struct], Struct] | None = _key_from_value(
            self.key_schema, self.key_fields, self.value_fields
        )

    def row_converter(self, order: Sequence[str], *, snapshot: bool = False) -> tuple[RowFn | None, RowFn]:
        """(key_fn, value_fn) for rows whose values come in column order `order`. Missing columns are null.
        `snapshot`: the rows were read by the snapshot (the few values Debezium reads differently there)."""
        key = (snapshot, tuple(order))
        compiled = self._compiled.get(key)
        if compiled is None:
            index = {name: i for i, name in enumerate(key[1])}
            key_fn = (
                _compile(self.key_schema, self.key_fields, index, snapshot) if self.key_schema is not None else None
            )
            compiled = (key_fn, _compile(self.value_schema, self.value_fields, index, snapshot))
            self._compiled[key] = compiled
        return compiled

    def partial_row(self, struct: Struct) -> Struct:
        """A row built from a key-only old tuple, completed by Debezium's rule (see :func:`fill_required`);
        YugabyteDB's cells stay null, as its connector leaves them."""
        return struct if self.wraps_cells else fill_required(struct)


def _key_from_value(
    key_schema: Schema | None, key_fields: Sequence[_Field], value_fields: Sequence[_Field]
) -> Callable[[Struct], Struct] | None:
    """The key taken from an already converted value (same converters and mappers), so a row's key
    columns are converted once; None when a key column is not in the value (column.exclude.list)."""
    if key_schema is None:
        return None
    position = {f.column: i for i, f in enumerate(value_fields)}
    picks = [position.get(f.column) for f in key_fields]
    if any(
        i is None or (value_fields[i] is not f and value_fields[i].inner is None)
        for i, f in zip(picks, key_fields, strict=True)
    ):
        return None  # not in the value (column.exclude.list), or mapped there and not in the key
    if any(f.inner is not None and key_schema.fields[n].schema != f.schema for n, f in enumerate(key_fields)):
        return None  # a cell of a nullable key column is optional in the value, required in the key
    index = tuple(i for i in picks if i is not None)
    of = Struct.of
    if len(index) == 1:
        (only,) = index

        def key_of_one(value: Struct) -> Struct:
            return of(key_schema, (value.values[only],))

        return key_of_one
    pick = operator.itemgetter(*index)  # a tuple of the picked values, in C

    def key_of(value: Struct) -> Struct:
        return of(key_schema, pick(value.values))

    return key_of


def _envelope_fields(value_schema: Schema, settings: SchemaBuilderSettings) -> list[tuple[str, Schema]]:
    schemas = {
        "before": value_schema,
        "after": value_schema,
        "source": settings.source_schema,
        "transaction": settings.transaction_schema,
        "op": Schema(Type.STRING),
        "ts_ms": Schema(Type.INT64, optional=True),
        "ts_us": Schema(Type.INT64, optional=True),
        "ts_ns": Schema(Type.INT64, optional=True),
    }
    return [(name, schemas[name]) for name in settings.envelope.fields]


def _key_field_schema(field: _Field) -> Schema:
    """A key column's schema: the column's own (optional when the column is nullable, as a message.key.columns or
    unique-index key may be), or, when cells are wrapped, a required cell around a required value."""
    if field.inner is None:
        return field.schema
    return cell_schema(field.name, _required(field.inner), optional=False)


def _required(schema: Schema) -> Schema:
    return schema if not schema.optional else schema.with_(optional=False)


def _placeholder(schema: Schema, text: str) -> Any:
    """The value standing for an unchanged TOAST column, by the field's type (Debezium's rules)."""
    raw: Any = bytes.fromhex(text[4:]) if text.startswith("hex:") else text
    if schema.type is Type.STRING:
        return raw if isinstance(raw, str) else raw.decode("utf-8", "replace")
    if schema.type is Type.BYTES and schema.name is None:
        return raw if isinstance(raw, bytes) else raw.encode("utf-8")
    if schema.type is Type.ARRAY:
        items = schema.element_schema
        return [_placeholder(items, text)]
    return None


def _compile(schema: Schema, fields: Sequence[_Field], index: dict[str, int], snapshot: bool = False) -> RowFn:
    """Generate, once per table and column order, a function turning a source row into a Struct.

    Per column: None becomes the field's null value (None unless a mapper says otherwise); text goes through
    the column's converter (inlined away for text columns, whose converter is the identity) and mapper; bytes
    are decoded first; any other object is the unchanged-TOAST marker and becomes the column's (mapped)
    placeholder."""
    ns: dict[str, Any] = {"of": Struct.of, "SCHEMA": schema, "str": str, "bytes": bytes}
    items: list[str] = []
    lines = ["def convert(row):"]
    for n, f in enumerate(fields):
        i = index.get(f.column, -1)
        if i < 0:
            items.append("None")
            continue
        conv = f.snapshot_convert if snapshot else f.convert
        ns[f"c{n}"], ns[f"m{n}"], ns[f"p{n}"], ns[f"n{n}"] = conv, f.map_value, f.placeholder, f.null
        expr = "x" if getattr(conv, "is_identity", False) else f"c{n}(x)"
        if f.map_value is not None:
            expr = f"m{n}({expr})"
        if f.inner is not None:  # a {value, set} cell around the converted value
            ns[f"s{n}"] = schema.fields[n].schema  # the key's cells are required ones
            expr = f"of(s{n}, ({expr}, True))"
        lines += [
            f"    x = row[{i}]",
            "    if x is None:",
            f"        v{n} = n{n}",
            "    elif x.__class__ is str:",
            f"        v{n} = {expr}",
            "    elif x.__class__ is bytes:",
            "        x = x.decode()",
            f"        v{n} = {expr}",
            "    else:  # the unchanged-TOAST marker",
            f"        v{n} = p{n}",
        ]
        items.append(f"v{n}")
    lines.append("    return of(SCHEMA, (" + ", ".join(items) + ("," if len(items) == 1 else "") + "))")
    exec(compile("\n".join(lines), f"<row converter {schema.name}>", "exec"), ns)
    fn: RowFn = ns["convert"]
    return fn


def _compile_generic(schema: Schema, fields: Sequence[_Field], index: dict[str, int], snapshot: bool = False) -> RowFn:
    """The plain per-column loop: the reference the generated converters are tested against."""
    plan = tuple(
        (
            index.get(f.column, -1),
            f.snapshot_convert if snapshot else f.convert,
            f.map_value,
            f.placeholder,
            schema.fields[n].schema if f.inner is not None else None,
            f.null,
        )
        for n, f in enumerate(fields)
    )
    of = Struct.of

    def convert(row: Sequence[Any]) -> Struct:
        out: list[Any] = []
        append = out.append
        for i, conv, mapv, placeholder, cell, null in plan:
            if i < 0:
                append(None)
                continue
            v = row[i]
            if v is None:
                append(null)
                continue
            if isinstance(v, str):
                v = conv(v)
            elif v.__class__ is bytes:
                v = conv(v.decode("utf-8"))
            else:  # unchanged TOAST marker
                append(placeholder)
                continue
            v = mapv(v) if mapv is not None else v
            append(v if cell is None else of(cell, (v, True)))
        return of(schema, out)

    return convert


def fill_required(struct: Struct) -> Struct:
    """Debezium's rule for partial rows (a DELETE's key-only before image): required fields without a
    value get their schema default, or the type's zero value."""
    values = list(struct.values)
    changed = False
    for f in struct.schema.fields:
        if values[f.index] is None and not f.schema.optional:
            values[f.index] = f.schema.default if f.schema.default is not NO_DEFAULT else _zero(f.schema)
            changed = True
    return Struct.of(struct.schema, values) if changed else struct


def _zero(schema: Schema) -> Any:
    t = schema.type
    if t in (Type.INT8, Type.INT16, Type.INT32, Type.INT64):
        return 0
    if t in (Type.FLOAT32, Type.FLOAT64):
        return 0.0
    if t is Type.BOOLEAN:
        return False
    if t is Type.STRING:
        return ""
    if t is Type.BYTES:
        if schema.name == "org.apache.kafka.connect.data.Decimal":
            import decimal

            return decimal.Decimal(0).scaleb(-int((schema.parameters or {}).get("scale", "0")))
        return b""
    if t is Type.ARRAY:
        return []
    if t is Type.MAP:
        return {}
    if t is Type.STRUCT:
        return Struct.of(schema, [_zero(f.schema) if not f.schema.optional else None for f in schema.fields])
    return None
