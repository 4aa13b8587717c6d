"""FileStreamSource: lines of a text file as string records (org.apache.kafka.connect.file.FileStreamSource*).

Kafka's own example connector, kept byte-compatible: source partition {"filename": path}, offset
{"position": byte offset after the line}, value schema STRING, no key. It gives the runtime a real plugin
to run end to end without a database.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from typing import Any, ClassVar

from connect_worker.api import (
    ConfigDef,
    ConfigType,
    DataError,
    ExactlyOnceSupport,
    Importance,
    SourceConnector,
    SourceRecord,
    SourceTask,
)
from connect_worker.api.config import at_least, non_empty_string
from connect_worker.api.schema import STRING_SCHEMA

KAFKA_VERSION = "4.3.1"
FILENAME_FIELD = "filename"
POSITION_FIELD = "position"

CONFIG_DEF = (
    ConfigDef()
    .define(
        "file",
        ConfigType.STRING,
        None,
        importance=Importance.HIGH,
        documentation="Source filename. If not specified, the standard input will be used",
    )
    .define(
        "topic",
        ConfigType.STRING,
        validator=non_empty_string,
        importance=Importance.HIGH,
        documentation="The topic to publish data to",
    )
    .define(
        "batch.size",
        ConfigType.INT,
        2000,
        validator=at_least(1),
        importance=Importance.LOW,
        documentation="The maximum number of records the source task can read from the file each time it is polled",
    )
)


class FileStreamSourceTask(SourceTask):
    class_name: ClassVar[str] = "org.apache.kafka.connect.file.FileStreamSourceTask"

    def __init__(self) -> None:
        self._path = ""
        self._topic = ""
        self._batch = 2000
        self._position = 0
        self._stopping = asyncio.Event()

    def version(self) -> str:
        return KAFKA_VERSION

    async def start(self, props: Mapping[str, str]) -> None:
        cfg = CONFIG_DEF.parse(props)
        if not cfg["file"]:
            raise DataError("Reading from standard input is not supported by this worker; set 'file'")
        self._path, self._topic, self._batch = cfg["file"], cfg["topic"], cfg["batch.size"]
        offset = self.context.offset_storage_reader.offset({FILENAME_FIELD: self._path})
        if offset is not None:
            pos = offset.get(POSITION_FIELD)
            if not isinstance(pos, int):
                raise DataError("Offset position is the incorrect type")
            self._position = pos

    def _read_lines(self) -> list[tuple[str, int]]:
        try:
            with open(self._path, "rb") as f:
                f.seek(self._position)
                out: list[tuple[str, int]] = []
                pos = self._position
                for raw in f:
                    if not raw.endswith(b"\n"):
                        break  # an incomplete last line is read once it is finished
                    pos += len(raw)
                    out.append((raw.rstrip(b"\r\n").decode("utf-8", "replace"), pos))
                    if len(out) >= self._batch:
                        break
                return out
        except FileNotFoundError:
            return []

    async def poll(self) -> list[SourceRecord] | None:
        lines = await asyncio.to_thread(self._read_lines)
        if not lines:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), 1.0)
            return None
        self._position = lines[-1][1]
        partition = {FILENAME_FIELD: self._path}
        return [
            SourceRecord(partition, {POSITION_FIELD: pos}, self._topic, None, None, None, STRING_SCHEMA, line)
            for line, pos in lines
        ]

    async def stop(self) -> None:
        self._stopping.set()


class FileStreamSourceConnector(SourceConnector):
    class_name: ClassVar[str] = "org.apache.kafka.connect.file.FileStreamSourceConnector"
    plugin_version: ClassVar[str] = KAFKA_VERSION

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    @classmethod
    def config_def(cls) -> ConfigDef:
        return CONFIG_DEF

    async def start(self, props: Mapping[str, str]) -> None:
        CONFIG_DEF.parse(props)
        self._props = dict(props)

    def task_class(self) -> type[SourceTask]:
        return FileStreamSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props)]  # one file, one task

    async def stop(self) -> None:
        self._props = {}

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport:
        return ExactlyOnceSupport.SUPPORTED if props.get("file") else ExactlyOnceSupport.UNSUPPORTED

    async def alter_offsets(self, props: Mapping[str, str], offsets: Mapping[Any, Mapping[str, Any] | None]) -> bool:
        for offset in offsets.values():
            if offset is None:
                continue
            pos = offset.get(POSITION_FIELD)
            if POSITION_FIELD not in offset:
                raise DataError("Offset objects should either be null or contain the key 'position'")
            if not isinstance(pos, int) or isinstance(pos, bool):
                raise DataError("The value for the 'position' key in the offset is expected to be a Long value")
            if pos < 0:
                raise DataError("The value for the 'position' key in the offset should be a non-negative value")
        return True


__all__ = ["FileStreamSourceConnector", "FileStreamSourceTask"]
