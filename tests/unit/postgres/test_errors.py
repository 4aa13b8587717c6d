"""Errors are classified by SQLSTATE, never by message text."""

from __future__ import annotations

import psycopg
import pytest

from connect_worker.api.errors import ConfigError, ConnectError, RetriableError
from connectors.postgres.errors import (
    PostgresConfigError,
    PostgresConnectionError,
    PostgresError,
    PostgresRetriableError,
    ReplicationSlotExistsError,
    ReplicationSlotInUseError,
    ReplicationSlotNotFoundError,
    classify_sqlstate,
    from_psycopg,
    make_error,
)


@pytest.mark.parametrize(
    ("sqlstate", "cls"),
    [
        (None, PostgresConnectionError),
        ("08006", PostgresConnectionError),
        ("08P01", PostgresConnectionError),
        ("57P01", PostgresConnectionError),
        ("57P03", PostgresConnectionError),
        ("55006", ReplicationSlotInUseError),
        ("53300", PostgresRetriableError),
        ("40001", PostgresRetriableError),
        ("53400", PostgresConfigError),
        ("55000", PostgresConfigError),
        ("58P01", PostgresConfigError),
        ("28P01", PostgresConfigError),
        ("3D000", PostgresConfigError),
        ("42704", PostgresConfigError),
        ("42501", PostgresConfigError),
        ("22023", PostgresConfigError),
        ("0A000", PostgresConfigError),
        ("XX000", PostgresError),
    ],
)
def test_classification(sqlstate: str | None, cls: type[ConnectError]) -> None:
    assert classify_sqlstate(sqlstate) is cls


def test_branches_are_the_api_branches() -> None:
    assert issubclass(ReplicationSlotInUseError, RetriableError)
    assert issubclass(PostgresConnectionError, RetriableError)
    assert issubclass(ReplicationSlotNotFoundError, ConfigError)
    assert issubclass(ReplicationSlotExistsError, ConfigError)
    assert not issubclass(PostgresError, RetriableError | ConfigError)


def test_slot_errors_name_the_slot() -> None:
    e = make_error("42704", 'replication slot "s1" does not exist', slot_name="s1", action="starting")
    assert isinstance(e, ReplicationSlotNotFoundError) and e.sqlstate == "42704"
    assert str(e).startswith("starting: ") and "'s1'" in str(e)
    e = make_error("42710", "exists", slot_name="s1")
    assert isinstance(e, ReplicationSlotExistsError) and "its own slot.name" in str(e)
    e = make_error("55006", "active", slot_name="s1")
    assert isinstance(e, ReplicationSlotInUseError) and "one consumer" in str(e)
    # 42704 without a slot context (e.g. a missing publication) is a plain config error
    e = make_error("42704", 'publication "p" does not exist')
    assert type(e) is PostgresConfigError


def test_from_psycopg() -> None:
    e = from_psycopg(psycopg.OperationalError("connection refused"), action="connecting")
    assert isinstance(e, PostgresConnectionError) and e.sqlstate is None
    assert str(e) == "connecting: connection refused"
    e = from_psycopg(psycopg.errors.ObjectInUse("slot active"), slot_name="s")
    assert isinstance(e, ReplicationSlotInUseError) and e.sqlstate == "55006"
    e = from_psycopg(psycopg.ProgrammingError("bad call"))
    assert type(e) is PostgresError
