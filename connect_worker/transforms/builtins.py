"""Every built-in transform and predicate, by the Java class name users write in configs.

The runtime discovers plugins through entry points (groups connect_worker.transforms and
connect_worker.predicates); these maps are the same set, for tests and tools that want them directly.
"""

from __future__ import annotations

from connect_worker.api.transform import Predicate, Transformation
from connect_worker.transforms.cast import CastKey, CastValue
from connect_worker.transforms.debezium.by_logical_table_router import ByLogicalTableRouter
from connect_worker.transforms.debezium.extract_new_record_state import ExtractNewRecordState
from connect_worker.transforms.drop_headers import DropHeaders
from connect_worker.transforms.extract_field import ExtractFieldKey, ExtractFieldValue
from connect_worker.transforms.filter import Filter
from connect_worker.transforms.flatten import FlattenKey, FlattenValue
from connect_worker.transforms.header_from import HeaderFromKey, HeaderFromValue
from connect_worker.transforms.hoist_field import HoistFieldKey, HoistFieldValue
from connect_worker.transforms.insert_field import InsertFieldKey, InsertFieldValue
from connect_worker.transforms.insert_header import InsertHeader
from connect_worker.transforms.mask_field import MaskFieldKey, MaskFieldValue
from connect_worker.transforms.predicates import HasHeaderKey, RecordIsTombstone, TopicNameMatches
from connect_worker.transforms.regex_router import RegexRouter
from connect_worker.transforms.replace_field import ReplaceFieldKey, ReplaceFieldValue
from connect_worker.transforms.set_schema_metadata import SetSchemaMetadataKey, SetSchemaMetadataValue
from connect_worker.transforms.timestamp_converter import TimestampConverterKey, TimestampConverterValue
from connect_worker.transforms.timestamp_router import TimestampRouter
from connect_worker.transforms.value_to_key import ValueToKey

TRANSFORMATION_CLASSES: tuple[type[Transformation], ...] = (
    CastKey,
    CastValue,
    DropHeaders,
    ExtractFieldKey,
    ExtractFieldValue,
    Filter,
    FlattenKey,
    FlattenValue,
    HeaderFromKey,
    HeaderFromValue,
    HoistFieldKey,
    HoistFieldValue,
    InsertFieldKey,
    InsertFieldValue,
    InsertHeader,
    MaskFieldKey,
    MaskFieldValue,
    RegexRouter,
    ReplaceFieldKey,
    ReplaceFieldValue,
    SetSchemaMetadataKey,
    SetSchemaMetadataValue,
    TimestampConverterKey,
    TimestampConverterValue,
    TimestampRouter,
    ValueToKey,
    ExtractNewRecordState,
    ByLogicalTableRouter,
)

PREDICATE_CLASSES: tuple[type[Predicate], ...] = (TopicNameMatches, HasHeaderKey, RecordIsTombstone)


def transformations() -> dict[str, type[Transformation]]:
    return {cls.class_name: cls for cls in TRANSFORMATION_CLASSES}


def predicates() -> dict[str, type[Predicate]]:
    return {cls.class_name: cls for cls in PREDICATE_CLASSES}
