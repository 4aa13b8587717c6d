"""The one Schema Registry call the Avro decoder needs: GET /schemas/ids/{id} (Confluent REST API; Confluent Schema
Registry, Karapace, Apicurio's `/apis/ccompat/v7`). Blocking, stdlib urllib only; the job calls it on the driver,
once per schema id (the decoder caches).

Errors, named for what the job must do:
- `UnknownSchema` (HTTP 404, or a Protobuf/JSON schema): the record names an id the registry has no Avro schema
  for: the record is undecodable (dead letter, or a fail-fast stop).
- `RegistryError` (unreachable, 5xx, 401/403, an answer that is not a schema): not the record's fault, so it is
  not a ValueError and is never caught as a decode failure: it stops the batch, which is replayed on restart.
"""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Protocol

ACCEPT = "application/vnd.schemaregistry.v1+json, application/json"


class SchemaSource(Protocol):
    """Where the decoder gets a writer schema: the Avro schema text registered under `schema_id`."""

    def schema_text(self, schema_id: int) -> str: ...


class UnknownSchema(LookupError):
    """The registry has no Avro schema with this id (none at all, or one of another type)."""


class RegistryError(RuntimeError):
    """The registry could not be asked, or refused to answer (not a property of the record)."""


def split_user_info(url: str) -> tuple[str, str | None]:
    """`http://user:pw@host/path` → (`http://host/path`, `user:pw`); a URL without user info is returned as is."""
    p = urllib.parse.urlsplit(url)
    if p.username is None:
        return url, None
    netloc = (p.hostname or "") + (f":{p.port}" if p.port is not None else "")
    user_info = f"{urllib.parse.unquote(p.username)}:{urllib.parse.unquote(p.password or '')}"
    return urllib.parse.urlunsplit((p.scheme, netloc, p.path, p.query, p.fragment)), user_info


def parse_urls(raw: str) -> tuple[str, ...]:
    return tuple(u.strip().rstrip("/") for u in raw.split(",") if u.strip())


@dataclass
class RegistryClient:
    """`urls`: one or more base URLs (tried in turn when one cannot be reached); `user_info`: `user:password` for
    HTTP basic auth (or given in the first URL, as Confluent's `basic.auth.credentials.source=URL` takes it)."""

    urls: tuple[str, ...]
    user_info: str | None = None
    timeout_s: float = 30.0
    calls: int = field(default=0, init=False)  # registry requests made (tests check the per-id cache with it)

    def __post_init__(self) -> None:
        if not self.urls:
            raise ValueError("no schema registry URL")
        stripped = [split_user_info(u) for u in self.urls]
        self.urls = tuple(u for u, _ in stripped)
        if self.user_info is None:
            self.user_info = stripped[0][1]

    @classmethod
    def from_config(cls, urls: str, user_info: str | None = None, timeout_s: float = 30.0) -> RegistryClient:
        return cls(parse_urls(urls), user_info or None, timeout_s)

    @property
    def where(self) -> str:
        return ", ".join(self.urls)

    def schema_text(self, schema_id: int) -> str:
        headers = {"Accept": ACCEPT}
        if self.user_info:
            headers["Authorization"] = "Basic " + base64.b64encode(self.user_info.encode()).decode()
        problems = []
        for base in self.urls:
            url = f"{base}/schemas/ids/{schema_id}"
            self.calls += 1
            try:
                with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=self.timeout_s) as r:
                    body = json.loads(r.read() or b"null")
            except urllib.error.HTTPError as e:
                if e.code == 404:
                    raise UnknownSchema(
                        f"schema id {schema_id} is not in the registry ({_message(e)}; {url})"
                    ) from None
                if e.code >= 500 or e.code in (408, 429):
                    problems.append(f"{url}: HTTP {e.code} {_message(e)}")
                    continue
                raise RegistryError(f"the schema registry refused {url}: HTTP {e.code} {_message(e)}") from None
            except (urllib.error.URLError, OSError, ValueError) as e:  # ValueError: a body that is not JSON
                problems.append(f"{url}: {getattr(e, 'reason', e)}")
                continue
            kind = body.get("schemaType", "AVRO") if isinstance(body, dict) else None
            if not isinstance(body, dict) or not isinstance(body.get("schema"), str):
                raise RegistryError(f"{url} did not answer with a schema: {str(body)[:200]}")
            if kind != "AVRO":
                raise UnknownSchema(f"schema id {schema_id} is a {kind} schema, not Avro ({url})")
            return str(body["schema"])
        raise RegistryError(f"schema registry unreachable for schema id {schema_id}: {'; '.join(problems)}")


def _message(e: urllib.error.HTTPError) -> str:
    try:
        body = json.loads(e.read() or b"{}")
    except (ValueError, OSError):
        return str(e.reason)
    if isinstance(body, dict) and body.get("message"):
        code = body.get("error_code")
        return f"{body['message']}" + (f" (error code {code})" if code is not None else "")
    return str(e.reason)
