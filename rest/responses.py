"""Responses as Connect's Jetty/Jackson sends them: compact JSON, `application/json` without charset."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from connect_worker.api.javacompat import jackson_dumps

JSON: str = "application/json"


def render_json(body: Any) -> bytes:
    """Jackson's default output: no spaces, non-ASCII raw UTF-8, Java number formatting."""
    return jackson_dumps(body)


def json_response(
    body: Any,
    status: int = 200,
    *,
    headers: dict[str, str] | None = None,
    media_type: str | None = JSON,
) -> Response:
    return Response(render_json(body), status_code=status, headers=headers, media_type=media_type)


def empty_response(status: int) -> Response:
    """202 carries `Content-Length: 0` and no Content-Type; 204 carries neither."""
    return Response(status_code=status)
