"""The store contract, one suite run on both stores (the `store` fixture), the Redis store also on a
Redis Cluster: versioned writes (compare-and-set), the event log, the lobby index, the daily secret
and the daily leaderboard (docs/rules.md §2 "Game score": equal scores ranked by who got there
first); and the key names (every key of a room in one hash slot)."""

from __future__ import annotations

import asyncio
import calendar
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from redis.asyncio.cluster import RedisCluster

from server.cluster.processes import PrivateRedis
from server.store import NotReplicatedError, Store, VersionConflictError, open_store
from server.store.keys import Keys
from server.store.memory import MemoryStore
from server.store.redis import RedisStore, split_store_url
from server.store.sharded import slot_of


@pytest.fixture(params=["memory", "redis", "cluster"])
async def store(request: pytest.FixtureRequest, redis_url: str, redis_cleanup: str, redis_cluster_url: str,
                redis_cluster_cleanup: str) -> AsyncIterator[Store]:
    """This module's contract runs on a Redis Cluster too (the session's own)."""
    if request.param == "memory":
        yield MemoryStore()
        return
    url, prefix = (redis_url, redis_cleanup) if request.param == "redis" else \
        (redis_cluster_url, redis_cluster_cleanup)
    redis_store = RedisStore(url, prefix=prefix)
    yield redis_store
    await redis_store.close()


def test_every_key_of_a_room_is_in_one_hash_slot() -> None:
    keys = Keys("whist:")
    for room_id in ("ab12", "zz99", "r1"):
        names = [*keys.room_keys(room_id), keys.room_owner(room_id), keys.room_presence(room_id),
                 keys.room_changes(room_id), keys.room_probe(room_id)]
        assert all(name.startswith(f"whist:{{room:{room_id}}}") for name in names), names
        assert len({slot_of(name) for name in names}) == 1, names
    assert slot_of(keys.room("ab12")) != slot_of(keys.room("zz99")), "rooms spread over the slots"
    assert slot_of(keys.leaderboard("2026-12-04")) == slot_of(keys.leaderboard_lines("2026-12-04"))
    assert slot_of(keys.processes) == slot_of(keys.process_info("p1")) == slot_of(keys.process_inbox("p1"))
    assert slot_of(keys.lobby) == slot_of(keys.lobby_versions)


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


# ---------------------------------------------------------------------------------- daily leaderboard

DAY = "2026-11-29"
NOON = float(calendar.timegm((2026, 11, 29, 12, 0, 0)))


async def test_game_score_ranks_highest_first_and_equal_scores_by_who_got_there_first(store: Store) -> None:
    await store.record_leaderboard(DAY, "late", "Late", 1020, 4, NOON + 300)
    await store.record_leaderboard(DAY, "best", "Best", 1055, 9, NOON + 400)
    await store.record_leaderboard(DAY, "early", "Early", 1020, 2, NOON + 100)
    await store.record_leaderboard(DAY, "low", "Low", 970, 3, NOON + 50)
    lines, total = await store.leaderboard_top(DAY, 10)
    assert total == 4
    assert [line.name for line in lines] == ["Best", "Early", "Late", "Low"]
    assert [(line.score, line.deals) for line in lines] == [(1055, 9), (1020, 2), (1020, 4), (970, 3)]
    top_two, total = await store.leaderboard_top(DAY, 2)
    assert [line.name for line in top_two] == ["Best", "Early"] and total == 4


async def test_a_game_keeps_the_first_time_it_reached_a_score(store: Store) -> None:
    await store.record_leaderboard(DAY, "steady", "Steady", 1010, 2, NOON + 10)
    await store.record_leaderboard(DAY, "rival", "Rival", 1010, 2, NOON + 20)
    # Steady's third deal scores nothing: it still got to 1010 first.
    line = await store.record_leaderboard(DAY, "steady", "Steady", 1010, 3, NOON + 30)
    assert line.reached_at == NOON + 10 and line.deals == 3
    lines, _ = await store.leaderboard_top(DAY, 10)
    assert [line.room_id for line in lines] == ["steady", "rival"]
    # Down and back up again: the score's first time still counts.
    await store.record_leaderboard(DAY, "steady", "Steady", 1004, 4, NOON + 40)
    lines, _ = await store.leaderboard_top(DAY, 10)
    assert [line.room_id for line in lines] == ["rival", "steady"]
    back = await store.record_leaderboard(DAY, "steady", "Steady", 1010, 5, NOON + 50)
    assert back.reached_at == NOON + 10
    lines, total = await store.leaderboard_top(DAY, 10)
    assert [line.room_id for line in lines] == ["steady", "rival"] and total == 2
    assert lines[0].deals == 5


async def test_one_line_per_game_and_one_board_per_day(store: Store) -> None:
    await store.record_leaderboard(DAY, "game", "Alice", 1000, 2, NOON)
    await store.record_leaderboard(DAY, "game", "Alice", 1012, 3, NOON + 1)
    await store.record_leaderboard("2026-11-30", "other", "Bob", 990, 2, NOON + 86400)
    lines, total = await store.leaderboard_top(DAY, 10)
    assert total == 1 and lines[0].score == 1012 and lines[0].deals == 3
    tomorrow, total = await store.leaderboard_top("2026-11-30", 10)
    assert total == 1 and tomorrow[0].name == "Bob"
    assert await store.leaderboard_top("2026-12-01", 10) == ([], 0)


# ---------------------------------------------------------------------------------- daily claims and deals


async def test_a_player_claims_a_day_once(store: Store) -> None:
    assert await store.claim_daily_player(DAY, "player-a") is True
    assert await store.claim_daily_player(DAY, "player-a") is False, "the second game that day is practice"
    assert await store.claim_daily_player(DAY, "player-b") is True, "another player's key counts"
    assert await store.claim_daily_player("2026-11-30", "player-a") is True, "a new day, a new first game"


async def test_concurrent_claims_of_one_player_one_wins(store: Store) -> None:
    claims = await asyncio.gather(*(store.claim_daily_player(DAY, "racer") for _ in range(10)))
    assert sorted(claims) == [False] * 9 + [True]


async def test_deal_results_are_kept_per_day_and_deal(store: Store) -> None:
    assert await store.deal_results(DAY, "0.0") == {}
    await store.write_deal_result(DAY, "0.0", "room-a", {"contract": "solo", "points": 12})
    await store.write_deal_result(DAY, "0.0", "room-b", {"contract": None, "points": 0})
    await store.write_deal_result(DAY, "1.0", "room-a", {"contract": "pass", "points": -3})
    await store.write_deal_result("2026-11-30", "0.0", "room-c", {"contract": "solo", "points": 5})
    assert await store.deal_results(DAY, "0.0") == {
        "room-a": {"contract": "solo", "points": 12}, "room-b": {"contract": None, "points": 0}}
    await store.write_deal_result(DAY, "0.0", "room-a", {"contract": "solo", "points": 13})
    results = await store.deal_results(DAY, "0.0")
    assert results["room-a"] == {"contract": "solo", "points": 13} and len(results) == 2, "one line per game"
    assert list(await store.deal_results(DAY, "1.0")) == ["room-a"]
    assert list(await store.deal_results("2026-11-30", "0.0")) == ["room-c"]


async def test_a_rooms_chat_keeps_its_last_lines_in_order(store: Store) -> None:
    for room_id in ("room-a", "room-b"):
        await store.save(room_id, {"n": 1}, 0, [], None)
    assert await store.chat_lines("room-a") == []
    for n in range(7):
        line = {"from": {"seat": n % 4, "name": f"P{n}"}, "text": f"line {n}"}
        assert await store.append_chat("room-a", line, keep=5)
    rail = {"from": {"seat": None, "name": "Rail"}, "phrase": "good_luck"}
    assert await store.append_chat("room-b", rail, keep=5)
    lines = await store.chat_lines("room-a")
    assert [line["text"] for line in lines] == ["line 2", "line 3", "line 4", "line 5", "line 6"]
    assert lines[-1]["from"] == {"seat": 2, "name": "P6"}
    assert await store.chat_lines("room-b") == [rail]
    lines[0]["text"] = "changed by the reader"
    assert (await store.chat_lines("room-a"))[0]["text"] == "line 2", "a reader gets its own copy"


async def test_a_chat_line_or_a_credit_for_a_room_not_stored_writes_nothing(store: Store) -> None:
    assert not await store.append_chat("nowhere", {"text": "hello?"}, keep=5)
    assert not await store.credit_seat("nowhere", 0, "hash-a")
    assert await store.chat_lines("nowhere") == [] and await store.seat_credits("nowhere") == {}


async def test_concurrent_chat_lines_are_all_kept(store: Store) -> None:
    await store.save("room-c", {"n": 1}, 0, [], None)
    await asyncio.gather(*(store.append_chat("room-c", {"text": str(n)}, keep=50) for n in range(30)))
    assert sorted(int(line["text"]) for line in await store.chat_lines("room-c")) == list(range(30))


async def until(condition, seconds: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    """Wait (polling) until `condition()` (a coroutine function) is true, or fail at the deadline."""
    deadline = asyncio.get_running_loop().time() + seconds
    while not await condition():
        assert asyncio.get_running_loop().time() < deadline, "not within the deadline"
        await asyncio.sleep(0.02)


async def test_a_rooms_seats_are_credited_to_hashed_player_keys(store: Store) -> None:
    await store.save("r1", {"n": 1}, 0, [], None)
    assert await store.seat_credits("r1") == {}
    await store.credit_seat("r1", 0, "hash-a")
    await store.credit_seat("r1", 2, "hash-b")
    await store.credit_seat("r1", 2, "hash-c")  # a new holder
    await store.credit_seat("r1", 3, None)  # nobody: nothing to remove
    assert await store.seat_credits("r1") == {0: "hash-a", 2: "hash-c"}
    await store.credit_seat("r1", 0, None)
    assert await store.seat_credits("r1") == {2: "hash-c"}
    assert await store.seat_credits("r2") == {}, "per room"


async def test_a_retained_room_leaves_the_index_then_expires_with_all_its_keys(store: Store) -> None:
    await store.save("r1", {"n": 1}, 0, [{"t": "created"}], {"room_id": "r1"})
    await store.save("r2", {"n": 1}, 0, [{"t": "created"}], None)
    await store.credit_seat("r1", 1, "hash-a")
    await store.append_chat("r1", {"text": "gg"}, keep=5)
    assert await store.archived("r1") is None
    assert not await store.retain("gone", 0, 60.0), "a room not stored is left alone"
    assert await store.retain("r1", 0, 60.0)
    assert await store.archived("r1") == 0
    assert await store.room_ids() == ["r2"] and await store.lobby() == {}, "out of the index and the lobby"
    stored = await store.load("r1")
    assert stored is not None and stored.state == {"n": 1}, "still readable during the retention"
    assert await store.save("r1", {"n": 2}, 1, [{"t": "resumed"}], None) == 2, "and writable"
    assert await store.room_ids() == ["r2"], "a write does not put it back in the index"
    assert await store.retain("r1", 0, 0.2)  # a short retention from now
    await store.credit_seat("r1", 2, "hash-b")  # written during the retention: expires with the room

    async def gone() -> bool:
        return await store.load("r1") is None

    await until(gone)
    assert not await store.append_chat("r1", {"text": "anyone?"}, keep=5), "nothing outlives the room"
    assert not await store.credit_seat("r1", 1, "hash-c")
    assert await store.read_log("r1") == [] and await store.chat_lines("r1") == []
    assert await store.seat_credits("r1") == {} and await store.archived("r1") is None
    assert await store.room_ids() == ["r2"]
    assert await store.load("r2") is not None, "other rooms stay"


async def test_a_room_played_again_keeps_no_expiry(store: Store) -> None:
    await store.save("r1", {"n": 1}, 0, [{"t": "created"}], None)
    await store.credit_seat("r1", 0, "hash-a")
    assert await store.retain("r1", 0, 0.3)
    await store.persist("r1")
    assert await store.room_ids() == ["r1"]
    await asyncio.sleep(0.5)
    assert await store.load("r1") is not None and await store.seat_credits("r1") == {0: "hash-a"}
    assert await store.archived("r1") == 0, "the first session stays archived"


async def test_retained_redis_keys_carry_the_retention(redis_url: str, redis_cleanup: str) -> None:
    store = RedisStore(redis_url, prefix=redis_cleanup)
    try:
        names = Keys(redis_cleanup)
        await store.save("r1", {"n": 1}, 0, [{"t": "x"}], None)
        await store.credit_seat("r1", 0, "hash-a")
        await store.append_chat("r1", {"text": "hi"}, keep=5)
        await store.redis.hset(names.room_owners, "r1", "process-a")
        assert [await store.redis.pttl(key) for key in names.room_keys("r1")] == [-1, -1, -1, -1]
        assert await store.retain("r1", 0, 100.0)
        ttls = [await store.redis.pttl(key) for key in names.room_keys("r1")]
        assert all(90_000 < ttl <= 100_000 for ttl in ttls), ttls
        assert not await store.redis.hexists(names.room_owners, "r1"), "out of the owner book"
        assert not await store.redis.sismember(names.rooms, "r1")
        await store.persist("r1")
        assert [await store.redis.pttl(key) for key in names.room_keys("r1")] == [-1, -1, -1, -1]
        assert await store.redis.sismember(names.rooms, "r1")
    finally:
        await store.close()


async def test_the_server_secret_is_created_once(store: Store) -> None:
    secret = await store.daily_secret()
    assert len(secret) == 64 and await store.daily_secret() == secret
    if isinstance(store, RedisStore):
        # Another process on the same Redis gets the same secret.
        other = RedisStore(store.url, prefix=store.keys.prefix)
        try:
            assert await other.daily_secret() == secret
        finally:
            await other.close()


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


async def test_a_state_unchanged_since_this_store_wrote_it_is_not_sent_again(redis_url: str,
                                                                            redis_cleanup: str) -> None:
    # Most actions leave the stored state as it was (only the log grows): Redis keeps it, the store
    # sends "" for it. Any other writer in between (another process) makes the store send it whole.
    ours, theirs = RedisStore(redis_url, prefix=redis_cleanup), RedisStore(redis_url, prefix=redis_cleanup)
    sent: list[str] = []
    run_scripts = ours._run_scripts

    async def recording(batch):  # type: ignore[no-untyped-def]
        sent.extend(save.args[1] for save in batch)
        return await run_scripts(batch)

    ours._run_scripts = recording  # type: ignore[method-assign]
    try:
        state = {"n": 1, "seats": [{"name": "Ann"}]}
        assert await ours.save("r1", state, 0, [{"t": "created"}], None) == 1
        assert await ours.save("r1", {"n": 1, "seats": [{"name": "Ann"}]}, 1, [{"t": "a"}], None) == 2
        assert sent[0] != "" and sent[1] == ""
        stored = await ours.load("r1")
        assert stored is not None and stored.version == 2 and stored.state == state
        assert await ours.read_log("r1") == [{"t": "created"}, {"t": "a"}]
        # A changed state goes whole.
        assert await ours.save("r1", {"n": 2}, 2, [{"t": "b"}], None) == 3
        assert sent[2] != ""
        # Another writer's version: what this store remembers is older, so the state goes whole.
        assert await theirs.save("r1", {"n": 3}, 3, [{"t": "c"}], None) == 4
        assert await ours.save("r1", {"n": 2}, 4, [{"t": "d"}], None) == 5
        assert sent[3] != ""
        stored = await ours.load("r1")
        assert stored is not None and stored.version == 5 and stored.state == {"n": 2}
        # A refused write is not remembered: the next one sends the state whole.
        with pytest.raises(VersionConflictError):
            await ours.save("r1", {"n": 2}, 4, [], None)
        assert await ours.save("r1", {"n": 2}, 5, [], None) == 6
        assert sent[-1] != ""
    finally:
        await ours.close()
        await theirs.close()


async def test_a_save_no_replica_confirmed_is_refused_though_the_primary_holds_it(tmp_path: Path) -> None:
    # `?wait=1`: after the save, WAIT for one replica; this Redis has none, so the save is refused (it
    # could be lost in a failover), though the primary ran it. Without `wait`, nothing changes.
    lone = PrivateRedis(tmp_path / "lone")
    lone.start()
    waiting = RedisStore(lone.url + "?wait=1&wait_ms=20&prefix=w:")
    plain = RedisStore(lone.url + "?prefix=p:")
    try:
        assert (waiting.wait_replicas, waiting.wait_ms, plain.wait_replicas) == (1, 20, 0)
        with pytest.raises(NotReplicatedError) as caught:
            await waiting.save("r1", {"n": 1}, 0, [{"t": "a"}], None)
        assert (caught.value.version, caught.value.replicas) == (1, 0)
        stored = await waiting.load("r1")
        assert stored is not None and stored.version == 1 and stored.state == {"n": 1}
        assert not await waiting.replicated()
        with pytest.raises(NotReplicatedError):  # the state is sent again (nothing was remembered)
            await waiting.save("r1", {"n": 1}, 1, [{"t": "b"}], None)
        stored = await waiting.load("r1")
        assert stored is not None and stored.version == 2 and stored.state == {"n": 1}
        assert await plain.save("r1", {"n": 1}, 0, [], None) == 1 and await plain.replicated()
    finally:
        await waiting.close()
        await plain.close()
        lone.stop()


async def test_repairing_a_rooms_index_writes_what_its_saves_wrote_and_never_lists_a_retained_room(
        store: Store) -> None:
    await store.save("open", {"n": 1}, 0, [], {"room_id": "open", "created_at": 1})
    await store.save("open", {"n": 2}, 1, [], {"room_id": "open", "created_at": 2})
    await store.save("done", {"n": 1}, 0, [], {"room_id": "done", "created_at": 1})
    await store.save("done", {"n": 2}, 1, [], None)
    assert await store.retain("done", 1, 600)
    lobby, rooms = await store.lobby(), await store.room_ids()
    assert lobby == {"open": {"room_id": "open", "created_at": 2}} and rooms == ["open"]
    if isinstance(store, RedisStore) and isinstance(store.redis, RedisCluster):
        # As if the process that saved them had died before the index writes that follow a save on a
        # cluster (docs/scaling.md): the rooms hold the truth, the indexes are empty.
        await store.redis.delete(store.keys.rooms, store.keys.lobby, store.keys.lobby_versions)
        assert await store.lobby() == {} and await store.room_ids() == []
    for room_id in ("open", "done", "nowhere"):
        await store.repair_index(room_id)
    assert await store.lobby() == lobby and await store.room_ids() == rooms
    # Version-guarded as the saves: the next save's line replaces the repaired one.
    await store.save("open", {"n": 3}, 2, [], None)
    assert await store.lobby() == {}
