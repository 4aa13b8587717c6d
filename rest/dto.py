"""Request bodies read the way Connect's Jackson reads them.

Connect binds bodies to Java types: configs are `Map<String, String>`, so a scalar that is not a string is
taken as its JSON source text (`2` -> "2", `1.50` -> "1.50", `true` -> "true"), while an object or array
where a string belongs fails the whole request with 500 and Jackson's message. Numbers are therefore kept
as their source text (`JsonNumber`) until it is known what they bind to. An empty body binds to null, and
text after the first JSON value is ignored (Jackson's defaults).

Where Connect fails on a null body or a missing `config` with a NullPointerException (500), these helpers
answer 400 instead (spec §1.8).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from typing import Any, Final, TypeVar

from connect_worker.runtime.herder import ConnectorOffset, TargetState
from rest.errors import RestError

_SOURCE: Final = "[Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled)"
_ENTITIES: Final = "org.apache.kafka.connect.runtime.rest.entities."

JAVA_STRING: Final = "java.lang.String"
CONFIG_MAP: Final = "java.util.LinkedHashMap<java.lang.String,java.lang.String>"
CREATE_REQUEST: Final = _ENTITIES + "CreateConnectorRequest"
INITIAL_STATE: Final = _ENTITIES + "CreateConnectorRequest$InitialState"
OFFSETS: Final = _ENTITIES + "ConnectorOffsets"
OFFSET_LIST: Final = f"java.util.ArrayList<{_ENTITIES}ConnectorOffset>"
OFFSET: Final = _ENTITIES + "ConnectorOffset"
OFFSET_MAP: Final = "java.util.Map<java.lang.String,java.lang.Object>"
_LINKED_HASH_MAP: Final = "java.util.LinkedHashMap"

NO_CONFIG: Final = "Connector configuration was not specified in request."
NO_OFFSETS: Final = "Partitions / offsets need to be provided for an alter offsets request"
NO_PARTITION: Final = "The partition for a source connector offset cannot be null or missing"
NO_LEVEL: Final = "Desired 'level' parameter was not specified in request."

T = TypeVar("T")

# A reference chain as Jackson prints it: (owning Java type, property name) from the root down.
Chain = tuple[tuple[str, str | int], ...]


class JsonNumber(str):
    """A JSON number kept as the exact text it had in the request."""

    __slots__ = ()

    def to_python(self) -> int | float:
        return float(self) if any(c in self for c in ".eE") else int(self)


# -- parsing ---------------------------------------------------------------------------------------------
def _reject_constant(name: str) -> Any:
    # Python's json reads NaN/Infinity; Jackson rejects them.
    raise ValueError(f"Non-standard token '{name}': enable `JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS`")


_DECODER: Final = json.JSONDecoder(
    parse_int=JsonNumber, parse_float=JsonNumber, parse_constant=_reject_constant, strict=True
)

_JACKSON_WORDS: Final = {
    "Expecting value": "expected a valid value (JSON String, Number, Array, Object or token 'null', 'true' or 'false')",
    "Expecting property name enclosed in double quotes": "was expecting double-quote to start field name",
    "Expecting ':' delimiter": "was expecting a colon to separate field name and value",
    "Expecting ',' delimiter": "was expecting comma to separate entries",
}


def parse_json(raw: bytes) -> Any:
    """The body as JSON (numbers as JsonNumber), None for an empty body; RestError 500 when malformed."""
    return _parse(raw)[0]


def bind(raw: bytes, binder: Callable[[Any], T]) -> T:
    """The body parsed and bound by `binder`; a binding error gets Jackson's location in the body text."""
    value, text, end = _parse(raw)
    try:
        return binder(value)
    except BindingError as e:
        raise e.located(text, end) from None


def _parse(raw: bytes) -> tuple[Any, str, int]:
    """(the JSON value, the body's text, where the value ends in it)."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        byte = raw[e.start]
        raise RestError(500, f"Invalid UTF-8 start byte 0x{byte:02x}\n at {_SOURCE}]") from None
    start = _skip_space(text, 0)
    if start == len(text):
        return None, text, start
    try:
        value, end = _DECODER.raw_decode(text, start)
    except json.JSONDecodeError as e:
        raise RestError(500, _jackson_parse_message(e)) from None
    except ValueError as e:
        raise RestError(500, f"{e}\n at {_SOURCE}]") from None
    return value, text, end


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _location(text: str, pos: int) -> str:
    """Jackson's `line: L, column: C` of a position in the body (both from 1). Jersey hands Jackson the body as
    bytes: its column counts UTF-8 bytes from the line's start, not characters (measured against Connect 4.3.1)."""
    line = text.count("\n", 0, pos) + 1
    column = len(text[text.rfind("\n", 0, pos) + 1 : pos].encode("utf-8", "surrogatepass")) + 1
    return f"line: {line}, column: {column}"


def _value_start(text: str, path: tuple[str | int, ...]) -> int:
    """Where the value at `path` (member names and array indexes from the root) starts in the body text; the
    body is known to be valid JSON holding that path. Of repeated member names the last counts (as bound)."""
    pos = _skip_space(text, 0)
    for step in path:
        opening = text[pos]
        pos = _skip_space(text, pos + 1)
        found, index = pos, 0
        while text[pos] not in "}]":
            if opening == "{":
                key, pos = _DECODER.raw_decode(text, pos)
                pos = _skip_space(text, _skip_space(text, pos) + 1)  # past the ':'
                if key == step:
                    found = pos
            elif index == step:
                found = pos
            _, pos = _DECODER.raw_decode(text, pos)
            pos = _skip_space(text, pos)
            if text[pos] == ",":
                pos = _skip_space(text, pos + 1)
            index += 1
        pos = found
    return pos


class BindingError(RestError):
    """Jackson's failure to bind the body to Connect's Java types (Connect answers 500). Jackson places it at
    the start of the value that failed (`at_end`: at the end of the body, where a creator-bound object is
    checked for unknown properties): :meth:`located` adds that location, which needs the body text."""

    def __init__(self, head: str, chain: Chain = (), *, at_end: bool = False) -> None:
        super().__init__(500, head + _chain_text(chain))
        self.head = head
        self.chain = chain
        self.at_end = at_end

    def located(self, text: str, end: int) -> RestError:
        pos = end if self.at_end else _value_start(text, tuple(prop for _, prop in self.chain))
        return RestError(500, f"{self.head}\n at {_SOURCE}; {_location(text, pos)}]{_chain_text(self.chain)}")


#: CreateConnectorRequest's properties, as Jackson lists them when it meets another one.
_CREATE_PROPERTIES: Final = ("config", "name", "initial_state")


def _reject_unknown_fields(body: Mapping[str, Any]) -> None:
    """Jackson's UnrecognizedPropertyException for CreateConnectorRequest (Connect answers it with 500). The
    request is bound through its creator, so Jackson reports it at the end of the object."""
    for name in body:
        if name not in _CREATE_PROPERTIES:
            known = ", ".join(f'"{p}"' for p in _CREATE_PROPERTIES)
            raise BindingError(
                f'Unrecognized field "{name}" (class {CREATE_REQUEST}), not marked as ignorable '
                f"({len(_CREATE_PROPERTIES)} known properties: {known})",
                ((CREATE_REQUEST, name),),
                at_end=True,
            )


def _jackson_parse_message(e: json.JSONDecodeError) -> str:
    where = f"\n at {_SOURCE}; line: {e.lineno}, column: {e.colno}]"
    if e.pos >= len(e.doc):
        return "Unexpected end-of-input within/between Object entries" + where
    char = e.doc[e.pos]
    explanation = _JACKSON_WORDS.get(e.msg, e.msg)
    return f"Unexpected character ('{char}' (code {ord(char)})): {explanation}" + where


# -- binding --------------------------------------------------------------------------------------------
def _shape(value: Any) -> tuple[str, str]:
    """(Jackson's word for the value's shape, its JsonToken)."""
    if isinstance(value, dict):
        return "Object", "START_OBJECT"
    if isinstance(value, list):
        return "Array", "START_ARRAY"
    if isinstance(value, bool):
        return "Boolean", "VALUE_TRUE" if value else "VALUE_FALSE"
    if isinstance(value, JsonNumber):
        if any(c in value for c in ".eE"):
            return "Floating-point", "VALUE_NUMBER_FLOAT"
        return "Integer", "VALUE_NUMBER_INT"
    if value is None:
        return "Null", "VALUE_NULL"
    return "String", "VALUE_STRING"


def _chain_text(chain: Chain) -> str:
    if not chain:
        return ""
    links = (f"{owner}[{prop}]" if isinstance(prop, int) else f'{owner}["{prop}"]' for owner, prop in chain)
    return " (through reference chain: " + "->".join(links) + ")"


def mismatch(java_type: str, value: Any, chain: Chain = ()) -> BindingError:
    """Jackson's MismatchedInputException, as Connect answers it: 500."""
    word, token = _shape(value)
    return BindingError(
        f"Cannot deserialize value of type `{java_type}` from {word} value (token `JsonToken.{token}`)", chain
    )


def string_value(value: Any, chain: Chain = ()) -> str | None:
    """A JSON value bound to java.lang.String: scalars become their text, null stays null."""
    if value is None:
        return None
    if isinstance(value, str):
        return str(value)  # a JsonNumber becomes its source text
    if isinstance(value, bool):
        return "true" if value else "false"
    raise mismatch(JAVA_STRING, value, chain)


def string_map(value: Any, chain: Chain = (), *, java_type: str = CONFIG_MAP) -> dict[str, str | None]:
    """A JSON object bound to Map<String, String>, in request order; null values are kept."""
    if not isinstance(value, dict):
        raise mismatch(java_type, value, chain)
    return {k: string_value(v, (*chain, (_LINKED_HASH_MAP, k))) for k, v in value.items()}


def config_map(body: Any) -> dict[str, str | None] | None:
    """A flat connector config body (PUT …/config, validate). None when the body was empty.

    A key whose value is JSON null is kept with null, as Connect stores and answers it; for the connector it is
    unset."""
    if body is None:
        return None
    return string_map(body)


def config_patch(body: Any) -> dict[str, str | None] | None:
    """A PATCH …/config body: null values are kept, they remove the key."""
    if body is None:
        return None
    return string_map(body)


@dataclasses.dataclass(frozen=True, slots=True)
class CreateConnectorRequest:
    name: str
    config: dict[str, str | None]
    initial_state: TargetState | None


_INITIAL_STATES: Final = {
    "RUNNING": TargetState.STARTED,
    "PAUSED": TargetState.PAUSED,
    "STOPPED": TargetState.STOPPED,
}


def java_trim(text: str) -> str:
    """String.trim(): strips characters up to U+0020 from both ends (not all Unicode whitespace)."""
    start, end = 0, len(text)
    while start < end and text[start] <= " ":
        start += 1
    while end > start and text[end - 1] <= " ":
        end -= 1
    return text[start:end]


def create_request(body: Any) -> CreateConnectorRequest:
    """POST /connectors: {"name": …, "config": {…}, "initial_state": …}; another field fails as in Connect."""
    if body is None:
        raise RestError(400, NO_CONFIG)
    if not isinstance(body, dict):
        raise mismatch(CREATE_REQUEST, body)
    _reject_unknown_fields(body)
    name = string_value(body.get("name"), ((CREATE_REQUEST, "name"),))
    raw_config = body.get("config")
    config = None
    if raw_config is not None:
        config = string_map(raw_config, ((CREATE_REQUEST, "config"),))
    initial_state = None
    raw_state = string_value(body.get("initial_state"), ((CREATE_REQUEST, "initial_state"),))
    if raw_state is not None:
        initial_state = _INITIAL_STATES.get(raw_state.upper())
        if initial_state is None:
            enum_name = INITIAL_STATE.replace("$", ".")
            raise BindingError(
                f"Cannot construct instance of `{INITIAL_STATE}`, problem: No enum constant "
                f"{enum_name}.{raw_state.upper()}",
                ((CREATE_REQUEST, "initial_state"),),
            )
    if config is None:
        raise RestError(400, NO_CONFIG)
    return CreateConnectorRequest("" if name is None else java_trim(name), config, initial_state)


def put_connector_name(name: str, config: dict[str, str | None]) -> dict[str, str | None]:
    """Connect's checkAndPutConnectorConfigName: `name` in the config must match, else it is added."""
    included = config.get("name")
    if included is not None:
        if included != name:
            raise RestError(
                400,
                f"Connector name configuration ({included}) doesn't match connector name in the URL ({name})",
            )
        return config
    return {**config, "name": name}


# -- offsets --------------------------------------------------------------------------------------------
def _plain(value: Any) -> Any:
    """Numbers as int/float, recursively: offsets keep JSON types (Map<String, Object>)."""
    if isinstance(value, JsonNumber):
        return value.to_python()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _offset_map(value: Any, chain: Chain) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise mismatch(OFFSET_MAP, value, chain)
    return {k: _plain(v) for k, v in value.items()}


def offsets_request(body: Any) -> list[ConnectorOffset]:
    """PATCH …/offsets: {"offsets": [{"partition": {…}, "offset": {…} | null}, …]}."""
    if body is None:
        raise RestError(400, NO_OFFSETS)
    if not isinstance(body, dict):
        raise mismatch(OFFSETS, body)
    items = body.get("offsets")
    if items is None:
        raise RestError(400, NO_OFFSETS)
    if not isinstance(items, list):
        raise mismatch(OFFSET_LIST, items, ((OFFSETS, "offsets"),))
    if not items:
        raise RestError(400, NO_OFFSETS)
    parsed: list[tuple[dict[str, Any] | None, dict[str, Any] | None]] = []
    for index, item in enumerate(items):
        chain: Chain = ((OFFSETS, "offsets"), ("java.util.ArrayList", index))
        if not isinstance(item, dict):
            raise mismatch(OFFSET, item, chain)
        partition = _offset_map(item.get("partition"), (*chain, (OFFSET, "partition")))
        offset = _offset_map(item.get("offset"), (*chain, (OFFSET, "offset")))
        parsed.append((partition, offset))
    result: list[ConnectorOffset] = []
    for partition, offset in parsed:
        if partition is None:  # Connect 4.3.1 writes such an entry (key [name, null]); refused here
            raise RestError(400, NO_PARTITION)
        result.append(ConnectorOffset(partition, offset))  # values are checked once the connector is STOPPED
    return result


# -- loggers --------------------------------------------------------------------------------------------
LOG_LEVELS: Final = frozenset({"OFF", "FATAL", "ERROR", "WARN", "INFO", "DEBUG", "TRACE", "ALL"})


def logger_level_request(body: Any) -> str:
    """PUT /admin/loggers/{name}: {"level": "debug"} -> "DEBUG" (log4j's Level.toLevel)."""
    levels = {} if body is None else string_map(body)
    level = levels.get("level")
    if level is None:
        raise RestError(400, NO_LEVEL)
    if level.upper() not in LOG_LEVELS:
        raise RestError(404, f"invalid log level '{level}'.")
    return level.upper()


# -- signals (our extension, not Connect's) ----------------------------------------------------------------
SIGNAL_FIELDS: Final = ("id", "type", "data")


@dataclasses.dataclass(frozen=True, slots=True)
class SignalRequest:
    id: str
    type: str
    data: str | None  # JSON text, as a signal's `data` column holds it


def _text(value: Any) -> bool:
    return isinstance(value, str) and not isinstance(value, JsonNumber)


def signal_request(body: Any) -> SignalRequest:
    """POST /connectors/{name}/signals: {"id": "…", "type": "…", "data": {…} | "<JSON text>" | null}; 400 for
    anything else. An object `data` becomes its compact JSON text."""
    if not isinstance(body, dict):
        raise RestError(400, 'A signal is a JSON object: {"id": "...", "type": "...", "data": {...}}')
    unknown = [k for k in body if k not in SIGNAL_FIELDS]
    if unknown:
        raise RestError(400, f"Unknown field '{unknown[0]}' in the signal: it has only id, type and data")
    for key in ("id", "type"):
        if not _text(body.get(key)):
            raise RestError(400, f"The signal's '{key}' must be given as a string")
    data = body.get("data")
    if isinstance(data, dict):
        data = json.dumps(_plain(data), separators=(",", ":"), ensure_ascii=False)
    elif data is not None and not _text(data):
        raise RestError(400, "The signal's 'data' must be a JSON object or a string holding JSON")
    return SignalRequest(body["id"], body["type"], data)
