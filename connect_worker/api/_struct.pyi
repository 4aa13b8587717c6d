"""Type stub of the C extension connect_worker/api/_struct.c (Struct's slots and constructor)."""

from collections.abc import Sequence
from typing import Any, Self

class StructBase:
    schema: Any
    values: tuple[Any, ...]
    @classmethod
    def of(cls, schema: Any, values: Sequence[Any], /) -> Self: ...

def init(data_error: type[Exception], /) -> None: ...
