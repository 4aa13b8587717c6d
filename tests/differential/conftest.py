"""Fixtures of the differential tests: the REAL Kafka Connect 4.3.1 + Debezium 3.6.3.Final, once per session.

`debezium_connect` starts one Connect worker (distributed, loopback, unique group/internal topics, random REST
port) for the whole session and stops it by its PID at the end, failures included; `customers_run` runs the
scenario of scenario_pg.py once on it (unique database/slot/publication/prefix, all removed afterwards).
Needs `make up` (Kafka + PostgreSQL), Java 17+ and Maven (jars fetched once into .devstack/debezium).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest

from tests.differential import scenario_pg
from tests.differential.debezium import ConnectDebezium, delete_topics, unique_token
from tests.differential.ours import OurWorker


@pytest.fixture(scope="session")
def pg_port() -> int:
    return int(os.environ.get("CW_PG_PORT", "5433"))


@pytest.fixture(scope="session")
def debezium_connect(kafka_bootstrap: str, pg_port: int) -> Iterator[ConnectDebezium]:
    for tool, pkg in (("java", "openjdk-17-jre-headless"), ("mvn", "maven"), ("curl", "curl")):
        if not shutil.which(tool):
            pytest.fail(f"{tool} is needed to run the real Kafka Connect + Debezium (apt-get install {pkg})")
    connect = ConnectDebezium(kafka_bootstrap=kafka_bootstrap, name=unique_token("dbzw"), pg_port=pg_port)
    try:
        connect.start()
        yield connect
    finally:
        connect.stop()
        connect.delete_internal_topics()


@pytest.fixture(scope="session")
def customers_run(debezium_connect: ConnectDebezium, pg_port: int) -> Iterator[scenario_pg.ScenarioRun]:
    token = unique_token()
    try:
        yield scenario_pg.run_customers_scenario(debezium_connect, token=token, pg_port=pg_port)
    finally:
        delete_topics(debezium_connect.kafka_bootstrap, [f"{token}.public.{scenario_pg.TABLE}", f"{token}.transaction"])


@pytest.fixture(scope="session")
def our_connect(kafka_bootstrap: str, pg_port: int) -> Iterator[OurWorker]:
    """This project's worker process for the whole session, driven like debezium_connect."""
    worker = OurWorker(kafka_bootstrap=kafka_bootstrap, name=unique_token("cw"), pg_port=pg_port)
    worker.start()
    try:
        yield worker
    finally:
        worker.stop()
        worker.delete_internal_topics()
