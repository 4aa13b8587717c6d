"""Column defaults (postgresql.md §6.9), as Debezium's PostgresDefaultValueConverter derives them.

The default expression is pg_get_expr's text. A mapper chosen by the column's type name picks the literal:
a function call (`now()`, `nextval('s'::regclass)`, `CURRENT_TIMESTAMP(6)`, `(now() + …)`) yields the
type's "zero" placeholder; a quoted literal (`'abc'::text`, `'-5'::integer`) yields the text between the
first pair of quotes; anything else is taken raw (`5`, `true`, `1.5`). The literal then goes through the
column's own converter; an enum column's default is the label of `'label'::enum_type`. Whatever fails to parse
(expressions, domain columns, unsupported types) gives no default, as does a struct value (VariableScaleDecimal, Point).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from decimal import MAX_PREC, Context, Decimal
from typing import Any, Final

from connect_worker.api.schema import NO_DEFAULT
from connect_worker.api.struct import Struct
from connectors.postgres.value_converters._base import Mapping
from connectors.relational.table import Column

# A call at the start of the expression, optionally after one opening parenthesis (Debezium's pattern), or one of
# the SQL value functions PostgreSQL 15 prints bare (`CURRENT_TIMESTAMP`, `CURRENT_DATE`, …).
_FUNCTION: Final = re.compile(r"^[(]?[A-Za-z0-9_.]+\((?:.+(?:, ?.+)*)?\)")
_CURRENT_DATE_TIMES: Final = frozenset(
    {"current_timestamp", "current_time", "current_date", "localtime", "localtimestamp"}
)
# Types whose default expression Debezium trims before reading it.
_TRIMMED: Final = frozenset(
    {"bit", "varbit", "bool", "numeric", "float4", "float8", "int2", "int4", "int8", "uuid", "date", "time",
     "timestamp", "timestamptz", "interval"}
)  # fmt: skip

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
    if _FUNCTION.match(expression) or expression.lower() in _CURRENT_DATE_TIMES:
        return placeholder
    first = expression.find("'")
    if first < 0:
        return expression
    second = expression.find("'", first + 1)
    if second < 0:
        raise ValueError("unbalanced quote")
    return expression[first + 1 : second]


def _enum_default(type_name: str, expression: str, mapping: Mapping) -> Any:
    """PostgresDefaultValueConverter.extractEnumDefault: `'label'::type` whose cast names the enum (with or without
    a schema); anything else gives no default."""
    cast = expression.rfind("::")
    if cast < 0:
        return NO_DEFAULT
    suffix = expression[cast + 2 :].rsplit(".", 1)[-1].strip('"')
    literal = expression[:cast]
    if suffix != type_name or len(literal) < 2 or not (literal.startswith("'") and literal.endswith("'")):
        return NO_DEFAULT
    try:
        value = mapping.from_text(literal[1:-1])
    except Exception:  # noqa: BLE001 - as above: no default
        return NO_DEFAULT
    return NO_DEFAULT if value is None else value


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
    if expression is None or column_type.base is not None:
        return NO_DEFAULT
    if column_type.enum_labels is not None:
        return _enum_default(column_type.name, expression, mapping)
    if column_type.schema != "pg_catalog":
        return NO_DEFAULT
    type_name = column_type.name
    placeholder = _PLACEHOLDERS.get(type_name)
    if placeholder is None:
        return NO_DEFAULT
    if type_name in _TRIMMED:
        expression = expression.strip()
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
            # more fraction digits: exact, so no precision limit may apply (the default context's is 28)
            value = value.quantize(Decimal(1).scaleb(-column.scale), context=Context(prec=MAX_PREC))
    return value
