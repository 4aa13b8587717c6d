"""A self-signed certificate for 127.0.0.1/localhost, made for the test by the openssl command line (the
`cryptography` package is not a dependency of the project)."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
from pathlib import Path

import pytest


@dataclasses.dataclass(frozen=True)
class Pem:
    cert: Path  # the certificate alone (what a client trusts)
    key: Path  # the private key alone (encrypted when a password was asked for)
    store: Path  # key then certificate: what ssl.keystore.location names


def make_certificate(folder: Path, *, password: str | None = None, name: str = "server") -> Pem:
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.fail("the openssl command is needed to make a test certificate (apt-get install openssl)")
    folder.mkdir(parents=True, exist_ok=True)
    key, cert, store = folder / f"{name}-key.pem", folder / f"{name}-cert.pem", folder / f"{name}-store.pem"
    subprocess.run(
        [
            openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
            "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )  # fmt: skip
    if password is not None:
        encrypted = folder / f"{name}-key-enc.pem"
        subprocess.run(
            [openssl, "pkey", "-in", str(key), "-aes256", "-passout", f"pass:{password}", "-out", str(encrypted)],
            check=True,
            capture_output=True,
            timeout=60,
        )
        key = encrypted
    store.write_text(key.read_text() + cert.read_text())
    return Pem(cert, key, store)
