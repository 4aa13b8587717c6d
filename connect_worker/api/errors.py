"""One error root, with branches named for what the runtime must do about them."""

from __future__ import annotations


class ConnectError(Exception):
    """Root of every error the worker and its plugins raise on purpose."""


class RetriableError(ConnectError):
    """A transient failure: the operation may succeed if tried again (lost connection, broker down)."""


class DataError(ConnectError):
    """A record, schema or value that cannot be handled (Java's DataException)."""


class ConfigError(ConnectError):
    """A configuration that is invalid; the message names the key, never a secret value."""

    def __init__(self, message: str, *, name: str | None = None) -> None:
        super().__init__(message)
        self.name = name


class NotFoundError(ConnectError):
    """The named connector, task, plugin or logger does not exist."""


class AlreadyExistsError(ConnectError):
    """Creating something whose name is taken."""


class BadRequestError(ConnectError):
    """A request that is well-formed but not acceptable in the current state (HTTP 400)."""


class ConflictError(ConnectError):
    """A request that conflicts with an operation under way (HTTP 409)."""


class ForbiddenError(ConnectError):
    """A request refused for who sent it (HTTP 403): an inter-worker request with an invalid signature."""


class UnavailableError(ConnectError):
    """A request this worker cannot answer yet (HTTP 503): no session key read yet to verify a signature with."""
