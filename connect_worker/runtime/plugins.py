"""Plugin discovery: entry points per plugin kind, found by Java class name, alias or short name.

A plugin answers to its `class_name` (the Java name for stand-ins such as
io.debezium.connector.postgresql.PostgresConnector), its declared `aliases`, its simple name (the part after
the last dot: `PostgresConnector`, `ReplaceField$Value`) and, for connectors, the simple name without the
`Connector` suffix (`Postgres`, `FileStreamSource`), as Kafka Connect's plugin aliases do. A name two
plugins of one kind would share is not an alias of either.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from importlib.metadata import entry_points
from typing import Any

from connect_worker.api import ConfigError, NotFoundError, PluginType
from connect_worker.api.plugin import ENTRY_POINT_GROUPS, Plugin

log = logging.getLogger(__name__)

CONNECTOR_TYPES = (PluginType.SOURCE, PluginType.SINK)
# Order of kinds in GET /connector-plugins?connectorsOnly=false.
LISTING_ORDER = (
    PluginType.SINK,
    PluginType.SOURCE,
    PluginType.TRANSFORMATION,
    PluginType.PREDICATE,
    PluginType.CONVERTER,
    PluginType.HEADER_CONVERTER,
)


def canonical_name(cls: type[Any]) -> str:
    name = getattr(cls, "class_name", "")
    return str(name) if name else f"{cls.__module__}.{cls.__qualname__}"


def _short_names(full: str, kind: PluginType) -> list[str]:
    simple = full.rsplit(".", 1)[-1]
    names = [simple]
    if kind in CONNECTOR_TYPES and simple.endswith("Connector") and simple != "Connector":
        names.append(simple[: -len("Connector")])
    return names


class PluginRegistry:
    """Every known plugin class by kind, with name resolution. Built once per process."""

    def __init__(self, plugins: Iterable[tuple[PluginType, type[Any]]]) -> None:
        self._by_kind: dict[PluginType, dict[str, type[Any]]] = {k: {} for k in PluginType}
        self._names: dict[PluginType, dict[str, type[Any]]] = {k: {} for k in PluginType}
        ambiguous: dict[PluginType, set[str]] = {k: set() for k in PluginType}
        for kind, cls in plugins:
            full = canonical_name(cls)
            self._by_kind[kind][full] = cls
        for kind, classes in self._by_kind.items():
            names = self._names[kind]
            for full, cls in classes.items():
                names[full] = cls
            for full, cls in classes.items():
                for alias in (*getattr(cls, "aliases", ()), *_short_names(full, kind)):
                    if alias in classes:
                        continue
                    if alias in names and names[alias] is not cls:
                        ambiguous[kind].add(alias)
                    names.setdefault(alias, cls)
            for alias in ambiguous[kind]:
                log.warning("plugin alias %s is ambiguous among %s plugins and is not used", alias, kind.value)
                names.pop(alias, None)

    @classmethod
    def from_entry_points(cls) -> PluginRegistry:
        found: list[tuple[PluginType, type[Any]]] = []
        for kind, group in ENTRY_POINT_GROUPS.items():
            for ep in entry_points(group=group):
                try:
                    loaded = ep.load()
                except Exception as e:  # noqa: BLE001 - one broken plugin must not stop the worker
                    log.error("cannot load plugin %s from %s: %s", ep.name, ep.value, e)
                    continue
                found.append((kind, loaded))
        return cls(found)

    def find(self, kind: PluginType, name: str) -> type[Any] | None:
        return self._names[kind].get(name.strip())

    def resolve(self, kind: PluginType, name: str) -> type[Any]:
        cls = self.find(kind, name)
        if cls is None:
            raise ConfigError(f"Class {name} could not be found.", name=name)
        return cls

    def connector_class(self, name: str) -> type[Any]:
        for kind in CONNECTOR_TYPES:
            cls = self.find(kind, name)
            if cls is not None:
                return cls
        # PluginDesc.toString of Connect 4.3; these plugins are part of the worker, Connect's "classpath" ones
        available = ", ".join(
            f"PluginDesc{{klass=class {full}, name='{full}', version='{version}', encodedVersion={version}, "
            f"type={kind.value}, typeName='{kind.value}', location='classpath'}}"
            for kind in CONNECTOR_TYPES
            for full, c in sorted(self._by_kind[kind].items())
            for version in (getattr(c, "plugin_version", "undefined"),)
        )
        raise ConfigError(
            "Failed to find any class that implements Connector and which name matches "
            f"{name}, available connectors are: {available}",
            name="connector.class",
        )

    def connector_kind(self, cls: type[Any]) -> PluginType:
        for kind in CONNECTOR_TYPES:
            if cls in self._by_kind[kind].values():
                return kind
        raise NotFoundError(f"Unknown plugin {canonical_name(cls)}.")

    def any_plugin(self, name: str) -> tuple[PluginType, type[Plugin]]:
        """The plugin of any kind called `name` (for /connector-plugins/{plugin}/config)."""
        for kind in LISTING_ORDER:
            cls = self.find(kind, name)
            if cls is not None:
                return kind, cls
        raise NotFoundError(f"Unknown plugin {name}.")

    def listing(self, *, connectors_only: bool) -> list[tuple[PluginType, str, type[Any]]]:
        kinds = (PluginType.SINK, PluginType.SOURCE) if connectors_only else LISTING_ORDER
        return [(kind, full, cls) for kind in kinds for full, cls in sorted(self._by_kind[kind].items())]

    def transform_resolver(self, name: str) -> type[Any] | None:
        """Transformation or predicate class by name (what the transformation chain looks up)."""
        return self.find(PluginType.TRANSFORMATION, name) or self.find(PluginType.PREDICATE, name)

    def classes(self, kind: PluginType) -> dict[str, type[Any]]:
        return dict(self._by_kind[kind])
