"""Type stub of the C extension converters/_jsonstruct.c (the JsonConverter's struct encoder)."""

from collections.abc import Callable, Sequence
from typing import Any, Final

INT: Final[int]
STR: Final[int]
BOOL: Final[int]
STRUCT: Final[int]
CALL: Final[int]

class StructEncoder:
    """One struct schema's encoder: fields are (prefix, kind, encoder or None, text written for a null or None)."""

    schema: Any
    def __init__(
        self, schema: Any, struct_cls: type, fields: Sequence[tuple[str, int, Callable[[Any], str] | None, str | None]]
    ) -> None: ...
    def __call__(self, struct: Any) -> str: ...

def quote(s: str) -> str: ...
