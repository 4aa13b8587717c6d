"""A table's layout: the configured table properties and partition columns (`table_properties`,
`partition_columns`), checked before a batch writes anything.

- A table the batch creates gets them at creation: each partition column must be a column of the table (a source
  column or one of the sink's own), else the table is refused (IncompatibleTableError: its events go to the dead
  letter, or stop a fail_fast job). Delta itself refuses an unknown `delta.` property
  (`DELTA_UNKNOWN_CONFIGURATION`) when it creates or alters the table.
- An existing table whose properties differ gets the configured values by `ALTER TABLE … SET TBLPROPERTIES` (in the
  commit before the batch's writes, through TableCheck.enable); a property the configuration does not name is left
  as it is. The sink does not re-partition an existing table (Delta needs a rewrite for it, and an Iceberg
  partition-spec change applies only to new data files): a differing partitioning is one warning line, and the job
  keeps writing.
"""

from __future__ import annotations

from collections.abc import Sequence

from pyspark.sql import types as T

from spark_sink.config import TableLayout
from spark_sink.delta.tables import IncompatibleTableError, TableCheck


def for_creation(table: str, check: TableCheck, layout: TableLayout, extra_fields: Sequence[T.StructField]) -> None:
    """Give a table still to create its layout; IncompatibleTableError when a partition column is not a column."""
    columns = [f.name for f in check.data_schema.fields] + [f.name for f in extra_fields]
    missing = [c for c in layout.partition_columns if c not in columns]
    if missing:
        raise IncompatibleTableError(
            f"partition column(s) {', '.join(repr(c) for c in missing)} of table {table} are not columns of the "
            f"table (its columns: {', '.join(columns)})"
        )
    check.properties = dict(layout.properties)
    check.partition_columns = list(layout.partition_columns)


def _key(name: str) -> str:
    """Delta keeps `delta.` property names in their canonical case (`delta.appendonly` → `delta.appendOnly`)."""
    return name.lower() if name.lower().startswith("delta.") else name


def differences(layout: TableLayout, current: TableLayout) -> dict[str, str]:
    """The configured properties the table does not have with the configured value."""
    have = {_key(k): v for k, v in current.properties.items()}
    return {k: v for k, v in layout.properties.items() if have.get(_key(k)) != v}


def partitioning_warning(table: str, layout: TableLayout, current: TableLayout) -> str | None:
    """The one warning line when an existing table's partitioning differs from the configuration."""
    if tuple(current.partition_columns) == tuple(layout.partition_columns):
        return None
    return (
        f"table {table}: partitioned by [{', '.join(current.partition_columns)}], the configuration says "
        f"[{', '.join(layout.partition_columns)}]: the sink does not re-partition a table in place (rewrite it to "
        "change it); writing on with its partitioning"
    )


def align(check: TableCheck, layout: TableLayout, current: TableLayout) -> bool:
    """Queue the differing properties of an existing table, set before the batch's writes. True when the table
    already has every configured property with its value."""
    missing = differences(layout, current)
    for name, value in missing.items():
        was = current.properties.get(name)
        check.enable[(name, value)] = "table property of the configuration" + ("" if was is None else f" (was {was})")
    return not missing
