"""Summaries of the cProfile dump of the worker's streaming run (`python -m cProfile -o … -m connect_worker`).

cProfile sees the main thread only: that is the whole asyncio loop of the worker (replication reading, pgoutput
decoding, record building, conversion, produce). librdkafka's own threads (and the GIL-free parts of psycopg's
libpq) are not in it. Coroutines count one call per resumption, so `ncalls` of async functions is inflated.
"""

from __future__ import annotations

import io
import pstats
import sysconfig
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
_STDLIB = sysconfig.get_paths()["stdlib"]

FuncKey = tuple[str, int, str]


def _label(key: FuncKey) -> str:
    file, line, name = key
    if file == "~":
        return name
    path = Path(file)
    try:
        rel = str(path.resolve().relative_to(ROOT))
    except ValueError:
        rel = _short(file)
    return f"{rel}:{line}({name})"


def _short(file: str) -> str:
    if "site-packages/" in file:
        return file.split("site-packages/", 1)[1]
    if file.startswith(_STDLIB):
        return "stdlib/" + file[len(_STDLIB) :].lstrip("/")
    return file


def area(key: FuncKey) -> str:
    """A coarse owner of a function: the project file, the third-party package, the stdlib module, or the
    builtin (C) function itself."""
    file, _line, name = key
    if file == "~":
        return "C: " + name
    if file.startswith("<"):  # generated code, e.g. the JSON converter's per-schema encoders "<json encoder …>"
        inner = file.strip("<>")
        return "generated: json encoders" if inner.startswith("json encoder") else "generated: " + inner
    path = Path(file)
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        pass
    short = _short(file)
    if short.startswith("stdlib/"):
        return short
    return short.split("/", 1)[0]


def _rows(stats: dict[FuncKey, Any], order: int, limit: int) -> list[dict[str, Any]]:
    items = sorted(stats.items(), key=lambda kv: kv[1][order], reverse=True)[:limit]
    return [
        {
            "function": _label(key),
            "ncalls": nc,
            "primitive_calls": cc,
            "tottime_s": round(tt, 3),
            "cumtime_s": round(ct, 3),
        }
        for key, (cc, nc, tt, ct, _callers) in items
    ]


IDLE = "<method 'poll' of 'select.epoll' objects>"  # the event loop waiting for I/O: not work


def _in_project(key: FuncKey) -> bool:
    if key[0] == "~" or key[0].startswith("<"):
        return False
    try:
        Path(key[0]).resolve().relative_to(ROOT)
    except ValueError:
        return False
    return True


def summarise(prof: Path, text_out: Path, *, events: int = 0, limit: int = 30) -> dict[str, Any]:
    """Top functions by cumulative and by own (total) time, own time per area (shares of the busy time, i.e.
    without the loop's epoll wait); writes the pstats listings to `text_out`."""
    st = pstats.Stats(str(prof))
    raw: dict[FuncKey, Any] = st.stats  # type: ignore[attr-defined]
    total = sum(v[2] for v in raw.values())
    idle = sum(v[2] for k, v in raw.items() if k[0] == "~" and k[2] == IDLE)
    busy = total - idle
    per_area: dict[str, float] = defaultdict(float)
    for key, value in raw.items():
        if not (key[0] == "~" and key[2] == IDLE):
            per_area[area(key)] += value[2]
    areas = sorted(per_area.items(), key=lambda kv: kv[1], reverse=True)[:limit]
    buf = io.StringIO()
    for order in ("cumulative", "tottime"):
        text = pstats.Stats(str(prof), stream=buf)
        text.sort_stats(order).print_stats(limit * 2)
    text_out.write_text(buf.getvalue())
    project = {k: v for k, v in raw.items() if _in_project(k)}
    return {
        "profile_file": str(prof),
        "text_file": str(text_out),
        "events": events,
        "total_own_time_s": round(total, 3),
        "idle_epoll_s": round(idle, 3),
        "busy_s": round(busy, 3),
        "busy_us_per_event": round(busy / events * 1e6, 2) if events else None,
        "top_cumulative": _rows(raw, 3, limit),
        "top_cumulative_project": _rows(project, 3, limit),
        "top_tottime": _rows(raw, 2, limit),
        "own_time_by_area": [
            {
                "area": name,
                "tottime_s": round(t, 3),
                "share_pct": round(100 * t / busy, 1) if busy else 0.0,
                "us_per_event": round(t / events * 1e6, 2) if events else None,
            }
            for name, t in areas
        ],
    }
