"""Fixtures: the REST app over the real StandaloneHerder (on in-memory stores and a fake Worker, see
tests/unit/runtime/fakes.py), driven in-process through httpx's ASGI transport."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from connect_worker.runtime.standalone_herder import StandaloneHerder
from rest.app import create_app
from tests.unit.rest.helpers import rest_rig
from tests.unit.runtime.fakes import HerderRig

BASE_URL = "http://127.0.0.1:18083"


@pytest.fixture
async def rig() -> AsyncIterator[HerderRig]:
    rig = rest_rig()
    await rig.herder.start()
    yield rig
    await rig.herder.stop()


@pytest.fixture
def herder(rig: HerderRig) -> StandaloneHerder:
    return rig.herder


@pytest.fixture
async def client(herder: StandaloneHerder) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=create_app(herder))
    async with httpx.AsyncClient(transport=transport, base_url=BASE_URL) as c:
        yield c
