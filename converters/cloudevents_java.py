"""Java's texts of the values in Debezium's messages (String.valueOf, Struct.toString), and Kafka's
ConnectSchema.validateValue (what `Struct.put` runs), for the CloudEvents converter's error paths."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from decimal import Decimal
from typing import Any, Final

from connect_worker.api.errors import DataError
from connect_worker.api.javacompat import java_double_to_string
from connect_worker.api.schema import DATE_NAME, DECIMAL_NAME, NO_DEFAULT, TIME_NAME, TIMESTAMP_NAME, Schema, Type
from connect_worker.api.struct import Struct


# -- Java's texts --------------------------------------------------------------------------------------------------
def java_text(v: Any) -> str:
    """`String.valueOf` of the Java value a Python value stands for."""
    if v is None:
        return "null"
    if v.__class__ is str:
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return java_double_to_string(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(java_text(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{java_text(k)}={java_text(x)}" for k, x in v.items()) + "}"
    if isinstance(v, Decimal):
        return java_double_to_string(float(v))  # schemaless JSON numbers read back as Double
    if isinstance(v, Struct):
        return _struct_text(v)
    if isinstance(v, (bytes, bytearray, memoryview)):
        return f"[B@{id(v):x}"  # Java prints an array's identity hash: no two runs agree
    return str(v)


_DAYS: Final = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS: Final = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _struct_text(v: Struct) -> str:
    """Struct.toString: `Struct{name=value,...}` of the non-null values, each as Java prints its Connect type (a
    Decimal as a BigDecimal, a date or time as a java.util.Date in a UTC JVM)."""
    shown = (f"{f.name}={_connect_text(x)}" for f, x in zip(v.schema.fields, v.values, strict=True) if x is not None)
    return "Struct{" + ",".join(shown) + "}"


def _connect_text(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, Decimal):
        return str(v)  # BigDecimal.toString's notation is Python's
    if isinstance(v, (dt.date, dt.time)):
        if isinstance(v, dt.time):
            v = dt.datetime.combine(dt.date(1970, 1, 1), v)
        elif not isinstance(v, dt.datetime):
            v = dt.datetime.combine(v, dt.time())
        return (
            f"{_DAYS[v.weekday()]} {_MONTHS[v.month - 1]} {v.day:02d} {v.hour:02d}:{v.minute:02d}:{v.second:02d} "
            f"UTC {v.year}"
        )
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_connect_text(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_connect_text(k)}={_connect_text(x)}" for k, x in v.items()) + "}"
    return java_text(v)


def _java_class(v: Any) -> str:
    """The Java class a Python value stands for, as `getClass()` prints it (for error messages)."""
    if isinstance(v, bool):
        return "class java.lang.Boolean"
    classes = {
        str: "java.lang.String",
        int: "java.lang.Long",
        float: "java.lang.Double",
        Decimal: "java.math.BigDecimal",
        list: "java.util.ArrayList",
        tuple: "java.util.ArrayList",
        dict: "java.util.HashMap",
        Struct: "org.apache.kafka.connect.data.Struct",
    }
    for py, java in classes.items():
        if isinstance(v, py):
            return "class " + java
    if isinstance(v, (bytes, bytearray, memoryview)):
        return "class [B"
    if isinstance(v, (dt.date, dt.time)):
        return "class java.util.Date"
    return "class " + type(v).__qualname__


# -- ConnectSchema.validateValue, for the error path ----------------------------------------------------------------
_LOGICAL: Final[dict[str, tuple[type, ...]]] = {
    DECIMAL_NAME: (Decimal,),
    DATE_NAME: (dt.date,),
    TIME_NAME: (dt.time, dt.datetime),
    TIMESTAMP_NAME: (dt.datetime,),
}
_PLAIN: Final[dict[Type, tuple[type, ...]]] = {
    Type.INT8: (int,),
    Type.INT16: (int,),
    Type.INT32: (int,),
    Type.INT64: (int,),
    Type.FLOAT32: (float,),
    Type.FLOAT64: (float,),
    Type.BOOLEAN: (bool,),
    Type.STRING: (str,),
    Type.BYTES: (bytes, bytearray, memoryview),
    Type.ARRAY: (list, tuple),
    Type.MAP: (dict,),
    Type.STRUCT: (Struct,),
}


def validate_value(schema: Schema, value: Any, location: str) -> None:
    """Kafka's ConnectSchema.validateValue (what `Struct.put` runs), with its messages."""
    if value is None:
        if not schema.optional:
            raise DataError(f"Invalid value: null used for required {location}, schema type: {schema.type.name}")
        return
    expected = _LOGICAL.get(schema.name, _PLAIN[schema.type]) if schema.name else _PLAIN[schema.type]
    if not isinstance(value, expected) or (isinstance(value, bool) and bool not in expected):
        named = f' "{schema.name}"' if schema.name else ""
        raise DataError(
            f"Invalid Java object for schema{named} with type {schema.type.name}: {_java_class(value)} for {location}"
        )
    checked: Any = value
    if schema.type is Type.STRUCT:
        if checked.schema != schema:
            raise DataError("Struct schemas do not match.")
        validate_struct(checked)
    elif schema.type is Type.ARRAY:
        for item in checked:
            validate_value(schema.element_schema, item, "element of array " + location)
    elif schema.type is Type.MAP:
        assert schema.key_schema is not None and schema.value_schema is not None
        for k, v in checked.items():
            validate_value(schema.key_schema, k, "key of map " + location)
            validate_value(schema.value_schema, v, "value of map " + location)


def validate_struct(struct: Struct) -> None:
    """Kafka's Struct.validate: every field, a null allowed where optional or defaulted."""
    for f, v in zip(struct.schema.fields, struct.values, strict=True):
        if v is None and (f.schema.optional or (f.schema.default is not NO_DEFAULT and f.schema.default is not None)):
            continue
        validate_value(f.schema, v, f'field: "{f.name}"')


def validate_fields(schema: Schema, values: Sequence[Any]) -> None:
    """The puts of these values into a struct of this schema, in field order (the first values only when fewer)."""
    for f, v in zip(schema.fields, values, strict=False):
        validate_value(f.schema, v, f'field: "{f.name}"')
