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
    hosts, ports = host_list(config.hostname, config.port)
    params: list[tuple[str, str]] = [
        ("host", ",".join(hosts)),
        ("port", ",".join(str(p) for p in ports)),
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


def host_list(hostname: str, default_port: int) -> tuple[list[str], list[int]]:
    """The hosts and ports of a ``database.hostname`` that may list several servers, ``h1:p1,h2,[::1]:p3``
    (YugabyteDB's form; an entry without a port takes ``default_port``). libpq tries them in order, so a
    connection, and a reconnection after a failure, goes to the first server that answers."""
    hosts: list[str] = []
    ports: list[int] = []
    for raw in hostname.split(","):
        entry = raw.strip()
        host, port = entry, default_port
        if entry.startswith(("/", "@")):  # a Unix socket directory (or an abstract one): no port part
            pass
        elif entry.startswith("["):  # [IPv6]:port
            close = entry.find("]")
            if close < 0:
                raise ConfigError(f"database.hostname entry '{entry}' has an unclosed '['", name="database.hostname")
            host, rest = entry[1:close], entry[close + 1 :]
            if rest:
                if not rest.startswith(":"):
                    raise ConfigError(f"database.hostname entry '{entry}' is malformed", name="database.hostname")
                port = _port(entry, rest[1:])
        elif entry.count(":") == 1:  # host:port (a bare IPv6 address has several colons and no port)
            host, text = entry.split(":")
            port = _port(entry, text)
        if not host:
            raise ConfigError(f"database.hostname has an empty entry in '{hostname}'", name="database.hostname")
        hosts.append(host)
        ports.append(port)
    return hosts, ports


def _port(entry: str, text: str) -> int:
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise ConfigError(
            f"database.hostname entry '{entry}' has an invalid port (1-65535 expected)", name="database.hostname"
        )
    return int(text)


def describe_connection(config: PostgresConnectorConfig) -> str:
    """``user@host:port/dbname`` for logs and messages (no secret)."""
    return f"{config.user}@{config.hostname}:{config.port}/{config.dbname}"


def redact(text: str, secrets: Iterable[Password | None]) -> str:
    """``text`` with every occurrence of the secrets' values replaced by ``[hidden]``."""
    for secret in secrets:
        if secret is not None and secret.value:
            text = text.replace(secret.value, Password.HIDDEN)
    return text
