"""Distributed mode: a request only the leader (or the worker running a task) can carry out is sent on to it, as
Connect's HerderRequestHandler does. The first worker forwards with `?forward=true` (the next may forward once
more), a forwarded-to worker with `?forward=false`; a request that still lands on the wrong worker after two hops is
answered 409. The answer of the worker that carried the request out is passed back as it is (status, body)."""

from __future__ import annotations

import asyncio
import logging
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response

from connect_worker.runtime.herder import NotLeaderError
from connect_worker.runtime.inter_worker import http_request
from rest.errors import RestError

log = logging.getLogger(__name__)

NO_LEADER = "Cannot complete request momentarily due to no known leader URL, likely because a rebalance was underway."
TOO_MANY_HOPS = "Cannot complete request because of a conflicting operation (e.g. worker rebalance)"
_PASSED_ON = ("authorization", "content-type", "accept")
_TIMEOUT_S = 90.0


def _forwarded_url(request: Request, base: str, recursive: bool) -> str:
    query = [(k, v) for k, v in request.query_params.multi_items() if k != "forward"]
    query.append(("forward", "true" if recursive else "false"))
    return base.rstrip("/") + request.url.path + "?" + urlencode(query)


async def forward(request: Request, error: NotLeaderError) -> Response:
    flag = request.query_params.get("forward")
    if flag is not None and flag.lower() == "false":
        log.error("request %s %s did not find its worker within two hops", request.method, request.url.path)
        raise RestError(409, TOO_MANY_HOPS)
    if error.forward_url is None:
        raise RestError(409, NO_LEADER)
    url = _forwarded_url(request, error.forward_url, recursive=flag is None)
    body = await request.body()
    headers = {k: v for k, v in request.headers.items() if k.lower() in _PASSED_ON}
    log.debug("forwarding %s %s to %s", request.method, request.url.path, url)
    try:
        status, content, media_type = await asyncio.to_thread(
            http_request, url, request.method, headers, body if body else None, _TIMEOUT_S
        )
    except OSError as e:
        raise RestError(500, f"IO Error trying to forward REST request: {e}") from e
    return Response(content, status, media_type=media_type)
