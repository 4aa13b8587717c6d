"""Worker settings from environment variables, the convention of the Confluent and Debezium Connect images.

`CONNECT_<KEY>` sets worker key `<key>`: the prefix is removed, the rest is lower-cased, and underscores
become dots. Keys with an underscore or a dash in them are written with a longer run of underscores:

| in the variable name | in the key |
|---|---|
| `_`   | `.` |
| `__`  | `_` |
| `___` | `-` |

so `CONNECT_BOOTSTRAP_SERVERS=kafka:9092` → `bootstrap.servers=kafka:9092`,
`CONNECT_CONFIG_PROVIDERS_FILE_CLASS=…` → `config.providers.file.class=…`,
`CONNECT_PRODUCER_CLIENT__ID=x` → `producer.client_id=x`, `CONNECT_ADMIN_SASL___MECH=y` → `admin.sasl-mech=y`.
A longer run is read greedily from the left (`____` = `-` then `.`). Variables `CONNECT_LOG4J_*` (log4j
settings in the Confluent images) are ignored. The environment overrides a worker.properties file given too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

PREFIX: Final = "CONNECT_"
IGNORED_PREFIXES: Final = ("CONNECT_LOG4J_",)
_RUN: Final = re.compile(r"_+")
_PIECES: Final = {3: "-", 2: "_", 1: "."}


def env_name_to_key(name: str, prefix: str = PREFIX) -> str:
    """`CONNECT_OFFSET_FLUSH_INTERVAL_MS` → `offset.flush.interval.ms` (see the module doc for `__`, `___`)."""
    body = name[len(prefix) :] if name.startswith(prefix) else name

    def run(m: re.Match[str]) -> str:
        n, out = len(m.group(0)), []
        while n:
            size = min(n, 3)
            out.append(_PIECES[size])
            n -= size
        return "".join(out)

    return _RUN.sub(run, body.lower())


def key_to_env_name(key: str, prefix: str = PREFIX) -> str:
    """The inverse: `listeners.https.ssl.keystore.location` → `CONNECT_LISTENERS_HTTPS_SSL_KEYSTORE_LOCATION`."""
    out = []
    for c in key:
        out.append({".": "_", "_": "__", "-": "___"}.get(c, c.upper()))
    return prefix + "".join(out)


def properties_from_env(environ: Mapping[str, str], prefix: str = PREFIX) -> dict[str, str]:
    """Every `CONNECT_*` variable as a worker setting (empty names and ignored prefixes skipped)."""
    out: dict[str, str] = {}
    for name in sorted(environ):
        if not name.startswith(prefix) or name == prefix or name.startswith(IGNORED_PREFIXES):
            continue
        key = env_name_to_key(name, prefix)
        if key.strip("._-"):
            out[key] = environ[name]
    return out


def merge_worker_properties(
    file_properties: Mapping[str, str] | None, environ: Mapping[str, str], prefix: str = PREFIX
) -> dict[str, str]:
    """The worker.properties file's settings (if any), overridden by the environment's."""
    return {**(file_properties or {}), **properties_from_env(environ, prefix)}
