"""What the job needs before Spark starts, each missing piece reported as one line saying what to run or pass:
the Kafka source and Delta Lake jars (found where `make up` / `devstack/spark.sh fetch` put them, unless spark-submit
or `spark.jars` supplies them), Java 17+, a writable local warehouse and checkpoint, a reachable Kafka and (Avro)
schema registry. The rules are pure functions of the environment mapping and of file names; the probes (folders,
`java -version`, TCP connects) are thin and bounded. Imports no pyspark."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from spark_sink.config import SESSION_CATALOG, SinkConfig, bootstrap_addresses, join_path

REPO = Path(__file__).resolve().parents[1]  # the checkout holding devstack/ and .devstack/ (editable installs)
JAVA_MIN = 17  # Spark 4
CONNECT_TIMEOUT_S = 3.0
# the artifacts without which the job cannot start (glob of the jar name → what it is)
# (Delta is needed with Iceberg tables too: the sink's own bookkeeping tables are Delta)
REQUIRED_JARS = {"spark-sql-kafka-0-10_*.jar": "Spark's Kafka source", "delta-spark_*.jar": "Delta Lake"}
ICEBERG_JARS = {"iceberg-spark-runtime-*.jar": "Apache Iceberg's Spark runtime"}
JARS_HINT = "run `make up` (or `devstack/spark.sh fetch`), pass --jars-dir <folder>, or use spark-submit --jars"
JAVA_HINT = "install one (e.g. apt-get install openjdk-17-jre-headless) and put its java on PATH or set JAVA_HOME"
JAVA_EXITED = (
    f"Spark's Java process exited before it started (its own message is above): Java {JAVA_MIN}+ is needed; {JAVA_HINT}"
)


class PrerequisiteError(Exception):
    """Something the job needs is missing; the message is one line saying what to run or pass."""


# -- the jars ------------------------------------------------------------------------------------------


def under_spark_submit(env: Mapping[str, str]) -> bool:
    """spark-submit (and the `pyspark` shell) start the JVM first, with its --jars and --master, and hand its gateway
    to Python in PYSPARK_GATEWAY_PORT/SECRET; pyspark's launch_gateway then starts no JVM of its own."""
    return "PYSPARK_GATEWAY_PORT" in env


def jars_given(spark_conf: Mapping[str, str], env: Mapping[str, str]) -> bool:
    """The user supplies the jars: `spark.jars`/`spark.jars.packages` in the configuration, or `--jars`/`--packages`
    in PYSPARK_SUBMIT_ARGS (which pyspark passes to the spark-submit it launches)."""
    if spark_conf.get("spark.jars") or spark_conf.get("spark.jars.packages"):
        return True
    try:
        args = shlex.split(env.get("PYSPARK_SUBMIT_ARGS", ""))
    except ValueError:
        return False
    return any(a in ("--jars", "--packages") or a.startswith(("--jars=", "--packages=")) for a in args)


def devstack_jar_dirs(env: Mapping[str, str], repo: Path = REPO, cwd: Path | None = None) -> list[Path]:
    """Where `devstack/spark.sh fetch` puts the jars: `$CW_STATE_DIR/spark/jars` when CW_STATE_DIR is set (as
    devstack/common.sh chooses its state folder), else `.devstack/spark/jars` of the checkout (and of the working
    folder, for a non-editable install run from the checkout)."""
    if env.get("CW_STATE_DIR"):
        return [Path(env["CW_STATE_DIR"]) / "spark" / "jars"]
    dirs = [repo / ".devstack" / "spark" / "jars"]
    if cwd is not None and (cwd / ".devstack" / "spark" / "jars") != dirs[0]:
        dirs.append(cwd / ".devstack" / "spark" / "jars")
    return dirs


def missing_jars(names: Iterable[str], table_format: str = "delta") -> list[str]:
    """What of REQUIRED_JARS (and ICEBERG_JARS for Iceberg tables) the jar file names lack (as 'Spark's Kafka source
    (spark-sql-kafka-0-10_*.jar)')."""
    names = [Path(n).name for n in names]
    required = {**REQUIRED_JARS, **(ICEBERG_JARS if table_format == "iceberg" else {})}
    return [f"{what} ({p})" for p, what in required.items() if not any(Path(n).match(p) for n in names)]


@dataclass(frozen=True)
class Jars:
    """The jars the session gets in `spark.jars`, and where they came from (for the log)."""

    paths: tuple[str, ...]
    origin: str


def jars_in(folder: Path) -> list[str]:
    return sorted(str(p.resolve()) for p in folder.glob("*.jar"))


def session_jars(config: SinkConfig, env: Mapping[str, str], dirs: Sequence[Path] | None = None) -> Jars | None:
    """The jars to put in `spark.jars`, or None when spark-submit or the configuration supplies them.
    `--jars-dir` is used as given (its jars added to a `spark.jars` of the configuration); otherwise the devstack
    folders (`dirs`, default devstack_jar_dirs) are searched for a complete fetch. PrerequisiteError when none fits."""
    given = [j for j in config.spark_conf.get("spark.jars", "").split(",") if j.strip()]
    if config.jars_dir:
        folder = Path(config.jars_dir)
        jars = jars_in(folder)
        if not jars:
            raise PrerequisiteError(f"no jars in {folder} (--jars-dir / spark.jars_dir): {JARS_HINT}")
        packages = config.spark_conf.get("spark.jars.packages")
        missing = [] if packages else missing_jars([*jars, *given], config.table_format)
        if missing:
            raise PrerequisiteError(f"{folder} (--jars-dir) has no {' nor '.join(missing)}: {JARS_HINT}")
        return Jars((*jars, *given), f"{folder.resolve()} (--jars-dir)")
    if under_spark_submit(env) or jars_given(config.spark_conf, env):
        return None
    searched = list(dirs) if dirs is not None else devstack_jar_dirs(env, cwd=Path.cwd())
    for folder in searched:
        if (folder / ".complete").is_file():
            jars = jars_in(folder)
            if jars and not missing_jars(jars, config.table_format):
                return Jars(tuple(jars), f"{folder.resolve()} (found: fetched by devstack/spark.sh)")
    looked = ", ".join(str(d) for d in searched)
    what = "Delta Lake and Iceberg" if config.table_format == "iceberg" else "Delta Lake"
    raise PrerequisiteError(f"the Kafka source and {what} jars were not found (looked in {looked}): {JARS_HINT}")


# -- the catalog of named tables ---------------------------------------------------------------------------

CATALOG_IMPLEMENTATION = "spark.sql.catalogImplementation"
DRIVER_OPTIONS = "spark.driver.extraJavaOptions"
# settings by which a user chooses a metastore of their own (the job then adds none)
METASTORE_KEYS = (
    CATALOG_IMPLEMENTATION,
    "spark.hadoop.javax.jdo.option.ConnectionURL",
    "spark.hadoop.hive.metastore.uris",
    "spark.sql.warehouse.dir",
)
METASTORE_HINT = (
    "pass --conf spark.sql.catalogImplementation=hive with a metastore (hive-site.xml, "
    "spark.hadoop.hive.metastore.uris or spark.hadoop.javax.jdo.option.ConnectionURL), or "
    "--conf spark.sql.catalogImplementation=in-memory to keep the names for this run only"
)


def metastore_conf(config: SinkConfig, env: Mapping[str, str]) -> dict[str, str]:
    """The session settings that keep named tables across job runs when the user configured no metastore: Spark's
    session catalog on pyspark's bundled Hive support with an embedded Derby metastore in `<warehouse>/_catalog`
    (`metastore_db`, `derby.log`, the databases' folders). Nothing when `database` is unset, for another catalog,
    when a METASTORE_KEYS setting is given, under spark-submit (whose JVM and defaults the job does not see: the
    session's catalog is checked after it starts, catalog_problem) or for a warehouse that is no local folder
    (Derby needs one)."""
    if not config.database or config.catalog_name != SESSION_CATALOG or under_spark_submit(env):
        return {}
    if any(k in config.spark_conf for k in METASTORE_KEYS):
        return {}
    folder = local_path(join_path(config.warehouse, "_catalog"))
    if folder is None:
        return {}
    folder = folder.absolute()
    java_options = " ".join(filter(None, [f"-Dderby.system.home={folder}", config.spark_conf.get(DRIVER_OPTIONS)]))
    return {
        CATALOG_IMPLEMENTATION: "hive",
        "spark.hadoop.javax.jdo.option.ConnectionURL": f"jdbc:derby:;databaseName={folder}/metastore_db;create=true",
        "spark.sql.warehouse.dir": str(folder),
        DRIVER_OPTIONS: java_options,
    }


def catalog_problem(config: SinkConfig, implementation: str, catalog_class: str | None) -> str | None:
    """Why the session cannot keep the named tables (`database`), or None: `implementation` is the session's
    spark.sql.catalogImplementation, `catalog_class` its spark.sql.catalog.<catalog> setting."""
    if not config.database or config.table_format == "iceberg":  # Iceberg: the job defines its catalog if unset
        return None
    catalog = config.catalog_name
    if catalog != SESSION_CATALOG:
        if catalog_class:
            return None
        return f"catalog {catalog!r} (--catalog) is not configured: set spark.sql.catalog.{catalog} to its class"
    if implementation == "hive" or config.spark_conf.get(CATALOG_IMPLEMENTATION) == "in-memory":
        return None
    return (
        f"named tables (--database {config.database}) need a metastore that outlives the job, and this session's "
        f"catalog is in memory (the names would vanish when the job stops): {METASTORE_HINT}"
    )


# -- Java ----------------------------------------------------------------------------------------------

_JAVA_VERSION = re.compile(r'version "(\d+)(?:\.(\d+))?')


def java_major(version_output: str) -> int | None:
    """The major version in `java -version`'s output ('version "17.0.15"' → 17, 'version "1.8.0_392"' → 8)."""
    m = _JAVA_VERSION.search(version_output)
    if m is None:
        return None
    major = int(m.group(1))
    return int(m.group(2) or 0) if major == 1 else major


def java_executable(env: Mapping[str, str]) -> tuple[str | None, str]:
    """The java Spark's launcher (bin/spark-class) runs: $JAVA_HOME/bin/java when JAVA_HOME is set, else java on
    PATH; with the reason when there is none."""
    home = env.get("JAVA_HOME")
    if home:
        java = Path(home) / "bin" / "java"
        if os.access(java, os.X_OK):
            return str(java), ""
        return None, f"JAVA_HOME={home} has no bin/java"
    found = shutil.which("java", path=env.get("PATH", os.defpath))
    return found, "" if found else "no JAVA_HOME and no java on PATH"


def check_java(env: Mapping[str, str]) -> None:
    java, why = java_executable(env)
    if java is None:
        raise PrerequisiteError(f"Java {JAVA_MIN}+ is needed to run Spark ({why}): {JAVA_HINT}")
    try:
        done = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30, env=dict(env))
    except (OSError, subprocess.TimeoutExpired) as e:
        raise PrerequisiteError(f"{java} -version did not run ({e}): Java {JAVA_MIN}+ is needed; {JAVA_HINT}") from e
    major = java_major(done.stderr + done.stdout)
    if major is not None and major < JAVA_MIN:
        raise PrerequisiteError(f"Java {JAVA_MIN}+ is needed to run Spark, {java} is Java {major}: {JAVA_HINT}")


# -- folders and services ------------------------------------------------------------------------------


def local_path(location: str) -> Path | None:
    """The local folder of a path or file: URI; None for other file systems (s3a://, abfss://, hdfs://, …)."""
    parts = urlsplit(location)
    if parts.scheme == "file":
        return Path(parts.path)
    if parts.scheme and len(parts.scheme) > 1:  # (a one-letter scheme is a Windows drive)
        return None
    return Path(location)


def check_writable(location: str, what: str, flag: str) -> None:
    """Create the local folder if needed and write (then remove) a hidden file in it."""
    folder = local_path(location)
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".spark_sink_probe_", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise PrerequisiteError(
            f"the {what} folder {folder} cannot be created or written ({e.strerror or e}): pass a writable {flag}"
        ) from e


def connect_problem(host: str, port: int, timeout_s: float = CONNECT_TIMEOUT_S) -> str | None:
    """None when a TCP connection to host:port opens within the timeout, else why not."""
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return None
    except TimeoutError:
        return f"no answer within {timeout_s:g} s"
    except OSError as e:
        return e.strerror or str(e)


def check_kafka(servers: str, timeout_s: float = CONNECT_TIMEOUT_S) -> list[str]:
    """PrerequisiteError when no bootstrap server accepts a TCP connection; the unreachable ones of a partly
    reachable list are returned (for a warning: Kafka clients need one)."""
    try:
        addresses = bootstrap_addresses(servers)
    except ValueError as e:
        raise PrerequisiteError(f"Kafka bootstrap servers {servers!r}: {e}: pass --bootstrap-servers host:port") from e
    failed = [f"{host}:{port} ({why})" for host, port in addresses if (why := connect_problem(host, port, timeout_s))]
    if addresses and len(failed) == len(addresses):
        raise PrerequisiteError(
            f"Kafka is not reachable at {', '.join(failed)}: start it (`make up`) or pass --bootstrap-servers host:port"
        )
    return failed


def registry_addresses(urls: str) -> list[tuple[str, str, int]]:
    """(url, host, port) of each comma-separated http(s) URL (port 80/443 when the URL has none)."""
    out = []
    for url in (u.strip() for u in urls.split(",")):
        parts = urlsplit(url)
        if url and parts.hostname:
            out.append((url, parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)))
    return out


def check_registry(urls: str, timeout_s: float = CONNECT_TIMEOUT_S) -> None:
    """PrerequisiteError when no registry URL accepts a TCP connection (`urls` already redacted)."""
    addresses = registry_addresses(urls)
    failed = [f"{url} ({why})" for url, host, port in addresses if (why := connect_problem(host, port, timeout_s))]
    if addresses and len(failed) == len(addresses):
        raise PrerequisiteError(
            f"the schema registry is not reachable at {', '.join(failed)}: start it (`make up`) or pass "
            "--schema-registry-url"
        )


def missing_topics(wanted: Iterable[str], existing: Iterable[str]) -> list[str]:
    have = set(existing)
    return [t for t in wanted if t not in have]


def kafka_topics(servers: str, options: Mapping[str, str], timeout_s: float = 10.0) -> set[str] | None:
    """The broker's topic names (the Kafka source's `kafka.*` options apply), None when they cannot be listed."""
    try:
        from confluent_kafka.admin import AdminClient
    except ImportError:
        return None
    settings = {k[len("kafka.") :]: v for k, v in options.items() if k.startswith("kafka.")}
    try:
        metadata = AdminClient({"bootstrap.servers": servers, **settings}).list_topics(timeout=timeout_s)
    except Exception:  # noqa: BLE001 - any failure to list: Spark reports it itself
        return None
    return set(metadata.topics)


def check_topics(topics: Sequence[str], servers: str, options: Mapping[str, str]) -> None:
    """PrerequisiteError when a `--topics` topic does not exist: Spark's Kafka source creates none and fails with
    UnknownTopicOrPartitionException (a pattern waits for matching topics instead)."""
    existing = kafka_topics(servers, options) if topics else None
    missing = missing_topics(topics, existing) if existing is not None else []
    if missing:
        raise PrerequisiteError(
            f"topic(s) {', '.join(missing)} do not exist at {servers}: start the connector that writes them first "
            "(Spark's Kafka source creates no topic), or subscribe with --topic-pattern"
        )


def check_services(config: SinkConfig) -> list[str]:
    """Before the query starts: a writable local warehouse and checkpoint, a reachable Kafka and (Avro) registry.
    Returns warnings (bootstrap servers that did not answer while another did)."""
    check_writable(config.warehouse, "warehouse", "--warehouse")
    check_writable(config.checkpoint, "checkpoint", "--checkpoint")
    warnings = [
        f"Kafka bootstrap server {s} is not reachable (another one is)"
        for s in check_kafka(config.kafka_options.get("kafka.bootstrap.servers") or config.bootstrap_servers)
    ]
    if config.format == "avro" and config.schema_registry_url:
        check_registry(config.redacted().schema_registry_url or "")
    return warnings
