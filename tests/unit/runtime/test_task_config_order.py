"""The order of a generated task config's keys: Connect's Worker and herder copy it through java.util.HashMaps, so
a standalone worker answers GET /connectors/{c}/tasks, and the config topic holds it, in that order."""

from __future__ import annotations

from connect_worker.runtime.config_providers import reverse_transform
from connect_worker.runtime.worker import with_task_class

#: the lifecycle session's connector config (tests/differential/rest_lifecycle.py), in the request's order
CONFIG = {
    "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
    "tasks.max": "1",
    "database.hostname": "127.0.0.1",
    "database.port": "5433",
    "database.user": "postgres",
    "database.password": "postgres",
    "database.dbname": "db",
    "topic.prefix": "p",
    "plugin.name": "pgoutput",
    "slot.name": "s",
    "publication.name": "pub",
    "publication.autocreate.mode": "filtered",
    "table.include.list": "public.t",
    "key.converter": "org.apache.kafka.connect.json.JsonConverter",
    "key.converter.schemas.enable": "true",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter.schemas.enable": "true",
    "name": "rc",
}
#: the first keys of the task config Kafka Connect 4.3.1's ConnectStandalone answered for it (Debezium 3.6.3,
#: Temurin 25), from a run of rest_lifecycle.py against it
MEASURED_PREFIX = [
    "connector.class",
    "publication.autocreate.mode",
    "database.user",
    "database.dbname",
    "slot.name",
    "tasks.max",
    "publication.name",
    "database.port",
    "plugin.name",
    "key.converter.schemas.enable",
    "topic.prefix",
    "task.class",
    "database.hostname",
    "database.password",
    "value.converter.schemas.enable",
    "name",
    "table.include.list",
]


def test_a_task_config_comes_in_the_order_connect_gives_it() -> None:
    (task,) = reverse_transform(
        CONFIG, [with_task_class(CONFIG, "io.debezium.connector.postgresql.PostgresConnectorTask")]
    )

    assert task == {**CONFIG, "task.class": "io.debezium.connector.postgresql.PostgresConnectorTask"}
    assert list(task)[: len(MEASURED_PREFIX)] == MEASURED_PREFIX
    assert list(task) != [*CONFIG, "task.class"]
