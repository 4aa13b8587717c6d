"""Compact JSON as Kafka Connect's internal JsonConverter (schemas.enable=false) writes it.

Byte-identical output matters for offsets keys: Connect finds offsets by the exact key bytes. Jackson's
rules: no whitespace; `"` `\\` and control characters escaped (\\t \\n \\r \\b \\f short forms, others
\\u00XX with upper-case hex); characters outside the BMP as escaped surrogate pairs (upper-case hex); other
non-ASCII raw UTF-8; `/` not escaped. Maps keep the order they are given in (callers that stand in for a
Java HashMap order them with `java_hashmap_order`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from connect_worker.api.javacompat import jackson_dumps, java_hashmap_order


def dumps(value: Any) -> bytes:
    return jackson_dumps(value)


def loads(data: bytes) -> Any:
    return orjson.loads(data)


def offset_key(connector: str, partition: Mapping[str, Any]) -> bytes:
    """The offsets-topic key `["<connector>",{partition}]`, with the partition map in Java HashMap order."""
    return dumps([connector, java_hashmap_order(partition)])
