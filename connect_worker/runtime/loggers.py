"""Log levels at run time (/admin/loggers), in Connect's level words over Python's logging."""

from __future__ import annotations

import logging
import time

from connect_worker.api import BadRequestError, NotFoundError
from connect_worker.runtime.herder import LoggerLevel

# Connect's (log4j) level words <-> Python levels.
_TO_PY = {"TRACE": 5, "DEBUG": 10, "INFO": 20, "WARN": 30, "ERROR": 40, "FATAL": 50, "OFF": 100, "ALL": 1}
_FROM_PY = {5: "TRACE", 10: "DEBUG", 20: "INFO", 30: "WARN", 40: "ERROR", 50: "FATAL", 100: "OFF", 1: "ALL"}

ROOT = "root"


def level_word(level: int) -> str:
    return _FROM_PY.get(level) or logging.getLevelName(level)


class LoggerAdmin:
    def __init__(self) -> None:
        self._modified: dict[str, int] = {}

    def _names(self) -> list[str]:
        manager = logging.root.manager
        return sorted(n for n, lg in manager.loggerDict.items() if isinstance(lg, logging.Logger))

    def _level(self, name: str) -> LoggerLevel:
        lg = logging.getLogger() if name == ROOT else logging.getLogger(name)
        return LoggerLevel(level_word(lg.getEffectiveLevel()), self._modified.get(name))

    def all(self) -> dict[str, LoggerLevel]:
        out = {ROOT: self._level(ROOT)}
        for n in self._names():
            out[n] = self._level(n)
        return out

    def get(self, name: str) -> LoggerLevel:
        if name != ROOT and name not in self._names():
            raise NotFoundError(f"Logger {name} not found.")
        return self._level(name)

    def set(self, name: str, level: str | None) -> list[str]:
        if level is None:
            raise BadRequestError("Desired 'level' parameter was not specified in request.")
        word = level.upper()
        if word not in _TO_PY:
            raise NotFoundError(f"invalid log level '{level}'.")
        py = _TO_PY[word]
        targets = (
            [ROOT, *self._names()] if name == ROOT else [name] + [n for n in self._names() if n.startswith(name + ".")]
        )
        changed: list[str] = []
        now = int(time.time() * 1000)
        for n in targets:
            lg = logging.getLogger() if n == ROOT else logging.getLogger(n)
            if lg.getEffectiveLevel() != py or (n == name and lg.level != py):
                lg.setLevel(py)
                self._modified[n] = now
                changed.append(n)
        return sorted(changed)
