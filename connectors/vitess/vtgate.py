"""The thin async transport to VTGate (spec vitess.md §1.1, §1.4): one gRPC channel, the ``Execute`` metadata
queries and the ``VStream`` server stream. Everything else (units, records, positions) is pure code elsewhere.

Metadata sent on every call: ``vitess.grpc.headers``, and ``username``/``password`` when both are set
(VTGate's static authentication).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from typing import Any

import grpc

from connect_worker.api import ConnectError
from connectors.vitess.config import VitessConnectorConfig
from connectors.vitess.proto import binlogdata_pb2 as _binlogdata
from connectors.vitess.proto import query_pb2 as _query
from connectors.vitess.proto import topodata_pb2 as _topodata
from connectors.vitess.proto import vtgate_pb2 as _vtgate
from connectors.vitess.proto import vtgateservice_pb2_grpc as _service
from connectors.vitess.tables import row_values
from connectors.vitess.vgtid import Vgtid

binlogdata: Any = _binlogdata
query: Any = _query
topodata: Any = _topodata
vtgate: Any = _vtgate
service: Any = _service

_LONG_MAX = 9223372036854775807


class VtgateClient:
    def __init__(self, config: VitessConnectorConfig) -> None:
        self._config = config
        options: list[tuple[str, Any]] = [("grpc.max_receive_message_length", config.max_inbound_message_size)]
        if config.keepalive_interval_ms < _LONG_MAX:
            options.append(("grpc.keepalive_time_ms", config.keepalive_interval_ms))
            options.append(("grpc.keepalive_permit_without_calls", 1))
        self._channel = grpc.aio.insecure_channel(f"{config.hostname}:{config.port}", options=options)
        self._stub = service.VitessStub(self._channel)
        metadata = list(config.grpc_headers)
        if config.user and config.password is not None:
            metadata += [("username", config.user), ("password", config.password.value)]
        self._metadata = tuple(metadata)

    async def close(self) -> None:
        await self._channel.close()

    async def execute(self, sql: str) -> list[list[str | None]]:
        """The rows of one statement as text."""
        request = vtgate.ExecuteRequest(query=query.BoundQuery(sql=sql))
        response = await self._stub.Execute(request, metadata=self._metadata, timeout=30)
        if response.error.message:
            raise ConnectError(f"VTGate refused '{sql}': {response.error.message}")
        return [list(row_values(row, (False,) * len(row.lengths))) for row in response.result.rows]

    async def shards(self, keyspace: str) -> list[str]:
        rows = await self.execute(f"SHOW VITESS_SHARDS LIKE '{keyspace}/%'")
        shards = [str(r[0]).partition("/")[2] for r in rows if r and r[0]]
        if not shards:
            raise ConnectError(f"VTGate lists no shard for the keyspace '{keyspace}'")
        return shards

    async def tables(self, keyspace: str) -> list[str]:
        return [str(r[0]) for r in await self.execute(f"SHOW TABLES FROM {keyspace}") if r and r[0]]

    async def vstream(self, start: Vgtid, rules: Sequence[tuple[str, str]]) -> AsyncGenerator[Sequence[Any], None]:
        """Each VStreamResponse's events, until VTGate ends the stream (a gRPC error propagates)."""
        config = self._config
        request = vtgate.VStreamRequest(
            tablet_type=topodata.TabletType.Value(config.tablet_type),
            vgtid=start.to_proto(),
            flags=vtgate.VStreamFlags(
                stop_on_reshard=config.stop_on_reshard,
                heartbeat_interval=config.heartbeat_interval_ms // 1000,
            ),
        )
        if rules:
            request.filter.CopyFrom(binlogdata.Filter(rules=[binlogdata.Rule(match=m, filter=f) for m, f in rules]))
        call = self._stub.VStream(request, metadata=self._metadata)
        try:
            async for response in call:
                yield response.events
        finally:
            call.cancel()
