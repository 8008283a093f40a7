"""Orphaned rooms: a started room that no live process holds (bots only: nobody connected anywhere)
whose owner died is adopted by a live process, and its bots play on; two processes that look for
orphans at the same moment never both run it. Processes are `Tables` wired by in-memory twins sharing
one hub, with short lease and heartbeat times; a "crash" stops a process's work without releasing
anything, as SIGKILL would."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
from shared_peers import Peer, eventually

from server.coord import MemoryHub, memory_coordination
from server.live import LiveRoom, NewRoom, SessionSpan, Tables
from server.store import MemoryStore

LEASE_TTL = 0.3
HEARTBEAT_TTL = 0.6  # the process registry's (and presence's) expiry




@pytest.fixture
async def three() -> AsyncIterator[tuple[Tables, Tables, Tables]]:
    store, hub = MemoryStore(), MemoryHub()
    processes = tuple(Tables(store, bot_delay=0.01, coordination=memory_coordination(
        name, hub, lease_ttl=LEASE_TTL, presence_ttl=HEARTBEAT_TTL)) for name in "ABC")
    for tables in processes:
        await tables.join_cluster()
    yield processes  # type: ignore[misc]
    for tables in processes:
        await tables.close()


async def bots_only_room(tables: Tables, deals: int = 2) -> str:
    """A started room of four bots, created through `tables` (its owner); the host, unseated, left."""
    host = Peer("Host")
    request = NewRoom(ruleset="solo-whist", seat=None,
                      bot="random", grace_seconds=30.0,
                      session=SessionSpan(deals))
    room_id = str((await tables.create_room(host, request))["room_id"])
    await tables.start(host)
    await tables.leave(host)
    return room_id


class _Dead:
    """The owner port of a killed process."""

    def owns(self, room: LiveRoom) -> bool:
        return False


async def crash(tables: Tables) -> None:
    """Stop the process's work as SIGKILL would: no lease renewal, no heartbeat, no bot move, no
    message; nothing is released (its leases and its registry entry expire by themselves)."""
    coord = tables.shared.coord
    tables.bots.owner = _Dead()  # a killed process runs nothing (a test's stand-in: no module does this)
    await tables.bots.stop()
    for room in tables.rooms.values():
        tables.timers.closed(room)
    for periodic in (coord.leases, coord.registry, coord.presence):
        await periodic.stop()
    for task in tables.shared.background.tasks:
        task.cancel()
    await coord.fanout.close()


async def test_a_bots_only_room_whose_owner_died_is_adopted_and_played_to_the_end(
    three: tuple[Tables, Tables, Tables],
) -> None:
    a, b, c = three
    room_id = await bots_only_room(a)
    room_a = a.rooms[room_id]
    await eventually(lambda: room_a.version >= 3, what="the bots are playing")
    await crash(a)
    assert room_id not in b.rooms  # nobody else holds the room: nobody wants its lease
    assert not room_a.over
    # Within a few orphan passes (every 3 s) after the owner's heartbeat expired, a live process
    # has adopted the room; its bots finish the session.
    await eventually(lambda: any(room_id in tables.rooms and tables.rooms[room_id].over for tables in (b, c)),
                     timeout=60, what="the session finished on a live process")


async def test_two_processes_adopting_the_same_orphan_at_once_one_runs_it(
    three: tuple[Tables, Tables, Tables],
) -> None:
    a, b, c = three
    room_id = await bots_only_room(a, deals=20)
    await eventually(lambda: a.rooms[room_id].version >= 3, what="the bots are playing")
    await crash(a)
    for tables in (b, c):  # their own passes wait: the two passes below are the ones that race
        for task in tables.shared.background.tasks:
            if task.get_name() == "shared-orphans":
                task.cancel()
    # Until the dead owner's heartbeat and lease expire, the room is no orphan; then both look at once.
    deadline = time.monotonic() + 20
    while a.shared.process_id in await b.shared.coord.registry.alive() \
            or await b.shared.coord.leases.owner(room_id) is not None:
        assert time.monotonic() < deadline, "A's heartbeat and lease did not expire"
        await asyncio.sleep(0.01)
    adopted_b, adopted_c = await asyncio.gather(b.shared.adopt_orphans(), c.shared.adopt_orphans())
    adopted = [name for name, rooms in (("B", adopted_b), ("C", adopted_c)) if room_id in rooms]
    assert len(adopted) == 1, (adopted_b, adopted_c)
    runner, other = (b, c) if adopted == ["B"] else (c, b)
    room = runner.rooms[room_id]
    assert runner.shared.owns(room)
    version = room.version
    await eventually(lambda: room.version > version, what="the adopter's bots play on")
    # The other process did not load the room, let alone run its bots.
    assert room_id not in other.rooms
    # The book now names the adopter: the next passes adopt nothing more.
    assert await runner.shared.adopt_orphans() == [] and await other.shared.adopt_orphans() == []
