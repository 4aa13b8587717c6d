"""The YugabyteDB connector's configuration: the PostgreSQL connector's keys with YugabyteDB's defaults and
rules, translated once into the PostgreSQL connector's typed config that the shared task runs on.

What differs from the PostgreSQL connector (spec yugabytedb.md §1.2, §2.2, §5):

* ``plugin.name`` is ``yboutput`` (default) or ``pgoutput``; decoderbufs and anything else are refused.
* ``database.port`` defaults to 5433 (YSQL); ``database.hostname`` may list several servers
  ``h1:p1,h2,...``, tried in order on every (re)connection.
* ``snapshot.mode`` is ``initial`` (default), ``never`` or ``initial_only``.
* ``transaction.topic`` is accepted for ``topic.transaction`` (the latter wins when both are set).
* Parallel streaming (``streaming.mode=parallel`` with ``slot.names``, ``publication.names``, ``slot.ranges``
  and ``primary.key.hash.columns``) is not built yet and is refused with that reason, rather than run as one
  task. Signals, incremental and blocking snapshots and notifications are the PostgreSQL connector's (YugabyteDB's
  Debezium fork inherits them unchanged from Debezium's PostgreSQL connector).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Final

from connect_worker.api import ConfigDef, ConfigKey, ConfigType, ConfigValue, Importance
from connect_worker.api.errors import ConfigError
from connectors.postgres.config import POSTGRES_CONFIG_DEF, LogicalDecoder, PostgresConnectorConfig, validate_props

PLUGINS: Final = ("yboutput", "pgoutput")
LSN_TYPES: Final = ("SEQUENCE", "HYBRID_TIME")
SNAPSHOT_MODES: Final = ("initial", "never", "initial_only")
STREAMING_MODES: Final = ("default", "parallel")
DEFAULT_PORT: Final = 5433

_DOCS: Final = {
    "database.hostname": "Host name or IP address of a YB-TServer, or a comma-separated list 'host[:port],...' "
    "of them; the connector connects to the first that answers, on start and after a failure.",
    "database.port": "YSQL port of the servers listed without a port.",
    "plugin.name": "Logical decoding output plug-in: 'yboutput' (the default; every column becomes a "
    "{value, set} struct) or 'pgoutput' (plain values; no replica identity CHANGE).",
    "snapshot.mode": "'initial' (the default) snapshots when no offset is stored, 'never' only streams, "
    "'initial_only' snapshots and stops.",
}
_DEFAULTS: Final = {"plugin.name": "yboutput", "database.port": DEFAULT_PORT}

# (name, type, default, documentation)
_YB_ONLY: Final = [
    ("streaming.mode", ConfigType.STRING, "default",
     "'default' streams from one slot with one task; 'parallel' (YugabyteDB's tech preview) is not supported "
     "by this worker yet."),
    ("slot.names", ConfigType.STRING, None, "Parallel streaming: one slot per task (not supported yet)."),
    ("publication.names", ConfigType.STRING, None, "Parallel streaming: one publication per task (not supported yet)."),
    ("slot.ranges", ConfigType.STRING, None, "Parallel streaming: hash ranges 'start,end;...' (not supported yet)."),
    ("primary.key.hash.columns", ConfigType.STRING, None,
     "Parallel streaming: the hash columns of the primary key (not supported yet)."),
    ("transaction.topic", ConfigType.STRING, None, "Older name of topic.transaction."),
    ("slot.lsn.type", ConfigType.STRING, "SEQUENCE",
     "LSN type of a slot the connector creates: 'SEQUENCE' (a per-slot sequence, like PostgreSQL's) or "
     "'HYBRID_TIME' (the commit's hybrid time, comparable across slots)."),
]  # fmt: skip


def _build_config_def() -> ConfigDef:
    cdef = ConfigDef()
    for key in POSTGRES_CONFIG_DEF.keys:
        changes: dict[str, Any] = {}
        if key.name in _DOCS:
            changes["documentation"] = _DOCS[key.name]
        if key.name in _DEFAULTS:
            changes["default"] = _DEFAULTS[key.name]
        cdef.add(dataclasses.replace(key, **changes) if changes else key)
    for order, (name, ctype, default, doc) in enumerate(_YB_ONLY, start=1):
        cdef.add(
            ConfigKey(
                name,
                ctype,
                default,
                importance=Importance.LOW,
                documentation=doc,
                group="YugabyteDB",
                order_in_group=order,
                display_name=name,
            )
        )
    return cdef


YUGABYTEDB_CONFIG_DEF: Final[ConfigDef] = _build_config_def()


@dataclasses.dataclass(frozen=True, slots=True)
class _Translated:
    props: dict[str, Any]
    errors: dict[str, list[str]]
    yboutput: bool
    lsn_type: str


def _text(props: Mapping[str, Any], name: str) -> str | None:
    value = props.get(name)
    if value is None or (isinstance(value, str) and value.strip() == ""):
        return None
    return str(value).strip()


def _translate(props: Mapping[str, Any]) -> _Translated:
    """The PostgreSQL connector's props for these YugabyteDB props, and the YugabyteDB rules they break."""
    out = dict(props)
    errors: dict[str, list[str]] = {}
    plugin = (_text(props, "plugin.name") or "yboutput").lower()
    if plugin not in PLUGINS:
        errors["plugin.name"] = [
            f"The 'plugin.name' value '{plugin}' is invalid: the YugabyteDB connector supports only "
            + " and ".join(PLUGINS)
        ]
    out["plugin.name"] = "pgoutput"  # the same protocol: checked by the PostgreSQL rules under its name
    if _text(props, "database.port") is None:
        out["database.port"] = str(DEFAULT_PORT)
    mode = (_text(props, "snapshot.mode") or "initial").lower()
    if mode not in SNAPSHOT_MODES:
        errors["snapshot.mode"] = [
            f"The 'snapshot.mode' value '{mode}' is invalid: the YugabyteDB connector supports "
            + ", ".join(SNAPSHOT_MODES)
        ]
    out["snapshot.mode"] = {"never": "no_data"}.get(mode, mode if mode in SNAPSHOT_MODES else "initial")
    streaming = (_text(props, "streaming.mode") or "default").lower()
    if streaming not in STREAMING_MODES:
        errors["streaming.mode"] = [f"Value must be one of {', '.join(STREAMING_MODES)}"]
    elif streaming == "parallel":
        errors["streaming.mode"] = [
            "streaming.mode=parallel (YugabyteDB's tech preview) is not supported by this worker yet; use 'default'"
        ]
    lsn_type = (_text(props, "slot.lsn.type") or "SEQUENCE").upper()
    if lsn_type not in LSN_TYPES:
        errors["slot.lsn.type"] = [f"Value must be one of {', '.join(LSN_TYPES)}"]
    elif lsn_type == "HYBRID_TIME" and (_text(props, "lsn.flush.mode") or "").lower() == "connector_and_driver":
        # the driver would confirm positions inside transactions, which a HYBRID_TIME slot must never be told
        errors["lsn.flush.mode"] = ["lsn.flush.mode=connector_and_driver is not allowed with slot.lsn.type=HYBRID_TIME"]
    legacy_topic = _text(props, "transaction.topic")
    if legacy_topic is not None and _text(props, "topic.transaction") is None:
        out["topic.transaction"] = legacy_topic
    for name, _type, _default, _doc in _YB_ONLY:
        out.pop(name, None)  # not PostgreSQL keys: they would be passed to the driver as database.* are not
    return _Translated(out, errors, plugin == "yboutput", lsn_type)


def validate_yb_props(props: Mapping[str, Any]) -> dict[str, ConfigValue]:
    """/config/validate for the YugabyteDB connector: the PostgreSQL rules on the translated props, this
    connector's values and recommendations for the keys it changes, and its own rules' errors."""
    t = _translate(props)
    results = validate_props(t.props)
    for name, allowed in (("plugin.name", PLUGINS), ("snapshot.mode", SNAPSHOT_MODES)):
        cv = results.setdefault(name, ConfigValue(name))
        cv.errors.clear()  # the PostgreSQL rules saw the translated value
        cv.recommended_values = list(allowed)
    for name, _type, _default, _doc in _YB_ONLY:
        results.setdefault(name, ConfigValue(name))
    for name, messages in t.errors.items():
        results.setdefault(name, ConfigValue(name, props.get(name))).errors.extend(messages)
    return results


def parse_yb_config(props: Mapping[str, Any]) -> PostgresConnectorConfig:
    """The typed config the shared task runs on; one ConfigError naming every problem."""
    t = _translate(props)
    if t.errors:
        first = next(iter(t.errors))
        raise ConfigError(
            "Invalid YugabyteDB connector configuration: " + "; ".join(m for ms in t.errors.values() for m in ms),
            name=first,
        )
    config = PostgresConnectorConfig.from_props(t.props)
    plugin = LogicalDecoder.YBOUTPUT if t.yboutput else config.plugin_name
    return dataclasses.replace(config, plugin_name=plugin, slot_lsn_type=t.lsn_type)
