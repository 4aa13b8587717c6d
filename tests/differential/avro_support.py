"""The REAL Debezium with Apicurio Registry's Java Avro converter, and a reader of what it writes, for comparing
Avro output byte for byte with this project's converter.

The converter is `io.apicurio.registry.utils.converter.AvroConverter` 2.6.13.Final (plugin.path directory
plugins/apicurio-converter, fetched by devstack/debezium.sh from devstack/debezium/pom.xml); the registry is the
devstack's Apicurio Registry 3.3.3. `apicurio_avro_converter_config()` gives the connector settings that make it
write Confluent's wire format with the registry's ids, the same framing a Confluent AvroConverter writes:

    byte 0       magic 0
    bytes 1..4   the schema id, big-endian: the registry's content id, which is the id of the Confluent API
                 (GET /apis/ccompat/v7/schemas/ids/{id})
    bytes 5..    the Avro binary encoding of the datum

and registers each schema under the subject `<topic>-key` / `<topic>-value` (Apicurio's TopicIdStrategy: the
artifact `<topic>-key`/`-value` of the default group, which the Confluent API shows as that subject).

    config = postgres_connector_config(..., **apicurio_avro_converter_config())
    registry = SchemaRegistry()
    for rec in read_avro_topic(bootstrap, topic, registry):
        rec.value.schema_id, rec.value.schema.json, rec.value.body, rec.value.decode()

Nothing here imports the project's own code: the harness must stay independent of what it checks.
"""

from __future__ import annotations

import io
import json
import os
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

import fastavro
import fastavro.schema

from tests.differential.debezium import CapturedRecord, http, read_topic

APICURIO_AVRO_CONVERTER = "io.apicurio.registry.utils.converter.AvroConverter"
#: The plugin.path directory the converter is in (below .devstack/debezium/plugins)
APICURIO_PLUGIN_DIR = "apicurio-converter"
MAGIC = 0
HEADER_SIZE = 5


def registry_root() -> str:
    """The devstack registry (devstack/registry.sh): http://127.0.0.1:$CW_REGISTRY_PORT (8081)."""
    return "http://127.0.0.1:" + os.environ.get("CW_REGISTRY_PORT", "8081")


def apicurio_avro_converter_settings(registry: str | None = None) -> dict[str, str]:
    """The settings of ONE Apicurio AvroConverter (without the `key.converter.` / `value.converter.` prefix) that
    make it write Confluent framing with the registry's content ids and auto-register under TopicNameStrategy
    subjects. Each is read by Apicurio 2.6.13's serde (SerdeConfig, SchemaResolverConfig):

    * apicurio.registry.url: the registry's v2 REST API, which Apicurio Registry 3.x still serves (the 2.6 client
      appends `apis/registry/v2/` itself when it is missing; written out here to be plain about it);
    * auto-register: create the artifact (or return the existing version with the same content: the default
      `auto-register.if-exists` is RETURN_OR_UPDATE) from the schema AvroData derived from the Connect schema;
    * as-confluent: Legacy4ByteIdHandler, a 4-byte id after the magic byte (the default is an 8-byte long);
    * use-id=contentId: write the content id, which is the id of the Confluent API (ccompat) in Apicurio 3 unless
      `apicurio.ccompat.legacy-id-mode.enabled`. The default, globalId, is the id of an artifact version: Apicurio
      3.3.3 advances both sequences on every registration, so the two are usually equal for a schema new to the
      registry, and a wrong setting only shows when the same content is registered under a second subject;
    * headers.enabled=false: ids in the payload; the default (true) writes them into record headers
      (apicurio.value.globalId ...) and the payload has no magic byte and no id at all, because Connect 4 always
      calls fromConnectData with the record's headers;
    * artifact-resolver-strategy: TopicIdStrategy, the serdes' default already, named so that nothing depends on
      that default (`<topic>-key` / `<topic>-value` artifacts in the default group);
    * find-latest=false: look schemas up by content, never take the latest version of the subject.
    """
    root = (registry or registry_root()).rstrip("/")
    return {
        "apicurio.registry.url": root + "/apis/registry/v2",
        "apicurio.registry.auto-register": "true",
        "apicurio.registry.as-confluent": "true",
        "apicurio.registry.use-id": "contentId",
        "apicurio.registry.headers.enabled": "false",
        "apicurio.registry.artifact-resolver-strategy": "io.apicurio.registry.serde.strategy.TopicIdStrategy",
        "apicurio.registry.find-latest": "false",
    }


def apicurio_avro_converter_config(
    registry: str | None = None, *, key: bool = True, value: bool = True
) -> dict[str, str]:
    """Connector-config overrides for "Debezium with the Apicurio Avro converter": `key.converter` and
    `value.converter` (either can be left to the worker's/caller's converter) with their settings."""
    config: dict[str, str] = {}
    settings = apicurio_avro_converter_settings(registry)
    for side, wanted in (("key", key), ("value", value)):
        if not wanted:
            continue
        prefix = f"{side}.converter"
        config[prefix] = APICURIO_AVRO_CONVERTER
        config.update({f"{prefix}.{k}": v for k, v in settings.items()})
    return config


# --------------------------------------------------------------------------------------------------------------------
# The registry's Confluent API


@dataclass(frozen=True)
class RegisteredSchema:
    """A schema as the registry returns it for an id (GET /apis/ccompat/v7/schemas/ids/{id})."""

    id: int
    #: the schema string exactly as the registry holds it
    text: str
    #: that string parsed, every attribute kept (connect.name, connect.version, connect.parameters, connect.default,
    #: default, ...): the attributes Connect's AvroData writes and that the parsing canonical form drops
    json: Any
    #: the Avro parsing canonical form (fastavro), what Avro itself considers the schema
    canonical: str
    #: fastavro's parsed schema, the writer schema to decode with
    parsed: Any = field(repr=False, compare=False)

    @property
    def json_text(self) -> str:
        """`json` as compact JSON, attribute order kept."""
        return json.dumps(self.json, separators=(",", ":"), ensure_ascii=False)


def raw_schema(avro: Any) -> Any:
    """An Avro schema (JSON data) without its logical types."""
    if isinstance(avro, dict):
        return {k: raw_schema(v) for k, v in avro.items() if k != "logicalType"}
    if isinstance(avro, list):
        return [raw_schema(v) for v in avro]
    return avro


class SchemaRegistry:
    """A small client of the Confluent API of the devstack's registry, caching schemas by id."""

    def __init__(self, root: str | None = None) -> None:
        self.root = (root or registry_root()).rstrip("/")
        self.ccompat = self.root + "/apis/ccompat/v7"
        self._by_id: dict[int, RegisteredSchema] = {}

    def _get(self, path: str) -> Any:
        answer = http("GET", self.ccompat + path)
        if answer.status != 200:
            raise LookupError(f"GET {path}: {answer.status} {answer.body.decode(errors='replace')}")
        return json.loads(answer.body)

    def schema(self, schema_id: int) -> RegisteredSchema:
        """The schema of an id, parsed (cached: ids are immutable)."""
        cached = self._by_id.get(schema_id)
        if cached is not None:
            return cached
        body = self._get(f"/schemas/ids/{schema_id}")
        if body.get("schemaType", "AVRO") != "AVRO":
            raise AssertionError(f"schema {schema_id} is {body.get('schemaType')}, not AVRO")
        text = body["schema"]
        doc = json.loads(text)
        # parsed without logical types: datums decode to their raw forms (decimal bytes, date ints), and a schema
        # Java's Avro accepts with an invalid logical type (AvroData's legacy decimal, scale > precision) parses
        parsed = fastavro.parse_schema(raw_schema(doc), _ignore_default_error=True)
        result = RegisteredSchema(
            id=schema_id,
            text=text,
            json=doc,
            canonical=fastavro.schema.to_parsing_canonical_form(parsed),
            parsed=parsed,
        )
        self._by_id[schema_id] = result
        return result

    def subjects(self) -> list[str]:
        """Every subject, page by page: Apicurio answers at most its `maxSubjects` (1000) per request, the oldest
        first, so one plain GET /subjects misses the newest subjects of a registry that many runs filled."""
        result: list[str] = []
        page = 1000
        while True:
            batch: list[str] = self._get(f"/subjects?offset={len(result)}&limit={page}")
            result.extend(batch)
            if len(batch) < page:
                return result

    def versions(self, subject: str) -> list[int]:
        result: list[int] = self._get(f"/subjects/{urllib.parse.quote(subject, safe='')}/versions")
        return result

    def version(self, subject: str, version: int | str = "latest") -> Any:
        """GET /subjects/{subject}/versions/{version}: subject, version, id, schema (, schemaType)."""
        return self._get(f"/subjects/{urllib.parse.quote(subject, safe='')}/versions/{version}")

    def lookup(self, subject: str, schema_text: str) -> Any:
        """POST /subjects/{subject}: the version of `subject` holding exactly this schema (no registration)."""
        quoted = urllib.parse.quote(subject, safe="")
        answer = http("POST", f"{self.ccompat}/subjects/{quoted}", {"schema": schema_text})
        if answer.status != 200:
            raise LookupError(f"POST /subjects/{subject}: {answer.status} {answer.body.decode(errors='replace')}")
        return json.loads(answer.body)

    def register(self, subject: str, schema_text: str) -> int:
        """POST /subjects/{subject}/versions: the id of the schema (registered if it is new to the subject)."""
        quoted = urllib.parse.quote(subject, safe="")
        answer = http("POST", f"{self.ccompat}/subjects/{quoted}/versions", {"schema": schema_text})
        if answer.status != 200:
            body = answer.body.decode(errors="replace")
            raise LookupError(f"POST /subjects/{subject}/versions: {answer.status} {body}")
        schema_id: int = json.loads(answer.body)["id"]
        return schema_id

    def artifact_version(self, subject: str, version: int | str = 1) -> Any:
        """Apicurio's own metadata of a subject's version (API v3, default group): globalId, contentId, ..."""
        quoted = urllib.parse.quote(subject, safe="")
        answer = http("GET", f"{self.root}/apis/registry/v3/groups/default/artifacts/{quoted}/versions/{version}")
        if answer.status != 200:
            raise LookupError(f"v3 {subject} version {version}: {answer.status} {answer.body.decode(errors='replace')}")
        return json.loads(answer.body)

    def delete_subjects(self, subjects: list[str]) -> None:
        """Remove the harness's own subjects (soft then permanent delete); errors are ignored."""
        for subject in subjects:
            quoted = urllib.parse.quote(subject, safe="")
            http("DELETE", f"{self.ccompat}/subjects/{quoted}")
            http("DELETE", f"{self.ccompat}/subjects/{quoted}?permanent=true")


# --------------------------------------------------------------------------------------------------------------------
# Records


@dataclass(frozen=True)
class AvroPart:
    """A framed key or value: the schema id, the registry's schema for it and the Avro body after the header."""

    schema_id: int
    schema: RegisteredSchema
    body: bytes

    def decode(self) -> Any:
        """The datum (logical types in their raw forms), read with the registry's schema as the writer schema; the
        body must be read to its end."""
        stream = io.BytesIO(self.body)
        datum = fastavro.schemaless_reader(stream, self.schema.parsed, None)
        rest = len(self.body) - stream.tell()
        if rest:
            raise ValueError(f"{rest} bytes after the Avro datum of schema {self.schema_id}")
        return datum


@dataclass(frozen=True)
class AvroRecord:
    record: CapturedRecord
    key: AvroPart | None
    value: AvroPart | None


def split_frame(data: bytes) -> tuple[int, bytes]:
    """(schema id, Avro body) of Confluent-framed bytes; ValueError unless byte 0 is the magic 0."""
    if len(data) < HEADER_SIZE or data[0] != MAGIC:
        raise ValueError(f"not Confluent-framed: {data[:HEADER_SIZE].hex()} ({len(data)} bytes)")
    return int.from_bytes(data[1:HEADER_SIZE], "big"), data[HEADER_SIZE:]


def avro_part(data: bytes | None, registry: SchemaRegistry) -> AvroPart | None:
    """The framed bytes of a key or value with their schema (None for a null key or a tombstone)."""
    if data is None:
        return None
    schema_id, body = split_frame(data)
    return AvroPart(schema_id, registry.schema(schema_id), body)


def avro_records(records: list[CapturedRecord], registry: SchemaRegistry) -> list[AvroRecord]:
    return [AvroRecord(r, avro_part(r.key, registry), avro_part(r.value, registry)) for r in records]


def read_avro_topic(
    bootstrap: str, topic: str, registry: SchemaRegistry | None = None, *, timeout: float = 30.0
) -> list[AvroRecord]:
    """Everything in `topic` (read to the high watermarks seen at the start), each key and value split into
    schema id, registered schema and Avro body."""
    return avro_records(read_topic(bootstrap, topic, timeout=timeout), registry or SchemaRegistry())


__all__ = [
    "APICURIO_AVRO_CONVERTER",
    "HEADER_SIZE",
    "MAGIC",
    "AvroPart",
    "AvroRecord",
    "RegisteredSchema",
    "SchemaRegistry",
    "apicurio_avro_converter_config",
    "apicurio_avro_converter_settings",
    "avro_part",
    "avro_records",
    "read_avro_topic",
    "registry_root",
    "split_frame",
]
