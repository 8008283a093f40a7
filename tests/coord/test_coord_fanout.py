"""Fan-out of committed changes (server/coord/fanout.py), on Redis and on the memory twins."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from coord_helpers import MakeCoord, eventually

from server.cluster.processes import PrivateRedis
from server.coord import Change, redis_coordination
from server.coord.fanout import RedisFanout, decode, encode

CHANGE = {"version": 7, "seat": 2, "action": "play QS", "nested": {"cards": ["AS", "KH"], "ok": True},
          "blob": b"\x00\xff"}


async def test_a_change_reaches_every_other_subscribed_process(make_coord: MakeCoord) -> None:
    a, b, c = make_coord("A"), make_coord("B"), make_coord("C")
    got: dict[str, list[Change]] = {"A": [], "B": [], "C": []}
    for coord in (a, b, c):
        await coord.fanout.start()
    await a.fanout.subscribe("room1", got["A"].append)
    await b.fanout.subscribe("room1", got["B"].append)
    await c.fanout.subscribe("room2", got["C"].append)
    receivers = await a.fanout.publish("room1", CHANGE)
    assert receivers == 2  # A and B are subscribed (A skips its own message on delivery)
    await eventually(lambda: got["B"], what="B receives the change")
    assert got["B"] == [Change("room1", "A", CHANGE)]
    await b.fanout.publish("room2", {"version": 1})  # nobody but C listens there
    await eventually(lambda: got["C"], what="C receives room2's change")
    assert got["A"] == [] and got["B"] == [Change("room1", "A", CHANGE)]



async def test_changes_published_together_arrive_in_order_on_every_room(make_coord: MakeCoord) -> None:
    # The publisher sends what queued up meanwhile in one go (one Redis pipeline): the order of each
    # room's changes must survive it.
    a, b = make_coord("A"), make_coord("B")
    for coord in (a, b):
        await coord.fanout.start()
    got: dict[str, list[int]] = {"room1": [], "room2": []}
    await b.fanout.subscribe("room1", lambda change: got["room1"].append(change.change["version"]))
    await b.fanout.subscribe("room2", lambda change: got["room2"].append(change.change["version"]))
    await a.fanout.publish_many([("room1", {"version": 1})])
    await a.fanout.publish_many([(room, {"version": version}) for version in (2, 3, 4)
                                 for room in ("room1", "room2")])
    await eventually(lambda: len(got["room1"]) == 4 and len(got["room2"]) == 3, what="every change arrives")
    assert got == {"room1": [1, 2, 3, 4], "room2": [2, 3, 4]}

async def test_every_listener_of_a_room_is_called_and_unsubscribing_stops_it(make_coord: MakeCoord) -> None:
    a, b = make_coord("A"), make_coord("B")
    for coord in (a, b):
        await coord.fanout.start()
    first: list[Change] = []
    second: list[Change] = []
    await b.fanout.subscribe("room1", first.append)
    await b.fanout.subscribe("room1", second.append)
    await a.fanout.publish("room1", {"version": 1})
    await eventually(lambda: first and second, what="both listeners called")
    await b.fanout.unsubscribe("room1", first.append)
    await a.fanout.publish("room1", {"version": 2})
    await eventually(lambda: len(second) == 2, what="the remaining listener gets version 2")
    assert [change.change["version"] for change in first] == [1]
    await b.fanout.unsubscribe("room1", second.append)
    assert b.fanout.rooms == frozenset()
    assert await a.fanout.publish("room1", {"version": 3}) == 0


async def test_a_failing_listener_does_not_stop_the_others(make_coord: MakeCoord) -> None:
    a, b = make_coord("A"), make_coord("B")
    for coord in (a, b):
        await coord.fanout.start()
    got: list[Change] = []

    def broken(change: Change) -> None:
        raise RuntimeError("listener bug")

    await b.fanout.subscribe("room1", broken)
    await b.fanout.subscribe("room1", got.append)
    await a.fanout.publish("room1", {"version": 1})
    await a.fanout.publish("room1", {"version": 2})
    await eventually(lambda: len(got) == 2, what="the good listener gets both")


def test_envelopes_round_trip_and_garbage_is_refused() -> None:
    assert decode(encode("A", CHANGE)) == ("A", CHANGE)
    for garbage in (b"", b"\xc1", encode("A", {})[:-1], b"\x93\x01\x02\x03"):
        with pytest.raises(ValueError):
            decode(garbage)


async def test_garbage_on_a_room_channel_is_skipped(redis_url: str, redis_cleanup: str) -> None:
    a = redis_coordination(redis_url, "A", prefix=redis_cleanup)
    b = redis_coordination(redis_url, "B", prefix=redis_cleanup)
    try:
        await b.fanout.start()
        got: list[Change] = []
        await b.fanout.subscribe("room1", got.append)
        assert isinstance(b.fanout, RedisFanout)
        await a.redis.publish(b.fanout.keys.room_changes("room1"), b"not msgpack \xc1")
        await a.fanout.publish("room1", {"version": 1})
        await eventually(lambda: got, what="the good message arrives")
        assert got == [Change("room1", "A", {"version": 1})]
    finally:
        await a.close()
        await b.close()


async def test_the_subscriber_reconnects_after_redis_returns_and_asks_for_a_resync(tmp_path: Path) -> None:
    redis = PrivateRedis(tmp_path / "redis")
    redis.start()
    resyncs: list[frozenset[str]] = []
    a = redis_coordination(redis.url, "A")
    b = redis_coordination(redis.url, "B")
    try:
        await b.fanout.start(on_resync=resyncs.append)
        got: list[Change] = []
        await b.fanout.subscribe("room1", got.append)
        await a.fanout.publish("room1", {"version": 1})
        await eventually(lambda: got, what="first change")
        redis.stop()
        assert isinstance(b.fanout, RedisFanout)
        await eventually(lambda: not b.fanout.connected.is_set(), what="B notices Redis is gone")
        redis.start()
        await eventually(lambda: resyncs, what="B reconnects and asks for a resync")
        assert resyncs == [frozenset({"room1"})] and b.fanout.reconnects == 1

        async def delivered() -> bool:
            try:
                await a.fanout.publish("room1", {"version": 2})
            except Exception:  # A's own connection comes back on a later command
                return False
            await asyncio.sleep(0.05)
            return any(change.change["version"] == 2 for change in got)

        await eventually(delivered, what="changes flow again after the reconnect")
    finally:
        await a.close()
        await b.close()
        redis.stop()


async def test_a_process_can_receive_its_own_changes_if_it_asks(make_coord: MakeCoord) -> None:
    a = make_coord("A")
    a.fanout.deliver_own = True
    await a.fanout.start()
    got: list[Change] = []
    await a.fanout.subscribe("room1", got.append)
    message: dict[str, Any] = {"version": 1}
    await a.fanout.publish("room1", message)
    await eventually(lambda: got, what="own change delivered")
    assert got == [Change("room1", "A", message)]


def test_every_envelope_begins_with_its_origins_prefix_and_no_other() -> None:
    # The subscriber drops its own publications by this prefix, before decoding them.
    from server.coord.fanout import decode, encode, own_prefix

    envelope = encode("r1:42:abc", {"room_id": "x", "version": 3})
    assert envelope.startswith(own_prefix("r1:42:abc"))
    assert not envelope.startswith(own_prefix("r1:42:ab"))
    assert not envelope.startswith(own_prefix("r2:42:abc"))
    assert decode(envelope) == ("r1:42:abc", {"room_id": "x", "version": 3})
