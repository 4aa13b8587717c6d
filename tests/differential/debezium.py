"""Run the REAL Apache Kafka Connect 4.3.1 + Debezium 3.6.3.Final PostgresConnector for differential tests.

The Java worker is started by devstack/debezium.sh (distributed mode, loopback only, jars from Maven Central);
this module gives it unique names per test session, talks to its REST API, collects what it writes to Kafka with
confluent_kafka, and masks the fields that legitimately differ between two runs (timestamps, LSNs, transaction
ids, the run id header) so that the rest can be compared with the Python worker's output.

    with ConnectDebezium(kafka_bootstrap="127.0.0.1:9092", name="dbzab12cd34ef56") as connect:
        connect.create_connector("c1", postgres_connector_config(...))
        connect.wait_running("c1")
        records = collect_records("127.0.0.1:9092", {"c1.public.customers": 3})
        masked = [mask_record(r) for r in records]

Nothing here imports the project's own code: the harness must stay independent of what it checks.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, TopicPartition
from confluent_kafka.admin import AdminClient

from connect_worker.kafka.reader import watermarks
from tests import names

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "devstack" / "debezium.sh"
STATE_DIR = Path(os.environ.get("CW_STATE_DIR", str(ROOT / ".devstack"))) / "debezium"

POSTGRES_CONNECTOR = "io.debezium.connector.postgresql.PostgresConnector"
JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"
MASK = "<masked>"


def unique_token(prefix: str = "dbz") -> str:
    """A name usable as database, slot, publication, topic prefix and connector name ([a-z0-9], letter first)."""
    return names.unique(prefix, 12)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


# --------------------------------------------------------------------------------------------------------------------
# Floats are kept as their literal text, so that masking and re-serialising never changes `1.0E10` into `1e10`.


class RawNumber(str):
    """A JSON number literal kept as written (Java's `Double.toString` form); dumped back unchanged."""

    __slots__ = ()


def loads(text: str | bytes) -> Any:
    """json.loads that keeps object key order (dicts do) and float literals (RawNumber)."""
    return json.loads(text, parse_float=RawNumber)


def dumps(value: Any) -> str:
    """Compact JSON (`,` `:`) in the given key order; RawNumber literals written verbatim; non-ASCII kept raw."""
    if isinstance(value, RawNumber):
        return str(value)
    if isinstance(value, dict):
        return "{" + ",".join(dumps(str(k)) + ":" + dumps(v) for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(dumps(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


# --------------------------------------------------------------------------------------------------------------------
# REST


@dataclass(frozen=True)
class RestAnswer:
    method: str
    path: str
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return loads(self.body) if self.body else None

    @property
    def content_type(self) -> str | None:
        return self.headers.get("content-type")


def http(method: str, url: str, body: Any = None, *, timeout: float = 30.0) -> RestAnswer:
    """One HTTP request with a JSON body (if any); answers of every status are returned, never raised."""
    data = None if body is None else json.dumps(body).encode("utf-8")
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("Accept", "application/json")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    path = url.split("/", 3)[3] if url.count("/") >= 3 else ""
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return RestAnswer(
                method, "/" + path, resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read()
            )
    except urllib.error.HTTPError as err:
        return RestAnswer(method, "/" + path, err.code, {k.lower(): v for k, v in err.headers.items()}, err.read())


# --------------------------------------------------------------------------------------------------------------------
# The Java worker


@dataclass
class ConnectDebezium:
    """One real Kafka Connect (distributed; `standalone`: ConnectStandalone, offsets in a file of its run folder) +
    Debezium worker process with its own group and internal topics."""

    kafka_bootstrap: str
    name: str = field(default_factory=unique_token)
    rest_port: int = 0
    flush_ms: int = 1000
    run_dir: Path | None = None
    start_timeout: float = 180.0
    pg_port: int = 5433
    standalone: bool = False
    _started: bool = field(default=False, init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.rest_port:
            self.rest_port = free_port()
        if self.run_dir is None:
            self.run_dir = STATE_DIR / "runs" / self.name

    # names ----------------------------------------------------------------------------------------------------------
    @property
    def group_id(self) -> str:
        return self.name + "-connect"

    @property
    def config_topic(self) -> str:
        return self.name + "-configs"

    @property
    def offset_topic(self) -> str:
        return self.name + "-offsets"

    @property
    def status_topic(self) -> str:
        return self.name + "-status"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.rest_port}"

    @property
    def worker_id(self) -> str:
        return f"127.0.0.1:{self.rest_port}"

    @property
    def log_file(self) -> Path:
        assert self.run_dir is not None
        return self.run_dir / "connect.log"

    @property
    def pid_file(self) -> Path:
        assert self.run_dir is not None
        return self.run_dir / "connect.pid"

    def pid(self) -> int | None:
        return _read_pid(self.pid_file)

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            CW_DBZ_RUN_DIR=str(self.run_dir),
            CW_DBZ_MODE="standalone" if self.standalone else "distributed",
            CW_DBZ_REST_PORT=str(self.rest_port),
            CW_DBZ_GROUP_ID=self.group_id,
            CW_DBZ_CONFIG_TOPIC=self.config_topic,
            CW_DBZ_OFFSET_TOPIC=self.offset_topic,
            CW_DBZ_STATUS_TOPIC=self.status_topic,
            CW_DBZ_FLUSH_MS=str(self.flush_ms),
            CW_DBZ_START_TIMEOUT=str(int(self.start_timeout)),
            CW_KAFKA_PORT=self.kafka_bootstrap.rsplit(":", 1)[1],
        )
        return env

    # life cycle -----------------------------------------------------------------------------------------------------
    @staticmethod
    def fetch(timeout: float = 900.0) -> None:
        """Download the jars once (devstack/debezium.sh fetch; a no-op when the marker file is there)."""
        subprocess.run([str(SCRIPT), "fetch"], check=True, timeout=timeout)

    def start(self) -> None:
        """Start the worker and wait until GET / and GET /health answer 200. Always stoppable afterwards."""
        self.fetch()
        reap_orphans(kafka_bootstrap=self.kafka_bootstrap, pg_port=self.pg_port)
        assert self.run_dir is not None
        self.run_dir.mkdir(parents=True, exist_ok=True)
        (self.run_dir / "owner.pid").write_text(str(os.getpid()))
        self._started = True
        atexit.register(self.stop)
        try:
            subprocess.run([str(SCRIPT), "start"], env=self._env(), check=True, timeout=self.start_timeout + 30)
        except BaseException:
            self.stop()
            raise

    def stop(self, timeout: float = 45.0) -> None:
        """Stop this worker (only its own PID): devstack/debezium.sh stop, then SIGKILL if it is still there."""
        if not self._started:
            return
        with contextlib.suppress(subprocess.SubprocessError, OSError):
            subprocess.run([str(SCRIPT), "stop"], env=self._env(), check=False, timeout=timeout)
        pid = self.pid()
        if pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                self.pid_file.unlink()
        self._started = False
        with contextlib.suppress(Exception):
            atexit.unregister(self.stop)

    def note_token(self, token: str) -> None:
        """Record a name (database = slot = topic prefix) this session uses, so that reap_orphans can drop the
        slot, database and topics should this process die before its own cleanup."""
        assert self.run_dir is not None
        with (self.run_dir / "tokens").open("a") as f:
            f.write(token + "\n")

    def delete_internal_topics(self) -> None:
        delete_topics(self.kafka_bootstrap, [self.config_topic, self.offset_topic, self.status_topic])

    def __enter__(self) -> ConnectDebezium:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # REST -----------------------------------------------------------------------------------------------------------
    def request(self, method: str, path: str, body: Any = None, *, timeout: float = 30.0) -> RestAnswer:
        return http(method, self.url + path, body, timeout=timeout)

    def get(self, path: str) -> RestAnswer:
        return self.request("GET", path)

    def create_connector(self, name: str, config: Mapping[str, str], *, timeout: float = 60.0) -> RestAnswer:
        """POST /connectors; retries the 409 answers a rebalance gives; fails on anything but 201."""
        deadline = time.monotonic() + timeout
        while True:
            answer = self.request("POST", "/connectors", {"name": name, "config": dict(config)}, timeout=timeout)
            if answer.status == 409 and b"already exists" not in answer.body and time.monotonic() < deadline:
                time.sleep(0.5)
                continue
            if answer.status != 201:
                raise AssertionError(f"POST /connectors {name}: {answer.status} {answer.body.decode(errors='replace')}")
            return answer

    def wait_running(self, name: str, *, tasks: int = 1, timeout: float = 120.0) -> dict[str, Any]:
        """Wait until the connector and `tasks` tasks are RUNNING; raise with the log tail on FAILED or timeout."""
        deadline = time.monotonic() + timeout
        status: Any = None
        while time.monotonic() < deadline:
            answer = self.get(f"/connectors/{name}/status")
            if answer.status == 200:
                status = answer.json()
                states = [status["connector"]["state"]] + [t["state"] for t in status["tasks"]]
                if "FAILED" in states:
                    raise AssertionError(f"connector {name} failed: {dumps(status)}\n{self.log_tail()}")
                if len(status["tasks"]) == tasks and all(s == "RUNNING" for s in states):
                    result: dict[str, Any] = status
                    return result
            time.sleep(0.25)
        raise TimeoutError(f"connector {name} not RUNNING after {timeout} s: {status}\n{self.log_tail()}")

    def delete_connector(self, name: str, *, timeout: float = 60.0) -> None:
        """DELETE the connector and wait until the worker no longer knows it (its task has been stopped)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            answer = self.request("DELETE", f"/connectors/{name}")
            if answer.status in (204, 404):
                break
            time.sleep(0.5)
        while time.monotonic() < deadline:
            if self.get(f"/connectors/{name}").status == 404 and self.get(f"/connectors/{name}/status").status == 404:
                return
            time.sleep(0.25)
        raise TimeoutError(f"connector {name} still present {timeout} s after DELETE")

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_file.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def reap_orphans(*, kafka_bootstrap: str | None = None, pg_port: int | None = None, max_age_s: float = 86400.0) -> None:
    """Clean up after test sessions that were killed before their teardown (their Python process is gone):
    stop their Connect worker, drop the PostgreSQL slots and databases and delete the topics they recorded
    (ConnectDebezium.note_token), and remove their run folders after a day. Live sessions are never touched; a
    PID is only killed when its command line is ConnectDistributed or ConnectStandalone with that run folder's
    worker.properties."""
    runs = STATE_DIR / "runs"
    if not runs.is_dir():
        return
    for run_dir in runs.iterdir():
        owner = _read_pid(run_dir / "owner.pid")
        if owner is None or _alive(owner):
            continue
        pid = _read_pid(run_dir / "connect.pid")
        if pid is not None and _alive(pid):
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                cmdline = []
            if str(run_dir / "worker.properties").encode() in cmdline and any(
                main in part for part in cmdline for main in (b"ConnectDistributed", b"ConnectStandalone")
            ):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
                    time.sleep(1.0)
        tokens_file = run_dir / "tokens"
        if tokens_file.exists() and pg_port is not None and kafka_bootstrap is not None:
            tokens = [t for t in tokens_file.read_text().split() if t]
            try:
                for token in tokens:
                    drop_database(token, port=pg_port)
                name = run_dir.name
                topics = [f"{name}-configs", f"{name}-offsets", f"{name}-status"]
                topics += [t for tok in tokens for t in (f"{tok}.transaction", f"{tok}.public.customers")]
                delete_topics(kafka_bootstrap, topics)
                tokens_file.unlink()
            except Exception:  # noqa: BLE001 - best effort; retried by the next session
                continue
        with contextlib.suppress(OSError):
            if time.time() - run_dir.stat().st_mtime > max_age_s:
                shutil.rmtree(run_dir, ignore_errors=True)


def postgres_connector_config(
    *,
    prefix: str,
    dbname: str,
    slot: str,
    publication: str,
    tables: Sequence[str],
    pg_host: str = "127.0.0.1",
    pg_port: int = 5433,
    **extra: str,
) -> dict[str, str]:
    """A Debezium PostgresConnector config (pgoutput, own slot and filtered publication, JsonConverter with schemas)."""
    config = {
        "connector.class": POSTGRES_CONNECTOR,
        "tasks.max": "1",
        "database.hostname": pg_host,
        "database.port": str(pg_port),
        "database.user": "postgres",
        "database.password": "postgres",
        "database.dbname": dbname,
        "topic.prefix": prefix,
        "plugin.name": "pgoutput",
        "slot.name": slot,
        "publication.name": publication,
        "publication.autocreate.mode": "filtered",
        "table.include.list": ",".join(tables),
        "key.converter": JSON_CONVERTER,
        "key.converter.schemas.enable": "true",
        "value.converter": JSON_CONVERTER,
        "value.converter.schemas.enable": "true",
    }
    config.update(extra)
    return config


# --------------------------------------------------------------------------------------------------------------------
# Kafka


@dataclass(frozen=True)
class CapturedRecord:
    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...]
    timestamp: int

    def key_json(self) -> Any:
        return None if self.key is None else loads(self.key)

    def value_json(self) -> Any:
        return None if self.value is None else loads(self.value)

    def header(self, name: str) -> bytes | None:
        for k, v in self.headers:
            if k == name:
                return v
        raise KeyError(name)


def _consumer(bootstrap: str) -> Any:
    return Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": unique_token("dbzcollect"),
            "enable.auto.commit": False,
            "enable.partition.eof": False,
            "auto.offset.reset": "earliest",
            "allow.auto.create.topics": False,
        }
    )


def _partitions(consumer: Any, topic: str, deadline: float) -> list[int]:
    """The partitions of `topic`, waiting (until deadline) for the topic to be created."""
    while True:
        md = consumer.list_topics(topic=topic, timeout=5)
        t = md.topics.get(topic)
        if t is not None and t.error is None and t.partitions:
            return sorted(t.partitions)
        if time.monotonic() >= deadline:
            raise TimeoutError(f"topic {topic} does not exist")
        time.sleep(0.25)


def _record(msg: Any) -> CapturedRecord:
    return CapturedRecord(
        topic=msg.topic(),
        partition=msg.partition(),
        offset=msg.offset(),
        key=msg.key(),
        value=msg.value(),
        headers=tuple((k, v) for k, v in (msg.headers() or [])),
        timestamp=msg.timestamp()[1],
    )


def collect_records(
    bootstrap: str, expected: Mapping[str, int], *, timeout: float = 60.0, settle: float = 1.0
) -> list[CapturedRecord]:
    """Read `expected` = {topic: count} from the beginning; wait until each topic has at least its count, then
    `settle` seconds more for unexpected extras. Sorted by (topic, partition, offset). TimeoutError when short."""
    deadline = time.monotonic() + timeout
    consumer = _consumer(bootstrap)
    try:
        assignment = [
            TopicPartition(topic, p, OFFSET_BEGINNING)
            for topic in expected
            for p in _partitions(consumer, topic, deadline)
        ]
        consumer.assign(assignment)
        got: list[CapturedRecord] = []
        counts = dict.fromkeys(expected, 0)
        settle_until: float | None = None
        while True:
            now = time.monotonic()
            if settle_until is None and all(counts[t] >= n for t, n in expected.items()):
                settle_until = now + settle
            if settle_until is not None and now >= settle_until:
                break
            if now >= deadline:
                raise TimeoutError(f"collected {counts}, expected {dict(expected)} within {timeout} s")
            msg = consumer.poll(0.2)
            if msg is None:
                continue
            if msg.error():
                if msg.error().code() == KafkaError._PARTITION_EOF:
                    continue
                raise RuntimeError(f"consumer error: {msg.error()}")
            rec = _record(msg)
            got.append(rec)
            counts[rec.topic] += 1
        return sorted(got, key=lambda r: (r.topic, r.partition, r.offset))
    finally:
        consumer.close()


def read_topic(bootstrap: str, topic: str, *, timeout: float = 30.0) -> list[CapturedRecord]:
    """Everything in `topic` up to the high watermarks seen at the start (Connect's "read to end")."""
    deadline = time.monotonic() + timeout
    consumer = _consumer(bootstrap)
    try:
        ends: dict[int, int] = {}
        for p in _partitions(consumer, topic, deadline):
            low, high = watermarks(consumer, TopicPartition(topic, p), 10)
            if high > low:
                ends[p] = high
        consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in ends])
        got: list[CapturedRecord] = []
        while ends:
            if time.monotonic() >= deadline:
                raise TimeoutError(f"could not read {topic} to its end within {timeout} s")
            msg = consumer.poll(0.2)
            if msg is None or msg.error():
                continue
            got.append(_record(msg))
            if msg.offset() + 1 >= ends.get(msg.partition(), 0):
                ends.pop(msg.partition(), None)
        return sorted(got, key=lambda r: (r.partition, r.offset))
    finally:
        consumer.close()


def delete_topics(bootstrap: str, topics: Iterable[str], *, timeout: float = 30.0) -> None:
    """Delete the given topics if they exist (the harness's own ones only); errors are ignored."""
    names = list(topics)
    if not names:
        return
    admin = AdminClient({"bootstrap.servers": bootstrap})
    existing = set(admin.list_topics(timeout=10).topics)
    wanted = [t for t in names if t in existing]
    if not wanted:
        return
    for fut in admin.delete_topics(wanted, operation_timeout=timeout).values():
        with contextlib.suppress(Exception):
            fut.result(timeout)


def murmur2(data: bytes) -> int:
    """Kafka's Utils.murmur2 (spec §2), to check partition placement independently of the project's code."""
    m, r = 0x5BD1E995, 24
    h = (0x9747B28C ^ len(data)) & 0xFFFFFFFF
    n4 = len(data) // 4
    for i in range(n4):
        k = int.from_bytes(data[4 * i : 4 * i + 4], "little")
        k = (k * m) & 0xFFFFFFFF
        k ^= k >> r
        k = (k * m) & 0xFFFFFFFF
        h = (h * m) & 0xFFFFFFFF
        h ^= k
    rest = data[4 * n4 :]
    if len(rest) == 3:
        h ^= rest[2] << 16
    if len(rest) >= 2:
        h ^= rest[1] << 8
    if len(rest) >= 1:
        h ^= rest[0]
        h = (h * m) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * m) & 0xFFFFFFFF
    h ^= h >> 15
    return h


def java_partition(key: bytes, partitions: int) -> int:
    return (murmur2(key) & 0x7FFFFFFF) % partitions


# --------------------------------------------------------------------------------------------------------------------
# PostgreSQL


def pg_dsn(dbname: str, *, host: str = "127.0.0.1", port: int = 5433) -> str:
    return f"host={host} port={port} user=postgres dbname={dbname}"


def drop_replication_slot(dsn: str, slot: str, *, timeout: float = 30.0) -> None:
    """Drop `slot` once no walsender uses it (delete the connector first); terminate a straggler after `timeout`."""
    deadline = time.monotonic() + timeout
    with psycopg.connect(dsn, autocommit=True) as conn:
        while True:
            row = conn.execute(
                "SELECT active, active_pid FROM pg_replication_slots WHERE slot_name = %s", (slot,)
            ).fetchone()
            if row is None:
                return
            active, active_pid = row
            if not active:
                try:
                    conn.execute("SELECT pg_drop_replication_slot(%s)", (slot,))
                    return
                except psycopg.errors.ObjectInUse:
                    pass
            elif time.monotonic() >= deadline and active_pid is not None:
                conn.execute("SELECT pg_terminate_backend(%s)", (active_pid,))
            time.sleep(0.25)


def drop_database(dbname: str, *, host: str = "127.0.0.1", port: int = 5433) -> None:
    """Drop the replication slots on `dbname` (once inactive) and the database itself (WITH FORCE), if present."""
    admin = pg_dsn("postgres", host=host, port=port)
    with psycopg.connect(admin, autocommit=True) as conn:
        slots = conn.execute("SELECT slot_name FROM pg_replication_slots WHERE database = %s", (dbname,)).fetchall()
        for (slot,) in slots:
            drop_replication_slot(admin, slot)
        conn.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')


@contextlib.contextmanager
def scratch_database(dbname: str, *, host: str = "127.0.0.1", port: int = 5433) -> Iterator[str]:
    """CREATE DATABASE `dbname` (dropped first if left over) and drop it and its slots afterwards; yields its DSN."""
    drop_database(dbname, host=host, port=port)
    with psycopg.connect(pg_dsn("postgres", host=host, port=port), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{dbname}"')
    try:
        yield pg_dsn(dbname, host=host, port=port)
    finally:
        drop_database(dbname, host=host, port=port)


# --------------------------------------------------------------------------------------------------------------------
# Masking and comparison (spec §8.2 item 2)

ENVELOPE_VOLATILE = ("ts_ms", "ts_us", "ts_ns")
SOURCE_VOLATILE = ("ts_ms", "ts_us", "ts_ns", "txId", "lsn", "sequence", "xmin")
TRANSACTION_BLOCK_VOLATILE = ("id",)
TX_METADATA_VOLATILE = ("id", "ts_ms")
HEARTBEAT_VOLATILE = ("ts_ms",)
NOTIFICATION_VOLATILE = ("timestamp",)
NOTIFICATION_KEY = "io.debezium.connector.common.NotificationKey"
_RANDOM_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
OFFSET_VOLATILE = ("lsn", "lsn_proc", "lsn_commit", "txId", "ts_usec", "xmin", "transaction_id")
HEADER_VOLATILE = ("__debezium.context.runId",)
TX_METADATA_KEY = "io.debezium.connector.common.TransactionMetadataKey"
TX_METADATA_VALUE = "io.debezium.connector.common.TransactionMetadataValue"
HEARTBEAT_VALUE = "io.debezium.connector.common.Heartbeat"
NOTIFICATION_VALUE = "io.debezium.connector.common.Notification"


def _mask_fields(obj: Any, names: Iterable[str]) -> None:
    if isinstance(obj, dict):
        for n in names:
            if n in obj and obj[n] is not None:
                obj[n] = MASK


def mask_payload(payload: Any, schema_name: str | None = None) -> Any:
    """Mask the volatile fields of one Debezium payload in place (and return it); others are left as they are."""
    if not isinstance(payload, dict):
        return payload
    if schema_name in (TX_METADATA_VALUE, TX_METADATA_KEY):
        _mask_fields(payload, TX_METADATA_VOLATILE)
    elif schema_name == HEARTBEAT_VALUE:
        _mask_fields(payload, HEARTBEAT_VOLATILE)
    elif schema_name == NOTIFICATION_KEY:
        if _RANDOM_ID.fullmatch(str(payload.get("id"))):
            _mask_fields(payload, ("id",))
    elif schema_name == NOTIFICATION_VALUE:
        _mask_fields(payload, NOTIFICATION_VOLATILE)
        if _RANDOM_ID.fullmatch(str(payload.get("id"))):
            _mask_fields(payload, ("id",))  # a new random id (an initial snapshot's, or no signal id)
        data = payload.get("additional_data")
        if isinstance(data, dict):
            # Debezium copies an immutable Map.of(...) into a HashMap: keys sharing a bucket come in the order of
            # Map.of's per-JVM random salt, so only the key set is stable
            payload["additional_data"] = dict(sorted(data.items()))
    elif "op" in payload and "source" in payload:
        _mask_fields(payload, ENVELOPE_VOLATILE)
        _mask_fields(payload["source"], SOURCE_VOLATILE)
        _mask_fields(payload.get("transaction"), TRANSACTION_BLOCK_VOLATILE)
    return payload


def mask_json(doc: Any) -> Any:
    """Mask a converted key or value: JsonConverter envelope `{"schema","payload"}` or a schemaless payload."""
    if isinstance(doc, dict) and list(doc) == ["schema", "payload"]:
        schema = doc["schema"]
        name = schema.get("name") if isinstance(schema, dict) else None
        mask_payload(doc["payload"], name)
        return doc
    return mask_payload(doc)


def _is_volatile_key(doc: Any) -> bool:
    if not (isinstance(doc, dict) and isinstance(doc.get("schema"), dict)):
        return False
    name = doc["schema"].get("name")
    if name == NOTIFICATION_KEY:  # a random id (see mask_payload), else the requesting signal's id
        return bool(_RANDOM_ID.fullmatch(str((doc.get("payload") or {}).get("id"))))
    return bool(name == TX_METADATA_KEY)


def mask_record(rec: CapturedRecord, *, normalise: Mapping[str, str] | None = None) -> dict[str, Any]:
    """A JSON-able view of one record with the volatile fields masked:
    {"topic","partition","key","key_masked","value","headers"}. `key` is the exact key text (bytes compared exactly)
    unless it is volatile itself (transaction-topic keys carry the txId:lsn id; then `key_masked` is true).
    `normalise` replaces run-specific names (e.g. the unique topic prefix) in the topic, key, value and headers
    before anything else, so that two runs with different names can be compared."""

    def norm(text: str) -> str:
        for old, new in (normalise or {}).items():
            text = text.replace(old, new)
        return text

    key_text = None if rec.key is None else norm(rec.key.decode("utf-8"))
    key_masked = False
    if key_text is not None:
        with contextlib.suppress(ValueError):
            key_doc = loads(key_text)
            if _is_volatile_key(key_doc):
                key_text, key_masked = dumps(mask_json(key_doc)), True
    value = None if rec.value is None else mask_json(loads(norm(rec.value.decode("utf-8"))))
    headers = [
        [k, MASK if k in HEADER_VOLATILE and v is not None else (None if v is None else norm(v.decode("utf-8")))]
        for k, v in rec.headers
    ]
    return {
        "topic": norm(rec.topic),
        "partition": rec.partition,
        "key": key_text,
        "key_masked": key_masked,
        "value": value,
        "headers": headers,
    }


def mask_offset_record(rec: CapturedRecord, *, normalise: Mapping[str, str] | None = None) -> dict[str, Any]:
    """An offsets-topic record: exact key text (compared by bytes), value with LSNs/txId/timestamps masked."""
    view = mask_record(rec, normalise=normalise)
    if isinstance(view["value"], dict):
        _mask_fields(view["value"], OFFSET_VOLATILE)
    return view


def compare_records(
    expected: Sequence[Mapping[str, Any]],
    actual: Sequence[Mapping[str, Any]],
    *,
    check_partition: bool = True,
    ordered_values: bool = True,
) -> list[str]:
    """Differences between two lists of masked records (mask_record views), as readable lines; [] when equal.
    Keys are compared as exact text, values as JSON with key order significant (`ordered_values`), headers as
    ordered (name, text) pairs."""
    diffs: list[str] = []
    if len(expected) != len(actual):
        diffs.append(f"record count: expected {len(expected)}, got {len(actual)}")
    for i, (e, a) in enumerate(zip(expected, actual, strict=False)):
        where = f"record {i} ({e.get('topic')})"
        if e.get("topic") != a.get("topic"):
            diffs.append(f"{where}: topic {e.get('topic')!r} != {a.get('topic')!r}")
        if check_partition and e.get("partition") != a.get("partition"):
            diffs.append(f"{where}: partition {e.get('partition')} != {a.get('partition')}")
        if e.get("key") != a.get("key"):
            diffs.append(f"{where}: key\n  expected {e.get('key')}\n  actual   {a.get('key')}")
        ev, av = e.get("value"), a.get("value")
        same = (
            dumps(ev) == dumps(av)
            if ordered_values
            else json.dumps(ev, sort_keys=True) == json.dumps(av, sort_keys=True)
        )
        if not same:
            diffs.append(f"{where}: value\n  expected {dumps(ev)}\n  actual   {dumps(av)}")
        if [list(h) for h in e.get("headers", [])] != [list(h) for h in a.get("headers", [])]:
            diffs.append(f"{where}: headers {e.get('headers')} != {a.get('headers')}")
    return diffs


def write_jsonl(path: Path, rows: Iterable[Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(dumps(r) + "\n" for r in rows), encoding="utf-8")


def read_jsonl(path: Path) -> list[Any]:
    return [loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
