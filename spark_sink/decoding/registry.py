"""Decoders by name (`source.format` in the config): `json` (JsonConverter) and `avro` (Confluent's AvroConverter,
writer schemas from a Confluent-API schema registry)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from spark_sink.decoding.avro_decoder import AvroDecoder
from spark_sink.decoding.base import Decoder
from spark_sink.decoding.envelope import EnvelopeReader
from spark_sink.decoding.json_decoder import JsonDecoder, SchemasMode
from spark_sink.decoding.schema_registry import SchemaSource
from spark_sink.types import TypeOptions, default_registry


@dataclass(frozen=True)
class DecoderSettings:
    schemas: str = "auto"  # json: JsonConverter schemas.enable (auto | true | false)
    registry: SchemaSource | None = None  # avro: where writer schemas come from


DecoderFactory = Callable[[EnvelopeReader, DecoderSettings], Decoder]


def _json(reader: EnvelopeReader, settings: DecoderSettings) -> Decoder:
    if settings.schemas not in ("auto", "true", "false"):
        raise ValueError(f"json schemas must be auto, true or false, got {settings.schemas!r}")
    mode: SchemasMode = settings.schemas  # type: ignore[assignment]
    return JsonDecoder(reader, mode)


def _avro(reader: EnvelopeReader, settings: DecoderSettings) -> Decoder:
    if settings.registry is None:
        raise ValueError("the avro format needs a schema registry (source.schema_registry_url)")
    return AvroDecoder(reader, settings.registry)


DECODERS: dict[str, DecoderFactory] = {"json": _json, "avro": _avro}


def decoder_for(
    name: str,
    *,
    schemas: str = "auto",
    placeholder: str,
    options: TypeOptions | None = None,
    registry: SchemaSource | None = None,
) -> Decoder:
    factory = DECODERS.get(name)
    if factory is None:
        raise ValueError(f"unknown record format {name!r} (known: {', '.join(sorted(DECODERS))})")
    return factory(EnvelopeReader(default_registry(options), placeholder), DecoderSettings(schemas, registry))
