"""Decoders by name (`source.format` in the config). Avro (Schema Registry) plugs in here later."""

from __future__ import annotations

from collections.abc import Callable

from spark_sink.decoding.base import Decoder
from spark_sink.decoding.envelope import EnvelopeReader
from spark_sink.decoding.json_decoder import JsonDecoder, SchemasMode
from spark_sink.types import TypeOptions, default_registry

DecoderFactory = Callable[[EnvelopeReader, str], Decoder]


def _json(reader: EnvelopeReader, schemas: str) -> Decoder:
    if schemas not in ("auto", "true", "false"):
        raise ValueError(f"json schemas must be auto, true or false, got {schemas!r}")
    mode: SchemasMode = schemas  # type: ignore[assignment]
    return JsonDecoder(reader, mode)


DECODERS: dict[str, DecoderFactory] = {"json": _json}


def decoder_for(name: str, *, schemas: str = "auto", placeholder: str, options: TypeOptions | None = None) -> Decoder:
    factory = DECODERS.get(name)
    if factory is None:
        raise ValueError(f"unknown record format {name!r} (known: {', '.join(sorted(DECODERS))})")
    return factory(EnvelopeReader(default_registry(options), placeholder), schemas)
