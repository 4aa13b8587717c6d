from __future__ import annotations

import pytest

from connect_worker.api.errors import ConfigError
from connect_worker.api.java_regex import JavaRegexError, Replacement, java_regex


def route(regex: str, replacement: str, text: str) -> str | None:
    p = java_regex(regex)
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
    assert java_regex(r"\w+").fullmatch("é") is None
    assert java_regex(r"(?U)\w+").fullmatch("é") is not None


def test_z_anchors() -> None:
    assert java_regex(r"a\z").search("a\n") is None
    assert java_regex(r"a\Z").search("a\n") is not None


@pytest.mark.parametrize(
    ("regex", "replacement", "message"),
    [
        ("(a", "x", "Unclosed group near index 2: \\(a"),
        ("\\Ga", "x", "Unsupported Java regex construct: \\\\G"),
        ("(a)", "$2", "No group 2"),
        ("(a)", "${nope}", "No group with name"),
        ("(a)", "$", "group index is missing"),
        ("(a)", "x\\", "character to be escaped is missing"),
    ],
)
def test_errors(regex: str, replacement: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        p = java_regex(regex)
        Replacement(p, replacement)


# Where the two translators this module replaced (transforms/_regex.py, relational/java_regex.py) went wrong, now as
# java.util.regex does it (checked against a JVM by tests/java_golden/test_java_regex_golden.py).
@pytest.mark.parametrize(
    ("regex", "yes", "no"),
    [
        # the transforms' translator refused intersections and Unicode properties, or read them as Python does
        ("[a-z&&[^aeiou]]+", "bcd", "bad"),
        ("[a&&]", "a", "b"),
        (r"\p{Lu}\p{IsAlphabetic}\p{javaLowerCase}", "Éaé", "éaé"),
        (r"\p{IsAlphabetic}", "é", "1"),
        (r"(?U)\p{Alpha}", "é", "1"),
        ("a.b", "a b", "a\rb"),  # `.` stops at every Java line terminator
        (r"a\Z\r\n", "a\r\n", "a\r\r\n"),  # before any final line terminator
        ("a$\u2028", "a\u2028", "a\n\u2028"),
        ("(?x)[a b]", "b", " "),  # comments mode skips blanks inside classes too
        (r"(?iu)\u00e9", "\u00c9", "e"),  # UNICODE_CASE
        # the relational translator
        ("[&&a]", "a", "b"),  # an empty left side of && is no side at all
        (r"(?i)\p{Lu}", "\u00e9", "1"),  # case-insensitive Lu/Ll/Lt mean any cased letter
        (r"\p{javaLowerCase}", "\u00aa", "A"),  # Character.isLowerCase includes Other_Lowercase
        ("(?iu)\u00df", "\u00df", "\u1e9e"),  # ß has no simple upper case: Java does not fold it to ẞ
        ("(?x)[a -z]", "m", " "),
        ("{2}a", "a", "aa"),  # a quantifier with nothing before it repeats the empty string
        ("(?m)a\u2028^b", "a\u2028b", "a\u2028c"),  # multi-line ^ after every Java line terminator
        ("\\R{2}", "\r\n\n", "\r\n"),  # a repeated \R does not split \r\n
        (r"\w+(?<=a|bc)d", "bcd", "bxd"),  # a look-behind whose alternatives differ in length
    ],
)
def test_java_semantics_where_the_old_translators_differed(regex: str, yes: str, no: str) -> None:
    p = java_regex(regex)
    assert p.fullmatch(yes) is not None
    assert p.fullmatch(no) is None


def test_case_insensitive_lists_fold_ascii_only() -> None:
    assert java_regex("Public.T", case_insensitive=True).fullmatch("PUBLIC.t")
    assert java_regex("é", case_insensitive=True).fullmatch("É") is None
    assert java_regex("[^abc]", case_insensitive=True).fullmatch("B") is None


def test_errors_are_config_errors_naming_the_pattern() -> None:
    with pytest.raises(JavaRegexError) as e:
        java_regex("x{3,2}")
    assert isinstance(e.value, ConfigError)
    assert str(e.value) == "Illegal repetition range near index 5: x{3,2}"
    for valid_in_java in (r"\G", r"\p{InGreek}", r"\p{IsLatin}", "(?<=a+)b", r"\X"):
        with pytest.raises(JavaRegexError, match="Unsupported Java regex construct"):
            java_regex(valid_in_java)


def test_replace_all_moves_on_after_an_empty_match_like_java() -> None:
    p = java_regex(r"^|\w+")
    assert Replacement(p, "<$0>").replace_all(p, "foo") == "<>f<oo>"  # Python's re.sub gives "<><foo>"
    q = java_regex("x*")
    assert Replacement(q, "-").replace_all(q, "abxd") == "-a-b--d-"
