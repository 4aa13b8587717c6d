"""YugabyteDBConnectorTask: the PostgreSQL task with YugabyteDB's config, `source` block and envelope.

The capture itself is the PostgreSQL connector's: YugabyteDB serves the same logical replication protocol,
and yboutput is pgoutput's code and wire format. What YugabyteDB changes is handled where it shows:
replica identity CHANGE sends left-out columns as 'u' (decoded as "no value"), which yboutput's cells make
null; the records are Debezium 2.5's (no ts_us/ts_ns, transaction block last, connector ``YugabyteDB``).
Logical decoding messages are not turned into records (undocumented for YugabyteDB).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from connect_worker.api import Schema
from connectors.postgres.config import PostgresConnectorConfig
from connectors.postgres.source_info import SourceInfo
from connectors.postgres.task import PostgresConnectorTask
from connectors.relational.schema_builder import EnvelopeLayout
from connectors.yugabytedb.config import parse_yb_config
from connectors.yugabytedb.source_info import YB_DEBEZIUM_VERSION, YB_SOURCE_SCHEMA, YugabyteSourceInfo


class YugabyteDBConnectorTask(PostgresConnectorTask):
    class_name: ClassVar[str] = "io.debezium.connector.postgresql.YugabyteDBConnectorTask"
    source_schema: ClassVar[Schema] = YB_SOURCE_SCHEMA
    envelope: ClassVar[EnvelopeLayout] = EnvelopeLayout.V2_5
    logical_messages: ClassVar[bool] = False
    confirm_commits_only: ClassVar[bool] = True

    def version(self) -> str:
        return YB_DEBEZIUM_VERSION

    def parse_config(self, props: Mapping[str, str]) -> PostgresConnectorConfig:
        return parse_yb_config(props)

    def new_source_info(self, config: PostgresConnectorConfig) -> SourceInfo:
        return YugabyteSourceInfo(config.topic_prefix, config.dbname)
