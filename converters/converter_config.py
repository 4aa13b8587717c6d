"""Kafka's ConverterConfig: the `converter.type` key every converter's config starts with (key, value or header;
the worker sets it)."""

from __future__ import annotations

from typing import Final

from connect_worker.api.config import ConfigKey, ConfigType, Importance, one_of

CONVERTER_TYPE: Final = "converter.type"

CONVERTER_TYPE_KEY: Final = ConfigKey(
    CONVERTER_TYPE,
    ConfigType.STRING,
    validator=one_of("key", "value", "header"),
    importance=Importance.LOW,
    documentation="How this converter will be used.",
)
