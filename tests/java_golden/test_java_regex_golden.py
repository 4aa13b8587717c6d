"""connect_worker.api.java_regex against java.util.regex.Pattern run in a JVM (tests/java/JavaRegexGolden.java, plain
JDK) on the same cases: a hand-written table (java_regex_cases.py) and patterns generated over a small grammar.

For every pattern both sides must take the same compile/refuse decision, except the few valid Java patterns this
worker refuses on purpose (KNOWN_REFUSALS, each with a JavaRegexError naming the construct); when both compile,
matches(), find() (groups, start, end) and Matcher.replaceFirst/replaceAll must agree on every input.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from connect_worker.api.errors import ConfigError
from connect_worker.api.java_regex import JavaRegexError, Replacement, java_regex, translate_java_regex
from connect_worker.api.java_regex_nodes import Alt, BackRef, Group, Node, Quant, Seq
from connect_worker.api.java_regex_parser import Parser
from tests.java_golden.conftest import JAVA_DIR
from tests.java_golden.java_regex_cases import Case, table

pytestmark = [pytest.mark.integration, pytest.mark.java, pytest.mark.timeout(900)]

RunRegex = Callable[[list[Case]], list[dict[str, Any]]]

#: Valid in Java, refused here with "Unsupported Java regex construct: <what>"; the pattern -> what the message names.
KNOWN_REFUSALS: dict[str, str] = {
    "\\Ga": "\\G",  # Python has no \G (find() from the end of the previous match)
    "\\X": "\\X",  # nor grapheme clusters
    "\\b{g}": "\\b{g}",
    "\\p{InGreek}": "Unicode scripts, blocks",  # nor Unicode block and script data
    "\\p{IsLatin}": "Unicode scripts, blocks",
    "\\p{sc=Greek}": "Unicode scripts, blocks",
    "(?<=a+)b": "look-behind",  # Python's look-behinds have one width each
    "(?<=a|bc+)d": "look-behind",
    "(?<=ab?)c": "look-behind",
    "(?<=\\R)a": "look-behind",
    "(?c)[a]": "canonical equivalence",
    "(\\2two|(one))+": "before the group closes",  # Python refers only to closed groups
    "(a*)(\\1)*": "can match the empty string",  # Java's repetitions end at an empty iteration, Python's do not
    "(?:a|^){2}": "can match the empty string",
}
#: Refusals the generated patterns may run into (the same constructs).
REFUSED_CONSTRUCTS = ("look-behind", "before the group closes", "can match the empty string")


@pytest.fixture(scope="module")
def run_regex(java_bin: str) -> RunRegex:
    def run(cases: list[Case]) -> list[dict[str, Any]]:
        stdin = "".join(json.dumps(c, ensure_ascii=True) + "\n" for c in cases)
        proc = subprocess.run(
            [java_bin, "-Xss8m", str(JAVA_DIR / "JavaRegexGolden.java")],
            input=stdin.encode("ascii"),
            capture_output=True,
            timeout=600,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr.decode(errors="replace")
        answers = [json.loads(x) for x in proc.stdout.decode("utf-8").split("\n") if x.strip()]
        assert len(answers) == len(cases), proc.stderr.decode(errors="replace")
        return answers

    return run


@pytest.fixture(scope="module")
def jdk(run_regex: RunRegex) -> int:
    return int(run_regex([{"op": "jdk"}])[0]["feature"])


def _utf16(text: str, index: int) -> int:
    return sum(2 if ord(c) > 0xFFFF else 1 for c in text[:index])


def _groups(m: re.Match[str] | None) -> list[str | None] | None:
    return None if m is None else [m.group(i) for i in range(len(m.groups()) + 1)]


def ours(case: Case) -> dict[str, Any]:
    """The golden program's answer, computed with connect_worker.api.java_regex."""
    try:
        p = java_regex(case["pattern"], case_insensitive=bool(case.get("flags", 0) & 2))
    except JavaRegexError as e:
        return {"compiles": False, "error": str(e)}
    results = []
    for text in case["inputs"]:
        m, f = p.fullmatch(text), p.search(text)
        replaced: list[dict[str, str]] = []
        for rep in case["replacements"]:
            try:
                r = Replacement(p, rep)
                replaced.append({"first": r.replace_first(p, text), "all": r.replace_all(p, text)})
            except ConfigError as e:
                replaced.append({"error": str(e)})
        results.append(
            {
                "matches": m is not None,
                "mgroups": _groups(m),
                "find": f is not None,
                "fgroups": _groups(f),
                "start": -1 if f is None else _utf16(text, f.start()),
                "end": -1 if f is None else _utf16(text, f.end()),
                "replaced": replaced,
            }
        )
    return {"compiles": True, "groups": p.groups, "results": results}


def _jdk_dependent(pattern: str, text: str, jdk: int) -> bool:
    """Before JDK 19 `\\b` took every Unicode letter and digit for a word character (JDK-8264160)."""
    return jdk < 19 and re.search(r"\\[bB]", pattern) is not None and not text.isascii()


def _leaky_groups(pattern: str, flags: int) -> tuple[set[int], bool]:
    """The capturing groups inside look-arounds, and whether a back reference names one. Java keeps what such a group
    captured in a look-around that then failed (or was followed by a failure) at an earlier start position, so
    their values after find() are not comparable (Python leaves them unset)."""
    parser = Parser(pattern, flags)
    root = parser.compile()
    inside: set[int] = set()
    refs: set[int] = set()

    def walk(node: Node, look: bool) -> None:
        if isinstance(node, Group):
            if node.kind == "capture" and look:
                inside.add(node.index)
            walk(node.body, look or node.zero_width)
        elif isinstance(node, BackRef):
            refs.add(node.group)
        elif isinstance(node, Seq | Alt):
            for child in node.items if isinstance(node, Seq) else node.branches:
                walk(child, look)
        elif isinstance(node, Quant):
            walk(node.atom, look)

    walk(root, False)
    return inside, bool(inside & refs)


def _masked(groups: list[str | None] | None, leaky: set[int]) -> list[str | None] | None:
    return None if groups is None else [None if i in leaky else g for i, g in enumerate(groups)]


def differences(case: Case, java: dict[str, Any], jdk: int, refusals: tuple[str, ...] = ()) -> list[str]:
    """What differs between the JVM's answer and ours, one line each (empty when they agree)."""
    mine = ours(case)
    pattern = case["pattern"]
    if not java["compiles"]:
        if mine["compiles"]:
            return [f"{pattern!r}: Java refuses it ({java['error']}), we compile {translate_java_regex(pattern)!r}"]
        return []
    if not mine["compiles"] and mine["error"].startswith("Bad intersection syntax") and jdk < 25:
        return []  # JDK 17 compiles `[a-cx&&]` and throws when it matches a character; JDK 25 refuses it, as we do
    if not mine["compiles"]:
        expected = KNOWN_REFUSALS.get(pattern)
        error = mine["error"]
        named = "Unsupported Java regex construct" in error
        if named and ((expected is not None and expected in error) or any(r in error for r in refusals)):
            return []
        return [f"{pattern!r}: Java compiles it, we refuse: {error}"]
    if mine["groups"] != java["groups"]:
        return [f"{pattern!r}: {java['groups']} groups in Java, {mine['groups']} here"]
    leaky, referenced = _leaky_groups(pattern, case.get("flags", 0))
    if referenced:
        return []  # a back reference to a group Java may have left set by an earlier failed attempt
    out = []
    for text, theirs, ans in zip(case["inputs"], java["results"], mine["results"], strict=True):
        if "failure" in theirs or _jdk_dependent(pattern, text, jdk):
            continue  # the JVM threw while matching (JDK 17 on `[a&&]`), or the JDK's own answer changed since
        where = f"{pattern!r} (flags {case.get('flags', 0)}) on {text!r}"
        for key in ("matches", "mgroups", "find", "fgroups", "start", "end"):
            theirs_v, ans_v = theirs[key], ans[key]
            if key.endswith("groups") and leaky:
                theirs_v, ans_v = _masked(theirs_v, leaky), _masked(ans_v, leaky)
            if theirs_v != ans_v:
                out.append(f"{where}: {key} is {theirs_v!r} in Java, {ans_v!r} here")
        if leaky:
            continue  # replacements may name those groups
        for rep, t, a in zip(case["replacements"], theirs["replaced"], ans["replaced"], strict=True):
            if ("error" in t) != ("error" in a):
                if "error" in a and not theirs["find"]:
                    continue  # Java checks a replacement only when it is used; we check it up front
                out.append(f"{where}, replacement {rep!r}: {t} in Java, {a} here")
            elif "error" not in t and t != a:
                out.append(f"{where}, replacement {rep!r}: {t} in Java, {a} here")
    return out


def _assert_agree(cases: list[Case], run_regex: RunRegex, jdk: int, refusals: tuple[str, ...] = ()) -> None:
    answers = run_regex(cases)
    bad = [d for case, java in zip(cases, answers, strict=True) for d in differences(case, java, jdk, refusals)]
    assert not bad, f"{len(bad)} differences, the first ones:\n" + "\n".join(bad[:40])


def test_table_matches_java(run_regex: RunRegex, jdk: int) -> None:
    cases = table()
    cases += [{"pattern": p, "flags": 0, "inputs": ["ab", "b", "aab"], "replacements": []} for p in KNOWN_REFUSALS]
    _assert_agree(cases, run_regex, jdk)


def test_known_refusals_are_valid_java_refused_by_name(run_regex: RunRegex) -> None:
    answers = run_regex([{"pattern": p, "inputs": []} for p in KNOWN_REFUSALS])
    for (pattern, what), java in zip(KNOWN_REFUSALS.items(), answers, strict=True):
        assert java["compiles"], pattern
        with pytest.raises(JavaRegexError, match="Unsupported Java regex construct: .*" + re.escape(what)):
            java_regex(pattern)


# -- generated patterns ------------------------------------------------------------------------------------------------
_INPUT_ALPHABET = "abcAB01_ .-\n\ré\u0301ßK&\u017f\u212a\xa0\u2028É"
_LITERALS = [
    "a", "b", "c", "A", "B", "0", "1", "_", " ", "-", "é", "ß", "K", "&", "\\.", "\\-", "\\n", "\\r", "\\x41",
    "\\u00e9", "\\0142", "\\Qa.\\E", "\\Q\\E", "\\t", "\\&", "\\ ", "#", "\\#", "]", "}", "\u017f", "\\u212a",
    "s", "k", "É", "\\x{e9}", "\\cA", "\\e",
]  # fmt: skip
_SINGLES = [
    ".", "\\d", "\\D", "\\w", "\\W", "\\s", "\\S", "\\h", "\\v", "\\p{Lu}", "\\p{L}", "\\P{L}", "\\p{Alpha}",
    "\\p{Lower}", "\\p{javaLowerCase}", "\\p{IsAlphabetic}", "\\p{Punct}", "\\p{IsUppercase}", "\\pN", "\\p{ASCII}",
]  # fmt: skip
_CLASS_ITEMS = [
    "a", "b", "c", "A", "a-c", "A-C", "0-9", "é", "ß", "_", "-", " ", "\\d", "\\w", "\\s", "\\p{Lu}", "\\p{L}",
    "\\P{Lower}", "\\n", "\\]", "\\[", "&", "^", "\\Q-]\\E", "\\x61-\\x63",
]  # fmt: skip
_ANCHORS = ["^", "$", "\\b", "\\B", "\\A", "\\z", "\\Z", "\\R"]
_FLAGS = ["(?i)", "(?-i)", "(?m)", "(?s)", "(?x)", "(?U)", "(?d)", "(?u)", "(?iu)", "(?-U)"]
_OPENERS = ["(", "(?:", "(?>", "(?=", "(?!", "(?<n>", "(?i:", "(?-i:", "(?s:", "(?x:", "(?U:", "(?iu:", "(?m:"]
_QUANTIFIERS = ["*", "+", "?", "{2}", "{0,2}", "{1,}", "{0}", "*?", "+?", "??", "*+", "++", "?+", "{1,2}?", "{2}+"]


@st.composite
def _classes(draw: st.DrawFn) -> str:
    def items() -> str:
        return "".join(draw(st.lists(st.sampled_from(_CLASS_ITEMS), min_size=1, max_size=3)))

    body = items()
    for _ in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(["nest", "nest_neg", "and", "and_class", "and_neg"]))
        if kind == "nest":
            body += "[" + items() + "]"
        elif kind == "nest_neg":
            body += "[^" + items() + "]"
        elif kind == "and":
            body += "&&" + items()
        elif kind == "and_class":
            body += "&&[" + items() + "]"
        else:
            body += "&&[^" + items() + "]"
    return "[" + ("^" if draw(st.booleans()) else "") + body + "]"


_FIXED = st.one_of(st.sampled_from(_LITERALS[:14] + _SINGLES[:6]), _classes())
_LOOK_BEHIND = st.tuples(
    st.sampled_from(["(?<=", "(?<!"]),
    st.lists(st.lists(_FIXED, min_size=1, max_size=3).map("".join), min_size=1, max_size=3).map("|".join),
).map(lambda t: t[0] + t[1] + ")")
_ATOMS = st.one_of(
    st.sampled_from(_LITERALS),
    st.sampled_from(_SINGLES),
    _classes(),
    st.sampled_from(_ANCHORS),
    st.sampled_from(["\\1", "\\2", "\\k<n>"]),
    _LOOK_BEHIND,
)


def _extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(inner, st.sampled_from(_QUANTIFIERS)).map("".join),
        st.lists(inner, min_size=2, max_size=4).map("".join),
        st.tuples(st.sampled_from(_OPENERS), st.lists(inner, min_size=1, max_size=3).map("|".join)).map(
            lambda t: t[0] + t[1] + ")"
        ),
        st.tuples(st.sampled_from(_FLAGS), inner).map("".join),
    )


_PATTERNS = st.recursive(_ATOMS, _extend, max_leaves=8)


@st.composite
def _cases(draw: st.DrawFn) -> Case:
    return {
        "pattern": draw(_PATTERNS),
        "flags": draw(st.sampled_from([0, 0, 2])),
        "inputs": draw(st.lists(st.text(_INPUT_ALPHABET, max_size=6), min_size=3, max_size=5)),
        "replacements": draw(st.lists(st.sampled_from(["$0", "<$1>", "${n}", "x", "\\$$2"]), max_size=2)),
    }


def _generate(count: int) -> list[Case]:
    """`count` generated cases for one JVM run (hypothesis as the generator: one JVM per example would be slow)."""
    cases: list[Case] = []

    @given(_cases())
    @settings(max_examples=count, deadline=None, database=None, phases=(Phase.generate,), suppress_health_check=_SLOW)
    def collect(case: Case) -> None:
        cases.append(case)

    collect()
    return cases


_SLOW = list(HealthCheck)


def test_generated_patterns_match_java(run_regex: RunRegex, jdk: int) -> None:
    _assert_agree(_generate(2000), run_regex, jdk, refusals=REFUSED_CONSTRUCTS)
