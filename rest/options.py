"""Jersey's automatic OPTIONS answer, which every resource of Connect's REST API has.

Measured on Connect 4.3.1 (tests/differential/rest_lifecycle.py): 200 with the resource's methods (HEAD with GET,
and OPTIONS) as a `java.util.HashSet` iterates them, in the body joined by ", " as text/plain and in the `Allow`
header joined by ","; to an Accept header that rules text/plain out (application/json was measured) the same
header, no body, and the accepted type as Content-Type. A path no resource has stays Jersey's 404. A 405 (a method
the resource lacks) has no `Allow` header (measured there too).
"""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Match, Route

from connect_worker.api.javacompat import java_hashmap_order
from rest.errors import handle_http_exception
from rest.routing import media_type


def allowed_methods(request: Request) -> list[str]:
    """The methods of every route whose path matches the request's, then HEAD (with GET) and OPTIONS, as
    Jersey adds them to a `java.util.HashSet` (declaration order decides between methods sharing a bucket,
    as PUT and PATCH do)."""
    added: dict[str, None] = {}
    for route in request.app.router.routes:
        if isinstance(route, Route) and route.methods and route.matches(request.scope)[0] is not Match.NONE:
            added.update(dict.fromkeys(sorted(m for m in route.methods if m != "HEAD")))
    if "GET" in added:
        added["HEAD"] = None
    added["OPTIONS"] = None
    return list(java_hashmap_order(added))


async def handle_http_exception_or_options(request: Request, exc: Exception) -> Response:
    """Starlette's 405 for an OPTIONS request becomes Jersey's OPTIONS answer; for another method it loses its
    Allow header (Connect's exception mapper answers Jersey's 405 with a new response of the JSON body only);
    other errors go as before."""
    if not isinstance(exc, HTTPException) or exc.status_code != 405:
        return await handle_http_exception(request, exc)
    if request.method != "OPTIONS":
        return await handle_http_exception(request, HTTPException(405))
    methods = allowed_methods(request)
    headers = {"Allow": ",".join(methods)}
    ranges = [media_type(item) for item in (request.headers.get("accept") or "").split(",") if item.strip()]
    if not ranges or any(kind in ("text", "*") and subtype in ("plain", "*") for kind, subtype in ranges):
        return Response(", ".join(methods), 200, headers={**headers, "Content-Type": "text/plain"})  # no charset
    kind, subtype = ranges[0]
    return Response(b"", 200, headers={**headers, "Content-Type": f"{kind}/{subtype}"})
