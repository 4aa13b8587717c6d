"""The errors a micro-batch handles per table: a Spark, Delta or schema error fails that table's part of the batch
(dead letter, or SinkError under fail_fast), never the whole job silently."""

from __future__ import annotations

from py4j.protocol import Py4JError
from pyspark.errors import PySparkException

from spark_sink.delta.tables import IncompatibleTableError

SPARK_ERRORS = (PySparkException, Py4JError, IncompatibleTableError, ValueError, TypeError, OverflowError)


class SinkError(RuntimeError):
    """Raised in fail-fast mode: the query stops and the batch is replayed from the checkpoint on restart."""


def first_line(error: BaseException) -> str:
    """An error as one log/dead-letter line: its type and the first line of its message. A Java error reached
    through py4j ("An error occurred while calling o74.sql." then ": <Java exception>: <message>") is named by its
    Java exception and message instead: the first line alone says nothing."""
    lines = str(error).strip().splitlines()
    if len(lines) > 1 and lines[0].startswith("An error occurred while calling") and lines[1].startswith(": "):
        return f"{type(error).__name__}: {lines[1][2:]}"
    return f"{type(error).__name__}: {lines[0] if lines else ''}"
