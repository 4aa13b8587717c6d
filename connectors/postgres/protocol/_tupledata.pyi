"""Type stub of the C extension _tupledata.c (pgoutput's TupleData parser)."""

from typing import Any

def tuple_data(
    unchanged: Any, error: type[Exception], buf: bytes, pos: int, size: int
) -> tuple[tuple[Any, ...], int]: ...
