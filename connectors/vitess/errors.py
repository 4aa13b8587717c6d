"""Vitess errors, classified at the boundary by gRPC status code into the API's branches (never by message text).

A status a restart cannot cure (authentication, permission, a malformed request, an unimplemented call) fails
the task; every other status is retriable: the coordinator restarts the stream from the last queued VGTID.
"""

from __future__ import annotations

from typing import Final

import grpc

from connect_worker.api import ConnectError, RetriableError

#: gRPC statuses a restart cannot cure: the task fails at once.
FATAL_STATUSES: Final = frozenset(
    {
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.UNIMPLEMENTED,
    }
)


def from_grpc(error: grpc.aio.AioRpcError, where: str) -> ConnectError:
    """The API error for a failed call to VTGate at ``where`` (host:port)."""
    message = f"VStream from {where} failed: {error.code().name}: {error.details()}"
    if error.code() in FATAL_STATUSES:
        return ConnectError(message)
    return RetriableError(message)
