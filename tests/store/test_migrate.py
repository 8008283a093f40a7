"""`python -m server.store.migrate` (server/store/migrate.py): a store written under the old key names
(`room:<id>`, `room:<id>:log`, `lobby`, ...), renamed in place on one Redis, or copied to a Redis
Cluster, is read by today's store as it was written, and plays on (its next save lands)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from server.store.connect import redis_client
from server.store.migrate import migrate, new_name, transient
from server.store.redis import RedisStore

ROOT = Path(__file__).resolve().parents[2]
DAY = "2026-12-04"
LINE = {"room_id": "d1", "name": "Ann", "score": 12, "deals": 2, "reached_at": 1764806400.0, "firsts": {}}


def test_old_names_map_to_the_hash_tagged_ones_and_current_names_are_left_alone() -> None:
    assert new_name("p:room:ab12", "p:") == "p:{room:ab12}"
    assert new_name("p:room:ab12:log", "p:") == "p:{room:ab12}:log"
    assert new_name("p:room:ab12:players", "p:") == "p:{room:ab12}:players"
    assert new_name("p:lobby", "p:") == "p:{lobby}"
    assert new_name(f"p:leaderboard:{DAY}", "p:") == f"p:{{leaderboard:{DAY}}}"
    assert new_name(f"p:leaderboard:{DAY}:entries", "p:") == f"p:{{leaderboard:{DAY}}}:entries"
    for current in ("p:{room:ab12}", "p:{room:ab12}:log", "p:{room:ab12}:chat", "p:rooms", "p:room_owners",
                    "p:{lobby}", "p:daily:secret", f"p:daily:{DAY}:deal:1", "q:room:ab12"):
        assert new_name(current, "p:") is None, current
    assert transient("p:{room:ab12}:owner", "p:") and transient("p:{processes}", "p:")
    assert transient("p:process:a:1", "p:") and not transient("p:{room:ab12}:chat", "p:")


async def write_old_store(url: str, prefix: str) -> None:
    """What a server of before the renaming left in Redis: a listed room, an archived one (with an
    expiry), chat, seat credits, a leaderboard, the daily secret and a lease."""
    redis = redis_client(url, decode_responses=True, max_connections=2, pool_timeout=5)
    try:
        await redis.hset(f"{prefix}room:r1", mapping={"version": 3, "state": json.dumps({"n": 3})})
        await redis.rpush(f"{prefix}room:r1:log", json.dumps({"t": "a"}), json.dumps({"t": "b"}))
        await redis.hset(f"{prefix}room:r1:players", "0", "player-key")
        await redis.rpush(f"{prefix}{{room:r1}}:chat", json.dumps({"text": "hi"}))
        await redis.hset(f"{prefix}room:r2",
                         mapping={"version": 9, "state": json.dumps({"n": 9}), "archived": 1})
        await redis.pexpire(f"{prefix}room:r2", 600_000)
        await redis.sadd(f"{prefix}rooms", "r1")
        await redis.hset(f"{prefix}lobby", "r1", json.dumps({"room_id": "r1", "created_at": 1}))
        await redis.hset(f"{prefix}room_owners", "r1", "old-process")
        await redis.zadd(f"{prefix}leaderboard:{DAY}", {"d1": 12_000})
        await redis.hset(f"{prefix}leaderboard:{DAY}:entries", "d1", json.dumps(LINE))
        await redis.set(f"{prefix}daily:secret", "s" * 64)
        await redis.set(f"{prefix}{{room:r1}}:owner", "old-process", px=600_000)
    finally:
        await redis.aclose()


async def check_migrated(store: RedisStore) -> None:
    """Today's store reads everything written under the old names, and plays on."""
    stored = await store.load("r1")
    assert stored is not None and (stored.version, stored.state) == (3, {"n": 3})
    assert await store.read_log("r1") == [{"t": "a"}, {"t": "b"}]
    assert await store.seat_credits("r1") == {0: "player-key"}
    assert await store.chat_lines("r1") == [{"text": "hi"}]
    assert await store.archived("r2") == 1
    assert 0 < await store.redis.pttl(store.keys.room("r2")) <= 600_000, "the expiry is kept"
    assert await store.room_ids() == ["r1"]
    assert await store.lobby() == {"r1": {"room_id": "r1", "created_at": 1}}
    lines, total = await store.leaderboard_top(DAY, 10)
    assert total == 1 and [line.to_json() for line in lines] == [LINE]
    assert await store.daily_secret() == "s" * 64
    # The next move of the room lands on the migrated version; its new lobby line replaces the old one.
    assert await store.save("r1", {"n": 4}, 3, [{"t": "c"}], {"room_id": "r1", "created_at": 2}) == 4
    assert await store.read_log("r1") == [{"t": "a"}, {"t": "b"}, {"t": "c"}]
    assert await store.lobby() == {"r1": {"room_id": "r1", "created_at": 2}}
    await store.save("r1", {"n": 5}, 4, [], None)
    assert await store.lobby() == {}


async def test_in_place_on_one_redis_every_old_key_is_renamed_once(redis_url: str, redis_cleanup: str
                                                                   ) -> None:
    url = f"{redis_url}?prefix={redis_cleanup}"
    await write_old_store(url, redis_cleanup)
    before = RedisStore(url)
    try:
        assert await before.old_key_names(), "the server would log that the store needs migrating"
    finally:
        await before.close()
    dry = await migrate(url, dry_run=True)
    assert len(dry.renamed) == 7
    report = await migrate(url)
    assert sorted(old.removeprefix(redis_cleanup) for old, _ in report.renamed) == sorted(
        ["room:r1", "room:r1:log", "room:r1:players", "room:r2", "lobby", f"leaderboard:{DAY}",
         f"leaderboard:{DAY}:entries"])
    assert report.clashes == []
    again = await migrate(url)
    assert again.renamed == [] and again.copied == 0, "a second run does nothing"
    store = RedisStore(url)
    try:
        assert not await store.old_key_names()
        await check_migrated(store)
    finally:
        await store.close()


async def test_copied_to_a_redis_cluster_the_rooms_play_on_there(
        redis_url: str, redis_cleanup: str, redis_cluster_url: str, redis_cluster_cleanup: str) -> None:
    source = f"{redis_url}?prefix={redis_cleanup}"
    target = f"{redis_cluster_url}?prefix={redis_cleanup}"
    assert redis_cluster_cleanup == redis_cleanup  # one prefix: the cluster's keys are deleted after
    await write_old_store(source, redis_cleanup)
    # The command itself, as an operator runs it.
    command = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.store.migrate", "--from", source, "--to", target,
        cwd=ROOT, stdout=asyncio.subprocess.PIPE)
    output, _ = await command.communicate()
    assert command.returncode == 0
    printed: dict[str, Any] = json.loads(output)
    assert printed["renamed"] == 7 and printed["clashes"] == []
    assert printed["copied"] == 11, "every key but the lease"
    again = await migrate(source, target)
    assert again.copied == 0 and len(again.clashes) == 11, "nothing is overwritten"
    store = RedisStore(target)
    try:
        assert await store.redis.get(store.keys.room_owner("r1")) is None, "leases are not copied"
        assert await store.redis.hget(store.keys.room("r1"), "lobby") is not None
        await check_migrated(store)
    finally:
        await store.close()


async def test_reindex_rebuilds_a_clusters_rooms_set_and_lobby_from_the_rooms(
        redis_cluster_url: str, redis_cluster_cleanup: str) -> None:
    url = f"{redis_cluster_url}?prefix={redis_cluster_cleanup}"
    store = RedisStore(url)
    try:
        await store.save("listed", {"n": 1}, 0, [], {"room_id": "listed", "created_at": 1})
        await store.save("listed", {"n": 2}, 1, [], {"room_id": "listed", "created_at": 2})
        await store.save("unlisted", {"n": 1}, 0, [], None)
        await store.save("archived", {"n": 1}, 0, [], None)
        assert await store.retain("archived", 1, 600)
        await store.credit_seat("listed", 0, "player")  # a room's other hash: not a room
        lobby, rooms = await store.lobby(), await store.room_ids()
        assert rooms == ["listed", "unlisted"]
        # As if the processes that wrote them had died before their index writes.
        await store.redis.delete(store.keys.rooms, store.keys.lobby, store.keys.lobby_versions)
        assert await store.lobby() == {} and await store.room_ids() == []
        command = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "server.store.migrate", "--reindex", url, cwd=ROOT,
            stdout=asyncio.subprocess.PIPE)
        output, _ = await command.communicate()
        assert command.returncode == 0
        assert json.loads(output) == {"rooms": 3, "indexed": 2, "listed": 1}
        assert await store.lobby() == lobby == {"listed": {"room_id": "listed", "created_at": 2}}
        assert await store.room_ids() == rooms
        # The saves go on over the rebuilt index (its versions too).
        await store.save("listed", {"n": 3}, 2, [], None)
        assert await store.lobby() == {}
    finally:
        await store.close()
