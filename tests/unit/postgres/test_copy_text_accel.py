"""COPY text rows parsed in C (`copy_text_row` of `_tupledata.c`) against the Python parser (`parse_text_row`).

The rows are written as PostgreSQL's COPY TO writes them (CopyAttributeOutText: backslash, the six control
characters and the delimiter escaped, `\\N` for NULL); random bytes cover everything else. Both must give the
same fields, or the same error.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from connectors.postgres import copy_out

_ESCAPED = {"\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def _copy_text(fields: list[str | None]) -> bytes:
    out = ["\\N" if f is None else "".join(_ESCAPED.get(ch, ch) for ch in f) for f in fields]
    return ("\t".join(out) + "\n").encode("utf-8")


def _outcome(parse: Any, data: Any) -> Any:
    try:
        return parse(data)
    except Exception as e:  # noqa: BLE001 - the exception itself is what is compared
        return type(e), str(e)


def _c(data: Any) -> Any:
    assert copy_out._c_parser is not None
    return copy_out._c_parser(data, copy_out.parse_text_row)


def test_the_extension_is_built() -> None:
    assert copy_out._c_parser is not None, "_tupledata is not built: run `pip install -e .`"


fields = st.lists(st.one_of(st.none(), st.text(max_size=20)), min_size=1, max_size=10)


@settings(max_examples=500, deadline=None)
@given(row=fields)
def test_rows_as_copy_writes_them_parse_alike(row: list[str | None]) -> None:
    data = _copy_text(row)
    assert _c(data) == copy_out.parse_text_row(data) == tuple(row)
    assert _c(memoryview(data)) == tuple(row)  # what psycopg hands over


@settings(max_examples=500, deadline=None)
@given(data=st.binary(max_size=40))
def test_random_bytes_parse_or_fail_alike(data: bytes) -> None:
    assert _outcome(_c, data) == _outcome(copy_out.parse_text_row, data)


def test_the_common_row_and_the_fallback() -> None:
    assert _c(b"1\tcustomer-1\t\xc3\xa9t\xc3\xa9\n") == ("1", "customer-1", "été")
    assert _c(b"\n") == ("",)
    assert _c(b"a\t\\N\tc\\td\n") == ("a", None, "c\td")  # a backslash: the Python parser
    calls: list[Any] = []

    def fallback(data: Any) -> Any:
        calls.append(data)
        return ("fallback",)

    assert copy_out._c_parser is not None
    assert copy_out._c_parser(b"x\t\\N\n", fallback) == ("fallback",) and calls == [b"x\t\\N\n"]
    assert copy_out._c_parser(b"\xff\n", fallback) == ("fallback",)  # not UTF-8: the Python parser's error
