"""Lobby pings (server/live/lobby_pings.py): a lobby line changed here makes the other processes push
their lobby; a fan-out that stays in one process carries no ping."""

from __future__ import annotations

import asyncio

from shared_peers import eventually

from server.coord import MemoryHub, memory_coordination
from server.live.background import Background
from server.live.lobby_pings import LobbyPings
from server.live.publisher import Publisher


async def pings(hub: MemoryHub, process: str, crosses: bool) -> tuple[LobbyPings, list[str], Background]:
    """A process's lobby pings on `hub`, with its publisher running; `crosses`: as if over Redis."""
    coord = memory_coordination(process, hub)
    coord.fanout.crosses_processes = crosses  # the in-memory twin standing for Redis
    pushed: list[str] = []
    background = Background()
    background.start()
    publisher = Publisher(coord)
    background.spawn(publisher.run())
    lobby_pings = LobbyPings(publisher, coord.fanout, lambda: pushed.append(process), background)
    await lobby_pings.start()
    return lobby_pings, pushed, background


async def test_a_lobby_change_here_makes_the_other_process_push_its_lobby() -> None:
    hub = MemoryHub()
    (a, pushed_a, background_a), (_, pushed_b, background_b) = (
        await pings(hub, "A", True), await pings(hub, "B", True))
    try:
        a.changed()
        await eventually(lambda: pushed_b == ["B"], what="B pushes its lobby")
        assert pushed_a == []  # a process does not hear its own ping
    finally:
        await background_a.close()
        await background_b.close()


async def test_no_ping_leaves_a_fan_out_that_stays_in_one_process() -> None:
    hub = MemoryHub()
    (a, _, background_a), (_, pushed_b, background_b) = (
        await pings(hub, "A", False), await pings(hub, "B", False))
    try:
        a.changed()
        await asyncio.sleep(0.05)
        assert pushed_b == []
    finally:
        await background_a.close()
        await background_b.close()
