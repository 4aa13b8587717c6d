"""libpq connection strings for the PostgreSQL connector: every value quoted per libpq's rules, JDBC-style
driver settings mapped to libpq keywords, and the helpers that keep a password out of logs and messages.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Final

from connect_worker.api.config import Password
from connect_worker.api.errors import ConfigError

if TYPE_CHECKING:
    from connectors.postgres.config import PostgresConnectorConfig

log = logging.getLogger(__name__)


def libpq_quote(value: str) -> str:
    """``value`` as a single-quoted libpq conninfo value (``\\`` and ``'`` escaped with a backslash)."""
    if "\x00" in value:
        raise ConfigError("connection parameters must not contain NUL characters")
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


#: libpq connection keywords a ``database.<keyword>`` pass-through key may set.
_LIBPQ_KEYWORDS: Final = frozenset(
    {
        "connect_timeout",
        "application_name",
        "fallback_application_name",
        "keepalives_idle",
        "keepalives_interval",
        "keepalives_count",
        "tcp_user_timeout",
        "options",
        "target_session_attrs",
        "sslcompression",
        "sslcrl",
        "sslcrldir",
        "sslsni",
        "ssl_min_protocol_version",
        "ssl_max_protocol_version",
        "requirepeer",
        "gssencmode",
        "krbsrvname",
        "channel_binding",
        "hostaddr",
        "passfile",
        "client_encoding",
        "load_balance_hosts",
    }
)
#: pgJDBC property names with a libpq equivalent.
_JDBC_TO_LIBPQ: Final = {
    "ApplicationName": "application_name",
    "connectTimeout": "connect_timeout",
    "loginTimeout": "connect_timeout",
    "sslcrl": "sslcrl",
}


def conninfo(
    config: PostgresConnectorConfig,
    *,
    application_name: str | None = None,
    replication: bool = False,
    include_password: bool = True,
) -> str:
    """The libpq conninfo of ``config``; every value quoted. It holds the password: never log it.

    ``database.query.timeout.ms`` becomes the session's ``statement_timeout`` on regular connections only
    (a replication session keeps the server's). ``database.initial.statements`` are not part of it: run
    :attr:`PostgresConnectorConfig.initial_statements` on each regular connection after it opens.
    """
    params: list[tuple[str, str]] = [
        ("host", config.hostname),
        ("port", str(config.port)),
        ("dbname", config.dbname),
        ("user", config.user),
    ]
    if include_password and config.password is not None:
        params.append(("password", config.password.value))
    params.append(("sslmode", config.sslmode.value))
    for keyword, value in (
        ("sslcert", config.sslcert),
        ("sslkey", config.sslkey),
        ("sslrootcert", config.sslrootcert),
    ):
        if value:
            params.append((keyword, value))
    if include_password and config.sslpassword is not None:
        params.append(("sslpassword", config.sslpassword.value))
    params.append(("keepalives", "1" if config.tcp_keepalive else "0"))
    extra: dict[str, str] = {}
    for key, value in config.driver_properties.items():
        keyword = _JDBC_TO_LIBPQ.get(key, key)
        if keyword in _LIBPQ_KEYWORDS:
            extra[keyword] = value
        else:
            log.debug("ignoring driver property database.%s: libpq has no such parameter", key)
    if application_name is not None:
        extra["application_name"] = application_name
    if not replication and config.query_timeout_ms > 0:
        timeout = f"-c statement_timeout={config.query_timeout_ms}"
        extra["options"] = f"{extra['options']} {timeout}" if "options" in extra else timeout
    params.extend(extra.items())
    return " ".join(f"{k}={libpq_quote(v)}" for k, v in params)


def describe_connection(config: PostgresConnectorConfig) -> str:
    """``user@host:port/dbname`` for logs and messages (no secret)."""
    return f"{config.user}@{config.hostname}:{config.port}/{config.dbname}"


def redact(text: str, secrets: Iterable[Password | None]) -> str:
    """``text`` with every occurrence of the secrets' values replaced by ``[hidden]``."""
    for secret in secrets:
        if secret is not None and secret.value:
            text = text.replace(secret.value, Password.HIDDEN)
    return text
