"""Type stub of the C extension converters/_jsonstruct.c (the JsonConverter's struct encoder)."""

from collections.abc import Sequence
from typing import Any, Final

INT: Final[int]
STR: Final[int]
BOOL: Final[int]
STRUCT: Final[int]
CALL: Final[int]
DECIMAL: Final[int]

class StructEncoder:
    """One struct schema's encoder: fields are (prefix, kind, arg, text written for a null or None), arg being
    a nested StructEncoder, an encoder, or (encoder, scale, Decimal class) for DECIMAL fields; self_null is the
    answer for a null struct (None: TypeError)."""

    schema: Any
    def __init__(
        self,
        schema: Any,
        struct_cls: type,
        fields: Sequence[tuple[str, int, Any, str | None]],
        self_null: str | None = None,
        /,
    ) -> None: ...
    def __call__(self, struct: Any) -> str: ...
    def utf8(self, struct: Any, prefix: bytes | None = None, /) -> bytes: ...

def quote(s: str) -> str: ...
