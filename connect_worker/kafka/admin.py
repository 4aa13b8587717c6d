"""Admin helpers: cluster id, topic existence, creation with configs, partition counts."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic

from connect_worker.api import ConfigError, RetriableError

log = logging.getLogger(__name__)


class TopicAdmin:
    def __init__(self, config: Mapping[str, Any]) -> None:
        self._admin = AdminClient(dict(config))
        self._cluster_id: str | None = None

    async def _metadata(self, topic: str | None = None, timeout: float = 10.0) -> Any:
        try:
            return await asyncio.to_thread(self._admin.list_topics, topic, timeout)
        except KafkaException as e:
            raise RetriableError(f"Kafka metadata request failed: {e}") from e

    async def cluster_id(self) -> str | None:
        """The cluster's id, asked once: a client stays with the cluster it bootstrapped into."""
        if self._cluster_id is None:
            md = await self._metadata()
            self._cluster_id = md.cluster_id
        return self._cluster_id

    async def partition_count(self, topic: str) -> int | None:
        md = await self._metadata(topic)
        t = md.topics.get(topic)
        if t is None or t.error is not None:
            return None
        return len(t.partitions)

    async def known_topics(self) -> set[str]:
        """Every topic the cluster's metadata names, also those with an error of the moment (no leader yet …).
        Asks for all topics: a request naming a topic makes a broker with auto.create.topics.enable create it."""
        md = await self._metadata()
        return set(md.topics)

    async def existing_topics(self) -> set[str]:
        md = await self._metadata()
        return {name for name, t in md.topics.items() if t.error is None}

    async def create_topic(
        self,
        name: str,
        *,
        partitions: int = -1,
        replication_factor: int = -1,
        configs: Mapping[str, str] | None = None,
    ) -> bool:
        """Create `name`; False when it already existed. -1 means the broker's default."""
        new = NewTopic(
            name,
            num_partitions=partitions,
            replication_factor=replication_factor,
            config=dict(configs or {}),
        )
        futures = self._admin.create_topics([new], request_timeout=30)
        try:
            await asyncio.wrap_future(futures[name])
        except KafkaException as e:
            err: KafkaError = e.args[0]
            if err.code() == KafkaError.TOPIC_ALREADY_EXISTS:
                return False
            if err.code() in (
                KafkaError.INVALID_REPLICATION_FACTOR,
                KafkaError.INVALID_PARTITIONS,
                KafkaError.INVALID_CONFIG,
                KafkaError.POLICY_VIOLATION,
            ):
                raise ConfigError(f"Cannot create topic {name}: {err.str()}") from e
            raise RetriableError(f"Cannot create topic {name}: {err.str()}") from e
        log.info(
            "created topic %s (partitions=%s, replication.factor=%s, %s)",
            name,
            partitions,
            replication_factor,
            dict(configs or {}),
        )
        return True

    async def topic_config(self, name: str, *, appear_within: float = 0.0) -> dict[str, str]:
        """The topic's configuration. `appear_within`: seconds to go on asking while the broker does not know the
        topic yet (one another worker has just created: its metadata reaches every broker a moment later)."""
        res = ConfigResource(ConfigResource.Type.TOPIC, name)
        deadline = asyncio.get_running_loop().time() + appear_within
        while True:
            futures = self._admin.describe_configs([res], request_timeout=30)
            try:
                entries = await asyncio.wrap_future(futures[res])
            except KafkaException as e:
                unknown = e.args[0].code() == KafkaError.UNKNOWN_TOPIC_OR_PART
                if not unknown or asyncio.get_running_loop().time() >= deadline:
                    raise
                await asyncio.sleep(0.2)
                continue
            return {k: v.value for k, v in entries.items()}
