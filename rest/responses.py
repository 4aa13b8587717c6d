"""Responses as Connect's Jetty/Jackson sends them: compact JSON, `application/json` without charset."""

from __future__ import annotations

import json
from typing import Any

from starlette.responses import Response

JSON: str = "application/json"


def render_json(body: Any) -> bytes:
    """Jackson's default output: no spaces, non-ASCII characters as UTF-8 (not \\u escapes)."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


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
