"""Two server processes' worth of state on one Redis: versioned writes mean a stale server can never
overwrite or repeat a change; it is told `conflict`, reloads, and then sees the truth."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.app import Limits, WhistServer
from server.client import ServerError, WhistClient
from server.store.redis import RedisStore


@pytest.fixture
async def two_servers(redis_url: str, redis_cleanup: str) -> AsyncIterator[list[WhistServer]]:
    servers = [WhistServer(RedisStore(redis_url, prefix=redis_cleanup), bot_delay=0.0,
                           limits=Limits(200.0, 400.0)) for _ in range(2)]
    for server in servers:
        await server.start("127.0.0.1", 0)
    yield servers
    for server in servers:
        await server.stop()


def url_of(server: WhistServer) -> str:
    assert server.server is not None
    host, port = next(iter(server.server.sockets)).getsockname()[:2]
    return f"ws://{host}:{port}/ws"


async def test_a_stale_server_gets_a_conflict_and_nothing_is_applied_twice(
    two_servers: list[WhistServer],
) -> None:
    url_a, url_b = (url_of(server) for server in two_servers)
    on_a = [await WhistClient.connect(url_a, name=f"A{seat}") for seat in range(4)]
    await on_a[0].create_room("solo-whist", seat=0, session={"deals": 1})
    room_id = on_a[0].room_id
    assert room_id is not None
    for seat in (1, 2, 3):
        await on_a[seat].join(room_id, seat)
    await on_a[0].start()
    await on_a[0].wait_for(lambda c: c.view is not None)
    view = on_a[0].view
    assert view is not None
    mover = view["to_act"][0]
    token = on_a[mover].token
    assert token is not None

    # The same player acts through server B (which loads the room from Redis)...
    on_b = await WhistClient.connect(url_b, name="B")
    await on_b.resume(room_id, token)
    await on_b.act("pass")
    # ...then again through server A, whose copy of the room is now stale.
    with pytest.raises(ServerError) as caught:
        await on_a[mover].act("pass")
    assert caught.value.code == "conflict" and "retry" in caught.value.message
    # A reloaded the room: the retry is judged on the stored state.
    with pytest.raises(ServerError) as caught:
        await on_a[mover].act("pass")
    assert caught.value.code == "not_your_turn"
    log = await two_servers[0].store.read_log(room_id)
    acts = [entry for entry in log if entry["t"] == "act"]
    assert acts == [{"t": "act", "deal": 0, "seat": mover, "action": "pass"}], "applied exactly once"
    stored = await two_servers[0].store.load(room_id)
    assert stored is not None and stored.version == two_servers[1].tables.rooms[room_id].version
    for client in (*on_a, on_b):
        await client.close()
