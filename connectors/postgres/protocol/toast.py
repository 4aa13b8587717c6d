"""The marker for a TOASTed value the server did not send because it did not change."""

from __future__ import annotations

from typing import Final, final

__all__ = ["UNCHANGED_TOAST", "UnchangedToast"]


@final
class UnchangedToast:
    """Singleton type of :data:`UNCHANGED_TOAST`: "value unknown", which is not NULL.

    pgoutput sends kind ``'u'`` and decoderbufs sets ``datum_missing`` for an unchanged out-of-line
    value that is not part of the replica identity. Compare with ``is UNCHANGED_TOAST``.
    """

    __slots__ = ()
    _instance: UnchangedToast | None = None

    def __new__(cls) -> UnchangedToast:
        instance = UnchangedToast._instance
        if instance is None:
            instance = super().__new__(cls)
            UnchangedToast._instance = instance
        return instance

    def __repr__(self) -> str:
        return "UNCHANGED_TOAST"

    def __reduce__(self) -> str:
        return "UNCHANGED_TOAST"

    def __copy__(self) -> UnchangedToast:
        return self

    def __deepcopy__(self, memo: object) -> UnchangedToast:
        return self


UNCHANGED_TOAST: Final = UnchangedToast()
