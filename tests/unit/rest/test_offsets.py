"""/connectors/{c}/offsets (KIP-875): texts and statuses from the Kafka Connect 4.3 captures."""

from __future__ import annotations

import httpx

from tests.unit.rest.helpers import create, error, send
from tests.unit.runtime.fakes import HerderRig

PG_CONFIG = {
    "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
    "topic.prefix": "dbserver1",
    "database.hostname": "127.0.0.1",
}
PG_OFFSET = {
    "lsn_proc": 22183280,
    "messageType": "COMMIT",
    "lsn_commit": 22183280,
    "lsn": 22183280,
    "txId": 731,
    "ts_usec": 1795303602366693,
}
STOP_FIRST = (
    "Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the "
    "specified connector by issuing a 'PUT' request to the '/connectors/fs/stop' endpoint"
)


async def test_get_offsets_in_any_state(client: httpx.AsyncClient, rig: HerderRig) -> None:
    await create(client, "pg", PG_CONFIG)
    assert (await client.get("/connectors/pg/offsets")).json() == {"offsets": []}
    await rig.offsets.write("pg", [({"server": "dbserver1"}, PG_OFFSET)])

    response = await client.get("/connectors/pg/offsets")

    assert response.status_code == 200
    assert response.content == (
        b'{"offsets":[{"partition":{"server":"dbserver1"},"offset":{"lsn_proc":22183280,"messageType":"COMMIT",'
        b'"lsn_commit":22183280,"lsn":22183280,"txId":731,"ts_usec":1795303602366693}}]}'
    )


async def test_alter_requires_stopped(client: httpx.AsyncClient) -> None:
    await create(client)
    body = {"offsets": [{"partition": {"filename": "/data/in.txt"}, "offset": {"position": 5}}]}

    running = await send(client, "PATCH", "/connectors/fs/offsets", body)
    await client.put("/connectors/fs/pause")
    paused = await send(client, "PATCH", "/connectors/fs/offsets", body)
    reset = await client.delete("/connectors/fs/offsets")

    assert error(running) == (400, STOP_FIRST)
    assert error(paused) == (400, STOP_FIRST)
    assert error(reset) == (400, STOP_FIRST)


async def test_alter_and_reset_when_stopped(client: httpx.AsyncClient, rig: HerderRig) -> None:
    await create(client)
    await client.put("/connectors/fs/stop")
    body = {"offsets": [{"partition": {"filename": "/data/in.txt"}, "offset": {"position": 5, "x": 1.5}}]}

    altered = await send(client, "PATCH", "/connectors/fs/offsets?forward=false", body)

    assert altered.status_code == 200
    assert altered.json() == {"message": "The offsets for this connector have been altered successfully"}
    (stored,) = rig.offsets.connector_offsets("fs")
    assert stored.partition == {"filename": "/data/in.txt"}
    assert stored.offset == {"position": 5, "x": 1.5}
    assert type(stored.offset["position"]) is int
    assert rig.worker.altered[-1][1] == {(("filename", "/data/in.txt"),): {"position": 5, "x": 1.5}}  # as told
    assert (await client.get("/connectors/fs/offsets")).json() == {
        "offsets": [{"partition": {"filename": "/data/in.txt"}, "offset": {"position": 5, "x": 1.5}}]
    }

    reset = await client.delete("/connectors/fs/offsets")

    assert reset.status_code == 200
    assert reset.json() == {"message": "The offsets for this connector have been reset successfully"}
    assert (await client.get("/connectors/fs/offsets")).json() == {"offsets": []}


async def test_framework_managed_message_for_connectors_that_do_not_alter(client: httpx.AsyncClient) -> None:
    await create(client, "pg", PG_CONFIG, initial_state="STOPPED")
    body = {"offsets": [{"partition": {"server": "dbserver1"}, "offset": None}]}

    altered = await send(client, "PATCH", "/connectors/pg/offsets", body)
    reset = await client.delete("/connectors/pg/offsets")

    assert altered.json() == {
        "message": "The Connect framework-managed offsets for this connector have been altered successfully. "
        "However, if this connector manages offsets externally, they will need to be manually altered in the "
        "system that the connector uses."
    }
    assert reset.json() == {
        "message": "The Connect framework-managed offsets for this connector have been reset successfully. "
        "However, if this connector manages offsets externally, they will need to be manually reset in the "
        "system that the connector uses."
    }


async def test_alter_needs_offsets(client: httpx.AsyncClient) -> None:
    await create(client, initial_state="STOPPED")
    expected = (400, "Partitions / offsets need to be provided for an alter offsets request")

    assert error(await send(client, "PATCH", "/connectors/fs/offsets", {"offsets": []})) == expected
    assert error(await send(client, "PATCH", "/connectors/fs/offsets", {})) == expected


async def test_offset_values_must_be_primitive(client: httpx.AsyncClient) -> None:
    await create(client, initial_state="STOPPED")

    array = {"offsets": [{"partition": {"filename": "f"}, "offset": {"position": [1]}}]}
    nested = {"offsets": [{"partition": {"filename": {"a": 1}}, "offset": {"position": 1}}]}

    assert error(await send(client, "PATCH", "/connectors/fs/offsets", array)) == (
        500,
        "Offsets may only contain primitive types as values, but field position contains ARRAY",
    )
    assert error(await send(client, "PATCH", "/connectors/fs/offsets", nested)) == (
        500,
        "Offsets may only contain primitive types as values, but field filename contains MAP",
    )


async def test_offsets_of_wrong_shape_are_500(client: httpx.AsyncClient) -> None:
    await create(client, initial_state="STOPPED")

    status, message = error(await send(client, "PATCH", "/connectors/fs/offsets", {"offsets": {"a": 1}}))

    assert status == 500
    assert message.startswith("Cannot deserialize value of type `java.util.ArrayList<")
    assert message.endswith('ConnectorOffsets["offsets"])')
