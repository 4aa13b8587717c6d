"""A connector config validated as the REST API answers it (AbstractHerder.validateConnectorConfig): the config's
class looked up, its placeholders resolved through the config providers for the check, and the answer showing the
placeholders as given, never a secret. What is checked is runtime.validation's."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from connect_worker.api import BadRequestError, ConfigError, ConnectError
from connect_worker.api.javacompat import java_hashmap_order, java_map_text
from connect_worker.runtime.config_providers import ConfigTransformer, has_placeholder
from connect_worker.runtime.herder import ConfigInfo, ConfigInfos, ConfigValueInfo
from connect_worker.runtime.plugins import PluginRegistry
from connect_worker.runtime.validation import validate_connector_config
from connect_worker.runtime.worker import present
from connect_worker.runtime.worker_config import WorkerConfig


def _bad_request(plugin: str | None, message: str, *, cause: str = "") -> Exception:
    """A create or an update answers 400 with `message`; the validate endpoint (`plugin` given) runs the check
    where Connect wraps it (and its `cause`'s class name) into a BadRequestException, so it answers 500 naming
    them (measured on Connect 4.3.1, tests/differential/test_rest_lifecycle.py)."""
    if plugin is not None:
        return ConnectError(f"org.apache.kafka.connect.runtime.rest.errors.BadRequestException: {cause}{message}")
    return BadRequestError(message)


class ConnectorConfigValidator:
    def __init__(self, registry: PluginRegistry, config: WorkerConfig, transformer: ConfigTransformer) -> None:
        self._registry = registry
        self._transformer = transformer
        # what validation needs of the worker: its converters (the defaults shown for the connector's converter
        # keys) and whether exactly-once source support is on
        self._worker_converters = {k: str(config[k]) for k in ("key.converter", "value.converter", "header.converter")}
        self._exactly_once_source = str(config["exactly.once.source.support"]).lower() == "enabled"

    async def validate(self, plugin: str | None, given: Mapping[str, str | None]) -> ConfigInfos:
        """`plugin` is the validate endpoint's {plugin} (None for a create or an update, which answer a missing
        connector.class with a 400 of their own)."""
        config = present(given)  # a null value counts as unset
        class_value = config.get("connector.class")
        if not class_value:  # Connect prints the config as the java.util.HashMap it holds it in
            shown = java_map_text(java_hashmap_order(config))
            raise _bad_request(plugin, f"Connector config {shown} contains no connector type")
        try:
            cls = self._registry.connector_class(class_value)
        except ConfigError as e:  # Connect's lookup throws a ConnectException
            raise _bad_request(plugin, str(e), cause="org.apache.kafka.connect.errors.ConnectException: ") from e
        # the REST layer checks that the path's {plugin} matches connector.class
        if not self._transformer:
            return await self._validate(cls, config, class_value)
        # Connect validates the resolved config; what is answered shows the placeholders, never a secret
        result = self._transformer.transform(config)
        infos = await self._validate(cls, result.data, class_value)
        return _masked(infos, config, result.errors, self._transformer.redactor.redact)

    async def _validate(self, cls: type[Any], config: Mapping[str, str], class_value: str) -> ConfigInfos:
        return await validate_connector_config(
            self._registry,
            cls,
            config,
            class_value=class_value,
            worker_converters=self._worker_converters,
            exactly_once_source=self._exactly_once_source,
        )


def _masked(
    infos: ConfigInfos, raw: Mapping[str, str], errors: Mapping[str, list[str]], redact: Callable[[str], str]
) -> ConfigInfos:
    """Validation results as the user may see them: values with placeholders shown as given (never resolved),
    every message passed through the redactor, and the placeholders that could not be resolved as errors."""
    pending = {k: list(v) for k, v in errors.items()}
    configs: list[ConfigInfo] = []
    for info in infos.configs:
        v = info.value
        value = v.value
        raw_value = raw.get(v.name)
        if value is not None and value != "[hidden]" and isinstance(raw_value, str) and has_placeholder(raw_value):
            value = raw_value
        errs = tuple(redact(e) for e in v.errors) + tuple(pending.pop(v.name, ()))
        configs.append(ConfigInfo(info.definition, dataclasses.replace(v, value=value, errors=errs)))
    extra = [
        ConfigInfo(None, ConfigValueInfo(name, raw.get(name), (), tuple(errs), True)) for name, errs in pending.items()
    ]
    all_configs = tuple(extra + configs)
    # Connect's count (a converter key's errors count once) plus one per unresolved placeholder
    added = sum(len(errs) for errs in errors.values())
    return dataclasses.replace(infos, configs=all_configs, error_count=infos.error_count + added)
