"""Adoption (server/live/adoption.py): the owner of an unfinished room is named in the owner book, its
name leaves the book when the room ends, and a room whose named owner is no live process is adopted."""

from __future__ import annotations

import asyncio

from shared_peers import Peer, create, eventually

from server.coord import MemoryHub, Owners, memory_coordination
from server.live import Tables
from server.store import MemoryStore
from server.store.redis import RedisStore


async def test_the_owner_is_in_the_book_while_the_room_runs_and_leaves_it_when_the_room_ends() -> None:
    tables = Tables(MemoryStore(), bot_delay=0.0)
    try:
        host = Peer("Ann")
        room_id = await create(tables, host, seat=None, deals=100)
        owners = tables.shared.coord.owners
        await eventually(lambda: room_id in tables.shared.adoption.recorded, what="the owner recorded")
        assert (await owners.book()).get(room_id) == tables.shared.process_id
        await tables.start(host)
        await tables.end(host)
        await eventually(lambda: room_id not in tables.shared.adoption.recorded, what="not recorded")
        assert await named(owners, room_id, None)
    finally:
        await tables.close()


async def test_a_room_whose_owner_is_no_live_process_is_adopted_by_one_pass() -> None:
    store, hub = MemoryStore(), MemoryHub()
    tables = Tables(store, bot_delay=0.0, coordination=memory_coordination("B", hub))
    try:
        await tables.join_cluster()
        first = Tables(store, bot_delay=0.0, coordination=memory_coordination("A", hub))
        room_id = await create(first, Peer("Ann"), seat=None)
        await eventually(lambda: room_id in first.shared.adoption.recorded, what="A recorded")
        for periodic in (first.shared.coord.leases, first.shared.coord.registry):
            await periodic.stop()  # A stops beating and renewing, and its entries are removed:
        await first.shared.coord.leases.release(room_id)
        await hub_forget(hub, "A")
        assert await tables.shared.adopt_orphans() == [room_id]
        assert tables.shared.ownership.holds(room_id)
        assert await named(tables.shared.coord.owners, room_id, tables.shared.process_id)
        await first.shared.background.close()
    finally:
        await tables.close()


async def named(owners: Owners, room_id: str, process: str | None) -> bool:
    """Whether the book names `process` as the room's owner (None: no owner) within a few seconds (the
    book is written in the background)."""
    for _ in range(500):
        if (await owners.book()).get(room_id) == process:
            return True
        await asyncio.sleep(0.01)
    return False


async def hub_forget(hub: MemoryHub, process: str) -> None:
    """The registry's entry of `process` expired (it died)."""
    hub.registry.processes.pop(process, None)


async def test_a_process_that_takes_a_room_writes_the_index_entries_its_dead_owner_owed(
        redis_cluster_url: str, redis_cluster_cleanup: str) -> None:
    # On a Redis Cluster a save writes the rooms set and the lobby after the room: an owner that died in
    # between left a new room out of the lobby. Whoever takes the room next writes them again.
    store = RedisStore(redis_cluster_url, prefix=redis_cluster_cleanup)
    first = Tables(store, bot_delay=0.0)
    second = Tables(store, bot_delay=0.0)
    try:
        room_id = await create(first, Peer("Ann"), seat=0)
        line = (await store.lobby())[room_id]
        await first.close()  # the owner is gone (its lease released: the next process may take it)
        await store.redis.delete(store.keys.rooms, store.keys.lobby, store.keys.lobby_versions)
        assert await store.lobby() == {} and await store.room_ids() == []
        await second.watch(Peer("Bea"), room_id)  # someone opens the room's link: taken here
        assert second.shared.ownership.holds(room_id)

        async def listed() -> bool:
            return await store.lobby() == {room_id: line} and await store.room_ids() == [room_id]

        for _ in range(500):
            if await listed():
                break
            await asyncio.sleep(0.01)
        assert await listed(), "the room is back in the lobby and the rooms set"
    finally:
        await second.close()
        await store.close()
