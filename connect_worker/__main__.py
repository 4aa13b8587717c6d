"""The `connect-worker` command line: `connect-worker worker.properties [connector.properties|.json ...]`."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys

from connect_worker.api import ConfigError, ConnectError
from connect_worker.runtime.properties import load_properties


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="connect-worker",
        description="A Kafka Connect-compatible standalone worker; offsets, configs and statuses live in Kafka.",
    )
    p.add_argument("worker_properties", help="worker configuration (Kafka Connect worker.properties keys)")
    p.add_argument("connectors", nargs="*", help="connector configs (.properties or .json) to create or update")
    p.add_argument("--log-level", default="INFO", help="root log level (default INFO)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=args.log_level.upper(),
        format="[%(asctime)s] %(levelname)s %(message)s (%(name)s)",
    )
    from connect_worker.app import run  # the composition root, imported only when running

    try:
        props = load_properties(args.worker_properties)
        return asyncio.run(run(props, args.connectors))
    except FileNotFoundError as e:
        print(f"connect-worker: {e.strerror}: {e.filename}", file=sys.stderr)
        return 2
    except ConfigError as e:
        print(f"connect-worker: invalid configuration: {e}", file=sys.stderr)
        return 2
    except ConnectError as e:
        print(f"connect-worker: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
