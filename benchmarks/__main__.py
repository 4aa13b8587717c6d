"""`python -m benchmarks run` — the side-by-side benchmark (Makefile: `bench: up` → `$(PY) -m benchmarks run`).

    BENCH_SIZE=smoke|small|full   workload size (default small); --size overrides it
    BENCH_SYSTEMS=ceiling,ours,debezium   what to measure (default all; smoke leaves Debezium out unless named)
    BENCH_SCHEMAS=off,on,avro     converter modes: JsonConverter schemas.enable false/true, Avro through the
                                  schema registry (default all three)
    BENCH_PROFILE=0               skip the cProfile run of this worker
    BENCH_OUT=dir                 output folder (default benchmarks/results/<size>)
    BENCH_CONNECTOR_EXTRA=k=v,…   extra connector settings for both systems (e.g. poll.interval.ms=10)
    BENCH_ONLY=stream,snapshot,incremental,parallel,eos,cluster,sink   the runs to make (default all)
    BENCH_SINK=0|1                the Spark sink phase (default 1): 0 leaves it out, 1 adds it to a BENCH_ONLY list

`python -m benchmarks report <results.json>` rewrites results.md and chart.png from a results file.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path

from benchmarks import report
from benchmarks.settings import DEFAULT_SCHEMAS, MODES, SIZES, size_from_env

RESULTS = Path(__file__).resolve().parent / "results"


def _csv(text: str) -> list[str]:
    return [x.strip().lower() for x in text.split(",") if x.strip()]


def selected_runs(only: str, sink: str | None, known: frozenset[str]) -> frozenset[str]:
    """The runs of --only (all of `known` when empty), with the sink phase added (`sink` "1") or left out ("0");
    ValueError for an unknown name or an empty selection."""
    chosen = frozenset(_csv(only)) or known
    if chosen - known:
        raise ValueError(f"--only: choose from {', '.join(sorted(known))}")
    if sink is not None:
        chosen = chosen | {"sink"} if sink == "1" else chosen - {"sink"}
    if not chosen:
        raise ValueError("nothing to run: --only names the sink phase alone and BENCH_SINK is 0")
    return chosen


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n", 1)[0])
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run the benchmark and write results.json, results.md and chart.png")
    r.add_argument("--size", choices=sorted(SIZES), default=None, help="default: $BENCH_SIZE or small")
    r.add_argument("--systems", default=os.environ.get("BENCH_SYSTEMS"), help="ceiling,ours,debezium")
    r.add_argument("--schemas", default=os.environ.get("BENCH_SCHEMAS"), help="off,on,avro (default: all three)")
    r.add_argument("--no-profile", action="store_true", default=os.environ.get("BENCH_PROFILE", "1") == "0")
    r.add_argument("--out", type=Path, default=Path(os.environ["BENCH_OUT"]) if os.environ.get("BENCH_OUT") else None)
    r.add_argument(
        "--only", default=os.environ.get("BENCH_ONLY", ""), help="stream,snapshot,incremental,parallel,eos,cluster,sink"
    )
    r.add_argument(
        "--sink",
        choices=("0", "1"),
        default=os.environ.get("BENCH_SINK"),
        help="the Spark sink phase: 0 leaves it out, 1 adds it to --only (default: in unless --only leaves it out)",
    )
    r.add_argument("--connector-extra", default=os.environ.get("BENCH_CONNECTOR_EXTRA", ""), help="k=v,k=v")
    rep = sub.add_parser("report", help="rewrite results.md and chart.png from a results.json")
    rep.add_argument("results", type=Path)
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="[%(asctime)s] %(message)s", datefmt="%H:%M:%S")
    if args.command == "report":
        results = json.loads(args.results.read_text())
        files = report.write(results, args.results.parent)
        print("\n".join(f"{k}: {v}" for k, v in files.items()))
        return 0

    from benchmarks import runner  # imports the harness (psycopg, confluent_kafka) only when running

    size = SIZES[args.size] if args.size else size_from_env()
    if args.systems:
        systems = tuple(s for s in runner.SYSTEMS if s in _csv(args.systems))
        unknown = set(_csv(args.systems)) - set(runner.SYSTEMS)
        if unknown or not systems:
            print(f"unknown systems {sorted(unknown)}; choose from {', '.join(runner.SYSTEMS)}", file=sys.stderr)
            return 2
    else:
        systems = tuple(s for s in runner.SYSTEMS if s != "debezium" or size.debezium_default)
    named = _csv(args.schemas or DEFAULT_SCHEMAS)
    modes = tuple(mode for name, mode in MODES.items() if name in named)
    if not modes or set(named) - set(MODES):
        print(f"--schemas: choose from {', '.join(MODES)} (got {args.schemas!r})", file=sys.stderr)
        return 2
    try:
        only = selected_runs(args.only, args.sink, runner.RUNS | {runner.SINK, runner.CLUSTER})
    except ValueError as e:
        print(e, file=sys.stderr)
        return 2
    out_dir = args.out or RESULTS / size.name
    extra = dict(kv.split("=", 1) for kv in args.connector_extra.split(",") if "=" in kv)
    plan = runner.Plan(
        size=size,
        systems=systems,
        modes=modes,
        profile=not args.no_profile,
        out_dir=out_dir,
        connector_extra={k.strip(): v.strip() for k, v in extra.items()},
        only=only,
    )
    results = runner.run(plan)
    files = report.write(results, out_dir)
    print(files["markdown"].read_text())
    print("\n".join(f"{k}: {v}" for k, v in files.items()))
    return 1 if results["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
