"""Jetty 12's URI checks, which Kafka Connect 4.3's REST server makes before any resource sees a request.

Connect serves its API through Jetty with the default URI compliance, which refuses ambiguous or suspicious paths
with its own 400 HTML page, and hands the resources each path segment without its `;parameters`. What this module
does is what Connect 4.3.1 (Jetty 12.0.34) answered, measured request by request (tests/differential/
rest_lifecycle.py); the rules per segment of the path as sent:

- `%2F` (an encoded `/`): "Ambiguous URI path separator"; `%25` (an encoded `%`): "Ambiguous URI path encoding";
- an encoded `.` making a `.` or `..` segment: "Ambiguous URI path segment"; a `.`/`..` segment with
  `;parameters`: "Ambiguous URI path parameter"; an empty segment (`//`, not a single trailing `/`): "Ambiguous
  URI empty segment";
- `%uXXXX`: "UTF-16 encoding"; bytes that are not UTF-8: "Bad UTF-8 encoding";
- an encoded `\\` or control character: "Suspicious Path Character"; a raw `\\`: that and "Illegal Path Character";
- a `%` not followed by two hex digits, or an encoded NUL: Jetty's "Bad Request" page (a message it cannot parse).

Several violations are named together, in Jetty's order (its UriCompliance.Violation enum).
"""

from __future__ import annotations

import re
from typing import Final

from starlette.types import ASGIApp, Receive, Scope, Send

SEGMENT: Final = "Ambiguous URI path segment"
EMPTY: Final = "Ambiguous URI empty segment"
SEPARATOR: Final = "Ambiguous URI path separator"
PARAMETER: Final = "Ambiguous URI path parameter"
ENCODING: Final = "Ambiguous URI path encoding"
UTF16: Final = "UTF-16 encoding"
BAD_UTF8: Final = "Bad UTF-8 encoding"
SUSPICIOUS: Final = "Suspicious Path Character"
ILLEGAL: Final = "Illegal Path Character"
_ORDER: Final = (SEGMENT, EMPTY, SEPARATOR, PARAMETER, ENCODING, UTF16, BAD_UTF8, SUSPICIOUS, ILLEGAL)

JETTY_VERSION: Final = "12.0.34"  # what Connect 4.3.1's error pages name
_HEX: Final = re.compile(r"[0-9A-Fa-f]{2}")
_HEX4: Final = re.compile(r"[0-9A-Fa-f]{4}")


class BadMessage(Exception):
    """A path Jetty cannot parse: its plain "Bad Request"."""


def violations(path: str) -> list[str]:
    """The Jetty URI violations of `path` (as sent: percent-encoded, no query), in Jetty's order; BadMessage
    when it cannot be parsed at all."""
    found: set[str] = set()
    segments = path.split("/")[1:]
    for i, segment in enumerate(segments):
        name, semicolon, _parameters = segment.partition(";")
        decoded = _decode(name, found)
        if "%" in name and decoded in (b".", b".."):
            found.add(SEGMENT)
        if semicolon and decoded in (b".", b".."):
            found.add(PARAMETER)
        if segment == "" and i < len(segments) - 1:
            found.add(EMPTY)
    return [v for v in _ORDER if v in found]


def _decode(text: str, found: set[str]) -> bytes:
    out = bytearray()
    i = 0
    while i < len(text):
        c = text[i]
        if c != "%":
            if c == "\\":
                found.update((SUSPICIOUS, ILLEGAL))
            out.append(ord(c))  # the path's bytes, read as latin-1
            i += 1
            continue
        if text[i + 1 : i + 2] in ("u", "U") and _HEX4.fullmatch(text[i + 2 : i + 6]):
            found.add(UTF16)
            out += chr(int(text[i + 2 : i + 6], 16)).encode("utf-8", "surrogatepass")
            i += 6
            continue
        if not _HEX.fullmatch(text[i + 1 : i + 3]):
            raise BadMessage(text)
        b = int(text[i + 1 : i + 3], 16)
        if b == 0:
            raise BadMessage(text)
        if b == 0x2F:
            found.add(SEPARATOR)
        elif b == 0x25:
            found.add(ENCODING)
        elif b == 0x5C or b < 0x20 or b == 0x7F:
            found.add(SUSPICIOUS)
        out.append(b)
        i += 3
    try:
        out.decode("utf-8")
    except UnicodeDecodeError:
        found.add(BAD_UTF8)
    return bytes(out)


def without_parameters(path: str) -> str:
    """The path with each segment's `;parameters` dropped, as the resources see it."""
    return "/".join(segment.partition(";")[0] for segment in path.split("/"))


def error_page(message: str, uri: str) -> bytes:
    """Jetty's HTML error page of a 400, byte for byte as Connect 4.3.1 serves it."""
    return (
        "<html>\n<head>\n"
        '<meta http-equiv="Content-Type" content="text/html;charset=ISO-8859-1"/>\n'
        f"<title>Error 400 {message}</title>\n"
        "</head>\n<body>\n"
        f"<h2>HTTP ERROR 400 {message}</h2>\n"
        "<table>\n"
        f"<tr><th>URI:</th><td>{uri}</td></tr>\n"
        "<tr><th>STATUS:</th><td>400</td></tr>\n"
        f"<tr><th>MESSAGE:</th><td>{message}</td></tr>\n"
        "</table>\n"
        f'<hr/><a href="https://jetty.org/">Powered by Jetty:// {JETTY_VERSION}</a><hr/>\n'
        "\n</body>\n</html>\n"
    ).encode("iso-8859-1")


class UriComplianceMiddleware:
    """Refuses what Jetty refuses (before authentication and routing, as Jetty does)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            raw = scope.get("raw_path")
            if raw:
                try:
                    found = violations(raw.decode("latin-1"))
                    page = error_page(", ".join(found), "/badURI") if found else None
                except BadMessage:
                    page = error_page("Bad Request", "/badMessage")
                if page is not None:
                    await _send_400(send, page)
                    return
        await self.app(scope, receive, send)


async def _send_400(send: Send, page: bytes) -> None:
    headers = [
        (b"content-type", b"text/html;charset=iso-8859-1"),
        (b"content-length", str(len(page)).encode()),
    ]
    await send({"type": "http.response.start", "status": 400, "headers": headers})
    await send({"type": "http.response.body", "body": page})
