"""TransformationChain: the connector's configured SMTs and predicates, built, validated and applied.

Config shape (Kafka Connect's, §6.1):

    transforms=unwrap,route
    transforms.unwrap.type=io.debezium.transforms.ExtractNewRecordState
    transforms.unwrap.predicate=isCustomers      # optional
    transforms.unwrap.negate=false               # optional
    transforms.unwrap.plugin.version=3.6.3.Final # optional
    predicates=isCustomers
    predicates.isCustomers.type=org.apache.kafka.connect.transforms.predicates.TopicNameMatches
    predicates.isCustomers.pattern=dbserver1\\.public\\.customers

Each transform (and each use of a predicate) gets its own instance, configured with its `transforms.<alias>.`
(or `predicates.<alias>.`) keys with the prefix removed. Classes are found through the `resolve` callable the
runtime passes (its plugin registry lookup), so this module names no plugin.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from connect_worker.api.config import ConfigKey as _Key
from connect_worker.api.config import ConfigType, invalid, parse_value
from connect_worker.api.errors import ConfigError, NotFoundError
from connect_worker.api.record import SourceRecord
from connect_worker.api.transform import Predicate, Transformation

TRANSFORMS = "transforms"
PREDICATES = "predicates"

Resolver = Callable[[str], Any]
"""Maps a class name or alias to a plugin class; returns None or raises LookupError/NotFoundError if unknown."""

_LIST = _Key("list", ConfigType.LIST)
_BOOL = _Key("bool", ConfigType.BOOLEAN)


@dataclasses.dataclass(frozen=True, slots=True)
class TransformationStage:
    """One transform of the chain with its optional predicate (Kafka's TransformationStage)."""

    alias: str
    transformation: Transformation
    predicate: Predicate | None = None
    negate: bool = False

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        if self.predicate is not None and self.predicate.test(record) == self.negate:
            return record
        return self.transformation.apply(record)

    def close(self) -> None:
        self.transformation.close()
        if self.predicate is not None:
            self.predicate.close()


class TransformationChain:
    """Applies the stages in order; a stage returning None drops the record (its offset still commits)."""

    def __init__(self, stages: Iterable[TransformationStage] = ()) -> None:
        self.stages: tuple[TransformationStage, ...] = tuple(stages)

    @classmethod
    def from_config(cls, config: Mapping[str, Any], resolve: Resolver) -> TransformationChain:
        """Build and configure the chain; ConfigError listing every problem when the config is invalid."""
        plan = _Plan(config, resolve)
        if plan.problems:
            raise ConfigError(_summary(plan.problems), name=next(iter(plan.problems)))
        stages: list[TransformationStage] = []
        try:
            for alias in plan.transform_aliases:
                prefix = f"{TRANSFORMS}.{alias}."
                transformation = plan.transform_class(alias)()
                transformation.configure(_with_prefix(config, prefix))
                predicate: Predicate | None = None
                negate = False
                p_alias = _str(config.get(prefix + "predicate"))
                if p_alias:
                    predicate = plan.predicate_class(p_alias)()
                    predicate.configure(_with_prefix(config, f"{PREDICATES}.{p_alias}."))
                    negate = bool(parse_value(_BOOL, config.get(prefix + "negate", "false")))
                stages.append(TransformationStage(alias, transformation, predicate, negate))
        except BaseException:
            for stage in stages:
                stage.close()
            raise
        return cls(stages)

    @property
    def aliases(self) -> tuple[str, ...]:
        return tuple(s.alias for s in self.stages)

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        current = record
        for stage in self.stages:
            out = stage.apply(current)
            if out is None:
                return None
            current = out
        return current

    def close(self) -> None:
        for stage in self.stages:
            stage.close()

    def __len__(self) -> int:
        return len(self.stages)


# -- validation -------------------------------------------------------------------------------------
def validate(config: Mapping[str, Any], resolve: Resolver) -> dict[str, list[str]]:
    """Every problem with the transforms/predicates part of a connector config, keyed by config name.

    Covers the alias lists, each alias's type, predicate and negate keys, and each plugin's own config
    (its ConfigDef, then configure() for checks that span keys). An empty dict means the config is valid.
    """
    return _Plan(config, resolve).problems


class _Plan:
    def __init__(self, config: Mapping[str, Any], resolve: Resolver) -> None:
        self.config = config
        self.resolve = resolve
        self.problems: dict[str, list[str]] = {}
        self._transforms: dict[str, type[Transformation]] = {}
        self._predicates: dict[str, type[Predicate]] = {}
        self.predicate_aliases = self._aliases(PREDICATES)
        for alias in self.predicate_aliases:
            cls = self._resolve_type(PREDICATES, alias, Predicate, "Predicate")
            if cls is not None:
                self._predicates[alias] = cls
                self._check_plugin(PREDICATES, alias, cls)
        self.transform_aliases = self._aliases(TRANSFORMS)
        for alias in self.transform_aliases:
            cls = self._resolve_type(TRANSFORMS, alias, Transformation, "Transformation")
            if cls is not None:
                self._transforms[alias] = cls
                self._check_plugin(TRANSFORMS, alias, cls)
            self._check_predicate(alias)

    def transform_class(self, alias: str) -> type[Transformation]:
        return self._transforms[alias]

    def predicate_class(self, alias: str) -> type[Predicate]:
        return self._predicates[alias]

    def _add(self, name: str, message: str) -> None:
        self.problems.setdefault(name, []).append(message)

    def _aliases(self, key: str) -> list[str]:
        raw = self.config.get(key)
        if raw is None:
            return []
        try:
            aliases: list[str] = parse_value(dataclasses.replace(_LIST, name=key), raw)
        except ConfigError as e:
            self._add(key, str(e))
            return []
        if any(not a for a in aliases):
            self._add(key, str(invalid(key, aliases, "Aliases may not be empty.")))
            aliases = [a for a in aliases if a]
        if len(set(aliases)) != len(aliases):
            self._add(key, str(invalid(key, aliases, "Duplicate alias provided.")))
            aliases = list(dict.fromkeys(aliases))
        return aliases

    def _resolve_type(self, group: str, alias: str, base: type[Any], kind: str) -> Any:
        name = f"{group}.{alias}.type"
        class_name = _str(self.config.get(name))
        if not class_name:
            self._add(name, f'Missing required configuration "{name}" which has no default value.')
            return None
        try:
            cls = self.resolve(class_name)
        except (LookupError, NotFoundError):
            cls = None
        if cls is None:
            self._add(name, str(invalid(name, class_name, f"Class {class_name} could not be found.")))
            return None
        if not (isinstance(cls, type) and issubclass(cls, base)):
            self._add(name, str(invalid(name, class_name, f"Class {class_name} is not a {kind}.")))
            return None
        return cls

    def _check_plugin(self, group: str, alias: str, cls: type[Transformation] | type[Predicate]) -> None:
        prefix = f"{group}.{alias}."
        wanted = _str(self.config.get(prefix + "plugin.version"))
        if wanted and wanted != cls.plugin_version:
            self._add(
                prefix + "plugin.version",
                str(
                    invalid(
                        prefix + "plugin.version",
                        wanted,
                        f"Plugin {cls.class_name} is available in version {cls.plugin_version} only.",
                    )
                ),
            )
        props = _with_prefix(self.config, prefix)
        found = False
        for name, value in cls.config_def().validate(props).items():
            for error in value.errors:
                self._add(prefix + name, error)
                found = True
        if found:
            return
        instance = cls()
        try:
            instance.configure(props)
        except ConfigError as e:
            key = prefix + e.name if e.name else prefix + "type"
            self._add(key, str(e))
        finally:
            instance.close()

    def _check_predicate(self, alias: str) -> None:
        prefix = f"{TRANSFORMS}.{alias}."
        p_alias = _str(self.config.get(prefix + "predicate"))
        negate = self.config.get(prefix + "negate")
        if negate is not None:
            try:
                parse_value(dataclasses.replace(_BOOL, name=prefix + "negate"), negate)
            except ConfigError as e:
                self._add(prefix + "negate", str(e))
        if p_alias and p_alias not in self.predicate_aliases:
            self._add(
                prefix + "predicate",
                str(
                    invalid(
                        prefix + "predicate",
                        p_alias,
                        f"Predicate alias {p_alias} is not listed in '{PREDICATES}'"
                        + (f" ({','.join(self.predicate_aliases)})." if self.predicate_aliases else "."),
                    )
                ),
            )


def _str(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _with_prefix(config: Mapping[str, Any], prefix: str) -> dict[str, Any]:
    return {k[len(prefix) :]: v for k, v in config.items() if k.startswith(prefix)}


def _summary(problems: Mapping[str, list[str]]) -> str:
    lines = [msg for messages in problems.values() for msg in messages]
    if len(lines) == 1:
        return lines[0]
    return f"{len(lines)} problems with the transforms configuration: " + "; ".join(lines)
