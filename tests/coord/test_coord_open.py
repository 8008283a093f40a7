"""Choosing the coordination primitives from a store URL, and process ids."""

from __future__ import annotations

import asyncio

import pytest

from server.coord import COORDINATION_CONNECTIONS, new_process_id, open_coordination
from server.coord.fanout import MemoryFanout, RedisFanout
from server.coord.leases import MemoryLeases, RedisLeases
from server.coord.presence import MemoryPresence, RedisPresence
from server.coord.registry import MemoryRegistry, RedisRegistry


async def test_memory_urls_give_the_in_memory_twins_and_a_lone_process_owns_every_room() -> None:
    coord = open_coordination("memory://", "p1")
    assert isinstance(coord.leases, MemoryLeases) and isinstance(coord.fanout, MemoryFanout)
    assert isinstance(coord.presence, MemoryPresence) and isinstance(coord.registry, MemoryRegistry)
    await coord.start()
    assert await coord.leases.acquire("any-room") and coord.leases.holds("any-room")
    await coord.close()


async def test_redis_urls_give_the_redis_primitives_under_the_urls_prefix(redis_url: str,
                                                                         redis_cleanup: str) -> None:
    coord = open_coordination(f"{redis_url}?prefix={redis_cleanup}", "p1")
    assert isinstance(coord.leases, RedisLeases) and isinstance(coord.fanout, RedisFanout)
    assert isinstance(coord.presence, RedisPresence) and isinstance(coord.registry, RedisRegistry)
    assert coord.leases.keys.room_owner("x") == f"{redis_cleanup}{{room:x}}:owner"
    await coord.start()
    try:
        assert await coord.leases.acquire("room1")
        assert await coord.redis.get(f"{redis_cleanup}{{room:room1}}:owner") == b"p1"
        assert "p1" in await coord.registry.alive()
    finally:
        await coord.close()


async def test_the_subscriber_gives_up_waiting_for_a_redis_that_does_not_answer() -> None:
    from server.cluster.processes import free_port

    coord = open_coordination(f"redis://127.0.0.1:{free_port()}/0", "p1")
    with pytest.raises(TimeoutError):
        await coord.fanout.start(timeout=0.5)
    await coord.fanout.close()
    await coord.redis.aclose()


def test_process_ids_name_the_replica_and_differ_between_runs() -> None:
    first, second = new_process_id("r2"), new_process_id("r2")
    assert first.startswith("r2:") and second.startswith("r2:") and first != second
    assert new_process_id().startswith("local:")


async def test_a_burst_of_more_commands_than_the_pool_has_connections_waits_instead_of_failing(
        redis_url: str, redis_cleanup: str) -> None:
    # A thousand tables opening or ending at once: every command of the burst must be served (with the
    # pool's default of 100 connections and no waiting, the 101st failed with MaxConnectionsError, and a
    # lease pass that failed so dropped every lease of a healthy process).
    coord = open_coordination(f"{redis_url}?prefix={redis_cleanup}", "p1")
    await coord.start()
    try:
        rooms = [f"burst{index}" for index in range(3 * COORDINATION_CONNECTIONS)]
        taken = await asyncio.gather(*(coord.leases.acquire(room) for room in rooms))
        assert all(taken)
        await asyncio.gather(*(coord.presence.connect(room, 0) for room in rooms))
        seats = await asyncio.gather(*(coord.presence.seats(room) for room in rooms))
        assert all(0 in found for found in seats)
    finally:
        await coord.close()
