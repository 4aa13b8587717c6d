"""The `connect-worker` command line.

    connect-worker [worker.properties] [connector.properties|connector.json ...]
    connect-worker --health-check [worker.properties]

Worker settings come from the worker.properties file and from `CONNECT_*` environment variables, which
override the file (connect_worker.runtime.env_config: `CONNECT_BOOTSTRAP_SERVERS` → `bootstrap.servers`); with
no file, the environment alone configures the worker (the container image's way). `--no-env` ignores the
environment. `LOG_LEVEL` and `LOG_FORMAT` (text or json) are the defaults of `--log-level` / `--log-format`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import ssl
import sys
import urllib.error
import urllib.request
from collections.abc import Mapping

from connect_worker.api import ConfigError, ConnectError
from connect_worker.runtime.env_config import merge_worker_properties
from connect_worker.runtime.logging_setup import configure_logging
from connect_worker.runtime.properties import load_properties

DEFAULT_LISTENER = "http://127.0.0.1:8083"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="connect-worker",
        description="A Kafka Connect-compatible standalone worker; offsets, configs and statuses live in Kafka. "
        "Settings come from worker.properties and CONNECT_* environment variables (which win).",
    )
    p.add_argument(
        "worker_properties",
        nargs="?",
        help="worker configuration (Kafka Connect worker.properties keys); optional when CONNECT_* variables "
        "configure the worker",
    )
    p.add_argument("connectors", nargs="*", help="connector configs (.properties or .json) to create or update")
    p.add_argument(
        "--log-level", default=os.environ.get("LOG_LEVEL", "INFO"), help="root log level (default INFO, $LOG_LEVEL)"
    )
    p.add_argument(
        "--log-format",
        choices=("text", "json"),
        default=os.environ.get("LOG_FORMAT", "text").lower(),
        help="text lines or one JSON object per line (default text, $LOG_FORMAT)",
    )
    p.add_argument("--no-env", action="store_true", help="ignore CONNECT_* environment variables")
    p.add_argument(
        "--distributed",
        action="store_true",
        help="join the Connect cluster group.id (as connect-distributed does) instead of running every connector",
    )
    p.add_argument(
        "--health-check",
        action="store_true",
        help="ask the worker's first REST listener for GET /health and exit 0 when healthy (container check)",
    )
    return p


def _worker_properties(path: str | None, environ: Mapping[str, str]) -> dict[str, str]:
    file_props = load_properties(path) if path else None
    return merge_worker_properties(file_props, environ)


def health_check(props: Mapping[str, str], timeout: float = 5.0) -> int:
    """GET /health on the first listener (a wildcard host is asked on loopback); 0 when it answers 200."""
    from connect_worker.runtime.worker_config import parse_listener

    first = (props.get("listeners") or DEFAULT_LISTENER).split(",")[0]
    listener = parse_listener(first)
    host = listener.host if listener.host not in ("", "0.0.0.0", "::") else "127.0.0.1"
    host = f"[{host}]" if ":" in host else host
    url = f"{listener.scheme}://{host}:{listener.port}/health"
    # the worker checks itself over loopback: its certificate need not name 127.0.0.1
    context = ssl._create_unverified_context() if listener.scheme == "https" else None
    try:
        with urllib.request.urlopen(url, timeout=timeout, context=context) as response:
            return 0 if response.status == 200 else 1
    except urllib.error.HTTPError as e:
        print(f"connect-worker: {url} answered {e.code}", file=sys.stderr)
    except (urllib.error.URLError, OSError) as e:
        print(f"connect-worker: {url}: {getattr(e, 'reason', e)}", file=sys.stderr)
    return 1


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    environ: Mapping[str, str] = {} if args.no_env else os.environ
    try:
        configure_logging(args.log_level, args.log_format)
    except ValueError as e:
        print(f"connect-worker: {e}", file=sys.stderr)
        return 2
    from connect_worker.app import run  # the composition root, imported only when running

    try:
        props = _worker_properties(args.worker_properties, environ)
        if args.health_check:
            return health_check(props)
        if not args.worker_properties and not props:
            print(
                "connect-worker: no configuration: give a worker.properties file or set CONNECT_* variables "
                "(e.g. CONNECT_BOOTSTRAP_SERVERS=kafka:9092)",
                file=sys.stderr,
            )
            return 2
        return asyncio.run(run(props, args.connectors, distributed=args.distributed))
    except FileNotFoundError as e:
        print(f"connect-worker: {e.strerror}: {e.filename}", file=sys.stderr)
        return 2
    except ConfigError as e:
        print(f"connect-worker: invalid configuration: {e}", file=sys.stderr)
        return 2
    except ConnectError as e:
        print(f"connect-worker: {e}", file=sys.stderr)
        return 1
    except OSError as e:  # a REST port in use, a file that cannot be read
        print(f"connect-worker: {e.strerror or e}: {getattr(e, 'filename', None) or ''}".rstrip(": "), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
