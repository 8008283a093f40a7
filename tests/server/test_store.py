"""Both stores: versioned writes (compare-and-set), the event log and the lobby index."""

from __future__ import annotations

import asyncio

import pytest

from server.store import Store, VersionConflictError, open_store
from server.store.keys import Keys
from server.store.memory import MemoryStore
from server.store.redis import RedisStore, split_store_url


async def test_create_then_versioned_updates(store: Store) -> None:
    assert await store.load("r1") is None
    assert await store.save("r1", {"n": 1}, 0, [{"t": "created"}], {"room_id": "r1"}) == 1
    assert await store.save("r1", {"n": 2}, 1, [{"t": "a"}, {"t": "b"}], None) == 2
    stored = await store.load("r1")
    assert stored is not None and stored.version == 2 and stored.state == {"n": 2}
    assert await store.read_log("r1") == [{"t": "created"}, {"t": "a"}, {"t": "b"}]
    assert await store.lobby() == {}
    assert await store.room_ids() == ["r1"]


async def test_a_stale_write_changes_nothing(store: Store) -> None:
    await store.save("r1", {"n": 1}, 0, [{"t": "created"}], {"room_id": "r1"})
    with pytest.raises(VersionConflictError) as caught:
        await store.save("r1", {"n": 99}, 0, [{"t": "stale"}], None)
    assert caught.value.found == 1
    stored = await store.load("r1")
    assert stored is not None and stored.state == {"n": 1} and stored.version == 1
    assert await store.read_log("r1") == [{"t": "created"}]
    assert await store.lobby() == {"r1": {"room_id": "r1"}}


async def test_concurrent_writers_of_one_version_one_wins(store: Store) -> None:
    await store.save("r1", {"n": 0}, 0, [], None)
    results = await asyncio.gather(
        *(store.save("r1", {"n": writer}, 1, [{"writer": writer}], None) for writer in range(10)),
        return_exceptions=True,
    )
    winners = [r for r in results if r == 2]
    assert len(winners) == 1
    assert sum(isinstance(r, VersionConflictError) for r in results) == 9
    log = await store.read_log("r1")
    assert len(log) == 1, "a lost race must not append to the log"


async def test_lobby_holds_listed_rooms_only(store: Store) -> None:
    await store.save("a", {}, 0, [], {"room_id": "a", "name": "A"})
    await store.save("b", {}, 0, [], None)
    assert await store.lobby() == {"a": {"room_id": "a", "name": "A"}}
    await store.save("a", {}, 1, [], None)
    assert await store.lobby() == {}


def test_store_urls() -> None:
    assert isinstance(open_store(None), MemoryStore)
    assert isinstance(open_store("memory://"), MemoryStore)
    assert split_store_url("redis://h:1/0?prefix=x:") == ("redis://h:1/0", "x:")
    with pytest.raises(ValueError, match="unknown store URL"):
        open_store("postgres://x")


async def test_redis_keys_all_live_under_the_prefix(redis_url: str, redis_cleanup: str) -> None:
    store = RedisStore(redis_url, prefix=redis_cleanup)
    try:
        await store.save("r1", {"n": 1}, 0, [{"t": "x"}], {"room_id": "r1"})
        keys = sorted([key async for key in store.redis.scan_iter(match=f"{redis_cleanup}*")])
        names = Keys(redis_cleanup)
        assert keys == sorted([names.room("r1"), names.room_log("r1"), names.lobby, names.rooms])
    finally:
        await store.close()
