"""connect-worker: a Kafka Connect-compatible standalone worker hosting Debezium-compatible CDC connectors."""

__version__ = "0.1.0"
