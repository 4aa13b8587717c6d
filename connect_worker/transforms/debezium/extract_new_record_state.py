"""ExtractNewRecordState: unwrap Debezium's change-event envelope to the row state it carries
(io.debezium.transforms.ExtractNewRecordState).

Creates, reads and updates become their `after` row; deletes and tombstones are handled per
`delete.tombstone.handling.mode`:

| mode                     | delete event                               | tombstone |
|--------------------------|--------------------------------------------|-----------|
| drop                     | dropped                                    | dropped   |
| tombstone (default)      | null value (value schema kept)             | kept      |
| rewrite                  | `before` row + `__deleted="true"`          | dropped   |
| rewrite-with-tombstone   | `before` row + `__deleted="true"`          | kept      |
| delete-to-tombstone      | a tombstone (null value and value schema)  | dropped   |

In the rewrite modes other rows get `__deleted="false"` (a string field). Truncate events (no before and
no after) are dropped; records not in an envelope (heartbeats, transaction metadata…) pass unchanged.
`add.fields` / `add.headers` copy envelope metadata (`op`, `ts_ms`, source fields such as `lsn` or
`table`, `transaction.id`…; `struct.field` qualifies, `field:newName` renames) under a prefix (`__`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from connect_worker.api.config import ConfigDef, ConfigKey, ConfigType, Importance, Width, invalid
from connect_worker.api.errors import ConfigError
from connect_worker.api.record import Header, SourceRecord
from connect_worker.api.schema import OPTIONAL_STRING_SCHEMA, STRING_SCHEMA, Schema, Type
from connect_worker.api.struct import Struct
from connect_worker.api.transform import Transformation
from connect_worker.transforms._util import (
    DEBEZIUM_VERSION,
    SchemaCache,
    copy_basics,
    require_struct,
    struct_like,
)
from connect_worker.transforms.debezium._envelope import (
    AFTER,
    BEFORE,
    OP,
    OP_DELETE,
    SOURCE,
    TRANSACTION,
    TS_MS,
    TS_NS,
    TS_US,
    is_envelope_schema,
)

DELETED_FIELD = "__deleted"
DROP, TOMBSTONE, REWRITE, REWRITE_WITH_TOMBSTONE, DELETE_TO_TOMBSTONE = (
    "drop",
    "tombstone",
    "rewrite",
    "rewrite-with-tombstone",
    "delete-to-tombstone",
)
_PURPOSE = "source field insertion"
_TRANSACTION_FIELDS = frozenset({"id", "total_order", "data_collection_order"})
_ENVELOPE_FIELDS = frozenset({OP, TS_MS, TS_US, TS_NS})

_MODES = (DROP, TOMBSTONE, REWRITE_WITH_TOMBSTONE, REWRITE, DELETE_TO_TOMBSTONE)  # as Debezium lists them


def _mode_validator(name: str, value: Any) -> None:
    if value is None or str(value).strip().lower() not in _MODES:
        raise invalid(name, value, "Value must be one of " + ", ".join(_MODES))


# Keys, types, widths, labels and order as Debezium 3.6.3's ExtractNewRecordState.config() declares them (no
# group, each numbered 1); documentation in our own words. replace.null.with.default is ours only (internal).
_CONFIG = ConfigDef(
    [
        ConfigKey(
            "delete.tombstone.handling.mode",
            ConfigType.STRING,
            TOMBSTONE,
            validator=_mode_validator,
            importance=Importance.MEDIUM,
            documentation="What happens to delete events and tombstones: drop (both dropped), tombstone "
            "(delete becomes a null value, tombstone kept), rewrite (delete becomes the old row with "
            "__deleted=true, tombstone dropped), rewrite-with-tombstone (as rewrite, tombstone kept), "
            "delete-to-tombstone (delete becomes a tombstone, the original tombstone is dropped).",
            order_in_group=1,
            width=Width.MEDIUM,
            display_name="Handle delete and tombstone records",
        ),
        ConfigKey(
            "route.by.field",
            ConfigType.STRING,
            "",
            importance=Importance.LOW,
            documentation="A row column whose value becomes the topic name (read from `before` for deletes).",
            order_in_group=1,
            width=Width.LONG,
            display_name="Route by field name",
        ),
        ConfigKey(
            "add.fields.prefix",
            ConfigType.STRING,
            "__",
            importance=Importance.LOW,
            documentation="Prefix of the fields added by add.fields.",
            order_in_group=1,
            width=Width.SHORT,
            display_name="Field prefix to be added to each field.",
        ),
        ConfigKey(
            "add.fields",
            ConfigType.LIST,
            (),
            importance=Importance.LOW,
            documentation="Comma list of envelope metadata to add as row fields: op, ts_ms, source fields "
            "(lsn, table, …), transaction fields (id, total_order, …), optionally qualified (source.ts_ms) "
            "and renamed (field:newName).",
            order_in_group=1,
            width=Width.LONG,
            display_name="Adds the specified field(s) to the message if they exist.",
        ),
        ConfigKey(
            "add.headers.prefix",
            ConfigType.STRING,
            "__",
            importance=Importance.LOW,
            documentation="Prefix of the headers added by add.headers.",
            order_in_group=1,
            width=Width.SHORT,
            display_name="Header prefix to be added to each header.",
        ),
        ConfigKey(
            "add.headers",
            ConfigType.LIST,
            (),
            importance=Importance.LOW,
            documentation="Comma list of envelope metadata to add as headers (same syntax as add.fields); "
            "tombstones get an op header of d.",
            order_in_group=1,
            width=Width.LONG,
            display_name="Adds the specified fields to the header if they exist.",
        ),
        ConfigKey(
            "drop.fields.header.name",
            ConfigType.STRING,
            None,
            importance=Importance.LOW,
            documentation="A header holding a list of field names to remove from the row.",
            order_in_group=1,
            width=Width.SHORT,
            display_name="Specifies a header that contains a list of field names to be removed",
        ),
        ConfigKey(
            "drop.fields.from.key",
            ConfigType.BOOLEAN,
            False,
            importance=Importance.LOW,
            documentation="Remove the fields named by drop.fields.header.name from the key too.",
            order_in_group=1,
            width=Width.SHORT,
            display_name="Specifies whether the fields to be dropped should also be omitted from the key",
        ),
        ConfigKey(
            "drop.fields.keep.schema.compatible",
            ConfigType.BOOLEAN,
            True,
            importance=Importance.LOW,
            documentation="true: only optional fields are removed, so the schema stays compatible; "
            "false: every named field is removed.",
            order_in_group=1,
            width=Width.SHORT,
            display_name="Specifies if fields are dropped, will the event's schemas be compatible",
        ),
        ConfigKey(
            "replace.null.with.default",
            ConfigType.BOOLEAN,
            True,
            importance=Importance.LOW,
            documentation="When the row is rebuilt (added fields, __deleted, dropped fields), a null column "
            "that has a default value is written as that default.",
            internal=True,
        ),
    ]
)


@dataclass(frozen=True, slots=True)
class FieldReference:
    """One entry of add.fields / add.headers: where the value lives and the name it is added under."""

    struct: str | None  # "source", "transaction", … or None for envelope-level fields (op, ts_ms)
    field: str
    new_name: str

    @classmethod
    def parse(cls, prefix: str, spec: str) -> FieldReference:
        parts = spec.split(":")
        if len(parts) > 2:
            raise ConfigError(f"Unexpected field name: {spec}")
        path = parts[0].split(".")
        field = path[0] if len(path) == 1 else path[1]
        struct: str | None
        if len(path) == 1:
            struct = TRANSACTION if field in _TRANSACTION_FIELDS else None if field in _ENVELOPE_FIELDS else SOURCE
        else:
            struct = path[0]
        if len(parts) == 2:
            new_name = prefix + parts[1]
        else:
            new_name = prefix + (field if len(path) == 1 else f"{struct}_{field}")
        return cls(struct, field, new_name)

    @classmethod
    def parse_list(cls, prefix: str, specs: str) -> tuple[FieldReference, ...]:
        return tuple(cls.parse(prefix, s.strip()) for s in specs.split(",") if s.strip())

    def _parent_schema(self, envelope: Schema) -> Schema | None:
        if self.struct is None:
            return envelope
        f = envelope.field(self.struct)
        if f is None or f.schema.type is not Type.STRUCT:
            return None
        return f.schema

    def schema_in(self, envelope: Schema) -> Schema | None:
        """The (optional) schema of the added field, or None when the envelope has no such field."""
        parent = self._parent_schema(envelope)
        found = parent.field(self.field) if parent is not None else None
        if found is None:
            found = envelope.field(self.field)
        return None if found is None else copy_basics(found.schema, optional=True)

    def value_in(self, envelope: Struct) -> Any:
        parent: Any = envelope if self.struct is None else _get(envelope, self.struct)
        if parent is None:
            return None  # e.g. no transaction block during a snapshot
        if isinstance(parent, Struct) and parent.schema.field(self.field) is not None:
            return _get(parent, self.field)
        return _get(envelope, self.field)


def _get(struct: Struct, name: str) -> Any:
    f = struct.schema.field(name)
    return None if f is None else struct.values[f.index]


@dataclass(frozen=True, slots=True)
class _RowPlan:
    """How to build an output row for one (row schema, envelope schema, __deleted) combination."""

    schema: Schema
    refs: tuple[FieldReference, ...]  # added fields present in the envelope, in order
    deleted: str | None


class ExtractNewRecordState(Transformation):
    """Replaces a Debezium change event by the row state it carries (see the module doc)."""

    class_name: ClassVar[str] = "io.debezium.transforms.ExtractNewRecordState"
    plugin_version: ClassVar[str] = DEBEZIUM_VERSION

    @classmethod
    def config_def(cls) -> ConfigDef:
        return _CONFIG

    def configure(self, configs: Mapping[str, Any]) -> None:
        cfg = _CONFIG.parse(configs)
        self._mode: str = cfg["delete.tombstone.handling.mode"].lower()
        self._route_by: str | None = cfg["route.by.field"].strip() or None
        # add.fields / add.headers are lists in the ConfigDef (as Debezium declares them); the parser reads text
        self._fields = FieldReference.parse_list(cfg["add.fields.prefix"], ",".join(cfg["add.fields"]))
        self._headers = FieldReference.parse_list(cfg["add.headers.prefix"], ",".join(cfg["add.headers"]))
        header_name: str | None = cfg["drop.fields.header.name"]
        self._drop_header = header_name.strip() if header_name and header_name.strip() else None
        self._drop_from_key: bool = cfg["drop.fields.from.key"]
        self._drop_keep_compatible: bool = cfg["drop.fields.keep.schema.compatible"]
        self._replace_null: bool = cfg["replace.null.with.default"]
        self._rewrite = self._mode in (REWRITE, REWRITE_WITH_TOMBSTONE)
        self._plans: SchemaCache[tuple[Schema, Schema, str | None], _RowPlan] = SchemaCache(64)
        self._header_schemas: SchemaCache[Schema, tuple[tuple[FieldReference, Schema], ...]] = SchemaCache(64)
        self._dropped: SchemaCache[tuple[Schema, frozenset[str]], tuple[Schema, tuple[int, ...]]] = SchemaCache(64)
        self._envelopes: SchemaCache[Schema, tuple[int, int] | None] = SchemaCache(64)

    # -- entry point -------------------------------------------------------------------------------
    def apply(self, record: SourceRecord) -> SourceRecord | None:
        if record.value is None:
            return self._tombstone(record)
        schema = record.value_schema
        if schema is None or not isinstance(record.value, Struct) or not is_envelope_schema(schema):
            return record
        positions = self._envelopes.get(schema, _row_positions)
        if positions is None:
            return record
        envelope: Struct = record.value
        before, after = envelope.values[positions[0]], envelope.values[positions[1]]
        if before is None and after is None:
            return None  # truncate (or another row-less event): dropped
        if self._headers:
            record = record.with_(headers=(*record.headers, *self._make_headers(envelope)))
        if after is None:
            return self._delete(record, envelope, before, schema.fields[positions[1]].schema)
        out = self._row(record, envelope, after, deleted="false" if self._rewrite else None)
        if self._route_by is not None:
            out = _route(
                out, require_struct(after, "Read record to set topic routing for CREATE / UPDATE"), self._route_by
            )
        return out

    # -- tombstones and deletes ----------------------------------------------------------------------
    def _tombstone(self, record: SourceRecord) -> SourceRecord | None:
        if self._mode not in (TOMBSTONE, REWRITE_WITH_TOMBSTONE):
            return None
        added = tuple(Header(ref.new_name, STRING_SCHEMA, OP_DELETE) for ref in self._headers if ref.field == OP)
        return record.with_(headers=(*record.headers, *added)) if added else record

    def _delete(self, record: SourceRecord, envelope: Struct, before: Any, after_schema: Schema) -> SourceRecord | None:
        mode = self._mode
        if mode == DROP:
            return None
        if self._rewrite:
            out = self._row(record, envelope, before, deleted="true")
        elif mode == DELETE_TO_TOMBSTONE:
            out = self._drop_key_fields(record.with_(value_schema=None, value=None))
        else:  # tombstone: the delete becomes a null value (the row schema is kept, as Debezium does)
            out = self._drop_key_fields(record.with_(value_schema=after_schema, value=None))
        if self._route_by is not None and isinstance(before, Struct):
            out = _route(out, before, self._route_by)
        return out

    # -- rows ----------------------------------------------------------------------------------------
    def _row(self, record: SourceRecord, envelope: Struct, row: Any, deleted: str | None) -> SourceRecord:
        row_struct = require_struct(row, _PURPOSE)
        if not self._fields and deleted is None:
            out = record.with_(value_schema=row_struct.schema, value=row_struct)
            return self._drop_fields(out) if self._drop_header else out
        plan = self._plans.get((row_struct.schema, envelope.schema, deleted), self._plan)
        values = list(row_struct.values)
        if self._replace_null:
            for f in row_struct.schema.fields:
                if values[f.index] is None and f.schema.has_default:
                    values[f.index] = f.schema.default
        values.extend(ref.value_in(envelope) for ref in plan.refs)
        if plan.deleted is not None:
            values.append(plan.deleted)
        out = record.with_(value_schema=plan.schema, value=Struct.of(plan.schema, values))
        return self._drop_fields(out) if self._drop_header else out

    def _plan(self, key: tuple[Schema, Schema, str | None]) -> _RowPlan:
        row_schema, envelope_schema, deleted = key
        fields = [(f.name, f.schema) for f in row_schema.fields]
        refs: list[FieldReference] = []
        for ref in self._fields:
            s = ref.schema_in(envelope_schema)
            if s is not None:
                fields.append((ref.new_name, s))
                refs.append(ref)
        if deleted is not None:
            fields.append((DELETED_FIELD, OPTIONAL_STRING_SCHEMA))
        return _RowPlan(struct_like(row_schema, fields), tuple(refs), deleted)

    def _make_headers(self, envelope: Struct) -> list[Header]:
        resolved = self._header_schemas.get(envelope.schema, self._resolve_headers)
        return [Header(ref.new_name, schema, ref.value_in(envelope)) for ref, schema in resolved]

    def _resolve_headers(self, envelope_schema: Schema) -> tuple[tuple[FieldReference, Schema], ...]:
        out: list[tuple[FieldReference, Schema]] = []
        for ref in self._headers:
            s = ref.schema_in(envelope_schema)
            if s is not None:
                out.append((ref, s))
        return tuple(out)

    # -- drop.fields.header.name -----------------------------------------------------------------------
    def _names_to_drop(self, record: SourceRecord) -> frozenset[str]:
        assert self._drop_header is not None
        header = record.header(self._drop_header)
        if header is None or header.value is None:
            return frozenset()
        value = header.value
        if isinstance(value, str):
            return frozenset(v.strip() for v in value.split(",") if v.strip())
        if isinstance(value, Sequence):
            return frozenset(str(v) for v in value)
        return frozenset()

    def _drop_fields(self, record: SourceRecord) -> SourceRecord:
        names = self._names_to_drop(record)
        if not names:
            return record
        if isinstance(record.value, Struct):
            schema, value = self._without(record.value, names)
            record = record.with_(value_schema=schema, value=value)
        if self._drop_from_key and isinstance(record.key, Struct):
            schema, key = self._without(record.key, names)
            record = record.with_(key_schema=schema, key=key)
        return record

    def _drop_key_fields(self, record: SourceRecord) -> SourceRecord:
        if self._drop_header is None or not self._drop_from_key or not isinstance(record.key, Struct):
            return record
        names = self._names_to_drop(record)
        if not names:
            return record
        schema, key = self._without(record.key, names)
        return record.with_(key_schema=schema, key=key)

    def _without(self, struct: Struct, names: frozenset[str]) -> tuple[Schema, Struct]:
        schema, kept = self._dropped.get((struct.schema, names), self._schema_without)
        if schema is struct.schema:
            return schema, struct
        return schema, Struct.of(schema, [struct.values[i] for i in kept])

    def _schema_without(self, key: tuple[Schema, frozenset[str]]) -> tuple[Schema, tuple[int, ...]]:
        schema, names = key
        kept = [
            f for f in schema.fields if f.name not in names or (self._drop_keep_compatible and not f.schema.optional)
        ]
        if len(kept) == len(schema.fields):
            return schema, tuple(range(len(kept)))
        return (
            Schema(
                Type.STRUCT,
                name=schema.name,
                version=schema.version,
                doc=schema.doc,
                parameters=schema.parameters,
                optional=schema.optional,
                fields=[(f.name, f.schema) for f in kept],
            ),
            tuple(f.index for f in kept),
        )


def _row_positions(schema: Schema) -> tuple[int, int] | None:
    before, after = schema.field(BEFORE), schema.field(AFTER)
    if before is None or after is None:
        return None
    return before.index, after.index


def _route(record: SourceRecord, row: Struct, field: str) -> SourceRecord:
    topic = row.get(field)
    if topic is None or not str(topic).strip():
        return record
    return record.with_(topic=str(topic))
