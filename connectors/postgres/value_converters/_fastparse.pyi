"""Type stub of the C extension connectors/postgres/value_converters/_fastparse.c."""

from collections.abc import Callable
from typing import Any, Final

ZONED: Final[int]
DECIMAL: Final[int]

class FastParser:
    def __init__(
        self, kind: int, n: int, fallback: Callable[[str], Any], decimal: Callable[[str], Any] | None = None
    ) -> None: ...
    def __call__(self, text: str, /) -> Any: ...
