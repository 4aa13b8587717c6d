"""One scripted REST session, run the same way against the REAL Kafka Connect 4.3.1 (with Debezium 3.6.3) and
against this worker: creation with every kind of bad body, initial states, pause/resume/stop, restarts, config
updates and patches, the offsets API in and out of STOPPED, topics, plugins, loggers, unknown routes and
connectors, deletion. Each step records (status, content type, body); volatile parts are normalised.

The connector is a PostgresConnector on a table of its own database (one token names database, slot,
publication and topic prefix). A second connector, named by the number 5 (Jackson takes a JSON number as the
name's text), is created STOPPED so that listings hold two names (it never opens the slot).
"""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import psycopg

from tests.differential.debezium import (
    ConnectDebezium,
    loads,
    postgres_connector_config,
    scratch_database,
)

NAME = "rc"


@dataclass(frozen=True)
class Step:
    label: str
    status: int
    content_type: str | None
    body: str  # normalised text ("" when the answer has none)

    def json(self) -> Any:
        return loads(self.body) if self.body else None


@dataclass
class _Session:
    worker: ConnectDebezium
    steps: list[Step] = field(default_factory=list)

    def call(self, label: str, method: str, path: str, body: Any = None) -> None:
        a = self.worker.request(method, path, body)
        self.steps.append(Step(label, a.status, a.content_type, a.body.decode("utf-8")))

    def raw(
        self, label: str, method: str, path: str, data: bytes | None, content_type: str | None, **sent: str
    ) -> None:
        """A body sent as is, with this content type (malformed JSON, another media type) and these headers
        (`Accept=...`); the Allow header of an OPTIONS or 405 answer is recorded with its Content-Type."""
        req = urllib.request.Request(self.worker.url + path, data=data, method=method)
        if content_type is not None:
            req.add_header("Content-Type", content_type)
        for name, value in sent.items():
            req.add_header(name.replace("_", "-"), value)
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                status, headers, text = resp.status, resp.headers, resp.read()
        except urllib.error.HTTPError as e:
            status, headers, text = e.code, e.headers, e.read()
        content_type = headers.get("content-type")
        if method == "OPTIONS" or status == 405:
            content_type = f"{content_type}; Allow: {headers.get('allow')}"
        self.steps.append(Step(label, status, content_type, text.decode("utf-8")))

    def settled(self, label: str, state: str, tasks: int, timeout: float = 60.0, hold: float = 1.5) -> None:
        """Wait until the connector is `state` with `tasks` tasks all `state`, and stays so for `hold` seconds
        (right after a request a status may still be the one from before it: Connect writes statuses through
        its status topic); record the status then (or the last one seen: the comparison shows what it was)."""
        deadline = time.monotonic() + timeout
        last, since = "", None
        while time.monotonic() < deadline:
            a = self.worker.get(f"/connectors/{NAME}/status")
            if a.status == 200:
                last = a.body.decode("utf-8")
                s = loads(last)
                states = [s["connector"]["state"]] + [t["state"] for t in s["tasks"]]
                if len(s["tasks"]) == tasks and all(x == state for x in states):
                    since = time.monotonic() if since is None else since
                    if time.monotonic() - since >= hold:
                        break
                else:
                    since = None
            time.sleep(0.25)
        self.steps.append(Step(label, 200, "application/json", last))

    def offsets_settled(self, label: str, timeout: float = 30.0, hold: float = 1.5) -> None:
        """GET the connector's offsets once the answer has stayed the same for `hold` seconds, and record it: Connect
        lists the partitions its offsets store has read so far, so right after a write it may still list a
        partition whose tombstone it has not read yet (with a null offset)."""
        deadline = time.monotonic() + timeout
        last, since = None, time.monotonic()
        while time.monotonic() < deadline:
            a = self.worker.get(f"/connectors/{NAME}/offsets")
            answer = (a.status, a.content_type, a.body.decode("utf-8"))
            if answer != last:
                last, since = answer, time.monotonic()
            elif time.monotonic() - since >= hold:
                break
            time.sleep(0.25)
        assert last is not None
        self.steps.append(Step(label, *last))

    def tasks_configured_with(self, key: str, value: str | None = None, timeout: float = 60.0) -> None:
        """Wait until the connector's task configs hold `key` (with `value` if given): a config change reached its
        tasks (a status is RUNNING before and after such a restart, so it cannot tell). Records nothing."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            a = self.worker.get(f"/connectors/{NAME}/tasks")
            if a.status == 200 and a.json():
                held = [t["config"].get(key) for t in a.json()]
                if all(h is not None and (value is None or h == value) for h in held):
                    return
            time.sleep(0.25)
        raise TimeoutError(f"the task configs of {NAME} never held {key}={value}")

    def offsets_committed(self, timeout: float = 60.0) -> None:
        """Wait until the connector has committed an offset (its snapshot is done and flushed), so that what
        the offsets API shows later does not depend on how fast the steps before ran. Records nothing."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            a = self.worker.get(f"/connectors/{NAME}/offsets")
            if a.status == 200 and a.json()["offsets"]:
                return
            time.sleep(0.25)
        raise TimeoutError(f"{NAME} committed no offset")


def _script(s: _Session, token: str, cfg: dict[str, str]) -> None:
    n = NAME
    no_class = {k: v for k, v in cfg.items() if k != "connector.class"}
    # -- creation: bad bodies ---------------------------------------------------------------------------------------
    s.call("create: no name", "POST", "/connectors", {"config": cfg})
    s.call("create: empty name", "POST", "/connectors", {"name": "", "config": cfg})
    s.call("create: no config", "POST", "/connectors", {"name": n})
    s.call("create: name mismatch", "POST", "/connectors", {"name": n, "config": {"name": "other", **cfg}})
    s.call("create: no class", "POST", "/connectors", {"name": n, "config": no_class})
    s.call("create: unknown class", "POST", "/connectors", {"name": n, "config": {**cfg, "connector.class": "Nope"}})
    s.call("create: tasks.max 0", "POST", "/connectors", {"name": n, "config": {**cfg, "tasks.max": "0"}})
    s.call("create: tasks.max x", "POST", "/connectors", {"name": n, "config": {**cfg, "tasks.max": "x"}})
    # Connect's ConfigDef parsing of worker-side keys, each beside a value that fails anyway (nothing is created)
    for key, value in (
        ("tasks.max", "2147483648"),
        ("tasks.max", " 2 "),
        ("tasks.max", "1.0"),
        ("tasks.max", ""),
        ("tasks.max", "-1"),
        ("errors.log.enable", "yes"),
        ("errors.log.enable", " TRUE "),
        ("errors.tolerance", "ALL"),
        ("errors.tolerance", "some"),
        ("errors.retry.timeout", "1e3"),
        ("errors.retry.delay.max.ms", "-5"),
        ("header.converter", "NoSuchClass"),
        ("transforms", "a,,b"),
        ("transforms", "x"),
        ("predicates", "p"),
        ("config.action.reload", "sometimes"),
        ("topic.creation.groups", "g"),
        ("exactly.once.support", "maybe"),
        ("transaction.boundary", "never"),
        ("offsets.storage.topic", ""),
    ):
        s.call(
            f"create: {key}={value!r}",
            "POST",
            "/connectors",
            {"name": n, "config": {**cfg, key: value, "snapshot.mode": "bogus"}},
        )
    # request media types Jersey takes as JSON or refuses (a malformed body: taken ones fail in Jackson)
    for content_type in (
        "application/json; charset=UTF-8",
        "APPLICATION/JSON",
        "application/json;charset=ISO-8859-1",
        "application/vnd.kafka+json",
        "application/json-patch+json",
        "application/*",
        "*/*",
        "text/json",
    ):
        s.raw(f"create: Content-Type {content_type}", "POST", "/connectors", b"{not json", content_type)
    # JSON scalars that are not strings, as Jackson binds them into Map<String, String> (shown in the error)
    for label, value_text in (
        ("integer", "1"),
        ("decimal", "1.50"),
        ("exponent", "1E+3"),
        ("huge", "123456789012345678901234567890"),
        ("true", "true"),
        ("negative zero", "-0.0"),
    ):
        template = json.dumps({"name": n, "config": {**cfg, "tasks.max": "@", "snapshot.mode": "bogus"}})
        sent = template.replace('"@"', value_text).encode()
        s.raw(f"create: tasks.max as JSON {label}", "POST", "/connectors", sent, "application/json")
    # odd names, with a config that fails anyway (so a wrongly accepted name creates nothing)
    bad = {**cfg, "tasks.max": "0"}
    for label, odd in (
        ("control character", "a\u0001b"),
        ("tab", "a\tb"),
        ("padded", "  padded  "),
        ("slash", "a/b"),
        ("non-ASCII", "caf\u00e9"),
        ("blank", "   "),
    ):
        s.call(f"create: {label} name", "POST", "/connectors", {"name": odd, "config": bad})
    s.call(
        "create: padded name, config names it unpadded",
        "POST",
        "/connectors",
        {"name": " rc2 ", "config": {**bad, "name": "rc2"}},
    )
    for label, path in (
        ("encoded slash", "/connectors/a%2Fb/status"),
        ("encoded space", "/connectors/a%20b/status"),
        ("non-ASCII", "/connectors/caf%C3%A9/status"),
    ):
        s.call(f"unknown connector, {label}", "GET", path)
    # what the Accept header rules out (Jersey's 406), and methods no resource declares
    for accept in ("text/plain", "text/html", "application/*", "*/*", "application/json;q=0, text/plain", "bogus"):
        s.raw(f"list, Accept {accept}", "GET", "/connectors", None, None, Accept=accept)
    s.raw("root, Accept text/plain", "GET", "/", None, None, Accept="text/plain")
    s.raw("plugins, Accept text/plain", "GET", "/connector-plugins", None, None, Accept="text/plain")
    s.raw("HEAD list", "HEAD", "/connectors", None, None)
    s.raw("OPTIONS list", "OPTIONS", "/connectors", None, None)
    s.raw("OPTIONS list, Accept JSON", "OPTIONS", "/connectors", None, None, Accept="application/json")
    s.raw("OPTIONS unknown connector", "OPTIONS", "/connectors/nope", None, None)
    s.raw("OPTIONS config", "OPTIONS", "/connectors/nope/config", None, None)
    s.raw("OPTIONS task restart", "OPTIONS", "/connectors/nope/tasks/0/restart", None, None)
    s.raw("OPTIONS root", "OPTIONS", "/", None, None)
    s.raw("OPTIONS no resource", "OPTIONS", "/nope", None, None)
    # paths Jetty refuses or rewrites before Connect's resources see them (rest/uri_compliance.py)
    for path in (
        "/connectors/a%2fb",
        "/connectors/a%5Cb/status",
        "/connectors/a\\b/status",
        "/connectors/a%7Fb/status",
        "/connectors/a%01b/status",
        "/connectors/a%00b/status",
        "/connectors/a%2Fb%5Cc",
        "/connectors/%2E%2E/status",
        "/connectors/.%2E/status",
        "/connectors/..;/status",
        "//connectors",
        "/connectors/a//",
        "/connector-plugins//",
        "/connectors/a%25b/status",
        "/connectors/a%u0041b/status",
        "/connectors/a%C3b/status",
        "/connectors/a%2/status",
        "/connectors/a%zzb/status",
        "/connectors/../connectors",
        "/connectors/a/../b/status",
        "/connectors/./",
        "/connectors/.hidden/status",
        "/connectors/a;b;c/status",
        "/connectors/a;/status",
        "/connectors/a%3Bb/status",
        "/connectors;x",
    ):
        s.call(f"path {path}", "GET", path)
    s.call("create: bad enum value", "POST", "/connectors", {"name": n, "config": {**cfg, "snapshot.mode": "bogus"}})
    s.call("create: bad initial_state", "POST", "/connectors", {"name": n, "config": cfg, "initial_state": "BOGUS"})
    s.call("create: object value", "POST", "/connectors", {"name": n, "config": {**cfg, "x": {"a": 1}}})
    s.call("create: array value", "POST", "/connectors", {"name": n, "config": {**cfg, "x": [1]}})
    s.call("create: object name", "POST", "/connectors", {"name": {"a": 1}, "config": cfg})
    s.call("create: array body", "POST", "/connectors", [1, 2])
    s.call("create: array config", "POST", "/connectors", {"name": n, "config": [1]})
    s.call("create: unknown field", "POST", "/connectors", {"name": n, "config": cfg, "extra": 1})
    s.raw("create: malformed json", "POST", "/connectors", b"{not json", "application/json")
    # where Jackson places a binding error after non-ASCII text (bytes or characters), and a multi-line body's
    non_ascii = '{"name": "caf\u00e9 \u20ac \U0001f600",\n "config": {"z\u00fc": "\u00e9", "x": {"a": 1}}}'
    s.raw("create: object value after non-ASCII", "POST", "/connectors", non_ascii.encode(), "application/json")
    s.raw("create: empty body", "POST", "/connectors", b"", "application/json")
    s.raw("create: text/plain", "POST", "/connectors", b'{"name":"x","config":{}}', "text/plain")
    # -- a connector the worker does not know -----------------------------------------------------------------------
    for label, method, path in (
        ("nope: topics", "GET", "/connectors/nope/topics"),
        ("nope: topics reset", "PUT", "/connectors/nope/topics/reset"),
        ("nope: task status", "GET", "/connectors/nope/tasks/0/status"),
        ("nope: offsets", "GET", "/connectors/nope/offsets"),
        ("nope: pause", "PUT", "/connectors/nope/pause"),
        ("nope: stop", "PUT", "/connectors/nope/stop"),
        ("nope: restart", "POST", "/connectors/nope/restart"),
        ("nope: restart plan", "POST", "/connectors/nope/restart?includeTasks=true"),
        ("nope: delete offsets", "DELETE", "/connectors/nope/offsets"),
    ):
        s.call(label, method, path)
    s.call("nope: patch config", "PATCH", "/connectors/nope/config", {"a": "b"})
    # -- created PAUSED: not started, so no task configs until resumed ----------------------------------------------
    s.call(
        "create numeric name, stopped", "POST", "/connectors", {"name": 5, "config": cfg, "initial_state": "STOPPED"}
    )
    s.call("create paused", "POST", "/connectors", {"name": n, "config": cfg, "initial_state": "PAUSED"})
    s.call("create: exists", "POST", "/connectors", {"name": n, "config": cfg})
    s.settled("status after paused create", "PAUSED", 0)
    s.call("tasks after paused create", "GET", f"/connectors/{n}/tasks")
    s.call("list", "GET", "/connectors")
    s.call("list expand status", "GET", "/connectors?expand=status")
    s.call("list expand info", "GET", "/connectors?expand=info")
    s.call("list expand bogus", "GET", "/connectors?expand=bogus")
    s.call("resume", "PUT", f"/connectors/{n}/resume")
    s.settled("status after resume", "RUNNING", 1)
    s.offsets_committed()
    s.call("get config", "GET", f"/connectors/{n}/config")
    s.call("tasks after resume", "GET", f"/connectors/{n}/tasks")
    # -- restarts ---------------------------------------------------------------------------------------------------
    s.call("task 1 status", "GET", f"/connectors/{n}/tasks/1/status")
    s.call("task x status", "GET", f"/connectors/{n}/tasks/x/status")
    s.call("restart task 1", "POST", f"/connectors/{n}/tasks/1/restart")
    s.call("restart task of nope", "POST", "/connectors/nope/tasks/0/restart")
    s.call("restart task 0", "POST", f"/connectors/{n}/tasks/0/restart")
    s.settled("status after task restart", "RUNNING", 1)
    s.call("restart connector", "POST", f"/connectors/{n}/restart")
    s.settled("status after restart", "RUNNING", 1)
    s.call("restart includeTasks", "POST", f"/connectors/{n}/restart?includeTasks=true")
    s.settled("status after restart plan", "RUNNING", 1)
    s.call("restart onlyFailed", "POST", f"/connectors/{n}/restart?includeTasks=true&onlyFailed=true")
    s.call("restart includeTasks=maybe", "POST", f"/connectors/{n}/restart?includeTasks=maybe")
    s.settled("status after legacy restart", "RUNNING", 1)
    # -- offsets while running, config updates ----------------------------------------------------------------------
    s.call(
        "patch offsets while running",
        "PATCH",
        f"/connectors/{n}/offsets",
        {"offsets": [{"partition": {"server": token}, "offset": {"lsn": [1]}}]},
    )
    s.call("delete offsets while running", "DELETE", f"/connectors/{n}/offsets")
    s.call("put config name mismatch", "PUT", f"/connectors/{n}/config", {**cfg, "name": "other"})
    s.call("put config no class", "PUT", f"/connectors/{n}/config", no_class)
    s.call("put config bad value", "PUT", f"/connectors/{n}/config", {**cfg, "snapshot.mode": "bogus"})
    s.call("patch config", "PATCH", f"/connectors/{n}/config", {"heartbeat.interval.ms": "1000"})
    s.tasks_configured_with("heartbeat.interval.ms")
    s.settled("status after patch", "RUNNING", 1)
    s.call("patch config remove class", "PATCH", f"/connectors/{n}/config", {"connector.class": None})
    s.call("put config same", "PUT", f"/connectors/{n}/config", {**cfg, "heartbeat.interval.ms": "1000"})
    s.tasks_configured_with("heartbeat.interval.ms")
    s.settled("status after put", "RUNNING", 1)
    s.call("config after put", "GET", f"/connectors/{n}")
    # -- paused -----------------------------------------------------------------------------------------------------
    s.call("pause", "PUT", f"/connectors/{n}/pause")
    s.settled("status after pause", "PAUSED", 1)
    s.call("pause again", "PUT", f"/connectors/{n}/pause")
    s.call("tasks paused", "GET", f"/connectors/{n}/tasks")
    # a config changed while paused: the connector is not running, so its tasks keep their configs until resumed
    s.call("patch config while paused", "PATCH", f"/connectors/{n}/config", {"heartbeat.interval.ms": "2000"})
    s.settled("status after patch while paused", "PAUSED", 1)
    s.call("tasks after patch while paused", "GET", f"/connectors/{n}/tasks")
    s.call("resume after patch while paused", "PUT", f"/connectors/{n}/resume")
    s.tasks_configured_with("heartbeat.interval.ms", "2000")
    s.settled("status after resume after patch", "RUNNING", 1)
    s.call("tasks after resume after patch", "GET", f"/connectors/{n}/tasks")
    s.call("pause after resume", "PUT", f"/connectors/{n}/pause")
    s.settled("status after pause after resume", "PAUSED", 1)
    s.call("restart task 0 while paused", "POST", f"/connectors/{n}/tasks/0/restart")
    s.settled("status after task restart while paused", "PAUSED", 1)
    s.call("restart plan while paused", "POST", f"/connectors/{n}/restart?includeTasks=true")
    s.settled("status after restart plan while paused", "PAUSED", 1)
    # -- stopped: the offsets API -----------------------------------------------------------------------------------
    s.call("stop", "PUT", f"/connectors/{n}/stop")
    s.settled("status after stop", "STOPPED", 0)
    s.call("tasks when stopped", "GET", f"/connectors/{n}/tasks")
    s.call("task 0 status when stopped", "GET", f"/connectors/{n}/tasks/0/status")
    s.call("task restart when stopped", "POST", f"/connectors/{n}/tasks/0/restart")
    s.call("offsets when stopped", "GET", f"/connectors/{n}/offsets")
    part = {"server": token}
    for label, body in (
        ("patch offsets no body", None),
        ("patch offsets empty object", {}),
        ("patch offsets empty list", {"offsets": []}),
        ("patch offsets not a list", {"offsets": {"a": 1}}),
        ("patch offsets null partition", {"offsets": [{"partition": None, "offset": {"lsn": 1}}]}),
        ("patch offsets array value", {"offsets": [{"partition": part, "offset": {"lsn": [1]}}]}),
        ("patch offsets object value", {"offsets": [{"partition": part, "offset": {"lsn": {"a": 1}}}]}),
        ("patch offsets array partition", {"offsets": [{"partition": {"server": [1]}, "offset": {"lsn": 1}}]}),
        ("patch offsets other server", {"offsets": [{"partition": {"server": "zzz"}, "offset": {"lsn": 1}}]}),
        ("patch offsets lsn", {"offsets": [{"partition": part, "offset": {"lsn": 12345}}]}),
    ):
        s.call(label, "PATCH", f"/connectors/{n}/offsets", body)
    s.offsets_settled("offsets after patch")
    s.call(
        "patch offsets null offset",
        "PATCH",
        f"/connectors/{n}/offsets",
        {"offsets": [{"partition": part, "offset": None}]},
    )
    s.offsets_settled("offsets after null patch")
    s.call("delete offsets", "DELETE", f"/connectors/{n}/offsets")
    s.offsets_settled("offsets after delete")
    s.call("topics reset", "PUT", f"/connectors/{n}/topics/reset")
    s.call("resume from stopped", "PUT", f"/connectors/{n}/resume")
    s.settled("status after resume from stopped", "RUNNING", 1)
    # -- plugins, loggers, routes -----------------------------------------------------------------------------------
    s.call("plugin config unknown", "GET", "/connector-plugins/nope/config")
    s.call("plugin config", "GET", "/connector-plugins/PostgresConnector/config")
    s.call(
        "validate minimal",
        "PUT",
        "/connector-plugins/PostgresConnector/config/validate",
        {"connector.class": "PostgresConnector"},
    )
    s.call("validate unknown", "PUT", "/connector-plugins/Nope/config/validate", {"connector.class": "Nope"})
    s.call("validate no class", "PUT", "/connector-plugins/PostgresConnector/config/validate", {"topic.prefix": "x"})
    s.call(
        "validate full class name",
        "PUT",
        "/connector-plugins/PostgresConnector/config/validate",
        {"connector.class": "io.debezium.connector.postgresql.PostgresConnector"},
    )
    s.call(
        "validate mismatch",
        "PUT",
        "/connector-plugins/PostgresConnector/config/validate",
        {"connector.class": "FileStreamSource"},
    )
    s.call("validate no body", "PUT", "/connector-plugins/PostgresConnector/config/validate")
    s.call("logger unknown", "GET", "/admin/loggers/org.nope")
    s.call("logger bad level", "PUT", "/admin/loggers/org.nope", {"level": "BOGUS"})
    s.call("logger no level", "PUT", "/admin/loggers/org.nope", {})
    s.call("logger set", "PUT", "/admin/loggers/org.nope", {"level": "DEBUG"})
    s.call("logger after set", "GET", "/admin/loggers/org.nope")
    s.call("logger set bogus scope", "PUT", "/admin/loggers/org.nope?scope=bogus", {"level": "INFO"})
    # last of the logger steps: a distributed worker applies the cluster scope later, through its config topic
    s.call("logger set cluster", "PUT", "/admin/loggers/org.nope?scope=cluster", {"level": "DEBUG"})
    s.call("unknown path", "GET", "/nope")
    s.raw("method not allowed", "DELETE", "/connectors", None, None)
    s.raw("method not allowed on a connector's status", "POST", f"/connectors/{n}/status", b"{}", "application/json")
    s.raw("method not allowed on restart", "GET", f"/connectors/{n}/restart", None, None)
    s.raw("method not allowed on plugins", "PUT", "/connector-plugins", b"{}", "application/json")
    s.raw("method not allowed on a logger", "DELETE", "/admin/loggers/org.nope", None, None)
    s.call("trailing slash", "GET", f"/connectors/{n}/")
    # -- deletion, then created STOPPED and through PUT -------------------------------------------------------------
    s.call("delete", "DELETE", f"/connectors/{n}")
    s.call("delete again", "DELETE", f"/connectors/{n}")
    s.call("topics after delete", "GET", f"/connectors/{n}/topics")
    s.call("create stopped", "POST", "/connectors", {"name": n, "config": cfg, "initial_state": "STOPPED"})
    s.settled("status after stopped create", "STOPPED", 0)
    s.call("pause from stopped", "PUT", f"/connectors/{n}/pause")
    s.settled("status after pause from stopped", "PAUSED", 0, timeout=20.0)
    s.call("tasks after pause from stopped", "GET", f"/connectors/{n}/tasks")
    s.call("delete stopped", "DELETE", f"/connectors/{n}")
    s.call("put config creates", "PUT", f"/connectors/{n}/config", cfg)
    s.settled("status after put-create", "RUNNING", 1)
    s.call("stop before the end", "PUT", f"/connectors/{n}/stop")
    s.settled("status before the end", "STOPPED", 0)
    s.call("delete at the end", "DELETE", f"/connectors/{n}")
    s.call("delete numeric name", "DELETE", "/connectors/5")


_OFFSET_VALUES = re.compile(r'"(lsn|txId|ts_usec)":\d+')
_LAST_MODIFIED = re.compile(r'"last_modified":\d+')


def run(worker: ConnectDebezium, token: str, pg_port: int) -> dict[str, Step]:
    """The script against a started worker, on a database (re)created for it; the steps by label, normalised:
    the token and worker id replaced, LSNs / txIds / timestamps in offsets and logger times masked.

    Runs to be compared use the same token one after the other: it is in the offsets' partitions, and Connect
    lists those in the order of a java.util.HashMap keyed by them. The topic `<token>.public.t` is left for
    the next run (the caller deletes it)."""
    worker.note_token(token)
    with scratch_database(token, port=pg_port) as dsn:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("CREATE TABLE public.t (id int PRIMARY KEY, v text)")
            conn.execute("INSERT INTO public.t VALUES (1, 'a')")
        cfg = postgres_connector_config(
            prefix=token, dbname=token, slot=token, publication=token, tables=["public.t"], pg_port=pg_port
        )
        session = _Session(worker)
        try:
            _script(session, token, cfg)
        finally:
            for name in (NAME, "5"):
                worker.delete_connector(name)
    replace: list[Callable[[str], str]] = [
        lambda t: t.replace(token, "<tok>"),
        lambda t: t.replace(worker.worker_id, "<worker>"),
        lambda t: _OFFSET_VALUES.sub(r'"\1":0', t),
        lambda t: _LAST_MODIFIED.sub('"last_modified":0', t),
    ]
    steps = {}
    for step in session.steps:
        text = step.body
        for f in replace:
            text = f(text)
        assert step.label not in steps, step.label
        steps[step.label] = Step(step.label, step.status, step.content_type, text)
    return steps


def parsed(step: Step) -> tuple[int, str | None, Any]:
    """The answer with its body parsed (for answers whose map order differs by design); a body that is not JSON
    (Jetty's HTML error pages) as it is."""
    json_body = step.body and (step.content_type or "application/json").startswith("application/json")
    return step.status, step.content_type, loads(step.body) if json_body else step.body


def without(doc: Any, key: str) -> Any:
    """`doc` with every `key` member removed, at any depth (documentation texts are this project's own)."""
    if isinstance(doc, dict):
        return {k: without(v, key) for k, v in doc.items() if k != key}
    if isinstance(doc, list):
        return [without(v, key) for v in doc]
    return doc


__all__ = ["NAME", "Step", "parsed", "run", "without"]
