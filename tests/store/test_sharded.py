"""Lean pipelines on a Redis Cluster (server/store/sharded.py), on the test session's own cluster: a
batch split by node and answered in order, each node's tail answers given to its commands, a stale
slot map (MOVED) mended and the commands sent again, scripts a node lost run again there (EVAL), and
the client's kind picking the pipeline."""

from __future__ import annotations

from server.coord import redis_coordination
from server.store.connect import redis_client
from server.store.lean_pipeline import LeanPipeline
from server.store.redis import RedisStore
from server.store.sharded import ClusterLeanPipeline, command_key, is_cluster, lean_pipeline, slot_of


def test_a_command_is_routed_by_its_first_key() -> None:
    assert command_key(("EVALSHA", "abc", 2, "k1", "k2", "arg")) == "k1"
    assert command_key(("EVALSHA", "abc", 0, "arg")) is None
    assert command_key(("SPUBLISH", "{room:a}:changes", b"data")) == "{room:a}:changes"
    assert command_key(("SET", b"k", "1")) == b"k"
    assert command_key(("WAIT", 1, 500)) is None and command_key(("ROLE",)) is None
    assert slot_of("p:{room:a}") == slot_of(b"q:{room:a}:log")


async def test_a_batch_over_every_shard_comes_back_in_order_with_its_nodes_tails(
        redis_cluster_url: str, redis_cluster_cleanup: str) -> None:
    client = redis_client(redis_cluster_url, decode_responses=True, max_connections=8, pool_timeout=5)
    try:
        pipeline = lean_pipeline(client, 2)
        assert isinstance(pipeline, ClusterLeanPipeline) and is_cluster(client)
        keys = [f"{redis_cluster_cleanup}{{room:r{number}}}" for number in range(30)]
        await client.initialize()
        nodes = {client.nodes_manager.get_node_from_slot(slot_of(key)).name for key in keys}
        assert len(nodes) == 3, "the keys spread over the three primaries"
        assert await pipeline.run([("SET", key, str(number)) for number, key in enumerate(keys)]) == \
            ["OK"] * len(keys)
        replies, tails = await pipeline.run_with_tail([("GET", key) for key in keys], [("ROLE",)])
        assert replies == [str(number) for number in range(len(keys))]
        assert all(replies[0][0] == "master" for _, replies in tails), "ROLE answered by each key's primary"
        assert {node for node, _ in tails} == nodes
    finally:
        await client.aclose()


async def test_a_stale_slot_map_is_mended_and_the_moved_commands_sent_again(
        redis_cluster_url: str, redis_cluster_cleanup: str) -> None:
    client = redis_client(redis_cluster_url, decode_responses=True, max_connections=8, pool_timeout=5)
    try:
        pipeline = lean_pipeline(client, 2)
        key = f"{redis_cluster_cleanup}{{room:moved}}"
        await client.initialize()
        manager = client.nodes_manager
        slot = slot_of(key)
        right = manager.get_node_from_slot(slot)
        wrong = next(node for node in client.get_primaries() if node.name != right.name)
        manager.slots_cache[slot] = [wrong]  # as after a failover this client did not hear of yet
        assert await pipeline.run([("SET", key, "1"), ("GET", key)]) == ["OK", "1"]
        assert manager.get_node_from_slot(slot).name == right.name, "the map was asked for again"
    finally:
        await client.aclose()


def test_one_redis_keeps_the_plain_lean_pipeline(redis_url: str) -> None:
    client = redis_client(redis_url, decode_responses=True, max_connections=2, pool_timeout=5)
    assert isinstance(lean_pipeline(client), LeanPipeline) and not is_cluster(client)


async def test_after_every_primary_lost_its_scripts_saves_indexes_and_passes_run_again(
        redis_cluster_url: str, redis_cluster_cleanup: str) -> None:
    # (The session's own cluster: flushing its script caches touches no other test run.)
    store = RedisStore(redis_cluster_url, prefix=redis_cluster_cleanup)
    coord = redis_coordination(redis_cluster_url, "A", prefix=redis_cluster_cleanup)
    try:
        await store.save("r1", {"n": 1}, 0, [], {"room_id": "r1"})
        rooms = [f"r{number}" for number in range(20)]
        assert all((await coord.leases._take_many(rooms)).values())  # type: ignore[attr-defined]
        await store.redis.script_flush()  # every primary: each answers NOSCRIPT from now on
        assert await store.save("r1", {"n": 2}, 1, [{"t": "a"}], {"room_id": "r1", "name": "x"}) == 2
        assert await store.lobby() == {"r1": {"room_id": "r1", "name": "x"}}, "the index script ran too"
        await coord.redis.script_flush()
        assert all((await coord.leases._renew(rooms)).values())  # type: ignore[attr-defined]
    finally:
        await coord.close()
        await store.close()
