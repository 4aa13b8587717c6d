"""The converter modes of a run, as connector settings of each system (key and value converter alike).

* `schemas_off` / `schemas_on`: JsonConverter with `schemas.enable` false / true, both systems.
* `avro`: keys and values in Avro through the devstack's schema registry (Apicurio Registry), Confluent framing:
  - this worker: `io.confluent.connect.avro.AvroConverter`, `schema.registry.url` = the registry's Confluent API;
  - Debezium: Apicurio Registry's Java converter `io.apicurio.registry.utils.converter.AvroConverter` (2.6.13, in
    Kafka Connect's plugin.path: devstack/debezium.sh), set up to write the same framing and subjects
    (the settings of tests/differential/avro_support.py, copied: the benchmarks do not import the tests' Avro
    helpers).
"""

from __future__ import annotations

from benchmarks.settings import REGISTRY_ROOT, REGISTRY_URL

JSON_MODES = ("schemas_off", "schemas_on")
AVRO = "avro"

OURS_AVRO_CONVERTER = "io.confluent.connect.avro.AvroConverter"
APICURIO_AVRO_CONVERTER = "io.apicurio.registry.utils.converter.AvroConverter"


def apicurio_settings(registry_root: str = REGISTRY_ROOT) -> dict[str, str]:
    """One Apicurio AvroConverter's settings (without the `key.converter.` / `value.converter.` prefix):
    * apicurio.registry.url: the registry's v2 REST API (Apicurio Registry 3 still serves it);
    * auto-register: register the schema AvroData derives (or return the version with the same content);
    * as-confluent: a 4-byte id after the magic byte (the default is an 8-byte long);
    * use-id=contentId: write the content id, which is the id of the Confluent API (GET /schemas/ids/{id});
    * headers.enabled=false: the id in the payload (the default writes it into record headers, with no framing);
    * artifact-resolver-strategy TopicIdStrategy: subjects `<topic>-key` / `<topic>-value`, as ours;
    * find-latest=false: look schemas up by content, never take the subject's latest version."""
    return {
        "apicurio.registry.url": registry_root.rstrip("/") + "/apis/registry/v2",
        "apicurio.registry.auto-register": "true",
        "apicurio.registry.as-confluent": "true",
        "apicurio.registry.use-id": "contentId",
        "apicurio.registry.headers.enabled": "false",
        "apicurio.registry.artifact-resolver-strategy": "io.apicurio.registry.serde.strategy.TopicIdStrategy",
        "apicurio.registry.find-latest": "false",
    }


def ours_avro_settings(registry_url: str = REGISTRY_URL) -> dict[str, str]:
    """This worker's AvroConverter settings (without prefix): the registry's Confluent API, all else default."""
    return {"schema.registry.url": registry_url}


def converter_config(kind: str, mode: str) -> dict[str, str]:
    """The `key.converter*` / `value.converter*` connector settings of `kind` ("ours" or "debezium") in `mode`."""
    if mode in JSON_MODES:
        flag = "true" if mode == "schemas_on" else "false"
        return {
            "key.converter": "org.apache.kafka.connect.json.JsonConverter",
            "key.converter.schemas.enable": flag,
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter.schemas.enable": flag,
        }
    if mode != AVRO:
        raise ValueError(f"unknown converter mode {mode!r}")
    if kind == "ours":
        cls, settings = OURS_AVRO_CONVERTER, ours_avro_settings()
    else:
        cls, settings = APICURIO_AVRO_CONVERTER, apicurio_settings()
    config: dict[str, str] = {}
    for side in ("key", "value"):
        config[f"{side}.converter"] = cls
        config.update({f"{side}.converter.{k}": v for k, v in settings.items()})
    return config
