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


async def test_a_stale_server_never_refuses_a_legal_move_nor_applies_one_twice(
    two_servers: list[WhistServer],
) -> None:
    # These two servers do not tell each other of their changes (each has its own in-memory
    # coordination): the store alone decides, as when a fan-out message is lost.
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
    # ...then again through server A, whose copy of the room is now stale: A reloads and judges the
    # request on the stored state (it is no longer that player's turn).
    with pytest.raises(ServerError) as caught:
        await on_a[mover].act("pass")
    assert caught.value.code == "not_your_turn"
    log = await two_servers[0].store.read_log(room_id)
    acts = [entry for entry in log if entry["t"] == "act"]
    assert acts == [{"t": "act", "deal": 0, "seat": mover, "action": "pass"}], "applied exactly once"

    # The player after next takes a connection through B; then the next player acts through A, so
    # B's copy is one action behind (it thinks the next player is still to act)...
    nxt, third = (mover + 1) % 4, (mover + 2) % 4
    third_token = on_a[third].token
    assert third_token is not None
    on_b3 = await WhistClient.connect(url_b, name="B3")
    await on_b3.resume(room_id, third_token)
    await on_a[nxt].wait_for(lambda c: c.view is not None and nxt in c.view["to_act"])
    await on_a[nxt].act(first_legal(on_a[nxt]))
    await on_a[third].wait_for(lambda c: c.view is not None and third in c.view["to_act"])
    # ...and B still accepts that player's legal move: it reloads instead of refusing it.
    await on_b3.act(first_legal(on_a[third]))
    log = await two_servers[0].store.read_log(room_id)
    assert [entry["seat"] for entry in log if entry["t"] == "act"] == [mover, nxt, third]
    for client in (*on_a, on_b, on_b3):
        await client.close()


def first_legal(client: WhistClient) -> str:
    """`pass` if the client's seat may pass, else its first legal action."""
    assert client.view is not None
    legal = list(client.view["legal"])
    return "pass" if "pass" in legal else str(legal[0])
