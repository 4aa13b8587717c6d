"""Connector config validation as Connect 4.3's AbstractHerder does it, shaped into ConfigInfos.

The answer of /connector-plugins/{p}/config/validate is built from one "enriched" definition, as Connect's is:

* the framework keys (groups Common … offsets.topic) with the worker's converters as defaults and the
  installed versions as `*.plugin.version` defaults;
* per transform/predicate alias its `type` and `plugin.version` keys and, when the class is found in the asked
  version, the plugin's own keys (plus `negate`/`predicate` for transforms) embedded under the alias;
* the connector's own keys (keys a plugin marks `internal` are ours only and never shown);
* last, for each converter named explicitly in the config, the converter's keys under its prefix, in the order
  of the Java HashMap Connect collects them in.

`error_count` counts error strings (one per converter key with errors, as Connect counts those); the HTTP status
of /config/validate is 200 even with errors.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final

from connect_worker.api import (
    ConfigValue,
    ConnectorTransactionBoundaries,
    ExactlyOnceSupport,
    PluginType,
    SourceConnector,
)
from connect_worker.api.config import (
    ConfigDef,
    ConfigKey,
    ConfigType,
    parse_value,
    to_config_string,
)
from connect_worker.api.errors import ConfigError
from connect_worker.runtime.connector_config import (
    BASE_GROUPS,
    CONNECTOR_VERSION,
    CONVERTER_SIDES,
    PREDICATES,
    SOURCE_CONNECTOR_CONFIG_DEF,
    SOURCE_GROUPS,
    TRANSFORM_COMMON_KEYS,
    TRANSFORMS,
    alias_group,
    alias_type_key,
    alias_version_key,
    converter_key,
    converter_version_key,
    embed,
)
from connect_worker.runtime.herder import ConfigInfo, ConfigInfos, ConfigKeyInfo, ConfigValueInfo
from connect_worker.runtime.plugins import PluginRegistry, canonical_name
from connect_worker.runtime.transformation_chain import validate as validate_transforms
from connect_worker.runtime.worker_config import WORKER_CONFIG_DEF

_TRANSFORMS_KIND: Final = TRANSFORMS.lower()
_PREDICATES_KIND: Final = PREDICATES.lower()
_ALIAS_KINDS: Final = ((_TRANSFORMS_KIND, PluginType.TRANSFORMATION), (_PREDICATES_KIND, PluginType.PREDICATE))
_CONVERTER_TYPE: Final = "converter.type"
EXACTLY_ONCE_SUPPORT: Final = "exactly.once.support"
TRANSACTION_BOUNDARY: Final = "transaction.boundary"


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
        display_name=key.display_name or key.name,
        dependents=key.dependents,
    )


def validate_keys(keys: Iterable[ConfigKey], props: Mapping[str, Any]) -> dict[str, ConfigValue]:
    """Kafka's ConfigDef.validate over these keys."""
    return ConfigDef(keys).validate(props)


def java_hash_order(names: Sequence[str]) -> list[str]:
    """The iteration order of a java.util.HashMap the names were put into (in this order)."""
    capacity = 16
    while len(names) > capacity * 3 // 4:
        capacity *= 2

    def bucket(name: str) -> int:
        h = 0
        units = name.encode("utf-16-be")
        for i in range(0, len(units), 2):
            h = (31 * h + (units[i] << 8 | units[i + 1])) & 0xFFFFFFFF
        return (h ^ (h >> 16)) & (capacity - 1)

    return sorted(names, key=bucket)  # sorted() is stable: one bucket keeps insertion order


# -- plugin versions (KIP-891) --------------------------------------------------------------------------------
_RELEASE_WORDS: Final = frozenset({"", "final", "ga", "release"})


def _version_items(version: str) -> tuple[tuple[int, int, str], ...]:
    items: list[tuple[int, int, str]] = []
    for part in re.split(r"[.\-]", version.strip().lower()):
        if part.isdigit():
            items.append((1, int(part), ""))
        elif part not in _RELEASE_WORDS:
            items.append((0, 0, part))
    while items and items[-1] == (1, 0, ""):
        items.pop()
    return tuple(items)


_RANGE: Final = re.compile(r"([\[(])([^,\[\]()]*)(?:,([^,\[\]()]*))?([\])])")


def version_requirement(spec: str) -> tuple[str, Callable[[str], bool]]:
    """A plugin.version value as Connect reads it: a plain version pins exactly that version ([v,v]); otherwise a
    Maven version range such as [3.0,4.0) or several of them. Returns the range as shown and its test."""
    spec = spec.strip()
    if not spec.startswith(("[", "(")):
        wanted = _version_items(spec)
        return f"[{spec},{spec}]", lambda v: _version_items(v) == wanted
    ranges = _RANGE.findall(spec)

    def within(version: str) -> bool:
        v = _version_items(version)
        for opening, low, high, closing in ranges:
            if high == "" and "," not in spec:  # [1.0]: exactly
                high = low
            lo, hi = _version_items(low), _version_items(high)
            if low and (v < lo or (v == lo and opening == "(")):
                continue
            if high and (v > hi or (v == hi and closing == ")")):
                continue
            return True
        return False

    return spec, within


def _plugin_version(cls: type[Any]) -> str:
    return str(getattr(cls, "plugin_version", "undefined"))


class _Plugins:
    """The registry seen the way Connect's validation needs it: lookups, sorted names, versions."""

    def __init__(self, registry: PluginRegistry) -> None:
        self.registry = registry

    def find(self, kind: PluginType, name: str | None) -> type[Any] | None:
        return self.registry.find(kind, name) if name and name.strip() else None

    def names(self, kind: PluginType) -> list[str]:
        return sorted(self.registry.classes(kind))

    def versions(self, class_name: str) -> list[str]:
        return [
            _plugin_version(cls)
            for kind in PluginType
            for full, cls in self.registry.classes(kind).items()
            if full == class_name
        ]

    def version_problem(self, cls: type[Any], spec: str | None) -> str | None:
        """Connect's message when `spec` (a plugin.version value) does not select the installed `cls`."""
        if spec is None or not spec.strip():
            return None
        shown, matches = version_requirement(spec)
        if matches(_plugin_version(cls)):
            return None
        name = canonical_name(cls)
        return (
            f"Plugin {name} not found that matches the version range {shown}, "
            f"available versions: [{', '.join(self.versions(name))}]"
        )


def _set_error(cv: ConfigValue, message: str) -> None:
    if message not in cv.errors:
        cv.errors.append(message)


def _class_value(cv: ConfigValue, name: str, given: str | None, cls: type[Any] | None) -> None:
    """A plugin-class key shows the class it resolves to; a name that resolves to nothing is an error and null."""
    shown = (given or "").strip()
    if not shown:
        return
    if cls is None:
        cv.value = None
        cv.errors[:] = [f"Invalid value {shown} for configuration {name}: Class {shown} could not be found."]
    else:
        cv.value = canonical_name(cls)


@dataclasses.dataclass
class _Converter:
    side: str
    kind: PluginType
    given: str | None
    cls: type[Any] | None
    default: str  # the worker's converter, as shown


def _converters(plugins: _Plugins, config: Mapping[str, str], worker: Mapping[str, str]) -> list[_Converter]:
    out = []
    for side in CONVERTER_SIDES:
        kind = PluginType.HEADER_CONVERTER if side == "header" else PluginType.CONVERTER
        worker_name = worker[converter_key(side)]
        worker_cls = plugins.find(kind, worker_name)
        given = config.get(converter_key(side))
        chosen = given if given is not None else worker_name
        out.append(
            _Converter(
                side, kind, given, plugins.find(kind, chosen), canonical_name(worker_cls) if worker_cls else worker_name
            )
        )
    return out


def _worker_converters(worker_converters: Mapping[str, str] | None) -> dict[str, str]:
    """The worker's key/value/header converters (defaults of WorkerConfig when the caller does not say)."""
    out = {}
    for side in CONVERTER_SIDES:
        name = converter_key(side)
        given = (worker_converters or {}).get(name)
        out[name] = str(given) if given else str(WORKER_CONFIG_DEF[name].default)
    return out


def _aliases(raw: str | None) -> list[str]:
    if raw is None:
        return []
    try:
        aliases = parse_value(ConfigKey("aliases", ConfigType.LIST), raw)
    except ConfigError:
        return []
    return list(dict.fromkeys(str(a) for a in aliases))


def _shown(t: ConfigType, value: Any) -> str:
    """ConfigDef.convertToString; a list default written as text is shown as written."""
    return value if t is ConfigType.LIST and isinstance(value, str) else to_config_string(t, value)


def _value_info(key: ConfigKey | None, cv: ConfigValue, name: str | None = None) -> ConfigValueInfo:
    t = key.type if key is not None else ConfigType.STRING
    return ConfigValueInfo(
        name=name or cv.name,
        value=None if cv.value is None else _shown(t, cv.value),
        recommended_values=tuple(to_config_string(t, v) for v in cv.recommended_values),
        errors=tuple(cv.errors),
        visible=cv.visible,
    )


def _with_defaults(keys: Iterable[ConfigKey], defaults: Mapping[str, Any]) -> list[ConfigKey]:
    return [dataclasses.replace(k, default=defaults[k.name]) if k.name in defaults else k for k in keys]


def _fix_converter_values(
    results: Mapping[str, ConfigValue], plugins: _Plugins, converters: Sequence[_Converter], *, recommend: bool
) -> None:
    for c in converters:
        cv, version_cv = results[converter_key(c.side)], results[converter_version_key(c.side)]
        _class_value(cv, converter_key(c.side), c.given, c.cls)
        if recommend:
            cv.recommended_values = list(plugins.names(c.kind))
            version_cv.recommended_values = [_plugin_version(c.cls)] if c.cls is not None else []
        version_cv.visible = cv.value is not None


def _connector_version_only(
    plugins: _Plugins,
    connector_cls: type[SourceConnector],
    config: Mapping[str, str],
    problem: str,
    class_value: str,
) -> ConfigInfos:
    """Connect's answer when the connector cannot be loaded in the asked version: ConnectorConfig's keys only."""
    version = _plugin_version(connector_cls)
    keys = _with_defaults(
        (k for k in SOURCE_CONNECTOR_CONFIG_DEF.keys if k.group in BASE_GROUPS), {CONNECTOR_VERSION: version}
    )
    results = validate_keys(keys, config)
    no_defaults = {converter_key(side): "" for side in CONVERTER_SIDES}
    _fix_converter_values(results, plugins, _converters(plugins, config, no_defaults), recommend=False)
    results[CONNECTOR_VERSION].recommended_values = [version]
    for name in ("connector.class", CONNECTOR_VERSION):
        _set_error(results[name], problem)
    infos = tuple(ConfigInfo(key_info(k), _value_info(k, results[k.name])) for k in keys)
    return ConfigInfos(class_value, sum(len(i.value.errors) for i in infos), BASE_GROUPS, infos)


def _exactly_once_checks(
    connector: SourceConnector, config: Mapping[str, str], results: Mapping[str, ConfigValue], enabled: bool
) -> None:
    """Connect's preflight checks of `exactly.once.support=required` and `transaction.boundary=connector`
    (DistributedHerder.validateSourceConnectorExactlyOnceSupport / ...TransactionBoundary), same messages."""
    eos = results[EXACTLY_ONCE_SUPPORT]
    if not eos.errors and str(eos.value).lower() == "required":
        if not enabled:
            eos.errors.append("This worker does not have exactly-once source support enabled.")
        try:
            support = connector.exactly_once_support(config)
        except Exception as e:  # noqa: BLE001 - reported as Connect reports it
            eos.errors.append(_unexpected(e))
        else:
            if support is not ExactlyOnceSupport.SUPPORTED:
                eos.errors.append(
                    "The connector does not support exactly-once semantics with the provided configuration."
                )
    boundary = results[TRANSACTION_BOUNDARY]
    if not boundary.errors and str(boundary.value).lower() == "connector":
        try:
            defines = connector.can_define_transaction_boundaries(config)
        except Exception as e:  # noqa: BLE001
            boundary.errors.append(_unexpected(e))
        else:
            if defines is not ConnectorTransactionBoundaries.SUPPORTED:
                boundary.errors.append(
                    "The connector does not support connector-defined transaction boundaries with the given "
                    "configuration. Please reconfigure it to use a different transaction boundary definition."
                )


def _unexpected(e: Exception) -> str:
    message = str(e).strip()
    return "An unexpected error occurred during validation" + (
        f": {message}" if message else "; please see the worker logs for more details."
    )


async def validate_connector_config(
    registry: PluginRegistry,
    connector_cls: type[SourceConnector],
    config: Mapping[str, str],
    *,
    class_value: str,
    worker_converters: Mapping[str, str] | None = None,
    exactly_once_source: bool = False,
) -> ConfigInfos:
    """Every problem of `config` for `connector_cls`, as /connector-plugins/{p}/config/validate answers.

    `worker_converters` holds the worker's `key.converter`, `value.converter` and `header.converter`: Connect
    shows them as the defaults of the connector's converter keys. `exactly_once_source` tells whether the
    worker runs with exactly.once.source.support=enabled; when it does not, a connector requiring exactly-once
    is refused as Connect refuses it."""
    plugins = _Plugins(registry)
    problem = plugins.version_problem(connector_cls, config.get(CONNECTOR_VERSION))
    if problem is not None:
        return _connector_version_only(plugins, connector_cls, config, problem, class_value)

    worker = _worker_converters(worker_converters)
    converters = _converters(plugins, config, worker)
    defaults: dict[str, Any] = {CONNECTOR_VERSION: _plugin_version(connector_cls)}
    for c in converters:
        defaults[converter_key(c.side)] = c.default
        defaults[converter_version_key(c.side)] = _plugin_version(c.cls) if c.cls is not None else None
    keys = _with_defaults(SOURCE_CONNECTOR_CONFIG_DEF.keys, defaults)

    # per alias: type and plugin.version, then (class found in the asked version) the plugin's own keys
    alias_types: list[tuple[str, PluginType, str, type[Any] | None, str | None]] = []
    for kind, plugin_kind in _ALIAS_KINDS:
        for alias in _aliases(config.get(kind)):
            prefix = f"{kind}.{alias}."
            given = config.get(prefix + "type")
            cls = plugins.find(plugin_kind, given)
            keys += [alias_type_key(kind, alias), alias_version_key(kind, alias, _plugin_version(cls) if cls else None)]
            version_problem = plugins.version_problem(cls, config.get(prefix + "plugin.version")) if cls else None
            alias_types.append((prefix, plugin_kind, given or "", cls, version_problem))
            if cls is not None and version_problem is None:
                own = [k for k in cls.config_def().keys if not k.internal]
                if kind == _TRANSFORMS_KIND:
                    own += [k for k in TRANSFORM_COMMON_KEYS if k.name not in {o.name for o in own}]
                keys += embed(prefix, alias_group(kind, alias), 2, own)
    defined: dict[str, ConfigKey] = {}
    for k in keys:
        defined.setdefault(k.name, k)

    results = validate_keys(defined.values(), config)
    _fix_converter_values(results, plugins, converters, recommend=True)
    results[CONNECTOR_VERSION].recommended_values = [_plugin_version(connector_cls)]
    for c in converters:
        if c.cls is not None:
            converter_problem = plugins.version_problem(c.cls, config.get(converter_version_key(c.side)))
            if converter_problem is not None:
                _set_error(results[converter_key(c.side)], converter_problem)
                _set_error(results[converter_version_key(c.side)], converter_problem)
    for prefix, plugin_kind, given, cls, version_problem in alias_types:
        type_cv, version_cv = results[prefix + "type"], results[prefix + "plugin.version"]
        _class_value(type_cv, prefix + "type", given, cls)
        type_cv.recommended_values = list(plugins.names(plugin_kind))
        version_cv.recommended_values = [_plugin_version(cls)] if cls is not None else []
        if version_problem is not None:
            _set_error(type_cv, version_problem)
            _set_error(version_cv, version_problem)
    # the transformation chain's own checks (configure() of each plugin) add what the definitions cannot see;
    # Connect checks neither predicate references nor empty aliases when validating, so neither is reported
    for name, errs in validate_transforms(config, registry.transform_resolver).items():
        skipped = name in (_TRANSFORMS_KIND, _PREDICATES_KIND) or name.endswith((".plugin.version", ".predicate"))
        if not skipped and name in results and not results[name].errors:
            results[name].errors.extend(errs)

    connector = connector_cls()
    _exactly_once_checks(connector, config, results, exactly_once_source)
    own_def = connector_cls.config_def()
    own_results = await connector.validate(config)
    own_keys = {k.name: k for k in own_def.keys if not k.internal and k.name not in defined}
    hidden = {k.name for k in own_def.keys if k.internal}
    undefined: list[ConfigValue] = []
    for name, cv in own_results.items():
        if name in defined:
            for e in cv.errors:
                _set_error(results[name], e)
        elif name not in own_keys and (name not in hidden or cv.errors):
            undefined.append(cv)

    groups = list(SOURCE_GROUPS)
    for group in [k.group for k in defined.values()] + [k.group for k in own_keys.values()]:
        if group and group not in groups:
            groups.append(group)
    infos = [ConfigInfo(None, _value_info(None, cv)) for cv in undefined]
    infos += [ConfigInfo(key_info(k), _value_info(k, results[k.name])) for k in defined.values()]
    for name, key in own_keys.items():
        cv = own_results.get(name) or ConfigValue(name, None if key.required else key.default)
        infos.append(ConfigInfo(key_info(key), _value_info(key, cv)))
    error_count = sum(len(i.value.errors) for i in infos)

    # Connect appends the header converter's keys first, then the key and value converters'
    for c in sorted(converters, key=lambda c: c.side != "header"):
        name = converter_key(c.side)
        if c.given is None or c.cls is None or results[name].errors or results[converter_version_key(c.side)].errors:
            continue
        prefix = name + "."
        sub = {k[len(prefix) :]: v for k, v in config.items() if k.startswith(prefix)}
        sub[_CONVERTER_TYPE] = c.side
        conv_keys = {k.name: k for k in c.cls.config_def().keys if not k.internal}
        conv_results = validate_keys(conv_keys.values(), sub)
        for short in java_hash_order(list(conv_keys)):
            key, cv = conv_keys[short], conv_results[short]
            if key.group and key.group not in groups:
                groups.append(key.group)
            infos.append(ConfigInfo(key_info(key, prefix + short), _value_info(key, cv, prefix + short)))
            error_count += 1 if cv.errors else 0  # Connect counts a converter key once, however many errors
    return ConfigInfos(name=class_value, error_count=error_count, groups=tuple(groups), configs=tuple(infos))


def plugin_config_keys(kind: PluginType, cls: type[Any]) -> list[ConfigKeyInfo]:
    """GET /connector-plugins/{p}/config: the plugin's keys, then (for connectors) the framework's, with the
    connector's version as the default of connector.plugin.version (the plugin's key wins on a duplicate)."""
    own = [key_info(k) for k in cls.config_def().keys if not k.internal]
    if kind in (PluginType.SOURCE, PluginType.SINK):
        names = {k.name for k in own}
        framework = _with_defaults(SOURCE_CONNECTOR_CONFIG_DEF.keys, {CONNECTOR_VERSION: _plugin_version(cls)})
        own += [key_info(k) for k in framework if k.name not in names]
    return own


def invalid_config_message(infos: ConfigInfos) -> str:
    errors = infos.error_messages()
    return (
        f"Connector configuration is invalid and contains the following {len(errors)} error(s):\n"
        + "".join(e + "\n" for e in errors)
        + "You can also find the above list of errors at the endpoint "
        "`/connector-plugins/{connectorType}/config/validate`"
    )
