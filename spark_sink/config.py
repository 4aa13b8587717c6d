"""The job's configuration: a TOML or JSON file (sections `source`, `sink`, `spark`, `tables."<topic>"`) with
command-line overrides. Parsed once into a frozen object; every problem is reported at once. Pure.

```toml
[source]
bootstrap_servers = "127.0.0.1:9092"         # default (command line): localhost:9092, as Kafka's own tools
topics = ["dbserver1.public.customers"]      # or: topic_pattern = "dbserver1\\.public\\..*"
starting_offsets = "earliest"                # Spark Kafka source `startingOffsets`
max_offsets_per_trigger = 100000             # default: records per micro-batch, all topics together
format = "json"                              # decoder: json (JsonConverter) | avro (Confluent AvroConverter)
schemas = "auto"                             # JsonConverter schemas.enable: auto | true | false
# schema_registry_url = "http://127.0.0.1:8081/apis/ccompat/v7"   # avro: Confluent-API registry (comma-separated)
# schema_registry_user_info = "user:password"                     # avro: HTTP basic auth (or user:pw@ in the URL)
options = { "kafka.security.protocol" = "PLAINTEXT" }   # passed to the Kafka source as is (over the job's
                                             # kafka.fetch.max.wait.ms = 5, spark_sink/job.py KAFKA_DEFAULTS)

[sink]
warehouse = "/data/delta"                    # one table per topic below it
table_format = "delta"                       # delta | iceberg (Iceberg: <catalog>.<database>.<table>)
checkpoint = "/data/checkpoints/cdc"         # default (command line): <warehouse>/_checkpoints/<query_name>
table_name_template = "{topic}"              # {topic} {prefix} {schema} {table}; non [A-Za-z0-9_] → _
delete_mode = "hard"                         # hard | soft (_deleted, _deleted_at)
scd2 = false                                 # history tables (valid_from, valid_to, is_current)
dead_letter_path = "/data/delta/_dead_letter"
fail_fast = false
table_parallelism = 4                        # tables of a micro-batch applied at once (keyless ones: one by one)
trigger = "available-now"                    # available-now | once | processing-time=<interval>
unavailable_value_placeholder = "__debezium_unavailable_value"
variable_scale = 18                          # scale of PG `numeric` without precision
delete_ledger_retention = "30 days"          # forget hard deletes older than this (unset: remember for ever)
transaction_consistent = false               # apply only complete transactions (needs the transaction topic)
transaction_topic = "dbserver1.transaction"
# database = "cdc"                           # delta: also register each table as <catalog>.<database>.<name>
# catalog = "spark_catalog"                  # delta (default); no metastore of yours: embedded Derby
                                             # iceberg: catalog default "iceberg" (Hadoop, on the warehouse),
                                             # database default "default"
table_properties = { "delta.logRetentionDuration" = "interval 30 days" }   # TBLPROPERTIES (per table: override)
partition_columns = []                       # Delta partition columns of tables the job creates
# optimize_interval = "1 days"               # OPTIMIZE a table the batch wrote when its last OPTIMIZE is older
# vacuum_interval = "7 days"                 # VACUUM likewise (its last VACUUM END in the table's history)
# vacuum_retention = "7 days"                # VACUUM … RETAIN (Delta's default 7 days)

[spark]
master = "local[2]"                          # omit under spark-submit
jars_dir = ".devstack/spark/jars"            # omit under spark-submit (pass --jars there)
conf = { "spark.sql.shuffle.partitions" = "2" }   # over spark_sink/job.py SESSION_DEFAULTS (code generation
                                                   # off: spark.sql.codegen.factoryMode, .wholeStage)

[tables."dbserver1.public.customers"]
name = "customers"
delete_mode = "soft"
scd2 = true
partition_columns = ["region"]
table_properties = { "delta.appendOnly" = "false" }
```
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

DELETE_MODES = ("hard", "soft")
FORMATS = ("json", "avro")  # the decoders of spark_sink.decoding.registry
RETENTION_RE = re.compile(r"^\s*([1-9][0-9]*)\s+(days?|hours?|minutes?)\s*$")
DURATION_SYNTAX = '"<n> days", "<n> hours" or "<n> minutes"'
SESSION_CATALOG = "spark_catalog"  # Spark's built-in catalog, the default of `catalog`
TABLE_FORMATS = ("delta", "iceberg")
ICEBERG_CATALOG = "iceberg"  # the Iceberg catalog of the tables when `catalog` is unset
IDENTIFIER_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
DELTA_MIN_RETENTION_HOURS = 168  # Delta's default delta.deletedFileRetentionDuration (7 days)
TRIGGER_RE = re.compile(r"^(available-now|once|processing-time=.+)$")
_UNSAFE = re.compile(r"[^A-Za-z0-9_]")
DEFAULT_BOOTSTRAP_SERVERS = "localhost:9092"  # what Kafka's own command-line tools assume


def join_path(base: str, *names: str) -> str:
    """`base/name/…` for local paths and URIs alike (pathlib would fold `s3a://bucket` into `s3a:/bucket`)."""
    return "/".join([base.rstrip("/"), *(n.strip("/") for n in names)])


def bootstrap_addresses(servers: str) -> list[tuple[str, int]]:
    """`host:port,host:port` (a `PLAINTEXT://` prefix and `[v6]` brackets allowed, as Kafka's clients read it) →
    (host, port) pairs; ValueError names the first entry that is not host:port."""
    out = []
    for entry in (s.strip() for s in servers.split(",")):
        if not entry:
            continue
        address = entry.split("://", 1)[-1]
        host, _, port = address.rpartition(":")
        host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"{entry!r} is not host:port")
        out.append((host, int(port)))
    return out


def default_checkpoint(warehouse: str, query_name: str) -> str:
    return join_path(warehouse, "_checkpoints", query_name)


class ConfigError(ValueError):
    def __init__(self, problems: list[str]) -> None:
        super().__init__("invalid spark_sink configuration:\n  - " + "\n  - ".join(problems))
        self.problems = problems


def duration_ms(text: str | None) -> int | None:
    """A "<n> days|hours|minutes" setting in milliseconds (None when unset or not of that form)."""
    match = RETENTION_RE.match(text or "")
    if match is None:
        return None
    unit = {"day": 86_400_000, "hour": 3_600_000, "minute": 60_000}[match.group(2).rstrip("s")]
    return int(match.group(1)) * unit


@dataclass(frozen=True)
class TableConfig:
    name: str | None = None
    delete_mode: str | None = None
    scd2: bool | None = None
    table_properties: Mapping[str, str] | None = None  # merged over the global ones, key by key
    partition_columns: tuple[str, ...] | None = None  # replaces the global list


@dataclass(frozen=True)
class TableLayout:
    """What a table gets when the job creates it: Delta table properties and partition columns."""

    properties: Mapping[str, str] = field(default_factory=dict)
    partition_columns: tuple[str, ...] = ()


@dataclass(frozen=True)
class SinkConfig:
    bootstrap_servers: str = ""
    topics: tuple[str, ...] = ()
    topic_pattern: str | None = None
    starting_offsets: str = "earliest"
    # a batch has a fixed cost per table it writes (its MERGE, Delta snapshots and commits: ~18 s for ten tables on
    # two cores), so a backlog is read in large batches (README, "Spark sink": the batch size)
    max_offsets_per_trigger: int | None = 100_000
    kafka_options: Mapping[str, str] = field(default_factory=dict)
    format: str = "json"
    schemas: str = "auto"
    schema_registry_url: str | None = None
    schema_registry_user_info: str | None = None
    warehouse: str = ""
    table_format: str = "delta"  # the tables' format: delta | iceberg (spark_sink/table_format.py)
    checkpoint: str = ""
    table_name_template: str = "{topic}"
    delete_mode: str = "hard"
    scd2: bool = False
    dead_letter_path: str | None = None
    fail_fast: bool = False
    table_parallelism: int = 4  # tables of a batch applied at once (threads; spark_sink/stage/side_by_side.py)
    trigger: str = "available-now"
    unavailable_value_placeholder: str = "__debezium_unavailable_value"
    variable_scale: int = 18
    delete_ledger_retention: str | None = None  # "<n> days|hours|minutes": how long hard deletes are remembered
    transaction_consistent: bool = False
    transaction_topic: str | None = None
    # Delta: with `database`, each table (a path) is also registered as <catalog>.<database>.<name> (catalog None:
    # spark_catalog). Iceberg: every table is <catalog>.<database>.<name> (defaults iceberg, default).
    catalog: str | None = None
    database: str | None = None
    table_properties: Mapping[str, str] = field(default_factory=dict)
    partition_columns: tuple[str, ...] = ()
    optimize_interval: str | None = None  # "<n> days|hours|minutes": OPTIMIZE a written table that often
    vacuum_interval: str | None = None
    vacuum_retention: str | None = None  # VACUUM … RETAIN (None: Delta's 7 days)
    query_name: str = "spark_sink"
    master: str | None = None
    jars_dir: str | None = None
    spark_conf: Mapping[str, str] = field(default_factory=dict)
    tables: Mapping[str, TableConfig] = field(default_factory=dict)

    # -- derived ---------------------------------------------------------------------------------------
    def table_name(self, topic: str) -> str:
        explicit = self.tables.get(topic)
        if explicit is not None and explicit.name:
            return explicit.name
        parts = topic.split(".")
        prefix, schema, table = "", "", topic
        if len(parts) >= 3:
            prefix, schema, table = ".".join(parts[:-2]), parts[-2], parts[-1]
        elif len(parts) == 2:
            schema, table = parts
        name = self.table_name_template.format(topic=topic, prefix=prefix, schema=schema, table=table)
        return _UNSAFE.sub("_", name)

    def table_path(self, table: str) -> str:
        return join_path(self.warehouse, table)

    @property
    def delete_ledger_retention_ms(self) -> int | None:
        """`delete_ledger_retention` in milliseconds (None: remember deletes for ever)."""
        return duration_ms(self.delete_ledger_retention)

    @property
    def optimize_interval_ms(self) -> int | None:
        return duration_ms(self.optimize_interval)

    @property
    def vacuum_interval_ms(self) -> int | None:
        return duration_ms(self.vacuum_interval)

    @property
    def vacuum_retention_hours(self) -> float:
        """`vacuum_retention` in hours (Delta's default, 168, when unset)."""
        ms = duration_ms(self.vacuum_retention)
        return DELTA_MIN_RETENTION_HOURS if ms is None else ms / 3_600_000

    @property
    def catalog_name(self) -> str:
        """The catalog named tables go to: `catalog`, else Spark's session catalog (Iceberg: `iceberg`)."""
        return self.catalog or (ICEBERG_CATALOG if self.table_format == "iceberg" else SESSION_CATALOG)

    def qualified_name(self, table: str) -> tuple[str, str, str] | None:
        """(catalog, database, table) of the named table `table` is registered as; None without `database`."""
        if not self.database:
            return None
        return (self.catalog_name, self.database, table)

    def _table_options(self, table: str) -> TableConfig | None:
        for key, opts in self.tables.items():
            if key == table or self.table_name(key) == table:
                return opts
        return None

    def layout_for(self, table: str) -> TableLayout:
        """The properties (global, then the table's own over them) and partition columns (the table's, else the
        global ones) of `table`."""
        opts = self._table_options(table)
        properties = {**self.table_properties, **((opts.table_properties or {}) if opts else {})}
        columns = self.partition_columns
        if opts is not None and opts.partition_columns is not None:
            columns = opts.partition_columns
        return TableLayout(properties, tuple(columns))

    @property
    def manages_tables(self) -> bool:
        """Whether the job does more than write paths: catalog names, layouts, scheduled maintenance."""
        per_table = any(t.table_properties or t.partition_columns for t in self.tables.values())
        return bool(
            (self.database and self.table_format != "iceberg")
            or self.table_properties
            or self.partition_columns
            or per_table
            or self.optimize_interval
            or self.vacuum_interval
        )

    def watermark_path(self, table: str) -> str:
        """The applied-through watermark of a table without a primary key (spark_sink/delta/watermark.py)."""
        return join_path(self.warehouse, "_cdc_watermarks", table)

    @property
    def delete_ledger_path(self) -> str:
        """Where the hard-delete ledger of every table lives (see spark_sink/delta/deletes.py)."""
        return join_path(self.warehouse, "_cdc_ledger")

    def legacy_delete_ledger_path(self, table: str) -> str:
        """Where the earlier layout kept the ledger of `table` (imported into the one above, then removed)."""
        return join_path(self.warehouse, "_cdc_deletes", table)

    @property
    def dead_letter(self) -> str:
        return self.dead_letter_path or join_path(self.warehouse, "_dead_letter")

    def options_for(self, table: str) -> TableConfig:
        """The effective per-table options (`tables` entries are keyed by topic or by table name)."""
        opts = self._table_options(table)
        if opts is not None:
            return TableConfig(
                name=table,
                delete_mode=opts.delete_mode or self.delete_mode,
                scd2=self.scd2 if opts.scd2 is None else opts.scd2,
            )
        return TableConfig(name=table, delete_mode=self.delete_mode, scd2=self.scd2)

    def validate(self) -> list[str]:
        problems = []
        if not self.bootstrap_servers:
            problems.append("source.bootstrap_servers is required")
        elif not isinstance(self.bootstrap_servers, str):
            problems.append("source.bootstrap_servers must be a string: host:port, comma-separated")
        else:
            try:
                bootstrap_addresses(self.bootstrap_servers)
            except ValueError as e:
                problems.append(f"source.bootstrap_servers: {e}")
        if bool(self.topics) == bool(self.topic_pattern):
            problems.append("exactly one of source.topics and source.topic_pattern is required")
        if self.topic_pattern:
            try:
                re.compile(self.topic_pattern)
            except re.error as e:
                problems.append(f"source.topic_pattern is not a regex: {e}")
        if self.schemas not in ("auto", "true", "false"):
            problems.append("source.schemas must be auto, true or false")
        problems.extend(self._registry_problems())
        if not self.warehouse:
            problems.append("sink.warehouse is required")
        if not self.checkpoint:
            problems.append("sink.checkpoint is required")
        if self.delete_mode not in DELETE_MODES:
            problems.append(f"sink.delete_mode must be one of {DELETE_MODES}")
        for topic, t in self.tables.items():
            if t.delete_mode is not None and t.delete_mode not in DELETE_MODES:
                problems.append(f"tables.{topic!r}.delete_mode must be one of {DELETE_MODES}")
        if not TRIGGER_RE.match(self.trigger):
            problems.append("sink.trigger must be available-now, once or processing-time=<interval>")
        if self.max_offsets_per_trigger is not None and self.max_offsets_per_trigger <= 0:
            problems.append("source.max_offsets_per_trigger must be positive")
        if self.table_parallelism < 1:
            problems.append("sink.table_parallelism must be at least 1 (1: one table after the other)")
        for name in ("delete_ledger_retention", "optimize_interval", "vacuum_interval", "vacuum_retention"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not RETENTION_RE.match(value)):
                problems.append(f"sink.{name} must be {DURATION_SYNTAX}")
        if self.vacuum_retention is not None and self.vacuum_interval is None:
            problems.append("sink.vacuum_retention is used only with sink.vacuum_interval (the schedule of VACUUM)")
        problems.extend(self._catalog_problems())
        if not 0 <= self.variable_scale <= 38:
            problems.append("sink.variable_scale must be within 0..38")
        if self.transaction_consistent and not self.transaction_topic:
            problems.append("sink.transaction_topic is required with transaction_consistent")
        try:
            self.table_name_template.format(topic="t", prefix="p", schema="s", table="t")
        except (KeyError, IndexError, ValueError) as e:
            problems.append(f"sink.table_name_template: unknown placeholder {e}")
        return problems

    def _catalog_problems(self) -> list[str]:
        problems = []
        for name in ("catalog", "database"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not IDENTIFIER_RE.match(value)):
                problems.append(f"sink.{name} must be a name of letters, digits and _ (not starting with a digit)")
        if self.table_format not in TABLE_FORMATS:
            problems.append(f"sink.table_format must be one of {TABLE_FORMATS}, got {self.table_format!r}")
        elif self.table_format == "iceberg":
            if self.catalog == SESSION_CATALOG:
                problems.append(
                    f"sink.catalog {SESSION_CATALOG!r} is Spark's session catalog (Delta's here): Iceberg tables need "
                    "an Iceberg catalog (default iceberg: a Hadoop catalog on the warehouse)"
                )
        elif self.catalog is not None and not self.database:
            problems.append("sink.catalog is used only with sink.database (the named tables' database)")
        layouts: list[tuple[str, Mapping[str, str] | None, tuple[str, ...] | None]]
        layouts = [("sink", self.table_properties, self.partition_columns)]
        layouts += [(f"tables.{k!r}", t.table_properties, t.partition_columns) for k, t in self.tables.items()]
        for where, properties, columns in layouts:
            for key in properties or {}:
                if not key.strip():
                    problems.append(f"{where}.table_properties: a property name is empty")
            if columns is not None and len(set(columns)) != len(columns):
                problems.append(f"{where}.partition_columns names a column twice")
        return problems

    def _registry_problems(self) -> list[str]:
        if self.format not in FORMATS:
            return [f"source.format must be one of {FORMATS}, got {self.format!r}"]
        if self.format != "avro":
            given = [k for k in ("schema_registry_url", "schema_registry_user_info") if getattr(self, k)]
            return [f'source.{k} is only used with format = "avro"' for k in given]
        problems = []
        if self.schemas != "auto":
            problems.append('source.schemas is a JsonConverter setting, not used with format = "avro"')
        urls = [u.strip() for u in (self.schema_registry_url or "").split(",") if u.strip()]
        if not urls:
            problems.append('source.schema_registry_url is required with format = "avro"')
        for url in urls:
            parts = urlsplit(url)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                problems.append(f"source.schema_registry_url: {_redacted(url)!r} is not an http(s) URL")
        if self.schema_registry_user_info is not None and ":" not in self.schema_registry_user_info:
            problems.append("source.schema_registry_user_info must be user:password")
        return problems

    def redacted(self) -> SinkConfig:
        """This configuration with the registry credentials masked, for printing."""
        url = self.schema_registry_url
        return replace(
            self,
            schema_registry_url=None if url is None else ",".join(_redacted(u.strip()) for u in url.split(",")),
            schema_registry_user_info=None if self.schema_registry_user_info is None else "****",
        )


def _redacted(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return url.replace(f":{parts.password}@", ":****@", 1)


_SECTIONS: dict[str, dict[str, str]] = {
    "source": {
        "bootstrap_servers": "bootstrap_servers",
        "topics": "topics",
        "topic_pattern": "topic_pattern",
        "starting_offsets": "starting_offsets",
        "max_offsets_per_trigger": "max_offsets_per_trigger",
        "options": "kafka_options",
        "format": "format",
        "schemas": "schemas",
        "schema_registry_url": "schema_registry_url",
        "schema_registry_user_info": "schema_registry_user_info",
    },
    "sink": {
        n: n
        for n in (
            "warehouse",
            "table_format",
            "checkpoint",
            "table_name_template",
            "delete_mode",
            "scd2",
            "dead_letter_path",
            "fail_fast",
            "table_parallelism",
            "trigger",
            "unavailable_value_placeholder",
            "variable_scale",
            "delete_ledger_retention",
            "transaction_consistent",
            "transaction_topic",
            "catalog",
            "database",
            "table_properties",
            "partition_columns",
            "optimize_interval",
            "vacuum_interval",
            "vacuum_retention",
            "query_name",
        )
    },
    "spark": {"master": "master", "jars_dir": "jars_dir", "conf": "spark_conf"},
}


def from_mapping(data: Mapping[str, Any]) -> SinkConfig:
    """A parsed TOML/JSON document → SinkConfig (validated; ConfigError lists every problem)."""
    problems: list[str] = []
    values: dict[str, Any] = {}
    for section, keys in _SECTIONS.items():
        body = data.get(section) or {}
        if not isinstance(body, Mapping):
            problems.append(f"[{section}] must be a table")
            continue
        for k, v in body.items():
            if k not in keys:
                problems.append(f"unknown setting {section}.{k}")
            else:
                values[keys[k]] = v
    for extra in set(data) - set(_SECTIONS) - {"tables"}:
        problems.append(f"unknown section [{extra}]")
    tables: dict[str, TableConfig] = {}
    for topic, body in (data.get("tables") or {}).items():
        if not isinstance(body, Mapping) or set(body) - set(TABLE_KEYS):
            problems.append(f"tables.{topic!r} accepts {', '.join(TABLE_KEYS)} only")
            continue
        where = f"tables.{topic!r}"
        properties = body.get("table_properties")
        columns = body.get("partition_columns")
        tables[topic] = TableConfig(
            body.get("name"),
            body.get("delete_mode"),
            body.get("scd2"),
            None if properties is None else _properties(properties, where, problems),
            None if columns is None else _columns(columns, where, problems),
        )
    values["tables"] = tables
    config = _coerce(values, problems)
    problems.extend(config.validate())
    if problems:
        raise ConfigError(problems)
    return config


TABLE_KEYS = ("name", "delete_mode", "scd2", "table_properties", "partition_columns")


def _properties(value: Any, where: str, problems: list[str]) -> dict[str, str]:
    """A table of Delta table properties → name → string (TOML booleans as Delta writes them: true/false)."""
    if not isinstance(value, Mapping) or not all(isinstance(v, str | int | float | bool) for v in value.values()):
        problems.append(f"{where}.table_properties must be a table of names to strings, numbers or booleans")
        return {}
    return {str(k): str(v).lower() if isinstance(v, bool) else str(v) for k, v in value.items()}


def _columns(value: Any, where: str, problems: list[str]) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [s.strip() for s in value.split(",") if s.strip()]
    if not isinstance(value, list | tuple) or not all(isinstance(c, str) and c for c in value):
        problems.append(f"{where}.partition_columns must be a list of column names")
        return ()
    return tuple(value)


def _coerce(values: dict[str, Any], problems: list[str]) -> SinkConfig:
    types = {f.name: f.type for f in fields(SinkConfig)}
    out: dict[str, Any] = {}
    for name, v in values.items():
        t = str(types[name])
        if name == "topics":
            if isinstance(v, str):
                v = [s.strip() for s in v.split(",") if s.strip()]
            if not isinstance(v, list | tuple) or not all(isinstance(s, str) for s in v):
                problems.append("source.topics must be a list of names")
                continue
            out[name] = tuple(v)
        elif name in ("kafka_options", "spark_conf"):
            if not isinstance(v, Mapping):
                problems.append(f"{name} must be a table of strings")
                continue
            out[name] = {str(k): str(x) for k, x in v.items()}
        elif name == "table_properties":
            out[name] = _properties(v, "sink", problems)
        elif name == "partition_columns":
            out[name] = _columns(v, "sink", problems)
        elif t.startswith("bool"):
            if isinstance(v, str) and v.lower() in ("true", "false"):
                v = v.lower() == "true"
            if not isinstance(v, bool):
                problems.append(f"{name} must be true or false")
                continue
            out[name] = v
        elif t.startswith("int"):
            if v is None and "None" in t:
                out[name] = None
                continue
            try:
                out[name] = int(v)
            except (TypeError, ValueError):
                problems.append(f"{name} must be an integer")
        else:
            out[name] = v if v is None or not isinstance(v, int | float) else str(v)
    return SinkConfig(**out)


def load_file(path: str | Path) -> dict[str, Any]:
    p = Path(path)
    text = p.read_text()
    if p.suffix == ".json":
        data = json.loads(text)
    else:
        data = tomllib.loads(text)
    if not isinstance(data, dict):
        raise ConfigError([f"{p}: the top level must be a table/object"])
    return data


def with_defaults(data: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The command line's defaults for what `data` leaves out, and one note per default applied (for the log):
    `source.bootstrap_servers` = localhost:9092; `sink.checkpoint` = <warehouse>/_checkpoints/<query_name>.
    A value given, even an empty one, is kept (and validated); `from_mapping` alone applies no default."""
    merged: dict[str, Any] = {k: (dict(v) if isinstance(v, Mapping) else v) for k, v in data.items()}
    notes = []
    source, sink = merged.setdefault("source", {}), merged.setdefault("sink", {})
    if isinstance(source, dict) and source.get("bootstrap_servers") is None:
        source["bootstrap_servers"] = DEFAULT_BOOTSTRAP_SERVERS
        notes.append(f"bootstrap servers not given: using {DEFAULT_BOOTSTRAP_SERVERS} (--bootstrap-servers to change)")
    if isinstance(sink, dict) and sink.get("checkpoint") is None and isinstance(sink.get("warehouse"), str):
        warehouse, query_name = sink["warehouse"], sink.get("query_name", SinkConfig.query_name)
        if warehouse and isinstance(query_name, str) and query_name:
            sink["checkpoint"] = default_checkpoint(warehouse, query_name)
            notes.append(f"checkpoint not given: using {sink['checkpoint']} (--checkpoint to change)")
    return merged, notes


def with_overrides(data: Mapping[str, Any], overrides: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Merge command-line values (section → key → value, None = not given) over a file's document."""
    merged: dict[str, Any] = {k: (dict(v) if isinstance(v, Mapping) else v) for k, v in data.items()}
    for section, body in overrides.items():
        target = merged.setdefault(section, {})
        for k, v in body.items():
            if v is None:
                continue
            if isinstance(v, Mapping) and isinstance(target.get(k), Mapping):
                target[k] = {**target[k], **v}
            else:
                target[k] = v
    return merged


__all__ = [
    "ConfigError",
    "SinkConfig",
    "TableConfig",
    "TableLayout",
    "bootstrap_addresses",
    "default_checkpoint",
    "duration_ms",
    "from_mapping",
    "join_path",
    "load_file",
    "replace",
    "with_defaults",
    "with_overrides",
]
