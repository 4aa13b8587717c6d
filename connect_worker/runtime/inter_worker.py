"""One HTTP request from this worker to another of its cluster (a forwarded REST request, task configs handed to
the leader): urllib in a thread, HTTPS verified against the system's trust store, every answer returned."""

from __future__ import annotations

import ssl
import urllib.error
import urllib.request
from collections.abc import Mapping


def http_request(
    url: str, method: str, headers: Mapping[str, str], body: bytes | None, timeout: float
) -> tuple[int, bytes, str | None]:
    """(status, body, content type) of the answer, whatever its status; OSError when no answer came."""
    req = urllib.request.Request(url, data=body, method=method, headers=dict(headers))
    context = ssl.create_default_context() if url.startswith("https:") else None
    try:
        with urllib.request.urlopen(req, timeout=timeout, context=context) as response:
            return response.status, response.read(), response.headers.get("Content-Type")
    except urllib.error.HTTPError as e:
        return e.code, e.read(), e.headers.get("Content-Type")
