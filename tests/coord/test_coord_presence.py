"""Shared presence (server/coord/presence.py); the process registry is tests/coord/test_coord_registry.py."""

from __future__ import annotations

import asyncio
import time

from coord_helpers import MakeCoord, eventually

from server.coord import SPECTATOR, Coordination
from server.coord.scripts import BATCH


async def test_seats_show_every_process_with_a_live_connection(make_coord: MakeCoord) -> None:
    a, b = make_coord("A"), make_coord("B")
    await a.presence.connect("room1", 0)
    await a.presence.connect("room1", 0)  # two connections of A on seat 0
    await b.presence.connect("room1", 0)
    await b.presence.connect("room1", 2)
    await b.presence.connect("room1", SPECTATOR)
    assert await a.presence.seats("room1") == {SPECTATOR: {"B"}, 0: {"A", "B"}, 2: {"B"}}
    await a.presence.disconnect("room1", 0)
    assert await b.presence.seats("room1") == {SPECTATOR: {"B"}, 0: {"A", "B"}, 2: {"B"}}
    await a.presence.disconnect("room1", 0)
    await b.presence.disconnect("room1", 2)
    assert await a.presence.seats("room1") == {SPECTATOR: {"B"}, 0: {"B"}}
    assert await a.presence.connected("room1", 0) and not await a.presence.connected("room1", 2)
    assert await a.presence.seats("room2") == {}
    await a.presence.disconnect("room1", 3)  # never connected: nothing happens
    assert await a.presence.seats("room1") == {SPECTATOR: {"B"}, 0: {"B"}}


async def test_a_dead_processs_presence_disappears_and_a_live_ones_stays(make_coord: MakeCoord) -> None:
    dead, alive = make_coord("A", presence_ttl=1.0), make_coord("B")
    await dead.presence.connect("room1", 1)
    await alive.presence.connect("room1", 3)
    alive.presence.start()
    # A dies: no heartbeat and no clean-up.
    await eventually(lambda: alive.presence.seats("room1"), what="presence readable")
    seats = await eventually(lambda: _without(alive, "room1", 1), what="A's entry expires")
    assert seats == {3: {"B"}}


async def _without(coord: Coordination, room: str, seat: int) -> dict[int, frozenset[str]] | None:
    seats = await coord.presence.seats(room)
    return None if seat in seats else seats


async def test_close_removes_this_processs_presence(make_coord: MakeCoord) -> None:
    a, b = make_coord("A"), make_coord("B")
    await a.presence.connect("room1", 0)
    await a.presence.connect("room2", SPECTATOR)
    await a.presence.close()
    assert await b.presence.seats("room1") == {} and await b.presence.seats("room2") == {}


async def test_the_heartbeat_keeps_presence_past_its_ttl(make_coord: MakeCoord) -> None:
    a, b = make_coord("A", presence_ttl=3.0), make_coord("B")
    await a.presence.connect("room1", 0)
    a.presence.start()
    started = time.monotonic()
    while time.monotonic() - started < a.presence.ttl * 1.5:
        assert await b.presence.seats("room1") == {0: {"A"}}
        await asyncio.sleep(0.1)


async def test_a_heartbeat_over_more_rooms_than_one_script_call_takes_rewrites_every_entry(
        make_coord: MakeCoord) -> None:
    # One script call per BATCH rooms, each room with its own seats: none may land in another room.
    a = make_coord("A")
    rooms = [f"many{index}" for index in range(BATCH + 2)]
    for index, room in enumerate(rooms):
        a.presence.local[room, index % 4] += 1  # counted here, not yet written
        if index % 3 == 0:
            a.presence.local[room, SPECTATOR] += 1
    assert await a.presence.seats(rooms[-1]) == {}
    await a.presence.tick()
    for index, room in enumerate(rooms):
        expected = {index % 4: {"A"}} | ({SPECTATOR: {"A"}} if index % 3 == 0 else {})
        assert await a.presence.seats(room) == expected
