"""Filter: drop every record it is applied to; used with a predicate (…transforms.Filter)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from connect_worker.api.config import ConfigDef
from connect_worker.api.record import SourceRecord
from connect_worker.api.transform import Transformation
from connect_worker.transforms._util import KAFKA_TRANSFORMS, KAFKA_VERSION

_CONFIG = ConfigDef()


class Filter(Transformation):
    """Drops all records; combine with `predicate` (and `negate`) to drop only some."""

    class_name: ClassVar[str] = KAFKA_TRANSFORMS + "Filter"
    plugin_version: ClassVar[str] = KAFKA_VERSION

    @classmethod
    def config_def(cls) -> ConfigDef:
        return _CONFIG

    def configure(self, configs: Mapping[str, Any]) -> None:
        _CONFIG.parse(configs)

    def apply(self, record: SourceRecord) -> None:
        return None
