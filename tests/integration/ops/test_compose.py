"""docker-compose.yml, the Dockerfile and devstack/compose/ agree with each other and with the worker's
configuration keys. No Docker engine is needed: `docker-compose config` validates and normalises the file."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

from connect_worker.runtime.config_providers import placeholders
from connect_worker.runtime.env_config import merge_worker_properties
from connect_worker.runtime.properties import load_properties
from connect_worker.runtime.worker_config import WORKER_CONFIG_DEF, WorkerConfig

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[3]
COMPOSE = REPO / "docker-compose.yml"
# worker keys that are families rather than single ConfigDef entries
PREFIXED_KEYS = (
    "config.providers.",
    "producer.",
    "consumer.",
    "admin.",
    "key.converter.",
    "value.converter.",
    "header.converter.",
    "listeners.https.",
    "admin.listeners.https.",
    "ssl.",
)
YAML_TO_JSON = "import json, sys, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)"


def _compose_binary() -> list[str]:
    found = shutil.which("docker-compose")
    if found is None:
        pytest.fail(
            "docker-compose is not installed: the compose file cannot be validated "
            "(Debian: apt-get install docker-compose; or install the Compose v2 binary as docker-compose)"
        )
    return [found]


# the file's own variables: unset, so the checks see its defaults whatever the caller's environment holds
COMPOSE_VARIABLES = ("KAFKA_IMAGE", "POSTGRES_IMAGE", "REGISTRY_IMAGE", "PYTHON_IMAGE", "MAVEN_IMAGE", "DELTA_DATA")


def compose_config() -> dict[str, Any]:
    """`docker-compose config` as JSON: Compose v2 prints it itself; v1 prints YAML, which the Python that
    runs docker-compose (it needs PyYAML) turns into JSON."""
    cmd = _compose_binary()
    env = {k: v for k, v in os.environ.items() if k not in COMPOSE_VARIABLES and not k.startswith("COMPOSE_")}
    as_json = subprocess.run(
        [*cmd, "-f", str(COMPOSE), "config", "--format", "json"], capture_output=True, text=True, timeout=120, env=env
    )
    if as_json.returncode == 0 and as_json.stdout.lstrip().startswith("{"):
        return dict(json.loads(as_json.stdout))  # Compose v2 (v1 prints its usage for an unknown option)
    plain = subprocess.run([*cmd, "-f", str(COMPOSE), "config"], capture_output=True, text=True, timeout=120, env=env)
    assert plain.returncode == 0, f"docker-compose config rejected {COMPOSE}:\n{plain.stderr}"
    first_line = Path(cmd[0]).read_text(errors="replace").splitlines()[0]
    if not first_line.startswith("#!") or "python" not in first_line:
        pytest.fail("docker-compose config printed YAML and no YAML reader is available; install Compose v2")
    interpreter = first_line[2:].strip().split()
    converted = subprocess.run(
        [*interpreter, "-c", YAML_TO_JSON], input=plain.stdout, capture_output=True, text=True, timeout=60
    )
    assert converted.returncode == 0, converted.stderr
    return dict(json.loads(converted.stdout))


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return compose_config()


def _env(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):  # KEY=VALUE form
        env = dict(item.split("=", 1) for item in env)
    return {k: str(v) for k, v in env.items()}


def _mounts(service: dict[str, Any]) -> dict[str, Path]:
    """container path -> host path of the service's bind mounts."""
    out: dict[str, Path] = {}
    for v in service.get("volumes") or []:
        if isinstance(v, str):
            source, target = v.split(":")[:2]
        else:
            source, target = v.get("source", ""), v["target"]
        if source.startswith(("/", ".")):
            out[target] = (REPO / source).resolve() if source.startswith(".") else Path(source)
    return out


def _published(service: dict[str, Any]) -> dict[int, tuple[str, int]]:
    """container port -> (host ip, host port)."""
    out: dict[int, tuple[str, int]] = {}
    for p in service.get("ports") or []:
        if isinstance(p, str):
            m = re.fullmatch(r"(?:([\d.]+):)?(\d+):(\d+)(?:/tcp)?", p)
            assert m, p
            out[int(m.group(3))] = (m.group(1) or "0.0.0.0", int(m.group(2)))
        else:
            out[int(p["target"])] = (p.get("host_ip", "0.0.0.0"), int(p["published"]))
    return out


def _worker_properties(compose: dict[str, Any]) -> dict[str, str]:
    worker = compose["services"]["connect-worker"]
    command = worker.get("command") or []
    (props_path,) = [c for c in command if c.endswith(".properties")]
    host_file = _mounts(worker)[props_path]
    return merge_worker_properties(load_properties(str(host_file)), _env(worker))


def test_compose_file_is_valid_and_has_the_services(compose: dict[str, Any]) -> None:
    assert set(compose["services"]) == {"kafka", "postgres", "schema-registry", "connect-worker", "spark-sink"}
    for name in ("kafka", "postgres", "connect-worker"):
        assert compose["services"][name].get("healthcheck", {}).get("test"), f"{name} has no healthcheck"
    assert compose["services"]["kafka"]["image"].startswith("apache/kafka:")
    assert compose["services"]["postgres"]["image"] == "postgres:15"


def test_worker_environment_names_real_worker_keys(compose: dict[str, Any]) -> None:
    env = _env(compose["services"]["connect-worker"])
    keys = merge_worker_properties(None, env)
    assert keys, "the worker service sets no CONNECT_* variable"
    for key in keys:
        assert key in WORKER_CONFIG_DEF or key.startswith(PREFIXED_KEYS), f"{key} is not a worker configuration key"
    # the mounted file plus the environment is a valid worker configuration
    config = WorkerConfig.from_properties(_worker_properties(compose))
    assert set(config.config_transformer.providers) == {"file", "env", "dir"}


def test_worker_reaches_kafka_and_publishes_its_rest_port(compose: dict[str, Any]) -> None:
    services = compose["services"]
    props = _worker_properties(compose)
    config = WorkerConfig.from_properties(props)
    kafka_env = _env(services["kafka"])
    advertised = {u.split("://", 1)[1] for u in kafka_env["KAFKA_ADVERTISED_LISTENERS"].split(",")}
    for server in config.bootstrap_servers.split(","):
        assert server in advertised, f"{server} is not one of Kafka's advertised listeners {advertised}"
        assert server.split(":")[0] in services
    listener = config.listeners[0]
    assert listener.host in ("0.0.0.0", ""), "a container's REST listener must bind every interface"
    assert _published(services["connect-worker"])[listener.port] == ("127.0.0.1", 8083)
    assert config["rest.advertised.host.name"] == "connect-worker"
    worker = services["connect-worker"]
    # the worker starts once Kafka and PostgreSQL answer; the registry (no healthcheck: which tools its upstream
    # image has is not known here) only needs to have been started
    assert worker["depends_on"] == {
        "kafka": {"condition": "service_healthy"},
        "postgres": {"condition": "service_healthy"},
        "schema-registry": {"condition": "service_started"},
    }
    assert worker["build"]["target"] == "worker" and Path(worker["build"]["context"]).resolve() == REPO
    assert "--health-check" in worker["healthcheck"]["test"]
    for p in _published(services["kafka"]).values():
        assert p[0] == "127.0.0.1"


def test_postgres_is_logical_and_gets_the_demo_schema(compose: dict[str, Any]) -> None:
    pg = compose["services"]["postgres"]
    assert "wal_level=logical" in pg["command"]
    init = [host for target, host in _mounts(pg).items() if target.startswith("/docker-entrypoint-initdb.d/")]
    assert init and init[0].is_file()
    sql = init[0].read_text()
    assert "CREATE SCHEMA inventory" in sql and "CREATE TABLE customers" in sql


@pytest.mark.parametrize("connector_file", ["postgres-connector.json", "postgres-avro-connector.json"])
def test_connector_json_matches_the_services(compose: dict[str, Any], connector_file: str) -> None:
    services = compose["services"]
    body = json.loads((REPO / "devstack/compose" / connector_file).read_text())
    assert set(body) == {"name", "config"}
    cfg = body["config"]
    pg_env = _env(services["postgres"])
    assert cfg["database.hostname"] == "postgres" and cfg["database.hostname"] in services
    assert cfg["database.port"] == "5432"
    assert cfg["database.dbname"] == pg_env["POSTGRES_DB"]
    assert cfg["database.user"] == pg_env["POSTGRES_USER"]
    # the password comes from the file provider, through a compose secret mounted in the worker
    (ph,) = placeholders(cfg["database.password"])
    props = _worker_properties(compose)
    assert ph.provider in props["config.providers"].split(",")
    assert ph.path.startswith(props["config.providers.file.param.allowed.paths"])
    worker = services["connect-worker"]
    (secret,) = worker["secrets"]
    assert ph.path == "/run/secrets/" + secret["target"]
    secret_file = Path(compose["secrets"][secret["source"]]["file"])
    assert load_properties(str(secret_file))[ph.key] == pg_env["POSTGRES_PASSWORD"]


def test_avro_connector_uses_the_registry_service(compose: dict[str, Any]) -> None:
    services = compose["services"]
    cfg = json.loads((REPO / "devstack/compose/postgres-avro-connector.json").read_text())["config"]
    registry = services["schema-registry"]
    assert _published(registry)[8080] == ("127.0.0.1", 18081)
    for side in ("key", "value"):
        assert cfg[f"{side}.converter"] == "io.confluent.connect.avro.AvroConverter"
        assert cfg[f"{side}.converter.schema.registry.url"] == "http://schema-registry:8080/apis/ccompat/v7"
    plain = json.loads((REPO / "devstack/compose/postgres-connector.json").read_text())["config"]
    for key in ("topic.prefix", "slot.name", "publication.name"):
        assert cfg[key] != plain[key], f"the two demo connectors share {key}"
    assert "schema-registry" in services["connect-worker"]["depends_on"]


def test_spark_sink_runs_the_module_on_a_volume(compose: dict[str, Any]) -> None:
    spark = compose["services"]["spark-sink"]
    argv = [*spark.get("entrypoint", []), *spark.get("command", [])]
    assert argv[:3] == ["python3", "-m", "spark_sink"]
    config_path = argv[argv.index("--config") + 1]
    host = _mounts(spark)[config_path]
    sink = tomllib.loads(host.read_text())
    props = _worker_properties(compose)
    assert sink["source"]["bootstrap_servers"] == props["bootstrap.servers"]
    connector = json.loads((REPO / "devstack/compose/postgres-connector.json").read_text())["config"]
    assert re.fullmatch(sink["source"]["topic_pattern"], connector["topic.prefix"] + ".inventory.customers")
    named = {}
    for v in spark["volumes"]:
        if isinstance(v, dict) and v.get("type") == "volume":
            named[v["source"]] = v["target"]
        elif isinstance(v, str) and not v.startswith(("/", ".")):
            named[v.split(":")[0]] = v.split(":")[1]
    assert named and set(named) <= set(compose["volumes"]), "the Delta tables must be written to a named volume"
    assert any(sink["sink"]["warehouse"].startswith(target + "/") for target in named.values())
    assert spark["depends_on"]["kafka"]["condition"] == "service_healthy"
    # the job's own parser accepts the file (spark_sink.config is pure: no pyspark needed)
    from spark_sink.config import from_mapping, load_file

    parsed = from_mapping(load_file(host))
    assert parsed.bootstrap_servers == props["bootstrap.servers"]
    assert parsed.jars_dir is None, "the image's entrypoint says where its jars are (--jars-dir)"


def _final_stage(dockerfile: Path) -> str:
    text = dockerfile.read_text()
    return text[text.rindex("\nFROM ") :]


def test_dockerfile_is_multi_stage_slim_and_non_root() -> None:
    text = (REPO / "Dockerfile").read_text()
    stages = re.findall(r"^FROM\s+(\S+)(?:\s+AS\s+(\S+))?", text, re.MULTILINE)
    assert len(stages) >= 2
    assert re.search(r"^ARG PYTHON_IMAGE=python:3\.11-slim", text, re.MULTILINE)
    final = _final_stage(REPO / "Dockerfile")
    assert re.search(r"^USER (?!root|0\b)\S+", final, re.MULTILINE), "the worker image must not run as root"
    assert "HEALTHCHECK" in final and "--health-check" in final
    assert "[dev]" not in text and "[spark]" not in final
    assert "apt-get install" not in final, "the final stage installs nothing (no compiler, no headers)"
    assert "syntax=" not in text.splitlines()[0], "a BuildKit frontend image would have to be pulled"
    assert (REPO / ".dockerignore").is_file()
    ignored = (REPO / ".dockerignore").read_text().split()
    assert ".venv" in ignored and ".git" in ignored


def test_spark_sink_image_is_built_on_the_workers_python_and_finds_its_jars(compose: dict[str, Any]) -> None:
    dockerfile = REPO / "spark_sink" / "Dockerfile"
    text = dockerfile.read_text()
    worker_base = re.search(r"^ARG PYTHON_IMAGE=(\S+)", (REPO / "Dockerfile").read_text(), re.MULTILINE)
    assert worker_base and f"ARG PYTHON_IMAGE={worker_base.group(1)}" in text
    final = _final_stage(dockerfile)
    assert re.search(r"^USER (?!root|0\b)\S+", final, re.MULTILINE), "the Spark job must not run as root"
    # the job's own prerequisite check needs --jars-dir (or a devstack folder): the image and compose pass it
    (entrypoint,) = re.findall(r"^ENTRYPOINT (.+)$", final, re.MULTILINE)
    argv = json.loads(entrypoint)
    jars_dir = argv[argv.index("--jars-dir") + 1]
    assert f"mkdir -p {jars_dir}" in text and f'cp "$jar" {jars_dir}/' in text
    spark = compose["services"]["spark-sink"]
    assert spark["entrypoint"] == argv
    assert spark["build"]["dockerfile"].endswith("spark_sink/Dockerfile")


def test_build_arguments_and_restart_policies(compose: dict[str, Any]) -> None:
    services = compose["services"]
    for name, dockerfile in (("connect-worker", REPO / "Dockerfile"), ("spark-sink", REPO / "spark_sink/Dockerfile")):
        declared = set(re.findall(r"^ARG (\w+)=", dockerfile.read_text(), re.MULTILINE))
        args = services[name]["build"].get("args") or {}
        assert set(args) <= declared, f"{name}: build args {set(args) - declared} are not ARGs of {dockerfile}"
        defaults = dict(re.findall(r"^ARG (\w+)=(\S+)", dockerfile.read_text(), re.MULTILINE))
        for arg, value in args.items():
            assert value == defaults[arg], f"{name}: {arg} defaults to {value}, the Dockerfile to {defaults[arg]}"
    for name in ("kafka", "postgres", "schema-registry", "connect-worker", "spark-sink"):
        assert services[name].get("restart") == "unless-stopped", f"{name} is not restarted after a crash"
