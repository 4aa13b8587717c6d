from __future__ import annotations

import pytest

from connect_worker.api.errors import ConfigError
from connect_worker.transforms._regex import Replacement, compile_java_regex


def route(regex: str, replacement: str, text: str) -> str | None:
    p = compile_java_regex(regex)
    if p.fullmatch(text) is None:
        return None
    return Replacement(p, replacement).replace_first(p, text)


@pytest.mark.parametrize(
    ("regex", "replacement", "topic", "expected"),
    [
        (r"(.*)\.public\.(.*)", "$2", "db.public.customers", "customers"),
        (r"(?<server>[^.]+)\.(?<rest>.*)", "${rest}-${server}", "db.public.t", "public.t-db"),
        (r"(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)(k)", "$11-$1", "abcdefghijk", "k-a"),
        # $12 names group 1 followed by a literal 2 when there are fewer than 12 groups
        (r"(x)(y)", "$12", "xy", "x2"),
        (r"(x)", r"\$1", "x", "$1"),
        (r"\Qa.b\E(.*)", "z$1", "a.bcd", "zcd"),
        (r"\p{Alpha}+-(\d+)", "n$1", "abc-42", "n42"),
        (r"[a-c[x-z]]+", "m", "axz", "m"),
        (r"a(?i)B", "ok", "aB", "ok"),
        (r"a(?i)B", "ok", "ab", "ok"),
        (r"(?i)TOPIC", "t", "topic", "t"),
        # replaceFirst replaces the first *found* match, which may be shorter than the full match
        (r"a|ab", "X", "ab", "Xb"),
        (r"(unmatched)?x", "[$1]", "x", "[]"),
    ],
)
def test_java_semantics(regex: str, replacement: str, topic: str, expected: str) -> None:
    assert route(regex, replacement, topic) == expected


def test_full_match_required() -> None:
    assert route(r"public", "x", "db.public.t") is None


def test_ascii_only_classes_like_java() -> None:
    assert compile_java_regex(r"\w+").fullmatch("é") is None
    assert compile_java_regex(r"(?U)\w+").fullmatch("é") is not None


def test_z_anchors() -> None:
    assert compile_java_regex(r"a\z").search("a\n") is None
    assert compile_java_regex(r"a\Z").search("a\n") is not None


@pytest.mark.parametrize(
    ("regex", "replacement", "message"),
    [
        ("(a", "x", "Invalid regex"),
        ("[a&&b]", "x", "intersection"),
        ("(a)", "$2", "No group 2"),
        ("(a)", "${nope}", "No group with name"),
        ("(a)", "$", "group index is missing"),
        ("(a)", "x\\", "character to be escaped is missing"),
    ],
)
def test_errors(regex: str, replacement: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        p = compile_java_regex(regex)
        Replacement(p, replacement)
