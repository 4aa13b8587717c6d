"""The generated row converters give exactly what the straightforward per-column loop gives."""

from typing import Any

from benchmarks import micro
from connectors.postgres.protocol.toast import UNCHANGED_TOAST
from connectors.postgres.source_info import SOURCE_SCHEMA
from connectors.postgres.value_converters import TypeOptions, converter_for
from connectors.relational import metadata_schemas as md
from connectors.relational.schema_builder import SchemaBuilderSettings, TableSchema, _compile, _compile_generic


class Upper:
    def schema(self, field_schema: Any) -> Any:
        return field_schema

    @property
    def value(self) -> Any:
        return lambda v: v.upper()


def test_generated_equals_generic() -> None:
    table = micro._table()
    options = TypeOptions()
    settings = SchemaBuilderSettings(
        topic_prefix="p",
        converter_for=lambda c: converter_for(c, options),
        mapper_for=lambda t, c: Upper() if c.name == "name" else None,
        key_columns_for=lambda t: None,
        column_included=lambda t, c: c != "note",
        adjust_schema_name=lambda s: s,
        adjust_field_name=lambda s: s,
        source_schema=SOURCE_SCHEMA,
        transaction_schema=md.EVENT_BLOCK_SCHEMA,
    )
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
    assert (
        _compile(ts.value_schema, ts.value_fields, index)(rows[0]).get("name") == rows[0][order.index("name")].upper()
    )
