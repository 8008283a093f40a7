"""The process registry (server/coord/registry.py), on Redis and on its in-memory twin: which
processes are alive by heartbeat, each with its description; a process that stops beating drops out
after its ttl, one that beats stays, and one that leaves is gone at once."""

from __future__ import annotations

import asyncio
import time

import pytest
from coord_helpers import MakeCoord, eventually

from server.coord import Coordination
from server.coord.registry import MemoryRegistry


async def test_the_registry_lists_live_processes(make_coord: MakeCoord) -> None:
    a = make_coord("A", info={"replica": "r1", "pid": 11})
    b = make_coord("B", presence_ttl=1.0, info={"replica": "r2"})
    await a.registry.beat()
    await b.registry.beat()
    assert await a.registry.alive() == {"A": {"process": "A", "replica": "r1", "pid": 11},
                                        "B": {"process": "B", "replica": "r2"}}
    a.registry.start()
    # B dies (no more heartbeats): it drops out; A, beating, stays.
    await eventually(lambda: _only_a(a), what="B drops out of the registry")
    assert await a.registry.is_alive("A") and not await a.registry.is_alive("B")
    await a.registry.close()
    assert await b.registry.alive() == {}


async def _only_a(coord: Coordination) -> bool:
    return list(await coord.registry.alive()) == ["A"]


async def test_a_beating_process_stays_alive_past_its_ttl(make_coord: MakeCoord) -> None:
    a = make_coord("A", presence_ttl=0.6)
    a.registry.start()
    await a.registry.beat()
    started = time.monotonic()
    while time.monotonic() - started < 0.6 * 2:
        assert await a.registry.is_alive("A")
        await asyncio.sleep(0.1)
    await a.registry.close()
    assert not await a.registry.is_alive("A")


async def test_nobody_is_alive_before_a_heartbeat(make_coord: MakeCoord) -> None:
    a = make_coord("A")
    assert await a.registry.alive() == {}
    assert not await a.registry.is_alive("A")


def test_a_ttl_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        MemoryRegistry("A", ttl=0)
    assert MemoryRegistry("A", ttl=6.0).interval == 2.0, "a heartbeat every third of the ttl"
