"""Jersey's request semantics on top of Starlette's router.

* Paths are matched percent-encoded and path parameters decoded afterwards, as JAX-RS does; one trailing slash
  is ignored, and so are a segment's `;parameters` (matrix parameters). Jetty refuses an encoded `/` and other
  ambiguous paths before that (rest.uri_compliance), so a connector named `a/b` cannot be addressed.
* Resources that declare `@Consumes(application/json)` answer 415 to any other request Content-Type, and
  every resource answers 406 when the Accept header rules JSON out (`@Produces(application/json)`).
* Every endpoint's errors go through the one mapping in rest.errors; a request the Herder does not answer
  within the REST timeout (Connect: 90 s) gets 500 "Request timed out", while the Herder call goes on.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, Final, TypeVar
from urllib.parse import quote, unquote

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from connect_worker.runtime.herder import NotLeaderError
from rest.dto import bind, parse_json
from rest.errors import RestError, jaxrs_error, parameter_not_found, response_for
from rest.forwarding import forward
from rest.uri_compliance import without_parameters

Handler = Callable[[Request], Coroutine[Any, Any, Response]]

T = TypeVar("T")

DEFAULT_REQUEST_TIMEOUT_S: Final = 90.0
_JAVA_INT: Final = re.compile(r"[+-]?[0-9]+")
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
# Characters Jersey's UriBuilder.path() leaves as they are in a path (RFC 3986 pchar and "/").
PATH_SAFE: Final = "/!$&'()*+,;=:@"


class EncodedPathMiddleware:
    """Routes on the request path as sent (percent-encoded), like Jersey's template matching."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            raw = scope.get("raw_path")
            path = without_parameters(raw.decode("latin-1") if raw else quote(scope["path"], safe=PATH_SAFE))
            if len(path) > 1 and path.endswith("/"):
                path = path[:-1]
            root = scope.get("root_path", "")
            if root and not path.startswith(root):
                path = root + path
            scope = {**scope, "path": path}
        await self.app(scope, receive, send)


# -- parameters and bodies -----------------------------------------------------------------------------------
async def read_json(request: Request) -> Any:
    """The request body as JSON (see rest.dto.parse_json); None when there is none."""
    return parse_json(await request.body())


async def read_bound(request: Request, binder: Callable[[Any], T]) -> T:
    """The request body as JSON bound by `binder` (a rest.dto function); its binding errors come with
    Jackson's location in the body (rest.dto.bind)."""
    return bind(await request.body(), binder)


def path_param(request: Request, name: str) -> str:
    """A path parameter, percent-decoded (UTF-8)."""
    return unquote(str(request.path_params[name]))


def task_param(request: Request, name: str = "task") -> int:
    """An Integer path parameter: anything Integer.valueOf rejects is Jersey's plain 404."""
    text = path_param(request, name)
    if not _JAVA_INT.fullmatch(text):
        raise parameter_not_found()
    value = int(text)
    if not _INT_MIN <= value <= _INT_MAX:
        raise parameter_not_found()
    return value


def query_bool(request: Request, name: str, default: bool) -> bool:
    """A boolean query parameter as Jersey reads it: absent or blank -> default, else equals "true"."""
    value = request.query_params.get(name)
    if value is None or not value.strip():
        return default
    return value.strip().lower() == "true"


# -- content negotiation --------------------------------------------------------------------------------
def media_type(text: str) -> tuple[str, str]:
    media = text.split(";", 1)[0].strip().lower()
    kind, _, subtype = media.partition("/")
    return kind, subtype


def _is_json(kind: str, subtype: str) -> bool:
    return kind in ("application", "*") and subtype in ("json", "*")


def consumes_json(request: Request) -> bool:
    """Whether the request body's Content-Type is JSON (or absent). A wildcard type (`application/*`, `*/*`)
    matches the resource method, but Jersey finds no body reader for it: 415 too, as JSON since the method was
    chosen (measured on Connect 4.3.1, test_rest_lifecycle)."""
    header = request.headers.get("content-type")
    if header is None or not header.strip():
        return True
    kind, subtype = media_type(header)
    if _is_json(kind, subtype) and "*" in (kind, subtype):
        raise jaxrs_error(415, bare=False)
    return _is_json(kind, subtype)


def accepts_json(request: Request) -> bool:
    """Whether a media range of the Accept header takes application/json. Its quality does not count: Jersey
    serves JSON also to `application/json;q=0` (measured on Connect 4.3.1, test_rest_lifecycle)."""
    header = request.headers.get("accept")
    if header is None or not header.strip():
        return True
    return any(_is_json(*media_type(item)) for item in header.split(","))


# -- endpoints ------------------------------------------------------------------------------------------
def _drop_result(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()


async def _within(awaitable: Coroutine[Any, Any, Response], timeout: float | None) -> Response:
    if timeout is None:
        return await awaitable
    task = asyncio.ensure_future(awaitable)
    done, _ = await asyncio.wait({task}, timeout=timeout)
    if task not in done:
        task.add_done_callback(_drop_result)
        raise RestError(500, "Request timed out")
    return task.result()


def jaxrs_endpoint(handler: Handler, *, consumes: bool, timeout: float | None) -> Handler:
    """Wraps a handler with Jersey's 415/406 checks, the REST timeout and the error mapping."""

    async def endpoint(request: Request) -> Response:
        try:
            if consumes and not consumes_json(request):
                raise jaxrs_error(415)
            if not accepts_json(request):
                raise jaxrs_error(406)
            return await _within(handler(request), timeout)
        except NotLeaderError as error:
            try:
                return await forward(request, error)
            except Exception as e:  # noqa: BLE001
                return response_for(e)
        except Exception as error:  # noqa: BLE001 - the one place every error becomes an HTTP answer
            return response_for(error)

    return endpoint


class RouteTable:
    """Collects a resource's routes, each wrapped by `jaxrs_endpoint`."""

    def __init__(self, *, consumes: bool, timeout: float | None) -> None:
        self.consumes = consumes
        self.timeout = timeout
        self.routes: list[Route] = []

    def add(self, path: str, handler: Handler, methods: Sequence[str]) -> None:
        wrapped = jaxrs_endpoint(handler, consumes=self.consumes, timeout=self.timeout)
        self.routes.append(Route(path, wrapped, methods=list(methods)))
