"""The source connector and source task contracts (org.apache.kafka.connect.source.*)."""

from __future__ import annotations

import abc
import enum
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from connect_worker.api.config import ConfigValue
from connect_worker.api.plugin import Plugin
from connect_worker.api.record import RecordMetadata, SourceRecord


class ExactlyOnceSupport(enum.Enum):
    SUPPORTED = "SUPPORTED"
    UNSUPPORTED = "UNSUPPORTED"


class ConnectorTransactionBoundaries(enum.Enum):
    """Whether a connector's tasks can define their own transaction boundaries (`transaction.boundary=connector`)."""

    SUPPORTED = "SUPPORTED"
    UNSUPPORTED = "UNSUPPORTED"


class OffsetStorageReader(Protocol):
    """Read access to the committed offsets of the connector's source partitions."""

    def offset(self, partition: Mapping[str, Any]) -> dict[str, Any] | None: ...

    def offsets(self, partitions: Sequence[Mapping[str, Any]]) -> dict[Any, dict[str, Any] | None]: ...


class ConnectorContext(Protocol):
    """What a connector may ask of the runtime."""

    def request_task_reconfiguration(self) -> None: ...

    def raise_error(self, error: BaseException) -> None: ...

    @property
    def offset_storage_reader(self) -> OffsetStorageReader: ...


class TransactionContext(Protocol):
    """How a task defines its own transaction boundaries (`transaction.boundary=connector`, exactly-once delivery;
    Connect's TransactionContext): the Kafka transaction commits after the batch of poll() that holds `record`
    (which the task makes that batch's last), or after the current batch when no record is given."""

    def commit_transaction(self, record: SourceRecord | None = None) -> None: ...


class SourceTaskContext(Protocol):
    """What a task may ask of the runtime."""

    @property
    def configs(self) -> Mapping[str, str]: ...

    @property
    def offset_storage_reader(self) -> OffsetStorageReader: ...

    @property
    def transaction_context(self) -> TransactionContext | None:
        """Set only when the task defines transaction boundaries (exactly once, `transaction.boundary=connector`)."""
        ...


class SourceTask(abc.ABC):
    """Produces records. The runtime calls, from one asyncio task:

    start() once, then poll() repeatedly; commit_record() after Kafka acknowledged each record;
    commit() after an offsets flush succeeded (what it covers is safe to confirm to the source);
    stop() once, possibly while poll() is waiting (poll should then return promptly).
    """

    context: SourceTaskContext

    def initialize(self, context: SourceTaskContext) -> None:
        self.context = context

    @abc.abstractmethod
    async def start(self, props: Mapping[str, str]) -> None: ...

    @abc.abstractmethod
    async def poll(self) -> list[SourceRecord] | None:
        """The next batch, or None/[] when nothing arrived within the task's poll interval."""

    async def commit(self) -> None:
        """Offsets up to the last flush are in Kafka: the source may now be told so."""

    async def offsets_flushed(self, offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]]) -> None:
        """Called after an offsets flush succeeded, before commit(), with exactly the (source partition,
        offset) pairs now stored in Kafka; a source may confirm these positions to its database."""

    async def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        """Kafka acknowledged `record` (metadata None when a transform dropped it)."""

    @abc.abstractmethod
    async def stop(self) -> None: ...

    def submit_signal(self, signal_id: str, kind: str, data: str | None) -> None:
        """A signal sent to this task through the worker's REST API (our stand-in for Debezium's JMX signal
        channel); `data` is JSON text or None. Must not block. PermissionError (its message is the answer)
        when the task does not take signals this way; ConflictError when it cannot take one yet."""
        raise PermissionError("signals are not supported by this connector")

    def version(self) -> str:
        return "undefined"


class SourceConnector(Plugin, abc.ABC):
    """Validates its configuration and splits the work into task configs."""

    context: ConnectorContext

    def initialize(self, context: ConnectorContext) -> None:
        self.context = context

    async def validate(self, props: Mapping[str, str]) -> dict[str, ConfigValue]:
        """Every problem of `props`; the default checks the ConfigDef. Connectors may add checks (a DB
        connection) by extending the result."""
        return self.config_def().validate(props)

    @abc.abstractmethod
    async def start(self, props: Mapping[str, str]) -> None: ...

    @abc.abstractmethod
    def task_class(self) -> type[SourceTask]: ...

    @abc.abstractmethod
    def task_configs(self, max_tasks: int) -> list[dict[str, str]]: ...

    @abc.abstractmethod
    async def stop(self) -> None: ...

    def task_class_name(self) -> str:
        """The name shown as `task.class` in task configs (Java's for Debezium stand-ins)."""
        cls = self.task_class()
        return getattr(cls, "class_name", "") or f"{cls.__module__}.{cls.__qualname__}"

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport:
        return ExactlyOnceSupport.UNSUPPORTED

    def can_define_transaction_boundaries(self, props: Mapping[str, str]) -> ConnectorTransactionBoundaries:
        return ConnectorTransactionBoundaries.UNSUPPORTED

    async def alter_offsets(self, props: Mapping[str, str], offsets: Mapping[Any, Mapping[str, Any] | None]) -> bool:
        """Called before offsets are altered or reset through REST; True when the connector handled
        its external state too (changes the REST message)."""
        return False
