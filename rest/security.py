"""REST security: TLS for `https://` listeners (PEM key material) and HTTP basic authentication.

TLS uses Kafka's `ssl.*` key names with the PEM keystore type (KIP-651). For `listeners` the keys are read
with the prefix `listeners.https.` and, for `admin.listeners`, `admin.listeners.https.`; as in Connect, when
any key with the prefix is present only prefixed keys count, otherwise the unprefixed `ssl.*` keys are used:

| key | meaning |
|---|---|
| `ssl.keystore.type` | `PEM` (the only type supported; JKS/PKCS12 need a JVM) |
| `ssl.keystore.location` | a PEM file holding the private key and the certificate chain |
| `ssl.keystore.certificate.chain` / `ssl.keystore.key` | the same, inline PEM text (instead of a file) |
| `ssl.key.password` | password of an encrypted private key |
| `ssl.truststore.type`, `ssl.truststore.location` / `ssl.truststore.certificates` | PEM CAs of client certs |
| `ssl.client.auth` | `none` (default), `requested` or `required` |
| `ssl.enabled.protocols` | lowest protocol allowed is taken from it (default TLSv1.2,TLSv1.3) |
| `ssl.cipher.suites` | OpenSSL cipher string, when set |

Basic authentication is Connect's BasicAuthSecurityRestExtension: `rest.extension.classes=
org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension`, with the credentials file
(what Connect's JAAS PropertyFileLoginModule reads, `user=password` lines) named by
`rest.basic.auth.credentials.file`; setting the file alone also turns it on. Every request needs valid
credentials except `GET /health` (container health checks); a request without them gets 401 with
`WWW-Authenticate: Basic realm="connect"` and never reaches a handler.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import dataclasses
import hmac
import os
import re
import ssl
import tempfile
from collections.abc import Callable, Collection, Iterator, Mapping
from typing import Any, Final

from starlette.types import ASGIApp, Receive, Scope, Send

from connect_worker.api.errors import ConfigError
from connect_worker.runtime.properties import load_properties

BASIC_AUTH_EXTENSION: Final = "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension"
CREDENTIALS_FILE_KEY: Final = "rest.basic.auth.credentials.file"
REALM_KEY: Final = "rest.basic.auth.realm"
EXTENSIONS_KEY: Final = "rest.extension.classes"
UNAUTHORIZED_MESSAGE: Final = "User cannot access the resource."
PUBLIC_PATHS: Final = frozenset({"/health"})
_PROTOCOLS: Final = {"TLSv1.2": ssl.TLSVersion.TLSv1_2, "TLSv1.3": ssl.TLSVersion.TLSv1_3}


# -- TLS ---------------------------------------------------------------------------------------------------------
def ssl_settings(props: Mapping[str, str], prefix: str) -> dict[str, str]:
    """`ssl.*` keys for a listener group: the prefixed ones if any exist (all or nothing), else the plain ones."""
    prefixed = {k[len(prefix) :]: v for k, v in props.items() if k.startswith(prefix + "ssl.")}
    if prefixed:
        return prefixed
    return {k: v for k, v in props.items() if k.startswith("ssl.")}


def _key_name(prefix: str, key: str, prefixed: bool) -> str:
    return prefix + key if prefixed else key


@contextlib.contextmanager
def _pem_file(text: str) -> Iterator[str]:
    """Inline PEM text in a private temporary file, for OpenSSL's file-based loaders; removed at once."""
    fd, path = tempfile.mkstemp(prefix="cw-pem-", suffix=".pem")
    try:
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(text)
        yield path
    finally:
        os.unlink(path)


def _readable(path: str, key: str) -> None:
    try:
        with open(path, "rb"):
            pass
    except OSError as e:
        raise ConfigError(f"Cannot read {key}={path}: {e.strerror}", name=key) from None


def server_ssl_context(props: Mapping[str, str], prefix: str = "listeners.https.") -> ssl.SSLContext:
    """The SSLContext of an https listener group; ConfigError (naming the key, never a password) when the key
    material is missing, unreadable, or the key cannot be decrypted."""
    settings = ssl_settings(props, prefix)
    is_prefixed = any(k.startswith(prefix + "ssl.") for k in props)

    def name(key: str) -> str:
        return _key_name(prefix, key, is_prefixed)

    store_type = settings.get("ssl.keystore.type", "PEM").strip().upper() or "PEM"
    if store_type != "PEM":
        raise ConfigError(
            f"Invalid value {store_type} for configuration {name('ssl.keystore.type')}: only PEM key stores are "
            "supported (convert with: openssl pkcs12 -in store.p12 -nodes)",
            name=name("ssl.keystore.type"),
        )
    location = settings.get("ssl.keystore.location", "").strip()
    chain = settings.get("ssl.keystore.certificate.chain", "").strip()
    key_text = settings.get("ssl.keystore.key", "").strip()
    password = settings.get("ssl.key.password") or ""  # never OpenSSL's interactive prompt
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    protocols = [p.strip() for p in settings.get("ssl.enabled.protocols", "TLSv1.2,TLSv1.3").split(",") if p.strip()]
    versions = [_PROTOCOLS[p] for p in protocols if p in _PROTOCOLS]
    if not versions:
        raise ConfigError(
            f"Invalid value {','.join(protocols)} for configuration {name('ssl.enabled.protocols')}: "
            "TLSv1.2 and/or TLSv1.3 are supported",
            name=name("ssl.enabled.protocols"),
        )
    ctx.minimum_version = min(versions)
    ctx.maximum_version = max(versions)
    if settings.get("ssl.cipher.suites"):
        try:
            ctx.set_ciphers(settings["ssl.cipher.suites"].replace(",", ":"))
        except ssl.SSLError:
            raise ConfigError(
                f"Invalid value for configuration {name('ssl.cipher.suites')}: no cipher can be selected",
                name=name("ssl.cipher.suites"),
            ) from None
    try:
        if location:
            _readable(location, name("ssl.keystore.location"))
            ctx.load_cert_chain(location, password=password)
        elif chain and key_text:
            with _pem_file(chain) as cert_path, _pem_file(key_text) as key_path:
                ctx.load_cert_chain(cert_path, key_path, password=password)
        else:
            raise ConfigError(
                f"An https listener needs a key and certificate: set {name('ssl.keystore.location')} (a PEM file "
                f"with the private key and certificate chain) or {name('ssl.keystore.certificate.chain')} and "
                f"{name('ssl.keystore.key')}",
                name=name("ssl.keystore.location"),
            )
    except ssl.SSLError as e:
        where = location or name("ssl.keystore.key")
        text = f"{e.library or ''} {e.reason or ''} {e}".upper()
        if "DECRYPT" in text or "PEM LIB" in text or "BAD PASSWORD" in text:
            raise ConfigError(
                f"Cannot load the private key of {where}: wrong or missing {name('ssl.key.password')}, or the "
                "file holds no PEM private key matching the certificate",
                name=name("ssl.key.password"),
            ) from None
        raise ConfigError(
            f"Cannot load the key and certificate of {where}: {e.reason or e}", name=name("ssl.keystore.location")
        ) from None
    _client_auth(ctx, settings, name)
    return ctx


def _client_auth(ctx: ssl.SSLContext, settings: Mapping[str, str], name: Callable[[str], str]) -> None:
    mode = settings.get("ssl.client.auth", "none").strip().lower() or "none"
    if mode not in ("none", "requested", "required"):
        raise ConfigError(
            f"Invalid value {mode} for configuration {name('ssl.client.auth')}: none, requested or required",
            name=name("ssl.client.auth"),
        )
    trust_type = settings.get("ssl.truststore.type", "PEM").strip().upper() or "PEM"
    trust_location = settings.get("ssl.truststore.location", "").strip()
    trust_certs = settings.get("ssl.truststore.certificates", "").strip()
    if trust_type != "PEM" and (trust_location or trust_certs):
        raise ConfigError(
            f"Invalid value {trust_type} for configuration {name('ssl.truststore.type')}: only PEM is supported",
            name=name("ssl.truststore.type"),
        )
    try:
        if trust_location:
            _readable(trust_location, name("ssl.truststore.location"))
            ctx.load_verify_locations(cafile=trust_location)
        elif trust_certs:
            ctx.load_verify_locations(cadata=trust_certs)
    except ssl.SSLError as e:
        raise ConfigError(
            f"Cannot load the trust store {trust_location or name('ssl.truststore.certificates')}: {e.reason or e}",
            name=name("ssl.truststore.location"),
        ) from None
    if mode != "none" and not (trust_location or trust_certs):
        raise ConfigError(
            f"{name('ssl.client.auth')}={mode} needs {name('ssl.truststore.location')} (PEM CA certificates)",
            name=name("ssl.client.auth"),
        )
    ctx.verify_mode = {"none": ssl.CERT_NONE, "requested": ssl.CERT_OPTIONAL, "required": ssl.CERT_REQUIRED}[mode]


# -- basic authentication --------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True, slots=True)
class BasicAuthSettings:
    credentials: Mapping[str, str]
    realm: str = "connect"
    public_paths: Collection[str] = PUBLIC_PATHS


def load_credentials(path: str, key: str = CREDENTIALS_FILE_KEY) -> dict[str, str]:
    try:
        creds = load_properties(path)
    except OSError as e:
        raise ConfigError(f"Cannot read {key}={path}: {e.strerror}", name=key) from None
    if not creds:
        raise ConfigError(f"{key}={path} holds no user=password line: nobody could use the REST API", name=key)
    return creds


def basic_auth_settings(props: Mapping[str, str]) -> BasicAuthSettings | None:
    """The worker's basic-auth settings, or None when the REST API is open."""
    extensions = [x.strip() for x in props.get(EXTENSIONS_KEY, "").split(",") if x.strip()]
    unknown = [x for x in extensions if x.rsplit(".", 1)[-1] != BASIC_AUTH_EXTENSION.rsplit(".", 1)[-1]]
    if unknown:
        raise ConfigError(
            f"Invalid value {','.join(unknown)} for configuration {EXTENSIONS_KEY}: only {BASIC_AUTH_EXTENSION} "
            "is available",
            name=EXTENSIONS_KEY,
        )
    path = props.get(CREDENTIALS_FILE_KEY, "").strip()
    if extensions and not path:
        raise ConfigError(
            f"{BASIC_AUTH_EXTENSION} needs {CREDENTIALS_FILE_KEY} (a properties file of user=password lines)",
            name=CREDENTIALS_FILE_KEY,
        )
    if not path:
        return None
    return BasicAuthSettings(load_credentials(path), props.get(REALM_KEY, "connect") or "connect")


def _check(header: str | None, credentials: Mapping[str, str]) -> bool:
    if not header:
        return False
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "basic":
        return False
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return False
    user, sep, password = decoded.partition(":")
    if not sep:
        return False
    expected = credentials.get(user)
    # compare even for unknown users, so timing does not tell which users exist
    ok = hmac.compare_digest(password.encode(), (expected if expected is not None else "\0" + password).encode())
    return ok and expected is not None


# Connect's JaasBasicAuthFilter lets the inter-worker requests through unauthenticated (a cluster running the
# `sessioned` protocol signs them instead): a worker handing its task configs to the leader, and zombie fencing
_INTERNAL = (("POST", re.compile(r"/?connectors/[^/]+/tasks/?")), ("PUT", re.compile(r"/?connectors/[^/]+/fence/?")))


def _internal(method: Any, path: str) -> bool:
    return any(method == m and pattern.fullmatch(path) for m, pattern in _INTERNAL)


class BasicAuthMiddleware:
    """ASGI middleware: 401 unless the request carries valid basic credentials (public paths excepted)."""

    def __init__(self, app: ASGIApp, settings: BasicAuthSettings) -> None:
        self.app = app
        self.settings = settings
        self._body = b'{"error_code":401,"message":"' + UNAUTHORIZED_MESSAGE.encode() + b'"}'

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        if len(path) > 1 and path.endswith("/"):
            path = path[:-1]
        method = scope.get("method")
        if (method == "GET" and path in self.settings.public_paths) or _internal(method, path):
            await self.app(scope, receive, send)
            return
        header = None
        for k, v in scope.get("headers", ()):
            if k == b"authorization":
                header = v.decode("latin-1")
                break
        if _check(header, self.settings.credentials):
            await self.app(scope, receive, send)
            return
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(self._body)).encode()),
                    (b"www-authenticate", f'Basic realm="{self.settings.realm}"'.encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": self._body})
