"""C paths for the commonest forms of two PostgreSQL text values (`_fastparse.c`): a timestamptz as a UTC
session prints it, and a numeric(p, s) printed with its s fraction digits. Anything else goes to the Python
parser given as the fallback, which stays the reference; where the extension is not built (no C compiler) the
Python parser is used as it is."""

from __future__ import annotations

import importlib
from decimal import Decimal
from types import ModuleType

from connectors.postgres.value_converters._base import TextParser


def _load() -> ModuleType | None:
    try:
        return importlib.import_module("connectors.postgres.value_converters._fastparse")
    except ImportError:  # pragma: no cover - built without a C compiler
        return None


_accel = _load()


def zoned_timestamp(fraction_digits: int, fallback: TextParser) -> TextParser:
    """timestamptz text -> ZonedTimestamp text with `fraction_digits` (1..6) digits."""
    if _accel is None or not 1 <= fraction_digits <= 6:
        return fallback
    parser: TextParser = _accel.FastParser(_accel.ZONED, fraction_digits, fallback)
    return parser


def fixed_scale_decimal(scale: int, fallback: TextParser) -> TextParser:
    """numeric(p, scale) text -> Decimal, for 1 <= scale <= 1000."""
    if _accel is None or not 1 <= scale <= 1000:
        return fallback
    parser: TextParser = _accel.FastParser(_accel.DECIMAL, scale, fallback, Decimal)
    return parser
