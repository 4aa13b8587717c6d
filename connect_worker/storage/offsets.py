"""Source offsets in the Kafka offsets topic, in Kafka Connect's format.

Key `["<connector>",{source partition}]` (byte-identical to Java's, see internal_json), value the offset map
as compact JSON, or a tombstone when the partition's offset was reset. At start the whole topic is read to
its end; the last record per key wins. Lookups go by the exact key bytes, as Connect's reader does, so a
Java worker and this one find each other's offsets.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from connect_worker.api import ConfigError, ConnectError, DataError, RetriableError
from connect_worker.api.javacompat import java_hashmap_order
from connect_worker.kafka.admin import TopicAdmin
from connect_worker.kafka.producer import AsyncProducer
from connect_worker.kafka.reader import TopicRecord, read_to_end
from connect_worker.kafka.tail import TopicFollower
from connect_worker.storage import internal_json

log = logging.getLogger(__name__)

_PRIMITIVES = (str, int, float, bool, bytes, type(None))


def validate_offset_map(kind: str, m: Mapping[str, Any] | None) -> None:
    """Partition and offset maps hold string keys and primitive values only (Connect's OffsetUtils)."""
    if m is None:
        return
    for k, v in m.items():
        if not isinstance(k, str):
            raise DataError(f"{kind} keys must be strings, but {k!r} is {type(k).__name__}")
        if not isinstance(v, _PRIMITIVES):
            t = "ARRAY" if isinstance(v, list | tuple) else "MAP" if isinstance(v, Mapping) else type(v).__name__
            raise DataError(f"Offsets may only contain primitive types as values, but field {k} contains {t}")


@dataclasses.dataclass(frozen=True, slots=True)
class StoredOffset:
    partition: dict[str, Any]
    offset: dict[str, Any] | None


async def ensure_compacted_topic(
    admin: TopicAdmin, topic: str, *, partitions: int, replication_factor: int, purpose: str
) -> None:
    """Create `topic` compacted if missing; refuse a topic that exists without compaction (as Connect does)."""
    created = await admin.create_topic(
        topic,
        partitions=partitions,
        replication_factor=replication_factor,
        configs={"cleanup.policy": "compact"},
    )
    if created:
        return
    # created a moment ago by another worker starting beside this one: the broker may not know it yet
    policy = (await admin.topic_config(topic, appear_within=10.0)).get("cleanup.policy", "")
    if "compact" not in policy.split(","):
        raise ConfigError(
            f"Topic '{topic}' supplied via the '{purpose}' property is required to have "
            f"'cleanup.policy=compact' to guarantee consistency and durability of source connector offsets, "
            f"but found the topic currently has 'cleanup.policy={policy}'. Continuing would likely result in "
            f"eventually losing source connector offsets and problems restarting this Connect cluster in the "
            f"future. Change the '{purpose}' property in the Connect worker configurations to use a topic with "
            f"'cleanup.policy=compact'.",
            name=purpose,
        )


class OffsetsTopicLost(ConnectError):
    """The offsets topic vanished under the running worker, or came back without compaction (re-created by a
    producer's metadata request after a deletion): offsets can no longer be kept."""


class OffsetStore:
    """Every connector's committed offsets, mirrored in memory and written through to Kafka."""

    def __init__(
        self,
        *,
        topic: str,
        producer: AsyncProducer,
        admin: TopicAdmin,
        consumer_config: Mapping[str, Any],
        partitions: int = 25,
        replication_factor: int = -1,
    ) -> None:
        self.topic = topic
        self._producer = producer
        self._admin = admin
        self._consumer_config = dict(consumer_config)
        self._partitions = partitions
        self._rf = replication_factor
        # connector -> key bytes -> StoredOffset (offset None = reset but partition known)
        self._data: dict[str, dict[bytes, StoredOffset]] = {}
        self._written_here: set[bytes] = set()  # keys this worker wrote since it started
        self._follower = TopicFollower(consumer_config, topic)

    async def check_topic(self) -> None:
        """Raise OffsetsTopicLost when the topic is gone or no longer compacted. Asks for every topic's metadata:
        a request naming the topic would make a broker with auto.create.topics.enable create it again."""
        if self.topic not in await self._admin.known_topics():
            raise OffsetsTopicLost(_lost(self.topic, "does not exist any more (deleted while the worker ran?)"))
        policy = (await self._admin.topic_config(self.topic)).get("cleanup.policy", "")
        if "compact" not in policy.split(","):
            raise OffsetsTopicLost(
                _lost(self.topic, f"has cleanup.policy={policy} (deleted and created again by a producer?)")
            )

    def sibling(self, topic: str) -> OffsetStore:
        """A store on another offsets topic with this one's clients and topic settings (a connector's own
        `offsets.storage.topic`, created with the worker's offset.storage.partitions and replication factor)."""
        return OffsetStore(
            topic=topic,
            producer=self._producer,
            admin=self._admin,
            consumer_config=self._consumer_config,
            partitions=self._partitions,
            replication_factor=self._rf,
        )

    async def start(self) -> None:
        await ensure_compacted_topic(
            self._admin,
            self.topic,
            partitions=self._partitions,
            replication_factor=self._rf,
            purpose="offset.storage.topic",
        )
        records = await read_to_end(self._consumer_config, self.topic)
        self._read(records)
        log.info("read %d records from offsets topic %s (%d connectors)", len(records), self.topic, len(self._data))

    def _read(self, records: Sequence[TopicRecord]) -> None:
        self._follower.advance(records)
        for r in records:
            self._apply(r.key, r.value)

    async def follow(self) -> None:
        """Keep reading the topic after start() (distributed mode: other workers' tasks commit offsets too, and
        a task that moves here must start from its predecessor's last commit)."""
        await self._follower.follow(self._read)

    async def read_to_end(self) -> None:
        """When followed: wait until every offset committed to the topic so far is known here."""
        await self._follower.read_to_end()

    async def stop(self) -> None:
        await self._follower.stop()

    def _apply(self, key: bytes | None, value: bytes | None) -> None:
        parsed = self._parse(key, value)
        if parsed is not None:
            self._data.setdefault(parsed[0], {})[parsed[1]] = parsed[2]

    def _parse(self, key: bytes | None, value: bytes | None) -> tuple[str, bytes, StoredOffset] | None:
        """(connector, key, stored offset) of one record of the topic; None (logged) for a malformed one."""
        if key is None:
            log.warning("ignoring a record without key in offsets topic %s", self.topic)
            return None
        try:
            parsed = internal_json.loads(key)
            if not (
                isinstance(parsed, list)
                and len(parsed) == 2
                and isinstance(parsed[0], str)
                and isinstance(parsed[1], dict)
            ):
                raise DataError("not a [connector, partition] pair")
            offset = None if value is None else internal_json.loads(value)
            if offset is not None and not isinstance(offset, dict):
                raise DataError("offset is not a map")
        except (ValueError, DataError) as e:
            log.warning("ignoring a malformed record in offsets topic %s: %s (key %r)", self.topic, e, key[:200])
            return None
        return parsed[0], key, StoredOffset(parsed[1], offset)

    # -- reading ------------------------------------------------------------------------------------
    def get(self, connector: str, partition: Mapping[str, Any]) -> dict[str, Any] | None:
        stored = self._data.get(connector, {}).get(internal_json.offset_key(connector, partition))
        return None if stored is None or stored.offset is None else dict(stored.offset)

    def stored(self, connector: str) -> dict[bytes, StoredOffset]:
        """The connector's records by key (offset None: reset)."""
        return dict(self._data.get(connector, {}))

    def connector_offsets(self, connector: str) -> list[StoredOffset]:
        """Every partition known for the connector whose offset is set."""
        return [s for s in self._data.get(connector, {}).values() if s.offset is not None]

    def known_partitions(self, connector: str) -> list[dict[str, Any]]:
        return [s.partition for s in self._data.get(connector, {}).values()]

    async def refresh(self, connector: str) -> None:
        """Read the topic to its end again and take `connector`'s committed offsets from it: what a transaction
        that was still open when the worker started (a zombie's, committed or aborted since) left behind. An
        exactly-once task calls it after fencing its predecessor and before it reads its offsets. A followed store
        (distributed mode) has every record applied in topic order: reading to the end is enough, and keys this
        worker wrote before get the newer values other workers committed since."""
        if self._follower.following:
            await self._follower.read_to_end()
            return
        records = await read_to_end(self._consumer_config, self.topic)
        fresh: dict[bytes, StoredOffset] = {}
        for r in records:
            parsed = self._parse(r.key, r.value)
            if parsed is not None and parsed[0] == connector:
                fresh[parsed[1]] = parsed[2]
        # laid over what is known: the read ends at the last stable offset, so a key this worker wrote since it
        # started (another task of the connector committing meanwhile) keeps its newer value, and a key the read
        # did not reach keeps its own
        known = self._data.setdefault(connector, {})
        known.update({k: v for k, v in fresh.items() if k not in self._written_here})

    # -- writing ------------------------------------------------------------------------------------
    @staticmethod
    def encode(
        connector: str, offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]]
    ) -> list[tuple[bytes, bytes | None]]:
        """The offsets topic's (key, value) records of (partition, offset-or-None) pairs, byte-identical to
        Connect's; raises DataError for maps Connect refuses."""
        encoded: list[tuple[bytes, bytes | None]] = []
        for partition, offset in offsets:
            validate_offset_map("Partition", partition)
            validate_offset_map("Offset", offset)
            key = internal_json.offset_key(connector, partition)
            # Debezium's offsets are Java HashMaps: write them in HashMap order, byte-identical to Connect's
            value = None if offset is None else internal_json.dumps(java_hashmap_order(offset))
            encoded.append((key, value))
        return encoded

    def written(
        self,
        connector: str,
        offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]],
        encoded: Sequence[tuple[bytes, bytes | None]],
    ) -> None:
        """Take records Kafka holds now (`encode`d from `offsets`, written by this store or in a task's
        transaction that committed) into the in-memory view."""
        for (key, value), (partition, _) in zip(encoded, offsets, strict=True):
            self._apply(key, value)
            self._written_here.add(key)
            # keep the caller's partition map (its order) for GET /offsets
            stored = self._data[connector][key]
            self._data[connector][key] = StoredOffset(dict(partition), stored.offset)

    async def write(
        self, connector: str, offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]]
    ) -> None:
        """Write (partition, offset-or-None) pairs and wait until Kafka acknowledged all of them."""
        if not offsets:
            return
        encoded = self.encode(connector, offsets)
        pending = [await self._producer.send(self.topic, k, v, what="offsets write") for k, v in encoded]
        self._producer.poll()
        results = await asyncio.gather(*pending, return_exceptions=True)
        failures = [r for r in results if isinstance(r, BaseException)]
        if failures:
            raise RetriableError(f"Failed to write offsets to {self.topic}: {failures[0]}")
        self.written(connector, offsets, encoded)


def _lost(topic: str, what: str) -> str:
    return (
        f"The offsets topic '{topic}' {what}: offsets can no longer be committed, and the task stops. What was "
        "sent since the last committed offsets is sent again after a restart. Restore the topic (compacted, with "
        "its records) before restarting: on an empty offsets topic every connector using it starts over."
    )


class OffsetLookup(Protocol):
    def get(self, connector: str, partition: Mapping[str, Any]) -> dict[str, Any] | None: ...


class ConnectorOffsetReader:
    """The OffsetStorageReader a connector's tasks get: lookups within one connector's namespace."""

    def __init__(self, store: OffsetLookup, connector: str) -> None:
        self._store = store
        self._connector = connector

    def offset(self, partition: Mapping[str, Any]) -> dict[str, Any] | None:
        return self._store.get(self._connector, partition)

    def offsets(self, partitions: Sequence[Mapping[str, Any]]) -> dict[Any, dict[str, Any] | None]:
        return {internal_json.dumps(dict(p)): self._store.get(self._connector, p) for p in partitions}
