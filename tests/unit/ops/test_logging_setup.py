"""Log records carry connector/task context (contextvars), render as text or JSON, and never hold a secret."""

from __future__ import annotations

import asyncio
import io
import json
import logging

from connect_worker.runtime.config_providers import SecretRedactor
from connect_worker.runtime.logging_setup import (
    ContextFilter,
    JsonFormatter,
    RedactingFilter,
    configure_logging,
    context_for,
    install_redaction,
    log_context,
)


def _handler(fmt: logging.Formatter, redactor: SecretRedactor | None = None) -> tuple[logging.Handler, io.StringIO]:
    out = io.StringIO()
    h = logging.StreamHandler(out)
    h.addFilter(ContextFilter())
    if redactor is not None:
        h.addFilter(RedactingFilter(redactor))
    h.setFormatter(fmt)
    return h, out


async def test_context_reaches_asyncio_tasks_and_lines() -> None:
    log = logging.getLogger("tests.ops.ctx")
    log.propagate = False
    h, out = _handler(logging.Formatter("%(connector_context)s%(message)s"))
    log.addHandler(h)
    log.setLevel(logging.INFO)
    try:
        log.info("outside")
        with log_context("fs"):
            log.info("connector")
        await asyncio.get_running_loop().create_task(_log(log, "task line"), context=context_for("fs", 0))
        log.info("after")
    finally:
        log.removeHandler(h)
    assert out.getvalue().splitlines() == ["outside", "[fs|worker] connector", "[fs|task-0] task line", "after"]


async def _log(log: logging.Logger, text: str) -> None:
    await asyncio.sleep(0)
    log.info(text)


def test_json_lines_and_redaction() -> None:
    redactor = SecretRedactor()
    redactor.add("hunter2-secret", "${file:/s:pw}")
    log = logging.getLogger("tests.ops.json")
    log.propagate = False
    h, out = _handler(JsonFormatter(), redactor)
    log.addHandler(h)
    try:
        with log_context("pg", 1):
            log.warning("password %s rejected", "hunter2-secret")
            try:
                raise ValueError("bad hunter2-secret")
            except ValueError:
                log.exception("failed")
    finally:
        log.removeHandler(h)
    first, second = (json.loads(line) for line in out.getvalue().splitlines())
    assert first["message"] == "password ${file:/s:pw} rejected"
    assert (first["connector"], first["task"], first["level"], first["logger"]) == (
        "pg",
        1,
        "WARNING",
        "tests.ops.json",
    )
    assert "hunter2-secret" not in out.getvalue()
    assert "ValueError: bad ${file:/s:pw}" in second["exception"]


def test_configure_logging_and_install_redaction() -> None:
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    out = io.StringIO()
    try:
        configure_logging("DEBUG", "text", stream=out)
        redactor = SecretRedactor()
        redactor.add("topsecret-1", "${env:X}")
        uninstall = install_redaction(redactor)
        logging.getLogger("tests.ops.root").debug("value topsecret-1")
        uninstall()
        logging.getLogger("tests.ops.root").debug("value topsecret-1")
    finally:
        for h in list(root.handlers):
            root.removeHandler(h)
        for h in saved[0]:
            root.addHandler(h)
        root.setLevel(saved[1])
    first, second = out.getvalue().splitlines()
    assert first.endswith("DEBUG value ${env:X} (tests.ops.root)")
    assert second.endswith("DEBUG value topsecret-1 (tests.ops.root)")  # uninstalled: no longer filtered
