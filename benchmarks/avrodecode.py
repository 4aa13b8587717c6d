"""Reading back Avro records of either system: Confluent framing (magic 0, the schema id as 4 bytes big-endian, the
Avro body), the writer schema fetched from the registry once per id, decoded with fastavro.

Both converters write this framing: this worker's io.confluent.connect.avro.AvroConverter, and Apicurio's with
`apicurio.registry.as-confluent=true`, `use-id=contentId` and `headers.enabled=false` (benchmarks/modes.py).
Schemas are parsed without their logical types: Connect's AvroData writes legacy decimals (scale > precision is
allowed there) that fastavro refuses, and the bench only needs raw values (source.ts_ms is a plain long).
"""

from __future__ import annotations

import io
from typing import Any

import fastavro

from benchmarks.registry import Registry

MAGIC = 0
HEADER_SIZE = 5


def split_frame(data: bytes) -> tuple[int, bytes]:
    """(schema id, Avro body) of Confluent-framed bytes; ValueError unless byte 0 is the magic 0."""
    if len(data) < HEADER_SIZE or data[0] != MAGIC:
        raise ValueError(f"not Confluent-framed Avro: {data[:HEADER_SIZE].hex()} ({len(data)} bytes)")
    return int.from_bytes(data[1:HEADER_SIZE], "big"), data[HEADER_SIZE:]


def without_logical_types(schema: Any) -> Any:
    """An Avro schema (JSON data) with every `logicalType` attribute removed."""
    if isinstance(schema, dict):
        return {k: without_logical_types(v) for k, v in schema.items() if k != "logicalType"}
    if isinstance(schema, list):
        return [without_logical_types(v) for v in schema]
    return schema


class AvroDecoder:
    """Decodes framed keys and values; one registry lookup and one parsed schema per schema id."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self._parsed: dict[int, Any] = {}

    def _writer(self, schema_id: int) -> Any:
        parsed = self._parsed.get(schema_id)
        if parsed is None:
            raw = without_logical_types(self.registry.schema(schema_id))
            # AvroData's defaults are not always of the first union branch's type, which fastavro checks by default
            parsed = self._parsed[schema_id] = fastavro.parse_schema(raw, _ignore_default_error=True)
        return parsed

    def decode(self, data: bytes) -> Any:
        """The datum of one framed key or value (logical types in their raw forms)."""
        schema_id, body = split_frame(data)
        return fastavro.schemaless_reader(io.BytesIO(body), self._writer(schema_id), None)
