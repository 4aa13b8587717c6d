"""Filters and the Java-regex translation they rest on."""

from __future__ import annotations

import pytest

from connect_worker.api.errors import ConfigError
from connect_worker.api.java_regex import JavaRegexError, java_regex
from connectors.relational.filters import (
    ColumnFilter,
    MessagePrefixFilter,
    RegexList,
    TableFilter,
    filter_problems,
    split_regex_list,
)
from connectors.relational.table import TableId

PG_SYSTEM = ("pg_catalog", "information_schema", "pg_toast")


def jm(pattern: str, text: str, *, ci: bool = False) -> bool:
    """Java's Pattern.compile(pattern[, CASE_INSENSITIVE]).matcher(text).matches()."""
    return java_regex(pattern, case_insensitive=ci).fullmatch(text) is not None


# -- list splitting ---------------------------------------------------------------------------------------
def test_split_on_unescaped_commas_trims_and_drops_empty_parts() -> None:
    assert split_regex_list(" public.a , public.b,,") == ["public.a", "public.b"]
    assert split_regex_list(r"public\.t\,x,y") == [r"public\.t,x", "y"]
    assert split_regex_list(r"a\\,b") == ["a\\\\", "b"]  # an escaped backslash does not escape the comma


def test_split_rejects_trailing_backslash() -> None:
    with pytest.raises(JavaRegexError):
        split_regex_list("abc\\")


# -- anchoring and case ----------------------------------------------------------------------------------
def test_patterns_are_anchored_full_matches() -> None:
    rl = RegexList("public.customers")
    assert rl.matches("public.customers")
    assert not rl.matches("public.customers2")
    assert not rl.matches("xpublic.customers")
    assert rl.matches("publicXcustomers")  # an unescaped dot is any character


def test_regex_lists_are_ascii_case_insensitive_like_debezium() -> None:
    rl = RegexList("Public.Customers")
    assert rl.matches("PUBLIC.customers")
    assert not RegexList("é").matches("É")  # CASE_INSENSITIVE without UNICODE_CASE folds ASCII only
    assert RegexList("(?u)é").matches("É")


# -- Java dialect details -----------------------------------------------------------------------------------
def test_dot_excludes_all_java_line_terminators_unless_flags_say_otherwise() -> None:
    for terminator in "\n\r\x85\u2028\u2029":
        assert not jm("a.b", f"a{terminator}b")
        assert jm("(?s)a.b", f"a{terminator}b")
    assert jm("(?d)a.b", "a\rb")
    assert not jm("(?d)a.b", "a\nb")


def test_dollar_does_not_let_matches_skip_a_final_terminator() -> None:
    assert not jm("a$", "a\n")
    assert jm("a$\\n", "a\n")
    assert jm("a$\\r\\n", "a\r\n")
    assert jm("a\\z", "a")


def test_inline_flags_apply_to_the_rest_of_the_group_and_across_alternatives() -> None:
    assert jm("a(?i)b|c", "aB")
    assert jm("a(?i)b|c", "C")
    assert not jm("a(?i)b|c", "AB")
    assert jm("(a(?i)b)c", "aBc")
    assert not jm("(a(?i)b)c", "aBC")  # restored at the end of the group, as in Java
    assert jm("(?i:a)b", "Ab")
    assert not jm("(?i:a)b", "aB")
    assert not jm("(?-i)abc", "ABC", ci=True)
    assert jm("(?i)abc(?-i)d", "ABCd")
    assert not jm("(?i)abc(?-i)d", "ABCD")


def test_comments_mode_ignores_whitespace_and_comments_even_in_classes() -> None:
    assert jm("(?x) a [ b ] # a comment\n c", "abc")
    assert jm("(?x)a\\ b", "a b")
    assert jm("(?x)a +", "aaa")


def test_quantifiers_lazy_possessive_and_bounds() -> None:
    assert not jm("a*+a", "aaa")  # possessive: never gives back
    assert jm("a*a", "aaa")
    assert jm("a{2,3}?b", "aab")
    assert jm("(?>ab|a)c", "abc")
    assert not jm("(?>a|ab)c", "abc")  # atomic group commits to 'a'
    with pytest.raises(JavaRegexError):
        java_regex("x{,3}")  # Java: Illegal repetition
    with pytest.raises(JavaRegexError):
        java_regex("x{3,2}")


def test_escapes() -> None:
    assert jm(r"\0101", "A")  # Java octal needs a leading 0
    assert jm(r"\x41\u0042\x{43}", "ABC")
    assert jm(r"\x{1F600}", "\U0001f600")
    assert jm(r"\uD83D\uDE00", "\U0001f600")  # a surrogate pair escape is one code point
    assert jm(r"\cA", "\x01")
    assert jm(r"\e\a", "\x1b\x07")
    assert jm(r"\N{LATIN SMALL LETTER E WITH ACUTE}", "é")
    assert jm(r"\Qa.b*\E", "a.b*")
    assert not jm(r"\Qa.b\E", "axb")
    assert jm(r"a\Q.b", "a.b")  # \Q without \E quotes to the end
    assert jm(r"\R", "\r\n") and jm(r"\R", "\u2028")
    assert jm(r"\h\v", "\xa0\x0b")
    with pytest.raises(JavaRegexError):
        java_regex(r"\y")


def test_predefined_classes_are_ascii_unless_unicode_character_class() -> None:
    assert jm(r"\w+", "a_Z9")
    assert not jm(r"\w", "é")
    assert jm(r"(?U)\w", "é")
    assert not jm(r"\d", "\u0663")  # ARABIC-INDIC DIGIT THREE
    assert jm(r"(?U)\d", "\u0663")
    assert jm(r"\s", "\x0b") and not jm(r"\s", "\xa0")
    assert jm(r"\D\W\S", "a.b")


def test_backreferences() -> None:
    assert jm(r"(a)\1", "aa")
    assert jm(r"(a)\11", "aa1")  # only one group: \1 followed by a literal 1, as in Java
    assert jm(r"(?<x>ab)-\k<x>", "ab-ab")
    with pytest.raises(JavaRegexError):
        java_regex(r"\k<nope>")


def test_character_classes() -> None:
    assert jm("[]a]", "]")  # ']' first is a literal
    assert jm("[a-c[x-z]]", "y")  # nested class = union
    assert jm("[a-z&&[^aeiou]]+", "bcd")
    assert not jm("[a-z&&[^aeiou]]", "a")
    assert jm("[a-z&&def]", "e") and not jm("[a-z&&def]", "a")
    assert jm("[^a-z&&[aeiou]]", "b")  # Java 9+: ^ negates the whole intersection
    assert not jm("[^a-z&&[aeiou]]", "a")
    assert jm(r"[\w&&[^\d]]", "_") and not jm(r"[\w&&[^\d]]", "5")
    assert jm("[a-]", "-") and jm("[-a]", "-")
    assert jm(r"[\Q]-[\E]+", "]-[")
    assert not jm("[^abc]", "A", ci=True)
    assert jm("[^abc]", "d", ci=True)
    with pytest.raises(JavaRegexError):
        java_regex("[z-a]")
    with pytest.raises(JavaRegexError):
        java_regex("[abc")


def test_unicode_properties() -> None:
    assert jm(r"\p{Lu}\p{Ll}", "Äb")
    assert jm(r"\p{L}+", "héllo") and not jm(r"\p{L}+", "a1")
    assert jm(r"\p{IsL}\pL\p{gc=Nd}\p{general_category=Lu}", "éa7X")
    assert jm(r"\P{L}", "1") and not jm(r"\P{L}", "x")
    assert jm(r"[\p{L}&&[^\p{Lu}]]", "ß") and not jm(r"[\p{L}&&[^\p{Lu}]]", "Ä")
    assert jm(r"\p{Lower}\p{Upper}\p{Punct}\p{XDigit}", "aB!f")
    assert not jm(r"\p{Alpha}", "é")  # POSIX classes are US-ASCII
    assert jm(r"(?U)\p{Alpha}", "é")
    assert jm(r"\p{IsAlphabetic}\p{IsDigit}", "é\u0663")  # Is* binary properties are Unicode
    assert jm(r"\p{javaLowerCase}", "é")
    for unsupported in (r"\p{IsLatin}", r"\p{InGreek}", r"\p{script=Latin}", r"\p{NoSuchThing}"):
        with pytest.raises(JavaRegexError):
            java_regex(unsupported)


def test_unsupported_and_malformed_patterns_are_rejected_clearly() -> None:
    for bad in (r"\G", r"\X", r"\b{g}", "(?<=a+)b", "(a", "a)", "*a", "(?<1x>a)", "(?q)a"):
        with pytest.raises(JavaRegexError) as e:
            java_regex(bad)
        assert bad in str(e.value)


# -- table filter -----------------------------------------------------------------------------------------
def tf(**props: str) -> TableFilter:
    return TableFilter.from_config(props, system_schemas=PG_SYSTEM)


def test_no_filters_capture_every_non_system_table() -> None:
    f = tf()
    assert f.accepts(TableId("public", "t"))
    assert not f.accepts(TableId("pg_catalog", "pg_class"))
    assert not f.accepts(TableId("INFORMATION_SCHEMA", "tables"))
    assert TableFilter.from_config({"table.ignore.builtin": "false"}, system_schemas=PG_SYSTEM).accepts(
        TableId("pg_catalog", "pg_class")
    )


def test_table_include_list() -> None:
    f = tf(**{"table.include.list": r"public\.customers, inventory\..*"})
    assert f.accepts(TableId("public", "customers"))
    assert f.accepts(TableId("Inventory", "Orders"))  # case-insensitive
    assert not f.accepts(TableId("public", "customers_old"))
    assert not f.accepts(TableId("public", "orders"))


def test_table_exclude_list() -> None:
    f = tf(**{"table.exclude.list": r"public\.audit_.*"})
    assert not f.accepts(TableId("public", "audit_log"))
    assert f.accepts(TableId("public", "customers"))
    assert not f.accepts(TableId("pg_catalog", "x"))


def test_schema_and_table_lists_combine() -> None:
    f = tf(**{"schema.include.list": "inventory", "table.include.list": r".*\.orders"})
    assert f.accepts(TableId("inventory", "orders"))
    assert not f.accepts(TableId("public", "orders"))
    assert not f.accepts(TableId("inventory", "customers"))
    assert f.eligible(TableId("inventory", "customers"))  # schema-level only
    g = tf(**{"schema.exclude.list": "stag.*"})
    assert not g.accepts(TableId("staging", "t"))
    assert g.accepts(TableId("public", "t"))


def test_include_and_exclude_lists_are_mutually_exclusive() -> None:
    for kind in ("schema", "table"):
        with pytest.raises(ConfigError) as e:
            tf(**{f"{kind}.include.list": "a", f"{kind}.exclude.list": "b"})
        assert e.value.name == f"{kind}.exclude.list"
    with pytest.raises(ConfigError):
        ColumnFilter.from_config({"column.include.list": "a", "column.exclude.list": "b"})
    with pytest.raises(ConfigError):
        MessagePrefixFilter.from_config({"message.prefix.include.list": "a", "message.prefix.exclude.list": "b"})
    assert tf(**{"table.include.list": "a", "table.exclude.list": "  "}).accepts(TableId("x", "a")) is False


def test_invalid_regex_is_a_config_error_naming_the_key() -> None:
    with pytest.raises(ConfigError) as e:
        tf(**{"table.include.list": "public.(x"})
    assert e.value.name == "table.include.list"
    problems = filter_problems(
        {"table.include.list": "public.(x", "column.include.list": "a", "column.exclude.list": "b"}
    )
    assert set(problems) == {"table.include.list", "column.exclude.list"}


def test_table_decisions_are_cached() -> None:
    calls: list[TableId] = []

    def is_system(t: TableId) -> bool:
        calls.append(t)
        return False

    f = TableFilter.from_config({}, is_system=is_system)
    t = TableId("public", "t")
    assert f.accepts(t) and f.accepts(t)
    assert calls == [t]


# -- column and message filters ----------------------------------------------------------------------------
def test_column_filters_match_schema_table_column() -> None:
    inc = ColumnFilter.from_config({"column.include.list": r"public\.t\.(id|name)"})
    t = TableId("public", "t")
    assert inc.includes(t, "id") and inc.includes(t, "NAME")
    assert not inc.includes(t, "secret")
    assert not inc.includes(TableId("public", "u"), "id")
    exc = ColumnFilter.from_config({"column.exclude.list": r".*\.secret"})
    assert exc.included_columns(t, ["id", "secret", "x"]) == ("id", "x")
    assert ColumnFilter.from_config({}).is_noop


def test_message_prefix_filter() -> None:
    assert MessagePrefixFilter.from_config({}).includes("anything")
    inc = MessagePrefixFilter.from_config({"message.prefix.include.list": "audit.*,app"})
    assert inc.includes("audit-1") and inc.includes("APP") and not inc.includes("other")
    exc = MessagePrefixFilter.from_config({"message.prefix.exclude.list": ".*"})
    assert not exc.includes("x")
