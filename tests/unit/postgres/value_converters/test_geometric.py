"""POINT and PostGIS (postgresql.md §6.1; §11 item 68)."""

from __future__ import annotations

import struct

from connect_worker.api.struct import Struct

from ._helpers import conv, ctype, json_of


def test_point() -> None:  # item 68
    c = conv("point")
    assert c.schema.name == "io.debezium.data.geometry.Point" and c.schema.doc == "Geometry (POINT)"
    assert [f.name for f in c.schema.fields] == ["x", "y", "wkb", "srid"]
    value = c.from_text("(1,2)")
    assert isinstance(value, Struct)
    assert value["x"] == 1.0 and value["y"] == 2.0 and value["srid"] is None
    assert value["wkb"] == b"\x01\x01\x00\x00\x00" + struct.pack("<dd", 1.0, 2.0)
    assert '"f":{"x":1.0,"y":2.0,"wkb":"AQEAAAAAAAAAAADwPwAAAAAAAABA","srid":null}' in json_of(c.schema, value)
    assert c.from_text("(-1.5,2e-05)")["y"] == 2e-05


def test_geometry_with_srid() -> None:
    hex_ewkb = "0101000020E6100000000000000000F03F0000000000000040"  # SRID=4326;POINT(1 2)
    c = conv(ctype("geometry", schema="public"))
    assert c.schema.name == "io.debezium.data.geometry.Geometry"
    value = c.from_text(hex_ewkb)
    assert value["srid"] == 4326 and value["wkb"] == bytes.fromhex(hex_ewkb)


def test_geography_without_srid_flag() -> None:
    hex_wkb = "0101000000000000000000F03F0000000000000040"
    c = conv(ctype("geography", schema="public"))
    assert c.schema.name == "io.debezium.data.geometry.Geography"
    value = c.from_text(hex_wkb)
    assert value["srid"] is None and value["wkb"] == bytes.fromhex(hex_wkb)


def test_big_endian_ewkb() -> None:
    hex_ewkb = "0020000001000010E63FF00000000000004000000000000000"
    assert conv(ctype("geometry", schema="public")).from_text(hex_ewkb)["srid"] == 4326
