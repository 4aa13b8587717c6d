"""The plugin contract. Imports nothing else of the project; everything else may import it."""

from connect_worker.api.config import (
    ConfigDef,
    ConfigKey,
    ConfigType,
    ConfigValue,
    Importance,
    Password,
    Width,
)
from connect_worker.api.connector import (
    ConnectorContext,
    ConnectorTransactionBoundaries,
    ExactlyOnceSupport,
    OffsetStorageReader,
    SourceConnector,
    SourceTask,
    SourceTaskContext,
    TransactionContext,
)
from connect_worker.api.converter import Converter, HeaderConverter, PendingIO
from connect_worker.api.errors import (
    AlreadyExistsError,
    BadRequestError,
    ConfigError,
    ConflictError,
    ConnectError,
    DataError,
    NotFoundError,
    RetriableError,
)
from connect_worker.api.plugin import Plugin, PluginType
from connect_worker.api.record import Header, RecordMetadata, SchemaAndValue, SourceRecord
from connect_worker.api.schema import NO_DEFAULT, Field, Schema, SchemaBuilder, Type
from connect_worker.api.struct import Struct
from connect_worker.api.transform import Predicate, Transformation

__all__ = [
    "NO_DEFAULT",
    "AlreadyExistsError",
    "BadRequestError",
    "ConfigDef",
    "ConfigError",
    "ConfigKey",
    "ConfigType",
    "ConfigValue",
    "ConflictError",
    "ConnectError",
    "ConnectorContext",
    "ConnectorTransactionBoundaries",
    "Converter",
    "DataError",
    "ExactlyOnceSupport",
    "Field",
    "Header",
    "HeaderConverter",
    "Importance",
    "NotFoundError",
    "OffsetStorageReader",
    "Password",
    "PendingIO",
    "Plugin",
    "PluginType",
    "Predicate",
    "RecordMetadata",
    "RetriableError",
    "Schema",
    "SchemaAndValue",
    "SchemaBuilder",
    "SourceConnector",
    "SourceRecord",
    "SourceTask",
    "SourceTaskContext",
    "Struct",
    "TransactionContext",
    "Transformation",
    "Type",
    "Width",
]
