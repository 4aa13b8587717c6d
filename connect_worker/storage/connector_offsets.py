"""One connector's offsets when it may have an offsets topic of its own (KIP-618's `offsets.storage.topic`, Connect's
ConnectorOffsetBackingStore).

Without one, every call goes to the worker's global offsets topic. With one:
- reads take the connector's own topic first and the global topic for partitions it does not hold (a connector
  moved to its own topic continues from the offsets it had);
- writes go to its own topic; once that succeeded, the same records go to the global topic as well, as a best
  effort (a failure there is logged), so that a connector moved back continues too. Exactly once, the offsets are
  written to its own topic inside the task's transaction; the global copy follows each commit, still best effort.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from connect_worker.storage.offsets import OffsetStore, StoredOffset

log = logging.getLogger(__name__)

Offsets = Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]]


class ConnectorOffsets:
    def __init__(self, global_store: OffsetStore, own: OffsetStore | None = None) -> None:
        self._global = global_store
        self._own = own

    @property
    def topic(self) -> str:
        """Where the connector's offsets are written (its own topic, or the worker's)."""
        return (self._own or self._global).topic

    # -- reading ------------------------------------------------------------------------------------
    def get(self, connector: str, partition: Mapping[str, Any]) -> dict[str, Any] | None:
        if self._own is not None:
            found = self._own.get(connector, partition)
            if found is not None:
                return found
        return self._global.get(connector, partition)

    def connector_offsets(self, connector: str) -> list[StoredOffset]:
        return [s for s in self._merged(connector) if s.offset is not None]

    def known_partitions(self, connector: str) -> list[dict[str, Any]]:
        return [s.partition for s in self._merged(connector)]

    def _merged(self, connector: str) -> list[StoredOffset]:
        merged = dict(self._global.stored(connector))
        if self._own is not None:
            merged.update(self._own.stored(connector))
        return list(merged.values())

    async def check_topics(self) -> None:
        """OffsetsTopicLost when its own topic or the worker's is gone or no longer compacted."""
        if self._own is not None:
            await self._own.check_topic()
        await self._global.check_topic()

    async def refresh(self, connector: str) -> None:
        await (self._own or self._global).refresh(connector)

    # -- writing ------------------------------------------------------------------------------------
    async def write(self, connector: str, offsets: Offsets) -> None:
        if self._own is None:
            await self._global.write(connector, offsets)
            return
        await self._own.write(connector, offsets)
        await self._copy_to_global(connector, offsets)

    def written(self, connector: str, offsets: Offsets, encoded: Sequence[tuple[bytes, bytes | None]]) -> None:
        """Records of `offsets` committed to `topic` in a transaction (exactly once)."""
        (self._own or self._global).written(connector, offsets, encoded)

    async def after_transaction(self, connector: str, offsets: Offsets) -> None:
        """A transaction holding `offsets` committed: the best-effort copy to the global topic."""
        if self._own is not None and offsets:
            await self._copy_to_global(connector, offsets)

    async def _copy_to_global(self, connector: str, offsets: Offsets) -> None:
        try:
            await self._global.write(connector, offsets)
        except Exception as e:  # noqa: BLE001 - the connector's own topic holds them: a best effort, as in Connect
            log.warning(
                "connector %s: offsets written to %s, but not copied to the worker's %s: %s",
                connector,
                self.topic,
                self._global.topic,
                e,
            )
