"""VitessConnectorTask: the assembly of one VStream capture on the shared pipeline (spec vitess.md §1, §2).

The task parses the typed config, says what Vitess's records look like (Debezium 2.7's envelope, the Vitess
`source` block, the value converters of value_converters.py) and hands the coordinator its sources
(sources.py: the VStream, VStream Copy included). Queue, filters, topic names, retries, heartbeats and polling
are connectors/relational's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from connectors.relational.pipeline import Flavor, Pipeline
from connectors.relational.schema_builder import EnvelopeLayout
from connectors.relational.table import Column
from connectors.relational.task import RelationalSourceTask, TaskSources
from connectors.vitess.config import VitessConnectorConfig
from connectors.vitess.source_info import VITESS_DEBEZIUM_VERSION, VITESS_SOURCE_SCHEMA
from connectors.vitess.sources import VitessSources
from connectors.vitess.value_converters import QueryType, VitessTypeOptions, converter_for

_CHARACTER_TYPES = frozenset({QueryType.TEXT, QueryType.VARCHAR, QueryType.CHAR})


def is_character_column(column: Column) -> bool:
    return column.type.oid in _CHARACTER_TYPES


class VitessConnectorTask(RelationalSourceTask[VitessConnectorConfig]):
    class_name: ClassVar[str] = "io.debezium.connector.vitess.VitessConnectorTask"

    def version(self) -> str:
        return VITESS_DEBEZIUM_VERSION

    def parse_config(self, props: Mapping[str, str]) -> VitessConnectorConfig:
        return VitessConnectorConfig.from_props(props)

    def flavor(self, config: VitessConnectorConfig) -> Flavor:
        options = VitessTypeOptions(
            time_precision_mode=config.time_precision_mode,  # type: ignore[arg-type]
            bigint_unsigned_handling_mode=config.bigint_unsigned_handling_mode,  # type: ignore[arg-type]
            binary_handling_mode=config.binary_handling_mode,  # type: ignore[arg-type]
            include_unknown_datatypes=config.include_unknown_datatypes,
        )
        return Flavor(
            connector="vitess",
            metrics_plugin="vitess",
            source_schema=VITESS_SOURCE_SCHEMA,
            envelope=EnvelopeLayout.V2_7,
            converter_for=lambda column: converter_for(column, options),
            is_character_column=is_character_column,
        )

    def new_sources(
        self, config: VitessConnectorConfig, pipeline: Pipeline, stored_offset: Mapping[str, Any] | None
    ) -> TaskSources:
        return VitessSources(config, pipeline, stored_offset)
