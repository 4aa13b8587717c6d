"""ConfigDef: declared, typed, validated configuration (org.apache.kafka.common.config.ConfigDef).

A plugin declares one ConfigDef; `parse()` turns string properties into typed values once (raising on the
first problem), `validate()` returns every problem at once, per key, as /config/validate serves them.
Error texts follow Kafka's, because users and tools read them.
"""

from __future__ import annotations

import dataclasses
import enum
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final

from connect_worker.api.errors import ConfigError
from connect_worker.api.schema import NO_DEFAULT


class ConfigType(enum.Enum):
    BOOLEAN = "BOOLEAN"
    STRING = "STRING"
    INT = "INT"
    SHORT = "SHORT"
    LONG = "LONG"
    DOUBLE = "DOUBLE"
    LIST = "LIST"
    CLASS = "CLASS"
    PASSWORD = "PASSWORD"


class Importance(enum.Enum):
    HIGH = "HIGH"
    MEDIUM = "MEDIUM"
    LOW = "LOW"


class Width(enum.Enum):
    NONE = "NONE"
    SHORT = "SHORT"
    MEDIUM = "MEDIUM"
    LONG = "LONG"


class Password:
    """A secret value: never shown by repr/str, logs or REST answers."""

    __slots__ = ("value",)
    HIDDEN: Final = "[hidden]"

    def __init__(self, value: str) -> None:
        self.value = value

    def __repr__(self) -> str:
        return self.HIDDEN

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Password) and other.value == self.value

    def __hash__(self) -> int:
        return hash(self.value)


# A validator gets (name, parsed value) and raises ConfigError with Kafka's message on a bad value.
Validator = Callable[[str, Any], None]
# A recommender gets (name, parsed config so far) and returns the recommended values.
Recommender = Callable[[str, Mapping[str, Any]], list[Any]]


def invalid(name: str, value: Any, message: str) -> ConfigError:
    return ConfigError(f"Invalid value {_show(value)} for configuration {name}: {message}", name=name)


def _show(value: Any) -> str:
    if isinstance(value, Password):
        return Password.HIDDEN
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# -- validators -------------------------------------------------------------------------------------
def at_least(minimum: float) -> Validator:
    def check(name: str, value: Any) -> None:
        if value is None:
            raise invalid(name, value, "Value must be non-null")
        if value < minimum:
            raise invalid(name, value, f"Value must be at least {_num(minimum)}")

    return check


def between(minimum: float, maximum: float) -> Validator:
    def check(name: str, value: Any) -> None:
        if value is None:
            raise invalid(name, value, "Value must be non-null")
        if value < minimum:
            raise invalid(name, value, f"Value must be at least {_num(minimum)}")
        if value > maximum:
            raise invalid(name, value, f"Value must be no more than {_num(maximum)}")

    return check


def one_of(*allowed: str, case_sensitive: bool = True) -> Validator:
    folded = {a if case_sensitive else a.lower() for a in allowed}

    def check(name: str, value: Any) -> None:
        probe = value if case_sensitive or value is None else str(value).lower()
        if probe not in folded:
            if case_sensitive:
                raise invalid(name, value, "String must be one of: " + ", ".join(allowed))
            raise invalid(name, value, "String must be one of (case insensitive): " + ", ".join(allowed))

    return check


def non_empty_string(name: str, value: Any) -> None:
    if value is None or value == "":
        raise invalid(name, "" if value is None else value, "String may not be empty")


def non_null(name: str, value: Any) -> None:
    if value is None:
        raise ConfigError(f"Invalid value null for configuration {name}: entry must be non null", name=name)


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else str(v)


# -- keys and values ----------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True, slots=True)
class ConfigKey:
    name: str
    type: ConfigType
    default: Any = NO_DEFAULT
    validator: Validator | None = None
    importance: Importance = Importance.MEDIUM
    documentation: str = ""
    group: str | None = None
    order_in_group: int = -1
    width: Width = Width.NONE
    display_name: str | None = None
    dependents: tuple[str, ...] = ()
    recommender: Recommender | None = None
    internal: bool = False

    @property
    def required(self) -> bool:
        return self.default is NO_DEFAULT

    @property
    def default_string(self) -> str | None:
        """The default as Connect's REST API shows it (ConfigDef.convertToString)."""
        if self.default is NO_DEFAULT or self.default is None:
            return None
        return to_config_string(self.type, self.default)


@dataclasses.dataclass(slots=True)
class ConfigValue:
    """One key's validation outcome (org.apache.kafka.common.config.ConfigValue)."""

    name: str
    value: Any = None
    recommended_values: list[Any] = dataclasses.field(default_factory=list)
    errors: list[str] = dataclasses.field(default_factory=list)
    visible: bool = True


_LIST_SPLIT = re.compile(r"\s*,\s*")


def parse_value(key: ConfigKey, raw: Any) -> Any:
    """Parse one raw value (usually a string) into the key's type, as ConfigDef.parseType does."""
    name, t = key.name, key.type
    if raw is None:
        return None
    if isinstance(raw, str):
        raw_s = raw.strip()
    else:
        raw_s = raw
    try:
        if t is ConfigType.BOOLEAN:
            if isinstance(raw_s, bool):
                return raw_s
            if isinstance(raw_s, str) and raw_s.lower() in ("true", "false"):
                return raw_s.lower() == "true"
            raise invalid(name, raw, "Expected value to be either true or false")
        if t is ConfigType.STRING:
            return raw_s if isinstance(raw_s, str) else str(raw_s)
        if t in (ConfigType.INT, ConfigType.SHORT, ConfigType.LONG):
            limits = {
                ConfigType.SHORT: (-(2**15), 2**15 - 1),
                ConfigType.INT: (-(2**31), 2**31 - 1),
                ConfigType.LONG: (-(2**63), 2**63 - 1),
            }[t]
            if isinstance(raw_s, bool) or not isinstance(raw_s, int | str):
                raise invalid(name, raw, f"Expected value to be a {_java_type_word(t)} number.")
            try:
                n = int(raw_s)
            except ValueError:
                raise invalid(name, raw, f"Not a number of type {t.value}") from None
            if not limits[0] <= n <= limits[1]:
                raise invalid(name, raw, f"Not a number of type {t.value}")
            return n
        if t is ConfigType.DOUBLE:
            try:
                return float(raw_s)
            except (TypeError, ValueError):
                raise invalid(name, raw, "Not a number of type DOUBLE") from None
        if t is ConfigType.LIST:
            if isinstance(raw_s, list):
                return [str(x) for x in raw_s]
            return [] if raw_s == "" else _LIST_SPLIT.split(str(raw_s))
        if t is ConfigType.CLASS:
            return str(raw_s)
        if t is ConfigType.PASSWORD:
            return raw if isinstance(raw, Password) else Password(str(raw))
    except ConfigError:
        raise
    raise invalid(name, raw, f"Unknown type {t}")


def _java_type_word(t: ConfigType) -> str:
    return {ConfigType.SHORT: "16-bit", ConfigType.INT: "32-bit", ConfigType.LONG: "64-bit"}[t]


def to_config_string(t: ConfigType, value: Any) -> str:
    if value is None:
        return "null"
    if t is ConfigType.PASSWORD:
        return Password.HIDDEN
    if t is ConfigType.LIST:
        return ",".join(str(v) for v in value)
    if t is ConfigType.BOOLEAN:
        return "true" if value else "false"
    if t is ConfigType.DOUBLE:
        return repr(float(value))
    return str(value)


class ConfigDef:
    """An ordered set of ConfigKeys. Immutable after construction by convention: build it once."""

    def __init__(self, keys: Iterable[ConfigKey] = ()) -> None:
        self._keys: dict[str, ConfigKey] = {}
        for k in keys:
            self.add(k)

    def add(self, key: ConfigKey) -> ConfigDef:
        if key.name in self._keys:
            raise ConfigError(f"Configuration {key.name} is defined twice.", name=key.name)
        self._keys[key.name] = key
        return self

    def define(self, name: str, type: ConfigType, default: Any = NO_DEFAULT, **attrs: Any) -> ConfigDef:
        return self.add(ConfigKey(name, type, default, **attrs))

    def merge(self, other: ConfigDef) -> ConfigDef:
        """A new ConfigDef with this one's keys, then the other's keys that are not here."""
        merged = ConfigDef(self._keys.values())
        for k in other.keys:
            if k.name not in merged._keys:
                merged.add(k)
        return merged

    @property
    def keys(self) -> Sequence[ConfigKey]:
        return list(self._keys.values())

    def __contains__(self, name: object) -> bool:
        return name in self._keys

    def __getitem__(self, name: str) -> ConfigKey:
        return self._keys[name]

    def groups(self) -> list[str]:
        seen: list[str] = []
        for k in self._keys.values():
            if k.group and k.group not in seen:
                seen.append(k.group)
        return seen

    def parse(self, props: Mapping[str, Any]) -> dict[str, Any]:
        """Every defined key as a typed value; raises ConfigError on the first problem (Kafka's order)."""
        out: dict[str, Any] = {}
        for key in self._keys.values():
            if key.name in props:
                value = parse_value(key, props[key.name])
            elif key.required:
                raise ConfigError(
                    f'Missing required configuration "{key.name}" which has no default value.', name=key.name
                )
            else:
                value = key.default
            if key.validator is not None:
                key.validator(key.name, value)
            out[key.name] = value
        return out

    def validate(self, props: Mapping[str, Any]) -> dict[str, ConfigValue]:
        """Kafka's ConfigDef.validate: every key's value and errors (all of them), in definition order. A value
        that does not parse becomes null, a missing required key is reported, and the validator runs on whatever
        value there is (null included), so both problems can show."""
        results: dict[str, ConfigValue] = {}
        parsed: dict[str, Any] = {}
        for key in self._keys.values():
            cv = results[key.name] = ConfigValue(key.name)
            value: Any = None
            if key.name in props:
                try:
                    value = parse_value(key, props[key.name])
                except ConfigError as e:
                    cv.errors.append(str(e))
            elif key.required:
                cv.errors.append(f'Missing required configuration "{key.name}" which has no default value.')
            else:
                value = key.default
            # Kafka's NonEmptyString lets a null through (it is reported once, as missing); ours rejects it
            lets_null_through = getattr(key.validator, "__wrapped__", key.validator) is non_empty_string
            if key.validator is not None and not (value is None and lets_null_through):
                try:
                    key.validator(key.name, value)
                except ConfigError as e:
                    cv.errors.append(str(e))
                except (TypeError, ValueError, AttributeError):  # a validator not written for null: nothing to add
                    pass
            cv.value = parsed[key.name] = value
        recommend(self._keys.values(), results, parsed)
        return results


def recommend(keys: Iterable[ConfigKey], results: Mapping[str, ConfigValue], parsed: Mapping[str, Any]) -> None:
    """Fill each key's recommended values from its recommender (given every parsed value), as ConfigDef does
    after validating; a recommender's ConfigError becomes an error of its key."""
    for key in keys:
        if key.recommender is not None:
            try:
                results[key.name].recommended_values = key.recommender(key.name, parsed)
            except ConfigError as e:
                results[key.name].errors.append(str(e))


def error_count(values: Mapping[str, ConfigValue]) -> int:
    return sum(len(v.errors) for v in values.values())
