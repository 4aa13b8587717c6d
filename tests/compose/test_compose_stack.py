"""docker-compose.yml really run (`make compose-test`): Kafka, PostgreSQL, the worker built from ./Dockerfile and
the Spark job built from spark_sink/Dockerfile, on the project's own Docker engine with the upstream images
stood in by images built here from Debian packages (devstack/images.sh). Everything is reached the way a user
reaches it: REST on 127.0.0.1:8083, Kafka on 127.0.0.1:29092, PostgreSQL on 127.0.0.1:15432, the Delta tables
in the host folder mounted as the Spark container's /data. The last test takes the stack down."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.serialization import MessageField, SerializationContext

from tests.confluent_avro import avro_deserializer

pytestmark = [pytest.mark.integration, pytest.mark.compose, pytest.mark.timeout(900)]

REPO = Path(__file__).resolve().parents[2]
REST = "http://127.0.0.1:8083"
KAFKA = "127.0.0.1:29092"
PG_DSN = "host=127.0.0.1 port=15432 user=postgres password=postgres dbname=inventory"
CONNECTOR = json.loads((REPO / "devstack/compose/postgres-connector.json").read_text())
NAME = CONNECTOR["name"]
TOPIC = "dbserver1.inventory.customers"
AVRO_CONNECTOR = json.loads((REPO / "devstack/compose/postgres-avro-connector.json").read_text())
REGISTRY = "http://127.0.0.1:18081/apis/ccompat/v7"  # the compose service's published port
WORKER_IMAGE = "connect-worker:dev"
MAX_IMAGE_BYTES = 250_000_000


def _stack_env() -> dict[str, str]:
    out = subprocess.run(
        [str(REPO / "devstack/compose.sh"), "env"], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


STACK = _stack_env()
ENV = {**os.environ, **STACK}


def docker(*args: str, check: bool = True, timeout: float = 120) -> str:
    done = subprocess.run(["/usr/bin/docker", *args], env=ENV, capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        raise AssertionError(f"docker {' '.join(args)} failed ({done.returncode}): {done.stderr}")
    return done.stdout.strip()


def compose(*args: str, timeout: float = 180) -> str:
    cmd = ["docker-compose", "-f", str(REPO / "docker-compose.yml"), "-p", STACK["COMPOSE_PROJECT_NAME"], *args]
    done = subprocess.run(cmd, env=ENV, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(cmd)} failed: {done.stderr}"
    return done.stdout.strip()


def inspect(container: str) -> dict[str, Any]:
    return dict(json.loads(docker("inspect", container))[0])


def container(service: str) -> str:
    cid = compose("ps", "-q", service)
    assert cid, f"service {service} has no container"
    return cid


def until(what: str, check: Callable[[], Any], timeout: float, every: float = 1.0) -> Any:
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = check()
        except (httpx.HTTPError, psycopg.Error, OSError) as exc:  # a service restarting
            last = exc
        if last and not isinstance(last, Exception):
            return last
        time.sleep(every)
    raise AssertionError(f"{what}: not within {timeout:.0f} s (last: {last!r})")


def health(cid: str) -> str:
    return str(inspect(cid)["State"]["Health"]["Status"])


def docker_kill(cid: str) -> None:
    docker("kill", cid)


def connector_running(name: str = NAME) -> bool:
    status = httpx.get(f"{REST}/connectors/{name}/status", timeout=10).json()
    tasks = status.get("tasks", [])
    return status.get("connector", {}).get("state") == "RUNNING" and bool(tasks) and tasks[0]["state"] == "RUNNING"


def json_payload(data: bytes, _topic: str, _field: MessageField) -> dict[str, Any]:
    return dict(json.loads(data)["payload"])


Decoder = Callable[[bytes, str, MessageField], dict[str, Any]]


class TopicReader:
    """Reads a change topic from the start, from the host, as any Kafka client would (JsonConverter records by
    default; `decode` turns other formats into the same payloads)."""

    def __init__(self, topic: str = TOPIC, decode: Decoder = json_payload) -> None:
        self.consumer = Consumer(
            {"bootstrap.servers": KAFKA, "group.id": f"compose-test-{uuid.uuid4()}", "enable.auto.commit": False}
        )
        self.consumer.assign([TopicPartition(topic, 0, 0)])
        self.topic, self.decode = topic, decode
        self.events: list[dict[str, Any] | None] = []  # value payloads; None: a tombstone
        self.keys: list[dict[str, Any]] = []  # key payloads, beside them

    def read(self, seconds: float = 2.0) -> list[dict[str, Any] | None]:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            msg = self.consumer.poll(0.5)
            if msg is None or msg.error():
                continue
            value, key = msg.value(), msg.key()
            self.events.append(self.decode(value, self.topic, MessageField.VALUE) if value else None)
            self.keys.append(self.decode(key, self.topic, MessageField.KEY) if key else {})
        return self.events

    def close(self) -> None:
        self.consumer.close()


@pytest.fixture(scope="module")
def pg() -> Iterator[psycopg.Connection[Any]]:
    conn = until("PostgreSQL on 127.0.0.1:15432", lambda: psycopg.connect(PG_DSN, autocommit=True), 60)
    yield conn
    conn.close()


def create_connector(body: dict[str, Any], decode: Decoder = json_payload) -> str:
    """A connector of devstack/compose/, created through the worker's published REST port unless it exists; back
    when its snapshot of inventory.customers is in Kafka, so that rows written after are streamed changes (a row
    inserted before the replication slot exists comes as a snapshot read instead)."""
    name = str(body["name"])
    if httpx.get(f"{REST}/connectors/{name}", timeout=10).status_code == 404:
        created = httpx.post(f"{REST}/connectors", json=body, timeout=60)
        assert created.status_code == 201, created.text
    until(f"{name} and its task RUNNING", lambda: connector_running(name), 120)
    topic = f"{body['config']['topic.prefix']}.inventory.customers"
    reader = TopicReader(topic, decode)
    try:

        def snapshot_read() -> bool:
            return any(e and e["source"]["snapshot"] in ("last", "last_in_data_collection") for e in reader.read())

        until(f"the snapshot of inventory.customers in {topic}", snapshot_read, 120)
    finally:
        reader.close()
    return name


@pytest.fixture(scope="module")
def connector() -> str:
    return create_connector(CONNECTOR)


def test_worker_image_is_small_non_root_and_has_no_build_tools() -> None:
    image = json.loads(docker("image", "inspect", WORKER_IMAGE))[0]
    print(f"\n{WORKER_IMAGE}: {image['Size'] / 1e6:.1f} MB")
    assert image["Size"] <= MAX_IMAGE_BYTES, f"the worker image is {image['Size'] / 1e6:.1f} MB"
    config = image["Config"]
    assert config["User"] == "10001:10001"
    assert "--health-check" in config["Healthcheck"]["Test"]
    assert config["ExposedPorts"] == {"8083/tcp": {}}
    probe = (
        "id -u; for tool in gcc cc c++ make ld as pip pip3; do command -v $tool; done; "
        'python -c \'import os, sysconfig; print(os.path.exists(sysconfig.get_paths()["include"] + "/Python.h"))\'; '
        "connect-worker --help >/dev/null && echo runs"
    )
    out = docker("run", "--rm", "--network", "none", "--entrypoint", "/bin/sh", WORKER_IMAGE, "-c", probe)
    assert out.splitlines() == ["10001", "False", "runs"], f"unexpected tools or user in the image:\n{out}"


def test_secret_reaches_the_connector_through_the_file_provider_only(connector: str) -> None:
    # the worker resolved ${file:/run/secrets/postgres.properties:password} (its task is RUNNING against the
    # password-protected server); REST answers the placeholder, never the password
    config = httpx.get(f"{REST}/connectors/{connector}/config", timeout=10).json()
    assert config["database.password"] == CONNECTOR["config"]["database.password"]
    tasks = httpx.get(f"{REST}/connectors/{connector}/tasks", timeout=10).json()
    assert [t["config"]["database.password"] for t in tasks] == [CONNECTOR["config"]["database.password"]]
    env = inspect(container("connect-worker"))["Config"]["Env"]
    assert not any("PASSWORD" in item for item in env)


class TableNotReadable(OSError):
    """The Delta table cannot be read yet (no commit, or a commit under way): retried by `until`."""


def _delta_rows(table: str) -> dict[int, str]:
    """id -> email of the Delta table the Spark container wrote, read on the host with this project's Spark."""
    path = Path(STACK["DELTA_DATA"]) / "delta" / table
    if not (path / "_delta_log").is_dir():
        raise TableNotReadable(f"{path} has no Delta log yet")
    code = (
        "import json, sys; from spark_sink.config import SinkConfig; from spark_sink.job import build_session; "
        "s = build_session(SinkConfig(master='local[1]', jars_dir=sys.argv[2], query_name='compose_read', "
        "spark_conf={'spark.ui.enabled': 'false'})); s.sparkContext.setLogLevel('ERROR'); "
        "print(json.dumps({r['id']: r['email'] for r in s.read.format('delta').load(sys.argv[1]).collect()}))"
    )
    jars = REPO / ".devstack/spark/jars"  # make compose-test fetches them (devstack/spark.sh fetch)
    done = subprocess.run(
        [sys.executable, "-c", code, str(path), str(jars)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        env={**ENV, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable},
    )
    if done.returncode != 0:
        raise TableNotReadable(done.stderr[-3000:])
    return {int(k): v for k, v in json.loads(done.stdout.strip().splitlines()[-1]).items()}


def test_changes_reach_kafka_and_the_delta_table(connector: str, pg: psycopg.Connection[Any]) -> None:
    mark = uuid.uuid4().hex[:8]
    with pg.cursor() as cur:
        cur.execute("SELECT id FROM inventory.customers")
        before = {r[0] for r in cur.fetchall()}
        cur.execute(
            "INSERT INTO inventory.customers (first_name, last_name, email) VALUES "
            "('Kept', 'Row', %s), ('Gone', 'Row', %s) RETURNING id",
            (f"kept-{mark}@example.com", f"gone-{mark}@example.com"),
        )
        kept, gone = (r[0] for r in cur.fetchall())
        cur.execute("UPDATE inventory.customers SET email = %s WHERE id = %s", (f"kept2-{mark}@example.com", kept))
        cur.execute("DELETE FROM inventory.customers WHERE id = %s", (gone,))
        cur.execute("SELECT id, email FROM inventory.customers")
        expected = dict(cur.fetchall())

    reader = TopicReader()
    try:

        def ours() -> list[tuple[str, int]]:
            events = [e for e in reader.read() if e is not None and (e["after"] or e["before"])["id"] in (kept, gone)]
            ops = [(e["op"], (e["after"] or e["before"])["id"]) for e in events]
            return ops if len(ops) >= 4 else []

        ops = until("the four change events in Kafka", ours, 120)
        assert ops == [("c", kept), ("c", gone), ("u", kept), ("d", gone)]
        # every row there before ours was read by the snapshot or created (and sent) after it
        read_or_created = {e["after"]["id"] for e in reader.events if e is not None and e["op"] in ("r", "c")}
        assert before <= read_or_created
        assert any(e is not None and e["op"] == "r" for e in reader.events), "the snapshot's read events"
        delete = next(i for i, e in enumerate(reader.events) if e and e["op"] == "d" and e["before"]["id"] == gone)
        assert reader.events[delete + 1] is None and reader.keys[delete + 1] == {"id": gone}, "a tombstone follows"
    finally:
        reader.close()

    # the Spark container's Delta table converges to the source table (its trigger: every 10 s)
    until("the Delta table equal to inventory.customers", lambda: _delta_rows("customers") == expected, 300, 10)


def test_avro_connector_writes_through_the_schema_registry(pg: psycopg.Connection[Any]) -> None:
    """The registry service: an Avro connector registers its key and value schemas there, and a plain Confluent
    consumer on the host decodes the records with them."""
    until("the schema registry answering", lambda: httpx.get(f"{REGISTRY}/subjects", timeout=5).status_code == 200, 120)
    deserializer = avro_deserializer(REGISTRY)

    def avro(data: bytes, topic: str, field: MessageField) -> dict[str, Any]:
        return dict(deserializer(data, SerializationContext(topic, field)))

    name = create_connector(AVRO_CONNECTOR, avro)
    topic = f"{AVRO_CONNECTOR['config']['topic.prefix']}.inventory.customers"
    email = f"avro-{uuid.uuid4().hex[:8]}@example.com"
    row = pg.execute(
        "INSERT INTO inventory.customers (first_name, last_name, email) VALUES ('Avro', 'Row', %s) RETURNING id",
        (email,),
    ).fetchone()
    assert row is not None
    reader = TopicReader(topic, avro)
    try:

        def created() -> list[int]:
            return [i for i, e in enumerate(reader.read()) if e and e["op"] == "c" and e["after"]["email"] == email]

        (at,) = until(f"the create event of row {row[0]} in {topic}", created, 120)
        assert reader.events[at]["after"]["id"] == row[0] and reader.keys[at] == {"id": row[0]}
        assert reader.events[at]["source"]["connector"] == "postgresql"
    finally:
        reader.close()
    subjects = httpx.get(f"{REGISTRY}/subjects", timeout=10).json()
    assert {f"{topic}-key", f"{topic}-value"} <= set(subjects)
    assert connector_running(name)


def _load(stop: threading.Event, written: list[int], errors: list[BaseException]) -> None:
    """Inserts customers one transaction each (~100 rows/s) until told to stop; keeps the ids committed."""
    try:
        with psycopg.connect(PG_DSN, autocommit=True) as conn:
            while not stop.is_set():
                row = conn.execute(
                    "INSERT INTO inventory.customers (first_name, last_name, email) VALUES ('Load', 'Row', %s) "
                    "RETURNING id",
                    (f"load-{uuid.uuid4().hex}@example.com",),
                ).fetchone()
                assert row is not None
                written.append(int(row[0]))
                time.sleep(0.01)
    except Exception as exc:  # noqa: BLE001 - reported by the test
        errors.append(exc)


def _kill_under_load(kill: Callable[[str], None], comes_back: Callable[[str, dict[str, Any]], None]) -> str:
    """Rows inserted (~100/s) while the worker container is killed and comes back: every committed row's create
    event is in Kafka afterwards. Returns a line saying how many were sent twice."""
    cid = container("connect-worker")
    before = inspect(cid)
    stop, written, errors = threading.Event(), [], []  # type: ignore[var-annotated]
    writer = threading.Thread(target=_load, args=(stop, written, errors), daemon=True)
    writer.start()
    try:
        until("rows being written", lambda: len(written) > 300, 60)
        kill(cid)
        killed_at = len(written)
        comes_back(cid, before)
        until("the worker healthy again", lambda: health(container("connect-worker")) == "healthy", 120)
        until("the connector running again", connector_running, 120)
        until("rows written after the restart", lambda: len(written) > killed_at + 300, 60)
    finally:
        stop.set()
        writer.join(30)
    assert not errors, errors
    wanted = set(written)

    reader = TopicReader()
    try:
        # create events only: rows the worker re-read in a new snapshot (lost offsets) would not count
        def all_there() -> bool:
            seen = {e["after"]["id"] for e in reader.read(3) if e is not None and e["op"] == "c"}
            return wanted <= seen

        until(f"the create events of all {len(wanted)} committed rows", all_there, 180, 0.1)
        creates = [e["after"]["id"] for e in reader.events if e and e["op"] == "c" and e["after"]["id"] in wanted]
    finally:
        reader.close()
    assert set(creates) == wanted
    return f"{len(wanted)} rows committed around the kill: 0 lost, {len(creates) - len(set(creates))} sent twice"


def test_crashed_worker_is_restarted_by_its_policy_and_loses_no_change(connector: str) -> None:
    """kill -9 of the worker process (a crash, the OOM killer): the container exits 137 and `restart:
    unless-stopped` starts it again."""

    def restarted(cid: str, before: dict[str, Any]) -> None:
        def again() -> bool:
            state = inspect(cid)
            return bool(state["RestartCount"] > before["RestartCount"] and state["State"]["Running"])

        until("the container restarted by its restart policy", again, 60, 0.5)

    print("\n" + _kill_under_load(lambda cid: os.kill(_worker_process(cid), signal.SIGKILL), restarted))


def test_docker_killed_worker_is_started_again_and_loses_no_change(connector: str) -> None:
    """`docker kill` (SIGKILL to the container): Docker counts it as a user's stop, so no restart policy restarts
    the container (Docker's rule, for `always` too); `docker-compose up -d` starts it again."""

    def started_again(cid: str, before: dict[str, Any]) -> None:
        until("the killed container stopped", lambda: not inspect(cid)["State"]["Running"], 30, 0.5)
        time.sleep(5)
        state = inspect(cid)
        assert not state["State"]["Running"] and state["State"]["ExitCode"] == 137
        assert state["RestartCount"] == before["RestartCount"], "Docker restarted a container the user killed"
        compose("up", "-d", "--no-build", "connect-worker")

    print("\n" + _kill_under_load(docker_kill, started_again))


def _worker_process(cid: str) -> int:
    """The worker's host PID: the child of the container's init (the compose service runs with init: true)."""
    init = int(inspect(cid)["State"]["Pid"])
    children = Path(f"/proc/{init}/task/{init}/children").read_text().split()
    (pid,) = children
    assert "connect-worker" in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    return int(pid)


def test_healthcheck_goes_unhealthy_when_rest_stops_answering(connector: str) -> None:
    cid = container("connect-worker")
    until("the worker healthy", lambda: health(cid) == "healthy", 120)
    pid = _worker_process(cid)
    os.kill(pid, signal.SIGSTOP)  # the process stays, its REST answers nothing
    try:
        started = time.monotonic()
        until("the healthcheck reporting unhealthy", lambda: health(cid) == "unhealthy", 90)
        print(f"\nunhealthy {time.monotonic() - started:.0f} s after the worker stopped answering")
        assert inspect(cid)["State"]["Running"]
    finally:
        os.kill(pid, signal.SIGCONT)
    until("the worker healthy again", lambda: health(cid) == "healthy", 60)
    until("the connector running after the pause", connector_running, 120)


def test_down_leaves_nothing_running() -> None:
    project = STACK["COMPOSE_PROJECT_NAME"]
    assert docker("ps", "-q", "--filter", f"label=com.docker.compose.project={project}"), "the stack is not up"
    compose("down", "-v", "--remove-orphans", "--timeout", "20")
    # the engine is the project's own: nothing at all may be left, anonymous volumes included
    assert docker("ps", "-aq") == ""
    assert docker("volume", "ls", "-q") == ""
    assert docker("network", "ls", "-q", "--filter", "type=custom") == ""
