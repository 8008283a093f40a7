"""The archive behind three replicas on one Redis (the cluster launcher), on PostgreSQL: the owner of
a room SIGKILLed as its session ends (the player's last card to play) leaves the session archived
exactly once, by the replica that adopts the room, with every deal record identical to the live one;
after the retention the room's keys are gone from Redis, and its records still answer from the
archive, over the websocket and over HTTP.

Processes are started from the main thread only (server/cluster/processes.py). Every wait is a
condition with a generous deadline (the machine is shared): nothing here asserts how fast anything
happens."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import asyncpg
import redis.asyncio

from bench.cluster_players import owner_replica
from server.archive import player_hash
from server.bots import get_bot
from server.client import WhistClient
from server.cluster import Cluster
from server.store.connect import parse_redis_url
from server.store.keys import Keys
from server.store.redis import RedisStore
from server.table import facts, from_stored
from server.table.state import deal_records

RETENTION = 10.0  # long enough to read the live records once the session is over, on a busy machine
KEY = "cluster-archive-key-0123456789abcdef"
JSON = dict[str, Any]
RANDOM = get_bot("random")


async def live_table(store_url: str, room_id: str) -> Any:
    """The room's table as the store holds it (None once Redis has let it go)."""
    store = RedisStore(store_url)
    try:
        stored = await store.load(room_id)
        if stored is None:
            return None
        return from_stored(stored.state, stored.version, await store.read_log(room_id))
    finally:
        await store.close()


async def until(check: Callable[[], Awaitable[Any]], timeout: float, message: str) -> Any:
    """Poll `check` until it answers something true; its answer."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not (found := await check()):
        assert asyncio.get_running_loop().time() < deadline, message
        await asyncio.sleep(0.2)
    return found


async def test_the_owner_killed_as_the_session_ends_leaves_it_archived_once_and_readable_after_retention(
    tmp_path: Path, postgres_database: Callable[[], Awaitable[str]],
) -> None:
    archive = await postgres_database()
    server_args = ["--bot-delay", "0", "--log-level", "warning", "--archive", archive,
                   "--retention", str(RETENTION)]
    with Cluster(replicas=3, server_args=server_args, directory=tmp_path / "cluster") as cluster:
        first = cluster.replicas[0].url.replace("http://", "ws://") + "ws"
        host = await WhistClient.connect(first, name="Ann", player_key=KEY)
        try:
            made = await host.create_room("whist", seat=0, session={"deals": 1}, bot="random",
                                          grace_seconds=1, listed=False)
            room_id = str(made["room_id"])
            await host.start()
            assert await owner_replica(cluster.store, room_id) == cluster.replicas[0].replica_id

            def to_act(client: WhistClient) -> bool:
                view = client.view
                return view is not None and (client.my_turn() or view["phase"] == "end")

            # Ann plays until her last card (classic whist: every deal plays its 13 tricks); then her
            # replica, the room's owner, is killed: another replica adopts the room, a bot plays her
            # card, and the session ends there.
            for step in range(200):
                await host.wait_for(to_act, 120)
                view = host.view
                assert view is not None
                assert view["phase"] != "end", "the deal ended before Ann's last card"
                if view["phase"] == "play" and len(view["hand"]) == 1:
                    break
                await host.act(str(RANDOM.decide(view, f"ann:{step}", 20.0)))
                await host.wait_for(lambda c, seen=view: c.view is not seen, 60)
            else:
                raise AssertionError("Ann never came to her last card")
            await asyncio.to_thread(cluster.kill_replica, 0)
        finally:
            await host.close()

        async def over() -> Any:
            table = await live_table(cluster.store, room_id)
            return table if table is not None and facts.over(table) else None
        table = await until(over, 120, "the session did not end on another replica")
        live = deal_records(table.session, table.hints)

        async def archived() -> list[JSON]:
            connection = await asyncpg.connect(archive)
            try:
                exists = await connection.fetchval("select to_regclass('public.sessions') is not null")
                if not exists:
                    return []
                return [dict(row) for row in await connection.fetch(
                    "select session_id, room_id from sessions where room_id = $1", room_id)]
            finally:
                await connection.close()
        rows = await until(archived, 60, "the session was not archived")
        assert rows == [{"session_id": room_id, "room_id": room_id}], "archived exactly once"

        # After the retention the room has left Redis whole: no key names it, no index holds it.
        keys = Keys(parse_redis_url(cluster.store).prefix)
        watcher = redis.asyncio.Redis.from_url(cluster.store, decode_responses=True)
        try:
            async def gone() -> bool:
                named = [key async for key in watcher.scan_iter(match=f"*{room_id}*")]
                return not named
            try:
                await until(gone, RETENTION + 60, "the room's keys did not expire")
            except AssertionError:
                left = {key: await watcher.pttl(key) async for key in watcher.scan_iter(match=f"*{room_id}*")}
                raise AssertionError(f"the room's keys did not expire: {left}") from None
            assert not await watcher.sismember(keys.rooms, room_id)
            assert not await watcher.hexists(keys.room_owners, room_id)
        finally:
            await watcher.aclose()

        # The records still answer, from the archive, identical to the live ones.
        async with await WhistClient.connect(cluster.ws_url, name="Reader") as reader:
            assert await reader.records(room_id) == live
        with urllib.request.urlopen(f"{cluster.url}api/rooms/{room_id}/records", timeout=30) as answer:
            assert json.load(answer)["records"] == live
        # Ann's seat was credited to her key: her history lists the session, and never her key.
        request = urllib.request.Request(f"{cluster.url}api/me", headers={"Authorization": f"Bearer {KEY}"})
        with urllib.request.urlopen(request, timeout=30) as answer:
            text = answer.read().decode()
        assert [session["room_id"] for session in json.loads(text)["sessions"]] == [room_id]
        assert KEY not in text and player_hash(KEY) not in text
        cluster.restart_replica(0)
