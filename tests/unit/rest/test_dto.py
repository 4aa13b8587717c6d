"""Binding request bodies the way Connect's Jackson does."""

from __future__ import annotations

import pytest

from connect_worker.runtime.herder import TargetState
from rest import dto
from rest.errors import RestError


def test_numbers_keep_their_source_text_in_configs() -> None:
    body = dto.parse_json(b'{"a": 2, "b": -0.50, "c": 1e10, "d": true, "e": false, "f": "x", "g": null}')

    # null stays null, as real Connect 4.3.1 stores and answers it (for the connector it is unset; a PATCH
    # removes the key)
    expected = {"a": "2", "b": "-0.50", "c": "1e10", "d": "true", "e": "false", "f": "x", "g": None}
    assert dto.config_map(body) == expected
    assert dto.config_patch(body) == expected
    assert type(dto.config_map(body)["a"]) is str  # type: ignore[index]


def test_empty_body_is_null_and_bom_is_skipped() -> None:
    assert dto.parse_json(b"") is None
    assert dto.parse_json(b" \r\n") is None
    assert dto.parse_json(b'\xef\xbb\xbf{"a":"b"}') == {"a": "b"}


@pytest.mark.parametrize("raw", [b'{"a":', b"{'a': 1}", b'{"a" 1}', b"[1,]", b'{"a": NaN}', b"\xff"])
def test_malformed_json_is_500(raw: bytes) -> None:
    with pytest.raises(RestError) as caught:
        dto.parse_json(raw)
    assert caught.value.status == 500
    assert "[Source: REDACTED" in caught.value.message


def test_create_request() -> None:
    req = dto.create_request({"name": " \tfs\n", "config": {"k": dto.JsonNumber("3")}, "initial_state": "paused"})

    assert req == dto.CreateConnectorRequest("fs", {"k": "3"}, TargetState.PAUSED)
    assert dto.create_request({"config": {}}).name == ""
    assert dto.create_request({"name": dto.JsonNumber("12"), "config": {}}).name == "12"


def test_create_request_shapes() -> None:
    with pytest.raises(RestError) as top:
        dto.create_request([1])
    with pytest.raises(RestError) as name:
        dto.create_request({"name": {"x": 1}, "config": {}})

    assert top.value.message == (
        "Cannot deserialize value of type `org.apache.kafka.connect.runtime.rest.entities.CreateConnectorRequest`"
        " from Array value (token `JsonToken.START_ARRAY`)"
    )
    assert name.value.message.endswith('CreateConnectorRequest["name"])')


def test_java_trim_keeps_non_ascii_spaces() -> None:
    assert dto.java_trim("\x00 a b\x1f ") == "a b"
    assert dto.java_trim("\u00a0a\u00a0") == "\u00a0a\u00a0"


def test_put_connector_name() -> None:
    assert list(dto.put_connector_name("fs", {"a": "1"}).items()) == [("a", "1"), ("name", "fs")]
    assert dto.put_connector_name("fs", {"name": "fs", "a": "1"}) == {"name": "fs", "a": "1"}
    with pytest.raises(RestError) as caught:
        dto.put_connector_name("fs", {"name": "fs "})
    assert caught.value.status == 400


def test_offsets_request_converts_numbers_and_leaves_values_to_the_herder() -> None:
    body = dto.parse_json(
        b'{"offsets":[{"partition":{"p":1},"offset":{"a":1,"b":2.5,"c":"x","d":true,"e":null}},'
        b'{"partition":{"p":2},"offset":null}]}'
    )

    first, second = dto.offsets_request(body)

    assert first.partition == {"p": 1}
    assert first.offset == {"a": 1, "b": 2.5, "c": "x", "d": True, "e": None}
    assert second.offset is None
    # Connect checks the values after the STOPPED check (a running connector gets that 400 first)
    assert dto.offsets_request({"offsets": [{"partition": {}, "offset": {"a": {}}}]})[0].offset == {"a": {}}
    with pytest.raises(RestError) as missing:
        dto.offsets_request({"offsets": [{"offset": {}}]})
    assert missing.value.status == 400


def test_logger_level_request() -> None:
    assert dto.logger_level_request({"level": "trace"}) == "TRACE"
    assert dto.logger_level_request({"level": "Off"}) == "OFF"
    with pytest.raises(RestError) as numeric:
        dto.logger_level_request({"level": dto.JsonNumber("5")})
    assert (numeric.value.status, numeric.value.message) == (404, "invalid log level '5'.")
    with pytest.raises(RestError) as empty:
        dto.logger_level_request(None)
    assert empty.value.status == 400
