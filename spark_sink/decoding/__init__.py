"""Kafka record → change event. Pluggable: a Decoder turns raw key/value bytes into `Decoded` results; the
Debezium envelope interpretation (`envelope`) is shared, so an Avro decoder only has to supply a Connect schema
and a payload. Pure."""

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
