"""The schema registry side of the avro mode, through its Confluent API (stdlib urllib only): is it up, the writer
schema of an id (cached: ids are immutable), and removing a run's subjects afterwards like its topics."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable
from typing import Any

from benchmarks.settings import REGISTRY_URL


def _request(method: str, url: str, timeout: float) -> tuple[int, bytes]:
    """(status, body) of one request; an HTTP error status is returned, a connection error raised (OSError)."""
    req = urllib.request.Request(url, method=method, headers={"Accept": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


class Registry:
    """A Confluent-API schema registry (the devstack's Apicurio Registry at /apis/ccompat/v7 by default)."""

    def __init__(self, url: str = REGISTRY_URL, *, timeout: float = 10.0) -> None:
        self.url = url.rstrip("/")
        self.timeout = timeout
        self._schemas: dict[int, Any] = {}

    def _get(self, path: str) -> Any:
        status, body = _request("GET", self.url + path, self.timeout)
        if status != 200:
            raise LookupError(f"GET {self.url}{path}: {status} {body.decode(errors='replace')[:300]}")
        return json.loads(body)

    def check(self) -> None:
        """SystemExit with what to do when the registry does not answer GET /subjects."""
        try:
            self._get("/subjects")
        except (OSError, LookupError, ValueError) as e:
            raise SystemExit(
                f"the schema registry at {self.url} does not answer ({e}): the avro mode needs it. Start it with "
                "`make up` (devstack/registry.sh start; another port: CW_REGISTRY_PORT), or leave avro out of "
                "BENCH_SCHEMAS"
            ) from None

    def schema(self, schema_id: int) -> Any:
        """The schema registered under an id, as JSON data (GET /schemas/ids/{id}), fetched once per id."""
        cached = self._schemas.get(schema_id)
        if cached is None:
            body = self._get(f"/schemas/ids/{schema_id}")
            if body.get("schemaType", "AVRO") != "AVRO":
                raise ValueError(f"schema {schema_id} is {body.get('schemaType')}, not AVRO")
            cached = self._schemas[schema_id] = json.loads(body["schema"])
        return cached

    def delete_subjects(self, subjects: Iterable[str]) -> list[str]:
        """Delete each subject, soft then permanently (both are always tried: a subject a failed clean-up left
        soft-deleted only answers the second); best effort. Returns those that existed. By name, never by listing:
        Apicurio's GET /subjects answers with the first 1,000 subjects only."""
        existed = []
        for subject in subjects:
            quoted = self.url + "/subjects/" + urllib.parse.quote(subject, safe="")
            statuses = []
            for url in (quoted, quoted + "?permanent=true"):
                try:
                    statuses.append(_request("DELETE", url, self.timeout)[0])
                except OSError:
                    statuses.append(0)
            if 200 in statuses:
                existed.append(subject)
        return existed
