"""What a CloudEvent is made of: Debezium 3.6's CloudEventsMaker, its per-connector makers, RecordAndMetadata
(metadata read from the record's value or from its headers) and the envelope's layout.

Attributes, as `io.debezium.converters.CloudEventsConverter` fills them:

* `id`: per connector, from the `source` block: PostgreSQL `name:<name>;lsn:<lsn>;txId:<txId>;sequence:<sequence>`,
  Vitess `name:<name>;vgtid:<vgtid>` (a null part is written `null`); or the `id` header;
* `source` `/debezium/<connector>/<name>`, `specversion` `1.0`, `type`
  `io.debezium.connector.<connector>.DataChangeEvent` (or the `type` header), `time` the source block's `ts_ms` as
  `SimpleDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSSXXX")` in UTC (Julian calendar before 1582-10-15, year of era),
  `datacontenttype` `application/json` or `application/avro` (data.serializer.type);
* `dataschema` (Avro data only), `<registry URLs>/schemas/ids/<id>`: filled in by the writer once the data is written;
* `traceparent` (opentelemetry.tracing.attributes.enable), from the `traceparent` header only;
* extension attributes (extension.attributes.enable): `iodebeziumop`, then every field of the source block as
  `iodebezium` + the field name's ASCII letters and digits (int64 written as a string, int8..int32 as int32), then
  the transaction block as `iodebeziumtxid`, `iodebeziumtxtotalorder`, `iodebeziumtxdatacollectionorder`;
* `data`: a struct named `io.debezium.connector.<connector>.Data` (or the `dataSchemaName` header) of the
  envelope's `before` and `after`, or of every field of the value when the metadata comes from headers.

An Avro envelope's schema is named `<name>.<db>.CloudEvents.Envelope` from the source block (`envelope_name`), or
schema.cloudevents.name, then adjusted by schema.name.adjustment.mode.

A record whose value schema is named but not `*.Envelope` (heartbeats, transaction metadata, PostgreSQL logical
decoding messages, keys) converts to null, as in Debezium; so does one without the `source` and `op` headers
when the metadata comes from headers. Debezium's checks that run when a value is put into a Struct
(ConnectSchema.validateValue) run here only on the error path, to give its message (converters.cloudevents_java).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Sequence
from typing import Any, Final

from connect_worker.api.errors import DataError
from connect_worker.api.record import Header
from connect_worker.api.schema import (
    INT32_SCHEMA,
    NO_DEFAULT,
    OPTIONAL_INT32_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    Schema,
    Type,
    struct_schema,
)
from connect_worker.api.struct import Struct
from converters.cloudevents_config import MetadataSources, Origin
from converters.cloudevents_java import java_text

SPECVERSION: Final = "1.0"
EXTENSION_PREFIX: Final = "iodebezium"

# the envelope's and the source block's fields Debezium reads
SOURCE: Final = "source"
OPERATION: Final = "op"
TRANSACTION: Final = "transaction"
CONNECTOR: Final = "connector"
SERVER_NAME: Final = "name"
DATABASE: Final = "db"
TIMESTAMP: Final = "ts_ms"
DATA_FIELDS: Final = ("before", "after")
# header names of the metadata a header may carry
ID_HEADER: Final = "id"
TYPE_HEADER: Final = "type"
TRACEPARENT_HEADER: Final = "traceparent"
DATA_SCHEMA_NAME_HEADER: Final = "dataSchemaName"

# TransactionMonitor.TRANSACTION_BLOCK_SCHEMA's fields, read by position as Debezium does
_TX_FIELDS: Final = ("id", "total_order", "data_collection_order")

EMPTY_SCHEMA: Final = struct_schema([])
EMPTY_STRUCT: Final = Struct.of(EMPTY_SCHEMA, ())


# -- the per-connector makers ------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True, slots=True)
class CloudEventsMaker:
    """A connector's CloudEventsProvider: its `connector` value and the source fields its `id` is made of."""

    connector: str
    id_fields: tuple[str, ...]

    def ce_id(self, source: Struct, layout: SourceLayout) -> str:
        values = source.values
        parts = []
        for prefix, index, default in layout.id_plan(self):
            v = values[index]
            if v is None:
                v = default
            parts.append(prefix + (v if v.__class__ is str else java_text(v)))
        return "".join(parts)


MAKERS: Final = {
    m.connector: m
    for m in (
        CloudEventsMaker("postgresql", ("name", "lsn", "txId", "sequence")),
        CloudEventsMaker("vitess", ("name", "vgtid")),
    )
}


def maker_for(connector: Any) -> CloudEventsMaker:
    maker = MAKERS.get(connector) if isinstance(connector, str) else None
    if maker is None:
        raise DataError(f'No usable CloudEvents converters for connector type "{java_text(connector)}"')
    return maker


def extension_name(name: str) -> str:
    """`iodebezium` + the ASCII letters and digits of a field name (CloudEvents attribute naming)."""
    return EXTENSION_PREFIX + "".join(c for c in name if c.isascii() and c.isalnum())


# -- the source block's layout, per source schema -----------------------------------------------------------------
_NARROW: Final = {Type.INT8: "java.lang.Byte", Type.INT16: "java.lang.Short"}


class SourceLayout:
    """Where the fields Debezium reads stand in one source schema, and its extension attributes.

    Built once per source schema; raises Debezium's error for a block it cannot use (a missing or mistyped
    `connector`, `name`, `db` or `ts_ms`, a field type with no CloudEvents attribute type)."""

    __slots__ = ("_defaults", "_ids", "_int64", "_refusals", "_slots", "connector", "ext_fields", "name", "ts_ms")

    def __init__(self, schema: Schema, *, extensions: bool) -> None:
        self._slots: dict[str, tuple[int, Any]] = {
            f.name: (f.index, None if f.schema.default is NO_DEFAULT else f.schema.default) for f in schema.fields
        }
        self._ids: dict[str, tuple[tuple[str, int, Any], ...]] = {}
        self.connector = self._typed(schema, CONNECTOR, Type.STRING)
        self.slot(SERVER_NAME)
        self.slot(DATABASE)
        # the extension attributes are the source fields in their order: a field's default stands for its null,
        # an int64 is written as a string, an int8/int16 (a Byte/Short in Java) is refused by the int32 attribute
        self.ext_fields: tuple[tuple[str, Schema], ...] = ()
        self._defaults: tuple[tuple[int, Any], ...] = ()
        self._int64: tuple[int, ...] = ()
        self._refusals: tuple[tuple[int, str], ...] = ()
        if extensions:
            fields = schema.fields
            self.ext_fields = tuple((extension_name(f.name), _extension_schema(f.schema)) for f in fields)
            self._defaults = tuple(
                (f.index, f.schema.default) for f in fields if f.schema.default not in (NO_DEFAULT, None)
            )
            self._int64 = tuple(f.index for f in fields if f.schema.type is Type.INT64)
            self._refusals = tuple(
                (
                    f.index,
                    f"Invalid Java object for schema with type INT32: class {_NARROW[f.schema.type]} for field: "
                    f'"{extension_name(f.name)}"',
                )
                for f in fields
                if f.schema.type in _NARROW
            )
        self.name = self._typed(schema, SERVER_NAME, Type.STRING)
        self.ts_ms = self.slot(TIMESTAMP)

    def slot(self, name: str) -> tuple[int, Any]:
        """(index, default) of a field, or Kafka's error for a name the schema does not have."""
        slot = self._slots.get(name)
        if slot is None:
            raise DataError(f"{name} is not a valid field name")
        return slot

    def id_plan(self, maker: CloudEventsMaker) -> tuple[tuple[str, int, Any], ...]:
        """The maker's `id` parts in this schema: (`name:` prefix, index, default), made once per connector."""
        plan = self._ids.get(maker.connector)
        if plan is None:
            parts = []
            for i, name in enumerate(maker.id_fields):
                index, default = self.slot(name)
                parts.append((("" if i == 0 else ";") + name + ":", index, default))
            plan = self._ids[maker.connector] = tuple(parts)
        return plan

    @staticmethod
    def _typed(schema: Schema, name: str, t: Type) -> int:
        """`Struct.getString(name)`'s checks (the raw value is read, no default)."""
        f = schema.field(name)
        if f is None:
            raise DataError(f"{name} is not a valid field name")
        if f.schema.type is not t:
            raise DataError(f"Field '{name}' is not of type {t.name}")
        return f.index

    def extension_values(self, source: Struct) -> list[Any]:
        out = list(source.values)
        for index, default in self._defaults:
            if out[index] is None:
                out[index] = default
        for index in self._int64:
            v = out[index]
            if v is not None:
                out[index] = str(v) if v.__class__ is int else java_text(v)
        for index, refusal in self._refusals:
            if out[index] is not None:
                raise DataError(refusal)
        return out


def _extension_schema(schema: Schema) -> Schema:
    """A source field's CloudEvents attribute type: boolean, int32 (up to int32) or string (string, int64)."""
    t = schema.type
    optional = schema.optional
    if t is Type.BOOLEAN:
        return Schema(Type.BOOLEAN, optional=optional)
    if t in (Type.INT8, Type.INT16, Type.INT32):
        return OPTIONAL_INT32_SCHEMA if optional else INT32_SCHEMA
    if t in (Type.STRING, Type.INT64):
        return OPTIONAL_STRING_SCHEMA if optional else STRING_SCHEMA
    raise DataError(f"Source field of type {t.name} cannot be converted into CloudEvents extension attribute.")


# the transaction block's attributes: always optional, every one a string (id is one; the orders are int64)
TX_EXTENSION_FIELDS: Final = tuple((extension_name("tx" + n), OPTIONAL_STRING_SCHEMA) for n in _TX_FIELDS)


def transaction_values(tx: Struct | None) -> list[Any]:
    """The transaction block's attributes: its first three values by position (int64 ones as strings)."""
    if tx is None:
        return [None, None, None]
    values = tx.values
    if len(values) < len(_TX_FIELDS):
        raise DataError(f"The transaction block has {len(values)} fields, Debezium's has {len(_TX_FIELDS)}")
    first = values[0]
    return [first, *(None if v is None else java_text(v) for v in values[1:3])]


# -- the envelope value's layout, per value schema ----------------------------------------------------------------
class ValueLayout:
    """Where `source`, `op`, `transaction` and the data fields stand in one value schema. A field Debezium would
    fail to read raises its error when read, not when the layout is built."""

    __slots__ = ("data_fields", "op", "source", "transaction")

    def __init__(self, schema: Schema, *, all_fields: bool) -> None:
        self.source = _typed_slot(schema, SOURCE, Type.STRUCT)
        self.op = _typed_slot(schema, OPERATION, Type.STRING)
        tx = schema.field(TRANSACTION)
        self.transaction = None if tx is None else _typed_slot(schema, TRANSACTION, Type.STRUCT)
        self.data_fields: tuple[tuple[str, Schema], ...] | str
        if all_fields:
            self.data_fields = tuple((f.name, f.schema) for f in schema.fields)
        else:
            missing = [n for n in DATA_FIELDS if schema.field(n) is None]
            self.data_fields = (
                f"The value schema {schema.name} has no {missing[0]} field"
                if missing
                else tuple((n, schema.field(n).schema) for n in DATA_FIELDS)  # type: ignore[union-attr]
            )


def _typed_slot(schema: Schema, name: str, t: Type) -> int | str:
    """The field's index, or the message of `Struct.getStruct`/`getString` failing on it."""
    f = schema.field(name)
    if f is None:
        return f"{name} is not a valid field name"
    if f.schema.type is not t:
        return f"Field '{name}' is not of type {t.name}"
    return f.index


def read_slot(value: Struct, slot: int | str) -> Any:
    if slot.__class__ is str:
        raise DataError(slot)
    return value.values[slot]  # type: ignore[index]


# -- metadata from the value or the headers (RecordAndMetadataBaseImpl / RecordAndMetadataHeaderImpl) -------------
def last_header(headers: Sequence[Header], key: str) -> Header | None:
    for h in reversed(headers):
        if h.key == key:
            return h
    return None


def _header_value(headers: Sequence[Header], key: str, *, optional: bool) -> Any:
    h = last_header(headers, key)
    if h is None:
        if optional:
            return None
        raise DataError(f"Header `{key}` was not provided")
    return h.value


class RecordMetadata:
    """Reads a record's metadata where metadata.source says. The headers are the record's Connect headers (before
    the header converter), which is what Debezium reads back from JSON header bytes."""

    __slots__ = ("_sources",)

    def __init__(self, sources: MetadataSources) -> None:
        self._sources = sources

    def source(self, value: Struct, layout: ValueLayout, headers: Sequence[Header]) -> Struct:
        if self._sources.global_ is Origin.HEADER:
            source = _header_value(headers, SOURCE, optional=False)
            if source.__class__ is not Struct and not isinstance(source, Struct):
                raise DataError(f"The `{SOURCE}` header is not a struct: {java_text(source)}")
            return source
        source = read_slot(value, layout.source)
        if source is None:
            raise DataError(f"The `{SOURCE}` field of the envelope is null")
        return source  # type: ignore[no-any-return]

    def operation(self, value: Struct, layout: ValueLayout, headers: Sequence[Header]) -> Any:
        if self._sources.global_ is Origin.HEADER:
            return _header_value(headers, OPERATION, optional=False)
        return read_slot(value, layout.op)

    def transaction(self, value: Struct, layout: ValueLayout, headers: Sequence[Header]) -> Struct | None:
        if self._sources.global_ is Origin.HEADER:
            tx = _header_value(headers, TRANSACTION, optional=True)
        else:
            tx = None if layout.transaction is None else read_slot(value, layout.transaction)
        if tx is not None and not isinstance(tx, Struct):
            raise DataError(f"The `{TRANSACTION}` metadata is not a struct: {java_text(tx)}")
        return tx

    def ce_id(self, headers: Sequence[Header]) -> Any:
        """The `id` when it is not generated: the header's, or none at all (a value has no id)."""
        if self._sources.id is Origin.HEADER:
            return _header_value(headers, ID_HEADER, optional=False)
        return None

    def ce_type(self, headers: Sequence[Header]) -> Any:
        if self._sources.type is Origin.HEADER:
            return _header_value(headers, TYPE_HEADER, optional=False)
        return None

    def trace_parent(self, headers: Sequence[Header]) -> Any:
        if self._sources.traceparent is Origin.HEADER:
            return _header_value(headers, TRACEPARENT_HEADER, optional=True)
        raise DataError(
            "Value for `traceparent` CloudEvents field currently can't be obtained from a record value and can only "
            "be obtained from a record header"
        )

    def data_schema_name(self, source: Struct, layout: SourceLayout, headers: Sequence[Header]) -> Any:
        if self._sources.data_schema_name is Origin.HEADER:
            return _header_value(headers, DATA_SCHEMA_NAME_HEADER, optional=False)
        return "io.debezium.connector." + java_text(source.values[layout.connector]) + ".Data"

    @property
    def all_fields(self) -> bool:
        """The data is every field of the value (metadata in headers: the value is not an envelope)."""
        return self._sources.global_ is Origin.HEADER


# -- the envelope's layout ----------------------------------------------------------------------------------------
_HEAD: Final = ("id", "source", "specversion", "type", "time", "datacontenttype")
#: where `dataschema` stands among the attributes when there is one (the data's schema in a registry)
DATASCHEMA_INDEX: Final = len(_HEAD)
CLOUDEVENTS_SCHEMA_SUFFIX: Final = "CloudEvents.Envelope"


def envelope_schema(
    source: SourceLayout,
    data_schema: Schema,
    *,
    traceparent: bool,
    extensions: bool,
    dataschema: bool = False,
    name: str | None = None,
) -> Schema:
    """The CloudEvent's Connect schema: the attributes in Debezium's order, `data` last."""
    fields = [(n, STRING_SCHEMA) for n in _HEAD]
    if dataschema:
        fields.append(("dataschema", STRING_SCHEMA))
    if traceparent:
        fields.append(("traceparent", STRING_SCHEMA))
    if extensions:
        fields.append((extension_name(OPERATION), STRING_SCHEMA))
        fields.extend(source.ext_fields)
        fields.extend(TX_EXTENSION_FIELDS)
    fields.append(("data", data_schema))
    return struct_schema(fields, name=name)


def envelope_name(source: Struct, layout: SourceLayout) -> str:
    """CloudEventsMaker.ceSchemaName without schema.cloudevents.name: `<name>.<db>.CloudEvents.Envelope` (the source
    block's values with their defaults; a null is written `null`)."""
    values = source.values
    parts = []
    for slot in (layout.slot(SERVER_NAME), layout.slot(DATABASE)):
        v = values[slot[0]]
        parts.append(java_text(slot[1] if v is None else v))
    return f"{parts[0]}.{parts[1]}.{CLOUDEVENTS_SCHEMA_SUFFIX}"


def data_schema(name: Any, fields: Sequence[tuple[str, Schema]]) -> Schema:
    if name is not None and not isinstance(name, str):
        raise DataError(f"The data schema name is not a string: {java_text(name)}")
    return struct_schema(fields, name=name)


def data_values(value: Struct, schema: Schema) -> tuple[Any, ...]:
    """`record.get(field)` per data field: by the data field's position, its default when null."""
    values = value.values
    out = []
    for f in schema.fields:
        v = values[f.index]
        if v is None and f.schema.default is not NO_DEFAULT:
            v = f.schema.default
        out.append(v)
    return tuple(out)


# -- ts_ms as SimpleDateFormat writes it ---------------------------------------------------------------------------
_DAY_MS: Final = 86_400_000
_GREGORIAN_CUTOVER_MS: Final = -12_219_292_800_000  # 1582-10-15T00:00:00Z, GregorianCalendar's default cutover
_YEAR_10000_MS: Final = 253_402_300_800_000


def _gregorian(days: int) -> tuple[int, int, int]:
    """(year, month, day) of a day count from 1970-01-01 in the proleptic Gregorian calendar."""
    z = days + 719_468
    era = z // 146_097
    doe = z - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (month <= 2), month, day


def _julian(days: int) -> tuple[int, int, int]:
    """(year, month, day) of a day count from 1970-01-01 in the Julian calendar (astronomical years)."""
    e = 4 * (days + 2_440_588 + 1401) + 3
    h = 5 * ((e % 1461) // 4) + 2
    month = (h // 153 + 2) % 12 + 1
    return e // 1461 - 4716 + (14 - month) // 12, month, (h % 153) // 5 + 1


def ce_time(ms: int) -> str:
    """Epoch milliseconds as `yyyy-MM-dd'T'HH:mm:ss.SSSXXX` in UTC, as java.text.SimpleDateFormat writes them."""
    days, rem = divmod(ms, _DAY_MS)
    if _GREGORIAN_CUTOVER_MS <= ms < _YEAR_10000_MS:
        d = dt.date.fromordinal(days + 719_163)  # the C date type does the common case's arithmetic
        year, month, day = d.year, d.month, d.day
    else:
        year, month, day = _gregorian(days) if ms >= _GREGORIAN_CUTOVER_MS else _julian(days)
    if year <= 0:
        year = 1 - year  # `y` is the year of the era: 1 BC is 0001
    hh, rem = divmod(rem, 3_600_000)
    mm, rem = divmod(rem, 60_000)
    ss, milli = divmod(rem, 1000)
    return f"{year:04d}-{month:02d}-{day:02d}T{hh:02d}:{mm:02d}:{ss:02d}.{milli:03d}Z"
