"""`LeanPipeline` on a real Redis: replies in order with error replies in their place, a lost script
cache, a connection killed under it, and its bound on connections."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from redis.asyncio import BlockingConnectionPool, Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ReadOnlyError, ResponseError

from server.cluster.processes import PrivateRedis
from server.store.lean_pipeline import LeanPipeline
from server.store.redis import RedisStore


async def test_replies_come_in_order_and_an_error_reply_stands_in_its_place(redis_url: str,
                                                                            redis_cleanup: str) -> None:
    pool = BlockingConnectionPool.from_url(redis_url, decode_responses=True, max_connections=4)
    lean = LeanPipeline(pool, connections=1)
    key = redis_cleanup + "lean"
    try:
        replies = await lean.run([("SET", key, "v"), ("INCR", key), ("GET", key), ("EVALSHA", "0" * 40, 0)])
        assert replies[0] == "OK"  # raw replies: no redis-py response callbacks
        assert isinstance(replies[1], ResponseError)  # "v" is not an integer
        assert replies[2] == "v"
        assert isinstance(replies[3], NoScriptError)
        # The connection stayed in step: the next batch reads its own replies.
        assert await lean.run([("SET", key, 7), ("INCR", key)]) == ["OK", 8]
    finally:
        await pool.disconnect()


async def test_the_store_saves_again_after_redis_lost_its_scripts(redis_url: str, redis_cleanup: str) -> None:
    store = RedisStore(redis_url, prefix=redis_cleanup)
    try:
        assert await store.save("r1", {"n": 1}, 0, [{"t": "a"}], None) == 1
        await store.redis.script_flush()
        assert await store.save("r1", {"n": 2}, 1, [{"t": "b"}], None) == 2
        stored = await store.load("r1")
        assert stored is not None and stored.state == {"n": 2}
        assert await store.read_log("r1") == [{"t": "a"}, {"t": "b"}]
    finally:
        await store.close()


async def test_a_killed_connection_fails_its_batch_and_the_next_batch_reconnects(redis_url: str,
                                                                                  redis_cleanup: str) -> None:
    pool = BlockingConnectionPool.from_url(redis_url, decode_responses=True, max_connections=4)
    lean = LeanPipeline(pool, connections=1)
    admin = Redis.from_url(redis_url, decode_responses=True)
    key = redis_cleanup + "lean"
    try:
        await lean.run([("CLIENT", "SETNAME", "lean-under-test")])
        await admin.execute_command("CLIENT", "KILL", "SKIPME", "yes", "TYPE", "normal", "ID",
                                    await client_id(admin, "lean-under-test"))
        with pytest.raises((RedisConnectionError, ConnectionError)):
            await lean.run([("SET", key, "lost?")])
        assert await lean.run([("SET", key, "kept"), ("GET", key)]) == ["OK", "kept"]
    finally:
        await admin.aclose()
        await pool.disconnect()


async def client_id(admin: Redis, name: str) -> str:
    for client in await admin.client_list():
        if client.get("name") == name:
            return str(client["id"])
    raise AssertionError(f"no client named {name}")


async def test_batches_beyond_its_connections_wait_for_one(redis_url: str, redis_cleanup: str) -> None:
    pool = BlockingConnectionPool.from_url(redis_url, decode_responses=True, max_connections=10)
    lean = LeanPipeline(pool, connections=2)
    key = redis_cleanup + "count"
    try:
        replies = await asyncio.gather(*(lean.run([("INCR", key)]) for _ in range(30)))
        assert sorted(reply[0] for reply in replies) == list(range(1, 31))
        assert len(pool._in_use_connections) == 2  # held by the pipeline, never more
    finally:
        await pool.disconnect()


async def test_a_server_that_takes_no_writes_drops_the_connection_after_its_batch(tmp_path: Path) -> None:
    # A replica answers a write with READONLY (a primary demoted under a held connection): the batch's
    # replies come back in place, and the connection is closed, so the next batch connects again
    # (through the sentinels, to the primary they name then: server/store/connect.py).
    primary = PrivateRedis(tmp_path / "primary")
    replica = PrivateRedis(tmp_path / "replica", replica_of=primary.port)
    primary.start()
    replica.start()
    pool = BlockingConnectionPool.from_url(replica.url, decode_responses=True, max_connections=2)
    lean = LeanPipeline(pool, connections=1)
    try:
        replies = await lean.run([("GET", "lean-k"), ("SET", "lean-k", "v")])
        assert replies[0] is None and isinstance(replies[1], ReadOnlyError)
        [held] = lean._idle  # the connection it keeps
        assert not held.is_connected, "a connection to a server that refuses writes is given up"
        assert await lean.run([("GET", "lean-k")]) == [None]  # and opened again for the next batch
    finally:
        await pool.disconnect()
        replica.stop()
        primary.stop()
