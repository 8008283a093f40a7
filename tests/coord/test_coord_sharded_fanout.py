"""Fan-out over a Redis Cluster's sharded pub/sub (server/coord/sharded_fanout.py), on the test
session's own cluster (the common fan-out suite runs there too: test_coord_fanout.py): one subscriber
connection per primary that serves a wanted channel; a shard's connection lost, or a channel the
primary stops serving (an unasked `sunsubscribe`), is placed again and its room resynced."""

from __future__ import annotations

from typing import Any

from coord_helpers import eventually

from server.coord import Change, redis_coordination
from server.coord.sharded_fanout import ClusterFanout
from server.store.sharded import slot_of


async def started(url: str, prefix: str, process_id: str, resyncs: list[frozenset[str]]) -> Any:
    coord = redis_coordination(url, process_id, prefix=prefix)
    assert isinstance(coord.fanout, ClusterFanout)
    await coord.fanout.start(on_resync=resyncs.append)
    return coord


async def test_rooms_on_every_shard_are_heard_through_one_connection_per_primary(
        redis_cluster_url: str, redis_cluster_cleanup: str) -> None:
    a = await started(redis_cluster_url, redis_cluster_cleanup, "A", [])
    b = await started(redis_cluster_url, redis_cluster_cleanup, "B", [])
    try:
        rooms = [f"room{number}" for number in range(12)]
        got: list[Change] = []
        for room in rooms:
            await b.fanout.subscribe(room, got.append)
        fanout: ClusterFanout = b.fanout
        nodes = {fanout._node_for(fanout._channel(room)).name for room in rooms}
        assert len({slot_of(fanout._channel(room)) for room in rooms}) > 3
        assert set(fanout._shards) == nodes | {fanout._node_for(fanout._inbox).name}
        assert await a.fanout.publish_many([(room, {"version": 1}) for room in rooms]) == [1] * len(rooms)
        await eventually(lambda: len(got) == len(rooms), what="every room's change arrives")
        assert sorted(change.room_id for change in got) == sorted(rooms)
    finally:
        await a.close()
        await b.close()


async def test_a_shards_lost_connection_is_opened_again_and_its_rooms_resynced(
        redis_cluster_url: str, redis_cluster_cleanup: str) -> None:
    resyncs: list[frozenset[str]] = []
    a = await started(redis_cluster_url, redis_cluster_cleanup, "A", [])
    b = await started(redis_cluster_url, redis_cluster_cleanup, "B", resyncs)
    try:
        got: list[Change] = []
        await b.fanout.subscribe("room1", got.append)
        fanout: ClusterFanout = b.fanout
        shard = fanout._shards[fanout._where[fanout._channel("room1")]]
        await shard.connection.disconnect()  # as when its primary dies
        await eventually(lambda: resyncs == [frozenset({"room1"})], what="room1 is resynced")
        assert fanout.reconnects == 1
        await eventually(lambda: fanout._shards.get(shard.name) not in (None, shard), what="a new connection")
        assert await a.fanout.publish("room1", {"version": 2}) == 1
        await eventually(lambda: [change.change for change in got] == [{"version": 2}],
                         what="changes arrive again")
    finally:
        await a.close()
        await b.close()


async def test_a_channel_the_primary_stops_serving_is_placed_again(
        redis_cluster_url: str, redis_cluster_cleanup: str) -> None:
    resyncs: list[frozenset[str]] = []
    a = await started(redis_cluster_url, redis_cluster_cleanup, "A", [])
    b = await started(redis_cluster_url, redis_cluster_cleanup, "B", resyncs)
    try:
        got: list[Change] = []
        await b.fanout.subscribe("room2", got.append)
        fanout: ClusterFanout = b.fanout
        channel = fanout._channel("room2")
        shard = fanout._shards[fanout._where[channel]]
        # What a primary sends when its slot moves away (or it becomes a replica): `sunsubscribe`,
        # unasked as far as the fan-out knows.
        await shard.send("SUNSUBSCRIBE", channel)
        await eventually(lambda: resyncs == [frozenset({"room2"})], what="room2 is resynced")
        await eventually(lambda: channel in fanout._where, what="room2 is subscribed again")
        assert await a.fanout.publish("room2", {"version": 3}) == 1
        await eventually(lambda: got, what="changes arrive again")
    finally:
        await a.close()
        await b.close()
