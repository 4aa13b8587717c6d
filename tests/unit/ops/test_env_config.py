"""CONNECT_* environment variables → worker settings (the Confluent/Debezium image convention)."""

from __future__ import annotations

from connect_worker.runtime.env_config import (
    env_name_to_key,
    key_to_env_name,
    merge_worker_properties,
    properties_from_env,
)
from connect_worker.runtime.worker_config import WorkerConfig


def test_names_translate_like_the_confluent_images() -> None:
    assert env_name_to_key("CONNECT_BOOTSTRAP_SERVERS") == "bootstrap.servers"
    assert env_name_to_key("CONNECT_OFFSET_FLUSH_INTERVAL_MS") == "offset.flush.interval.ms"
    assert env_name_to_key("CONNECT_CONFIG_PROVIDERS_FILE_CLASS") == "config.providers.file.class"
    assert env_name_to_key("CONNECT_PRODUCER_CLIENT__ID") == "producer.client_id"
    assert env_name_to_key("CONNECT_ADMIN_SASL___MECH") == "admin.sasl-mech"
    assert env_name_to_key("CONNECT_A____B") == "a-.b"


def test_keys_round_trip() -> None:
    for key in ["bootstrap.servers", "listeners.https.ssl.keystore.location", "x.client_id", "a.b-c"]:
        assert env_name_to_key(key_to_env_name(key)) == key
    assert key_to_env_name("rest.basic.auth.credentials.file") == "CONNECT_REST_BASIC_AUTH_CREDENTIALS_FILE"


def test_environment_overrides_the_file_and_ignores_other_variables() -> None:
    env = {
        "CONNECT_BOOTSTRAP_SERVERS": "kafka:9092",
        "CONNECT_LISTENERS": "http://0.0.0.0:8083",
        "CONNECT_LOG4J_ROOT_LOGLEVEL": "INFO",  # the images' log4j settings: not worker keys
        "CONNECT_": "x",
        "HOME": "/root",
        "KAFKA_CONNECT_X": "y",
    }
    assert properties_from_env(env) == {"bootstrap.servers": "kafka:9092", "listeners": "http://0.0.0.0:8083"}
    merged = merge_worker_properties({"bootstrap.servers": "file:9092", "group.id": "g"}, env)
    assert merged == {"bootstrap.servers": "kafka:9092", "group.id": "g", "listeners": "http://0.0.0.0:8083"}
    config = WorkerConfig.from_properties(merge_worker_properties(None, env))
    assert config.bootstrap_servers == "kafka:9092"
    assert config.listeners[0].port == 8083
