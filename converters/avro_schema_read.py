"""Avro schemas as Connect schemas (AvroData.toConnectSchema), for toConnectData: the inverse of
converters/avro_schema.py, reading back the connect.* properties, logical types, MapEntry arrays, enums and
unions that AvroData writes (a general union is an io.confluent.connect.avro.Union struct, or Connect's generalized
one with `generalized.sum.type.support`)."""

from __future__ import annotations

import contextlib
from typing import Any, Final

from connect_worker.api.errors import DataError
from connect_worker.api.schema import (
    DATE_NAME,
    DECIMAL_NAME,
    NO_DEFAULT,
    TIME_NAME,
    TIMESTAMP_NAME,
    Schema,
    Type,
)
from converters.avro_schema import (
    AVRO_TYPE_ENUM,
    AVRO_TYPE_UNION,
    CONNECT_DEFAULT,
    CONNECT_DOC,
    CONNECT_INTERNAL_TYPE,
    CONNECT_NAME,
    CONNECT_PARAMETERS,
    CONNECT_TYPE,
    CONNECT_VERSION,
    DECIMAL_PRECISION_DEFAULT,
    DECIMAL_PRECISION_PARAM,
    DEFAULT_SCHEMA_FULL_NAME,
    ENUM_DEFAULT_PREFIX,
    ENUM_DOC_PREFIX,
    FIELD_DEFAULT_FLAG,
    FIELD_DOC_PREFIX,
    FIXED_SIZE_PARAM,
    GENERALIZED_ENUM,
    GENERALIZED_UNION,
    MAP_ENTRY_TYPE_NAME,
    NAMESPACE,
    RECORD_DOC_PARAM,
    AvroDataOptions,
    full_name,
)


# -- --------------------------------------------------------------
class _ToConnect:
    def __init__(self, options: AvroDataOptions) -> None:
        self.options = options
        self.named: dict[str, Any] = {}  # full name -> Avro definition, to resolve references
        self.open: set[str] = set()  # the records being converted (a record inside itself is a cycle)
        self.union_index = 0

    def resolve(self, avro: Any, space: str | None) -> Any:
        if isinstance(avro, str) and avro not in _AVRO_PRIMITIVES:
            full = avro if "." in avro or space is None else f"{space}.{avro}"
            found = self.named.get(full) or self.named.get(avro)
            if found is None:
                raise DataError(f"Unknown Avro type {avro!r}")
            return found
        return avro

    def register(self, avro: Any, space: str | None) -> str | None:
        if isinstance(avro, dict) and avro.get("type") in ("record", "enum", "fixed"):
            name = avro["name"]
            ns = avro.get("namespace", space) if "." not in name else name.rpartition(".")[0]
            full = name if "." in name else full_name(ns or None, name)
            self.named.setdefault(full, avro)
            return ns or None
        return space

    def convert(
        self,
        avro: Any,
        space: str | None,
        force_optional: bool = False,
        field_default: Any = NO_DEFAULT,
        field_doc: str | None = None,
        registry_version: int | None = None,
    ) -> Schema:
        """AvroData.toConnectSchema of one Avro schema; `field_default`/`field_doc` are those of the record field
        it is the type of, `registry_version` the version the converter found (the top-level schema only)."""
        avro = self.resolve(avro, space)
        if isinstance(avro, list):
            return self.union(avro, space, field_doc, registry_version)
        if isinstance(avro, str):
            avro = {"type": avro}
        space = self.register(avro, space)
        t = avro["type"]
        if isinstance(t, (dict, list)) or (isinstance(t, str) and t not in _AVRO_TYPES):
            return self.convert(t, space, force_optional, field_default, field_doc, registry_version)
        if t == "record":
            full = avro["name"] if "." in avro["name"] else full_name(space, avro["name"])
            if full in self.open:
                raise DataError(f"Recursive Avro schemas ({full} inside itself) have no Connect schema here")
            self.open.add(full)
            try:
                return self.build(avro, t, space, force_optional, field_default, field_doc, registry_version)
            finally:
                self.open.discard(full)
        return self.build(avro, t, space, force_optional, field_default, field_doc, registry_version)

    def build(
        self,
        avro: dict[str, Any],
        t: str,
        space: str | None,
        force_optional: bool,
        field_default: Any,
        field_doc: str | None,
        registry_version: int | None,
    ) -> Schema:
        meta = self.options.connect_meta_data
        discard = self.options.discard_type_doc_default
        props = avro
        logical = props.get("logicalType")
        connect_type = props.get(CONNECT_TYPE)
        params: dict[str, str] = {}
        name: str | None = None
        version: int | None = None
        fields: list[tuple[str, Schema]] = []
        key_schema = value_schema = None
        if t == "boolean":
            ctype = Type.BOOLEAN
        elif t in ("bytes", "fixed"):
            ctype = Type.BYTES
            if logical == "decimal":
                name, version = DECIMAL_NAME, 1
                params["scale"] = str(int(props.get("scale", 0)))
                precision = props.get("precision")
                if precision is not None and int(precision) != DECIMAL_PRECISION_DEFAULT:
                    params[DECIMAL_PRECISION_PARAM] = str(int(precision))
            if t == "fixed":
                params[FIXED_SIZE_PARAM] = str(props["size"])
        elif t == "double":
            ctype = Type.FLOAT64
        elif t == "float":
            ctype = Type.FLOAT32
        elif t == "int":
            ctype = Type.INT32
            if logical == "date":
                name, version = DATE_NAME, 1
            elif logical == "time-millis":
                name, version = TIME_NAME, 1
            elif logical is None and connect_type is not None:
                ctype = {"int8": Type.INT8, "int16": Type.INT16}.get(connect_type, Type.INT32)
                if connect_type not in ("int8", "int16"):
                    raise DataError("Connect type annotation for Avro int field is null")
        elif t == "long":
            ctype = Type.INT64
            if logical == "timestamp-millis":
                name, version = TIMESTAMP_NAME, 1
        elif t == "string":
            ctype = Type.STRING
        elif t == "array":
            items = self.resolve(avro["items"], space)
            if isinstance(items, dict) and items.get("type") == "record" and _is_map_entry(items):
                item_space = self.register(items, space)
                kf = next(f for f in items["fields"] if f["name"] == "key")
                vf = next(f for f in items["fields"] if f["name"] == "value")
                ctype = Type.MAP
                key_schema = self.convert(kf["type"], item_space)
                value_schema = self.convert(vf["type"], item_space)
            else:
                ctype = Type.ARRAY
                value_schema = self.convert(items, space)
        elif t == "map":
            ctype = Type.MAP
            key_schema = Schema(Type.STRING)
            value_schema = self.convert(avro["values"], space)
        elif t == "record":
            ctype = Type.STRUCT
            if not discard and meta and avro.get("doc") is not None:
                params[RECORD_DOC_PARAM] = avro["doc"]
            for f in avro["fields"]:
                if not discard and meta and f.get("doc") is not None:
                    params[FIELD_DOC_PREFIX + f["name"]] = f["doc"]
                fdefault = f.get("default", NO_DEFAULT)
                fields.append((f["name"], self.convert(f["type"], space, False, fdefault, f.get("doc"))))
        elif t == "enum":
            ctype = Type.STRING
            key = GENERALIZED_ENUM if self.options.generalized_sum_type_support else AVRO_TYPE_ENUM
            full = full_name(space, avro["name"]) if "." not in avro["name"] else avro["name"]
            if meta and avro.get("doc") is not None:
                params["connect.enum.doc" if discard else ENUM_DOC_PREFIX + avro["name"]] = avro["doc"]
            if not discard and meta and avro.get("default") is not None:
                params[ENUM_DEFAULT_PREFIX + avro["name"]] = avro["default"]
            params[key] = full
            for i, sym in enumerate(avro["symbols"]):
                params[f"{key}.{sym}"] = str(i) if self.options.generalized_sum_type_support else sym
        elif t == "null":
            raise DataError("Standalone null schemas are not supported by this converter")
        else:
            raise DataError(f"Couldn't translate unsupported schema type {t}.")
        named_doc = avro.get("doc") if t in ("record", "enum", "fixed") else None
        if discard:  # the field's doc, else the type's, else connect.doc
            doc = field_doc if field_doc is not None else named_doc if named_doc is not None else props.get(CONNECT_DOC)
            if meta and named_doc is not None:
                params["connect.record.doc"] = named_doc
        else:
            doc = props.get(CONNECT_DOC) if meta else None
        v = props.get(CONNECT_VERSION)  # the schema's own connect.version comes first, then the registry's
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
            raise DataError(f"Invalid Connect version found: {v}")
        found = int(v) if v is not None else registry_version if registry_version is not None else -1
        if found >= 0:
            if version is not None and version != found:
                raise DataError(
                    f"Mismatched versions: version already added to SchemaBuilder ({version}) differs from version "
                    f"in source schema ({found})"
                )
            version = found
        cparams = props.get(CONNECT_PARAMETERS)
        if meta and cparams is not None:
            if not isinstance(cparams, dict):
                raise DataError(f"Expected JSON object for schema parameters but found: {cparams}")
            for k, pv in cparams.items():
                if not isinstance(pv, str):
                    raise DataError(f"Expected schema parameter values to be strings but found: {pv}")
                params[k] = pv
        for k, pv in props.items():
            if k.startswith("avro"):
                params[k] = pv if isinstance(pv, str) else str(pv)
        connect_name = props.get(CONNECT_NAME)
        if connect_name is not None:
            name = connect_name
        elif t in ("record", "enum") or (t == "fixed" and name != DECIMAL_NAME):
            n = avro["name"]
            name = n if "." in n else full_name(space, n)
        if name is not None and name.startswith(DEFAULT_SCHEMA_FULL_NAME):
            name = None
        schema = Schema(
            ctype,
            name=name,
            version=version,
            doc=doc,
            parameters=params or None,
            fields=fields,
            key_schema=key_schema,
            value_schema=value_schema,
            optional=force_optional,
        )
        default = field_default
        if default is NO_DEFAULT and CONNECT_DEFAULT in props:
            default = props[CONNECT_DEFAULT]
        elif default is not NO_DEFAULT and not discard and meta and CONNECT_DEFAULT not in props:
            schema = schema.with_(parameters={**(schema.parameters or {}), FIELD_DEFAULT_FLAG: "true"})
        if default is not NO_DEFAULT and default is not None:
            with contextlib.suppress(DataError, TypeError, ValueError, KeyError):  # AvroData ignores a bad default
                schema = schema.with_(default=default_from_json(schema, default))
        return schema

    def union(
        self, members: list[Any], space: str | None, field_doc: str | None, registry_version: int | None
    ) -> Schema:
        if len(members) == 1 and self.options.flatten_singleton_unions:
            return self.convert(members[0], space, False, NO_DEFAULT, field_doc)
        if len(members) == 2 and "null" in members:
            # the field's default is not passed on: the member's connect.default (if any) is the default
            other = members[1] if members[0] == "null" else members[0]
            return self.convert(other, space, True, NO_DEFAULT, field_doc)
        if self.options.generalized_sum_type_support:
            name = f"connect_union_{self.union_index}"
            self.union_index += 1
        else:
            name = AVRO_TYPE_UNION
        fields: list[tuple[str, Schema]] = []
        optional = False
        for i, m in enumerate(members):
            if m == "null":
                optional = True
                continue
            fields.append((self.member_name(m, space, i), self.convert(m, space, True)))
        params = {GENERALIZED_UNION: name} if self.options.generalized_sum_type_support else None
        doc = field_doc if self.options.discard_type_doc_default else None
        version = registry_version if registry_version is not None and registry_version >= 0 else None
        return Schema(
            Type.STRUCT, name=name, fields=fields, optional=optional, parameters=params, doc=doc, version=version
        )

    def member_name(self, member: Any, space: str | None, index: int) -> str:
        if self.options.generalized_sum_type_support:
            return f"connect_union_field_{index}"
        m = self.resolve(member, space)
        if isinstance(m, dict) and m.get("type") in ("record", "enum", "fixed"):
            n = str(m["name"])
            if self.options.enhanced_schema_support:
                ns = m.get("namespace", space)
                return n if "." in n or not ns else f"{ns}.{n}"
            return n.rpartition(".")[2]
        t = m if isinstance(m, str) else m["type"]
        return str(t)


_AVRO_PRIMITIVES: Final = frozenset({"null", "boolean", "int", "long", "float", "double", "bytes", "string"})
_AVRO_TYPES: Final = _AVRO_PRIMITIVES | {"record", "enum", "array", "map", "fixed"}


def _is_map_entry(record: dict[str, Any]) -> bool:
    name = record["name"]
    ns = record.get("namespace")
    full = name if "." in name else full_name(ns, name)
    return full == f"{NAMESPACE}.{MAP_ENTRY_TYPE_NAME}" or record.get(CONNECT_INTERNAL_TYPE) == MAP_ENTRY_TYPE_NAME


def default_from_json(schema: Schema, value: Any) -> Any:
    """A JSON default (Avro field default or `connect.default`) as the Connect value of `schema`."""
    from converters.avro_data import connect_value_from_json  # the value rules live with the data mapping

    return connect_value_from_json(schema, value)


def to_connect(avro: Any, options: AvroDataOptions, version: int | None = None) -> Schema:
    """The Connect schema AvroData.toConnectSchema makes of an Avro schema (JSON data)."""
    return _ToConnect(options).convert(avro, None, registry_version=version)
