"""Connector config validation as Connect's AbstractHerder does it, shaped into ConfigInfos.

Framework keys first (groups Common … offsets.topic), then each transform's and predicate's keys under
their alias prefix, then converter sub-keys, then the connector's own keys. `error_count` counts every error
string; the HTTP status of /config/validate is 200 even with errors.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connect_worker.api import ConfigDef, ConfigValue, PluginType, SourceConnector
from connect_worker.api.config import ConfigKey, ConfigType, Importance, Width, to_config_string
from connect_worker.runtime.connector_config import SOURCE_CONNECTOR_CONFIG_DEF, SOURCE_GROUPS
from connect_worker.runtime.herder import ConfigInfo, ConfigInfos, ConfigKeyInfo, ConfigValueInfo
from connect_worker.runtime.plugins import PluginRegistry
from connect_worker.runtime.transformation_chain import validate as validate_transforms


def key_info(key: ConfigKey, name: str | None = None) -> ConfigKeyInfo:
    return ConfigKeyInfo(
        name=name or key.name,
        type=key.type.value,
        required=key.required,
        default_value=key.default_string,
        importance=key.importance.value,
        documentation=key.documentation,
        group=key.group,
        order_in_group=key.order_in_group,
        width=key.width.value,
        display_name=key.display_name or (name or key.name),
        dependents=key.dependents,
    )


def _value_string(key: ConfigKey | None, value: Any, raw: Mapping[str, str], name: str) -> str | None:
    if name in raw:
        return "[hidden]" if key is not None and key.type is ConfigType.PASSWORD else raw[name]
    if value is None or key is None:
        return None
    return to_config_string(key.type, value)


def _prefixed(prefix: str, config_def: ConfigDef, group: str) -> list[ConfigKey]:
    out = []
    for i, k in enumerate(config_def.keys, start=1):
        out.append(
            ConfigKey(
                prefix + k.name,
                k.type,
                k.default,
                validator=k.validator,
                importance=k.importance,
                documentation=k.documentation,
                group=group,
                order_in_group=i,
                width=k.width,
                display_name=k.display_name or k.name,
                dependents=tuple(prefix + d for d in k.dependents),
                recommender=k.recommender,
            )
        )
    return out


def _alias_keys(kind: str, alias: str, plugin: type[Any] | None, group: str) -> list[ConfigKey]:
    base = f"{kind}.{alias}."
    keys = [
        ConfigKey(
            base + "type",
            ConfigType.CLASS,
            importance=Importance.HIGH,
            group=group,
            order_in_group=0,
            width=Width.LONG,
            display_name=f"{kind.capitalize()} type for {alias}",
            documentation=f"Class for the '{alias}' {kind[:-1]}.",
        ),
    ]
    if plugin is not None:
        keys += _prefixed(base, plugin.config_def(), group)
    if kind == "transforms":
        keys.append(
            ConfigKey(
                base + "negate",
                ConfigType.BOOLEAN,
                False,
                group=group,
                order_in_group=len(keys) + 1,
                display_name="Negate",
                documentation="Apply the transform when the predicate is false instead of true.",
            )
        )
        keys.append(
            ConfigKey(
                base + "predicate",
                ConfigType.STRING,
                None,
                group=group,
                order_in_group=len(keys) + 1,
                display_name="Predicate",
                documentation="Alias of the predicate deciding when this transform applies.",
            )
        )
    return keys


async def validate_connector_config(
    registry: PluginRegistry,
    connector_cls: type[SourceConnector],
    config: Mapping[str, str],
    *,
    class_value: str,
) -> ConfigInfos:
    """Every problem of `config` for `connector_cls`, as /connector-plugins/{p}/config/validate answers."""
    extra_errors: dict[str, list[str]] = {}
    injected: dict[str, str] = {}
    keys: list[ConfigKey] = list(SOURCE_CONNECTOR_CONFIG_DEF.keys)
    groups: list[str] = list(SOURCE_GROUPS)
    alias_groups: list[str] = []

    alias_kinds = (("transforms", PluginType.TRANSFORMATION), ("predicates", PluginType.PREDICATE))
    for kind, plugin_kind in alias_kinds:
        aliases = [a.strip() for a in config.get(kind, "").split(",") if a.strip()]
        for alias in aliases:
            group = f"{'Transforms' if kind == 'transforms' else 'Predicates'}: {alias}"
            alias_groups.append(group)
            type_name = config.get(f"{kind}.{alias}.type", "").strip()
            plugin = registry.find(plugin_kind, type_name) if type_name else None
            keys += _alias_keys(kind, alias, plugin, group)
    # the chain's own validation: alias lists, types, predicates, negate and each plugin's config
    for name, errs in validate_transforms(config, registry.transform_resolver).items():
        extra_errors.setdefault(name, []).extend(errs)

    for side, conv_kind in (
        ("key", PluginType.CONVERTER),
        ("value", PluginType.CONVERTER),
        ("header", PluginType.HEADER_CONVERTER),
    ):
        name = config.get(f"{side}.converter", "").strip()
        if not name:
            continue
        conv = registry.find(conv_kind, name)
        if conv is None:
            extra_errors.setdefault(f"{side}.converter", []).append(
                f"Invalid value {name} for configuration {side}.converter: Class {name} could not be found."
            )
        else:
            keys += _prefixed(f"{side}.converter.", conv.config_def(), "Common")
            injected[f"{side}.converter.converter.type"] = side  # the runtime sets it, as Connect does

    framework = ConfigDef()
    for k in keys:
        if k.name not in framework:
            framework.add(k)
    results: dict[str, ConfigValue] = framework.validate({**config, **injected})
    for name, errs in extra_errors.items():
        cv = results.setdefault(name, ConfigValue(name, config.get(name)))
        if not cv.errors:  # the framework ConfigDef already reported this key's problems in Connect's words
            cv.errors.extend(errs)

    connector = connector_cls()
    own_def = connector_cls.config_def()
    own_results = await connector.validate(config)
    groups += [g for g in own_def.groups() if g not in groups]
    groups += alias_groups

    defined: dict[str, ConfigKey] = {k.name: k for k in framework.keys}
    for k in own_def.keys:
        defined.setdefault(k.name, k)
    merged: dict[str, ConfigValue] = dict(results)
    for name, cv in own_results.items():
        if name in merged and name in framework:
            merged[name].errors.extend(e for e in cv.errors if e not in merged[name].errors)
        else:
            merged[name] = cv

    undefined = [cv for name, cv in merged.items() if name not in defined]
    infos: list[ConfigInfo] = [ConfigInfo(None, _value_info(None, cv, config)) for cv in undefined]
    for name, key in defined.items():
        cv = merged.get(name) or ConfigValue(name, key.default if not key.required else None)
        infos.append(ConfigInfo(key_info(key), _value_info(key, cv, config)))
    return ConfigInfos(
        name=class_value,
        error_count=sum(len(i.value.errors) for i in infos),
        groups=tuple(groups),
        configs=tuple(infos),
    )


def _value_info(key: ConfigKey | None, cv: ConfigValue, raw: Mapping[str, str]) -> ConfigValueInfo:
    return ConfigValueInfo(
        name=cv.name,
        value=_value_string(key, cv.value, raw, cv.name),
        recommended_values=tuple(str(v) for v in cv.recommended_values),
        errors=tuple(cv.errors),
        visible=cv.visible,
    )


def plugin_config_keys(kind: PluginType, cls: type[Any]) -> list[ConfigKeyInfo]:
    """GET /connector-plugins/{p}/config: the plugin's keys, then (for connectors) the framework's."""
    own = [key_info(k) for k in cls.config_def().keys]
    if kind in (PluginType.SOURCE, PluginType.SINK):
        names = {k.name for k in own}
        own += [key_info(k) for k in SOURCE_CONNECTOR_CONFIG_DEF.keys if k.name not in names]
    return own


def invalid_config_message(infos: ConfigInfos) -> str:
    errors = infos.error_messages()
    return (
        f"Connector configuration is invalid and contains the following {len(errors)} error(s):\n"
        + "".join(e + "\n" for e in errors)
        + "You can also find the above list of errors at the endpoint "
        "`/connector-plugins/{connectorType}/config/validate`"
    )
