"""Logging: connector/task context on every record (contextvars, Connect's MDC `connector.context`), text or
JSON lines, and redaction of config-provider secrets before anything is written.

The runtime enters `log_context(connector, task)` around what it runs for a connector or task; asyncio tasks
created inside inherit it (contextvars), so a connector's own log lines carry it without passing anything.
Text lines read `[time] LEVEL [connector|task-0] message (logger)`, as Connect's default
`connect-log4j.properties` with `%X{connector.context}`; JSON lines carry `connector` and `task` fields.
Levels can be changed at run time through /admin/loggers (runtime.loggers.LoggerAdmin).
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime
import json
import logging
import sys
from collections.abc import Callable, Iterator
from typing import Final, TextIO

from connect_worker.runtime.config_providers import SecretRedactor

TEXT_FORMAT: Final = "[%(asctime)s] %(levelname)s %(connector_context)s%(message)s (%(name)s)"

_connector: contextvars.ContextVar[str | None] = contextvars.ContextVar("connector", default=None)
_task: contextvars.ContextVar[int | None] = contextvars.ContextVar("task", default=None)


@contextlib.contextmanager
def log_context(connector: str | None, task: int | None = None) -> Iterator[None]:
    """Log records made inside (and in asyncio tasks created inside) name this connector and task."""
    t1 = _connector.set(connector)
    t2 = _task.set(task)
    try:
        yield
    finally:
        _task.reset(t2)
        _connector.reset(t1)


def context_for(connector: str, task: int | None = None) -> contextvars.Context:
    """A copy of the current context naming this connector/task, for `loop.create_task(..., context=…)`."""
    ctx = contextvars.copy_context()
    ctx.run(_connector.set, connector)
    ctx.run(_task.set, task)
    return ctx


def current() -> tuple[str | None, int | None]:
    return _connector.get(), _task.get()


def connector_context(connector: str | None, task: int | None) -> str:
    """Connect's MDC value: `[name|task-0] ` for a task, `[name|worker] ` for the connector, else empty."""
    if connector is None:
        return ""
    return f"[{connector}|{'worker' if task is None else f'task-{task}'}] "


class ContextFilter(logging.Filter):
    """Adds `connector`, `task` and `connector_context` to every record (attach it to handlers)."""

    def filter(self, record: logging.LogRecord) -> bool:
        connector, task = _connector.get(), _task.get()
        if not hasattr(record, "connector"):
            record.connector = connector
            record.task = task
        record.connector_context = connector_context(getattr(record, "connector", None), getattr(record, "task", None))
        return True


class RedactingFilter(logging.Filter):
    """Replaces every known secret in a record's message and traceback by the placeholder it came from."""

    def __init__(self, redactor: SecretRedactor) -> None:
        super().__init__()
        self.redactor = redactor

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.redactor:
            return True
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a bad format string is the handler's problem, not ours
            return True
        redacted = self.redactor.redact(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redactor.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redactor.redact(record.stack_info)
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, connector, task, thread, exception."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, object] = {
            "time": datetime.datetime.fromtimestamp(record.created, datetime.UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        connector = getattr(record, "connector", None)
        if connector is not None:
            out["connector"] = connector
            task = getattr(record, "task", None)
            if task is not None:
                out["task"] = task
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            out["exception"] = record.exc_text
        if record.stack_info:
            out["stack"] = record.stack_info
        return json.dumps(out, ensure_ascii=False)


def configure_logging(
    level: str = "INFO", fmt: str = "text", stream: TextIO | None = None, redactor: SecretRedactor | None = None
) -> logging.Handler:
    """The CLI's logging: one stream handler on the root logger with context (and redaction) filters."""
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.addFilter(ContextFilter())
    if redactor is not None:
        handler.addFilter(RedactingFilter(redactor))
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    elif fmt == "text":
        handler.setFormatter(logging.Formatter(TEXT_FORMAT))
    else:
        raise ValueError(f"unknown log format {fmt!r} (text or json)")
    root = logging.getLogger()
    for h in list(root.handlers):
        root.removeHandler(h)
    root.addHandler(handler)
    root.setLevel(level.upper())
    return handler


def install_redaction(redactor: SecretRedactor) -> Callable[[], None]:
    """Adds a redacting filter to every handler of the root logger now; returns what removes them again."""
    filt = RedactingFilter(redactor)
    handlers = [h for h in logging.getLogger().handlers if not any(isinstance(f, RedactingFilter) for f in h.filters)]
    for h in handlers:
        h.addFilter(filt)

    def uninstall() -> None:
        for h in handlers:
            h.removeFilter(filt)

    return uninstall
