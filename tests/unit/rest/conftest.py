"""Fixtures: the REST app over an in-memory Herder, driven in-process through httpx's ASGI transport."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from rest.app import create_app
from tests.unit.rest.memory_herder import MemoryHerder

BASE_URL = "http://127.0.0.1:18083"


@pytest.fixture
def herder() -> MemoryHerder:
    return MemoryHerder()


@pytest.fixture
async def client(herder: MemoryHerder) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=create_app(herder))
    async with httpx.AsyncClient(transport=transport, base_url=BASE_URL) as c:
        yield c
