"""PostgreSQL value arithmetic compared with the real Debezium 3.6.3 classes (MicroDuration, Interval, pgjdbc's
PGInterval, BigDecimal) run on the same inputs: the jars Kafka Connect + Debezium run with in the differential
tests (devstack/debezium.sh fetch), one JVM per batch (tests/java/DebeziumValueGolden.java)."""

from __future__ import annotations

import json
import subprocess
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from connect_worker.api.javacompat import java_bigdecimal_to_plain_string
from connectors.postgres.value_converters.interval import interval_iso, interval_micros
from tests.differential.debezium import ConnectDebezium

ROOT = Path(__file__).resolve().parents[2]
DBZ = ROOT / ".devstack" / "debezium"
PROGRAM = ROOT / "tests" / "java" / "DebeziumValueGolden.java"

pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]


@pytest.fixture(scope="module")
def debezium_java(java_bin: str) -> Any:
    ConnectDebezium.fetch()
    classpath = f"{DBZ / 'connect-libs'}/*:{DBZ / 'plugins' / 'debezium-connector-postgres'}/*"

    def run(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
        stdin = "".join(json.dumps(c) + "\n" for c in cases)
        proc = subprocess.run(
            [java_bin, "-cp", classpath, str(PROGRAM)], input=stdin.encode(), capture_output=True, timeout=300
        )
        assert proc.returncode == 0, proc.stderr.decode(errors="replace")
        answers = [json.loads(x) for x in proc.stdout.decode().splitlines() if x.strip()]
        assert len(answers) == len(cases), proc.stderr.decode(errors="replace")
        return answers

    return run


# One JVM per example (a batch of inputs): shrinking would run hundreds; a failure names its input anyway.
_NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)
_SLOW = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example]


def _unit(n: int, singular: str, plural: str) -> str:
    return f"{n} {singular if n in (1, -1) else plural}"


@st.composite
def pg_intervals(draw: st.DrawFn) -> str:
    """Interval texts as PostgreSQL prints them (IntervalStyle postgres), over the whole range whose clock hours
    fit pgjdbc's int (beyond it pgjdbc and so Debezium fail; this worker converts them)."""
    parts = []
    years = draw(st.one_of(st.integers(-178956970, 178956970), st.integers(-300000, 300000), st.just(0)))
    # PostgreSQL keeps years and months as one int32 of months: -178956970 years -8 mons .. 178956970 years 7 mons
    months = draw(st.integers(-8 if years == -178956970 else -11, 7 if years == 178956970 else 11))
    days = draw(st.one_of(st.integers(-(2**31), 2**31 - 1), st.integers(-400, 400), st.just(0)))
    if years:
        parts.append(_unit(years, "year", "years"))
    if months:
        parts.append(_unit(months, "mon", "mons"))
    if days:
        parts.append(_unit(days, "day", "days"))
    if draw(st.booleans()) or not parts:
        hours = draw(st.one_of(st.integers(0, 2**31 - 1), st.integers(0, 48)))
        minutes, seconds = draw(st.integers(0, 59)), draw(st.integers(0, 59))
        micros = draw(st.one_of(st.just(0), st.integers(0, 999999)))
        clock = f"{hours:02d}:{minutes:02d}:{seconds:02d}" + (f".{micros:06d}".rstrip("0") if micros else "")
        parts.append(("-" if draw(st.booleans()) else "") + clock)
    return " ".join(parts)


EDGES = [
    "-178000000 years",
    "178000000 years",
    "-178000000 years -1 mons",
    "178956970 years 7 mons",
    "-178956970 years -8 mons",
    "2147483647 days",
    "-2147483648 days",
    "2147483647:00:00",
    "1 year 2 mons 3 days 04:05:06.789",
    "-1 years -2 mons +3 days -04:05:06.789",
    "00:00:01.000001",
    "00:00:00.000001",
    "-00:00:00.5",
    "1 day -00:00:01",
    "00:00:00",
    "292271 years",
    "292272 years",
    "-106751992 days",
    "123456789:59:59.999999",
]


def test_interval_edges_match_debezium(debezium_java: Any) -> None:
    """Issue 14, item 3: past the int64 range the µs saturate as Java's (long) cast does."""
    answers = debezium_java([{"op": "interval", "text": t} for t in EDGES])
    for text, answer in zip(EDGES, answers, strict=True):
        assert (interval_micros(text), interval_iso(text)) == (answer["micros"], answer["iso"]), text


@given(st.lists(pg_intervals(), min_size=200, max_size=200))
@settings(max_examples=5, deadline=None, phases=_NO_SHRINK, suppress_health_check=_SLOW)
def test_generated_intervals_match_debezium(debezium_java: Any, texts: list[str]) -> None:
    answers = debezium_java([{"op": "interval", "text": t} for t in texts])
    for text, answer in zip(texts, answers, strict=True):
        assert (interval_micros(text), interval_iso(text)) == (answer["micros"], answer["iso"]), text


@given(
    st.lists(
        st.decimals(allow_nan=False, allow_infinity=False, places=None).map(str)
        | st.from_regex(r"-?[0-9]{1,60}(\.[0-9]{1,60})?(E[+-]?[0-9]{1,3})?", fullmatch=True),
        min_size=300,
        max_size=300,
    )
)
@settings(max_examples=3, deadline=None, phases=_NO_SHRINK, suppress_health_check=_SLOW)
def test_plain_strings_match_bigdecimal(debezium_java: Any, texts: list[str]) -> None:
    """decimal.handling.mode=string (issue 14, item 2): BigDecimal.toPlainString of the same value and scale."""
    answers = debezium_java([{"op": "plain", "text": t} for t in texts])
    for text, answer in zip(texts, answers, strict=True):
        assert java_bigdecimal_to_plain_string(Decimal(text)) == answer["s"], text
