"""Two server processes' worth of state on one Redis: versioned writes mean a stale server can never
overwrite or repeat a change; it is told `conflict`, reloads, and then sees the truth. Coordinated
through Redis (server/live/shared.py), a room whose publications reach no other process sends notes of
its version only, and a process that starts following it mid-deal still sees every move after that."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.client import ServerError, WhistClient
from server.coord import redis_coordination
from server.server import WhistServer
from server.settings import Limits
from server.store.redis import RedisStore
from server.table import from_stored


async def started(servers: list[WhistServer]) -> AsyncIterator[list[WhistServer]]:
    for server in servers:
        await server.start("127.0.0.1", 0)
    yield servers
    for server in servers:
        await server.stop()


@pytest.fixture
async def two_servers(redis_url: str, redis_cleanup: str) -> AsyncIterator[list[WhistServer]]:
    """Two servers on one Redis store, each with its own in-memory coordination (they never talk)."""
    async for servers in started([WhistServer(RedisStore(redis_url, prefix=redis_cleanup), bot_delay=0.0,
                                              limits=Limits(200.0, 400.0)) for _ in range(2)]):
        yield servers


@pytest.fixture
async def coordinated(redis_url: str, redis_cleanup: str) -> AsyncIterator[list[WhistServer]]:
    """Two servers on one Redis, coordinated through it (leases, fan-out, presence)."""
    async for servers in started([
            WhistServer(RedisStore(redis_url, prefix=redis_cleanup), bot_delay=0.0,
                        limits=Limits(200.0, 400.0),
                        coordination=redis_coordination(redis_url, f"p{index}", prefix=redis_cleanup))
            for index in range(2)]):
        yield servers


async def started_table(url: str) -> tuple[list[WhistClient], str]:
    """Four players connected to `url` seated at a new solo-whist room, its deal started."""
    players = [await WhistClient.connect(url, name=f"P{seat}") for seat in range(4)]
    await players[0].create_room("solo-whist", seat=0, session={"deals": 1})
    room_id = players[0].room_id
    assert room_id is not None
    for seat in (1, 2, 3):
        await players[seat].join(room_id, seat)
    await players[0].start()
    await players[0].wait_for(lambda client: client.view is not None)
    return players, room_id


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
    on_a, room_id = await started_table(url_a)
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
    stored = await two_servers[0].store.load(room_id)
    assert stored is not None
    table = from_stored(stored.state, stored.version, await two_servers[0].store.read_log(room_id))
    assert table.session is not None and third in table.session.deal.to_act()
    # ...and B still accepts that player's legal move: it reloads instead of refusing it.
    await on_b3.act(table.session.deal.legal_actions(third)[0])
    log = await two_servers[0].store.read_log(room_id)
    assert [entry["seat"] for entry in log if entry["t"] == "act"] == [mover, nxt, third]
    for client in (*on_a, on_b, on_b3):
        await client.close()


def first_legal(client: WhistClient) -> str:
    """`pass` if the client's seat may pass, else its first legal action."""
    assert client.view is not None
    legal = list(client.view["legal"])
    return "pass" if "pass" in legal else str(legal[0])


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


def room_publications(published: list[tuple[str, dict[str, Any]]], room_id: str) -> list[dict[str, Any]]:
    """Everything published on the room's channel, in order."""
    return [payload for room, payload in published if room == room_id]


def stored_publications(published: list[tuple[str, dict[str, Any]]], room_id: str) -> list[dict[str, Any]]:
    """What was published of the room's stored changes, in order."""
    return [payload for room, payload in published
            if room == room_id and payload.get("change", {}).get("stored")]


async def test_a_room_followed_nowhere_else_publishes_nothing_and_a_late_follower_sees_every_move(
        coordinated: list[WhistServer]) -> None:
    a, b = coordinated
    published: list[tuple[str, dict[str, Any]]] = []
    fanout = a.tables.shared.coord.fanout
    publish_many = fanout.publish_many

    async def recording(changes: list[tuple[str, dict[str, Any]]]) -> list[int]:
        published.extend(changes)
        return await publish_many(changes)

    fanout.publish_many = recording  # type: ignore[method-assign]
    players, room_id = await started_table(url_of(a))
    await play_one(players)
    # The publisher sends in the background: wait for the room's first publication to go out (a
    # presence-only change or the first move, whichever the publisher sent first).
    for _ in range(400):
        if room_publications(published, room_id):
            break
        await asyncio.sleep(0.05)
    heard_of = len(room_publications(published, room_id))
    assert heard_of >= 1
    for _ in range(2):
        await play_one(players)
    # Only A follows the room: once a publication found nobody else, A publishes its moves no more
    # (a process that starts to follow the room says so first).
    assert len(room_publications(published, room_id)) == heard_of

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


async def test_a_seat_resumed_through_the_other_server_is_taken_from_the_first_connection(
    coordinated: list[WhistServer],
) -> None:
    # One seat, one connection, on every process: a second tab (or a phone) resumes the seat through
    # server B; the first connection, on A, becomes a spectator and can no longer act.
    url_a, url_b = (url_of(server) for server in coordinated)
    on_a, room_id = await started_table(url_a)
    await on_a[0].wait_for(lambda c: c.view is not None and bool(c.view["to_act"]))
    assert on_a[0].view is not None
    mover = on_a[0].view["to_act"][0]
    token = on_a[mover].token
    assert token is not None
    second_tab = await WhistClient.connect(url_b, name="second tab")
    answer = await second_tab.resume(room_id, token)
    assert answer["seat"] == mover
    await on_a[mover].wait_for(lambda c: c.seat is None and bool(c.state and c.state["you"]["spectator"]))
    with pytest.raises(ServerError) as caught:
        await on_a[mover].act("pass")
    assert caught.value.code == "spectator_cannot_act"
    await second_tab.wait_for(lambda c: c.my_turn())
    assert second_tab.view is not None and second_tab.view["hand"], "the new connection sees the seat's hand"
    await second_tab.act(first_legal(second_tab))
    for client in (*on_a, second_tab):
        await client.close()
