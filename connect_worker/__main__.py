"""The `connect-worker` command line: `connect-worker worker.properties [connector.properties|.json ...]`."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help"):
        print("usage: connect-worker worker.properties [connector.properties|connector.json ...]")
        return 0 if args else 2
    print("connect-worker: the worker runtime is not implemented yet", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
