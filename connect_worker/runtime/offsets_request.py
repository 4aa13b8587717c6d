"""PATCH and DELETE /connectors/{c}/offsets (KIP-875) once the herder has let them through (the connector is
STOPPED): the offsets checked, the connector told (SourceConnector.alter_offsets), the offsets topic written, and
Connect's answer, which says whether the connector handled offsets it keeps elsewhere."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from connect_worker.api import BadRequestError, ConnectError
from connect_worker.runtime.herder import ConnectorOffset
from connect_worker.runtime.herder_ports import OffsetBackingStore, WorkerControl
from connect_worker.storage.offsets import validate_offset_map


def not_stopped_error(name: str) -> BadRequestError:
    return BadRequestError(
        "Connectors must be in the STOPPED state before their offsets can be modified. This can be done "
        f"for the specified connector by issuing a 'PUT' request to the '/connectors/{name}/stop' endpoint"
    )


async def alter_offsets(
    worker: WorkerControl,
    store: OffsetBackingStore,
    name: str,
    config: Mapping[str, str | None],
    offsets: Sequence[ConnectorOffset],
    *,
    reset: bool,
    redact: Callable[[str], str],
) -> str:
    """Alter (or, with `reset`, reset: every offset None) the connector's offsets; the REST message."""
    for o in offsets:
        validate_offset_map("Partition", o.partition)
        validate_offset_map("Offset", o.offset)
    try:
        handled = await worker.alter_offsets(config, {_freeze(o.partition): o.offset for o in offsets})
    except ConnectError as e:
        raise type(e)(redact(str(e))) from None
    await store.write(name, [(o.partition, o.offset) for o in offsets])
    verb = "reset" if reset else "altered"
    if handled:
        return f"The offsets for this connector have been {verb} successfully"
    return (
        f"The Connect framework-managed offsets for this connector have been {verb} successfully. However, if "
        f"this connector manages offsets externally, they will need to be manually {verb} in the system that "
        "the connector uses."
    )


def _freeze(partition: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(partition.items())
