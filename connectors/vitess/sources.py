"""VitessSources: what Vitess does for the shared coordinator (connectors/relational/coordinator.py).

The stream starts at the stored VGTID, or (no offset) at a VStream Copy of every shard (snapshot.mode=initial,
which VTGate runs inside the stream: there is no separate snapshot source) or at the current position (never).
A gRPC failure is retriable unless a restart cannot cure it; the coordinator then restarts the stream from the
VGTID of the last unit handed to the queue. Nothing is told to VTGate about what Kafka holds: the position
lives in the offsets only.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Mapping, Sequence
from typing import Any

import grpc

from connect_worker.api import ConnectError
from connectors.relational.pipeline import Pipeline
from connectors.relational.schema_builder import TableSchema
from connectors.relational.table import Table, TableId
from connectors.vitess.config import VitessConnectorConfig
from connectors.vitess.errors import from_grpc
from connectors.vitess.events import UnitAssembler
from connectors.vitess.streaming import StreamSettings, VStreamSource, heartbeat_value
from connectors.vitess.value_converters import is_binary
from connectors.vitess.vgtid import ShardGtid, Vgtid
from connectors.vitess.vtgate import VtgateClient

log = logging.getLogger(__name__)


class VitessSources:
    def __init__(self, config: VitessConnectorConfig, pipeline: Pipeline, stored_offset: Mapping[str, Any] | None):
        self._config = config
        self._pipeline = pipeline
        self._stored = str(stored_offset["vgtid"]) if stored_offset and stored_offset.get("vgtid") else None
        self._client: VtgateClient | None = None
        self._source: VStreamSource | None = None
        self._metrics = pipeline.streaming_metrics()
        self._heartbeat = pipeline.heartbeat(value=heartbeat_value)

    # -- the coordinator's contract ---------------------------------------------------------------------
    async def checked_position(self) -> str | None:
        if self._stored:
            log.info("Found previous offset: VGTID %s", self._stored)
        return self._stored

    def snapshot_needed(self, position: str | None) -> bool:
        return False  # VStream Copy runs inside the stream

    def streams(self) -> bool:
        return True

    async def open(self, position: str | None, *, snapshot: bool) -> None:
        self._client = VtgateClient(self._config)

    async def snapshot(self) -> str:
        raise AssertionError("Vitess has no separate snapshot source")

    def resume_position(self) -> str | None:
        return self._source.position if self._source is not None else None

    async def release(self) -> None:
        if self._client is not None:
            with contextlib.suppress(Exception):
                await self._client.close()
            self._client = None

    async def offsets_flushed(self, offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]]) -> None:
        return None

    async def close(self) -> None:
        await self.release()

    async def stream(self, position: str | None, *, resumed: bool) -> None:
        config = self._config
        pipeline = self._pipeline
        client = self._client
        assert client is not None
        try:
            start = Vgtid.parse(position) if position else await self._initial_vgtid(client)
            rules = await self._filter_rules(client)
            self._heartbeat.restart()
            source = self._source = VStreamSource(
                queue=pipeline.queue,
                records=pipeline.records,
                settings=StreamSettings(
                    server_name=config.topic_prefix,
                    keyspace=config.keyspace,
                    skipped_operations=config.skipped_operations,
                    failure_handling_mode=config.failure_handling_mode,
                    estimate_sizes=config.max_queue_size_in_bytes > 0,
                ),
                schema_for=self._schema_for,
                binary_columns=lambda table: tuple(is_binary(c) for c in table.columns),
                topic_for=self._topic_for,
                position=position,
                transactions=pipeline.transactions(),
                metrics=self._metrics,
                heartbeat=self._heartbeat if self._heartbeat.enabled else None,
            )
            assembler = UnitAssembler()
            log.info("VStream of keyspace %s from %s", config.keyspace, start.to_json())
            self._metrics.connected(True)
            async with contextlib.aclosing(client.vstream(start, rules)) as stream:
                async for events in stream:
                    for unit in assembler.feed(events):
                        await source.handle(unit)
        except grpc.aio.AioRpcError as e:
            raise from_grpc(e, f"{config.hostname}:{config.port}") from e
        finally:
            self._metrics.connected(False)
        reshard = " (vitess.stop_on_reshard=true: a reshard happened; restart with the new shards)"
        raise ConnectError("VTGate ended the VStream" + (reshard if config.stop_on_reshard else ""))

    # -- tables -------------------------------------------------------------------------------------------
    def _schema_for(self, table: Table) -> TableSchema | None:
        pipeline = self._pipeline
        if not pipeline.tables.accepts(table.id):
            return None
        pipeline.tables_by_id[table.id] = table
        if not table.primary_key and pipeline.key_columns(table.id) is None:
            log.warning("%s has no primary or unique key: its records have a null key", table.id)
        return TableSchema(table, pipeline.builder)

    def _topic_for(self, table_id: TableId) -> str:
        naming = self._pipeline.naming
        if self._config.table_topic_naming:  # io.debezium.connector.vitess.TableTopicNamingStrategy
            return naming.data_change_topic(TableId("", table_id.table))
        return naming.data_change_topic(table_id)

    async def _initial_vgtid(self, client: VtgateClient) -> Vgtid:
        """Where a capture with no stored offset starts (spec §1.3)."""
        config = self._config
        ks = config.keyspace
        gtid = "" if config.snapshot_initial else "current"
        if not config.shards:
            if not config.snapshot_initial:
                return Vgtid((ShardGtid(ks, "", "current"),))  # every shard, as VTGate expands it
            shards = await client.shards(ks)
            return Vgtid(tuple(ShardGtid(ks, s, "") for s in shards))
        given = config.start_vgtid
        if config.snapshot_initial or not given or given == "current":
            return Vgtid(tuple(ShardGtid(ks, s, gtid) for s in config.shards))
        if given.lstrip().startswith("["):
            vgtid = Vgtid.parse(given)
            if sorted(vgtid.shards) != sorted(config.shards):
                raise ConnectError(
                    f"The shards of vitess.vgtid {sorted(vgtid.shards)} differ from vitess.shard {list(config.shards)}"
                )
            return vgtid
        if len(config.shards) != 1:
            raise ConnectError("vitess.gtid holds one GTID: vitess.shard must then name exactly one shard")
        return Vgtid((ShardGtid(ks, config.shards[0], given),))

    async def _filter_rules(self, client: VtgateClient) -> list[tuple[str, str]]:
        """(match, filter) rules for table.include.list (none: every table of the keyspace)."""
        config = self._config
        tables_filter = self._pipeline.tables
        if not tables_filter.table_include:
            return []
        tables = await client.tables(config.keyspace)
        return [(t, f"select * from `{t}`") for t in tables if tables_filter.accepts(TableId(config.keyspace, t))]
