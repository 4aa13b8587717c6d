"""Column mappers: Debezium's `column.*` value and schema shaping rules (io.debezium.relational.mapping).

Properties read from the connector config:

* `column.truncate.to.<L>.chars` - values longer than L are cut to L. As in Debezium's `TruncateColumn`, strings
  and byte values are cut, and the field schema gets `truncateLength=<L>`, but only when truncation is possible
  (the column length is unknown or greater than L); otherwise the column is left alone.
* `column.mask.with.<L>.chars` - character values become L `*` characters (L=0: the empty string).
* `column.mask.hash.<ALG>.with.salt.<SALT>` (v1) and `column.mask.hash.v2.<ALG>.with.salt.<SALT>` (v2) - character
  values become the lower-case hex digest of `salt bytes + value bytes`, cut to the column length when the column
  has a positive length. v1 hashes the Java serialisation of the `java.lang.String`, v2 its UTF-8 bytes.
  Masking (fixed or hashed) adds the schema parameter `masked=true`.
* `column.propagate.source.type` (regexes over `schema.table.column`) and `datatype.propagate.source.type`
  (regexes over `schema.table.<type name>`, Debezium 2.x/3.x's fully-qualified form) add
  `__debezium.source.column.type` (upper-case type name), `.length` and `.scale` (when set), `.comment` (when
  not empty) and `.name` (the original column name).

Every pattern list is a comma-separated list of anchored, case-insensitive Java regexes (see filters.py).
As in Debezium's `ColumnMappers.mapperFor`, **the first rule that matches a column wins** (one mapper per
column); rules are tried in this order: truncate, mask, column propagation, datatype propagation, hash v1,
hash v2 - and properties of one kind in the iteration order of a Java HashMap of the config (Debezium reads
them from its `Configuration` map).

Decisions where Debezium's behaviour is a Java detail:

* Lengths count **UTF-16 code units** (Java's `String.length()`): a non-BMP character counts 2. Where Java's
  `substring` would split a surrogate pair, the whole character is dropped instead (Java would emit a lone
  surrogate, which no UTF-8 encoder writes faithfully).
* "Character column": Debezium masks/hashes only columns whose JDBC type is CHAR/VARCHAR/LONGVARCHAR/CLOB/NCHAR/
  NVARCHAR/LONGNVARCHAR/NCLOB/DATALINK. The relational model has no JDBC type, so a connector passes
  `is_character_column`; without it, a value is masked/hashed when it is a `str` at run time (i.e. the field
  is a Connect STRING), which also masks e.g. json/uuid columns that Debezium would leave alone.
* Debezium's fixed mask also turns a null of a character column into the mask; `value` does the same when it is
  called with None for a column known to be character (`is_character_column` given), and keeps None otherwise.
* Salts and v2 values are encoded as UTF-8 (`String.getBytes()` with Java 18+'s default charset).
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import struct
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from connect_worker.api.errors import ConfigError
from connect_worker.api.java_regex import JavaRegexError
from connect_worker.api.javacompat import java_hashmap_order
from connect_worker.api.schema import Schema
from connectors.relational.filters import RegexList, is_blank
from connectors.relational.table import Column, TableId

__all__ = [
    "COLUMN_NAME_PARAMETER",
    "COLUMN_TYPE_PARAMETER",
    "ColumnMapper",
    "ColumnMappers",
    "ColumnRule",
    "column_rules",
    "java_serialized_string",
    "java_utf16_length",
    "parse_column_rules",
    "parse_rule",
    "truncate_utf16",
]

MASKED_PARAMETER: Final = "masked"
TRUNCATE_LENGTH_PARAMETER: Final = "truncateLength"
COLUMN_TYPE_PARAMETER: Final = "__debezium.source.column.type"
COLUMN_LENGTH_PARAMETER: Final = "__debezium.source.column.length"
COLUMN_SCALE_PARAMETER: Final = "__debezium.source.column.scale"
COLUMN_COMMENT_PARAMETER: Final = "__debezium.source.column.comment"
COLUMN_NAME_PARAMETER: Final = "__debezium.source.column.name"

_SIZED_KEY: Final = re.compile(r"column\.(?P<what>truncate\.to|mask\.with)\.(?P<n>[^.]+)\.chars")
_JAVA_DOT: Final = "[^\n\r\x85\u2028\u2029]"
_HASH_KEY: Final = re.compile(rf"column\.mask\.hash\.(?P<v2>v2\.)?(?P<alg>[^.]+)\.with\.salt\.(?P<salt>{_JAVA_DOT}+)")
COLUMN_PROPAGATE: Final = "column.propagate.source.type"
DATATYPE_PROPAGATE: Final = "datatype.propagate.source.type"
_INT_MAX: Final = 2**31 - 1

# Java MessageDigest standard names (case-insensitive, with the SUN provider's aliases) → hashlib names
_DIGESTS: Final[dict[str, str]] = {
    "MD5": "md5",
    "SHA-1": "sha1",
    "SHA": "sha1",
    "SHA1": "sha1",
    "SHA-224": "sha224",
    "SHA224": "sha224",
    "SHA-256": "sha256",
    "SHA256": "sha256",
    "SHA-384": "sha384",
    "SHA384": "sha384",
    "SHA-512": "sha512",
    "SHA512": "sha512",
    "SHA-512/224": "sha512_224",
    "SHA512/224": "sha512_224",
    "SHA-512/256": "sha512_256",
    "SHA512/256": "sha512_256",
    "SHA3-224": "sha3_224",
    "SHA3-256": "sha3_256",
    "SHA3-384": "sha3_384",
    "SHA3-512": "sha3_512",
}


# -- Java string details ----------------------------------------------------------------------------------
def java_utf16_length(s: str) -> int:
    """`String.length()`: UTF-16 code units."""
    if s.isascii():
        return len(s)
    return len(s) + sum(1 for c in s if ord(c) > 0xFFFF)


def truncate_utf16(s: str, max_units: int) -> str:
    """`s` cut to at most `max_units` UTF-16 code units, never splitting a surrogate pair."""
    if len(s) <= max_units // 2 or (len(s) <= max_units and s.isascii()):
        return s
    units = 0
    for i, c in enumerate(s):
        units += 2 if ord(c) > 0xFFFF else 1
        if units > max_units:
            return s[:i]
    return s


def _modified_utf8(s: str) -> bytes:
    if s.isascii() and "\x00" not in s:
        return s.encode("ascii")
    out = bytearray()
    raw = s.encode("utf-16-be", "surrogatepass")
    for i in range(0, len(raw), 2):
        u = (raw[i] << 8) | raw[i + 1]
        if 0 < u < 0x80:
            out.append(u)
        elif u < 0x800:
            out += bytes((0xC0 | (u >> 6), 0x80 | (u & 0x3F)))
        else:
            out += bytes((0xE0 | (u >> 12), 0x80 | ((u >> 6) & 0x3F), 0x80 | (u & 0x3F)))
    return bytes(out)


_STREAM_HEADER: Final = b"\xac\xed\x00\x05"


def java_serialized_string(s: str) -> bytes:
    """The bytes `new ObjectOutputStream(bos).writeObject(s)` produces for a `java.lang.String`: stream header
    `AC ED 00 05`, then TC_STRING `74` + u16 length + modified UTF-8, or TC_LONGSTRING `7C` + u64 length for
    more than 65535 bytes."""
    body = _modified_utf8(s)
    if len(body) <= 0xFFFF:
        return _STREAM_HEADER + b"\x74" + struct.pack(">H", len(body)) + body
    return _STREAM_HEADER + b"\x7c" + struct.pack(">Q", len(body)) + body


# -- mappers ---------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True, slots=True)
class ColumnMapper:
    """The shaping of one column: extra field-schema parameters and an optional value function.

    `value` takes the converted Connect value (a `str` for character columns) and returns the mapped value;
    it passes through values it does not apply to. None when the mapper only changes the schema.
    """

    kind: str
    parameters: tuple[tuple[str, str], ...] = ()
    value: Callable[[Any], Any] | None = None

    def schema(self, field_schema: Schema) -> Schema:
        """The field schema with this mapper's parameters added after the existing ones."""
        if not self.parameters:
            return field_schema
        params = dict(field_schema.parameters or {})
        params.update(self.parameters)
        return field_schema.with_(parameters=params)


def _truncator(max_units: int) -> Callable[[Any], Any]:
    def truncate(v: Any) -> Any:
        if v.__class__ is str:
            return truncate_utf16(v, max_units)
        if isinstance(v, (bytes, bytearray, memoryview)) and len(v) > max_units:
            return bytes(v[:max_units])
        return v

    return truncate


def _masker(mask: str, *, mask_null: bool, character_known: bool) -> Callable[[Any], Any]:
    if character_known:

        def mask_any(v: Any) -> Any:
            return mask if (v is not None or mask_null) else v

        return mask_any

    def mask_str(v: Any) -> Any:
        return mask if isinstance(v, str) else v

    return mask_str


def _hasher(algorithm: str, salt: bytes, v2: bool, cut: int | None) -> Callable[[Any], Any]:
    base = hashlib.new(algorithm)
    base.update(salt)

    def hash_value(v: Any) -> Any:
        if not isinstance(v, str):
            return v
        h = base.copy()
        h.update(v.encode("utf-8", "surrogatepass") if v2 else java_serialized_string(v))
        digest = h.hexdigest()
        return digest[:cut] if cut is not None else digest

    return hash_value


@dataclasses.dataclass(frozen=True, slots=True)
class ColumnRule:
    """One column rule of the config, parsed: which columns (or data types) and what to do to them."""

    kind: str  # truncate | mask | propagate | hash
    patterns: RegexList
    by_datatype: bool = False
    length: int = 0
    algorithm: str = ""
    salt: bytes = b""
    v2: bool = False


class ColumnMappers:
    """All column rules of a connector. `mapper_for(table_id, column)` is computed once per column and cached."""

    def __init__(
        self, rules: Sequence[ColumnRule], *, is_character_column: Callable[[Column], bool] | None = None
    ) -> None:
        self._rules = tuple(rules)
        self._is_character = is_character_column
        self._cache: dict[tuple[TableId, Column], ColumnMapper | None] = {}

    @property
    def is_empty(self) -> bool:
        return not self._rules

    @classmethod
    def from_config(
        cls,
        props: Mapping[str, str],
        *,
        is_character_column: Callable[[Column], bool] | None = None,
    ) -> ColumnMappers:
        """Build the rules from a properties map (tests and tools; a connector's typed config holds its rules)."""
        return cls(column_rules(props), is_character_column=is_character_column)

    @staticmethod
    def problems(props: Mapping[str, str]) -> dict[str, list[str]]:
        """Every problem with the column mapper properties, by key (for a connector's validate())."""
        return parse_column_rules(props)[1]

    def mapper_for(self, table_id: TableId, column: Column) -> ColumnMapper | None:
        key = (table_id, column)
        try:
            return self._cache[key]
        except KeyError:
            pass
        mapper = self._build(table_id, column)
        self._cache[key] = mapper
        return mapper

    __call__ = mapper_for

    def _build(self, table_id: TableId, column: Column) -> ColumnMapper | None:
        by_name = f"{table_id}.{column.name}"
        by_type = f"{table_id}.{column.reported_type_name or column.type.name}"
        for rule in self._rules:
            if rule.patterns.matches(by_type if rule.by_datatype else by_name):
                return self._create(rule, column)
        return None

    def _character(self, column: Column) -> bool | None:
        return None if self._is_character is None else self._is_character(column)

    def _create(self, rule: ColumnRule, column: Column) -> ColumnMapper | None:
        if rule.kind == "truncate":
            length = column.source_length
            if length is not None and 0 <= length <= rule.length:
                return None
            return ColumnMapper("truncate", ((TRUNCATE_LENGTH_PARAMETER, str(rule.length)),), _truncator(rule.length))
        if rule.kind == "propagate":
            return ColumnMapper("propagate", _propagated_parameters(column))
        masked = ((MASKED_PARAMETER, "true"),)
        character = self._character(column)
        if character is False:
            return ColumnMapper(rule.kind, masked)
        if rule.kind == "mask":
            mask = "*" * rule.length
            return ColumnMapper("mask", masked, _masker(mask, mask_null=True, character_known=character is True))
        length = column.source_length
        cut = length if length is not None and 0 < length < _INT_MAX else None
        return ColumnMapper("hash", masked, _hasher(rule.algorithm, rule.salt, rule.v2, cut))


def _propagated_parameters(column: Column) -> tuple[tuple[str, str], ...]:
    params = [(COLUMN_TYPE_PARAMETER, column.type_name)]
    length, scale = column.source_length, column.source_scale
    if length is not None:
        params.append((COLUMN_LENGTH_PARAMETER, str(length)))
    if scale is not None:
        params.append((COLUMN_SCALE_PARAMETER, str(scale)))
    if column.comment:
        params.append((COLUMN_COMMENT_PARAMETER, column.comment))
    params.append((COLUMN_NAME_PARAMETER, column.name))
    return tuple(params)


def is_rule_key(key: str) -> bool:
    """Whether a config key is a column rule (truncate, mask, hash or propagate)."""
    return key.startswith(("column.truncate.", "column.mask.")) or key in (COLUMN_PROPAGATE, DATATYPE_PROPAGATE)


def parse_rule(key: str, value: str) -> tuple[ColumnRule | None, list[str]]:
    """The rule of one column rule key and the problems with it (for /config/validate, one message each).
    A blank propagate list is no rule and no problem; a blank mask or truncate list is a problem."""
    if key in (COLUMN_PROPAGATE, DATATYPE_PROPAGATE):
        if is_blank(value):
            return None, []
        found, regex_problems = _patterns(value)
        rule = ColumnRule("propagate", found, by_datatype=key == DATATYPE_PROPAGATE) if found else None
        return rule, regex_problems
    sized = _SIZED_KEY.fullmatch(key)
    hashed = _HASH_KEY.fullmatch(key) if sized is None else None
    if sized is None and hashed is None:
        return None, [
            f"'{key}' is not a column masking key: expected column.truncate.to.<n>.chars, column.mask.with.<n>.chars "
            "or column.mask.hash[.v2].<algorithm>.with.salt.<salt>"
        ]
    problems: list[str] = []
    if sized is not None:
        kind = "truncate" if sized.group("what") == "truncate.to" else "mask"
        n = sized.group("n")
        # a mask of 0 characters is the empty string (Debezium's MaskStrings); TruncateColumn refuses 0
        if not n.isdigit() or (int(n) == 0 and kind == "truncate"):
            problems.append(f"{n} is not a positive number of characters in '{key}'")
        elif int(n) > _INT_MAX:
            problems.append(f"The length in {key} is not a valid Java int")
    else:
        assert hashed is not None
        algorithm = _DIGESTS.get(hashed.group("alg").upper())
        if algorithm is None or algorithm not in hashlib.algorithms_available:
            problems.append(
                f"Unknown hash algorithm '{hashed.group('alg')}' in '{key}' (supported: "
                f"{', '.join(sorted(set(_DIGESTS) - {'SHA', 'SHA1'}))})"
            )
    patterns, pattern_problems = _patterns(value)
    problems += pattern_problems
    if patterns is None and not pattern_problems:
        problems.append("A comma-separated list of valid regular expressions is expected")
    if problems or patterns is None:
        return None, problems
    if sized is not None:
        return ColumnRule(kind, patterns, length=int(sized.group("n"))), []
    assert hashed is not None
    algorithm = _DIGESTS[hashed.group("alg").upper()]
    salt = hashed.group("salt").encode("utf-8")
    return ColumnRule("hash", patterns, algorithm=algorithm, salt=salt, v2=hashed.group("v2") is not None), []


def _patterns(value: str) -> tuple[RegexList | None, list[str]]:
    if is_blank(value):
        return None, []
    try:
        return RegexList(value), []
    except JavaRegexError as e:
        return None, [f"A comma-separated list of valid regular expressions is expected, but {e}"]


def parse_column_rules(props: Mapping[str, object]) -> tuple[tuple[ColumnRule, ...], dict[str, list[str]]]:
    """Every column rule of a config in Debezium's order, and the problems by key.

    As in Debezium's ``ColumnMappers``, the first rule that matches a column wins and rules are tried by kind:
    truncate, mask, column propagation, datatype propagation, hash v1, hash v2; keys of one kind in the order of
    a java.util.HashMap holding the whole config (Debezium reads them from its Configuration map)."""
    problems: dict[str, list[str]] = {}
    order = {"truncate": 0, "mask": 1, "propagate": 2, "hash": 4}
    ranked: list[tuple[int, ColumnRule]] = []
    for key in java_hashmap_order(dict(props)):
        value = props[key]
        if value is None or not is_rule_key(key):
            continue
        rule, key_problems = parse_rule(key, str(value))
        if key_problems:
            problems[key] = key_problems
        elif rule is not None:
            rank = order[rule.kind] + (1 if rule.by_datatype or rule.v2 else 0)
            ranked.append((rank, rule))
    ranked.sort(key=lambda r: r[0])  # stable: HashMap order within a kind
    return tuple(rule for _, rule in ranked), problems


def column_rules(props: Mapping[str, object]) -> tuple[ColumnRule, ...]:
    """The column rules of a config; ConfigError naming the first bad key."""
    rules, problems = parse_column_rules(props)
    if problems:
        key, messages = next(iter(problems.items()))
        raise ConfigError(f"Invalid value {props[key]} for configuration {key}: {messages[0]}", name=key)
    return rules
