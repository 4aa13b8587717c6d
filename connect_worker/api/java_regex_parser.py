"""java.util.regex.Pattern's parser, ported method by method (JDK 19+ behaviour), building the node tree of
connect_worker.api.java_regex_nodes. Being a port, it accepts and refuses exactly what Java does and reads every
construct the same way: `\\Q...\\E` is removed first, comments mode skips blanks and `#` comments wherever Java's
peek/read/next do, a quantifier binds to the last character of a literal run, class intersections keep Java's
precedence, flags are scoped to the enclosing group and carry across `|`.

What is valid in Java but cannot be translated is refused with a JavaRegexError saying so.
"""

from __future__ import annotations

from connect_worker.api.java_regex_atoms import AtomParser
from connect_worker.api.java_regex_nodes import (
    MAX_REPS,
    Alt,
    Assertion,
    Char,
    Group,
    Info,
    Node,
    Quant,
    Seq,
    Slice,
    dollar,
    flatten,
    study_chain,
)
from connect_worker.api.java_regex_scanner import (
    CANON_EQ,
    DOTALL,
    FLAG_LETTERS,
    MULTILINE,
    UNIX_LINES,
    is_digit,
)
from connect_worker.api.java_regex_sets import EVERYTHING, LINE_TERMINATORS, Ranges, complement, of


class Parser(AtomParser):
    """Pattern.compile's parser: `compile()` returns the tree of the whole pattern."""

    def compile(self) -> Node:
        root = self.expr()
        if self.pattern_length != self.cursor:
            if self.peek() == 0x29:
                raise self.error("Unmatched closing ')'")
            if self.cursor == self.pattern_length + 1 and self.temp[self.pattern_length - 1] == 0x5C:
                raise self.error("Unescaped trailing backslash")
            raise self.error("Unexpected internal error")
        return root

    def expr(self) -> Node:
        branches = [self.sequence()]
        while self.peek() == 0x7C:
            self.next()
            branches.append(self.sequence())
        return branches[0] if len(branches) == 1 else Alt(branches)

    def sequence(self) -> Seq:
        items: list[Node] = []
        while True:
            ch = self.peek()
            node: Node
            if ch == 0x28:  # (
                group = self.group0()
                if group is not None:
                    items.append(group)
                continue
            if ch == 0x5B:  # [
                self.no_canon_eq("a character class")
                node = Char(self.clazz(True))
            elif ch == 0x5C:  # backslash
                ch = self.next_escaped()
                if ch in (0x70, 0x50):  # p P
                    node = Char(self.property_after_p(ch == 0x50))
                else:
                    self.unread()
                    node = self.atom()
            elif ch == 0x5E:  # ^
                self.next()
                node = Assertion(self.caret())
            elif ch == 0x24:  # $
                self.next()
                node = Assertion(dollar(self.has(MULTILINE), self.has(UNIX_LINES)))
            elif ch == 0x2E:  # .
                self.next()
                node = Char(self.dot())
            elif ch in (0x7C, 0x29):  # | )
                break
            elif ch in (0x3F, 0x2A, 0x2B):  # ? * +
                self.next()
                raise self.error(f"Dangling meta character '{chr(ch)}'")
            elif ch == 0 and self.cursor >= self.pattern_length:
                break
            else:
                node = self.atom()
            items.append(self.closure(node))
        return Seq(items)

    def property_after_p(self, complement_it: bool) -> Ranges:
        one_letter = True
        if self.next() != 0x7B:
            self.unread()
        else:
            one_letter = False
        self.no_canon_eq("a Unicode property class")
        return self.family(one_letter, complement_it)

    def no_canon_eq(self, what: str) -> None:
        if self.has(CANON_EQ):
            raise self.refuse(f"{what} under canonical equivalence (?c)")

    def atom(self) -> Node:
        buf: list[int] = []
        prev = -1
        ch = self.peek()
        while True:
            if ch in (0x2A, 0x2B, 0x3F, 0x7B):  # * + ? {
                if len(buf) > 1:
                    self.cursor = prev
                    buf.pop()
                break
            if ch in (0x24, 0x2E, 0x5E, 0x28, 0x5B, 0x7C, 0x29):  # $ . ^ ( [ | )
                break
            if ch == 0x5C:
                ch = self.next_escaped()
                if ch in (0x70, 0x50):
                    if buf:
                        self.unread()
                        break
                    return Char(self.property_after_p(ch == 0x50))
                self.unread()
                prev = self.cursor
                value = self.escape(False, not buf, False)
                if value >= 0:
                    buf.append(value)
                    ch = self.peek()
                    continue
                if not buf:
                    assert self.root is not None
                    return self.root
                self.cursor = prev
                break
            if ch == 0 and self.cursor >= self.pattern_length:
                break
            prev = self.cursor
            buf.append(ch)
            ch = self.next()
        if len(buf) == 1:
            return Char(self.single(buf[0]))
        return Slice([self.slice_char(c) for c in buf])

    def group0(self) -> Node | None:
        save = self.flags0
        ch = self.next()
        node: Group
        if ch == 0x3F:  # ?
            ch = self.skip()
            kind = {0x3A: "group", 0x3D: "ahead", 0x21: "not_ahead", 0x3E: "atomic"}.get(ch)
            if kind is not None:
                node = Group(kind, self.expr())
            elif ch == 0x3C:  # <
                ch = self.read()
                if ch not in (0x3D, 0x21):
                    name = self.groupname(ch)
                    if name in self.named:
                        raise self.error(f"Named capturing group <{name}> is already defined")
                    index = self.new_group()
                    self.named[name] = index
                    node = Group("capture", self.expr(), index, name)
                else:
                    body = self.expr()
                    info = Info()
                    study_chain(flatten(body), info)
                    if not info.max_valid:
                        raise self.error("Look-behind group does not have an obvious maximum length")
                    node = Group("behind" if ch == 0x3D else "not_behind", body)
            elif ch in (0x24, 0x40):
                raise self.error("Unknown group type")
            else:
                self.unread()
                self.add_flags()
                ch = self.read()
                if ch == 0x29:
                    return None  # flags only: they last to the end of the enclosing group
                if ch != 0x3A:
                    raise self.error("Unknown inline modifier")
                node = Group("group", self.expr())
        else:
            index = self.new_group()
            node = Group("capture", self.expr(), index)
        if self.read() != 0x29:
            raise self.error("Unclosed group")
        self.flags0 = save
        return self.group_closure(node)

    def new_group(self) -> int:
        self.group_count += 1
        return self.group_count - 1

    def group_closure(self, group: Group) -> Node:
        node = self.closure(group)
        if not isinstance(node, Quant) or group.zero_width or group.kind == "atomic":
            return node
        if node.java == "ques":
            node.java = "ques" if node.qtype == "+" else "branch"
        elif node.qtype != "+":
            info = Info()
            study_chain(flatten(group.body), info)
            node.java = "curly" if info.deterministic else "loop"
            if info.deterministic and group.kind == "capture" and node.qtype == "" and info.min_length == 0:
                self.empty_group_curly(node, group, info)
            if not info.deterministic and node.cmin >= 2 and info.min_length == 0:
                # Java's Loop ends at the first iteration that matches the empty string, even below the minimum
                raise self.refuse("a group repeated at least twice that can match the empty string")
        return node

    def empty_group_curly(self, node: Quant, group: Group, info: Info) -> None:
        """Java's GroupCurly does not record an iteration beyond the minimum that matched the empty string (Python
        does): a group that always matches empty is repeated exactly the minimum number of times."""
        if not info.max_valid or any(isinstance(n, Group) and n.kind == "capture" for n in _walk(group.body)):
            raise self.refuse(
                "a repeated capturing group that can match the empty string and holds a back reference "
                "or other capturing groups"
            )
        node.cmax = node.cmin

    def add_flags(self) -> None:
        ch = self.peek()
        while chr(ch) in FLAG_LETTERS:
            self.flags0 |= FLAG_LETTERS[chr(ch)]
            ch = self.next()
        if ch == 0x2D:  # -
            ch = self.next()
            while chr(ch) in FLAG_LETTERS:
                self.flags0 &= ~FLAG_LETTERS[chr(ch)]
                ch = self.next()

    def qtype(self) -> str:
        ch = self.next()
        if ch in (0x3F, 0x2B):
            self.next()
            return chr(ch)
        return ""

    def curly(self, prev: Node, cmin: int) -> Quant:
        qtype = self.qtype()
        java = "greedy_char" if qtype == "" and isinstance(prev, Char) else "curly"
        return Quant(prev, cmin, MAX_REPS, qtype, java)

    def closure(self, prev: Node) -> Node:
        ch = self.peek()
        if ch == 0x3F:
            return Quant(prev, 0, 1, self.qtype(), "ques")
        if ch == 0x2A:
            return self.curly(prev, 0)
        if ch == 0x2B:
            return self.curly(prev, 1)
        if ch != 0x7B:
            return prev
        ch = self.skip()
        if not is_digit(ch):
            raise self.error("Illegal repetition")
        cmin = cmax = 0
        while True:
            cmin = cmin * 10 + (ch - 0x30)
            if cmin > MAX_REPS:
                raise self.error("Illegal repetition range")
            ch = self.read()
            if not is_digit(ch):
                break
        if ch == 0x2C:  # ,
            ch = self.read()
            if ch == 0x7D:
                self.unread()
                return self.curly(prev, cmin)
            while is_digit(ch):
                cmax = cmax * 10 + (ch - 0x30)
                if cmax > MAX_REPS:
                    raise self.error("Illegal repetition range")
                ch = self.read()
        else:
            cmax = cmin
        if ch != 0x7D:
            raise self.error("Unclosed counted closure")
        if cmax < cmin:
            raise self.error("Illegal repetition range")
        self.unread()
        qtype = self.qtype()
        return Quant(prev, cmin, cmax, qtype, "ques" if (cmin, cmax) == (0, 1) else "curly")

    def caret(self) -> str:
        if not self.has(MULTILINE):
            return "\\A"
        if self.has(UNIX_LINES):
            return "(?:\\A|(?<=\\n))(?!\\Z)"
        return "(?:\\A|(?<=[\\n\\x85\\u2028\\u2029])|(?<=\\r)(?!\\n))(?!\\Z)"

    def dot(self) -> Ranges:
        if self.has(DOTALL):
            return EVERYTHING
        return complement(of(0x0A) if self.has(UNIX_LINES) else LINE_TERMINATORS)


def _walk(node: Node) -> list[Node]:
    children: list[Node] = []
    if isinstance(node, Seq):
        children = node.items
    elif isinstance(node, Alt):
        children = list(node.branches)
    elif isinstance(node, Group):
        children = [node.body]
    elif isinstance(node, Quant):
        children = [node.atom]
    return [node, *(n for child in children for n in _walk(child))]
