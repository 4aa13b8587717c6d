"""Generated values for the broad differential suite: random rows (seeded, so a failure is reproducible with its
seed) of the types whose edge cases are hardest to enumerate by hand, through the snapshot and the stream of both
Debezium and this worker.

`make test` runs a fixed seed and a small row count; `make differential-generated` a random seed and many rows
(`CW_DIFF_SEED`, `CW_DIFF_ROWS`).
"""

from __future__ import annotations

import random
import struct

from tests.differential.cases_pg import KNOWN, Col, TypesTable, q
from tests.differential.dual import Scenario

_ALPHABET = (
    [chr(c) for c in range(0x20, 0x7F)]
    + list("\t\n\r\"\\'")
    + [chr(c) for c in (0x01, 0x1F, 0x7F, 0x85, 0xA0, 0xE9, 0x2028, 0x2029, 0xFEFF, 0xFFFD)]
    + ["ü", "€", "😀", "𝄞", "中"]
)


def _numeric(r: random.Random) -> str:
    whole = "".join(r.choice("0123456789") for _ in range(r.choice([1, 1, 3, 19, 20, 29, 40, 120])))
    frac = "".join(r.choice("0123456789") for _ in range(r.choice([0, 1, 2, 9, 18, 30, 100])))
    text = (whole.lstrip("0") or "0") + ("." + frac if frac else "")
    return f"'{'-' if r.random() < 0.4 else ''}{text}'"


def _fixed(r: random.Random, precision: int, scale: int) -> str:
    whole = r.randrange(10 ** (precision - scale))
    frac = r.randrange(10**scale)
    return f"'{'-' if r.random() < 0.4 else ''}{whole}.{frac:0{scale}d}'"


def _float8(r: random.Random) -> str:
    while True:
        value = struct.unpack("<d", r.getrandbits(64).to_bytes(8, "little"))[0]
        if value == value and abs(value) != float("inf"):
            return f"'{value!r}'::float8"


def _float4(r: random.Random) -> str:
    while True:
        value = struct.unpack("<f", r.getrandbits(32).to_bytes(4, "little"))[0]
        if value == value and abs(value) != float("inf"):
            return f"'{value!r}'::float4"


def _text(r: random.Random) -> str:
    return q("".join(r.choice(_ALPHABET) for _ in range(r.choice([0, 1, 5, 40, 300]))))[0]


def _timestamp(r: random.Random, tz: bool) -> str:
    year = r.choice([r.randint(1, 9999), r.randint(1, 4713), r.randint(10000, 294275), 1970, 2000])
    bc = year <= 4713 and r.random() < 0.15
    clock = f"{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}.{r.randint(0, 999999):06d}"
    zone = f"{r.choice('+-')}{r.randint(0, 14):02d}:{r.choice([0, 30, 45]):02d}" if tz else ""
    return f"'{year:04d}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d} {clock}{zone}{' BC' if bc else ''}'"


def _date(r: random.Random) -> str:
    year = r.choice([r.randint(1, 9999), r.randint(10000, 5874896)])
    return f"'{year:04d}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}'"


def _interval(r: random.Random) -> str:
    parts = [
        f"{r.randint(-300000, 300000)} years",
        f"{r.randint(-11, 11)} mons",
        f"{r.randint(-100000, 100000)} days",
        f"{r.randint(-100000, 100000)}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}.{r.randint(0, 999999):06d}",
    ]
    chosen = [p for p in parts if r.random() < 0.6] or parts[-1:]
    return f"'{' '.join(chosen)}'::interval"


def _jsonb(r: random.Random) -> str:
    def node(depth: int) -> str:
        kind = r.randrange(6 if depth < 3 else 4)
        if kind == 0:
            return str(r.randint(-(10**20), 10**20))
        if kind == 1:
            return repr(r.uniform(-1e6, 1e6))
        if kind == 2:
            return '"' + "".join(r.choice("abcü€😀 ") for _ in range(r.randint(0, 8))) + '"'
        if kind == 3:
            return r.choice(["true", "false", "null"])
        if kind == 4:
            return "[" + ", ".join(node(depth + 1) for _ in range(r.randint(0, 3))) + "]"
        return "{" + ", ".join(f'"k{i}": {node(depth + 1)}' for i in range(r.randint(0, 3))) + "}"

    return q(node(0))[0] + "::jsonb"


def _bytea(r: random.Random) -> str:
    return "'\\x" + r.randbytes(r.choice([0, 1, 16, 300])).hex() + "'::bytea"


def _money(r: random.Random) -> str:
    cents = r.choice([r.randint(-(2**63), 2**63 - 1), r.randint(-(10**6), 10**6)])
    return f"'{'-' if cents < 0 else ''}{abs(cents) // 100}.{abs(cents) % 100:02d}'::numeric::money"


def generated_table(seed: int, rows: int) -> TypesTable:
    r = random.Random(seed)
    gens = {
        "g_numeric": ("numeric", _numeric),
        "g_num30_4": ("numeric(30,4)", lambda r: _fixed(r, 30, 4)),
        "g_float8": ("double precision", _float8),
        "g_float4": ("real", _float4),
        "g_text": ("text", _text),
        "g_ts": ("timestamp", lambda r: _timestamp(r, False)),
        "g_tstz": ("timestamptz", lambda r: _timestamp(r, True)),
        "g_date": ("date", _date),
        "g_interval": ("interval", _interval),
        "g_jsonb": ("jsonb", _jsonb),
        "g_bytea": ("bytea", _bytea),
        "g_money": ("money", _money),
    }
    cols = tuple(Col(name, type_, tuple(gen(r) for _ in range(rows))) for name, (type_, gen) in gens.items())
    return TypesTable("t_generated", cols)


def generated_scenario(seed: int, rows: int, config: dict[str, str] | None = None) -> Scenario:
    table = generated_table(seed, rows)
    return Scenario(
        name=f"generated-seed{seed}-rows{rows}",
        tables=[table.qualified],
        setup=table.setup(),
        snapshot_records=table.rows,
        transactions=table.transactions(),
        config=config or {},
        known=KNOWN,
    )
