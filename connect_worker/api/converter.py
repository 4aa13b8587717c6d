"""Converters between Connect data and the bytes stored in Kafka (org.apache.kafka.connect.storage.*)."""

from __future__ import annotations

import abc
from collections.abc import Callable, Mapping
from typing import Any

from connect_worker.api.plugin import Plugin
from connect_worker.api.record import Header, SchemaAndValue
from connect_worker.api.schema import Schema


class PendingIO(Exception):
    """Raised by a conversion that needs blocking I/O first (a schema registry lookup on a cache miss).

    The caller runs `work()` (the worker on a thread, off the event loop; a plain caller directly), then calls the
    conversion again, which finds what `work` cached. `work` raises what the conversion would (RetriableError when
    the remote end is unreachable, DataError when it refuses)."""

    def __init__(self, work: Callable[[], None], what: str) -> None:
        super().__init__(what)
        self.work = work


class Converter(Plugin, abc.ABC):
    """Turns (schema, value) into bytes and back. `configure` is called once; is_key tells the side."""

    @abc.abstractmethod
    def configure(self, configs: Mapping[str, Any], is_key: bool) -> None: ...

    @abc.abstractmethod
    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: tuple[Header, ...] = ()
    ) -> bytes | None: ...

    @abc.abstractmethod
    def to_connect_data(self, topic: str, data: bytes | None) -> SchemaAndValue: ...


class HeaderConverter(Plugin, abc.ABC):
    """Turns one header value into bytes and back."""

    @abc.abstractmethod
    def configure(self, configs: Mapping[str, Any]) -> None: ...

    @abc.abstractmethod
    def from_connect_header(self, topic: str, header_key: str, schema: Schema | None, value: Any) -> bytes | None: ...

    @abc.abstractmethod
    def to_connect_header(self, topic: str, header_key: str, data: bytes | None) -> SchemaAndValue: ...
