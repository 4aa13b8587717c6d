"""Network addresses and range types (postgresql.md §6.1): plain strings, PostgreSQL's text unchanged.

Ranges keep PG's text (`[1,5)`, `["2020-01-01 02:00:00-08","2020-01-02 02:00:00-08")`): a tstzrange is
therefore rendered in the TimeZone of the session that produced the text, as Debezium documents.
"""

from __future__ import annotations

from typing import Final

from connect_worker.api.schema import STRING_SCHEMA
from connectors.postgres.value_converters._base import Factory, Mapping, TypeOptions, TypeSpec
from connectors.postgres.value_converters.text import identity

_MAPPING: Final = Mapping(STRING_SCHEMA, identity)


def _string(spec: TypeSpec, options: TypeOptions) -> Mapping:
    return _MAPPING


BUILTIN: Final[dict[str, Factory]] = {
    name: _string
    for name in (
        "inet",
        "cidr",
        "macaddr",
        "macaddr8",
        "int4range",
        "int8range",
        "numrange",
        "tsrange",
        "tstzrange",
        "daterange",
    )
}
