"""The one table that turns an error into Connect's `{"error_code": N, "message": "..."}` answer.

Kafka Connect's ConnectExceptionMapper: a ConnectRestException carries its own status, Connect's
NotFoundException is 404, AlreadyExistsException 409, JAX-RS exceptions (unknown route, wrong method, wrong
media type) keep their status with the message "HTTP <code> <reason>", and everything else is 500 with the
exception's message. Here the api error classes play the Java exceptions' part; `RestError` is the
REST layer's own ConnectRestException (415, 403, request-shape problems found before the Herder is asked).
"""

from __future__ import annotations

import http
import logging
from typing import Final

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from connect_worker.api.errors import (
    AlreadyExistsError,
    BadRequestError,
    ConfigError,
    ConflictError,
    ForbiddenError,
    NotFoundError,
    UnavailableError,
)
from rest.responses import json_response

log = logging.getLogger(__name__)

# Checked in order; the first class the error is an instance of gives the status. Anything else is 500.
ERROR_STATUS: Final[tuple[tuple[type[BaseException], int], ...]] = (
    (NotFoundError, 404),
    (AlreadyExistsError, 409),
    (ConflictError, 409),
    (BadRequestError, 400),
    (ConfigError, 400),
    (ForbiddenError, 403),
    (UnavailableError, 503),
)


class RestError(Exception):
    """An error the REST layer raises itself, with the HTTP status Connect answers. `bare`: the answer has no
    Content-Type header. Jersey answers its own errors before it has chosen a resource method (no route: 404,
    wrong method: 405, wrong body type: 415, an Accept ruling JSON out: 406) without one, since only a
    chosen method's @Produces gives the type; errors raised once a method is chosen (a path parameter that is
    not an Integer, Connect's own exceptions) are application/json. Measured on Kafka Connect 4.3.1
    (tests/differential/test_rest_lifecycle.py)."""

    def __init__(self, status: int, message: str, *, bare: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.bare = bare


def jaxrs_error(status: int, *, bare: bool = True) -> RestError:
    """What Jersey says for its own errors: "HTTP 405 Method Not Allowed" and the like."""
    return RestError(status, f"HTTP {status} {http.HTTPStatus(status).phrase}", bare=bare)


def parameter_not_found() -> RestError:
    """Jersey's 404 for a path parameter it cannot convert (`tasks/abc`): the method was chosen, so JSON."""
    return jaxrs_error(404, bare=False)


def status_for(error: BaseException) -> int:
    if isinstance(error, RestError):
        return error.status
    for cls, status in ERROR_STATUS:
        if isinstance(error, cls):
            return status
    return 500


def message_for(error: BaseException) -> str:
    if isinstance(error, RestError):
        return error.message
    # Java sends getMessage(), which may be null; an empty Python message names the class instead.
    return str(error) or type(error).__name__


def error_response(status: int, message: str, headers: dict[str, str] | None = None, *, bare: bool = False) -> Response:
    body = {"error_code": status, "message": message}
    return json_response(body, status, headers=headers, media_type=None if bare else "application/json")


def response_for(error: BaseException) -> Response:
    status = status_for(error)
    if status == 500 and not isinstance(error, RestError):
        log.error("REST request failed: %s", message_for(error), exc_info=error)
    return error_response(status, message_for(error), bare=isinstance(error, RestError) and error.bare)


async def handle_exception(request: Request, exc: Exception) -> Response:
    """Starlette exception handler for every exception an endpoint lets through."""
    return response_for(exc)


async def handle_http_exception(request: Request, exc: Exception) -> Response:
    """Starlette's own errors (no route: 404, wrong method: 405) in Jersey's words."""
    assert isinstance(exc, HTTPException)
    headers = dict(exc.headers) if exc.headers else None
    status = exc.status_code
    return error_response(status, f"HTTP {status} {http.HTTPStatus(status).phrase}", headers, bare=True)
