"""POINT and the PostGIS GEOMETRY / GEOGRAPHY types (postgresql.md §6.1, §6.6).

POINT text `(x,y)` becomes io.debezium.data.geometry.Point {x, y, wkb, srid}: wkb is the 21-byte OGC WKB
(little-endian) Debezium builds, srid null. PostGIS text output is hex EWKB; Debezium keeps the EWKB bytes
as `wkb` and reads the SRID out of them (null when the SRID flag is not set).
"""

from __future__ import annotations

import struct
from typing import Final

from connect_worker.api.schema import (
    BYTES_SCHEMA,
    FLOAT64_SCHEMA,
    OPTIONAL_BYTES_SCHEMA,
    OPTIONAL_INT32_SCHEMA,
    Schema,
    struct_schema,
)
from connect_worker.api.struct import Struct
from connectors.postgres.value_converters._base import (
    Factory,
    Mapping,
    TextParser,
    TypeOptions,
    TypeSpec,
    bad_value,
)

POINT_SCHEMA: Final = struct_schema(
    [("x", FLOAT64_SCHEMA), ("y", FLOAT64_SCHEMA), ("wkb", OPTIONAL_BYTES_SCHEMA), ("srid", OPTIONAL_INT32_SCHEMA)],
    name="io.debezium.data.geometry.Point",
    version=1,
    doc="Geometry (POINT)",
)
GEOMETRY_SCHEMA: Final = struct_schema(
    [("wkb", BYTES_SCHEMA), ("srid", OPTIONAL_INT32_SCHEMA)],
    name="io.debezium.data.geometry.Geometry",
    version=1,
    doc="Geometry",
)
GEOGRAPHY_SCHEMA: Final = struct_schema(
    [("wkb", BYTES_SCHEMA), ("srid", OPTIONAL_INT32_SCHEMA)],
    name="io.debezium.data.geometry.Geography",
    version=1,
    doc="Geography",
)

_WKB_POINT: Final = struct.Struct("<BIdd")
_EWKB_SRID_FLAG: Final = 0x20000000


def parse_point(text: str, schema: Schema = POINT_SCHEMA) -> Struct:
    """`(x,y)` → Point struct."""
    body = text.strip()
    if body.startswith("(") and body.endswith(")"):
        body = body[1:-1]
    comma = body.find(",")
    if comma < 0:
        raise bad_value("point", text)
    try:
        x = float(body[:comma])
        y = float(body[comma + 1 :])
    except ValueError:
        raise bad_value("point", text) from None
    return Struct.of(schema, (x, y, _WKB_POINT.pack(1, 1, x, y), None))


def parse_ewkb(text: str) -> tuple[bytes, int | None]:
    """Hex EWKB → (the EWKB bytes, SRID or None)."""
    try:
        ewkb = bytes.fromhex(text)
    except ValueError:
        raise bad_value("PostGIS", text) from None
    if len(ewkb) < 9:
        raise bad_value("PostGIS (EWKB too short)", text)
    order = "<" if ewkb[0] else ">"
    (geom_type,) = struct.unpack_from(order + "I", ewkb, 1)
    srid: int | None = None
    if geom_type & _EWKB_SRID_FLAG:
        (srid,) = struct.unpack_from(order + "i", ewkb, 5)
    return ewkb, srid


def _point_parser(schema: Schema) -> TextParser:
    return lambda text: parse_point(text, schema)


def _ewkb_parser(schema: Schema) -> TextParser:
    return lambda text: Struct.of(schema, parse_ewkb(text))


def _point(spec: TypeSpec, options: TypeOptions) -> Mapping:
    return Mapping(POINT_SCHEMA, parse_point, _point_parser)


def _geometry(spec: TypeSpec, options: TypeOptions) -> Mapping:
    return Mapping(GEOMETRY_SCHEMA, _ewkb_parser(GEOMETRY_SCHEMA), _ewkb_parser)


def _geography(spec: TypeSpec, options: TypeOptions) -> Mapping:
    return Mapping(GEOGRAPHY_SCHEMA, _ewkb_parser(GEOGRAPHY_SCHEMA), _ewkb_parser)


BUILTIN: Final[dict[str, Factory]] = {"point": _point}
EXTENSION: Final[dict[str, Factory]] = {"geometry": _geometry, "geography": _geography}
