"""The tree the Java regex parser (connect_worker.api.java_regex_parser) builds: each node knows the Python source it
becomes and how java.util.regex measures it (`TreeInfo`, which decides whether a look-behind is legal in Java).

Python source is emitted with no global flags: case-insensitivity, `.`, anchors and word boundaries are spelled out
explicitly, so what a node matches never depends on Python's flag semantics.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Final

from connect_worker.api.java_regex_sets import Ranges, categories, predefined, py_class

MAX_REPS: Final = 0x7FFFFFFF
_INT_MIN: Final = -(1 << 31)


def _int(v: int) -> int:
    """Java int arithmetic (wraps at 32 bits), as TreeInfo computes."""
    return (v - _INT_MIN) % (1 << 32) + _INT_MIN


class Info:
    """java.util.regex.Pattern.TreeInfo."""

    __slots__ = ("deterministic", "max_length", "max_valid", "min_length")

    def __init__(self) -> None:
        self.min_length = self.max_length = 0
        self.max_valid = self.deterministic = True

    def reset(self) -> None:
        self.min_length = self.max_length = 0
        self.max_valid = self.deterministic = True


class Emit:
    """Emission state: which capturing groups are closed (Python refuses other references)."""

    __slots__ = ("closed", "group_count", "loops", "refusal")

    def __init__(self, group_count: int) -> None:
        self.group_count = group_count
        self.closed: set[int] = set()
        self.loops = 0
        self.refusal: str | None = None


class Node:
    zero_width = False

    def py(self, e: Emit) -> str:
        raise NotImplementedError

    def py_atom(self, e: Emit) -> str:
        """Source that a quantifier may follow."""
        return "(?:" + self.py(e) + ")"

    def study(self, info: Info) -> None:
        """Add this node to `info` (the nodes that continue a Java chain are studied by study_chain)."""


@dataclasses.dataclass(eq=False)
class Char(Node):
    """One code point of a set (Java's CharProperty)."""

    ranges: Ranges

    def py(self, e: Emit) -> str:
        return py_class(self.ranges)

    def py_atom(self, e: Emit) -> str:
        return py_class(self.ranges)

    def study(self, info: Info) -> None:
        info.min_length = _int(info.min_length + 1)
        info.max_length = _int(info.max_length + 1)


@dataclasses.dataclass(eq=False)
class Slice(Node):
    """Several literal code points (each possibly a case-insensitive set); empty before a dangling `{`."""

    chars: Sequence[Ranges]

    def py(self, e: Emit) -> str:
        return "".join(py_class(r) for r in self.chars)

    def study(self, info: Info) -> None:
        info.min_length = _int(info.min_length + len(self.chars))
        info.max_length = _int(info.max_length + len(self.chars))


@dataclasses.dataclass(eq=False)
class Assertion(Node):
    """A zero-width test (anchors, word boundaries), as Python source."""

    source: str
    zero_width = True

    def py(self, e: Emit) -> str:
        return self.source


class LineEnding(Node):
    """`\\R`."""

    def py(self, e: Emit) -> str:
        return "(?:\\r\\n|[\\n\\x0b\\f\\r\\x85\\u2028\\u2029])"

    def py_atom(self, e: Emit) -> str:
        # Java's Curly matches its atom once per repetition without backtracking into it: `\r\n` stays together
        return "(?>\\r\\n|[\\n\\x0b\\f\\r\\x85\\u2028\\u2029])"

    def study(self, info: Info) -> None:
        info.min_length = _int(info.min_length + 1)
        info.max_length = _int(info.max_length + 2)


@dataclasses.dataclass(eq=False)
class Seq(Node):
    items: list[Node]

    def py(self, e: Emit) -> str:
        return "".join(n.py(e) for n in self.items)


@dataclasses.dataclass(eq=False)
class Alt(Node):
    """`a|b|...` (Java's Branch)."""

    branches: list[Seq]

    def py(self, e: Emit) -> str:
        return "|".join(b.py(e) for b in self.branches)


@dataclasses.dataclass(eq=False)
class BackRef(Node):
    group: int
    case_insensitive: bool
    unicode_case: bool

    def py(self, e: Emit) -> str:
        if self.group in e.closed:
            flags = ("?ui:" if self.unicode_case else "?ai:") if self.case_insensitive else "?:"
            return f"({flags}\\{self.group})"
        if self.group >= e.group_count or not e.loops:
            return "(?!)"  # Java: the group has no value yet, so the reference fails
        e.refusal = f"a reference to group {self.group} before the group closes, inside a repetition"
        return "(?!)"

    def py_atom(self, e: Emit) -> str:
        return self.py(e)

    def study(self, info: Info) -> None:
        info.max_valid = False


_OPEN: Final = {
    "capture": "(",
    "group": "(?:",
    "atomic": "(?>",
    "ahead": "(?=",
    "not_ahead": "(?!",
    "behind": "(?<=",
    "not_behind": "(?<!",
}


@dataclasses.dataclass(eq=False)
class Group(Node):
    """A group: kind is capture, group (non-capturing), atomic, ahead, not_ahead, behind or not_behind."""

    kind: str
    body: Node
    index: int = 0
    name: str | None = None

    @property
    def zero_width(self) -> bool:  # type: ignore[override]
        return self.kind in ("ahead", "not_ahead", "behind", "not_behind")

    def py(self, e: Emit) -> str:
        if self.kind in ("behind", "not_behind"):
            return self._look_behind(e)
        opener = _OPEN[self.kind] if self.name is None else f"(?P<{self.name}>"
        body = self.body.py(e)
        if self.kind == "capture":
            e.closed.add(self.index)
        return opener + body + ")"

    def py_atom(self, e: Emit) -> str:
        return self.py(e)

    def _look_behind(self, e: Emit) -> str:
        # Java tries every start within the body's min..max length; Python needs one width per look-behind, so each
        # top-level alternative becomes a look-behind of its own
        branches = self.body.branches if isinstance(self.body, Alt) else [self.body]
        parts = []
        for branch in branches:
            info = Info()
            study_chain(flatten(branch), info)
            if info.min_length != info.max_length:
                e.refusal = "a look-behind whose alternatives do not each have one fixed length"
            parts.append(_OPEN[self.kind] + branch.py(e) + ")")
        if self.kind == "behind":
            return "(?:" + "|".join(parts) + ")"
        return "(?:" + "".join(parts) + ")"

    def study(self, info: Info) -> None:
        if self.kind == "atomic":
            study_chain(flatten(self.body), info)


@dataclasses.dataclass(eq=False)
class Quant(Node):
    """A quantified atom. `java` names the node Java builds, which decides how it is measured: ques (Ques), branch
    (a group's `?`), greedy_char (CharPropertyGreedy), curly (Curly/GroupCurly) or loop (Loop)."""

    atom: Node
    cmin: int
    cmax: int
    qtype: str  # "" greedy, "?" lazy, "+" possessive
    java: str

    def py(self, e: Emit) -> str:
        if self.cmax == MAX_REPS:
            q = {0: "*", 1: "+"}.get(self.cmin, f"{{{self.cmin},}}")
        elif self.cmin == self.cmax:
            q = f"{{{self.cmin}}}"
        elif self.cmin == 0 and self.cmax == 1:
            q = "?"
        else:
            q = f"{{{self.cmin},{self.cmax}}}"
        repeats = self.cmax > 1
        e.loops += repeats
        atom = self.atom.py_atom(e)
        e.loops -= repeats
        return atom + q + self.qtype

    def study(self, info: Info) -> None:
        if self.java == "ques":
            min_l = info.min_length
            study_chain(flatten(self.atom), info)
            info.min_length = min_l
            info.deterministic = False
        elif self.java == "greedy_char":
            info.min_length = _int(info.min_length + self.cmin)
            if info.max_valid:
                info.max_length = _int(info.max_length + MAX_REPS)
            info.deterministic = False
        elif self.java == "loop":
            info.max_valid = False
            info.deterministic = False
        else:
            self._study_curly(info)

    def _study_curly(self, info: Info) -> None:
        min_l, max_l, max_v, detm = info.min_length, info.max_length, info.max_valid, info.deterministic
        info.reset()
        study_chain(flatten(self.atom), info)
        temp = _int(info.min_length * self.cmin + min_l)
        info.min_length = 0xFFFFFFF if temp < min_l else temp
        if max_v and info.max_valid:
            temp = _int(info.max_length * self.cmax + max_l)
            info.max_length = temp
            if temp < max_l:
                info.max_valid = False
        else:
            info.max_valid = False
        info.deterministic = detm if info.deterministic and self.cmin == self.cmax else False


def flatten(node: Node) -> list[Node]:
    """The Java node chain of a subtree: plain groups pass their body through, as GroupHead/GroupTail do."""
    if isinstance(node, Seq):
        return [n for item in node.items for n in flatten(item)]
    if isinstance(node, Group) and node.kind in ("capture", "group"):
        return flatten(node.body)
    return [node]


def study_chain(chain: list[Node], info: Info) -> None:
    """Node.study along a chain; a Branch measures its alternatives apart and what follows it from scratch."""
    for i, node in enumerate(chain):
        if isinstance(node, Alt):
            min_l, max_l, max_v = info.min_length, info.max_length, info.max_valid
            min_l2, max_l2 = 0x7FFFFFFF, -1
            for branch in node.branches:
                info.reset()
                study_chain(flatten(branch), info)
                min_l2, max_l2 = min(min_l2, info.min_length), max(max_l2, info.max_length)
                max_v = max_v and info.max_valid
            info.reset()
            study_chain(chain[i + 1 :], info)
            info.min_length = _int(info.min_length + _int(min_l + min_l2))
            info.max_length = _int(info.max_length + _int(max_l + max_l2))
            info.max_valid = info.max_valid and max_v
            info.deterministic = False
            return
        if isinstance(node, Quant) and node.java == "branch":  # a group's `?` is a Branch with an empty side
            node = Alt([Seq([node.atom]), Seq([])])
            chain = [*chain[:i], node, *chain[i + 1 :]]
            study_chain(chain[i:], info)
            return
        if isinstance(node, Quant) and node.java == "loop":
            node.study(info)
            return  # Loop.study does not go on
        node.study(info)


# -- anchors -----------------------------------------------------------------------------------------------------------
def dollar(multiline: bool, unix_lines: bool) -> str:
    """Java's Dollar / UnixDollar: before a final line terminator (any, when multiline), never inside `\\r\\n`."""
    if unix_lines:
        return "(?=\\n|\\Z)" if multiline else "(?=\\n?\\Z)"
    if multiline:
        return "(?=[\\r\\x85\\u2028\\u2029]|(?<!\\r)\\n|\\Z)"
    return "(?=(?:\\r\\n|[\\r\\x85\\u2028\\u2029]|(?<!\\r)\\n)?\\Z)"


def boundary(both: bool, unicode_classes: bool) -> str:
    """Java's Bound: a word character is \\w (ASCII unless UNICODE_CHARACTER_CLASS), or a non-spacing mark whose base
    (before any further marks) is a letter or digit; this translation sees one mark on its base, not a run of them.
    Between ASCII characters this is Python's own `\\b` (fast); next to any other it is spelled out."""
    word = py_class(predefined("w", unicode_classes))
    if unicode_classes:  # every mark is a word character already
        return _bound(both, f"(?<={word})", f"(?={word})")
    base, mark = py_class(categories("L", "Nd")), py_class(categories("Mn"))
    left = f"(?:(?<={word})|(?<={base}{mark}))"
    right = f"(?:(?={word})|(?={mark})(?<={base}))"
    native = "(?a:\\b)" if both else "(?a:(?!\\b))"  # Python's \\B never matches in an empty string
    ascii_around = "(?<![^\\x00-\\x7f])(?![^\\x00-\\x7f])"
    return f"(?:{ascii_around}{native}|(?!{ascii_around}){_bound(both, left, right)})"


def _bound(both: bool, left: str, right: str) -> str:
    if both:
        return f"(?:(?={left})(?!{right})|(?!{left})(?={right}))"
    return f"(?:(?={left})(?={right})|(?!{left})(?!{right}))"
