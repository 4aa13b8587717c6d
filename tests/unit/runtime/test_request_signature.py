"""Signed inter-worker requests: the MAC (RFC 4231's HMAC-SHA-256 test case 2), the headers, the session-key
record as Connect writes it, and what a malformed signature is answered."""

from __future__ import annotations

import base64

import pytest

from connect_worker.api.errors import BadRequestError
from connect_worker.runtime.request_signature import (
    ALGORITHM_HEADER,
    SIGNATURE_HEADER,
    RequestSignature,
    SessionKey,
    new_key,
    sign,
    signature_headers,
)


def test_hmac_sha256_of_rfc_4231() -> None:
    mac = sign(b"Jefe", "HmacSHA256", b"what do ya want for nothing?")
    assert mac.hex() == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"


def test_headers_verify_and_a_changed_body_or_key_does_not() -> None:
    key = SessionKey(b"k" * 32, "HmacSHA256", 1)
    body = b'[{"a":"b"}]'
    headers = signature_headers(key, "HmacSHA256", body)
    assert headers[ALGORITHM_HEADER] == "HmacSHA256"
    received = RequestSignature.from_headers({k.lower(): v for k, v in headers.items()}, body)
    assert received is not None and received.valid(key)
    assert not RequestSignature.from_headers(headers, body + b" ").valid(key)  # type: ignore[union-attr]
    assert not received.valid(SessionKey(b"j" * 32, "HmacSHA256", 1))
    assert RequestSignature.from_headers({SIGNATURE_HEADER: headers[SIGNATURE_HEADER]}, body) is None


def test_malformed_signatures_are_bad_requests() -> None:
    with pytest.raises(BadRequestError, match="Algorithm HmacMD5 not available"):
        RequestSignature.from_headers({SIGNATURE_HEADER: "AAAA", ALGORITHM_HEADER: "HmacMD5"}, b"")
    with pytest.raises(BadRequestError):
        RequestSignature.from_headers({SIGNATURE_HEADER: "not base64!", ALGORITHM_HEADER: "HmacSHA256"}, b"")


def test_session_key_record_as_connect_writes_it() -> None:
    key = new_key("HmacSHA256", None, 1_795_303_551_831)
    assert len(key.key) == 32  # the JDK's KeyGenerator default for HmacSHA256
    record = key.to_json()
    assert list(record) == ["key", "algorithm", "creation-timestamp"]
    assert base64.b64decode(record["key"]) == key.key and record["algorithm"] == "HmacSHA256"
    assert SessionKey.from_json(record) == key
    assert len(new_key("HmacSHA512", 1024, 0).key) == 128
    for broken in (None, {}, {"key": "!!", "algorithm": "HmacSHA256", "creation-timestamp": 1}, {"key": "AA=="}):
        assert SessionKey.from_json(broken) is None
