"""Topic auto-creation for source connectors (KIP-158): topic.creation.* groups decide how a topic a task
writes to is created when it does not exist yet."""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Mapping

from connect_worker.api import ConfigError
from connect_worker.api.java_regex import JavaRegexError, java_regex
from connect_worker.kafka.admin import TopicAdmin

log = logging.getLogger(__name__)

_GROUP_KEYS = {"include", "exclude", "replication.factor", "partitions"}


@dataclasses.dataclass(frozen=True, slots=True)
class TopicCreationGroup:
    name: str
    include: tuple[re.Pattern[str], ...]
    exclude: tuple[re.Pattern[str], ...]
    partitions: int
    replication_factor: int
    configs: Mapping[str, str]

    def matches(self, topic: str) -> bool:
        return any(p.fullmatch(topic) for p in self.include) and not any(p.fullmatch(topic) for p in self.exclude)


def _patterns(value: str | None) -> tuple[re.Pattern[str], ...]:
    if not value:
        return ()
    try:  # Kafka's LIST splitting, then java.util.regex.Pattern per entry
        return tuple(java_regex(x.strip()) for x in value.split(",") if x.strip())
    except JavaRegexError as e:
        raise ConfigError(f"Invalid regular expression in topic creation settings: {e}") from e


def parse_groups(config: Mapping[str, str]) -> list[TopicCreationGroup] | None:
    """The groups in match order (declared groups, then `default`), or None when creation is not configured."""
    prefix = "topic.creation.default."
    if prefix + "replication.factor" not in config or prefix + "partitions" not in config:
        return None

    def group(name: str, *, default: TopicCreationGroup | None) -> TopicCreationGroup:
        p = f"topic.creation.{name}."
        sub = {k[len(p) :]: v for k, v in config.items() if k.startswith(p)}
        try:
            partitions = int(sub.get("partitions", default.partitions if default else -1))
            rf = int(sub.get("replication.factor", default.replication_factor if default else -1))
        except ValueError as e:
            raise ConfigError(f"Invalid topic creation setting for group {name}: {e}") from e
        if partitions == 0 or partitions < -1 or rf == 0 or rf < -1:
            raise ConfigError(f"Topic creation group {name}: partitions and replication.factor must be -1 or >= 1")
        configs = {k: v for k, v in sub.items() if k not in _GROUP_KEYS}
        if default is not None:
            configs = {**default.configs, **configs}
        include = _patterns(sub.get("include")) if name != "default" else (java_regex(".*"),)
        return TopicCreationGroup(name, include, _patterns(sub.get("exclude")), partitions, rf, configs)

    default = group("default", default=None)
    names = [g.strip() for g in config.get("topic.creation.groups", "").split(",") if g.strip()]
    return [*(group(n, default=default) for n in names if n != "default"), default]


class TopicCreator:
    """Creates the topics a task writes to, once each, per its connector's groups."""

    def __init__(self, admin: TopicAdmin, groups: list[TopicCreationGroup] | None) -> None:
        self._admin = admin
        self._groups = groups
        self._existing: set[str] | None = None

    async def ensure(self, topic: str) -> None:
        if self._groups is None:
            return  # not configured: the broker's auto-creation (if enabled) applies
        if self._existing is None:
            self._existing = await self._admin.existing_topics()
        if topic in self._existing:
            return
        group = next((g for g in self._groups if g.matches(topic)), None)
        if group is None:
            log.info("topic %s matches no topic creation group; leaving it to the broker", topic)
            return
        await self._admin.create_topic(
            topic, partitions=group.partitions, replication_factor=group.replication_factor, configs=group.configs
        )
        log.info("created topic %s with topic creation group %s", topic, group.name)
        self._existing.add(topic)
