"""REST security over real sockets on 127.0.0.1: TLS from PEM files made for the test, basic authentication
(401 + WWW-Authenticate, nothing changed), and admin.listeners keeping /admin apart."""

from __future__ import annotations

import ssl
from pathlib import Path

import httpx
import pytest
from starlette.middleware import Middleware

from connect_worker.api.errors import ConfigError
from rest.app import create_admin_app, create_app
from rest.security import BasicAuthMiddleware, basic_auth_settings, server_ssl_context, ssl_settings
from rest.server import ListenerSpec, RestServer
from tests.unit.ops.tls_support import make_certificate
from tests.unit.rest.helpers import FS_CONFIG, rest_rig, started_herder


def client_context(cert: Path) -> ssl.SSLContext:
    ctx = ssl.create_default_context(cafile=str(cert))
    return ctx


def credentials(tmp_path: Path) -> Path:
    path = tmp_path / "credentials.properties"
    path.write_text("# user=password, as Connect's PropertyFileLoginModule reads them\nadmin=adm1n-pw\nops=0ps\n")
    return path


async def test_https_with_basic_auth_and_a_separate_admin_listener(tmp_path: Path) -> None:
    pem = make_certificate(tmp_path / "tls", password="key-pass")
    props = {
        "listeners.https.ssl.keystore.type": "PEM",
        "listeners.https.ssl.keystore.location": str(pem.store),
        "listeners.https.ssl.key.password": "key-pass",
        "rest.extension.classes": "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension",
        "rest.basic.auth.credentials.file": str(credentials(tmp_path)),
    }
    auth = basic_auth_settings(props)
    assert auth is not None
    middleware = [Middleware(BasicAuthMiddleware, settings=auth)]
    rig = rest_rig()
    herder = rig.herder
    await herder.start()
    main = create_app(herder, middleware=middleware, admin=False, metrics=lambda: "# TYPE up gauge\nup 1\n")
    admin = create_admin_app(herder, middleware=middleware)
    server = RestServer(
        main,
        [
            ListenerSpec("https://127.0.0.1:0", main, server_ssl_context(props, "listeners.https.")),
            ListenerSpec("http://127.0.0.1:0", admin),
        ],
    )
    await server.start()
    try:
        https_url, admin_url = server.urls
        assert https_url.startswith("https://127.0.0.1:")
        good = httpx.BasicAuth("admin", "adm1n-pw")
        async with httpx.AsyncClient(base_url=https_url, verify=client_context(pem.cert), timeout=10) as c:
            anonymous = await c.post("/connectors", json={"name": "fs", "config": FS_CONFIG})
            wrong = await c.post(
                "/connectors", json={"name": "fs", "config": FS_CONFIG}, auth=httpx.BasicAuth("admin", "nope")
            )
            unknown_user = await c.get("/connectors", auth=httpx.BasicAuth("nobody", "adm1n-pw"))
            garbage = await c.get("/connectors", headers={"Authorization": "Basic !!!"})
            listed_before = await c.get("/connectors", auth=good)
            written_before = list(rig.configs.records)
            health = await c.get("/health")  # open, for container health checks
            created = await c.post("/connectors", json={"name": "fs", "config": FS_CONFIG}, auth=good)
            other_user = await c.get("/connectors", auth=httpx.BasicAuth("ops", "0ps"))
            metrics_anonymous = await c.get("/metrics")
            metrics = await c.get("/metrics", auth=good)
            admin_on_main = await c.get("/admin/loggers", auth=good)
        async with httpx.AsyncClient(base_url=admin_url, timeout=10) as a:
            loggers_anonymous = await a.get("/admin/loggers")
            loggers = await a.get("/admin/loggers", auth=good)
            connectors_on_admin = await a.get("/connectors", auth=good)
    finally:
        await server.stop()

    for denied in (anonymous, wrong, unknown_user, garbage, metrics_anonymous, loggers_anonymous):
        assert denied.status_code == 401
        assert denied.headers["www-authenticate"] == 'Basic realm="connect"'
        assert denied.json() == {"error_code": 401, "message": "User cannot access the resource."}
    assert listed_before.json() == [] and written_before == []  # the refused requests never reached the herder
    assert health.status_code == 200 and health.json()["status"] == "healthy"
    assert created.status_code == 201
    assert created.headers["location"] == f"{https_url}/connectors/fs"
    assert other_user.json() == ["fs"]
    assert metrics.status_code == 200 and metrics.text == "# TYPE up gauge\nup 1\n"
    assert metrics.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    assert admin_on_main.status_code == 404
    assert loggers.status_code == 200 and "root" in loggers.json()
    assert connectors_on_admin.status_code == 404


async def test_plain_http_client_cannot_talk_to_the_https_listener(tmp_path: Path) -> None:
    pem = make_certificate(tmp_path / "tls")
    ctx = server_ssl_context({"ssl.keystore.location": str(pem.store)})
    server = RestServer(create_app(await started_herder()), ["https://127.0.0.1:0"], ssl_context=ctx)
    await server.start()
    try:
        (url,) = server.urls
        async with httpx.AsyncClient(timeout=5) as c:
            with pytest.raises(httpx.HTTPError):
                await c.get(url.replace("https://", "http://") + "/")
            with pytest.raises(httpx.ConnectError):  # not trusted without the test's CA
                await c.get(url + "/")
        async with httpx.AsyncClient(verify=client_context(pem.cert), timeout=5) as c:
            assert (await c.get(url + "/")).status_code == 200
    finally:
        await server.stop()


def test_inline_pem_and_prefix_rules(tmp_path: Path) -> None:
    pem = make_certificate(tmp_path / "tls")
    inline = {
        "ssl.keystore.type": "PEM",
        "ssl.keystore.certificate.chain": pem.cert.read_text(),
        "ssl.keystore.key": pem.key.read_text(),
    }
    assert isinstance(server_ssl_context(inline), ssl.SSLContext)
    # all or nothing: one prefixed key means the plain ssl.* keys are not used for that listener group
    mixed = {"ssl.keystore.location": "/plain.pem", "admin.listeners.https.ssl.keystore.location": "/admin.pem"}
    assert ssl_settings(mixed, "admin.listeners.https.") == {"ssl.keystore.location": "/admin.pem"}
    assert ssl_settings(mixed, "listeners.https.") == {"ssl.keystore.location": "/plain.pem"}


def test_bad_tls_settings_are_one_clear_error(tmp_path: Path) -> None:
    pem = make_certificate(tmp_path / "tls", password="right")
    cases = {
        "Cannot read listeners.https.ssl.keystore.location=/nonexistent.pem: No such file or directory": {
            "listeners.https.ssl.keystore.location": "/nonexistent.pem"
        },
        "wrong or missing listeners.https.ssl.key.password": {
            "listeners.https.ssl.keystore.location": str(pem.store),
            "listeners.https.ssl.key.password": "wrong",
        },
        "only PEM key stores are supported": {"ssl.keystore.type": "JKS", "ssl.keystore.location": str(pem.store)},
        "An https listener needs a key and certificate": {},
        "needs listeners.https.ssl.truststore.location": {
            "listeners.https.ssl.keystore.location": str(pem.store),
            "listeners.https.ssl.key.password": "right",
            "listeners.https.ssl.client.auth": "required",
        },
    }
    for message, props in cases.items():
        with pytest.raises(ConfigError) as e:
            server_ssl_context(props)
        assert message in str(e.value)
        assert "right" not in str(e.value).replace("wrong", "")


def test_basic_auth_settings(tmp_path: Path) -> None:
    assert basic_auth_settings({}) is None
    with pytest.raises(ConfigError, match=r"needs rest\.basic\.auth\.credentials\.file"):
        basic_auth_settings({"rest.extension.classes": "BasicAuthSecurityRestExtension"})
    with pytest.raises(ConfigError, match=r"only org\.apache\.kafka\.connect\.rest\.basic\.auth"):
        basic_auth_settings({"rest.extension.classes": "com.example.Other"})
    with pytest.raises(ConfigError, match="No such file or directory"):
        basic_auth_settings({"rest.basic.auth.credentials.file": str(tmp_path / "missing")})
    empty = tmp_path / "empty.properties"
    empty.write_text("# nobody\n")
    with pytest.raises(ConfigError, match="holds no user=password line"):
        basic_auth_settings({"rest.basic.auth.credentials.file": str(empty)})
    settings = basic_auth_settings({"rest.basic.auth.credentials.file": str(credentials(tmp_path))})
    assert settings is not None and dict(settings.credentials) == {"admin": "adm1n-pw", "ops": "0ps"}


async def test_basic_auth_lets_the_inter_worker_requests_through_as_connect_does(tmp_path: Path) -> None:
    """Connect's JaasBasicAuthFilter exempts POST /connectors/{c}/tasks and PUT /connectors/{c}/fence (workers
    call them on each other without user credentials); nothing else is exempt. A standalone herder refuses the
    task-config request itself (500, Connect's message)."""
    props = {"rest.basic.auth.credentials.file": str(credentials(tmp_path))}
    auth = basic_auth_settings(props)
    assert auth is not None
    rig = rest_rig()
    await rig.herder.start()
    app = create_app(rig.herder, middleware=[Middleware(BasicAuthMiddleware, settings=auth)])
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://worker") as c:
        tasks = await c.post("/connectors/fs/tasks", json=[{"k": "v"}])
        tasks_slash = await c.post("/connectors/fs/tasks/", json=[{"k": "v"}])
        listing = await c.get("/connectors/fs/tasks")
        restart = await c.post("/connectors/fs/tasks/0/restart")
        nested = await c.post("/connectors/fs/x/tasks", json=[])
    assert tasks.status_code == 500
    assert tasks.json()["message"] == (
        "Kafka Connect in standalone mode does not support externally setting task configurations."
    )
    assert tasks_slash.status_code != 401
    for denied in (listing, restart, nested):
        assert denied.status_code == 401
