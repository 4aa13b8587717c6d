"""Output plug-ins: the START_REPLICATION options each needs and the decoder of its payloads (pure)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeVar

from connect_worker.api.errors import ConfigError
from connectors.postgres.protocol.commands import quote_identifier_list

if TYPE_CHECKING:
    from connectors.postgres.protocol.decoderbufs import DecoderbufsMessage
from connectors.postgres.protocol.pgoutput import PgOutputDecoder, PgOutputMessage

__all__ = ["DecoderbufsPlugin", "OutputPlugin", "PayloadDecoder", "PgOutputPlugin"]

M_co = TypeVar("M_co", covariant=True)


class PayloadDecoder(Protocol[M_co]):
    def __call__(self, payload: memoryview | bytes, /) -> M_co: ...


class OutputPlugin(Protocol[M_co]):
    """What the replication stream needs to know about a logical decoding output plug-in."""

    @property
    def plugin_name(self) -> str:
        """The name for CREATE_REPLICATION_SLOT ... LOGICAL <plugin>."""
        ...

    def start_options(self) -> Sequence[tuple[str, str]]:
        """The (name, value) options of START_REPLICATION."""
        ...

    def new_decoder(self) -> PayloadDecoder[M_co]:
        """A fresh decoder for one stream (decoders may keep protocol state)."""
        ...


@dataclass(frozen=True, slots=True)
class PgOutputPlugin:
    """pgoutput options. ``streaming`` (in-progress transactions, proto 2+) is off by default: the client
    must then buffer each xid until Stream Commit, and it receives aborted transactions too."""

    publication_names: tuple[str, ...]
    proto_version: int = 1
    name: str = "pgoutput"  # YugabyteDB's yboutput is the same protocol under another name
    messages: bool = True
    streaming: bool = False
    binary: bool = False
    extra_options: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.publication_names, str):
            raise ConfigError("publication_names must be a tuple of names, not a string")
        if not self.publication_names:
            raise ConfigError("pgoutput needs at least one publication name")
        if self.proto_version not in (1, 2, 3, 4):
            raise ConfigError(f"unsupported pgoutput proto_version {self.proto_version} (1-4)")
        if self.streaming and self.proto_version < 2:
            raise ConfigError("pgoutput streaming of in-progress transactions needs proto_version >= 2")

    @property
    def plugin_name(self) -> str:
        return self.name

    def start_options(self) -> Sequence[tuple[str, str]]:
        options = [
            ("proto_version", str(self.proto_version)),
            ("publication_names", quote_identifier_list(self.publication_names)),
        ]
        if self.messages:
            options.append(("messages", "true"))
        if self.streaming:
            options.append(("streaming", "on"))
        if self.binary:
            options.append(("binary", "true"))
        options.extend(self.extra_options)
        return options

    def new_decoder(self) -> Callable[[memoryview | bytes], PgOutputMessage]:
        return PgOutputDecoder().decode


@dataclass(frozen=True, slots=True)
class DecoderbufsPlugin:
    """Debezium's decoderbufs: it takes no options of its own."""

    extra_options: tuple[tuple[str, str], ...] = ()

    @property
    def plugin_name(self) -> str:
        return "decoderbufs"

    def start_options(self) -> Sequence[tuple[str, str]]:
        return list(self.extra_options)

    def new_decoder(self) -> Callable[[memoryview | bytes], DecoderbufsMessage]:
        # protobuf is imported only by connectors that use decoderbufs (it costs start-up time)
        from connectors.postgres.protocol.decoderbufs import decode_row_message

        return decode_row_message
