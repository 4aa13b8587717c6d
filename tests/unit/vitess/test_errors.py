"""gRPC failures are classified by status code: fatal ones fail the task, the rest restart the stream."""

from __future__ import annotations

import grpc
import pytest

from connect_worker.api import ConnectError, RetriableError
from connectors.vitess.errors import FATAL_STATUSES, from_grpc


def _rpc_error(code: grpc.StatusCode) -> grpc.aio.AioRpcError:
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), details="boom")


@pytest.mark.parametrize("code", list(grpc.StatusCode))
def test_every_status_is_classified(code: grpc.StatusCode) -> None:
    error = from_grpc(_rpc_error(code), "127.0.0.1:15991")
    assert f"VStream from 127.0.0.1:15991 failed: {code.name}: boom" == str(error)
    if code in FATAL_STATUSES:
        assert type(error) is ConnectError
    else:
        assert isinstance(error, RetriableError)


def test_the_fatal_statuses() -> None:
    assert {c.name for c in FATAL_STATUSES} == {
        "UNAUTHENTICATED",
        "PERMISSION_DENIED",
        "INVALID_ARGUMENT",
        "UNIMPLEMENTED",
    }
