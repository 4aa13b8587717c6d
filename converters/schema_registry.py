"""A small client of the Confluent Schema Registry REST API (Confluent Schema Registry, Karapace, Apicurio's
`/apis/ccompat/v7`), with the settings Confluent's serializers take.

Blocking calls (http.client: `http.connect.timeout.ms` to connect, `http.read.timeout.ms` per read); the converter
runs them off the event loop. Several `schema.registry.url`s are tried in turn, starting from the last one that
answered. Errors:
- `RegistryUnavailable` (the registry could not be reached or answered 5xx/408/429): retriable;
- `RegistryError` (any other HTTP error): carries the status, the registry's error code and message.
"""

from __future__ import annotations

import base64
import http.client
import json
import ssl
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from connect_worker.api.errors import ConfigError

CONTENT_TYPE: Final = "application/vnd.schemaregistry.v1+json"
_RETRIABLE_STATUS: Final = frozenset({408, 429, 500, 502, 503, 504})


class RegistryUnavailable(Exception):
    """No registry URL answered."""


class RegistryError(Exception):
    def __init__(self, status: int, code: int | None, message: str, url: str) -> None:
        super().__init__(f"{message}; error code: {code if code is not None else status} ({url})")
        self.status = status
        self.code = code
        self.message = message
        self.url = url


@dataclass(frozen=True)
class RegistrySettings:
    urls: tuple[str, ...]
    user_info: str | None = None
    connect_timeout_s: float = 60.0
    read_timeout_s: float = 60.0
    ssl_context: ssl.SSLContext | None = None
    normalize: bool = False


def _str(configs: Mapping[str, Any], key: str, default: str | None = None) -> str | None:
    v = configs.get(key, default)
    if v is None:
        return None
    return str(v)


def settings_from_config(configs: Mapping[str, Any]) -> RegistrySettings:
    """The registry settings of a serializer/converter config (Confluent's key names)."""
    raw = configs.get("schema.registry.url")
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        raise ConfigError('Missing required configuration "schema.registry.url" which has no default value.')
    urls = tuple(u.strip().rstrip("/") for u in (raw if isinstance(raw, list) else str(raw).split(",")) if u.strip())
    for u in urls:
        scheme = urllib.parse.urlsplit(u).scheme
        if scheme not in ("http", "https"):
            raise ConfigError(f"Invalid value {u} for configuration schema.registry.url: not an http(s) URL")
    source = (_str(configs, "basic.auth.credentials.source", "URL") or "URL").upper()
    user_info: str | None = None
    if source == "USER_INFO":
        user_info = _str(configs, "basic.auth.user.info") or _str(configs, "schema.registry.basic.auth.user.info")
        if not user_info:
            raise ConfigError("basic.auth.credentials.source=USER_INFO needs basic.auth.user.info (user:password)")
    elif source == "URL":
        parsed = urllib.parse.urlsplit(urls[0])
        if parsed.username is not None:
            user_info = f"{urllib.parse.unquote(parsed.username)}:{urllib.parse.unquote(parsed.password or '')}"
        urls = tuple(_strip_user_info(u) for u in urls)
    elif source == "SASL_INHERIT":
        raise ConfigError("basic.auth.credentials.source=SASL_INHERIT is not supported; use USER_INFO or URL")
    else:
        raise ConfigError(
            f"Invalid value {source} for configuration basic.auth.credentials.source: "
            "one of URL, USER_INFO, SASL_INHERIT"
        )
    for key in ("bearer.auth.credentials.source", "bearer.auth.token"):
        if configs.get(key):
            raise ConfigError(f"{key}: bearer authentication to the schema registry is not supported; use basic auth")
    connect_ms = int(configs.get("http.connect.timeout.ms", 60000))
    read_ms = int(configs.get("http.read.timeout.ms", 60000))
    context = _ssl_context(configs) if any(u.startswith("https:") for u in urls) else None
    normalize = str(configs.get("normalize.schemas", "false")).lower() == "true"
    return RegistrySettings(urls, user_info, connect_ms / 1000, read_ms / 1000, context, normalize)


def _strip_user_info(url: str) -> str:
    p = urllib.parse.urlsplit(url)
    if p.username is None:
        return url
    netloc = p.hostname or ""
    if p.port is not None:
        netloc += f":{p.port}"
    return urllib.parse.urlunsplit((p.scheme, netloc, p.path, p.query, p.fragment))


def _ssl_context(configs: Mapping[str, Any]) -> ssl.SSLContext:
    """TLS to the registry from `schema.registry.ssl.*`, PEM stores only (Python cannot read JKS/PKCS12)."""
    prefix = "schema.registry.ssl."
    ctx = ssl.create_default_context()
    for store in ("truststore", "keystore"):
        kind = (_str(configs, f"{prefix}{store}.type") or "").upper()
        location = _str(configs, f"{prefix}{store}.location")
        if location and kind != "PEM":
            raise ConfigError(
                f"{prefix}{store}.type={kind or 'JKS'}: only PEM stores are supported for the schema registry "
                f"(set {prefix}{store}.type=PEM with a PEM file in {prefix}{store}.location)"
            )
    trust = _str(configs, f"{prefix}truststore.location")
    trust_certs = _str(configs, f"{prefix}truststore.certificates")
    if trust:
        ctx.load_verify_locations(cafile=trust)
    elif trust_certs:
        ctx.load_verify_locations(cadata=trust_certs)
    keystore = _str(configs, f"{prefix}keystore.location")
    if keystore:
        password = _str(configs, f"{prefix}key.password") or _str(configs, f"{prefix}keystore.password")
        ctx.load_cert_chain(keystore, password=password)
    if configs.get(f"{prefix}keystore.key") or configs.get(f"{prefix}keystore.certificate.chain"):
        raise ConfigError(f"{prefix}keystore.key / .certificate.chain in the config are not supported; use a PEM file")
    if (_str(configs, f"{prefix}endpoint.identification.algorithm", "https") or "") == "":
        ctx.check_hostname = False
    return ctx


class SchemaRegistryClient:
    def __init__(self, settings: RegistrySettings) -> None:
        self.settings = settings
        self._first = 0
        auth = settings.user_info
        self._auth = "Basic " + base64.b64encode(auth.encode()).decode() if auth else None

    @property
    def urls(self) -> str:
        return ", ".join(self.settings.urls)

    def _request(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body, separators=(",", ":")).encode()
        headers = {"Accept": f"{CONTENT_TYPE}, application/json", "Content-Type": CONTENT_TYPE}
        if self._auth:
            headers["Authorization"] = self._auth
        urls = self.settings.urls
        last: Exception | None = None
        for k in range(len(urls)):
            i = (self._first + k) % len(urls)
            url = urls[i] + path
            try:
                status, reason, answer = self._exchange(url, method, data, headers)
            except (OSError, http.client.HTTPException) as e:
                last = RegistryUnavailable(f"{url}: {e}")
                continue
            if status in _RETRIABLE_STATUS:
                last = RegistryUnavailable(f"{url} answered HTTP {status}")
                continue
            self._first = i
            if 200 <= status < 300:
                return json.loads(answer or b"null")
            raise _registry_error(status, reason, answer, url)
        raise RegistryUnavailable(f"schema registry unreachable at {self.urls}: {last}")

    def _exchange(self, url: str, method: str, data: bytes | None, headers: dict[str, str]) -> tuple[int, str, bytes]:
        """One request: connected within http.connect.timeout.ms, each read within http.read.timeout.ms."""
        parts = urllib.parse.urlsplit(url)
        settings = self.settings
        conn: http.client.HTTPConnection
        if parts.scheme == "https":
            conn = http.client.HTTPSConnection(
                parts.hostname or "", parts.port, timeout=settings.connect_timeout_s, context=settings.ssl_context
            )
        else:
            conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=settings.connect_timeout_s)
        try:
            conn.connect()
            assert conn.sock is not None
            conn.sock.settimeout(settings.read_timeout_s)
            conn.request(method, parts.path + (f"?{parts.query}" if parts.query else ""), body=data, headers=headers)
            resp = conn.getresponse()
            return resp.status, resp.reason, resp.read()
        finally:
            conn.close()

    # -- the API --------------------------------------------------------------------------------------
    def register(self, subject: str, schema: str) -> int:
        """POST /subjects/{subject}/versions: the id of the schema under the subject (registered if new)."""
        query = "?normalize=true" if self.settings.normalize else ""
        out = self._request("POST", f"/subjects/{_q(subject)}/versions{query}", _body(schema))
        return int(out["id"])

    def lookup(self, subject: str, schema: str) -> tuple[int, int]:
        """POST /subjects/{subject}: (id, version) of a schema already registered under the subject."""
        query = "?normalize=true" if self.settings.normalize else ""
        out = self._request("POST", f"/subjects/{_q(subject)}{query}", _body(schema))
        return int(out["id"]), int(out["version"])

    def latest(self, subject: str) -> tuple[int, int, str]:
        """GET /subjects/{subject}/versions/latest: (id, version, schema text)."""
        out = self._request("GET", f"/subjects/{_q(subject)}/versions/latest")
        return int(out["id"]), int(out["version"]), str(out["schema"])

    def schema_by_id(self, schema_id: int) -> str:
        """GET /schemas/ids/{id}: the schema text."""
        out = self._request("GET", f"/schemas/ids/{schema_id}")
        return str(out["schema"])


def _body(schema: str) -> dict[str, str]:
    # the type named although AVRO is the API's default: Apicurio's Confluent API otherwise guesses the type from the
    # content, and its guess fails on some valid Avro (a bytes default holding control characters)
    return {"schemaType": "AVRO", "schema": schema}


def _q(subject: str) -> str:
    return urllib.parse.quote(subject, safe="")


def _registry_error(status: int, reason: str, answer: bytes, url: str) -> RegistryError:
    """The registry's refusal: its `error_code` and `message` when the body has them."""
    code: int | None = None
    message = reason or f"HTTP {status}"
    try:
        doc = json.loads(answer or b"{}")
        code = doc.get("error_code")
        message = doc.get("message") or message
    except (ValueError, AttributeError):
        pass
    return RegistryError(status, code, str(message), url)
