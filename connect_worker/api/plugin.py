"""What every plugin declares about itself: its Java-compatible class name, aliases and version."""

from __future__ import annotations

import enum
from typing import ClassVar

from connect_worker.api.config import ConfigDef


class PluginType(enum.Enum):
    """Plugin kinds, with the word Connect's REST API uses for them."""

    SOURCE = "source"
    SINK = "sink"
    CONVERTER = "converter"
    HEADER_CONVERTER = "header_converter"
    TRANSFORMATION = "transformation"
    PREDICATE = "predicate"


# Entry-point groups the runtime scans, one per plugin kind.
ENTRY_POINT_GROUPS: dict[PluginType, str] = {
    PluginType.SOURCE: "connect_worker.connectors",
    PluginType.CONVERTER: "connect_worker.converters",
    PluginType.HEADER_CONVERTER: "connect_worker.header_converters",
    PluginType.TRANSFORMATION: "connect_worker.transforms",
    PluginType.PREDICATE: "connect_worker.predicates",
}


class Plugin:
    """Base of every plugin class.

    `class_name` is the fully qualified name users put in configs and REST answers show: for a plugin
    that stands in for a Java one it is the Java class name
    (io.debezium.connector.postgresql.PostgresConnector),
    so existing configs work unchanged. `aliases` are extra names it answers to.
    """

    class_name: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    plugin_version: ClassVar[str] = "undefined"

    @classmethod
    def config_def(cls) -> ConfigDef:
        return ConfigDef()

    def version(self) -> str:
        return self.plugin_version
