"""Kafka record → change event. Pluggable: a Decoder turns raw key/value bytes into `Decoded` results; the
Debezium envelope interpretation (`envelope`) is shared, so a decoder only supplies a Connect schema and a payload:
`json_decoder` (JsonConverter) and `avro_decoder` (Confluent's AvroConverter; its writer schemas come from a
schema registry, the one I/O here, through the injected `schema_registry.SchemaSource`). Pure otherwise."""

from spark_sink.decoding.base import (
    ChangeEvent,
    Decoded,
    DecodeFailure,
    Decoder,
    RawRecord,
    RowSchema,
    Skipped,
    TxMarker,
)
from spark_sink.decoding.registry import decoder_for

__all__ = [
    "ChangeEvent",
    "DecodeFailure",
    "Decoded",
    "Decoder",
    "RawRecord",
    "RowSchema",
    "Skipped",
    "TxMarker",
    "decoder_for",
]
