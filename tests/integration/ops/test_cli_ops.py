"""The command as a container runs it: configured by CONNECT_* variables only, HTTPS with a PEM key whose
password comes from a config provider, basic auth, a separate admin listener, the health-check command, and
bad security settings refused with one clear line and a non-zero exit code."""

from __future__ import annotations

import os
import signal
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from connect_worker.runtime.env_config import key_to_env_name
from tests.unit.ops.tls_support import make_certificate

pytestmark = pytest.mark.integration

CLI = [sys.executable, "-m", "connect_worker"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def env_for(props: dict[str, str]) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("CONNECT_")}
    return {**base, **{key_to_env_name(k): v for k, v in props.items()}}


def test_env_only_https_basic_auth_admin_listener_and_health_check(
    kafka_bootstrap: str, unique_name: str, tmp_path: Path
) -> None:
    pem = make_certificate(tmp_path / "tls", password="k3y-pass-word")
    secrets = tmp_path / "secrets.properties"
    secrets.write_text("keypass=k3y-pass-word\n")
    creds = tmp_path / "credentials.properties"
    creds.write_text("admin=adm1n-secret\n")
    port, admin_port = free_port(), free_port()
    props = {
        "bootstrap.servers": kafka_bootstrap,
        "listeners": f"https://127.0.0.1:{port}",
        "admin.listeners": f"http://127.0.0.1:{admin_port}",
        "listeners.https.ssl.keystore.type": "PEM",
        "listeners.https.ssl.keystore.location": str(pem.store),
        "listeners.https.ssl.key.password": f"${{file:{secrets}:keypass}}",  # a worker setting from a provider
        "rest.extension.classes": "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension",
        "rest.basic.auth.credentials.file": str(creds),
        "config.providers": "file",
        "config.providers.file.class": "org.apache.kafka.common.config.provider.FileConfigProvider",
        "offset.storage.topic": f"{unique_name}-offsets",
        "config.storage.topic": f"{unique_name}-configs",
        "status.storage.topic": f"{unique_name}-status",
        "offset.storage.replication.factor": "1",
        "config.storage.replication.factor": "1",
        "status.storage.replication.factor": "1",
    }
    env = {**env_for(props), "LOG_LEVEL": "DEBUG", "LOG_FORMAT": "json"}
    proc = subprocess.Popen(CLI, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"https://127.0.0.1:{port}"
    verify = ssl.create_default_context(cafile=str(pem.cert))
    auth = httpx.BasicAuth("admin", "adm1n-secret")
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise AssertionError("the worker exited during start-up: " + proc.communicate()[0].decode()[-3000:])
            check = subprocess.run([*CLI, "--health-check"], env=env, capture_output=True, timeout=30)
            if check.returncode == 0:
                break
            assert time.monotonic() < deadline, check.stderr.decode()
            time.sleep(0.3)
        with httpx.Client(base_url=url, verify=verify, timeout=10) as c:
            denied = c.get("/connectors")
            assert denied.status_code == 401 and denied.headers["www-authenticate"].startswith("Basic ")
            assert c.get("/connectors", auth=auth).json() == []
            assert c.get("/health").json()["status"] == "healthy"
            assert c.get("/admin/loggers", auth=auth).status_code == 404
            assert c.get("/metrics", auth=auth).status_code == 200
        with httpx.Client(base_url=f"http://127.0.0.1:{admin_port}", timeout=10) as a:
            assert a.get("/admin/loggers").status_code == 401
            assert "root" in a.get("/admin/loggers", auth=auth).json()
        proc.send_signal(signal.SIGTERM)
        output, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
    assert proc.returncode == 0, output.decode(errors="replace")[-3000:]
    text = output.decode(errors="replace")
    assert '"message": "worker ready; REST API on https://127.0.0.1:' in text  # JSON lines
    assert "k3y-pass-word" not in text and "adm1n-secret" not in text


def bad_start(tmp_path: Path, extra: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    props = {
        "bootstrap.servers": f"127.0.0.1:{free_port()}",  # never reached: the settings are refused first
        "listeners": f"https://127.0.0.1:{free_port()}",
        **extra,
    }
    return subprocess.run(CLI, env=env_for(props), capture_output=True, timeout=60)


def test_bad_security_settings_are_one_line_and_exit_2(tmp_path: Path) -> None:
    pem = make_certificate(tmp_path / "tls", password="right-one")
    creds = tmp_path / "credentials.properties"
    creds.write_text("u=p\n")
    cases = [
        (
            {"listeners.https.ssl.keystore.location": str(tmp_path / "missing.pem")},
            f"Cannot read listeners.https.ssl.keystore.location={tmp_path}/missing.pem: No such file or directory",
        ),
        (
            {"listeners.https.ssl.keystore.location": str(pem.store), "listeners.https.ssl.key.password": "wrong"},
            "wrong or missing listeners.https.ssl.key.password",
        ),
        (
            {
                "listeners.https.ssl.keystore.location": str(pem.store),
                "listeners.https.ssl.key.password": "right-one",
                "rest.basic.auth.credentials.file": str(tmp_path / "nope.properties"),
            },
            "Cannot read rest.basic.auth.credentials.file=",
        ),
        ({}, "An https listener needs a key and certificate"),
    ]
    for extra, message in cases:
        proc = bad_start(tmp_path, extra)
        lines = proc.stderr.decode().splitlines()
        assert proc.returncode == 2, proc.stderr
        assert len(lines) == 1, lines
        assert lines[0].startswith("connect-worker: invalid configuration: ") and message in lines[0], lines[0]
        assert "right-one" not in lines[0]


def test_no_configuration_at_all_is_a_clear_error(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONNECT_")}
    proc = subprocess.run(CLI, env=env, capture_output=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.decode().strip() == (
        "connect-worker: no configuration: give a worker.properties file or set CONNECT_* variables "
        "(e.g. CONNECT_BOOTSTRAP_SERVERS=kafka:9092)"
    )
    unhealthy = subprocess.run(
        [*CLI, "--health-check"],
        env={**env, "CONNECT_LISTENERS": f"http://127.0.0.1:{free_port()}"},
        capture_output=True,
        timeout=60,
    )
    assert unhealthy.returncode == 1 and b"/health" in unhealthy.stderr
