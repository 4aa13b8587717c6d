"""YBExtractNewRecordState: ExtractNewRecordState for YugabyteDB's yboutput events
(io.debezium.connector.postgresql.transforms.yugabytedb.YBExtractNewRecordState).

After the envelope is unwrapped as ExtractNewRecordState does, every ``{value, set}`` cell of the key and
of the row becomes its plain value, and a cell that is null (a column the event carries no value for) is
left out of the row and of its schema, so an UPDATE under replica identity CHANGE shows only the columns
it sent. As in YugabyteDB's transform, the flattened schemas keep the name, version, doc and parameters of
the originals but are not optional, and a record whose value is null (a tombstone, or a delete in the
default ``tombstone`` mode) loses its value schema.
"""

from __future__ import annotations

from typing import Any, ClassVar

from connect_worker.api.record import SourceRecord
from connect_worker.api.schema import Schema, Type
from connect_worker.api.struct import Struct
from connect_worker.transforms._util import SchemaCache, struct_like
from connect_worker.transforms.debezium.extract_new_record_state import ExtractNewRecordState


def _is_cell(schema: Schema) -> bool:
    fields = schema.fields if schema.type is Type.STRUCT else ()
    return len(fields) == 2 and fields[0].name == "value" and fields[1].name == "set"


class YBExtractNewRecordState(ExtractNewRecordState):
    class_name: ClassVar[str] = "io.debezium.connector.postgresql.transforms.yugabytedb.YBExtractNewRecordState"

    def configure(self, configs: Any) -> None:
        super().configure(configs)
        # (struct schema, which of its cells are null) -> flattened schema
        self._flat: SchemaCache[tuple[Schema, tuple[bool, ...]], Schema] = SchemaCache(64)

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        out = super().apply(record)
        if out is None or (out.value is not None and not isinstance(out.value, Struct)):
            return out
        key_schema, key = out.key_schema, out.key
        if isinstance(key, Struct):
            key_schema, key = self._flatten(key)
        value_schema: Schema | None = None
        value = out.value
        if isinstance(value, Struct):
            value_schema, value = self._flatten(value)
        return out.with_(key_schema=key_schema, key=key, value_schema=value_schema, value=value)

    def _flatten(self, struct: Struct) -> tuple[Schema, Struct]:
        schema = struct.schema
        nulls = tuple(v is None for v in struct.values)
        flat = self._flat.get((schema, nulls), self._flat_schema)
        values: list[Any] = []
        for f, v in zip(schema.fields, struct.values, strict=True):
            if not _is_cell(f.schema):
                values.append(v)
            elif v is not None:
                values.append(v.values[0])
        return flat, Struct.of(flat, values)

    @staticmethod
    def _flat_schema(key: tuple[Schema, tuple[bool, ...]]) -> Schema:
        schema, nulls = key
        fields: list[tuple[str, Schema]] = []
        for f, is_null in zip(schema.fields, nulls, strict=True):
            if not _is_cell(f.schema):
                fields.append((f.name, f.schema))
            elif not is_null:
                fields.append((f.name, f.schema.fields[0].schema))
        return struct_like(schema, fields)
