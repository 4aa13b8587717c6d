"""Column defaults (postgresql.md §6.9), as Debezium's PostgresDefaultValueConverter derives them.

The default expression is pg_get_expr's text. A mapper chosen by the column's type name picks the literal:
a function call (`now()`, `nextval('s'::regclass)`, `CURRENT_TIMESTAMP(6)`, `(now() + …)`) yields the
type's "zero" placeholder; a quoted literal (`'abc'::text`, `'-5'::integer`) yields the text between the
first pair of quotes; anything else is taken raw (`5`, `true`, `1.5`). The literal then goes through the
column's own converter. Whatever fails to parse (bare `CURRENT_TIMESTAMP`, expressions, domain or enum
columns, unsupported types) gives no default, as does a struct value (VariableScaleDecimal, Point).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from decimal import Decimal
from typing import Any, Final

from connect_worker.api.schema import NO_DEFAULT
from connect_worker.api.struct import Struct
from connectors.postgres.value_converters._base import Mapping
from connectors.relational.table import Column

# A call at the start of the expression, optionally after one opening parenthesis (Debezium's pattern).
_FUNCTION: Final = re.compile(r"^[(]?[A-Za-z0-9_]+\((?:.+(?:, ?.+)*)?\)")

# Type name → the "zero" literal used when the default is produced by a function.
_PLACEHOLDERS: Final[dict[str, str]] = {
    "bit": "00",
    "varbit": "0",
    "bool": "false",
    "bpchar": "",
    "varchar": "",
    "text": "",
    "numeric": "0.0",
    "float4": "0.0",
    "float8": "0.0",
    "int2": "0",
    "int4": "0",
    "int8": "0",
    "json": "{}",
    "jsonb": "{}",
    "xml": "",
    "uuid": "00000000-0000-0000-0000-000000000000",
    "date": "1970-01-01",
    "time": "00:00",
    "timestamp": "1970-01-01",
    "timestamptz": "1970-01-01",
    "interval": "epoch",
}
# Types whose mapper returns no default for a `NULL::type` expression.
_NULL_AWARE: Final = frozenset({"bool", "numeric", "float4", "float8", "int2", "int4", "int8"})

_INT_BOUNDS: Final = {"int2": 1 << 15, "int4": 1 << 31, "int8": 1 << 63}


def extract_literal(expression: str, placeholder: str) -> str:
    if _FUNCTION.match(expression):
        return placeholder
    first = expression.find("'")
    if first < 0:
        return expression
    second = expression.find("'", first + 1)
    if second < 0:
        raise ValueError("unbalanced quote")
    return expression[first + 1 : second]


def _java_int(text: str, type_name: str) -> str:
    """Integer.parseInt & co.: optional sign and ASCII digits only, within range."""
    body = text[1:] if text[:1] in "+-" else text
    if not body.isascii() or not body.isdigit():
        raise ValueError(text)
    bound = _INT_BOUNDS[type_name]
    if not -bound <= int(text) < bound:
        raise ValueError(text)
    return str(int(text))


def _literal_for_converter(type_name: str, literal: str) -> str | bool:
    """The literal reshaped into what the column's text parser reads (or a ready value for bool/bit(1))."""
    if type_name == "bool":
        return literal.lower() == "true"  # Boolean.parseBoolean
    if type_name in _INT_BOUNDS:
        return _java_int(literal, type_name)
    if type_name == "numeric":
        Decimal(literal.strip())  # new BigDecimal(...) must accept it
        return literal.strip()
    if type_name in ("float4", "float8"):
        float(literal)
        return literal.strip()
    if type_name == "uuid":
        return str(uuid.UUID(literal))
    return literal


def default_value(column: Column, mapping: Mapping) -> Any:
    """The Connect default for the column's field schema, or NO_DEFAULT."""
    expression = column.default_expression
    column_type = column.type
    if expression is None or column_type.base is not None or column_type.schema != "pg_catalog":
        return NO_DEFAULT
    type_name = column_type.name
    placeholder = _PLACEHOLDERS.get(type_name)
    if placeholder is None:
        return NO_DEFAULT
    if expression.startswith("NULL::") and type_name in _NULL_AWARE:
        return NO_DEFAULT
    convert: Callable[[str], Any] = mapping.from_text
    try:
        literal = extract_literal(expression, placeholder)
        if type_name == "bit" and len(literal) == 1:
            value: Any = literal == "1"
        else:
            prepared = _literal_for_converter(type_name, literal)
            value = prepared if isinstance(prepared, bool) else convert(prepared)
    except Exception:  # noqa: BLE001 - any parse or conversion failure means "no default", as in Debezium
        return NO_DEFAULT
    if value is None or isinstance(value, Struct):
        return NO_DEFAULT
    if isinstance(value, Decimal) and column.scale is not None:
        exponent = value.as_tuple().exponent
        if isinstance(exponent, int) and column.scale > -exponent:
            value = value.quantize(Decimal(1).scaleb(-column.scale))
    return value
