"""Compact JSON as Kafka Connect's internal JsonConverter (schemas.enable=false) writes it.

Byte-identical output matters for offsets keys: Connect finds offsets by the exact key bytes. Jackson's
rules: no whitespace; `"` `\\` and control characters escaped (\\t \\n \\r \\b \\f short forms, others
\\u00XX with upper-case hex); characters outside the BMP as escaped surrogate pairs (upper-case hex); other
non-ASCII raw UTF-8; `/` not escaped. Maps keep the order they are given in (callers that stand in for a
Java HashMap order them with `java_hashmap_order`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import orjson

from connect_worker.api.javacompat import jackson_quote, java_double_to_string, java_hashmap_order


def _encode(v: Any, out: list[str]) -> None:
    if v is None:
        out.append("null")
    elif v is True:
        out.append("true")
    elif v is False:
        out.append("false")
    elif isinstance(v, int):
        out.append(str(v))
    elif isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            out.append('"' + java_double_to_string(v) + '"')
        else:
            out.append(java_double_to_string(v))
    elif isinstance(v, str):
        out.append(jackson_quote(v))
    elif isinstance(v, Mapping):
        out.append("{")
        first = True
        for k, x in v.items():
            if not first:
                out.append(",")
            first = False
            out.append(jackson_quote(str(k)))
            out.append(":")
            _encode(x, out)
        out.append("}")
    elif isinstance(v, list | tuple):
        out.append("[")
        for i, x in enumerate(v):
            if i:
                out.append(",")
            _encode(x, out)
        out.append("]")
    else:
        raise TypeError(f"cannot write {type(v).__name__} in Connect's internal JSON")


def dumps(value: Any) -> bytes:
    out: list[str] = []
    _encode(value, out)
    return "".join(out).encode("utf-8")


def loads(data: bytes) -> Any:
    return orjson.loads(data)


def offset_key(connector: str, partition: Mapping[str, Any]) -> bytes:
    """The offsets-topic key `["<connector>",{partition}]`, with the partition map in Java HashMap order."""
    return dumps([connector, java_hashmap_order(partition)])
