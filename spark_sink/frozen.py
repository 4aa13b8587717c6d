"""Frozen dataclass values that key the decoders' caches (row and Connect schemas) are looked up once or twice per
record; a dataclass's own hash walks every field, nested values too, each time. `cached_hash` computes it once per
object and process. Pure."""

from __future__ import annotations

import dataclasses
from typing import Any

_SLOT = "_cached_hash"
# string hashes differ between processes (hash randomization): a value pickled into another process (a Spark task)
# carries its cached hash along, which counts only where this marker is the same
_PROCESS = hash("spark_sink.frozen")


def cached_hash(value: Any) -> int:
    """The hash of a frozen dataclass's fields, as the generated `__hash__` gives it, computed once: use it as the
    class's `__hash__` (a class defining `__hash__` keeps it; equality stays the generated one)."""
    known = value.__dict__.get(_SLOT)
    if known is None or known[0] != _PROCESS:
        known = (_PROCESS, hash(tuple(getattr(value, f.name) for f in dataclasses.fields(value))))
        object.__setattr__(value, _SLOT, known)
    return int(known[1])
