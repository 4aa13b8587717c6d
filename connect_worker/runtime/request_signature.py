"""Signed inter-worker requests (KIP-507, the `sessioned` group protocol): the leader puts a random session key in
the config topic (`session-key`: {"key": base64, "algorithm": "HmacSHA256", "creation-timestamp": ms}) and renews it
every `inter.worker.key.ttl.ms`; a worker calling another's internal endpoint (`POST /connectors/{c}/tasks`) sends
the HMAC of the request body under that key in `X-Connect-Authorization` (base64) and the MAC's name in
`X-Connect-Request-Signature-Algorithm`; the receiver checks it. As Connect's InternalRequestSignature does.

Pure: bytes in, values out.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import hashlib
import hmac
from collections.abc import Mapping
from typing import Any

from connect_worker.api.errors import BadRequestError

SIGNATURE_HEADER = "X-Connect-Authorization"
ALGORITHM_HEADER = "X-Connect-Request-Signature-Algorithm"
SESSION_KEY_RECORD = "session-key"

# Java's MAC names and their digests; the key sizes are what the JDK's KeyGenerator makes without a size given
DIGESTS = {
    "HmacSHA1": "sha1",
    "HmacSHA224": "sha224",
    "HmacSHA256": "sha256",
    "HmacSHA384": "sha384",
    "HmacSHA512": "sha512",
}
DEFAULT_KEY_BYTES = {"HmacSHA1": 64, "HmacSHA224": 28, "HmacSHA256": 32, "HmacSHA384": 48, "HmacSHA512": 64}


@dataclasses.dataclass(frozen=True, slots=True)
class SessionKey:
    key: bytes = dataclasses.field(repr=False)
    algorithm: str
    created_ms: int

    def to_json(self) -> dict[str, Any]:
        return {
            "key": base64.b64encode(self.key).decode("ascii"),
            "algorithm": self.algorithm,
            "creation-timestamp": self.created_ms,
        }

    @classmethod
    def from_json(cls, value: Any) -> SessionKey | None:
        """The key of a `session-key` record; None for a malformed one."""
        if not isinstance(value, dict):
            return None
        key, algorithm, created = value.get("key"), value.get("algorithm"), value.get("creation-timestamp")
        if not isinstance(key, str) or not isinstance(algorithm, str) or not isinstance(created, int):
            return None
        try:
            return cls(base64.b64decode(key, validate=True), algorithm, created)
        except (binascii.Error, ValueError):
            return None


def sign(key: bytes, algorithm: str, body: bytes) -> bytes:
    return hmac.new(key, body, DIGESTS[algorithm]).digest()


def signature_headers(key: SessionKey, algorithm: str, body: bytes) -> dict[str, str]:
    return {
        SIGNATURE_HEADER: base64.b64encode(sign(key.key, algorithm, body)).decode("ascii"),
        ALGORITHM_HEADER: algorithm,
    }


@dataclasses.dataclass(frozen=True, slots=True)
class RequestSignature:
    """A request's signature as received: the MAC's name, the signature, and the body it should cover."""

    algorithm: str
    signature: bytes
    body: bytes

    @classmethod
    def from_headers(cls, headers: Mapping[str, str], body: bytes) -> RequestSignature | None:
        """None when either header is missing; BadRequestError for an unknown MAC or a signature not in base64."""
        lowered = {k.lower(): v for k, v in headers.items()}
        algorithm, encoded = lowered.get(ALGORITHM_HEADER.lower()), lowered.get(SIGNATURE_HEADER.lower())
        if algorithm is None or encoded is None:
            return None
        if algorithm not in DIGESTS:
            raise BadRequestError(f"Algorithm {algorithm} not available")
        try:
            signature = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError) as e:
            raise BadRequestError(str(e)) from None
        return cls(algorithm, signature, body)

    def valid(self, key: SessionKey) -> bool:
        return hmac.compare_digest(sign(key.key, self.algorithm, self.body), self.signature)


def new_key(algorithm: str, size_bits: int | None, now_ms: int) -> SessionKey:
    import secrets

    size = DEFAULT_KEY_BYTES[algorithm] if size_bits is None else size_bits // 8
    return SessionKey(secrets.token_bytes(size), algorithm, now_ms)


def digest_available(algorithm: str) -> bool:
    return algorithm in DIGESTS and DIGESTS[algorithm] in hashlib.algorithms_available
