"""The records of a topic a test waits on while it grows, read on from the last look instead of from its start.

read_to_end reads a topic from its start at every call; a wait that looks every 0.2 s at a topic growing to
hundreds of thousands of records then spends seconds per look and competes with the worker under test for the
machine's cores. GrowingTopic follows the topic with the worker's own tail (connect_worker.kafka.tail.TopicTail,
read_committed) once it exists; each look waits until what the topic holds then has been handed over."""

from __future__ import annotations

from connect_worker.api import RetriableError
from connect_worker.kafka.reader import TopicRecord
from connect_worker.kafka.tail import TopicTail


class GrowingTopic:
    def __init__(self, bootstrap: str, topic: str) -> None:
        self._config = {"bootstrap.servers": bootstrap}
        self.topic = topic
        self._tail: TopicTail | None = None
        #: every record handed over so far, in each partition's offset order
        self.records: list[TopicRecord] = []

    async def read_on(self) -> list[TopicRecord]:
        """Every record so far, once what the topic holds now has been read (none while it does not exist)."""
        if self._tail is None:
            tail = TopicTail(self._config, self.topic, self.records.extend)
            try:
                await tail.start()
            except RetriableError:  # not created yet
                return self.records
            self._tail = tail
        await self._tail.read_to_end(timeout=60)
        return self.records

    async def aclose(self) -> None:
        if self._tail is not None:
            await self._tail.stop()
