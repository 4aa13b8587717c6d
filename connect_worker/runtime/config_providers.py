"""Config providers (KIP-297, KIP-421): `${provider:[path:]key}` placeholders in worker and connector configs.

The worker declares its providers like Kafka Connect does::

    config.providers=file,env,dir
    config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider
    config.providers.env.class=org.apache.kafka.common.config.provider.EnvVarConfigProvider
    config.providers.dir.class=org.apache.kafka.common.config.provider.DirectoryConfigProvider
    config.providers.file.param.allowed.paths=/run/secrets        # optional (KIP-993)

and a connector config then says `"database.password": "${file:/run/secrets/db.properties:password}"`,
`"${env:PGPASSWORD}"` or `"${dir:/run/secrets:db-password}"`. The stored config (config topic, REST answers)
keeps the placeholder; only the connector and its tasks see the resolved value. Task configs go back to the
config topic with the placeholders put back (`reverse_transform`, Connect's AbstractHerder.reverseTransform).

Departures from Kafka, on purpose: a placeholder naming a configured provider that cannot be resolved (missing
file, key or variable) is an error naming the placeholder (Kafka leaves the text as it is and the connector
fails later with a less helpful message); placeholders naming no configured provider stay literal text, as in
Kafka. Every resolved value is remembered by a SecretRedactor, which status traces, validation messages and
log records pass through, so a secret never leaves the process in clear. TTLs and `config.action.reload`
are not implemented: a rotated secret is picked up when the connector or task restarts.
"""

from __future__ import annotations

import abc
import dataclasses
import os
import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Final

from connect_worker.api import ConfigError
from connect_worker.api.java_regex import java_regex
from connect_worker.api.javacompat import CONNECT_JDK, java_hashmap_order
from connect_worker.runtime.properties import load_properties

# Kafka's ConfigTransformer.DEFAULT_PATTERN: ${provider:key} or ${provider:path:key}
PLACEHOLDER: Final = re.compile(r"\$\{([^}]*?):(([^}]*?):)?([^}]*?)\}")
PROVIDERS_KEY: Final = "config.providers"
KAFKA_PROVIDER_PACKAGE: Final = "org.apache.kafka.common.config.provider."
MIN_REDACTED_LENGTH: Final = 4  # shorter resolved values ("1", "true") are not hunted for in text


class ConfigProviderError(Exception):
    """A provider could not supply a value; the message never contains a secret."""


@dataclasses.dataclass(frozen=True, slots=True)
class Placeholder:
    text: str
    provider: str
    path: str
    key: str


def placeholders(value: str) -> list[Placeholder]:
    return [Placeholder(m.group(0), m.group(1), m.group(3) or "", m.group(4)) for m in PLACEHOLDER.finditer(value)]


def has_placeholder(value: str) -> bool:
    return PLACEHOLDER.search(value) is not None


# -- providers -------------------------------------------------------------------------------------------------
class ConfigProvider(abc.ABC):
    """org.apache.kafka.common.config.provider.ConfigProvider: `get(path, keys)` → the values found."""

    def configure(self, params: Mapping[str, str]) -> None:
        """Provider parameters (`config.providers.<name>.param.<key>`)."""

    @abc.abstractmethod
    def get(self, path: str, keys: set[str]) -> dict[str, str]:
        """The values of `keys` under `path`; a key not found is simply absent."""


class _AllowedPaths:
    """KIP-993's `allowed.paths`: when set, only files under these directories may be read."""

    def __init__(self) -> None:
        self.roots: tuple[Path, ...] = ()

    def configure(self, params: Mapping[str, str]) -> None:
        text = params.get("allowed.paths", "")
        roots = [Path(os.path.normpath(p.strip())) for p in text.split(",") if p.strip()]
        for r in roots:
            if not r.is_absolute():
                raise ConfigError(f"Path {r} in allowed.paths is not absolute", name="allowed.paths")
        self.roots = tuple(roots)

    def check(self, path: str) -> Path:
        p = Path(os.path.normpath(path))
        if self.roots and not any(p == r or r in p.parents for r in self.roots):
            raise ConfigProviderError(f"{path} is not allowed by allowed.paths")
        return p


class FileConfigProvider(ConfigProvider):
    """`${file:/path/to/file.properties:key}`: a key of a Java properties file."""

    def __init__(self) -> None:
        self._allowed = _AllowedPaths()

    def configure(self, params: Mapping[str, str]) -> None:
        self._allowed.configure(params)

    def get(self, path: str, keys: set[str]) -> dict[str, str]:
        if not path:
            raise ConfigProviderError("the file provider needs a path: ${file:/path/file.properties:key}")
        p = self._allowed.check(path)
        try:
            props = load_properties(str(p))
        except OSError as e:
            raise ConfigProviderError(f"could not read properties from file {path}: {e.strerror}") from None
        return {k: props[k] for k in keys if k in props}


class EnvVarConfigProvider(ConfigProvider):
    """`${env:VAR}`: an environment variable of the worker process (KIP-887)."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        self._environ = environ
        self._allow: re.Pattern[str] | None = None

    def configure(self, params: Mapping[str, str]) -> None:
        pattern = params.get("allowlist.pattern")
        self._allow = java_regex(pattern) if pattern else None  # java.util.regex, as Kafka's provider

    def get(self, path: str, keys: set[str]) -> dict[str, str]:
        if path:
            raise ConfigProviderError("the env provider takes no path: ${env:VARIABLE}")
        env = self._environ if self._environ is not None else os.environ
        return {k: env[k] for k in keys if k in env and (self._allow is None or self._allow.fullmatch(k))}


class DirectoryConfigProvider(ConfigProvider):
    """`${dir:/run/secrets:name}`: the whole content of file `name` in a directory (Docker/Kubernetes secrets).
    The content is taken as it is, trailing newline included, as Kafka does."""

    def __init__(self) -> None:
        self._allowed = _AllowedPaths()

    def configure(self, params: Mapping[str, str]) -> None:
        self._allowed.configure(params)

    def get(self, path: str, keys: set[str]) -> dict[str, str]:
        if not path:
            raise ConfigProviderError("the directory provider needs a path: ${dir:/directory:file}")
        d = self._allowed.check(path)
        if not d.is_dir():
            raise ConfigProviderError(f"{path} is not a directory")
        out: dict[str, str] = {}
        for k in keys:
            if not k or "/" in k or k in (".", ".."):
                continue
            f = d / k
            if f.is_file():
                try:
                    out[k] = f.read_text(encoding="utf-8")
                except OSError as e:
                    raise ConfigProviderError(f"could not read {f}: {e.strerror}") from None
        return out


PROVIDER_CLASSES: Final[Mapping[str, type[ConfigProvider]]] = {
    KAFKA_PROVIDER_PACKAGE + "FileConfigProvider": FileConfigProvider,
    KAFKA_PROVIDER_PACKAGE + "EnvVarConfigProvider": EnvVarConfigProvider,
    KAFKA_PROVIDER_PACKAGE + "DirectoryConfigProvider": DirectoryConfigProvider,
}


def _provider_class(name: str) -> type[ConfigProvider] | None:
    name = name.strip()
    return PROVIDER_CLASSES.get(name) or PROVIDER_CLASSES.get(KAFKA_PROVIDER_PACKAGE + name)


# -- redaction -------------------------------------------------------------------------------------------------
class SecretRedactor:
    """Remembers every resolved secret and replaces it, in any text, by the placeholder it came from."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._secrets: dict[str, str] = {}
        self._ordered: tuple[tuple[str, str], ...] = ()

    def add(self, secret: str, placeholder: str) -> None:
        candidates = {secret, secret.strip()}
        with self._lock:
            for s in candidates:
                if len(s) >= MIN_REDACTED_LENGTH and s not in self._secrets:
                    self._secrets[s] = placeholder
            self._ordered = tuple(sorted(self._secrets.items(), key=lambda kv: -len(kv[0])))

    def redact(self, text: str) -> str:
        for secret, placeholder in self._ordered:
            if secret in text:
                text = text.replace(secret, placeholder)
        return text

    def __bool__(self) -> bool:
        return bool(self._ordered)


# -- the transformer -------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True, slots=True)
class TransformResult:
    data: dict[str, str]
    errors: dict[str, list[str]]  # config key -> problems, each naming the placeholder


class ConfigTransformer:
    """Resolves placeholders with the worker's providers (Kafka's ConfigTransformer/WorkerConfigTransformer)."""

    def __init__(self, providers: Mapping[str, ConfigProvider], redactor: SecretRedactor | None = None) -> None:
        self.providers = dict(providers)
        self.redactor = redactor if redactor is not None else SecretRedactor()

    @classmethod
    def from_worker_properties(
        cls, props: Mapping[str, str], *, environ: Mapping[str, str] | None = None
    ) -> ConfigTransformer:
        """`config.providers=<names>` with `config.providers.<name>.class` and `.param.<key>` settings."""
        names = [n.strip() for n in props.get(PROVIDERS_KEY, "").split(",") if n.strip()]
        providers: dict[str, ConfigProvider] = {}
        for name in names:
            class_key = f"{PROVIDERS_KEY}.{name}.class"
            class_name = props.get(class_key, "").strip()
            if not class_name:
                raise ConfigError(
                    f"Missing required configuration {class_key} for config provider {name}", name=class_key
                )
            provider_cls = _provider_class(class_name)
            if provider_cls is None:
                known = ", ".join(sorted(PROVIDER_CLASSES))
                raise ConfigError(
                    f"Invalid value {class_name} for configuration {class_key}: Class {class_name} could not be "
                    f"found (config providers available: {known})",
                    name=class_key,
                )
            provider = EnvVarConfigProvider(environ) if provider_cls is EnvVarConfigProvider else provider_cls()
            prefix = f"{PROVIDERS_KEY}.{name}.param."
            provider.configure({k[len(prefix) :]: v for k, v in props.items() if k.startswith(prefix)})
            providers[name] = provider
        return cls(providers)

    def __bool__(self) -> bool:
        return bool(self.providers)

    def transform(self, config: Mapping[str, str]) -> TransformResult:
        """Every value with its placeholders resolved (unknown providers' placeholders are left as they are);
        the problems of the ones that could not be resolved, per key."""
        wanted: dict[tuple[str, str], set[str]] = {}
        for value in config.values():
            if not isinstance(value, str) or "${" not in value:
                continue
            for ph in placeholders(value):
                if ph.provider in self.providers:
                    wanted.setdefault((ph.provider, ph.path), set()).add(ph.key)
        found: dict[tuple[str, str], dict[str, str]] = {}
        failures: dict[tuple[str, str], str] = {}
        for (provider, path), keys in wanted.items():
            try:
                found[provider, path] = self.providers[provider].get(path, keys)
            except ConfigProviderError as e:
                failures[provider, path] = str(e)
            except Exception as e:  # noqa: BLE001 - a provider bug must not leak its message (it may hold data)
                failures[provider, path] = f"the {provider} provider failed ({type(e).__name__})"
        data: dict[str, str] = {}
        errors: dict[str, list[str]] = {}
        for name, value in config.items():
            if not isinstance(value, str) or "${" not in value:
                data[name] = value
                continue

            def substitute(m: re.Match[str], name: str = name) -> str:
                ph = Placeholder(m.group(0), m.group(1), m.group(3) or "", m.group(4))
                if ph.provider not in self.providers:
                    return ph.text
                where = (ph.provider, ph.path)
                if where in failures:
                    errors.setdefault(name, []).append(f"Could not resolve {ph.text}: {failures[where]}")
                    return ph.text
                values = found.get(where, {})
                if ph.key not in values:
                    errors.setdefault(name, []).append(f"Could not resolve {ph.text}: {_missing(ph)}")
                    return ph.text
                resolved = values[ph.key]
                self.redactor.add(resolved, ph.text)
                return resolved

            data[name] = PLACEHOLDER.sub(substitute, value)
        return TransformResult(data, errors)

    def resolve(self, config: Mapping[str, str]) -> dict[str, str]:
        """The resolved config; ConfigError naming every placeholder that could not be resolved."""
        result = self.transform(config)
        if result.errors:
            problems = [e for errs in result.errors.values() for e in errs]
            raise ConfigError("; ".join(problems), name=next(iter(result.errors)))
        return result.data


def _missing(ph: Placeholder) -> str:
    if ph.provider and ph.path == "":
        return f"no value for {ph.key}"
    return f"no key {ph.key} in {ph.path}"


def reverse_transform(raw: Mapping[str, str], task_configs: Sequence[Mapping[str, str]]) -> list[dict[str, str]]:
    """Task configs as stored: a key whose connector-config value holds a placeholder gets that raw value back
    (AbstractHerder.reverseTransform), so the config topic never holds a resolved secret; each in the order of
    the `new HashMap<>(config)` that method copies it into."""
    referencing = {k: v for k, v in raw.items() if isinstance(v, str) and has_placeholder(v)}
    return [
        java_hashmap_order({k: referencing.get(k, v) for k, v in cfg.items()}, copy_constructor=True, jdk=CONNECT_JDK)
        for cfg in task_configs
    ]


def referenced_values(raw: Mapping[str, str], resolved: Mapping[str, str]) -> Iterable[tuple[str, str]]:
    """(resolved, raw) pairs for the keys that had placeholders."""
    for k, v in raw.items():
        if isinstance(v, str) and has_placeholder(v) and k in resolved:
            yield resolved[k], v
