"""Apicurio's class name for the Avro converter (io.apicurio.registry.utils.converter.AvroConverter, 2.6.x keys),
running as this project's AvroConverter over the registry's Confluent API.

Its keys map onto the Confluent converter's where they mean the same thing: `apicurio.registry.url` (the
registry's own API, /apis/registry/v2 or v3; the Confluent API of the same server is /apis/ccompat/v7),
`apicurio.registry.auto-register`, `apicurio.registry.find-latest` (the subject's latest version),
`apicurio.registry.artifact-resolver-strategy` (Topic/Record/TopicRecordIdStrategy: the three subject naming
strategies), `apicurio.auth.username`/`password` (basic auth). The wire format must be Confluent's, with the
registry's content ids in the payload: `apicurio.registry.as-confluent=true`, `apicurio.registry.use-id=contentId`,
`apicurio.registry.headers.enabled=false`. Apicurio's other framings (8-byte global ids, ids in headers) and any
other `apicurio.*` key are refused, with the reason.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar, Final

from connect_worker.api.config import ConfigDef, ConfigKey, ConfigType, Importance
from connect_worker.api.errors import ConfigError
from converters.avro import (
    RECORD_NAME_STRATEGY,
    TOPIC_NAME_STRATEGY,
    TOPIC_RECORD_NAME_STRATEGY,
    AvroConverter,
)

APICURIO_VERSION: Final = "2.6.13.Final"
_STRATEGY_PACKAGE: Final = "io.apicurio.registry.serde.strategy."
_STRATEGIES: Final = {
    "TopicIdStrategy": TOPIC_NAME_STRATEGY,
    "RecordIdStrategy": RECORD_NAME_STRATEGY,
    "TopicRecordIdStrategy": TOPIC_RECORD_NAME_STRATEGY,
}
#: key -> the only value this converter can honour (None: any value, translated below)
_KEYS: Final[dict[str, str | None]] = {
    "apicurio.registry.url": None,
    "apicurio.registry.auto-register": None,
    "apicurio.registry.find-latest": None,
    "apicurio.registry.artifact-resolver-strategy": None,
    "apicurio.auth.username": None,
    "apicurio.auth.password": None,
    "apicurio.registry.as-confluent": "true",
    "apicurio.registry.use-id": "contentId",
    "apicurio.registry.headers.enabled": "false",
    "apicurio.registry.avro.encoding": "BINARY",
    "apicurio.registry.auto-register.if-exists": "RETURN_OR_UPDATE",
}
_WHY: Final = {
    "apicurio.registry.as-confluent": "only Confluent framing (magic byte and 4-byte id) is written",
    "apicurio.registry.use-id": "the ids written are the registry's content ids (its Confluent API's ids)",
    "apicurio.registry.headers.enabled": "ids are written in the payload, never in record headers",
    "apicurio.registry.avro.encoding": "Avro bodies are binary",
    "apicurio.registry.auto-register.if-exists": "registering returns the existing version or adds one",
}
_API_SUFFIX: Final = re.compile(r"/apis/registry/v[23]/?$")


def confluent_api_url(url: str) -> str:
    """The Confluent API of the Apicurio registry whose own API (or root) `url` is."""
    root = _API_SUFFIX.sub("", url.strip().rstrip("/"))
    return root + "/apis/ccompat/v7"


def translate(configs: Mapping[str, Any]) -> dict[str, Any]:
    """Apicurio converter settings as the Confluent converter's; ConfigError for what cannot be honoured."""
    out = {k: v for k, v in configs.items() if not k.startswith("apicurio.")}
    for key, value in configs.items():
        if not key.startswith("apicurio."):
            continue
        if key not in _KEYS:
            raise ConfigError(
                f"{key} is not supported by this io.apicurio.registry.utils.converter.AvroConverter "
                f"(supported: {', '.join(sorted(_KEYS))})"
            )
        required = _KEYS[key]
        if required is not None and str(value).strip() != required:
            raise ConfigError(f"{key}={value} is not supported, only {required}: {_WHY[key]}")
    for key, required in _KEYS.items():
        if required is not None and key not in configs and required not in ("BINARY", "RETURN_OR_UPDATE"):
            raise ConfigError(f"{key} must be set to {required} (Apicurio's default differs): {_WHY[key]}")
    url = configs.get("apicurio.registry.url")
    if not url:
        raise ConfigError('Missing required configuration "apicurio.registry.url" which has no default value.')
    out["schema.registry.url"] = ",".join(confluent_api_url(u) for u in str(url).split(","))
    out["auto.register.schemas"] = configs.get("apicurio.registry.auto-register", "false")
    out["use.latest.version"] = configs.get("apicurio.registry.find-latest", "false")
    strategy = str(configs.get("apicurio.registry.artifact-resolver-strategy", "TopicIdStrategy")).strip()
    short = strategy.removeprefix(_STRATEGY_PACKAGE)
    if short not in _STRATEGIES:
        raise ConfigError(
            f"apicurio.registry.artifact-resolver-strategy={strategy} is not supported "
            f"(one of {', '.join(_STRATEGY_PACKAGE + s for s in _STRATEGIES)})"
        )
    out["key.subject.name.strategy"] = out["value.subject.name.strategy"] = _STRATEGIES[short]
    user = configs.get("apicurio.auth.username")
    if user:
        out["basic.auth.credentials.source"] = "USER_INFO"
        out["basic.auth.user.info"] = f"{user}:{configs.get('apicurio.auth.password', '')}"
    return out


CONFIG_DEF: Final = ConfigDef(
    [
        ConfigKey(k, ConfigType.STRING, v, importance=Importance.MEDIUM, documentation=_WHY.get(k, ""))
        for k, v in _KEYS.items()
        if k != "apicurio.registry.url"
    ]
).merge(ConfigDef([ConfigKey("apicurio.registry.url", ConfigType.STRING, importance=Importance.HIGH)]))


class ApicurioAvroConverter(AvroConverter):
    class_name = "io.apicurio.registry.utils.converter.AvroConverter"
    aliases: ClassVar[tuple[str, ...]] = ()
    plugin_version = APICURIO_VERSION
    reads_subject_version = False  # Apicurio's AvroConverter reads schemas without a subject version

    @classmethod
    def config_def(cls) -> ConfigDef:
        return CONFIG_DEF

    def configure(self, configs: Mapping[str, Any], is_key: bool) -> None:
        super().configure(translate(configs), is_key)
