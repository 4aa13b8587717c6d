"""The PostgreSQL connector's ConfigDef, typed config, validation rules and libpq helpers (pure)."""

from __future__ import annotations

import logging
from typing import Any

import psycopg.conninfo
import pytest

from connect_worker.api.config import ConfigType, Importance, Password, Width
from connect_worker.api.errors import ConfigError
from connectors.postgres.config import (
    POSTGRES_CONFIG_DEF,
    AutoCreateMode,
    KeyColumnsRule,
    LogicalDecoder,
    LsnFlushMode,
    PostgresConnectorConfig,
    ReplicaIdentityRule,
    SecureConnectionMode,
    SnapshotMode,
    conninfo,
    describe_connection,
    libpq_quote,
    parse_replica_identity_rules,
    redact,
    split_initial_statements,
    split_regex_list,
    validate_props,
)
from connectors.postgres.config.validation import check_props

BASE: dict[str, str] = {
    "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
    "topic.prefix": "tp",
    "database.hostname": "127.0.0.1",
    "database.port": "5433",
    "database.user": "postgres",
    "database.dbname": "postgres",
    "plugin.name": "pgoutput",
}
SECRET = "Sup3r-s3cret-pw"


def errors(props: dict[str, Any]) -> dict[str, list[str]]:
    return {k: v.errors for k, v in validate_props(props).items() if v.errors}


def only_error(props: dict[str, Any], key: str) -> list[str]:
    found = errors(props)
    assert set(found) == {key}, found
    return found[key]


# -- the ConfigDef ---------------------------------------------------------------------------------------------


def test_groups_and_order_follow_debezium() -> None:
    assert POSTGRES_CONFIG_DEF.groups() == ["Postgres", "Connector", "Events"]
    names = [k.name for k in POSTGRES_CONFIG_DEF.keys]
    assert names[:6] == [
        "topic.prefix",
        "database.hostname",
        "database.port",
        "database.user",
        "database.password",
        "database.dbname",
    ]
    visible = [k for k in POSTGRES_CONFIG_DEF.keys if not k.internal]
    assert len(visible) == 126  # Debezium 3.6.3's PostgresConnector.config()
    assert visible[-1].name == "sourceinfo.struct.maker"
    first_connector = next(k for k in visible if k.group == "Connector")
    assert first_connector.name == "event.processing.failure.handling.mode" and first_connector.order_in_group == 1
    snapshot_mode = POSTGRES_CONFIG_DEF["snapshot.mode"]
    assert (snapshot_mode.group, snapshot_mode.order_in_group, snapshot_mode.width) == ("Connector", 45, Width.SHORT)
    publish = POSTGRES_CONFIG_DEF["publish.via.partition.root"]
    assert (publish.group, publish.order_in_group) == ("Connector", 60)
    assert POSTGRES_CONFIG_DEF["flush.lsn.source"].order_in_group == 32
    assert POSTGRES_CONFIG_DEF["legacy.snapshot.max.threads"].order_in_group == 13
    assert POSTGRES_CONFIG_DEF["internal.legacy.snapshot.max.threads"].order_in_group == 13
    # The keys Debezium's ConfigDef does not list come last, hidden and ungrouped.
    extras = [k for k in POSTGRES_CONFIG_DEF.keys if k.internal]
    assert {k.name for k in extras} >= {"topic.delimiter", "money.fraction.digits", "signal.kafka.bootstrap.servers"}
    assert all(k.group is None for k in extras)
    assert names.index("topic.delimiter") > names.index("sourceinfo.struct.maker")


@pytest.mark.parametrize(
    ("name", "ctype", "default"),
    [
        ("topic.prefix", ConfigType.STRING, None),
        ("database.port", ConfigType.INT, 5432),
        ("database.password", ConfigType.PASSWORD, None),
        ("database.sslpassword", ConfigType.PASSWORD, None),
        ("database.query.timeout.ms", ConfigType.INT, 600000),
        ("plugin.name", ConfigType.STRING, "decoderbufs"),
        ("slot.name", ConfigType.STRING, "debezium"),
        ("publication.name", ConfigType.STRING, "dbz_publication"),
        ("publication.autocreate.mode", ConfigType.STRING, "all_tables"),
        ("slot.max.retries", ConfigType.INT, 6),
        ("slot.retry.delay.ms", ConfigType.LONG, 10000),
        ("database.sslmode", ConfigType.STRING, "prefer"),
        ("database.tcpKeepAlive", ConfigType.BOOLEAN, True),
        ("status.update.interval.ms", ConfigType.INT, 10000),
        ("xmin.fetch.interval.ms", ConfigType.LONG, 0),
        ("skipped.operations", ConfigType.LIST, ("t",)),
        ("max.batch.size", ConfigType.INT, 2048),
        ("max.queue.size", ConfigType.INT, 8192),
        ("poll.interval.ms", ConfigType.LONG, 500),
        ("snapshot.fetch.size", ConfigType.INT, None),
        ("snapshot.mode", ConfigType.STRING, "initial"),
        ("snapshot.locking.mode", ConfigType.STRING, "none"),
        ("hstore.handling.mode", ConfigType.STRING, "json"),
        ("interval.handling.mode", ConfigType.STRING, "numeric"),
        ("decimal.handling.mode", ConfigType.STRING, "precise"),
        ("time.precision.mode", ConfigType.STRING, "adaptive"),
        ("tombstones.on.delete", ConfigType.BOOLEAN, True),
        ("heartbeat.interval.ms", ConfigType.INT, 0),
        ("signal.enabled.channels", ConfigType.LIST, ("source",)),
        ("unavailable.value.placeholder", ConfigType.STRING, "__debezium_unavailable_value"),
        ("topic.naming.strategy", ConfigType.CLASS, "io.debezium.schema.SchemaTopicNamingStrategy"),
        ("incremental.snapshot.watermarking.strategy", ConfigType.STRING, "INSERT_INSERT"),
        ("money.fraction.digits", ConfigType.SHORT, 2),
    ],
)
def test_types_and_defaults(name: str, ctype: ConfigType, default: Any) -> None:
    key = POSTGRES_CONFIG_DEF[name]
    assert (key.type, key.default) == (ctype, default)
    assert not key.required  # Debezium checks required keys itself ("A value is required")
    assert key.documentation


def test_importance_and_display() -> None:
    assert POSTGRES_CONFIG_DEF["database.hostname"].importance is Importance.HIGH
    assert POSTGRES_CONFIG_DEF["table.include.list"].importance is Importance.HIGH
    assert POSTGRES_CONFIG_DEF["slot.stream.params"].importance is Importance.LOW
    assert POSTGRES_CONFIG_DEF["slot.name"].display_name == "Slot"
    assert POSTGRES_CONFIG_DEF["database.password"].default_string is None


# -- the typed config ------------------------------------------------------------------------------------------


def test_defaults_of_the_typed_config() -> None:
    cfg = PostgresConnectorConfig.from_props({k: v for k, v in BASE.items() if k != "plugin.name"})
    assert cfg.plugin_name is LogicalDecoder.DECODERBUFS
    assert cfg.slot_name == "debezium" and cfg.publication_name == "dbz_publication"
    assert cfg.publication_autocreate_mode is AutoCreateMode.ALL_TABLES
    assert cfg.sslmode is SecureConnectionMode.PREFER
    assert cfg.snapshot_mode is SnapshotMode.INITIAL
    assert cfg.values["snapshot.fetch.size"] is None  # Debezium's default: the connector's own (10240)
    assert (cfg.max_batch_size, cfg.max_queue_size, cfg.poll_interval_ms) == (2048, 8192, 500)
    assert cfg.skipped_operations == frozenset({"t"})
    assert cfg.lsn_flush_mode is LsnFlushMode.CONNECTOR
    assert (cfg.slot_max_retries, cfg.slot_retry_delay_ms) == (6, 10000)
    assert cfg.port == 5433 and cfg.password is None
    assert cfg.topic_heartbeat_prefix == "__debezium-heartbeat"
    assert cfg.replica_identity_autoset_values == () and cfg.initial_statements == ()
    assert cfg.supplied_keys >= {"topic.prefix", "database.port"} and "slot.name" not in cfg.supplied_keys
    assert cfg.warnings == ()


def test_typed_values_are_parsed_once() -> None:
    props = BASE | {
        "snapshot.mode": "CONFIGURATION_BASED",
        "snapshot.mode.configuration.based.snapshot.data": "TRUE",
        "table.include.list": "public.a, public\\.b{1\\,2},s.c",
        "skipped.operations": "none",
        "flush.lsn.source": "false",
        "heartbeat.topics.prefix": "hb",
        "unavailable.value.placeholder": "hex:00ff",
        "message.key.columns": "public.t:id;s\\.u:a, b",
        "column.truncate.to.20.chars": "public.t.name",
        "column.mask.hash.SHA-256.with.salt.pepper": "public.t.email,public.t.phone",
        "snapshot.select.statement.overrides": "public.t",
        "snapshot.select.statement.overrides.public.t": "SELECT * FROM public.t WHERE id > 3",
        "database.ApplicationName": "app",
    }
    cfg = PostgresConnectorConfig.from_props(props)
    assert cfg.snapshot_mode is SnapshotMode.CONFIGURATION_BASED and cfg.snapshot_data is True
    assert cfg.table_include_list == ("public.a", "public\\.b{1,2}", "s.c")
    assert cfg.skipped_operations == frozenset()
    assert cfg.lsn_flush_mode is LsnFlushMode.MANUAL
    assert cfg.topic_heartbeat_prefix == "hb"
    assert cfg.unavailable_value_placeholder_bytes == b"\x00\xff"
    assert cfg.message_key_columns == "public.t:id;s\\.u:a, b"
    truncate, hashed = cfg.column_rules  # truncations are tried before hashes, as in Debezium
    assert (truncate.kind, truncate.patterns.sources, truncate.length) == ("truncate", ("public.t.name",), 20)
    assert (hashed.kind, hashed.patterns.sources) == ("hash", ("public.t.email", "public.t.phone"))
    assert (hashed.algorithm, hashed.salt, hashed.v2) == ("sha256", b"pepper", False)
    outcome = check_props(props)  # what /config/validate checks message.key.columns with
    assert outcome.key_columns == (KeyColumnsRule("public.t", ("id",)), KeyColumnsRule("s\\.u", ("a", "b")))
    assert cfg.snapshot_select_statement_overrides == {"public.t": "SELECT * FROM public.t WHERE id > 3"}
    assert cfg.driver_properties == {"ApplicationName": "app"}
    with pytest.raises(AttributeError):
        cfg.slot_name = "x"  # type: ignore[misc]


def test_connector_and_driver_turns_heartbeats_on_as_debezium_does(caplog: pytest.LogCaptureFixture) -> None:
    mode = {"lsn.flush.mode": "connector_and_driver"}
    with caplog.at_level(logging.WARNING, logger="connectors.postgres.config"):
        cfg = PostgresConnectorConfig.from_props(BASE | mode)
    assert cfg.lsn_flush_mode is LsnFlushMode.CONNECTOR_AND_DRIVER and cfg.heartbeat_interval_ms == 600_000
    assert "heartbeat.interval.ms was internally set to 600000 ms" in caplog.text
    # an explicit interval, transaction metadata, or another mode leave it alone
    assert PostgresConnectorConfig.from_props(BASE | mode | {"heartbeat.interval.ms": "50"}).heartbeat_interval_ms == 50
    tx = PostgresConnectorConfig.from_props(BASE | mode | {"provide.transaction.metadata": "true"})
    assert tx.heartbeat_interval_ms == 0
    assert PostgresConnectorConfig.from_props(BASE | {"lsn.flush.mode": "connector"}).heartbeat_interval_ms == 0
    assert PostgresConnectorConfig.from_props(BASE | {"lsn.flush.mode": "manual"}).lsn_flush_mode is LsnFlushMode.MANUAL


def test_from_props_reports_every_problem_at_once() -> None:
    with pytest.raises(ConfigError) as err:
        PostgresConnectorConfig.from_props({"slot.name": "Bad", "max.batch.size": "0"})
    text = str(err.value)
    for part in (
        "The 'topic.prefix' value is invalid: A value is required",
        "The 'database.hostname' value is invalid: A value is required",
        "The 'database.user' value is invalid: A value is required",
        "The 'database.dbname' value is invalid: A value is required",
        "The 'slot.name' value is invalid: Valid replication slot name",
        "The 'max.batch.size' value is invalid: A positive, non-zero integer value is expected",
    ):
        assert part in text
    assert err.value.name == "topic.prefix"


# -- validation rules ------------------------------------------------------------------------------------------


def test_a_valid_config_has_no_errors_and_lists_every_key() -> None:
    values = validate_props(BASE)
    assert [k for k, v in values.items() if v.errors] == []
    assert list(values)[: len(POSTGRES_CONFIG_DEF.keys)] == [k.name for k in POSTGRES_CONFIG_DEF.keys]
    # as Debezium's validate(): own keys carry no value, enum keys their values as recommendations
    assert values["slot.name"].value is None
    assert values["plugin.name"].recommended_values == ["decoderbufs", "pgoutput"]
    assert not values["schema.exclude.list"].visible and values["schema.include.list"].visible


@pytest.mark.parametrize("key", ["topic.prefix", "database.hostname", "database.user", "database.dbname"])
@pytest.mark.parametrize("how", ["missing", "blank"])
def test_required(key: str, how: str) -> None:
    props = {k: v for k, v in BASE.items() if k != key} if how == "missing" else BASE | {key: "  "}
    assert only_error(props, key)[0] == f"The '{key}' value is invalid: A value is required"


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("plugin.name", "wal2json", "Value must be one of decoderbufs, pgoutput"),
        ("snapshot.mode", "bogus", "Value must be one of always, initial_only, configuration_based, when_needed, "
         "initial, custom, no_data"),
        ("publication.autocreate.mode", "x", "Value must be one of no_tables, filtered, disabled, all_tables"),
        ("database.sslmode", "nope", "Value must be one of allow, prefer, disable, verify-ca, require, verify-full"),
        ("snapshot.locking.mode", "x", "Value must be one of shared, custom, none"),
        ("hstore.handling.mode", "x", "Value must be one of json, map"),
        ("time.precision.mode", "x", "Value must be one of adaptive, adaptive_time_microseconds, isostring, "
         "microseconds, nanoseconds, connect"),
        ("skipped.operations", "c,x", "Invalid operation"),
        ("slot.name", "Bad-Slot", "Valid replication slot name must contain only digits, lowercase characters and "
         "underscores with length <= 63"),
        ("slot.name", "a" * 64, "Valid replication slot name must contain only digits, lowercase characters and "
         "underscores with length <= 63"),
        ("topic.prefix", "bad prefix!", "bad prefix! has invalid format (only the underscore, hyphen, dot and "
         "alphanumeric characters are allowed)"),
        ("max.batch.size", "0", "A positive, non-zero integer value is expected"),
        ("status.update.interval.ms", "0", "A positive, non-zero integer value is expected"),
        ("snapshot.fetch.size", "-1", "An non-negative integer is expected"),
        ("xmin.fetch.interval.ms", "-5", "A non-negative long value is expected"),
        ("max.queue.size.in.bytes", "-1", "A non-negative long value is expected"),
        ("retriable.restart.connector.wait.ms", "0", "A positive, non-zero long value is expected"),
        ("slot.max.retries", "many", "An integer is expected"),
        ("snapshot.lock.timeout.ms", "x", "A long value is expected"),
        ("slot.drop.on.stop", "maybe", "Either 'true' or 'false' is expected"),
        ("database.port", "70000", "A port number between 1 and 65535 is expected"),
        ("replica.identity.autoset.values", "", "Must not be empty"),
        ("message.key.columns", "bad", "bad has an invalid format (expecting "
         "'^\\s*([^:]+):([^:,]+(,[^:,]+)*)\\s*$')"),
    ],
)  # fmt: skip
def test_single_value_rules(key: str, value: str, message: str) -> None:
    assert only_error(BASE | {key: value}, key)[0] == f"The '{key}' value is invalid: {message}"


def test_type_error_also_reports_the_range_rule_like_debezium() -> None:
    assert only_error(BASE | {"heartbeat.interval.ms": "abc"}, "heartbeat.interval.ms") == [
        "The 'heartbeat.interval.ms' value is invalid: An integer is expected",
        "The 'heartbeat.interval.ms' value is invalid: An non-negative integer is expected",
    ]


@pytest.mark.parametrize(
    ("include", "exclude", "quoted"),
    [
        ("schema.include.list", "schema.exclude.list", "schema.include.list"),
        ("table.include.list", "table.exclude.list", "table.include.list"),
        ("column.include.list", "column.exclude.list", "column.include.list"),
        ("message.prefix.include.list", "message.prefix.exclude.list", "logical_decoding_message.prefix.include.list"),
    ],
)
def test_include_and_exclude_are_exclusive(include: str, exclude: str, quoted: str) -> None:
    assert only_error(BASE | {include: "a", exclude: "b"}, exclude) == [
        f"The '{exclude}' value is invalid: \"{quoted}\" is already specified"
    ]
    assert errors(BASE | {include: "a"}) == {} and errors(BASE | {exclude: "b"}) == {}


@pytest.mark.parametrize("key", ["table.include.list", "schema.exclude.list", "column.include.list"])
def test_invalid_regex(key: str) -> None:
    (message,) = only_error(BASE | {key: "public.ok,public.(a"}, key)
    assert message.startswith(
        f"The '{key}' value is invalid: A comma-separated list of valid regular expressions is expected, but "
    )


def test_regex_lists_split_on_every_unescaped_comma_and_java_named_groups_compile() -> None:
    # Debezium 3.6.3's Strings.listOfRegex, run on these inputs: "a{1,3},b" fails to compile ("Unclosed counted
    # closure"), "a{1\\,3},b" gives [a{1,3}, b], "a\\,b,c" gives [a,b, c]
    assert split_regex_list("a.b, c{1\\,2}, (x|y), d\\,e") == ["a.b", "c{1,2}", "(x|y)", "d,e"]
    assert "table.include.list" in errors(BASE | {"table.include.list": "a{1,3},b"})
    assert errors(BASE | {"table.include.list": "(?<s>public)\\.t.*"}) == {}


def test_max_queue_size_must_exceed_max_batch_size() -> None:
    message = "The 'max.queue.size' value is invalid: Must be larger than the maximum batch size"
    assert only_error(BASE | {"max.batch.size": "100", "max.queue.size": "100"}, "max.queue.size") == [message]
    assert only_error(BASE | {"max.batch.size": "9000"}, "max.queue.size") == [message]
    assert errors(BASE | {"max.batch.size": "100", "max.queue.size": "101"}) == {}


def test_replica_identity_autoset_values() -> None:
    ok = "public.a:FULL, s2.t2:NOTHING,s2\\.t3:INDEX idx_name,x.*:default"
    assert errors(BASE | {"replica.identity.autoset.values": ok}) == {}
    rules, problems = parse_replica_identity_rules(ok)
    assert problems == []
    assert rules == (
        ReplicaIdentityRule("public.a", "FULL"),
        ReplicaIdentityRule("s2.t2", "NOTHING"),
        ReplicaIdentityRule("s2\\.t3", "INDEX", "idx_name"),
        ReplicaIdentityRule("x.*", "DEFAULT"),
    )
    assert rules[2].sql == 'USING INDEX "idx_name"' and rules[0].sql == "FULL"
    assert rules[3].matches("x.anything") and not rules[3].matches("y.x") and rules[0].matches("PUBLIC.A")
    found = only_error(
        BASE | {"replica.identity.autoset.values": "public.a:FULL,bad,public.c:INDEX"},
        ("replica.identity.autoset.values"),
    )
    assert [m.split(": ", 1)[1].split(" has")[0] for m in found] == ["bad", "public.c:INDEX"]
    assert "(expecting '(?i)^\\s*(?<tablepredicate>[^\\s:]+):" in found[0]


def test_snapshot_mode_deprecated_aliases_warn(caplog: pytest.LogCaptureFixture) -> None:
    for old, new in (
        ("never", SnapshotMode.NO_DATA),
        ("exported", SnapshotMode.INITIAL),
        ("NEVER", SnapshotMode.NO_DATA),
    ):
        cfg = PostgresConnectorConfig.from_props(BASE | {"snapshot.mode": old})
        assert cfg.snapshot_mode is new
        assert any("deprecated" in w for w in cfg.warnings)
    with caplog.at_level(logging.WARNING):
        assert errors(BASE | {"snapshot.mode": "never"}) == {}
    assert "snapshot.mode 'never' is deprecated; using 'no_data' instead" in caplog.text


def test_deprecated_property_aliases() -> None:
    props = {k: v for k, v in BASE.items() if k != "topic.prefix"} | {
        "database.server.name": "old",
        "table.whitelist": "public.a",
        "column.blacklist": "public.a.secret",
    }
    cfg = PostgresConnectorConfig.from_props(props)
    assert cfg.topic_prefix == "old" and cfg.table_include_list == ("public.a",)
    assert cfg.column_exclude_list == ("public.a.secret",)
    assert any("database.server.name" in w for w in cfg.warnings)
    both = PostgresConnectorConfig.from_props(BASE | {"database.server.name": "old"})
    assert both.topic_prefix == "tp"


@pytest.mark.parametrize(
    ("mode_key", "custom_key"),
    [
        ("snapshot.mode", "snapshot.mode.custom.name"),
        ("snapshot.locking.mode", "snapshot.locking.mode.custom.name"),
        ("snapshot.query.mode", "snapshot.query.mode.custom.name"),
    ],
)
def test_custom_modes_need_a_name(mode_key: str, custom_key: str) -> None:
    assert only_error(BASE | {mode_key: "custom"}, custom_key) == [
        f"The '{custom_key}' value is invalid: {custom_key} cannot be empty when {mode_key} 'custom' is defined"
    ]
    assert errors(BASE | {mode_key: "custom", custom_key: "mine"}) == {}


def test_configuration_based_sub_keys_are_booleans() -> None:
    key = "snapshot.mode.configuration.based.start.stream"
    props = BASE | {"snapshot.mode": "configuration_based", key: "yes"}
    assert only_error(props, key) == [f"The '{key}' value is invalid: Either 'true' or 'false' is expected"]


@pytest.mark.parametrize(
    ("key", "fragment"),
    [
        ("column.truncate.to.x.chars", "x is not a positive number of characters"),
        ("column.truncate.to.0.chars", "0 is not a positive number of characters"),
        ("column.mask.with.-1.chars", "-1 is not a positive number of characters"),
        ("column.mask.hash.NOPE-1.with.salt.s", "Unknown hash algorithm 'NOPE-1'"),
        ("column.mask.bogus", "is not a column masking key"),
    ],
)
def test_column_mask_key_syntax(key: str, fragment: str) -> None:
    (message,) = only_error(BASE | {key: "public.t.c"}, key)
    assert message.startswith(f"The '{key}' value is invalid: ") and fragment in message


def test_column_mask_of_zero_characters_is_the_empty_string() -> None:
    """Debezium 3.6.3 accepts column.mask.with.0.chars (MaskStrings with ""); checked on the real connector by the
    broad differential suite's shaping scenarios."""
    assert errors(BASE | {"column.mask.with.0.chars": "public.t.c"}) == {}


def test_column_mask_values_must_be_regexes() -> None:
    key = "column.mask.with.5.chars"
    assert errors(BASE | {key: "public.t.c", "column.mask.hash.v2.SHA-512.with.salt.a.b": "x.y.z"}) == {}
    assert "valid regular expressions" in only_error(BASE | {key: "public.(t"}, key)[0]
    assert "valid regular expressions" in only_error(BASE | {key: ""}, key)[0]


def test_signal_and_notification_keys() -> None:
    assert only_error(BASE | {"notification.enabled.channels": "log,sink"}, "notification.sink.topic.name") == [
        "The 'notification.sink.topic.name' value is invalid: Notification topic name must be provided when kafka "
        "notification channel is enabled"
    ]
    assert errors(BASE | {"notification.enabled.channels": "sink", "notification.sink.topic.name": "n"}) == {}
    assert list(errors(BASE | {"signal.enabled.channels": "source,kafka"})) == ["signal.kafka.bootstrap.servers"]
    assert errors(BASE | {"signal.enabled.channels": "kafka", "signal.kafka.bootstrap.servers": "b:9092"}) == {}
    assert list(errors(BASE | {"signal.data.collection": "just_a_table"})) == ["signal.data.collection"]
    cfg = PostgresConnectorConfig.from_props(BASE | {"signal.data.collection": "public.dbz_signal"})
    assert tuple(cfg.values["signal.data.collection"]) == ("public.dbz_signal",)
    assert tuple(cfg.values["signal.enabled.channels"]) == ("source",)


def test_database_pass_through_keys_are_not_errors() -> None:
    assert errors(BASE | {"database.autosave": "conservative", "database.connect_timeout": "5"}) == {}


# -- secrets ---------------------------------------------------------------------------------------------------


def test_the_password_is_never_shown() -> None:
    props = BASE | {"database.password": SECRET, "database.sslpassword": SECRET + "2"}
    cfg = PostgresConnectorConfig.from_props(props)
    assert isinstance(cfg.password, Password) and cfg.password.value == SECRET
    assert SECRET not in repr(cfg) and SECRET not in str(cfg)
    assert SECRET not in describe_connection(cfg)
    assert SECRET not in conninfo(cfg, include_password=False)
    values = validate_props(props | {"slot.name": "BAD", "database.port": "x"})
    assert SECRET not in repr(values) and SECRET not in str([v.errors for v in values.values()])
    with pytest.raises(ConfigError) as err:
        PostgresConnectorConfig.from_props(props | {"slot.name": "BAD", "topic.prefix": "bad prefix"})
    assert SECRET not in str(err.value) and SECRET not in repr(err.value)
    assert redact(f"oops {SECRET} leaked", [cfg.password, None]) == "oops [hidden] leaked"


# -- libpq -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["plain", "with space", "it's", "back\\slash", "", "'\\' ='", "ünï"])
def test_libpq_quote_round_trips(value: str) -> None:
    assert psycopg.conninfo.conninfo_to_dict(f"password={libpq_quote(value)}") == {"password": value}


def test_libpq_quote_refuses_nul() -> None:
    with pytest.raises(ConfigError):
        libpq_quote("a\x00b")


def test_conninfo() -> None:
    password = "p w'\\x"
    cfg = PostgresConnectorConfig.from_props(
        BASE
        | {
            "database.hostname": "db host",
            "database.password": password,
            "database.sslmode": "VERIFY-FULL",
            "database.sslrootcert": "/etc/ca dir/root.crt",
            "database.sslpassword": "k'ey",
            "database.tcpKeepAlive": "false",
            "database.query.timeout.ms": "1500",
            "database.connectTimeout": "7",
            "database.autosave": "conservative",
            "database.options": "-c search_path=s1",
        }
    )
    params = psycopg.conninfo.conninfo_to_dict(conninfo(cfg, application_name="Debezium Streaming"))
    assert params == {
        "host": "db host",
        "port": "5433",
        "dbname": "postgres",
        "user": "postgres",
        "password": password,
        "sslmode": "verify-full",
        "sslrootcert": "/etc/ca dir/root.crt",
        "sslpassword": "k'ey",
        "keepalives": "0",
        "connect_timeout": "7",
        "application_name": "Debezium Streaming",
        "options": "-c search_path=s1 -c statement_timeout=1500",
    }
    replication = psycopg.conninfo.conninfo_to_dict(conninfo(cfg, replication=True, include_password=False))
    assert replication["options"] == "-c search_path=s1" and "password" not in replication
    no_timeout = PostgresConnectorConfig.from_props(BASE | {"database.query.timeout.ms": "0"})
    assert "options" not in psycopg.conninfo.conninfo_to_dict(conninfo(no_timeout))


def test_initial_statements() -> None:
    assert split_initial_statements(None) == ()
    assert split_initial_statements("SET a = 1; SET b = ';;';  ;x;;y") == ("SET a = 1", "SET b = ';'", "x;y")
    cfg = PostgresConnectorConfig.from_props(BASE | {"database.initial.statements": "SET x=1;SELECT ';;'"})
    assert cfg.initial_statements == ("SET x=1", "SELECT ';'")
