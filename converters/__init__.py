"""Converters: JsonConverter, StringConverter, ByteArrayConverter and SimpleHeaderConverter, Kafka's own."""

from typing import Final

KAFKA_VERSION: Final = "4.3.1"  # the Kafka release whose converters these stand in for (their plugin version)
