"""The generated row converters give exactly what the straightforward per-column loop gives."""

import hashlib
from typing import Any

from benchmarks import micro
from connectors.postgres.protocol.toast import UNCHANGED_TOAST
from connectors.postgres.source_info import SOURCE_SCHEMA
from connectors.postgres.value_converters import TypeOptions, converter_for
from connectors.relational import metadata_schemas as md
from connectors.relational.column_mappers import ColumnMappers
from connectors.relational.schema_builder import SchemaBuilderSettings, TableSchema, _compile, _compile_generic


class Upper:
    def schema(self, field_schema: Any) -> Any:
        return field_schema

    @property
    def value(self) -> Any:
        # mappers see every value, None (SQL NULL) and the TOAST placeholder included, as Debezium's do
        return lambda v: "<null>" if v is None else v.upper()


def _settings(mapper_for: Any, column_included: Any) -> SchemaBuilderSettings:
    options = TypeOptions()
    return SchemaBuilderSettings(
        topic_prefix="p",
        converter_for=lambda c: converter_for(c, options),
        mapper_for=mapper_for,
        key_columns_for=lambda t: None,
        column_included=column_included,
        adjust_schema_name=lambda s: s,
        adjust_field_name=lambda s: s,
        source_schema=SOURCE_SCHEMA,
        transaction_schema=md.EVENT_BLOCK_SCHEMA,
    )


def test_generated_equals_generic() -> None:
    table = micro._table()
    settings = _settings(lambda t, c: Upper() if c.name == "name" else None, lambda t, c: c != "note")
    ts = TableSchema(table, settings)
    order = [c.name for c in table.columns][::-1]  # another column order than the table's
    index = {n: i for i, n in enumerate(order)}
    rows: list[tuple[Any, ...]] = [tuple(reversed(r)) for r in micro._rows(50)]
    rows.append(tuple(None for _ in order))
    rows.append(tuple(v.encode() for v in reversed(micro._rows(1)[0])))  # binary tuple values
    rows.append(tuple(UNCHANGED_TOAST if n == "doc" else v for n, v in zip(order, rows[0], strict=True)))
    for snapshot in (False, True):
        generated = _compile(ts.value_schema, ts.value_fields, index, snapshot)
        generic = _compile_generic(ts.value_schema, ts.value_fields, index, snapshot)
        for row in rows:
            assert generated(row) == generic(row)
    generated = _compile(ts.value_schema, ts.value_fields, index)
    assert generated(rows[0]).get("name") == rows[0][order.index("name")].upper()
    assert generated(tuple(None for _ in order)).get("name") == "<null>"


def test_column_mask_covers_null_and_unchanged_toast_like_debezium() -> None:
    """Debezium composes a column's mapper after its converter and runs both on every value: a fixed mask
    (`column.mask.with.N.chars`) turns SQL NULL (also the unset columns of a key-only delete image) and the
    unchanged-TOAST placeholder into the mask; a hash keeps NULL null and hashes the placeholder; a truncation
    cuts the placeholder (issue 14, item 5)."""
    table = micro._table()
    mappers = ColumnMappers.from_config(
        {
            "column.mask.with.5.chars": "public.bench.name",
            "column.mask.hash.v2.SHA-256.with.salt.s": "public.bench.email",
            "column.truncate.to.4.chars": "public.bench.note",
        },
        is_character_column=lambda c: c.type.name == "text",
    )
    settings = _settings(mappers.mapper_for, lambda t, c: True)
    ts = TableSchema(table, settings)
    order = [c.name for c in table.columns]
    index = {n: i for i, n in enumerate(order)}
    nulls = tuple(None for _ in order)
    toast = tuple(UNCHANGED_TOAST for _ in order)
    for compile_ in (_compile, _compile_generic):
        convert = compile_(ts.value_schema, ts.value_fields, index, False)
        null_row, toast_row = convert(nulls), convert(toast)
        assert null_row.get("name") == "*****" and null_row.get("email") is None and null_row.get("note") is None
        assert null_row.get("account") is None
        assert toast_row.get("name") == "*****"
        assert toast_row.get("email") == hashlib.sha256(b"s__debezium_unavailable_value").hexdigest()
        assert toast_row.get("note") == "__de"
