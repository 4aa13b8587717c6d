"""Signals (Debezium 3.6's ``SignalProcessor`` and its standard actions), shared by every connector.

A signal is ``{id, type, data}``; ``data`` is a JSON object as text. It arrives on a channel
(signal_channels.py): ``source`` (a row inserted into the signal table, seen in the stream and processed right
there, before the row's own change event, so that event's offset holds what the signal changed), ``kafka``,
``file``, and the worker's REST endpoint (``jmx``: Debezium's JMX operation has no Python meaning), polled every
``signal.poll.interval.ms`` and processed between two stream batches.

Actions: ``log``, ``execute-snapshot`` (incremental, blocking), ``stop-snapshot``, ``pause-snapshot``,
``resume-snapshot`` and the watermarks ``snapshot-window-open`` / ``snapshot-window-close``. As in Debezium, a
signal of an unknown type, with data that is not a JSON object, or whose action fails is logged with its id
and dropped; nothing else changes and the task keeps streaming. Each outcome is counted (``counts``).
"""

from __future__ import annotations

import collections
import dataclasses
import json
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from connect_worker.api import RetriableError
from connect_worker.api.javacompat import java_hashmap_order, java_map_text
from connectors.relational.incremental_snapshot import IncrementalSnapshot

log = logging.getLogger(__name__)

EXECUTE_SNAPSHOT = "execute-snapshot"
STOP_SNAPSHOT = "stop-snapshot"
PAUSE_SNAPSHOT = "pause-snapshot"
RESUME_SNAPSHOT = "resume-snapshot"
LOG = "log"
WINDOW_OPEN = "snapshot-window-open"
WINDOW_CLOSE = "snapshot-window-close"
ACTIONS = frozenset({EXECUTE_SNAPSHOT, STOP_SNAPSHOT, PAUSE_SNAPSHOT, RESUME_SNAPSHOT, LOG, WINDOW_OPEN, WINDOW_CLOSE})


@dataclasses.dataclass(frozen=True, slots=True)
class SignalRecord:
    id: str | None
    type: str | None
    data: str | None
    additional: Mapping[str, Any] = dataclasses.field(default_factory=dict)


def signal_from_row(values: Sequence[Any] | None, *, deleted: bool = False) -> SignalRecord | None:
    """A signal-table row (three columns by position: id, type, data) as a signal. The DELETE of an open
    watermark (``insert_delete``) closes its window: ``<chunk>-open`` becomes ``<chunk>-close``."""
    if values is None:
        return None
    if len(values) != 3:
        log.warning("The signal event '%s' should have 3 fields but has %d", list(values), len(values))
        return None
    signal_id, kind, data = (None if v is None else str(v) for v in values)
    if deleted:
        return SignalRecord(None if signal_id is None else signal_id.replace("open", "close"), WINDOW_CLOSE, data)
    return SignalRecord(signal_id, kind, data)


BlockingSnapshot = Callable[[Sequence[str], Sequence[tuple[str, str]]], Awaitable[None]]


class SignalProcessor:
    def __init__(
        self,
        *,
        incremental: IncrementalSnapshot | None,
        blocking: BlockingSnapshot | None,
        current_offset: Callable[[], Mapping[str, Any] | None],
    ) -> None:
        self._incremental = incremental
        self._blocking = blocking
        self._offset = current_offset
        #: processed, unknown (type), malformed (data), failed (action raised or refused), per outcome
        self.counts: collections.Counter[str] = collections.Counter()

    async def process(self, signal: SignalRecord) -> bool:
        """Run the signal's action; False when it was dropped (logged and counted)."""
        log.debug("Received signal id = '%s', type = '%s', data = '%s'", signal.id, signal.type, signal.data)
        if signal.type not in ACTIONS:
            log.warning("Signal '%s' has been received but the type '%s' is not recognized", signal.id, signal.type)
            self.counts["unknown"] += 1
            return False
        try:
            data = _document(signal.data)
        except ValueError as e:
            log.warning(
                "Signal '%s' has been received but the data '%s' cannot be parsed: %s", signal.id, signal.data, e
            )
            self.counts["malformed"] += 1
            return False
        try:
            done = await self._run(signal, data)
        except RetriableError:
            raise  # the connection is gone: the task restarts and resumes from its offsets
        except Exception as e:
            log.warning("Action %s failed. The signal %s may not have been processed.", signal.type, signal, exc_info=e)
            self.counts["failed"] += 1
            return False
        self.counts["processed" if done else "failed"] += 1
        return done

    async def _run(self, signal: SignalRecord, data: dict[str, Any]) -> bool:
        kind = signal.type
        if kind == LOG:
            return self._log(signal, data)
        incremental = self._incremental
        if kind == EXECUTE_SNAPSHOT:
            return await self._execute(signal, data)
        if incremental is None:
            raise RuntimeError(
                "Incremental snapshot is not properly configured, either sinalling data collection is not provided "
                "or connector-specific snapshotting not set"
            )
        if kind == WINDOW_OPEN:
            await incremental.open_window(signal.id or "")
        elif kind == WINDOW_CLOSE:
            await incremental.close_window(signal.id or "")
        elif kind == PAUSE_SNAPSHOT:
            await incremental.pause()
        elif kind == RESUME_SNAPSHOT:
            await incremental.resume()
        elif kind == STOP_SNAPSHOT:
            valid, collections_ = _collections(data, required=False)
            if not valid:
                return False
            snapshot_type = _snapshot_type(data)
            log.info("Requested stop of snapshot '%s' for data collections '%s'", snapshot_type, collections_)
            if snapshot_type == "INCREMENTAL":
                incremental.request_stop(collections_ or None)
            elif snapshot_type is None:
                raise ValueError("unexpected snapshot type")
        return True

    def _log(self, signal: SignalRecord, data: Mapping[str, Any]) -> bool:
        message = data.get("message")
        if not isinstance(message, str) or not message:
            log.warning(
                "Logging signal '%s' has arrived but the requested field 'message' is missing from data", signal
            )
            return False
        offset = self._offset()
        # the offset as Debezium prints its HashMap
        text = java_map_text(java_hashmap_order(dict(offset))) if offset is not None else "<none>"
        log.info("%s", message.replace("{}", text, 1))
        return True

    async def _execute(self, signal: SignalRecord, data: Mapping[str, Any]) -> bool:
        valid, names = _collections(data, required=True)
        if not valid or names is None:
            return False
        snapshot_type = _snapshot_type(data)
        conditions = [
            (str(c.get("data-collection")), str(c.get("filter")))
            for c in (data.get("additional-conditions") or [])
            if isinstance(c, Mapping)
        ]
        surrogate = data.get("surrogate-key")
        surrogate_key = surrogate.strip() if isinstance(surrogate, str) and surrogate.strip() else ""
        log.info(
            "Requested '%s' snapshot of data collections '%s' with additional conditions '%s' and surrogate key '%s'",
            snapshot_type,
            names,
            conditions,
            surrogate_key or "PK of table will be used",
        )
        if snapshot_type == "INCREMENTAL":
            if self._incremental is None:
                raise RuntimeError(
                    "Incremental snapshot is not properly configured, either sinalling data collection is not "
                    "provided or connector-specific snapshotting not set"
                )
            await self._incremental.add(signal.id, names, conditions, surrogate_key)
        elif snapshot_type == "BLOCKING":
            if self._blocking is None:
                raise RuntimeError("Blocking snapshots are not supported by this connector")
            await self._blocking(names, conditions)
        else:
            raise ValueError("unexpected snapshot type")
        return True


def _document(text: str | None) -> dict[str, Any]:
    if text is None or text == "":
        return {}
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError("not a JSON object")
    return value


def _collections(data: Mapping[str, Any], *, required: bool) -> tuple[bool, list[str] | None]:
    """Whether ``data-collections`` is valid, and its strings (trimmed; None when absent or empty)."""
    items = data.get("data-collections")
    if not items:
        if required:
            log.warning(
                "Execute snapshot signal '%s' has arrived but the requested field 'data-collections' is missing from "
                "data or is empty",
                data,
            )
            return False, None
        return True, None
    if not isinstance(items, list) or any(not isinstance(v, str) for v in items):
        log.warning(
            "Snapshot signal '%s' has arrived but the requested field 'data-collections' contains a non-string data "
            "collection",
            data,
        )
        return False, None
    return True, [v.strip() for v in items]


def _snapshot_type(data: Mapping[str, Any]) -> str | None:
    """INCREMENTAL (the default) or BLOCKING, case-insensitive; None (logged) for anything else."""
    value = data.get("type")
    text = "INCREMENTAL" if value is None else str(value)
    if text.upper() in ("INCREMENTAL", "BLOCKING"):
        return text.upper()
    log.warning("Detected an unexpected snapshot type '%s'. Signal will be skipped.", text)
    return None
