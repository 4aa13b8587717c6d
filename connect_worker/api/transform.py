"""Single Message Transforms and predicates (org.apache.kafka.connect.transforms.*)."""

from __future__ import annotations

import abc
from collections.abc import Mapping
from typing import Any

from connect_worker.api.plugin import Plugin
from connect_worker.api.record import SourceRecord


class Transformation(Plugin, abc.ABC):
    """A pure function over records: returns a new record, or None to drop it (its offset still commits)."""

    @abc.abstractmethod
    def configure(self, configs: Mapping[str, Any]) -> None: ...

    @abc.abstractmethod
    def apply(self, record: SourceRecord) -> SourceRecord | None: ...

    def close(self) -> None:
        """Release resources (most transforms hold none)."""


class Predicate(Plugin, abc.ABC):
    """Decides whether a transform applies to a record."""

    @abc.abstractmethod
    def configure(self, configs: Mapping[str, Any]) -> None: ...

    @abc.abstractmethod
    def test(self, record: SourceRecord) -> bool: ...

    def close(self) -> None:
        """Release resources (most predicates hold none)."""
