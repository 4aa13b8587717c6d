"""`python -m benchmarks.profiled_worker <out.prof> worker.properties`: the worker with a cProfile window.

The profiler is off until SIGUSR1 and dumps its statistics to <out.prof> on SIGUSR2, so that the profile covers
exactly the measured streaming window (not imports, start-up or idle waits). Both signals are handled on the
main thread, the one that runs the worker's asyncio loop, which is what cProfile observes.
"""

from __future__ import annotations

import cProfile
import signal
import sys
from types import FrameType

from connect_worker.__main__ import main


def run(argv: list[str]) -> int:
    out, rest = argv[0], argv[1:]
    profiler = cProfile.Profile()

    def start(_sig: int, _frame: FrameType | None) -> None:
        profiler.enable()

    def dump(_sig: int, _frame: FrameType | None) -> None:
        profiler.disable()
        profiler.dump_stats(out)

    signal.signal(signal.SIGUSR1, start)
    signal.signal(signal.SIGUSR2, dump)
    return main(rest)


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
