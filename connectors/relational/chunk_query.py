"""The WHERE conditions of incremental-snapshot chunk queries (Debezium's ``AbstractChunkQueryBuilder`` and
``RowValueConstructorChunkQueryBuilder``), as SQL text with the key values already rendered as literals.

* First chunk of a table: no bound (rows above the maximum key read then are emitted too, as in Debezium).
* Later chunks: after the previous chunk's last key and up to the table's maximum key (inclusive).
* Key columns that cannot be NULL compare as one row value - ``(k1, k2) > (v1, v2)`` - which the planner serves
  from the key's index; a nullable key column (a surrogate key, a unique index) uses the expanded form
  ``(k1 > v1) OR (k1 = v1 AND k2 > v2) ...`` with NULL handled as the database sorts it (PostgreSQL: last).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any


@dataclasses.dataclass(frozen=True, slots=True)
class KeyColumn:
    quoted: str  # the column's quoted name
    optional: bool
    literal: Callable[[Any], str]  # a key value as an SQL literal of the column's type


def chunk_condition(
    columns: Sequence[KeyColumn],
    chunk_end: Sequence[Any] | None,
    maximum_key: Sequence[Any] | None,
    *,
    nulls_sort_last: bool = True,
) -> str | None:
    """The chunk's key condition (None: the table's first chunk, read without a bound)."""
    if chunk_end is None:
        return None
    lower = lower_bound(columns, chunk_end, inclusive=False, nulls_sort_last=nulls_sort_last)
    if maximum_key is None:
        return lower
    return f"{lower} AND {upper_bound(columns, maximum_key, nulls_sort_last=nulls_sort_last)}"


def upper_bound(columns: Sequence[KeyColumn], key: Sequence[Any], *, nulls_sort_last: bool = True) -> str:
    """At most ``key``: the negation of "greater than it"."""
    return "NOT " + lower_bound(columns, key, inclusive=False, nulls_sort_last=nulls_sort_last)


def lower_bound(
    columns: Sequence[KeyColumn], key: Sequence[Any], *, inclusive: bool, nulls_sort_last: bool = True
) -> str:
    if not any(c.optional for c in columns):
        operator = ">=" if inclusive else ">"
        if len(columns) == 1:
            return f"{columns[0].quoted} {operator} {columns[0].literal(key[0])}"
        names = ", ".join(c.quoted for c in columns)
        values = ", ".join(c.literal(v) for c, v in zip(columns, key, strict=True))
        return f"ROW({names}) {operator} ROW({values})"
    return _expanded(columns, key, inclusive, nulls_sort_last)


def _expanded(columns: Sequence[KeyColumn], key: Sequence[Any], inclusive: bool, nulls_last: bool) -> str:
    """(k1 > v1) OR (k1 = v1 AND k2 > v2) OR ..., each comparison rewritten for NULLs."""
    terms: list[str] = []
    n = len(columns)
    for i in range(n):
        parts: list[str] = []
        for j in range(i + 1):
            column, value = columns[j], key[j]
            last_j = i == j
            operator = " = " if not last_j else " >= " if (i == n - 1 and inclusive) else " > "
            name = column.quoted
            if not column.optional or (value is not None and not last_j):
                parts.append(f"{name}{operator}{column.literal(value)}")
            elif value is not None:
                tail = f" OR {name} IS NULL" if nulls_last else f" AND {name} IS NOT NULL"
                parts.append(f"({name}{operator}{column.literal(value)}{tail})")
            elif last_j:
                final_inclusive = i == n - 1 and inclusive
                if nulls_last:
                    parts.append(f"{name} IS NULL" if final_inclusive else "1 = 0")
                else:
                    parts.append("1 = 1" if final_inclusive else f"{name} IS NOT NULL")
            else:
                parts.append(f"{name} IS NULL")
        terms.append("(" + " AND ".join(parts) + ")")
    joined = " OR ".join(terms)
    return f"({joined})" if n > 1 else joined
