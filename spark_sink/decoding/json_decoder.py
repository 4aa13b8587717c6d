"""Records written by Kafka Connect's JsonConverter (kafka-connect.md §3.1), with `schemas.enable=true`
(`{"schema":…,"payload":…}`) or false (the bare payload); `schemas="auto"` tells them apart per record.
Floats are read as Decimal so `decimal.format=NUMERIC` stays exact. Connect schemas are parsed once per distinct
schema text. Pure."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any, Literal

from spark_sink.connect_schema import ConnectSchema, SchemaError, parse_schema
from spark_sink.decoding.base import Decoded, DecodeFailure, RawRecord
from spark_sink.decoding.envelope import EnvelopeReader
from spark_sink.types.registry import ConversionError

SchemasMode = Literal["auto", "true", "false"]
_ENVELOPE_KEYS = frozenset({"schema", "payload"})


class JsonDecoder:
    def __init__(self, reader: EnvelopeReader, schemas: SchemasMode = "auto") -> None:
        self.reader = reader
        self.schemas = schemas
        self._schemas: dict[str, ConnectSchema] = {}

    def decode(self, record: RawRecord) -> Decoded:
        try:
            if record.value is None:
                return self.reader.read(record, None, None, None, None)
            value_schema, payload = self._split(_loads(record.value, "value"))
            key_schema, key_payload = (None, None)
            if record.key is not None:
                key_schema, key_payload = self._split(_loads(record.key, "key"))
            return self.reader.read(record, value_schema, payload, key_schema, key_payload)
        except (ValueError, SchemaError, ConversionError, TypeError, KeyError) as e:
            return DecodeFailure(record, f"{type(e).__name__}: {e}")

    def _split(self, obj: Any) -> tuple[ConnectSchema | None, Any]:
        enveloped = isinstance(obj, dict) and obj.keys() == _ENVELOPE_KEYS
        if self.schemas == "true" and not enveloped:
            raise ValueError('JsonConverter with schemas.enable requires "schema" and "payload" fields')
        if not enveloped or self.schemas == "false":
            return None, obj
        raw_schema = obj["schema"]
        if raw_schema is None:
            return None, obj["payload"]
        cache_key = json.dumps(raw_schema, sort_keys=True)
        schema = self._schemas.get(cache_key)
        if schema is None:
            schema = parse_schema(raw_schema)
            self._schemas[cache_key] = schema
        return schema, obj["payload"]


def _loads(data: bytes, what: str) -> Any:
    try:
        return json.loads(data, parse_float=Decimal)
    except ValueError as e:
        raise ValueError(f"the {what} is not JSON: {e}") from None
