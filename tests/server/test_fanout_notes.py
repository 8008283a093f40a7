"""Two server processes' worth of state on one Redis, coordinated through it (server/live/shared.py): a
room whose publications reach no other process sends notes of its version only, and a process that
starts following it mid-deal (a spectator connects there) still sees every move after that."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.app import Limits, WhistServer
from server.client import WhistClient
from server.coord import redis_coordination
from server.store.redis import RedisStore


@pytest.fixture
async def coordinated(redis_url: str, redis_cleanup: str) -> AsyncIterator[list[WhistServer]]:
    servers = [WhistServer(RedisStore(redis_url, prefix=redis_cleanup), bot_delay=0.0,
                           limits=Limits(200.0, 400.0),
                           coordination=redis_coordination(redis_url, f"p{index}", prefix=redis_cleanup))
               for index in range(2)]
    for server in servers:
        await server.start("127.0.0.1", 0)
    yield servers
    for server in servers:
        await server.stop()


def url_of(server: WhistServer) -> str:
    assert server.server is not None
    host, port = next(iter(server.server.sockets)).getsockname()[:2]
    return f"ws://{host}:{port}/ws"


async def play_one(players: list[WhistClient]) -> WhistClient:
    """The seat to act takes its last legal action (a call rather than a pass: no thrown-in deal); the
    player who acted (its state is the room's after the move)."""
    await players[0].wait_for(lambda client: client.view is not None and bool(client.view["to_act"]))
    assert players[0].view is not None
    mover = players[players[0].view["to_act"][0]]
    await mover.wait_for(lambda client: client.my_turn())
    assert mover.view is not None
    await mover.act(mover.view["legal"][-1])
    return mover


def stored_publications(published: list[tuple[str, dict[str, Any]]], room_id: str) -> list[dict[str, Any]]:
    """What was published of the room's stored changes, in order."""
    return [payload for room, payload in published
            if room == room_id and payload.get("change", {}).get("stored")]


async def test_a_room_followed_nowhere_else_publishes_notes_and_a_late_follower_sees_every_move(
        coordinated: list[WhistServer]) -> None:
    a, b = coordinated
    published: list[tuple[str, dict[str, Any]]] = []
    fanout = a.tables.shared.coord.fanout
    publish_many = fanout.publish_many

    async def recording(changes: list[tuple[str, dict[str, Any]]]) -> list[int]:
        published.extend(changes)
        return await publish_many(changes)

    fanout.publish_many = recording  # type: ignore[method-assign]
    players = [await WhistClient.connect(url_of(a), name=f"P{seat}") for seat in range(4)]
    await players[0].create_room("solo-whist", seat=0, session={"deals": 1})
    room_id = players[0].room_id
    assert room_id is not None
    for seat in (1, 2, 3):
        await players[seat].join(room_id, seat)
    await players[0].start()
    await players[0].wait_for(lambda client: client.view is not None)
    for _ in range(3):
        await play_one(players)
    # Only A follows the room: after the first publication found nobody else, the rest are notes.
    moves = stored_publications(published, room_id)
    assert moves and "state" not in moves[-1] and not moves[-1]["change"]["entries"]

    watcher = await WhistClient.connect(url_of(b), name="Watcher")
    await watcher.watch(room_id)
    for _ in range(6):
        mover = await play_one(players)
        assert mover.room is not None and mover.view is not None
        version = int(mover.room["version"])
        await watcher.wait_for(lambda client, at=version: client.room is not None
                               and client.room["version"] >= at)
        assert watcher.view is not None and watcher.room is not None and watcher.room["version"] == version
        assert watcher.view["tricks"] == mover.view["tricks"] and watcher.view["calls"] == mover.view["calls"]
    # B follows the room now: A's publications carry the state again.
    last = stored_publications(published, room_id)
    assert "state" in last[-1] and last[-1]["change"]["entries"]
    for client in (*players, watcher):
        await client.close()
